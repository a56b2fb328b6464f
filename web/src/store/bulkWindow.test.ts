import { describe, expect, it } from 'vitest';
import { findFrame, findPte, packBulk, type FrameWindowRequest } from '../engine/bulk';
import type { SimEngine, SimHandle } from '../engine/engine';
import type { Frame, ScenarioSummary, SimEvent } from '../engine/types';
import { createAppStore } from './appStore';
import { clampWindow, DEFAULT_WINDOW_REQUEST, ENGINE_WINDOW, followTouched, pteIndex, pteTotal, toFrameWindow, windowForPfn, windowForPte, windowStartAround } from './bulkWindow';

// A machine bigger than one window: pid 1 has a small VMA and a big one, pid 2 a small one; 2 × 40,000 frames.
const SMALL = { startVpn: 0x1000, pages: 16, kind: 'anon' as const, name: 'small' };
const BIG = { startVpn: 0x7f000, pages: 100_000, kind: 'anon' as const, name: 'big' };
const OTHER = { startVpn: 0x1000, pages: 8, kind: 'anon' as const, name: 'other' };
const NODE_PAGES = 40_000;
const TOTAL_PTES = SMALL.pages + BIG.pages + OTHER.pages;

function summary(): ScenarioSummary {
  return {
    id: 'big',
    title: 'big',
    description: '',
    seed: 1,
    toggles: {},
    params: [],
    chapters: [],
    questions: [],
    explore: null,
    totalSteps: 5,
    topology: {
      nodes: [
        { id: 0, cpus: [0], memPages: NODE_PAGES, firstPfn: 0 },
        { id: 1, cpus: [1], memPages: NODE_PAGES, firstPfn: NODE_PAGES },
      ],
      distance: [
        [10, 20],
        [20, 10],
      ],
      tlbEntries: 4,
    },
    // Out of pid order on purpose: the engine orders PTEs by pid, then vpn.
    processes: [
      { pid: 2, name: 'other', threads: [], vmas: [OTHER] },
      { pid: 1, name: 'bench', threads: [], vmas: [BIG, SMALL] },
    ],
    counterNames: [],
    listings: [],
    warnings: [],
    functions: [],
  };
}

/** The PTEs of the run in the engine's order: [pid, vpn]. */
const ALL_PTES: [number, number][] = [
  ...Array.from({ length: SMALL.pages }, (_, i): [number, number] => [1, SMALL.startVpn + i]),
  ...Array.from({ length: BIG.pages }, (_, i): [number, number] => [1, BIG.startVpn + i]),
  ...Array.from({ length: OTHER.pages }, (_, i): [number, number] => [2, OTHER.startVpn + i]),
];

/** The events: step 0 touches a PTE in the default window, step 1 one far beyond it (and frame 70,000), step 2 one back in it, steps 3 and 4 nothing (4 is the exit). */
function events(): SimEvent[] {
  const ev = (step: number, ptes: [number, number][], pfns: number[]): SimEvent => ({
    step,
    timeNs: step,
    cpu: 0,
    kind: 'access',
    function: 'handle_mm_fault',
    line: '',
    cause: null,
    task: '1/0',
    narration: `step ${step}`,
    touched: { ptes, pfns, cpus: [] },
    counterDeltas: {},
  });
  return [ev(0, [[1, BIG.startVpn + 5]], [5]), ev(1, [[1, BIG.startVpn + 90_000]], [70_000]), ev(2, [[1, BIG.startVpn + 10]], [10]), ev(3, [], []), ev(4, [], [])];
}

