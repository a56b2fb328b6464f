import { afterEach, describe, expect, it, vi } from 'vitest';
import { fnv1a32Hex } from '../base/hash';
import { createFixtureEngine, FIXTURE_CUSTOM_TEXT, FIXTURE_ERRORS, FIXTURE_SCENARIOS, fixtureRun, type FixtureEngineOptions } from '../engine/fixtureEngine';
import { stateToUrl } from '../share/url';
import { stepsAt } from '../base/abAxis';
import { createAppStore, selectShareState } from './appStore';
import { chapterIndexAt, chapterTarget, clampStep, EVENTS_WINDOW, eventsWindowAt, needsNewWindow } from './simSlice';

// The fixtures are runs recorded from the real engine (scripts/record-fixtures.mjs).
const hint101 = FIXTURE_SCENARIOS[0]!;

async function booted(fragment = '') {
  const store = createAppStore();
  await store.getState().boot(createFixtureEngine(), fragment);
  return store;
}

/** A store on a fixture engine with the given timing; boots without waiting. */
function slowStore(options: FixtureEngineOptions, fragment = '') {
  const store = createAppStore();
  const engine = createFixtureEngine(options);
  const booting = store.getState().boot(engine, fragment);
  return { store, engine, booting };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('app store with the fixture engine', () => {
  it('opens the first built-in scenario when the default is absent', async () => {
    const s = (await booted()).getState();
    expect(s.runs.a.summary?.id).toBe('numa-hint-fault-101');
    expect(s.runs.a.step).toBe(0);
    expect(s.runs.a.frame?.step).toBe(0);
    expect(s.loading).toBeNull();
    expect(s.runs.a.events).toHaveLength(s.runs.a.summary?.totalSteps ?? -1);
    expect(s.runs.a.series?.steps.at(-1)).toBe(s.runs.a.summary?.totalSteps);
    expect(s.messages).toEqual([]);
  });

  it('steps forward, back, seeks and clamps', async () => {
    const store = await booted();
    const total = store.getState().runs.a.summary!.totalSteps;
    for (let i = 0; i < 10; i++) await store.getState().stepBy(1);
    expect(store.getState().runs.a.step).toBe(10);
    await store.getState().stepBy(-1);
    expect(store.getState().runs.a.step).toBe(9);
    expect(store.getState().runs.a.frame?.step).toBe(9);
    await store.getState().seek(total + 50);
    expect(store.getState().runs.a.step).toBe(total);
    await store.getState().stepBy(1);
    expect(store.getState().runs.a.step).toBe(total);
    await store.getState().goFirst();
    await store.getState().stepBy(-1);
    expect(store.getState().runs.a.step).toBe(0);
    await store.getState().goLast();
    expect(store.getState().runs.a.step).toBe(total);
  });

  it('rebuilds on toggle at the same step and counters change', async () => {
    // numa-hint-fault-101 turns numa_delay_map on; off, every migration needs a shootdown.
    const store = await booted();
    await store.getState().goLast();
    const on = store.getState().runs.a.frame!.counters.nr_tlb_remote_flush_received!;
    await store.getState().seek(8);
    await store.getState().setToggle('numa_delay_map', false);
    expect(store.getState().runs.a.step).toBe(8);
    expect(store.getState().runs.a.summary?.toggles.numa_delay_map).toBe(false);
    expect(store.getState().toggleOverrides).toEqual({ numa_delay_map: false });
    expect(store.getState().comparison?.reason).toMatch(/^numa_delay_map v5\.13: .* → v5\.12: /);
    await store.getState().goLast();
    expect(store.getState().runs.a.frame!.counters.nr_tlb_remote_flush_received!).toBeGreaterThan(on);
    const longTotal = store.getState().runs.a.step;
    // Back to the default removes the override, and the step is clamped as the run gets shorter.
    await store.getState().setToggle('numa_delay_map', true);
    expect(store.getState().toggleOverrides).toEqual({});
    expect(store.getState().runs.a.step).toBe(store.getState().runs.a.summary!.totalSteps);
    expect(store.getState().runs.a.step).toBeLessThan(longTotal);
  });

  it('applies params in range and refuses out-of-range ones', async () => {
    const store = await booted();
    expect(await store.getState().setParam('pages', 2)).toBe(true);
    expect(store.getState().paramOverrides).toEqual({ pages: 2 });
    expect(store.getState().runs.a.summary?.params.find((p) => p.name === 'pages')?.value).toBe(2);
    expect(await store.getState().setParam('pages', 99)).toBe(false);
    expect(store.getState().runs.a.summary?.params.find((p) => p.name === 'pages')?.value).toBe(2);
  });

  it('navigates chapters and plays to the end', async () => {
    const store = await booted();
    const chapters = store.getState().runs.a.summary!.chapters;
    await store.getState().goChapter(1);
    expect(store.getState().runs.a.step).toBe(chapters[1]!.step);
    await store.getState().stepBy(1);
    await store.getState().goChapter(-1);
    expect(store.getState().runs.a.step).toBe(chapters[1]!.step);
    await store.getState().goChapter(-1);
    expect(store.getState().runs.a.step).toBe(0);
    // The fixtures keep a few frames only: play the last ones.
    await store.getState().seek(store.getState().runs.a.summary!.totalSteps - 3);
    store.getState().play();
    expect(store.getState().playing).toBe(true);
    for (let i = 0; i < 200; i++) {
      store.getState().tick();
      await Promise.resolve();
      await Promise.resolve();
    }
    expect(store.getState().playing).toBe(false);
    expect(store.getState().runs.a.step).toBe(store.getState().runs.a.summary!.totalSteps);
  });

  it('round-trips through the URL', async () => {
    const store = await booted();
    await store.getState().setParam('pages', 2);
    await store.getState().seek(7);
    store.getState().select({ panel: 'machine', object: 'pfn-9' });
    const share = selectShareState(store.getState())!;
    expect(share.scenario).toEqual({ kind: 'builtin', id: 'numa-hint-fault-101', hash: fnv1a32Hex(hint101.text) });
    const again = await booted(`#${stateToUrl(share)}`);
    const s = again.getState();
    expect(s.runs.a.step).toBe(7);
    expect(s.paramOverrides).toEqual({ pages: 2 });
    expect(s.selection).toEqual({ panel: 'machine', object: 'pfn-9' });
    expect(s.messages).toEqual([]);
    expect(selectShareState(s)).toEqual(share);
  });

  it('reports a garbled link and opens the default scenario, still usable', async () => {
    const store = await booted('#v=1&s=%%%garbage');
    const s = store.getState();
    expect(s.messages[0]?.message).toMatch(/^This link could not be read: /);
    expect(s.runs.a.summary?.id).toBe('numa-hint-fault-101');
    await s.stepBy(1);
    expect(store.getState().runs.a.step).toBe(1);
  });

  it('clamps a step beyond the end with a message', async () => {
    const s = (await booted('#v=1&sc=numa-hint-fault-101&step=9999')).getState();
    const total = s.runs.a.summary!.totalSteps;
    expect(s.runs.a.step).toBe(total);
    expect(s.messages.map((m) => m.message)).toContain(`step 9999 is beyond the end of this scenario (${total} steps); showing the last step`);
  });

  it('warns about a changed built-in scenario, unknown scenario, toggles and params', async () => {
    expect((await booted('#v=1&sc=numa-hint-fault-101&h=00000000')).getState().messages[0]?.message).toContain('has changed since this link was made');
    const unknown = (await booted('#v=1&sc=nope')).getState();
    expect(unknown.messages[0]?.message).toContain('"nope"');
    expect(unknown.runs.a.summary?.id).toBe('numa-hint-fault-101');
    const bad = (await booted('#v=1&sc=numa-hint-fault-101&t.nope=true&t.numa_delay_map=maybe&p.pages=99&step=2')).getState();
    expect(bad.messages.map((m) => m.message).join('\n')).toMatch(/unknown toggle "nope"[\s\S]*cannot be "maybe"[\s\S]*outside 1–32/);
    expect(bad.runs.a.step).toBe(2);
  });

  it('reports engine errors for a broken custom scenario and falls back', async () => {
    const broken = FIXTURE_ERRORS[0]!;
    expect(broken.message).toMatch(/what/);
    const s = (await booted(`#${stateToUrl({ scenario: { kind: 'custom', text: broken.text }, toggles: {}, params: {}, step: 0, selection: null })}`)).getState();
    expect(s.messages[0]?.message).toBe(`The scenario could not be loaded: ${broken.message}`);
    expect(s.runs.a.summary?.id).toBe('numa-hint-fault-101');
  });

  it('opens a custom scenario from a link', async () => {
    const text = FIXTURE_CUSTOM_TEXT;
    const s = (await booted(`#${stateToUrl({ scenario: { kind: 'custom', text }, toggles: {}, params: {}, step: 3, selection: null })}`)).getState();
    expect(s.runs.a.summary?.title).toBe('Mine ✓');
    expect(s.runs.a.step).toBe(3);
    expect(selectShareState(s)?.scenario).toEqual({ kind: 'custom', text });
  });

  it('warns when the run stopped threads for want of memory, and only then', async () => {
    const oom = fixtureRun('oom');
    expect(oom.summary.warnings).toHaveLength(1);
    const s = (await booted(`#${stateToUrl({ scenario: { kind: 'custom', text: oom.text }, toggles: {}, params: {}, step: 0, selection: null })}`)).getState();
    expect(s.runs.a.summary?.id).toBe('too-small');
    expect(s.messages).toEqual([{ id: expect.any(Number), severity: 'warning', message: `In this run, ${oom.summary.warnings[0]}.` }]);
    expect(s.messages[0]?.message).toMatch(/^In this run, 1 thread stopped: no node had a free page/);
    expect(fixtureRun('hint-101').summary.warnings).toEqual([]);
  });
});

describe('loads in the background', () => {
  it('shows a load as it runs, with progress when the engine reports it', async () => {
    vi.useFakeTimers();
    const { store, booting } = slowStore({ createDelayMs: 1000, progressReports: 4 });
    expect(store.getState().loading).toMatchObject({ label: 'numa-hint-fault-101', progress: null });
    expect(store.getState().runs.a.summary).toBeNull();
    await vi.advanceTimersByTimeAsync(500);
    const total = fixtureRun('hint-101').summary.totalSteps;
    // The engine knows the run's length only at the end; nothing to estimate it from yet.
    expect(store.getState().loading).toMatchObject({ progress: { done: Math.round(total / 2), total: null }, expectedTotal: null });
    await vi.advanceTimersByTimeAsync(500);
    await booting;
    expect(store.getState().loading).toBeNull();
    expect(store.getState().runs.a.summary?.id).toBe('numa-hint-fault-101');
    // The same run again: its length from the first time is the estimate.
    const reopening = store.getState().openBuiltin('numa-hint-fault-101');
    await vi.advanceTimersByTimeAsync(500);
    expect(store.getState().loading).toMatchObject({ progress: { done: Math.round(total / 2), total: null }, expectedTotal: total });
    await vi.advanceTimersByTimeAsync(500);
    await reopening;
    expect(store.getState().loading).toBeNull();
  });

  it('keeps the scenario on screen steppable while another one loads', async () => {
    vi.useFakeTimers();
    const { store, booting } = slowStore({ createDelayMs: 1000 });
    await vi.advanceTimersByTimeAsync(1000);
    await booting;
    const opening = store.getState().openBuiltin('rmap-101');
    expect(store.getState().loading?.label).toBe('rmap-101');
    await store.getState().stepBy(1);
    await store.getState().stepBy(1);
    expect(store.getState().runs.a.summary?.id).toBe('numa-hint-fault-101');
    expect(store.getState().runs.a.step).toBe(2);
    expect(store.getState().runs.a.frame?.step).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    await opening;
    expect(store.getState().runs.a.summary?.id).toBe('rmap-101');
    expect(store.getState().runs.a.step).toBe(0);
  });

  it('a newer load supersedes a running one, whose result is never shown', async () => {
    vi.useFakeTimers();
    const { store, booting } = slowStore({ createDelayMs: 1000 });
    await vi.advanceTimersByTimeAsync(1000);
    await booting;
    const first = store.getState().open({ scenario: { kind: 'builtin', id: 'rmap-101', hash: null }, toggles: {}, params: {}, step: 3 });
    await vi.advanceTimersByTimeAsync(400);
    const second = store.getState().open({ scenario: { kind: 'builtin', id: 'numa-hint-fault-101', hash: null }, toggles: { numa_delay_map: false }, params: {}, step: 5 });
    await vi.advanceTimersByTimeAsync(3000);
    expect(await first).toBe(false);
    expect(await second).toBe(true);
    const s = store.getState();
    expect(s.runs.a.summary?.id).toBe('numa-hint-fault-101');
    expect(s.runs.a.summary?.toggles.numa_delay_map).toBe(false);
    expect(s.runs.a.step).toBe(5);
    expect(s.loading).toBeNull();
    // Superseding is not an error and says nothing.
    expect(s.messages).toEqual([]);
  });

  it('of two loads started in a row, only the second lands, even on an engine that answers at once', async () => {
    const store = await booted();
    const a = store.getState().setParam('pages', 5);
    const b = store.getState().setParam('pages', 2);
    expect(await a).toBe(false);
    expect(await b).toBe(true);
    expect(store.getState().paramOverrides).toEqual({ pages: 2 });
  });

  it('cancel keeps the previous scenario, with a notice', async () => {
    vi.useFakeTimers();
    const { store, booting } = slowStore({ createDelayMs: 1000 });
    await vi.advanceTimersByTimeAsync(1000);
    await booting;
    await store.getState().seek(4);
    const opening = store.getState().open({ scenario: { kind: 'builtin', id: 'numa-hint-fault-101', hash: null }, toggles: {}, params: { pages: 2 }, step: 0 });
    expect(store.getState().loading?.label).toBe('numa-hint-fault-101 (pages=2)');
    store.getState().cancelLoad();
    expect(store.getState().loading).toBeNull();
    expect(await opening).toBe(false);
    await vi.advanceTimersByTimeAsync(2000);
    const s = store.getState();
    expect(s.runs.a.summary?.id).toBe('numa-hint-fault-101');
    expect(s.runs.a.step).toBe(4);
    expect(s.messages).toEqual([{ id: expect.any(Number), message: 'Cancelled loading numa-hint-fault-101 (pages=2).', severity: 'info' }]);
    await s.stepBy(1);
    expect(store.getState().runs.a.step).toBe(5);
  });

  it('cancel with nothing on screen opens the default scenario', async () => {
    vi.useFakeTimers();
    const { store, engine } = slowStore({ createDelayMs: 1000 }, '#v=1&sc=rmap-101&step=2');
    expect(store.getState().loading?.label).toBe('rmap-101');
    store.getState().cancelLoad();
    expect(store.getState().messages.map((m) => m.message)).toEqual(['Cancelled loading rmap-101.']);
    expect(store.getState().loading?.label).toBe('numa-hint-fault-101');
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.getState().runs.a.summary?.id).toBe('numa-hint-fault-101');
    expect(engine.log.creates).toBe(2);
    // Cancelling the default itself leaves an empty, still usable app.
    const empty = slowStore({ createDelayMs: 1000 }).store;
    empty.getState().cancelLoad();
    await vi.advanceTimersByTimeAsync(2000);
    expect(empty.getState().loading).toBeNull();
    expect(empty.getState().runs.a.summary).toBeNull();
    const opening = empty.getState().openBuiltin('rmap-101');
    await vi.advanceTimersByTimeAsync(1000);
    await opening;
    expect(empty.getState().runs.a.summary?.id).toBe('rmap-101');
  });

  it('coalesces rapid seeks: only the latest step is fetched and frame and step always agree', async () => {
    vi.useFakeTimers();
    const { store, engine, booting } = slowStore({ seekDelayMs: 50 });
    await vi.advanceTimersByTimeAsync(200);
    await booting;
    engine.log.framesFetched.length = 0;
    const seen: [number, number | undefined][] = [];
    const unsubscribe = store.subscribe((s) => seen.push([s.runs.a.step, s.runs.a.frame?.step]));
    // Eight key presses within one frame fetch.
    const settled = Array.from({ length: 8 }, () => store.getState().stepBy(1));
    expect(store.getState().runs.a.targetStep).toBe(8);
    await vi.advanceTimersByTimeAsync(500);
    await Promise.all(settled);
    unsubscribe();
    // The first press was already on its way; the seven after it collapse into one fetch.
    expect(engine.log.framesFetched).toEqual([1, 8]);
    expect(store.getState().runs.a.step).toBe(8);
    expect(seen.every(([step, frameStep]) => step === frameStep)).toBe(true);
  });

  it('a seek answered after a new scenario was installed is dropped', async () => {
    vi.useFakeTimers();
    const { store, booting } = slowStore({ seekDelayMs: 50 });
    await vi.advanceTimersByTimeAsync(200);
    await booting;
    const seeking = store.getState().seek(20);
    const opening = store.getState().openBuiltin('rmap-101');
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all([seeking, opening]);
    expect(store.getState().runs.a.summary?.id).toBe('rmap-101');
    expect(store.getState().runs.a.step).toBe(0);
    expect(store.getState().runs.a.frame?.step).toBe(0);
  });
});

