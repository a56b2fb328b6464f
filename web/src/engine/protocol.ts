// The message protocol between the UI thread (workerEngine.ts) and the engine
// worker (worker.ts, workerHost.ts). Both sides import this one file, so a
// method's arguments and result cannot drift apart. It imports no wasm.
//
//   UI → worker   { type: 'call', id, method, args }
//   worker → UI   { type: 'reply', id, result }            exactly one per call, or
//                 { type: 'error', id, message }           (the engine's message)
//                 { type: 'progress', id, done, total }    any number, before the reply
//                                                          (total: null while unknown)
//
// `id` is chosen by the UI side and is unique per worker. Messages are plain
// data (structured clone): no class instances, no functions. A frame's bulk
// arrays (typed arrays, bulk.ts) are transferred, not copied: the worker lists
// their buffers in postMessage's transfer list.
import type { FrameWindowRequest } from './bulk';
import type { BuiltinScenario } from './engine';
import type { ExploreReport } from './generated/ExploreReport';
import type { KernelInfo } from '../base/kernels';
import type {
  CounterSeries,
  Divergence,
  Frame,
  MechanismInfo,
  NumaHardware,
  PasteKind,
  PasteKinds,
  PatchInfo,
  RunValues,
  ScenarioSummary,
  SimEvent,
  SweepPlanOutcome,
  SweepReportOutcome,
  SweepRequest,
  SweepRunValues,
  ToggleValue,
} from './types';

/** Every method the worker answers: its argument tuple and its result. */
export interface EngineMethods {
  /** Loads and initialises the wasm module; returns the registry and the mechanisms. The first call on every worker. */
  init: { args: []; result: { patches: PatchInfo[]; scenarios: BuiltinScenario[]; mechanisms: MechanismInfo[]; kernelVersions: string[]; kernels: KernelInfo[] } };
  /** Reads pasted `numactl --hardware` text (the engine's message names the line when it cannot). */
  parseNumactl: { args: [text: string]; result: NumaHardware };
  /** Reads pasted `lscpu`, `/proc/zoneinfo` or `/proc/vmstat` text (the message names the line). */
  readPaste: { args: [kind: PasteKind, texts: string[]]; result: PasteKinds[PasteKind]['result'] };
  /** Prepares a run (at `seed` when given, else the scenario's own; under `schedule` when given, else the default order); posts progress while it runs. Returns a handle for the other methods. */
  create: {
    args: [scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, seed?: number | null, schedule?: string];
    result: { handle: number; summary: ScenarioSummary };
  };
  /** Reads a scenario's summary without preparing its run (toggles and params are right; totalSteps is 0). */
  describe: {
    args: [scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>];
    result: ScenarioSummary;
  };
  /** Checks a sweep: its plan, or its problem (field and message). */
  sweepPlan: { args: [scenarioText: string, params: Record<string, number>, request: SweepRequest]; result: SweepPlanOutcome };
  /** Runs a scenario to its end, counters only (no checkpoints), at `seed` (null: the scenario's own). */
  sweepRun: { args: [scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, seed: number | null]; result: RunValues };
  /** The report and table of a sweep's runs. */
  sweepReport: { args: [scenarioText: string, params: Record<string, number>, request: SweepRequest, runs: SweepRunValues[]]; result: SweepReportOutcome };
  step: { args: [handle: number, n: number]; result: number };
  seek: { args: [handle: number, step: number]; result: null };
  /** Seek and frame in one call, so that the frame can never belong to another step than the one asked for. */
  /** `window` picks the PTEs and frames (default: the engine's cap of each); a bad window is an error. */
  frameAt: { args: [handle: number, step: number, window?: FrameWindowRequest]; result: Frame };
  frame: { args: [handle: number, window?: FrameWindowRequest]; result: Frame };
  currentStep: { args: [handle: number]; result: number };
  events: { args: [handle: number, from: number, to: number]; result: SimEvent[] };
  counters: { args: [handle: number]; result: Record<string, number> };
  /** The counters sampled over the whole run. */
  series: { args: [handle: number]; result: CounterSeries };
  /** The event at `step` and each event that caused it, newest first. */
  causeChain: { args: [handle: number, step: number]; result: SimEvent[] };
  /** Where the run's workload got further: [position0, ops0, ...] (transferred). */
  progressMarks: { args: [handle: number]; result: Float64Array };
  /** Steps two runs of one scenario side by side until they first differ; posts progress (pairs compared) while it runs. */
  firstDivergence: {
    args: [scenarioText: string, togglesA: Record<string, ToggleValue>, togglesB: Record<string, ToggleValue>, params: Record<string, number>];
    result: Divergence;
  };
  free: { args: [handle: number]; result: null };
  /** Every interleaving of the scenario's CPUs per value of `toggle` (`mmviz explore`), in one call. */
  explore: {
    args: [scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, toggle: string | null, budget: number];
    result: ExploreReport;
  };
}

