import { afterEach, describe, expect, it, vi } from 'vitest';
import { CancelledError, isCancelled } from './engine';
import { createFakeEngine, FAKE_SCENARIOS } from './fakeEngine';
import type { Progress } from './protocol';

const text = FAKE_SCENARIOS[0]?.text ?? '';

afterEach(() => {
  vi.useRealTimers();
});

describe('fake engine', () => {
  it('is deterministic and consistent between frames and events', async () => {
    const engine = createFakeEngine();
    const a = await engine.create(text, {}, {});
    const b = await engine.create(text, {}, {});
    const total = a.summary().totalSteps;
    await a.seek(total);
    expect(await b.step(total + 100)).toBe(total);
    expect(await b.currentStep()).toBe(total);
    expect(await a.frame()).toEqual(await b.frame());
    const events = await a.events(0, total);
    expect(events).toHaveLength(total);
    const at5 = await a.frameAt(5);
    expect(at5.event).toEqual(events[4]);
    expect(at5.step).toBe(5);
    expect(await a.currentStep()).toBe(5);
    expect(engine.log.framesFetched).toEqual([5]);
  });

  it('samples every counter over the whole run, ending at the last frame', async () => {
    const sim = await createFakeEngine().create(text, {}, {});
    const total = sim.summary().totalSteps;
    const series = await sim.series();
    expect(series.steps[0]).toBe(0);
    expect(series.steps.at(-1)).toBe(total);
    expect(series.timeNs).toHaveLength(series.steps.length);
    const last = await sim.frameAt(total);
    expect(series.timeNs.at(-1)).toBe(last.timeNs);
    for (const [name, values] of Object.entries(series.counters)) expect(values.at(-1)).toBe(last.counters[name]);
    expect(series.counters.numa_hint_faults?.at(-1)).toBe(3);
  });

  it('flushes remote TLBs less with numa_delay_map on', async () => {
    const engine = createFakeEngine();
    const off = await engine.create(text, { numa_delay_map: false }, {});
    const on = await engine.create(text, { numa_delay_map: true }, {});
    await off.seek(off.summary().totalSteps);
    await on.seek(on.summary().totalSteps);
    const [offCounters, onCounters] = [await off.counters(), await on.counters()];
    expect(onCounters.nr_tlb_remote_flush_received).toBeLessThan(offCounters.nr_tlb_remote_flush_received ?? 0);
    expect(onCounters.numa_pages_migrated).toBe(offCounters.numa_pages_migrated);
  });

  it('rejects with readable errors', async () => {
    const engine = createFakeEngine();
    await expect(engine.create('id = "x"\nbogus = 1', {}, {})).rejects.toThrow('scenario line 2: unknown field "bogus"');
    await expect(engine.create(text, { nope: true }, {})).rejects.toThrow('unknown toggle "nope"');
    await expect(engine.create(text, {}, { pages: 9 })).rejects.toThrow('out of range');
    const sim = await engine.create(text, {}, {});
    await expect(sim.seek(9999)).rejects.toThrow('beyond the end');
    sim.free();
    await expect(sim.frame()).rejects.toThrow('used after free()');
  });

  it('reports progress while a slow create runs and stops when aborted', async () => {
    vi.useFakeTimers();
    const engine = createFakeEngine({ createDelayMs: 1000, progressReports: 4 });
    const seen: Progress[] = [];
    const done = engine.create(text, {}, {}, { onProgress: (p) => seen.push(p) });
    await vi.advanceTimersByTimeAsync(1000);
    const sim = await done;
    const total = sim.summary().totalSteps;
    expect(seen.map((p) => p.done)).toEqual([Math.round(total / 4), Math.round(total / 2), Math.round((3 * total) / 4), total]);
    expect(seen.map((p) => p.total)).toEqual([null, null, null, total]);

    const controller = new AbortController();
    const cancelled = engine.create(text, {}, {}, { signal: controller.signal }).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(300);
    controller.abort(new CancelledError('stop'));
    const err = await cancelled;
    expect(isCancelled(err)).toBe(true);
    expect((err as Error).message).toBe('stop');
  });
});
