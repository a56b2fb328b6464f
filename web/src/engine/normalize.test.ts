import { describe, expect, it } from 'vitest';
import { normalizeFrame, plainRecord, toPlain } from './normalize';

describe('normalize', () => {
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
    });
    expect(frame.counters).toEqual({ numa_hint_faults: 2 });
    expect(frame.mmCpumask).toEqual({ '1': [2, 3] });
    expect(frame.event?.counterDeltas).toEqual({ numa_hint_faults: 1 });
  });
});
