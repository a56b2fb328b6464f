import { describe, expect, it } from 'vitest';
import { bulkFromViews } from './bulk';
import { normalizeFrame, normalizeSeries, plainRecord, toPlain } from './normalize';

describe('normalize', () => {
  it('reads a counter series as plain arrays and refuses misaligned ones', () => {
    const raw = { steps: [0, 5], timeNs: [0n, 900n], counters: new Map([['pgfault', [0n, 3n]]]) };
    expect(normalizeSeries(raw)).toEqual({ steps: [0, 5], timeNs: [0, 900], counters: { pgfault: [0, 3] } });
    expect(() => normalizeSeries({ steps: [0, 5], timeNs: [0], counters: {} })).toThrow('2 steps but 1 times');
    expect(() => normalizeSeries({ steps: [0, 5], timeNs: [0, 1], counters: { pgfault: [0] } })).toThrow('series of pgfault has 1 samples, not 2');
  });
  it('turns nested Maps and BigInts into plain data', () => {
    const input = { a: new Map<string, unknown>([['x', 1n], ['y', [new Map([['z', true]])]]]), b: [1, 'two', null] };
    expect(toPlain(input)).toEqual({ a: { x: 1, y: [{ z: true }] }, b: [1, 'two', null] });
  });
  it('keeps plain records as they are and repairs Maps and BigInts', () => {
    const rec = { a: 1 };
    expect(plainRecord(rec)).toBe(rec);
    expect(plainRecord(new Map([['a', 2n]]))).toEqual({ a: 2 });
    expect(plainRecord({ a: 3n })).toEqual({ a: 3 });
    expect(plainRecord(undefined)).toEqual({});
  });
  it('normalises the map fields of a frame', () => {
    const frame = normalizeFrame({
      counters: new Map([['numa_hint_faults', 2n]]),
      mmCpumask: new Map([['1', [2, 3]]]),
      event: { counterDeltas: new Map([['numa_hint_faults', 1]]) },
      bulk: bulkFromViews([], [], []),
    });
    expect(frame.counters).toEqual({ numa_hint_faults: 2 });
    expect(frame.mmCpumask).toEqual({ '1': [2, 3] });
    expect(frame.event?.counterDeltas).toEqual({ numa_hint_faults: 1 });
  });
});
