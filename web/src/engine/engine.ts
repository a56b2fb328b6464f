// The engine interface the UI talks to. Implementations: the wasm engine run in
// Web Workers (workerEngine.ts + worker.ts, the real one) and, for unit tests, one that
// replays runs recorded from it (fixtureEngine.ts). Everything that talks to the engine returns a
// Promise, so the UI thread never waits for a simulation.
import type { FrameWindowRequest } from './bulk';
import type { BuiltinView } from './generated/BuiltinView';
import type { ExploreReport } from './generated/ExploreReport';
import type { Progress } from './protocol';
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

/** A scenario that ships with the engine: id, title and TOML text. */
export type BuiltinScenario = BuiltinView;

/** One recorded simulation (mirrors the wasm `Simulation` class). */
export interface SimHandle {
  /** Static facts about the run, read once when it was created. */
  summary(): ScenarioSummary;
  /** Advances `n` steps (clamped at totalSteps); resolves to the new current step. */
  step(n: number): Promise<number>;
  /** Goes to any step 0..=totalSteps; rejects beyond the end. */
  seek(step: number): Promise<void>;
  /** Seeks and returns the frame there in one engine call; `window` picks its PTEs and frames (default: the engine's cap). */
  frameAt(step: number, window?: FrameWindowRequest): Promise<Frame>;
  currentStep(): Promise<number>;
  frame(window?: FrameWindowRequest): Promise<Frame>;
  /** Events with step in [from, to). */
  events(from: number, to: number): Promise<SimEvent[]>;
  counters(): Promise<Record<string, number>>;
  /** Every counter sampled over the whole run (it does not move the current step). */
  series(): Promise<CounterSeries>;
  /** The event at `step` and each event that caused it in turn (its caller's event), newest first. */
  causeChain(step: number): Promise<SimEvent[]>;
  /** Where the run's workload got further, for lining two runs up (base/abAxis.ts): [position0, ops0, position1, ops1, ...]. */
  progressMarks(): Promise<Float64Array>;
  /** Releases the simulation (and its worker); later calls reject. */
  free(): void;
}

/** How a `create` is watched and stopped. */
export interface CreateOptions {
  /** Aborting rejects the promise with a CancelledError and stops the engine's work. */
  signal?: AbortSignal;
  /** Called when the engine reports how far the preparation is (steps prepared so far). */
  onProgress?: (progress: Progress) => void;
  /** Runs at this seed instead of the scenario's own (a link's `seed=`). */
  seed?: number;
  /**
   * Runs under this schedule (`STEP:CPU,...`, a link's `sched=`) instead of the default order;
   * a schedule that does not fit rejects with the engine's message naming the pick.
   */
  schedule?: string;
}

/**
 * Workers for counters-only runs (a sweep's): no checkpoints, no events kept, so a run
 * is fast and small. At most `size` run at once; more wait for a free worker.
 */
export interface RunPool {
  /** Runs a scenario to its end at `seed` (null: the scenario's own); aborting `signal` stops it at once (its worker is terminated). */
  run(scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, seed: number | null, signal?: AbortSignal): Promise<RunValues>;
  /** Terminates the pool's workers; runs still going reject. */
  close(): void;
}

/** A simulation engine: the patch registry, built-in scenarios, mechanism metadata and a constructor. */
export interface SimEngine {
  /** 'wasm' is the real engine; 'fake' is the fixture engine replaying recorded runs (tests and dev only, never shipped). */
  readonly kind: 'wasm' | 'fake';
  /** The patch registry (read when the engine started). */
  patches(): PatchInfo[];
  /** The built-in scenarios (read when the engine started). */
  builtinScenarios(): BuiltinScenario[];
  /** The mechanisms, in the engine's order: each one's toggles, counters, event kinds, ops and views (read when the engine started). */
  mechanisms(): MechanismInfo[];
  /** The mainline versions at which some toggle changes, oldest first (the engine's `kernelVersions()`). */
  kernelVersions(): string[];
  /** The kernels the lab's picker offers, oldest first: the release before the first of `kernelVersions()` (all older kernels), then each of them, with the toggles each determines. */
  kernels(): KernelInfo[];
  /** Reads pasted `numactl --hardware` text; rejects with Error("line N: ...") when it cannot. */
  parseNumactl(text: string): Promise<NumaHardware>;
  /** Reads pasted `lscpu`, `/proc/zoneinfo` or `/proc/vmstat` text; rejects with Error("line N: ...") naming the line (and, for two texts, which one). */
  readPaste<K extends PasteKind>(kind: K, texts: PasteKinds[K]['texts']): Promise<PasteKinds[K]['result']>;
  /** A scenario's summary without preparing its run: its toggle values and params are right, its totalSteps and chapters are not. */
  describe(scenarioText: string, params: Record<string, number>): Promise<ScenarioSummary>;
  /**
   * Where two runs of one scenario (same text and params, toggles `togglesA` and `togglesB`)
   * first differ, found by the engine stepping both side by side (`mmviz diverge`); reports
   * the pairs of steps compared as progress (total null) and stops when `signal` aborts.
   */
  firstDivergence(
    scenarioText: string,
    togglesA: Record<string, ToggleValue>,
    togglesB: Record<string, ToggleValue>,
    params: Record<string, number>,
    options?: CreateOptions,
  ): Promise<Divergence>;
  /** Prepares a simulation (reporting progress); rejects with Error(message) on a bad scenario, unknown toggle or bad param. */
  create(scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, options?: CreateOptions): Promise<SimHandle>;
  /** Checks a sweep of a scenario with its fixed params (`mmviz sweep`'s checks): its plan, or what is wrong and where. */
  planSweep(scenarioText: string, params: Record<string, number>, request: SweepRequest): Promise<SweepPlanOutcome>;
  /** The report and plain-text table of a sweep's runs (any subset: a cancelled sweep reports what it did), as `mmviz sweep` computes them. */
  sweepReport(scenarioText: string, params: Record<string, number>, request: SweepRequest, runs: SweepRunValues[]): Promise<SweepReportOutcome>;
  /** Starts a pool of `size` workers for counters-only runs. */
  openRunPool(size: number): RunPool;
  /**
   * Every interleaving of a small scenario's CPUs (`mmviz explore`), per value of `toggle`
   * (null: the toggles as given), at most `budget` states per value. One engine call that can
   * take minutes: it runs in a worker of its own, which aborting `signal` terminates.
   */
  explore(scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, toggle: string | null, budget: number, signal?: AbortSignal): Promise<ExploreReport>;
}

/** The error a cancelled or superseded engine call rejects with. */
export class CancelledError extends Error {
  override readonly name = 'CancelledError';
  constructor(message = 'cancelled') {
    super(message);
  }
}

/** True for the rejection of a cancelled or superseded call (not a failure to report). */
export function isCancelled(err: unknown): err is CancelledError {
  return err instanceof CancelledError;
}

/** The error to reject with once `signal` has aborted: its reason when that is a CancelledError. */
export function cancelledBy(signal: AbortSignal): CancelledError {
  return signal.reason instanceof CancelledError ? signal.reason : new CancelledError();
}

/** Turns anything thrown (Error, string, wasm value) into a message a person can read. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object' && 'message' in err && typeof (err as { message: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}