describe('seeks racing a new scenario', () => {
  it('a seek still on its way when its simulation is replaced is dropped without an error', async () => {
    vi.useFakeTimers();
    const { store, booting } = slowStore({ createDelayMs: 100, seekDelayMs: 50 });
    await vi.advanceTimersByTimeAsync(200);
    await booting;
    const opening = store.getState().openBuiltin('rmap-101');
    // The new run is recorded at +100 and installed at +200 (first frame, then events and series, 50 ms each):
    // a frame of the old run asked for at +160 arrives at +210, after the old run was freed.
    await vi.advanceTimersByTimeAsync(160);
    const seeking = store.getState().seek(20);
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all([opening, seeking]);
    const s = store.getState();
    expect(s.runs.a.summary?.id).toBe('rmap-101');
    expect(s.runs.a.step).toBe(0);
    expect(s.runs.a.frame?.step).toBe(0);
    expect(s.messages).toEqual([]);
  });
});

describe('step helpers', () => {
  it('clamps and finds chapters', () => {
    expect(clampStep(-3, 10)).toBe(0);
    expect(clampStep(12.7, 10)).toBe(10);
    expect(clampStep(Number.NaN, 10)).toBe(0);
    const chapters = [{ step: 0 }, { step: 5 }, { step: 9 }];
    expect(chapterIndexAt(chapters, 4)).toBe(0);
    expect(chapterIndexAt(chapters, 5)).toBe(1);
    expect(chapterIndexAt([], 5)).toBe(-1);
    expect(chapterTarget(chapters, 5, 1)).toBe(9);
    expect(chapterTarget(chapters, 9, 1)).toBeNull();
    expect(chapterTarget(chapters, 6, -1)).toBe(5);
    expect(chapterTarget(chapters, 0, -1)).toBeNull();
  });
});

