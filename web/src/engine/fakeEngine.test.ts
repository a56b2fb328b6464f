import { describe, expect, it } from 'vitest';
import { createFakeEngine, FAKE_SCENARIOS } from './fakeEngine';

const text = FAKE_SCENARIOS[0]?.text ?? '';

describe('fake engine', () => {
  it('is deterministic and consistent between frames and events', () => {
    const engine = createFakeEngine();
    const a = engine.create(text, {}, {});
    const b = engine.create(text, {}, {});
    const total = a.summary().totalSteps;
    a.seek(total);
    b.step(total + 100);
    expect(b.currentStep()).toBe(total);
    expect(a.frame()).toEqual(b.frame());
    const events = a.events(0, total);
    expect(events).toHaveLength(total);
    a.seek(5);
    expect(a.frame().event).toEqual(events[4]);
    expect(a.frame().step).toBe(5);
  });
  it('flushes remote TLBs less with numa_delay_map on', () => {
    const engine = createFakeEngine();
    const off = engine.create(text, { numa_delay_map: false }, {});
    const on = engine.create(text, { numa_delay_map: true }, {});
    off.seek(off.summary().totalSteps);
    on.seek(on.summary().totalSteps);
    expect(on.counters().nr_tlb_remote_flush_received).toBeLessThan(off.counters().nr_tlb_remote_flush_received ?? 0);
    expect(on.counters().numa_pages_migrated).toBe(off.counters().numa_pages_migrated);
  });
  it('throws readable errors', () => {
    const engine = createFakeEngine();
    expect(() => engine.create('id = "x"\nbogus = 1', {}, {})).toThrow('scenario line 2: unknown field "bogus"');
    expect(() => engine.create(text, { nope: true }, {})).toThrow('unknown toggle "nope"');
    expect(() => engine.create(text, {}, { pages: 9 })).toThrow('out of range');
    const sim = engine.create(text, {}, {});
    expect(() => sim.seek(9999)).toThrow('beyond the end');
  });
});
