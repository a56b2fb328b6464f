import { describe, expect, it } from 'vitest';
import { nearestSampleIndex, pxToSimNs, ratePerUs, simNsToPx, stepAtPx, timeUnitForSpanNs } from './plotMath';

describe('plot maths', () => {
  it('maps simulated time to pixels and back', () => {
    const domain = [0, 2_000_000] as const;
    const range = [40, 440] as const;
    expect(simNsToPx(0, domain, range)).toBe(40);
    expect(simNsToPx(1_000_000, domain, range)).toBe(240);
    expect(simNsToPx(2_000_000, domain, range)).toBe(440);
    expect(pxToSimNs(240, domain, range)).toBe(1_000_000);
    for (const t of [0, 123_456, 1_999_999]) expect(pxToSimNs(simNsToPx(t, domain, range), domain, range)).toBeCloseTo(t, 6);
  });

  it('clamps pixels outside the plot to its ends and survives empty domains', () => {
    expect(pxToSimNs(0, [100, 200], [40, 440])).toBe(100);
    expect(pxToSimNs(900, [100, 200], [40, 440])).toBe(200);
    expect(simNsToPx(5, [7, 7], [40, 440])).toBe(40);
    expect(pxToSimNs(100, [7, 7], [40, 40])).toBe(7);
  });

  it('picks a unit that gives readable ticks', () => {
    expect(timeUnitForSpanNs(900).label).toBe('ns');
    expect(timeUnitForSpanNs(1_500).label).toBe('ns');
    expect(timeUnitForSpanNs(45_000).label).toBe('µs');
    expect(timeUnitForSpanNs(1_500_000).label).toBe('µs');
    expect(timeUnitForSpanNs(30_000_000).label).toBe('ms');
    expect(timeUnitForSpanNs(0).label).toBe('ns');
  });

  it('computes the rate per µs from a cumulative counter', () => {
    // 2 000 ns apart: +4 is 2 per µs; +0 is 0; +1 over 500 ns is 2 per µs.
    expect(ratePerUs([0, 2_000, 4_000, 4_500], [0, 4, 4, 5])).toEqual([0, 2, 0, 2]);
  });

  it('does not divide by zero when samples share a time', () => {
    // Samples 1 and 2 are both at 1 000 ns: both measure from sample 0.
    expect(ratePerUs([0, 1_000, 1_000, 3_000], [0, 1, 3, 7])).toEqual([0, 1, 3, 2]);
    expect(ratePerUs([0, 0, 0], [0, 1, 2])).toEqual([0, 0, 0]);
    expect(ratePerUs([], [])).toEqual([]);
  });

  it('finds the nearest sample, the earlier on a tie', () => {
    const t = [0, 10, 20, 20, 40];
    expect(nearestSampleIndex(t, -5)).toBe(0);
    expect(nearestSampleIndex(t, 4)).toBe(0);
    expect(nearestSampleIndex(t, 5)).toBe(0);
    expect(nearestSampleIndex(t, 6)).toBe(1);
    expect(nearestSampleIndex(t, 20)).toBe(2);
    expect(nearestSampleIndex(t, 31)).toBe(4);
    expect(nearestSampleIndex(t, 99)).toBe(4);
    expect(nearestSampleIndex([], 3)).toBe(-1);
  });

  it('turns a click position into the nearest sampled step', () => {
    const series = { steps: [0, 700, 1_400], timeNs: [0, 1_000_000, 2_000_000] };
    expect(stepAtPx(series, 240, [0, 2_000_000], [40, 440])).toBe(700);
    expect(stepAtPx(series, 430, [0, 2_000_000], [40, 440])).toBe(1_400);
    expect(stepAtPx(series, 0, [0, 2_000_000], [40, 440])).toBe(0);
    expect(stepAtPx({ steps: [], timeNs: [] }, 100, [0, 1], [0, 1])).toBeNull();
  });
});