describe('events window of long runs', () => {
  it('covers the whole of a short run and a window around the step of a long one', () => {
    expect(eventsWindowAt(5, 27)).toEqual({ from: 0, to: 27 });
    expect(eventsWindowAt(500_000, 1_000_000)).toEqual({ from: 500_000 - EVENTS_WINDOW / 2, to: 500_000 + EVENTS_WINDOW / 2 });
    expect(eventsWindowAt(0, 1_000_000)).toEqual({ from: 0, to: EVENTS_WINDOW });
    expect(eventsWindowAt(1_000_000, 1_000_000)).toEqual({ from: 1_000_000 - EVENTS_WINDOW, to: 1_000_000 });
  });
  it('asks for a new window near an inner edge, never at the run\'s own edges', () => {
    const total = 1_000_000;
    const w = eventsWindowAt(500_000, total);
    expect(needsNewWindow(500_000, total, w)).toBe(false);
    expect(needsNewWindow(w.from + 1, total, w)).toBe(true);
    expect(needsNewWindow(w.to - 1, total, w)).toBe(true);
    expect(needsNewWindow(10, total, w)).toBe(true);
    const first = eventsWindowAt(0, total);
    expect(needsNewWindow(0, total, first)).toBe(false);
    expect(needsNewWindow(5, 27, { from: 0, to: 27 })).toBe(false);
  });
});

