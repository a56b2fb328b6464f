// Coordinate maths of the counter plots: simulated time <-> pixels, rates from
// cumulative counters, and the sample nearest a time. Pure, so that it is tested
// without a DOM; Plots.tsx only draws what these return.

/** A unit of simulated time for axis labels: its name and its length in ns. */
export interface TimeUnit {
  label: 'ns' | 'µs' | 'ms' | 's';
  ns: number;
}

const UNITS: readonly TimeUnit[] = [
  { label: 's', ns: 1e9 },
  { label: 'ms', ns: 1e6 },
  { label: 'µs', ns: 1e3 },
  { label: 'ns', ns: 1 },
];

/** The largest unit of which a span of `spanNs` holds at least two, so that ticks read "250 µs", not "0.25 ms". */
export function timeUnitForSpanNs(spanNs: number): TimeUnit {
  return UNITS.find((u) => spanNs >= 2 * u.ns) ?? (UNITS[UNITS.length - 1] as TimeUnit);
}

/** Maps a simulated time into [rangePx]; a zero-length domain maps everything to the range's start. */
export function simNsToPx(timeNs: number, domainNs: readonly [number, number], rangePx: readonly [number, number]): number {
  const span = domainNs[1] - domainNs[0];
  if (span <= 0) return rangePx[0];
  return rangePx[0] + ((timeNs - domainNs[0]) / span) * (rangePx[1] - rangePx[0]);
}

/** Inverse of simNsToPx, clamped to the domain (a drag past the plot's edge means its first or last time). */
export function pxToSimNs(px: number, domainNs: readonly [number, number], rangePx: readonly [number, number]): number {
  const width = rangePx[1] - rangePx[0];
  if (width === 0) return domainNs[0];
  const f = Math.max(0, Math.min(1, (px - rangePx[0]) / width));
  return domainNs[0] + f * (domainNs[1] - domainNs[0]);
}

/**
 * The rate of a cumulative counter per µs of simulated time: sample i gets the
 * increase since the last sample at an earlier time, divided by that time. Samples
 * at the same time as the one before share its rate (no division by zero); the
 * first sample has no interval before it and gets 0.
 */
export function ratePerUs(timeNs: readonly number[], values: readonly number[]): number[] {
  const out = new Array<number>(values.length).fill(0);
  let prev = -1;
  for (let i = 1; i < values.length; i++) {
    const t = timeNs[i] as number;
    if (t > (timeNs[i - 1] as number)) prev = i - 1;
    if (prev < 0) continue;
    const dtUs = (t - (timeNs[prev] as number)) / 1_000;
    out[i] = dtUs > 0 ? ((values[i] as number) - (values[prev] as number)) / dtUs : (out[i - 1] as number);
  }
  return out;
}

/** Index of the sample of `sortedNs` (non-decreasing) nearest `timeNs`, the earlier on a tie; -1 when there is none. */
export function nearestSampleIndex(sortedNs: readonly number[], timeNs: number): number {
  if (sortedNs.length === 0) return -1;
  let lo = 0;
  let hi = sortedNs.length - 1;
  // First index with a time >= timeNs.
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sortedNs[mid] as number) < timeNs) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && timeNs - (sortedNs[lo - 1] as number) <= (sortedNs[lo] as number) - timeNs) return lo - 1;
  return lo;
}

/** The sampled step nearest pixel `px` of a plot whose x axis maps `domainNs` onto `rangePx`; null without samples. */
export function stepAtPx(series: { steps: readonly number[]; timeNs: readonly number[] }, px: number, domainNs: readonly [number, number], rangePx: readonly [number, number]): number | null {
  const i = nearestSampleIndex(series.timeNs, pxToSimNs(px, domainNs, rangePx));
  return i < 0 ? null : (series.steps[i] as number);
}
