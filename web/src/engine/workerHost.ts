// The worker side of the engine protocol (protocol.ts), kept free of worker
// globals so that Vitest can drive it with a fake wasm module. worker.ts wires
// it to `self` and to the real wasm package.
import { bulkBuffers } from './bulk';
import { errorMessage, type BuiltinScenario } from './engine';
import { normalizeDivergence, normalizeEvent, normalizeFrame, normalizeSeries, normalizeSummary, plainRecord, toPlain } from './normalize';
import { parseCallMessage, type CallMessage, type EngineMethods, type WorkerMessage } from './protocol';
import type { RawSimulation, RawWasmModule } from './raw';
import type { ExploreReport } from './generated/ExploreReport';
import type { Divergence, Frame, MechanismInfo, NumaHardware, PasteKind, PasteKinds, PatchInfo, RunValues, ScenarioSummary, SweepPlanOutcome, SweepReportOutcome, ToggleValue } from './types';
import { versionsToAsk, type KernelInfo } from '../base/kernels';

/** Reports how far a long call is: steps prepared so far, and the run's steps once known. */
export type ProgressReporter = (done: number, total: number | null) => void;

/** How a preparation is sliced: the first slice's steps, the wall time a slice aims at, and a clock. */
export interface SliceOptions {
  firstSliceSteps: number;
  /** Slices are resized to take about this long (well under the 100 ms a long task starts at). */
  targetSliceMs: number;
  nowMs: () => number;
}

// The first slice is small: it also pays for warming the engine up (50 000 steps took 150 ms in Node, later ones 30-50 ms).
const DEFAULT_SLICES: SliceOptions = { firstSliceSteps: 20_000, targetSliceMs: 40, nowMs: () => performance.now() };

/** Budget of the next slice: scaled so it takes about `targetMs`, at most doubling or halving per slice. */
export function nextSliceSteps(steps: number, tookMs: number, targetMs: number): number {
  const factor = tookMs > 0 ? Math.min(2, Math.max(0.5, targetMs / tookMs)) : 2;
  return Math.max(1_000, Math.min(2_000_000, Math.round(steps * factor)));
}

/**
 * Loads a run and prepares it in slices, reporting the steps prepared after each
 * one. Between slices the worker returns to its event loop, so the progress
 * messages go out as they are posted; cancelling is terminating the worker.
 */
export async function buildSimulation(
  mod: RawWasmModule,
  scenarioText: string,
  toggles: Record<string, ToggleValue>,
  params: Record<string, number>,
  progress: ProgressReporter,
  slices: SliceOptions = DEFAULT_SLICES,
  seed?: number,
  schedule?: string,
): Promise<RawSimulation> {
  // Without a seed or a schedule the call is the one older packages know (three arguments).
  const sim =
    schedule !== undefined
      ? mod.Simulation.load(scenarioText, { ...toggles }, { ...params }, seed, schedule)
      : seed === undefined
        ? mod.Simulation.load(scenarioText, { ...toggles }, { ...params })
        : mod.Simulation.load(scenarioText, { ...toggles }, { ...params }, seed);
  try {
    let budget = slices.firstSliceSteps;
    for (;;) {
      const started = slices.nowMs();
      const done = sim.prepare(budget);
      if (sim.isPrepared()) {
        progress(done, done);
        return sim;
      }
      progress(done, null);
      budget = nextSliceSteps(budget, slices.nowMs() - started, slices.targetSliceMs);
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
    }
  } catch (err) {
    sim.free();
    throw err;
  }
}

/**
 * Steps two runs side by side until they first differ, in slices like `buildSimulation`
 * (reporting the pairs compared after each); resolves to the engine's `Divergence`.
 */
export async function findDivergence(
  mod: RawWasmModule,
  scenarioText: string,
  togglesA: Record<string, ToggleValue>,
  togglesB: Record<string, ToggleValue>,
  params: Record<string, number>,
  progress: ProgressReporter,
  slices: SliceOptions = DEFAULT_SLICES,
): Promise<Divergence> {
  if (!mod.DivergenceSearch) throw new Error('this build of the engine cannot compare two runs: rebuild it with `npm run build:wasm`');
  const search = mod.DivergenceSearch.load(scenarioText, { ...togglesA }, { ...togglesB }, { ...params });
  try {
    let budget = slices.firstSliceSteps;
    for (;;) {
      const started = slices.nowMs();
      const found = search.advance(budget);
      if (found !== null && found !== undefined) return normalizeDivergence(found);
      progress(search.compared(), null);
      budget = nextSliceSteps(budget, slices.nowMs() - started, slices.targetSliceMs);
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
    }
  } finally {
    search.free();
  }
}