describe('A/B comparison', () => {
  const choice = { kind: 'toggle', id: 'numa_delay_map', a: false, b: true } as const;

  it('opens two runs lined up on the workload, finds where they part, and goes there', async () => {
    const store = await booted();
    expect(await store.getState().setAb(choice)).toBe(true);
    let s = store.getState();
    expect(s.ab?.choice).toEqual(choice);
    expect(s.runs.a.summary?.toggles.numa_delay_map).toBe(false);
    expect(s.runs.b.summary?.toggles.numa_delay_map).toBe(true);
    expect(s.ab?.differing).toEqual([['numa_delay_map', false, true]]);
    const totalA = s.runs.a.summary!.totalSteps;
    const totalB = s.runs.b.summary!.totalSteps;
    expect(s.ab!.axis.length).toBeGreaterThanOrEqual(Math.max(totalA, totalB) + 1);
    // The engine's search (recorded) runs in the background.
    await vi.waitFor(() => expect(store.getState().ab?.divergence.state).toBe('found'));
    const found = store.getState().ab!.divergence;
    const step = found.state === 'found' ? found.result.step : null;
    expect(step).toBe(fixtureRun('hint-101').events.findIndex((e, i) => e.line !== fixtureRun('hint-101-delay-off').events[i]?.line && e.function === 'do_numa_page' && e.line === 'N2'));
    await store.getState().goDivergence();
    s = store.getState();
    // Both runs show the step that parts them as the one that just happened.
    expect(s.runs.a.step).toBe(step! + 1);
    expect(s.runs.b.step).toBe(step! + 1);
    expect(s.runs.a.frame?.event?.line).toBe('O3');
    expect(s.runs.b.frame?.event?.line).toBe('N2');
    expect(s.historyMark).toBeGreaterThan(0);
  });

  it('steps both runs together, each through every one of its steps, and ends both at once', async () => {
    const store = await booted();
    await store.getState().setAb(choice);
    const axis = store.getState().ab!.axis;
    await store.getState().goFirst();
    const seenA = new Set<number>();
    const seenB = new Set<number>();
    let prev = { a: 0, b: 0 };
    let apart = false;
    // The fixtures keep both runs' first 72 frames: step through the positions that show them.
    let p = 0;
    for (; stepsAt(axis, p).a < 72 && stepsAt(axis, p).b < 72; p++) {
      const { runs, ab } = store.getState();
      expect(ab!.position).toBe(p);
      expect(runs.a.step).toBeGreaterThanOrEqual(prev.a);
      expect(runs.b.step).toBeGreaterThanOrEqual(prev.b);
      seenA.add(runs.a.step);
      seenB.add(runs.b.step);
      if (runs.a.step !== runs.b.step) apart = true;
      prev = { a: runs.a.step, b: runs.b.step };
      await store.getState().stepBy(1);
    }
    // No step of either run was skipped on the way, though the two part at step 38.
    expect(seenA).toEqual(new Set(Array.from({ length: Math.max(...seenA) + 1 }, (_, i) => i)));
    expect(seenB).toEqual(new Set(Array.from({ length: Math.max(...seenB) + 1 }, (_, i) => i)));
    // After they part the two runs are at different steps: one holds while the other does more kernel work.
    expect(apart).toBe(true);
    await store.getState().goLast();
    const { runs } = store.getState();
    expect([runs.a.step, runs.b.step]).toEqual([runs.a.summary!.totalSteps, runs.b.summary!.totalSteps]);
  });

  it('puts the comparison and both steps in the link, and a link reopens the same pair of frames', async () => {
    const store = await booted();
    await store.getState().setAb(choice);
    await store.getState().seek(60);
    const share = selectShareState(store.getState())!;
    expect(share.ab).toEqual(choice);
    const fragment = stateToUrl(share);
    expect(fragment).toContain('ab=t.numa_delay_map:false,true');
    const again = await booted(`#${fragment}`);
    const { runs, ab } = again.getState();
    expect(ab?.choice).toEqual(choice);
    expect([runs.a.step, runs.b.step]).toEqual([store.getState().runs.a.step, store.getState().runs.b.step]);
    expect(ab?.position).toBe(60);
  });

  it('reads a link comparing three values as A/B of the first two, and says so', async () => {
    const store = await booted('#v=2&sc=numa-hint-fault-101&ab=t.numa_delay_map:false,true,false&step=3');
    const s = store.getState();
    expect(s.ab?.choice).toEqual(choice);
    expect(s.messages.map((m) => m.message).join('\n')).toMatch(/compares 3 runs .* shows A = false and B = true/);
  });

  it('refuses a comparison the engine cannot run, keeping the run on screen', async () => {
    const store = await booted();
    expect(await store.getState().setAb({ kind: 'toggle', id: 'nope', a: false, b: true })).toBe(false);
    expect(store.getState().ab).toBeNull();
    expect(store.getState().runs.a.summary?.id).toBe('numa-hint-fault-101');
    expect(store.getState().messages.at(-1)?.message).toContain('there is no toggle "nope"');
  });

  it('ends the comparison and keeps run A where it is', async () => {
    const store = await booted();
    await store.getState().setAb(choice);
    await store.getState().seek(20);
    const stepA = store.getState().runs.a.step;
    expect(await store.getState().setAb(null)).toBe(true);
    expect(store.getState().ab).toBeNull();
    expect(store.getState().runs.b.sim).toBeNull();
    expect(store.getState().runs.a.step).toBe(stepA);
    await store.getState().stepBy(1);
    expect(store.getState().runs.a.step).toBe(stepA + 1);
  });
});