/** A frame for `step` and `window`, built like the engine's: the PTE at index i has pfn i (present), frame p is mapped. */
function frameFor(step: number, window: FrameWindowRequest | undefined): Frame {
  const pteOffset = window?.pteOffset ?? 0;
  const pfnStart = window?.pfnStart ?? 0;
  // At the last step every process has exited: no PTEs are left (the summary still lists the VMAs).
  const all = step === 5 ? [] : ALL_PTES;
  if (pteOffset > all.length) throw new Error(`the frame window starts at PTE ${pteOffset}, but there are only ${all.length}`);
  const ptes = all.slice(pteOffset, pteOffset + ENGINE_WINDOW);
  const frames = Array.from({ length: Math.min(ENGINE_WINDOW, 2 * NODE_PAGES - pfnStart) }, (_, i) => pfnStart + i);
  const bulk = packBulk({
    ptePid: ptes.map(([pid]) => pid),
    pteVpn: ptes.map(([, vpn]) => vpn),
    ptePfn: ptes.map((_, i) => pteOffset + i),
    pteFlags: ptes.map(() => 1),
    framePfn: frames,
    frameNode: frames.map((p) => (p < NODE_PAGES ? 0 : 1)),
    frameFlags: frames.map(() => 1),
    frameMapPid: frames.map(() => 0xffff),
    frameMapVpn: frames.map(() => 0),
    tlbCpuStart: [0, 0, 0],
    tlbPid: [],
    tlbVpn: [],
    tlbPfn: [],
    tlbFlags: [],
  });
  return {
    step,
    timeNs: step,
    event: step > 0 ? (events()[step - 1] ?? null) : null,
    cpus: [],
    mmCpumask: {},
    ipis: [],
    counters: {},
    code: null,
    pteWindow: { total: all.length, offset: pteOffset, count: ptes.length },
    frameWindow: { total: 2 * NODE_PAGES, offset: pfnStart, count: frames.length },
    views: {},
    bulk,
  };
}

interface Call {
  step: number;
  window: FrameWindowRequest | undefined;
  resolve: () => void;
}

/** An engine with one run of the machine above whose frameAt answers when the test says (or at once when `auto`). */
function windowedEngine(options: { auto: boolean; knownEvents: boolean }) {
  const calls: Call[] = [];
  const sim: SimHandle = {
    summary,
    step: async () => 0,
    seek: async () => {},
    frameAt: (step, window) =>
      new Promise<Frame>((resolve, reject) => {
        const call: Call = {
          step,
          window,
          resolve: () => {
            try {
              resolve(frameFor(step, window));
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)));
            }
          },
        };
        calls.push(call);
        if (options.auto) call.resolve();
      }),
    currentStep: async () => 0,
    frame: async (window) => frameFor(0, window),
    // Without known events the store learns what a step touched only from its frame.
    events: async (from, to) => (options.knownEvents ? events().slice(from, to) : []),
    counters: async () => ({}),
    series: async () => ({ steps: [], timeNs: [], counters: {} }),
    causeChain: async () => [],
    progressMarks: async () => new Float64Array(),
    free: () => {},
  };
  const engine: SimEngine = {
    kind: 'fake',
    patches: () => [],
    builtinScenarios: () => [{ id: 'big', title: 'big', text: 'big', quick: {}, explore: null }],
    mechanisms: () => [],
    kernelVersions: () => [],
    kernels: () => [],
    parseNumactl: async () => Promise.reject(new Error('no numactl here')),
    readPaste: async () => Promise.reject(new Error('no pastes here')),
    describe: async () => summary(),
    firstDivergence: async () => Promise.reject(new Error('no A/B here')),
    create: async () => sim,
    planSweep: async () => Promise.reject(new Error('no sweeps here')),
    sweepReport: async () => Promise.reject(new Error('no sweeps here')),
    openRunPool: () => ({ run: async () => Promise.reject(new Error('no sweeps here')), close: () => {} }),
    explore: async () => Promise.reject(new Error('no exploring here')),
  };
  return { engine, calls };
}

async function bootedOn(options: { auto: boolean; knownEvents: boolean }) {
  const { engine, calls } = windowedEngine(options);
  const store = createAppStore();
  const booting = store.getState().boot(engine, '');
  if (!options.auto) {
    // The first frame (step 0, default window).
    await until(() => calls.length === 1);
    calls[0]?.resolve();
  }
  await booting;
  return { store, calls };
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(cond()).toBe(true);
}

/** Whether the frame shown holds the PTE (pid, vpn). */
function holdsPte(frame: Frame | null, pid: number, vpn: number): boolean {
  return frame !== null && findPte(frame.bulk, pid, vpn) >= 0;
}

