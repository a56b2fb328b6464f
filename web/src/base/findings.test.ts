import { describe, expect, it } from 'vitest';
import type { SimHandle } from '../engine/engine';
import type { CounterSeries, SimEvent } from '../engine/types';
import { findingWindows, findingsIn, readFindings, relatedSteps } from './findings';

function event(step: number, deltas: Record<string, number>): SimEvent {
  return { step, timeNs: step * 10, cpu: 1, kind: 'pte_write', function: 'do_wp_page', line: '', cause: null, task: 't1', narration: `event ${step}`, touched: { ptes: [], pfns: [], cpus: [] }, counterDeltas: deltas } as unknown as SimEvent;
}

describe('a run\'s findings', () => {
  const series: CounterSeries = {
    steps: [0, 10, 20, 30, 40],
    timeNs: [0, 1, 2, 3, 4],
    counters: { lost_writes: [0, 0, 1, 1, 2], stale_tlb_stores: [0, 1, 1, 1, 1], nr_dirtied: [0, 5, 9, 9, 9] },
  };

  it('are looked for only where the series says a finding counter grew, windows merged', () => {
    expect(findingWindows(series)).toEqual([
      { from: 0, to: 20 },
      { from: 30, to: 40 },
    ]);
    expect(findingWindows({ steps: [0, 5], timeNs: [0, 1], counters: { nr_dirtied: [0, 3] } })).toEqual([]);
    expect(findingWindows(null)).toEqual([]);
  });

  it('are the events whose deltas count a lost write or a stale-TLB store, in step order', () => {
    const found = findingsIn([event(12, { lost_writes: 1, nr_dirtied: 1 }), event(3, { stale_tlb_stores: 2 }), event(5, { nr_dirtied: 1 })]);
    expect(found.map((f) => [f.step, f.counter, f.count, f.label])).toEqual([
      [3, 'stale_tlb_stores', 2, 'Store through a stale TLB entry'],
      [12, 'lost_writes', 1, 'Lost write'],
    ]);
  });

  it('include the engine\'s other findings: a latent lost write, a use after free, a flush outlived', () => {
    const found = findingsIn([
      event(40, { latent_lost_writes: 1, workload_ops: 1 }),
      event(7, { tlb_use_after_free: 1, stale_tlb_stores: 1 }),
      event(9, { tlb_flush_outlived: 2 }),
    ]);
    expect(found.map((f) => [f.step, f.counter])).toEqual([
      [7, 'tlb_use_after_free'],
      [7, 'stale_tlb_stores'],
      [9, 'tlb_flush_outlived'],
      [40, 'latent_lost_writes'],
    ]);
    expect(findingWindows({ steps: [0, 50], timeNs: [0, 1], counters: { latent_lost_writes: [0, 1] } })).toEqual([{ from: 0, to: 50 }]);
  });

  it('name, for a use of a stale TLB entry, the walk that cached it and the other CPU\'s change of the PTE', () => {
    const at = (step: number, cpu: number, kind: string, fn: string, ptes: [number, number][]) =>
      ({ ...event(step, {}), cpu, kind, function: fn, touched: { ptes, pfns: [], cpus: [] } }) as unknown as SimEvent;
    const pte: [number, number] = [1, 0x7f000];
    const events = [
      at(3, 0, 'page_walk', 'mmu_walk', [[1, 0x7f001]]),
      at(10, 0, 'page_walk', 'mmu_walk', [pte]),
      at(20, 1, 'pte_write', 'move_ptes', [pte]),
      at(30, 1, 'pte_write', 'move_ptes', [pte]),
      at(40, 0, 'access', 'user code', [[1, 0x7f001]]),
    ];
    const use = at(53, 0, 'access', 'user code', [pte]);
    expect(relatedSteps(use, [...events, use])).toEqual([
      { step: 10, what: 'CPU 0 cached it', detail: "CPU 0's page walk cached the TLB entry" },
      { step: 30, what: 'CPU 1 changed the PTE', detail: 'CPU 1 changed the PTE in move_ptes' },
    ]);
    // No walk of that PTE in the window: nothing is named rather than a wrong step.
    expect(relatedSteps(use, events.slice(2))).toEqual([]);
    // A finding that is not an access (a page dropped by invalidate_mapping_pages) has none.
    expect(relatedSteps(at(60, 1, 'invalidate', 'invalidate_mapping_pages', [pte]), events)).toEqual([]);
  });

  it('are read from the run\'s events in those windows only', async () => {
    const asked: [number, number][] = [];
    const all = [event(4, { stale_tlb_stores: 1 }), event(15, { lost_writes: 1 }), event(25, { nr_dirtied: 1 }), event(33, { lost_writes: 1 })];
    const sim = {
      events: async (from: number, to: number) => {
        asked.push([from, to]);
        return all.filter((e) => e.step >= from && e.step < to);
      },
    } as unknown as SimHandle;
    const found = await readFindings(sim, series);
    expect(asked).toEqual([
      [0, 20],
      [30, 40],
    ]);
    expect(found.map((f) => f.step)).toEqual([4, 15, 33]);
    expect((await readFindings(sim, series, 2)).length).toBe(2);
  });
});