describe('a link at another seed (seed=, a sweep\'s run)', () => {
  it('runs at that seed, keeps it across a toggle change, and the link carries it', async () => {
    const engine = createFixtureEngine();
    const asked: (number | undefined)[] = [];
    const create = engine.create.bind(engine);
    engine.create = (text, toggles, params, options) => {
      asked.push(options?.seed);
      return create(text, toggles, params, options);
    };
    const seed = fixtureRun('hint-101').summary.seed;
    const store = createAppStore();
    await store.getState().boot(engine, `v=2&sc=${hint101.id}&seed=${seed}&step=3`);
    expect(store.getState().messages).toEqual([]);
    expect(store.getState().runs.a.step).toBe(3);
    expect(asked).toEqual([seed]);
    expect(stateToUrl(selectShareState(store.getState())!)).toContain(`&seed=${seed}&step=3`);
    await store.getState().setToggle('numa_delay_map', !store.getState().runs.a.summary!.toggles.numa_delay_map);
    expect(asked.at(-1)).toBe(seed);
    // Another scenario is opened at its own seed.
    await store.getState().openBuiltin(hint101.id);
    expect(asked.at(-1)).toBeUndefined();
    expect(stateToUrl(selectShareState(store.getState())!)).not.toContain('seed=');
  });

  it('says so when the engine cannot run it', async () => {
    const store = await booted(`v=2&sc=${hint101.id}&seed=99`);
    expect(store.getState().messages.map((m) => m.message).join('\n')).toMatch(/at seed 99/);
    // The default scenario is shown instead, at its own seed.
    expect(store.getState().runs.a.summary?.id).toBe(hint101.id);
    expect(store.getState().scenario?.seed).toBeUndefined();
  });
});

