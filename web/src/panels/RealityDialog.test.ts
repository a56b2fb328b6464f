import { describe, expect, it } from 'vitest';
import type { VmstatDelta } from '../engine/types';
import { realityCell } from './CountersTable';
import { intervalSeconds, sharedCounters } from './RealityDialog';

const DELTA: VmstatDelta = {
  changes: [
    { name: 'pgfault', before: 10, after: 2010, delta: 2000 },
    { name: 'nr_free_pages', before: 500, after: 480, delta: -20 },
    { name: 'pgmajfault', before: 3, after: 3, delta: 0 },
  ],
  only_before: [],
  only_after: ['pgdemote_kswapd'],
};

describe('the measured column', () => {
  it('shows totals, or rates with an interval, and nothing for a counter the machine lacks', () => {
    expect(realityCell({ delta: DELTA, intervalS: null }, 'pgfault')).toBe('+2,000');
    expect(realityCell({ delta: DELTA, intervalS: null }, 'nr_free_pages')).toBe('\u221220');
    expect(realityCell({ delta: DELTA, intervalS: null }, 'pgmajfault')).toBe('0');
    expect(realityCell({ delta: DELTA, intervalS: 10 }, 'pgfault')).toBe('+200/s');
    expect(realityCell({ delta: DELTA, intervalS: 10 }, 'nr_free_pages')).toBe('\u22122.0/s');
    expect(realityCell({ delta: DELTA, intervalS: 10 }, 'pgmajfault')).toBe('0/s');
    expect(realityCell({ delta: DELTA, intervalS: 10 }, 'pgdemote_kswapd')).toBeNull();
    expect(realityCell({ delta: DELTA, intervalS: null }, 'zone_lock_acquired')).toBeNull();
  });

  it('keeps the run order of the counters both have', () => {
    expect(sharedCounters(DELTA, ['zone_lock_acquired', 'pgmajfault', 'pgfault', 'pgdemote_kswapd'])).toEqual(['pgmajfault', 'pgfault']);
  });

  it('reads the interval box', () => {
    expect(intervalSeconds('')).toBeNull();
    expect(intervalSeconds(' 10 ')).toBe(10);
    expect(intervalSeconds('0.5')).toBe(0.5);
    expect(intervalSeconds('0')).toBeNaN();
    expect(intervalSeconds('ten')).toBeNaN();
    expect(intervalSeconds('-3')).toBeNaN();
  });
});