/** A method name of the protocol. */
export type EngineMethod = keyof EngineMethods;

/** The method names, for validating incoming calls. */
export const ENGINE_METHODS: readonly EngineMethod[] = [
  'init',
  'parseNumactl',
  'readPaste',
  'create',
  'describe',
  'sweepPlan',
  'sweepRun',
  'sweepReport',
  'step',
  'seek',
  'frameAt',
  'frame',
  'currentStep',
  'events',
  'counters',
  'series',
  'causeChain',
  'progressMarks',
  'firstDivergence',
  'free',
  'explore',
];

/** A call from the UI: one of the methods with its own argument tuple. */
export type CallMessage = { [M in EngineMethod]: { type: 'call'; id: number; method: M; args: EngineMethods[M]['args'] } }[EngineMethod];

/** The result of a call. */
export interface ReplyMessage {
  type: 'reply';
  id: number;
  result: unknown;
}

/** A call failed; `message` is the engine's message, shown to people as is. */
export interface ErrorMessage {
  type: 'error';
  id: number;
  message: string;
}

/** Unsolicited progress of a long call (`create`, which prepares the run in slices; `firstDivergence`, which compares in slices). */
export interface ProgressMessage {
  type: 'progress';
  id: number;
  /** Steps prepared so far. */
  done: number;
  /** Steps of the whole run, or null while the engine does not know it (until the run is prepared). */
  total: number | null;
}

/** Anything the worker posts. */
export type WorkerMessage = ReplyMessage | ErrorMessage | ProgressMessage;

/** Progress of a long call as the UI sees it. */
export interface Progress {
  /** Steps prepared so far. */
  done: number;
  /** Steps of the whole run, or null while unknown. */
  total: number | null;
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** Reads a message posted by the worker; null when it is not one of ours (it is then ignored). */
export function parseWorkerMessage(data: unknown): WorkerMessage | null {
  if (!data || typeof data !== 'object') return null;
  const m = data as Record<string, unknown>;
  if (!isId(m.id)) return null;
  switch (m.type) {
    case 'reply':
      return { type: 'reply', id: m.id, result: m.result };
    case 'error':
      return { type: 'error', id: m.id, message: typeof m.message === 'string' && m.message !== '' ? m.message : 'the engine failed without a message' };
    case 'progress':
      return isCount(m.done) && (m.total === null || isCount(m.total)) ? { type: 'progress', id: m.id, done: m.done, total: m.total } : null;
    default:
      return null;
  }
}

/** Reads a call posted by the UI: the call, `{ id, problem }` for a malformed call with an id, or null when there is nothing to answer. */
export function parseCallMessage(data: unknown): CallMessage | { id: number; problem: string } | null {
  if (!data || typeof data !== 'object') return null;
  const m = data as Record<string, unknown>;
  if (m.type !== 'call' || !isId(m.id)) return null;
  if (typeof m.method !== 'string' || !(ENGINE_METHODS as readonly string[]).includes(m.method)) {
    return { id: m.id, problem: `unknown engine method ${JSON.stringify(m.method)}` };
  }
  if (!Array.isArray(m.args)) return { id: m.id, problem: `the arguments of ${m.method} are not a list` };
  // The tuple types are the contract between two files of this repository; the
  // engine itself validates every value it is given.
  return { type: 'call', id: m.id, method: m.method, args: m.args } as CallMessage;
}