describe('window helpers', () => {
  const s = summary();
  it('index PTEs by pid, then vpn, as the engine orders them', () => {
    expect(pteTotal(s)).toBe(TOTAL_PTES);
    expect(pteIndex(s, 1, SMALL.startVpn)).toBe(0);
    expect(pteIndex(s, 1, BIG.startVpn + 3)).toBe(SMALL.pages + 3);
    expect(pteIndex(s, 2, OTHER.startVpn + 1)).toBe(SMALL.pages + BIG.pages + 1);
    expect(pteIndex(s, 1, SMALL.startVpn + SMALL.pages)).toBe(-1);
    expect(pteIndex(s, 3, 0)).toBe(-1);
  });
  it('asks for the default window as nothing, and keeps windows full and inside the run', () => {
    expect(toFrameWindow(DEFAULT_WINDOW_REQUEST)).toBeUndefined();
    expect(toFrameWindow({ pteOffset: 7, pfnStart: 0 })).toEqual({ pteOffset: 7 });
    expect(toFrameWindow({ pteOffset: 0, pfnStart: 9 })).toEqual({ pfnStart: 9 });
    expect(windowStartAround(100, 1000)).toBe(0);
    expect(windowStartAround(90_000, 100_000)).toBe(100_000 - ENGINE_WINDOW);
    expect(windowStartAround(50_000, 200_000)).toBe(50_000 - ENGINE_WINDOW / 8);
    expect(clampWindow(s, { pteOffset: 1e9, pfnStart: -5 })).toEqual({ pteOffset: TOTAL_PTES - ENGINE_WINDOW, pfnStart: 0 });
  });
  it('moves a window only when what it must show is outside it', () => {
    expect(windowForPte(s, DEFAULT_WINDOW_REQUEST, 1, BIG.startVpn)).toBe(DEFAULT_WINDOW_REQUEST);
    expect(windowForPte(s, DEFAULT_WINDOW_REQUEST, 1, BIG.startVpn + 80_000)).toEqual({ pteOffset: TOTAL_PTES - ENGINE_WINDOW, pfnStart: 0 });
    expect(windowForPte(s, DEFAULT_WINDOW_REQUEST, 1, 5)).toBeNull();
    expect(windowForPfn(s, DEFAULT_WINDOW_REQUEST, 70_000)).toEqual({ pteOffset: 0, pfnStart: 2 * NODE_PAGES - ENGINE_WINDOW });
    expect(windowForPfn(s, DEFAULT_WINDOW_REQUEST, 2 * NODE_PAGES)).toBeNull();
    // A step that touched one PTE inside the window and one outside leaves it.
    expect(followTouched(s, DEFAULT_WINDOW_REQUEST, { ptes: [[1, BIG.startVpn + 90_000], [1, BIG.startVpn]], pfns: [] })).toBe(DEFAULT_WINDOW_REQUEST);
    expect(followTouched(s, DEFAULT_WINDOW_REQUEST, { ptes: [[1, BIG.startVpn + 90_000]], pfns: [79_000] })).toEqual({
      pteOffset: TOTAL_PTES - ENGINE_WINDOW,
      pfnStart: 2 * NODE_PAGES - ENGINE_WINDOW,
    });
  });
});