describe('a link with a schedule (sched=, the Explore view\'s runs)', () => {
  /** A fixture engine that "follows" schedule `ok` (as the default order) and refuses any other, naming its first pick, as the engine does; `refuseWhen` refuses `ok` too for some toggles. */
  function scheduledEngine(ok: string, refuseWhen: (toggles: Record<string, unknown>) => boolean = () => false) {
    const engine = createFixtureEngine();
    const asked: (string | undefined)[] = [];
    const create = engine.create.bind(engine);
    engine.create = async (text, toggles, params, options = {}) => {
      const { schedule, ...rest } = options;
      asked.push(schedule);
      if (schedule !== undefined && (schedule !== ok || refuseWhen(toggles))) {
        throw new Error(`the schedule does not fit this run: pick 1 (\`${schedule.split(',')[0]}\`): CPU 9 has nothing to do at step 4`);
      }
      return create(text, toggles, params, rest);
    };
    return { engine, asked };
  }

  it('runs under it, keeps it across a toggle change, and the link carries it', async () => {
    const { engine, asked } = scheduledEngine('4:1,9:0');
    const store = createAppStore();
    await store.getState().boot(engine, `v=2&sc=${hint101.id}&sched=4:1,9:0&step=3`);
    expect(store.getState().messages).toEqual([]);
    expect(store.getState().runs.a.scheduleProblem).toBeNull();
    expect(asked).toEqual(['4:1,9:0']);
    expect(stateToUrl(selectShareState(store.getState())!)).toContain('&sched=4:1,9:0&step=3');
    await store.getState().setToggle('numa_delay_map', !store.getState().runs.a.summary!.toggles.numa_delay_map);
    expect(asked.at(-1)).toBe('4:1,9:0');
    await store.getState().openBuiltin(hint101.id);
    expect(asked.at(-1)).toBeUndefined();
    expect(stateToUrl(selectShareState(store.getState())!)).not.toContain('sched=');
  });

  it('that does not fit: the run opens in the default order with the rest of the link, says what and where, and keeps the schedule in the link', async () => {
    const { engine } = scheduledEngine('1:0');
    const store = createAppStore();
    await store.getState().boot(engine, `v=2&sc=${hint101.id}&t.numa_delay_map=false&sched=4:9,x&step=5`);
    const s = store.getState();
    expect(s.runs.a.summary?.id).toBe(hint101.id);
    expect(s.runs.a.step).toBe(5);
    expect(s.runs.a.summary?.toggles.numa_delay_map).toBe(false);
    expect(s.runs.a.scheduleProblem).toMatch(/pick 1 \(`4:9`\)/);
    const said = s.messages.map((m) => m.message).join('\n');
    expect(said).toContain('This run cannot follow the schedule sched=4:9,x: ');
    expect(said).toMatch(/pick 1 \(`4:9`\).*default order instead/);
    expect(stateToUrl(selectShareState(s)!)).toContain('&sched=4:9,x&step=5');
  });

  it('in an A/B comparison both lanes run it; a lane that cannot says so, the other follows it', async () => {
    const { engine, asked } = scheduledEngine('2:1', (t) => t.numa_delay_map === true);
    const store = createAppStore();
    await store.getState().boot(engine, `v=2&sc=${hint101.id}&sched=2:1&step=0&ab=t.numa_delay_map:false,true`);
    const s = store.getState();
    expect(s.ab).not.toBeNull();
    expect(asked.filter((x) => x === '2:1').length).toBe(2);
    expect(s.runs.a.scheduleProblem).toBeNull();
    expect(s.runs.b.scheduleProblem).toMatch(/pick 1 \(`2:1`\)/);
    expect(s.messages.map((m) => m.message).join('\n')).toMatch(/^Run B \(numa_delay_map [^)]+\) cannot follow the schedule sched=2:1: /m);
    expect(stateToUrl(selectShareState(s)!)).toContain('&sched=2:1&step=0&ab=t.numa_delay_map:false,true');
  });
});
