// The A/B axis: two runs of one scenario lined up on their workload, not on raw steps.
//
// Two runs of one scenario under different toggles make the same user accesses, but the
// kernel work between two accesses can take a different number of steps (v5.12's hint
// fault sends an IPI that v5.13's does not). The engine marks, per run, the positions at
// which its count of finished accesses (`workload_ops`) grew (`progressMarks`). The axis
// cuts both runs at every value either run reaches: between two such values each run does
// the kernel work of the same stretch of the workload, and the axis gives that stretch as
// many positions as the longer run needs; the shorter run holds at its last step of the
// stretch meanwhile. Every step of both runs appears at some position, in order, and two
// positions never show the same pair of steps.
//
// Positions: a run of `total` steps has positions 0..=total (the state before step 0 and
// after each step); the axis has positions 0..length-1, the last showing both runs' ends.

/** A run's progress marks as the engine gives them: [position0, ops0, position1, ops1, ...], in position order. */
export type ProgressMarks = ArrayLike<number>;

/** Two runs lined up: per stretch of the workload, where it starts in each run and how long it is. */
export interface AbAxis {
  /** Positions on the axis. */
  readonly length: number;
  /** Per stretch: its first axis position (ascending), its first position in A and in B, and its length in A and in B. */
  readonly axisStart: Float64Array;
  readonly startA: Float64Array;
  readonly startB: Float64Array;
  readonly lenA: Float64Array;
  readonly lenB: Float64Array;
  /** The runs' ends (totalSteps). */
  readonly totalA: number;
  readonly totalB: number;
}

/** The lane a run is in. */
export type Side = 'a' | 'b';

/** Positions of a run where each value of `values` is first reached (0 for 0; `total` for a value it never reaches). */
function startsOf(marks: ProgressMarks, total: number, values: readonly number[]): Float64Array {
  const out = new Float64Array(values.length);
  let j = 0;
  const n = Math.floor(marks.length / 2);
  values.forEach((v, i) => {
    if (v <= 0) {
      out[i] = 0;
      return;
    }
    while (j < n && (marks[2 * j + 1] as number) < v) j++;
    out[i] = j < n ? Math.min(marks[2 * j] as number, total) : total;
  });
  return out;
}

/** The sorted union of both runs' progress values, with 0 first. */
function valuesOf(a: ProgressMarks, b: ProgressMarks): number[] {
  const set = new Set<number>([0]);
  for (const m of [a, b]) for (let i = 1; i < m.length; i += 2) set.add(m[i] as number);
  return [...set].sort((x, y) => x - y);
}

/** Lines up run A (`totalA` steps) and run B on their progress marks. */
export function buildAxis(marksA: ProgressMarks, totalA: number, marksB: ProgressMarks, totalB: number): AbAxis {
  const values = valuesOf(marksA, marksB);
  const sa = startsOf(marksA, totalA, values);
  const sb = startsOf(marksB, totalB, values);
  const n = values.length;
  const axisStart: number[] = [];
  const startA: number[] = [];
  const startB: number[] = [];
  const lenA: number[] = [];
  const lenB: number[] = [];
  let length = 0;
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    // The last stretch runs to the end, inclusive: it holds the final positions.
    const la = last ? totalA - (sa[i] as number) + 1 : (sa[i + 1] as number) - (sa[i] as number);
    const lb = last ? totalB - (sb[i] as number) + 1 : (sb[i + 1] as number) - (sb[i] as number);
    const len = Math.max(la, lb);
    if (len <= 0) continue;
    axisStart.push(length);
    startA.push(sa[i] as number);
    startB.push(sb[i] as number);
    lenA.push(Math.max(0, la));
    lenB.push(Math.max(0, lb));
    length += len;
  }
  return {
    length,
    axisStart: Float64Array.from(axisStart),
    startA: Float64Array.from(startA),
    startB: Float64Array.from(startB),
    lenA: Float64Array.from(lenA),
    lenB: Float64Array.from(lenB),
    totalA,
    totalB,
  };
}

/** Index of the last element of the ascending `arr` that is <= `x` (0 when none is). */
function lastAtOrBelow(arr: Float64Array, x: number): number {
  let lo = 0;
  let hi = arr.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((arr[mid] as number) <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Clamps an axis position into 0..length-1. */
export function clampPosition(axis: AbAxis, position: number): number {
  if (!Number.isFinite(position)) return 0;
  return Math.max(0, Math.min(axis.length - 1, Math.trunc(position)));
}

/** The step each run shows at axis position `position` (clamped). */
export function stepsAt(axis: AbAxis, position: number): { a: number; b: number } {
  if (axis.length === 0) return { a: 0, b: 0 };
  const p = clampPosition(axis, position);
  const i = lastAtOrBelow(axis.axisStart, p);
  const o = p - (axis.axisStart[i] as number);
  const at = (start: number, len: number): number => (len > 0 ? start + Math.min(o, len - 1) : start);
  return { a: at(axis.startA[i] as number, axis.lenA[i] as number), b: at(axis.startB[i] as number, axis.lenB[i] as number) };
}

/** The first axis position at which run `side` shows `step` (clamped into the run). */
export function positionOf(axis: AbAxis, side: Side, step: number): number {
  if (axis.length === 0) return 0;
  const total = side === 'a' ? axis.totalA : axis.totalB;
  const s = Math.max(0, Math.min(total, Math.trunc(Number.isFinite(step) ? step : 0)));
  const starts = side === 'a' ? axis.startA : axis.startB;
  const lens = side === 'a' ? axis.lenA : axis.lenB;
  // The stretch holding `s`: the last one starting at or before it with a length (a run
  // that skipped a stretch has length 0 there, at the start of the next).
  let i = lastAtOrBelow(starts, s);
  while (i > 0 && (lens[i] as number) === 0) i--;
  return (axis.axisStart[i] as number) + Math.max(0, s - (starts[i] as number));
}

/** The axis position showing step `a` of A and step `b` of B, or the first showing `a` when no position shows both. */
export function positionOfPair(axis: AbAxis, a: number, b: number): number {
  const first = positionOf(axis, 'a', a);
  for (let p = first; p < axis.length; p++) {
    const at = stepsAt(axis, p);
    if (at.a !== a) break;
    if (at.b === b) return p;
  }
  return first;
}