describe('the store pages the frame window', () => {
  it('asks for the default window until told otherwise, then for a window holding the PTE or frame asked for', async () => {
    const { store, calls } = await bootedOn({ auto: true, knownEvents: true });
    expect(calls.map((c) => c.window)).toEqual([undefined]);
    const far = BIG.startVpn + 80_000;
    expect(holdsPte(store.getState().runs.a.frame, 1, far)).toBe(false);
    expect(await store.getState().showPte('a', 1, far)).toBe(true);
    expect(holdsPte(store.getState().runs.a.frame, 1, far)).toBe(true);
    expect(store.getState().runs.a.frame?.pteWindow.offset).toBe(TOTAL_PTES - ENGINE_WINDOW);
    // Already in the window: no new request.
    const n = calls.length;
    expect(await store.getState().showPte('a', 1, far + 1)).toBe(true);
    expect(calls.length).toBe(n);
    expect(await store.getState().showPte('a', 1, 3)).toBe(false);
    // Frames too.
    expect(await store.getState().showPfn('a', 79_999)).toBe(true);
    expect(findFrame(store.getState().runs.a.frame!.bulk, 79_999)).toBeGreaterThanOrEqual(0);
    // Paging with explicit offsets is clamped to the run.
    await store.getState().setBulkWindow('a', { pteOffset: 0, pfnStart: 0 });
    expect(calls.at(-1)?.window).toBeUndefined();
    expect(store.getState().runs.a.frame?.pteWindow.offset).toBe(0);
  });

  it('re-asks with the same window on step changes, and follows a PTE the step touched outside it', async () => {
    const { store, calls } = await bootedOn({ auto: true, knownEvents: true });
    await store.getState().setBulkWindow('a', { pteOffset: 20_000, pfnStart: 0 });
    // Step 1 (event 0) touched a PTE at index 21 and frame 5: frame 5 is in the window, the PTE is not.
    await store.getState().seek(1);
    expect(calls.at(-1)).toMatchObject({ step: 1, window: undefined });
    // Paging at the same step keeps the page asked for.
    await store.getState().setBulkWindow('a', { pteOffset: 20_000, pfnStart: 0 });
    expect(store.getState().runs.a.frame?.pteWindow.offset).toBe(20_000);
    // Step 2 (event 1) touched a PTE beyond the first window and frame 70,000: one request, for a window with both (the event was known).
    const before = calls.length;
    await store.getState().seek(2);
    expect(calls.length).toBe(before + 1);
    expect(holdsPte(store.getState().runs.a.frame, 1, BIG.startVpn + 90_000)).toBe(true);
    expect(findFrame(store.getState().runs.a.frame!.bulk, 70_000)).toBeGreaterThanOrEqual(0);
    // Step 3 touched a PTE back in the first window.
    await store.getState().seek(3);
    expect(store.getState().runs.a.bulkWindow.pteOffset).toBe(0);
    // Step 4 touched nothing: the window stays where it is.
    await store.getState().setBulkWindow('a', { pteOffset: 0, pfnStart: 9_000 });
    await store.getState().seek(4);
    expect(calls.at(-1)).toMatchObject({ step: 4, window: { pfnStart: 9_000 } });
    expect(store.getState().runs.a.frame?.step).toBe(4);
  });

  it('falls back to the first PTEs when a step has fewer PTEs than the window asks to skip', async () => {
    const { store, calls } = await bootedOn({ auto: true, knownEvents: true });
    await store.getState().setBulkWindow('a', { pteOffset: 30_000, pfnStart: 9_000 });
    await store.getState().seek(5);
    // Refused (no PTEs are left at step 5), then asked again without the PTE offset; the frames stay paged.
    expect(calls.slice(-2).map((c) => c.window)).toEqual([{ pteOffset: 30_000, pfnStart: 9_000 }, { pfnStart: 9_000 }]);
    expect(store.getState().runs.a.step).toBe(5);
    expect(store.getState().runs.a.bulkWindow).toEqual({ pteOffset: 0, pfnStart: 9_000 });
    expect(store.getState().messages).toEqual([]);
  });

  it('follows a touched PTE after the frame when the event was not known before it', async () => {
    const { store, calls } = await bootedOn({ auto: true, knownEvents: false });
    await store.getState().seek(2);
    await until(() => holdsPte(store.getState().runs.a.frame, 1, BIG.startVpn + 90_000));
    // The first answer had the default window; the second the one around the touched PTE.
    expect(calls.slice(-2).map((c) => c.window?.pteOffset)).toEqual([undefined, TOTAL_PTES - ENGINE_WINDOW]);
    expect(store.getState().runs.a.step).toBe(2);
  });

  it('drops a frame for a window that was replaced while it was on its way', async () => {
    const { store, calls } = await bootedOn({ auto: false, knownEvents: true });
    const first = store.getState().setBulkWindow('a', { pteOffset: 1_000, pfnStart: 0 });
    await until(() => calls.length === 2);
    const second = store.getState().setBulkWindow('a', { pteOffset: 2_000, pfnStart: 0 });
    // The answer for the older window comes: it is not shown.
    calls[1]?.resolve();
    await until(() => calls.length === 3);
    expect(store.getState().runs.a.frame?.pteWindow.offset).toBe(0);
    expect(calls[2]?.window).toEqual({ pteOffset: 2_000 });
    calls[2]?.resolve();
    await Promise.all([first, second]);
    expect(store.getState().runs.a.frame?.pteWindow.offset).toBe(2_000);
    expect(store.getState().runs.a.bulkWindow).toEqual({ pteOffset: 2_000, pfnStart: 0 });
  });

  it('never blocks the transport: a step asked for while a window is on its way is served next, with the window', async () => {
    const { store, calls } = await bootedOn({ auto: false, knownEvents: true });
    const paging = store.getState().setBulkWindow('a', { pteOffset: 30_000, pfnStart: 0 });
    await until(() => calls.length === 2);
    const seeking = store.getState().seek(4);
    expect(store.getState().runs.a.targetStep).toBe(4);
    calls[1]?.resolve();
    await until(() => calls.length === 3);
    expect(calls[2]).toMatchObject({ step: 4, window: { pteOffset: 30_000 } });
    calls[2]?.resolve();
    await Promise.all([paging, seeking]);
    expect(store.getState().runs.a.step).toBe(4);
    expect(store.getState().runs.a.frame?.pteWindow.offset).toBe(30_000);
  });
});
