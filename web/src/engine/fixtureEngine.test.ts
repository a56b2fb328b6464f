import { afterEach, describe, expect, it, vi } from 'vitest';
import { bulkBuffers, checkBulk, findFrame, frameAt, frameCount, pteAt, pteCount, tlbCount, tlbEntries } from './bulk';
import { CancelledError, isCancelled } from './engine';
import { createFixtureEngine, FIXTURE_ERRORS, FIXTURE_SCENARIOS, fixtureRun } from './fixtureEngine';
import type { Progress } from './protocol';

const text = FIXTURE_SCENARIOS[0]?.text ?? '';

afterEach(() => {
  vi.useRealTimers();
});

describe('fixture engine', () => {
  it('offers the recorded built-ins, the default scenario first', () => {
    expect(FIXTURE_SCENARIOS.map((s) => s.id)).toEqual(['numa-hint-fault-101', 'rmap-101']);
    expect(createFixtureEngine().patches().map((p) => p.id)).toContain('numa_delay_map');
  });

  it('answers with the recorded run, frames consistent with events', async () => {
    const engine = createFixtureEngine();
    const a = await engine.create(text, {}, {});
    const b = await engine.create(text, {}, {});
    const total = a.summary().totalSteps;
    expect(total).toBe(fixtureRun('hint-101').summary.totalSteps);
    await a.seek(total);
    expect(await b.step(total + 100)).toBe(total);
    expect(await b.currentStep()).toBe(total);
    expect(await a.frame()).toEqual(await b.frame());
    const events = await a.events(0, total);
    expect(events).toHaveLength(total);
    expect(events.map((e) => e.step)).toEqual(events.map((_, i) => i));
    const at5 = await a.frameAt(5);
    expect(at5.event).toEqual(events[4]);
    expect(at5.step).toBe(5);
    expect((await a.frameAt(0)).event).toBeNull();
    expect(await a.currentStep()).toBe(0);
    expect(engine.log.framesFetched).toEqual([5, 0]);
  });

  it("rebuilds each frame's bulk as the wasm layer does, from the default window only", async () => {
    const sim = await createFixtureEngine().create(text, {}, {});
    const f0 = await sim.frameAt(0);
    // Typed arrays on one buffer, a new one per call (the worker transfers it).
    expect(bulkBuffers(f0.bulk)).toHaveLength(1);
    expect(checkBulk(f0.bulk)).toBe(f0.bulk);
    const again = await sim.frame();
    expect(again.bulk.pteVpn.buffer).not.toBe(f0.bulk.pteVpn.buffer);
    expect(again).toEqual(f0);
    // The windows say what the arrays hold: every PTE and frame of this small machine.
    expect(f0.pteWindow).toEqual({ total: 4, offset: 0, count: 4 });
    expect(pteCount(f0.bulk)).toBe(4);
    expect(f0.frameWindow).toEqual({ total: frameCount(f0.bulk), offset: 0, count: frameCount(f0.bulk) });
    // At step 0 the four pages are mapped, present and writable; each frame's rmap points back to its PTE.
    for (let i = 0; i < 4; i++) {
      const p = pteAt(f0.bulk, i);
      expect(p).toMatchObject({ pid: 1, kind: 'present', write: true });
      expect(frameAt(f0.bulk, findFrame(f0.bulk, p.pfn)).mappedBy).toEqual([p.pid, p.vpn]);
    }
    expect(f0.cpus.map((c) => tlbCount(f0.bulk, c.id))).toEqual([0, 0, 0, 0]);
    // The threads on CPUs 2 and 3 touch the pages: their TLBs fill.
    const f8 = await sim.frameAt(8);
    expect(f8.cpus.map((c) => tlbCount(f8.bulk, c.id))).toEqual([0, 0, 2, 2]);
    for (const e of tlbEntries(f8.bulk, 3)) expect(pteAt(f8.bulk, f8.bulk.pteVpn.indexOf(e.vpn)).pfn).toBe(e.pfn);
    // NUMA hinting: every PTE PROT_NONE, every TLB flushed.
    const f37 = await sim.frameAt(38);
    expect(Array.from({ length: 4 }, (_, i) => pteAt(f37.bulk, i).kind)).toEqual(['protnone', 'protnone', 'protnone', 'protnone']);
    expect(f37.cpus.map((c) => tlbCount(f37.bulk, c.id))).toEqual([0, 0, 0, 0]);
    // Only the default window was recorded.
    expect(await sim.frame({})).toEqual(f37);
    await expect(sim.frame({ pid: 1 })).rejects.toThrow(/only the engine's default frame window recorded, not \{"pid":1\}/);
    await expect(sim.frameAt(3, { pteCount: 2 })).rejects.toThrow(/default frame window/);
  });

  it('serves the engine series, ending at the last frame', async () => {
    const sim = await createFixtureEngine().create(text, {}, {});
    const total = sim.summary().totalSteps;
    const series = await sim.series();
    // The engine's first sample is after the first step.
    expect(series.steps[0]).toBe(1);
    expect(series.steps.every((step, i) => i === 0 || step > series.steps[i - 1]!)).toBe(true);
    expect(series.steps.at(-1)).toBe(total);
    expect(series.timeNs).toHaveLength(series.steps.length);
    const last = await sim.frameAt(total);
    expect(series.timeNs.at(-1)).toBe(last.timeNs);
    for (const [name, values] of Object.entries(series.counters)) expect(values.at(-1)).toBe(last.counters[name]);
    expect(series.counters.numa_hint_faults?.at(-1)).toBe(4);
  });

  it('gives cause chains newest first, each event caused by the next', async () => {
    const sim = await createFixtureEngine().create(text, {}, {});
    const events = await sim.events(0, sim.summary().totalSteps);
    const deep = events.findLast((e) => e.cause !== null);
    expect(deep).toBeTruthy();
    const chain = await sim.causeChain(deep!.step);
    expect(chain[0]).toEqual(deep);
    for (let i = 0; i + 1 < chain.length; i++) expect(chain[i]!.cause).toBe(chain[i + 1]!.step);
    expect(chain.at(-1)!.cause).toBeNull();
  });

  it('flushes remote TLBs less with numa_delay_map on (the engine numbers)', async () => {
    const engine = createFixtureEngine();
    const off = await engine.create(text, { numa_delay_map: false }, {});
    const on = await engine.create(text, { numa_delay_map: true }, {});
    await off.seek(off.summary().totalSteps);
    await on.seek(on.summary().totalSteps);
    const [offCounters, onCounters] = [await off.counters(), await on.counters()];
    expect(onCounters.nr_tlb_remote_flush_received).toBeLessThan(offCounters.nr_tlb_remote_flush_received ?? 0);
    expect(onCounters.numa_pages_migrated).toBe(offCounters.numa_pages_migrated);
  });

  it('rejects with the engine messages, and says what to record for anything else', async () => {
    const engine = createFixtureEngine();
    for (const e of FIXTURE_ERRORS) await expect(engine.create(e.text, e.toggles, e.params)).rejects.toThrow(e.message);
    await expect(engine.create(text, { nope: true }, {})).rejects.toThrow('unknown toggle `nope`');
    await expect(engine.create(text, {}, { pages: 99 })).rejects.toThrow('out of range');
    await expect(engine.create(text, {}, { pages: 7 })).rejects.toThrow(/no recorded run .*scripts\/record-fixtures\.mjs/);
    const sim = await engine.create(text, {}, {});
    await expect(sim.seek(9999)).rejects.toThrow(/^step 9999 is beyond the end of this run/);
    await expect(sim.frameAt(100)).rejects.toThrow(/has no frame at step 100/);
    sim.free();
    await expect(sim.frame()).rejects.toThrow('used after free()');
  });

  it('describes a scenario as the engine does without running it', async () => {
    const engine = createFixtureEngine();
    const d = await engine.describe(text, { pages: 2 });
    expect(d.params.find((p) => p.name === 'pages')?.value).toBe(2);
    expect(d.totalSteps).toBe(0);
    expect(await engine.describe(text, { pages: 4 })).toEqual(await engine.describe(text, {}));
  });

  it('reports progress while a slow create runs and stops when aborted', async () => {
    vi.useFakeTimers();
    const engine = createFixtureEngine({ createDelayMs: 1000, progressReports: 4 });
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
