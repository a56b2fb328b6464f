import { describe, expect, it } from 'vitest';
import { buildAxis, positionOf, positionOfPair, stepsAt, type AbAxis } from './abAxis';

/** Every position's pair of steps. */
function pairs(axis: AbAxis): [number, number][] {
  return Array.from({ length: axis.length }, (_, p) => {
    const s = stepsAt(axis, p);
    return [s.a, s.b];
  });
}

describe('the A/B axis', () => {
  it('is the runs themselves when they are the same', () => {
    const marks = [3, 1, 7, 2];
    const axis = buildAxis(marks, 10, marks, 10);
    expect(axis.length).toBe(11);
    expect(pairs(axis)).toEqual(Array.from({ length: 11 }, (_, i) => [i, i]));
  });

  it('gives a stretch the longer run’s steps and holds the shorter run at its last step of it', () => {
    // A reaches 1 access at position 3 and 2 at position 10 (7 steps of kernel work between);
    // B does the same work in 4 steps. Both end 2 steps after the last access.
    const axis = buildAxis([3, 1, 10, 2], 12, [3, 1, 7, 2], 9);
    const p = pairs(axis);
    expect(p.slice(0, 4)).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    // The second access: A takes 7 positions, B holds at 6 for the 3 it does not need.
    expect(p.slice(3, 11)).toEqual([
      [3, 3],
      [4, 4],
      [5, 5],
      [6, 6],
      [7, 6],
      [8, 6],
      [9, 6],
      [10, 7],
    ]);
    expect(p[p.length - 1]).toEqual([12, 9]);
  });

  it('shows every step of both runs, in order, and never the same pair twice', () => {
    const axis = buildAxis([2, 1, 9, 3, 15, 4], 20, [5, 1, 6, 2, 8, 4], 11);
    const p = pairs(axis);
    for (const side of [0, 1] as const) {
      const steps = p.map((x) => x[side]);
      expect(steps.every((s, i) => i === 0 || s >= (steps[i - 1] as number))).toBe(true);
      expect(new Set(steps).size).toBe((side === 0 ? 20 : 11) + 1);
    }
    expect(new Set(p.map((x) => x.join(','))).size).toBe(p.length);
  });

  it('lines a run that reaches two values at once up with one that reaches them one by one', () => {
    // B finishes accesses 2 and 3 in one step (a bulk run), A one at a time.
    const axis = buildAxis([2, 1, 4, 2, 6, 3], 8, [2, 1, 5, 3], 7);
    const at = (p: number): [number, number] => {
      const s = stepsAt(axis, p);
      return [s.a, s.b];
    };
    const p4 = positionOf(axis, 'a', 4);
    expect(at(p4)[0]).toBe(4);
    // While A does access 3, B has already done it and waits at the step where it did.
    expect(at(positionOf(axis, 'a', 5))).toEqual([5, 5]);
  });

  it('finds a position from a run’s step, and the position of a pair', () => {
    const axis = buildAxis([3, 1, 10, 2], 12, [3, 1, 7, 2], 9);
    for (let s = 0; s <= 12; s++) expect(stepsAt(axis, positionOf(axis, 'a', s)).a).toBe(s);
    for (let s = 0; s <= 9; s++) expect(stepsAt(axis, positionOf(axis, 'b', s)).b).toBe(s);
    // B holds at 6 while A goes from 6 to 9: the pair (8, 6) has one position.
    const p = positionOfPair(axis, 8, 6);
    expect(stepsAt(axis, p)).toEqual({ a: 8, b: 6 });
    // A pair that no position shows gives A's position.
    expect(stepsAt(axis, positionOfPair(axis, 8, 2)).a).toBe(8);
  });

  it('clamps positions and steps outside the runs', () => {
    const axis = buildAxis([1, 1], 3, [1, 1], 5);
    expect(stepsAt(axis, -4)).toEqual({ a: 0, b: 0 });
    expect(stepsAt(axis, 1e9)).toEqual({ a: 3, b: 5 });
    expect(stepsAt(axis, Number.NaN)).toEqual({ a: 0, b: 0 });
    expect(positionOf(axis, 'b', 99)).toBe(axis.length - 1);
  });

  it('works for runs without a workload access', () => {
    const axis = buildAxis([], 4, [], 6);
    expect(axis.length).toBe(7);
    expect(stepsAt(axis, 6)).toEqual({ a: 4, b: 6 });
  });
});