/** The engine's kernel versions and the toggles of each (and of the release before the first); none from a package without them. */
export function kernelsOf(mod: RawWasmModule): { kernelVersions: string[]; kernels: KernelInfo[] } {
  if (!mod.kernelVersions || !mod.kernelToggles) return { kernelVersions: [], kernels: [] };
  const listed = toPlain(mod.kernelVersions());
  const kernelVersions = Array.isArray(listed) ? listed.filter((v): v is string => typeof v === 'string') : [];
  const kernels: KernelInfo[] = [];
  for (const version of versionsToAsk(kernelVersions)) {
    try {
      kernels.push({ version, toggles: plainRecord<ToggleValue>(toPlain(mod.kernelToggles(version))) });
    } catch {
      // A release the engine does not know (only the one before its first can be): not offered.
    }
  }
  return { kernelVersions, kernels };
}

/** Posts a message; `transfer` lists buffers to move (not copy) to the other side. */
export type PostMessage = (message: WorkerMessage, transfer?: ArrayBuffer[]) => void;

/** Answers protocol calls with a wasm module from `load`; returns the handler for incoming message data. */
export function createWorkerHost(load: () => Promise<RawWasmModule>, post: PostMessage): (data: unknown) => Promise<void> {
  let mod: RawWasmModule | null = null;
  const sims = new Map<number, RawSimulation>();
  let nextHandle = 1;
  // Calls are answered one at a time, in the order they arrived, even across the
  // awaits of init and create: a seek sent after a create always sees that simulation.
  let queue: Promise<void> = Promise.resolve();

  const engine = (): RawWasmModule => {
    if (!mod) throw new Error('the engine worker was used before init');
    return mod;
  };
  /** The module's sweep exports, or an error saying to rebuild an older package. */
  const sweeps = (): Required<Pick<RawWasmModule, 'sweepPlan' | 'sweepRun' | 'sweepReport'>> => {
    const { sweepPlan, sweepRun, sweepReport } = engine();
    if (!sweepPlan || !sweepRun || !sweepReport) throw new Error('this build of the engine cannot run sweeps: rebuild it with `npm run build:wasm`');
    return { sweepPlan, sweepRun, sweepReport };
  };
  const sim = (handle: number): RawSimulation => {
    const s = sims.get(handle);
    if (!s) throw new Error(`there is no simulation ${handle} in this worker (it was freed)`);
    return s;
  };

  const run = async (call: CallMessage): Promise<unknown> => {
    if (call.method !== 'init') engine();
    switch (call.method) {
      case 'init': {
        mod ??= await load();
        const result: EngineMethods['init']['result'] = {
          patches: toPlain(mod.patches()) as PatchInfo[],
          scenarios: toPlain(mod.builtinScenarios()) as BuiltinScenario[],
          mechanisms: toPlain(mod.mechanisms()) as MechanismInfo[],
          ...kernelsOf(mod),
        };
        return result;
      }
      case 'parseNumactl': {
        const parse = engine().parseNumactl;
        if (!parse) throw new Error('this build of the engine cannot read numactl output: rebuild it with `npm run build:wasm`');
        return toPlain(parse(call.args[0])) as NumaHardware;
      }
      case 'readPaste': {
        const [kind, texts] = call.args;
        const mod = engine();
        const fn = { lscpu: mod.parseLscpu, machine: mod.mergeLscpu, zoneinfo: mod.parseZoneinfo, vmstat: mod.vmstatDelta, zones: mod.nodeZones }[kind];
        if (!fn) throw new Error(`this build of the engine cannot read pasted ${kind} text: rebuild it with \`npm run build:wasm\``);
        return toPlain((fn as (...t: string[]) => unknown)(...texts)) as PasteKinds[PasteKind]['result'];
      }
      case 'create': {
        const [text, toggles, params, seed, schedule] = call.args;
        const raw = await buildSimulation(engine(), text, toggles, params, (done, total) => post({ type: 'progress', id: call.id, done, total }), DEFAULT_SLICES, seed ?? undefined, schedule);
        let summary: ScenarioSummary;
        try {
          summary = normalizeSummary(raw.summary());
        } catch (err) {
          raw.free();
          throw err;
        }
        const handle = nextHandle++;
        sims.set(handle, raw);
        const result: EngineMethods['create']['result'] = { handle, summary };
        return result;
      }
      case 'describe': {
        const [text, toggles, params] = call.args;
        const raw = engine().Simulation.load(text, { ...toggles }, { ...params });
        try {
          return normalizeSummary(raw.summary());
        } finally {
          raw.free();
        }
      }
      case 'sweepPlan': {
        const [text, params, request] = call.args;
        return toPlain(sweeps().sweepPlan(text, { ...params }, request)) as SweepPlanOutcome;
      }
      case 'sweepRun': {
        const [text, toggles, params, seed] = call.args;
        return toPlain(seed === null ? sweeps().sweepRun(text, { ...toggles }, { ...params }) : sweeps().sweepRun(text, { ...toggles }, { ...params }, seed)) as RunValues;
      }
      case 'sweepReport': {
        const [text, params, request, runs] = call.args;
        return toPlain(sweeps().sweepReport(text, { ...params }, request, runs)) as SweepReportOutcome;
      }
      case 'step':
        return sim(call.args[0]).step(call.args[1]);
      case 'seek':
        sim(call.args[0]).seek(call.args[1]);
        return null;
      case 'frameAt': {
        const s = sim(call.args[0]);
        s.seek(call.args[1]);
        return normalizeFrame(s.frame(call.args[2]));
      }
      case 'frame':
        return normalizeFrame(sim(call.args[0]).frame(call.args[1]));
      case 'currentStep':
        return sim(call.args[0]).currentStep();
      case 'events': {
        const list = sim(call.args[0]).events(call.args[1], call.args[2]);
        return Array.isArray(list) ? list.map(normalizeEvent) : [];
      }
      case 'counters':
        return plainRecord<number>(sim(call.args[0]).counters());
      case 'series':
        return normalizeSeries(sim(call.args[0]).series());
      case 'causeChain': {
        const list = sim(call.args[0]).causeChain(call.args[1]);
        return Array.isArray(list) ? list.map(normalizeEvent) : [];
      }
      case 'progressMarks': {
        const s = sim(call.args[0]);
        if (!s.progressMarks) throw new Error('this build of the engine cannot line two runs up: rebuild it with `npm run build:wasm`');
        return s.progressMarks();
      }
      case 'firstDivergence': {
        const [text, togglesA, togglesB, params] = call.args;
        return findDivergence(engine(), text, togglesA, togglesB, params, (done) => post({ type: 'progress', id: call.id, done, total: null }));
      }
      case 'explore': {
        const [text, toggles, params, toggle, budget] = call.args;
        const fn = engine().explore;
        if (!fn) throw new Error('this build of the engine cannot explore interleavings: rebuild it with `npm run build:wasm`');
        return toPlain(fn(text, { ...toggles }, { ...params }, toggle ?? undefined, budget)) as ExploreReport;
      }
      case 'free': {
        const s = sims.get(call.args[0]);
        sims.delete(call.args[0]);
        s?.free();
        return null;
      }
    }
  };

  const answer = async (data: unknown): Promise<void> => {
    const call = parseCallMessage(data);
    if (call === null) return;
    if ('problem' in call) {
      post({ type: 'error', id: call.id, message: call.problem });
      return;
    }
    try {
      const result = await run(call);
      // A frame's typed arrays move to the UI thread instead of being copied.
      const transfer =
        call.method === 'frame' || call.method === 'frameAt'
          ? bulkBuffers((result as Frame).bulk)
          : call.method === 'progressMarks'
            ? [(result as Float64Array).buffer as ArrayBuffer]
            : undefined;
      post({ type: 'reply', id: call.id, result }, transfer);
    } catch (err) {
      post({ type: 'error', id: call.id, message: errorMessage(err) });
    }
  };

  return (data) => {
    queue = queue.then(() => answer(data));
    return queue;
  };
}
