import { describe, expect, it } from 'vitest';
import { testMechanism } from '../engine/testMechanisms';
import type { CounterSeries, PatchInfo } from '../engine/types';
import { counterMoves, defaultPlotCounters, exercisedMechanisms, finalCounters, groupCounters } from './mechanisms';

const CORE = testMechanism('core', { counters: ['ctxt', 'tlb_misses', ['accesses', false]], plots: ['ctxt', 'tlb_misses'] });
const MIGRATE = testMechanism('migrate', { counters: ['pgmigrate_success', 'pgmigrate_fail'], plots: ['pgmigrate_success', 'pgmigrate_fail'] });
const NUMA = testMechanism('numa', {
  counters: ['numa_hint_faults', 'numa_pages_migrated', 'nr_tlb_remote_flush'],
  toggles: ['numa_delay_map'],
  plots: ['numa_pages_migrated', 'nr_tlb_remote_flush', 'pgmigrate_success', 'numa_hint_faults'],
});
const FORK = testMechanism('fork', { counters: ['cow_copies', 'pgreuse'], toggles: ['fork_toggle'], plots: ['cow_copies', 'pgreuse'] });
const ALL = [CORE, MIGRATE, NUMA, FORK];

/** A series of three samples per counter. */
function series(counters: Record<string, number[]>): CounterSeries {
  return { steps: [1, 2, 3], timeNs: [10, 20, 30], counters };
}

describe('groupCounters', () => {
  it('groups a run’s counters by mechanism, in metadata order and each mechanism’s order', () => {
    const groups = groupCounters(ALL, ['accesses', 'cow_copies', 'ctxt', 'numa_pages_migrated', 'numa_hint_faults', 'pgreuse']);
    expect(groups.map((g) => [g.mechanism?.id, g.counters.map((c) => c.name)])).toEqual([
      ['core', ['ctxt', 'accesses']],
      ['numa', ['numa_hint_faults', 'numa_pages_migrated']],
      ['fork', ['cow_copies', 'pgreuse']],
    ]);
    expect(groups[0]?.counters[1]).toEqual({ name: 'accesses', doc: 'accesses doc', kernel: false });
  });

  it('puts counters no mechanism declares last, in the run’s order', () => {
    const groups = groupCounters([CORE], ['zeta', 'ctxt', 'alpha']);
    expect(groups.map((g) => [g.mechanism?.id ?? null, g.counters.map((c) => c.name)])).toEqual([
      ['core', ['ctxt']],
      [null, ['zeta', 'alpha']],
    ]);
    expect(groupCounters([], ['x'])).toEqual([{ mechanism: null, counters: [{ name: 'x', doc: '', kernel: true }] }]);
  });
});

describe('exercisedMechanisms', () => {
  const patches = [
    { id: 'numa_delay_map', default: true },
    { id: 'fork_toggle', default: false },
  ] as unknown as PatchInfo[];

  it('keeps the mechanisms with a counter not zero at the end, in metadata order', () => {
    const run = { finalCounters: { ctxt: 2, pgmigrate_success: 0, numa_hint_faults: 4 }, toggles: { numa_delay_map: true, fork_toggle: false }, patches };
    expect(exercisedMechanisms(ALL, run).map((m) => m.id)).toEqual(['core', 'numa']);
  });

  it('keeps a mechanism whose toggle the run sets away from its default', () => {
    const run = { finalCounters: {}, toggles: { numa_delay_map: false, fork_toggle: false }, patches };
    expect(exercisedMechanisms(ALL, run).map((m) => m.id)).toEqual(['numa']);
    expect(exercisedMechanisms(ALL, { ...run, toggles: { numa_delay_map: true, fork_toggle: true } }).map((m) => m.id)).toEqual(['fork']);
  });
});

describe('finalCounters and counterMoves', () => {
  it('reads the last sample and whether any sample is not zero', () => {
    const s = series({ a: [0, 3, 3], b: [0, 0, 0], c: [0, 1, 0] });
    expect(finalCounters(s)).toEqual({ a: 3, b: 0, c: 0 });
    expect(['a', 'b', 'c', 'missing'].map((n) => counterMoves(s, n))).toEqual([true, false, true, false]);
  });
});

describe('defaultPlotCounters', () => {
  const names = ['accesses', 'cow_copies', 'ctxt', 'nr_tlb_remote_flush', 'numa_hint_faults', 'numa_pages_migrated', 'pgmigrate_fail', 'pgmigrate_success', 'pgreuse', 'tlb_misses'];

  it('takes the most specific mechanism’s moving counters first (reverse registry order), without repeats, at most four', () => {
    const s = series({
      ctxt: [0, 1, 2],
      tlb_misses: [0, 0, 0],
      pgmigrate_success: [1, 2, 3],
      pgmigrate_fail: [0, 0, 0],
      numa_pages_migrated: [1, 1, 2],
      nr_tlb_remote_flush: [0, 1, 1],
      numa_hint_faults: [1, 2, 3],
      cow_copies: [0, 0, 0],
      pgreuse: [0, 0, 0],
    });
    // fork moves nothing; numa (built on migrate, built on core) comes before them.
    expect(defaultPlotCounters(ALL, s, names)).toEqual(['numa_pages_migrated', 'nr_tlb_remote_flush', 'pgmigrate_success', 'numa_hint_faults']);
    expect(defaultPlotCounters(ALL, s, names, 2)).toEqual(['numa_pages_migrated', 'nr_tlb_remote_flush']);
    expect(defaultPlotCounters([CORE, MIGRATE], s, names)).toEqual(['pgmigrate_success', 'ctxt']);
  });

  it('takes a counter two views name once, for the more specific view', () => {
    const s = series({ ctxt: [0, 1, 2], cow_copies: [0, 1, 2], pgreuse: [0, 0, 1], nr_tlb_remote_flush: [0, 1, 1] });
    const fork = { ...FORK, views: [{ id: 'fork', title: 'fork', plots: ['cow_copies', 'ctxt', 'pgreuse'] }] };
    expect(defaultPlotCounters([CORE, NUMA, fork], s, names)).toEqual(['cow_copies', 'ctxt', 'pgreuse', 'nr_tlb_remote_flush']);
    expect(defaultPlotCounters([CORE, NUMA, fork], s, names, 6)).toEqual(['cow_copies', 'ctxt', 'pgreuse', 'nr_tlb_remote_flush']);
  });

  it('skips a view’s counter the run does not have', () => {
    const s = series({ cow_copies: [0, 1, 1] });
    expect(defaultPlotCounters(ALL, s, names)).toEqual(['cow_copies']);
  });

  it('falls back to the first moving counters of the run when no view names one', () => {
    const s = series({ accesses: [1, 2, 3], ctxt: [0, 0, 0], zz: [0, 5, 5], tlb_misses: [0, 0, 0] });
    expect(defaultPlotCounters(ALL, s, ['zz', 'ctxt', 'accesses'])).toEqual(['zz', 'accesses']);
    expect(defaultPlotCounters([], s, ['accesses', 'zz', 'ctxt'], 1)).toEqual(['accesses']);
    expect(defaultPlotCounters(ALL, series({ ctxt: [0, 0, 0] }), ['ctxt'])).toEqual([]);
  });
});
