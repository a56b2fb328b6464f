import { describe, expect, it } from 'vitest';
import type { CounterSeries, SimEvent } from '../../engine/types';
import { anonStaleExplanation, decisionInfo, findingSteps, phaseText, regimeRule, vpnHex } from './mremapModel';

function event(step: number, deltas: Record<string, number>): SimEvent {
  return { step, timeNs: 0, cpu: 0, kind: 'x', function: 'f', line: 'L', cause: null, task: '', narration: '', touched: { ptes: [], pfns: [], cpus: [] } as unknown as SimEvent['touched'], counterDeltas: deltas };
}

describe('mremap panel model', () => {
  it('gives every engine decision a badge of the right kind', () => {
    for (const id of ['force-dirty', 'force-present', 'force-file', 'force-locked', 'force-swapcache']) expect(decisionInfo(id)).toMatchObject({ badge: 'F', kind: 'force' });
    for (const id of ['deferred', 'not-dirty', 'anon-not-swapcache']) expect(decisionInfo(id)).toMatchObject({ badge: 'D', kind: 'deferred' });
    expect(decisionInfo('not-present').kind).toBe('none');
    expect(decisionInfo('unknown-id')).toEqual({ badge: '?', label: 'unknown-id', kind: 'none' });
  });

  it('says when each regime flushes', () => {
    expect(regimeRule('deferred')).toMatch(/^v4\.8: one flush .* after every PTL is dropped$/);
    expect(regimeRule('dirty')).toMatch(/before its old PTL drops/);
    expect(regimeRule('dirty_file_or_swapcache')).toMatch(/^2018 proposal/);
    expect(regimeRule('present')).toMatch(/before either PTL drops/);
  });

  it('names the phase, the flush by its cause', () => {
    expect(phaseText({ phase: 'flush', flushing: 'ptl', active: true })).toBe('flush_tlb_range under the PTL');
    expect(phaseText({ phase: 'flush', flushing: 'deferred', active: true })).toBe('deferred flush_tlb_range');
    expect(phaseText({ phase: 'mmap_lock', flushing: null, active: true })).toBe('waiting for mmap_lock (write)');
    expect(phaseText({ phase: 'move_ptes', flushing: null, active: false })).toBe('done');
  });

  it('finds the exact frame of a finding in the events when they cover the run (the frame after the event)', () => {
    const events = [event(3, {}), event(7, { lost_writes: 1 }), event(9, { stale_tlb_stores: 1, lost_writes: 2 })];
    expect(findingSteps(null, 'lost_writes', events, true)).toEqual([
      { step: 8, exact: true, count: 1 },
      { step: 10, exact: true, count: 2 },
    ]);
    expect(findingSteps(null, 'lost_writes', events, true, 1)).toHaveLength(1);
  });

  it('falls back to the sampled series, exact only when the samples are one step apart', () => {
    const series: CounterSeries = { steps: [0, 1, 2, 10, 20], timeNs: [0, 0, 0, 0, 0], counters: { lost_writes: [0, 0, 1, 1, 3] } };
    expect(findingSteps(series, 'lost_writes', [], false)).toEqual([
      { step: 2, exact: true, count: 1 },
      { step: 20, exact: false, count: 2 },
    ]);
    expect(findingSteps(series, 'absent', [], false)).toEqual([]);
    // Incomplete events are not trusted: the series is used.
    expect(findingSteps(series, 'lost_writes', [event(5, { lost_writes: 1 })], false)).toHaveLength(2);
  });

  it('explains the harmless stale store only for an anonymous page under the 2018 rule', () => {
    expect(anonStaleExplanation('dirty_file_or_swapcache', false)).toMatch(/lands in the same physical page.*no writeback.*not freed before the deferred flush/);
    expect(anonStaleExplanation('dirty_file_or_swapcache', true)).toBeNull();
    expect(anonStaleExplanation('deferred', false)).toBeNull();
  });

  it('prints vpns in hex', () => {
    expect(vpnHex(0x7f400)).toBe('0x7f400');
  });
});
