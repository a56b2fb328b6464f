// The engine for unit tests (and dev mode `?engine=fake`, labelled "FAKE ENGINE"): it
// answers from fixtures recorded from the real wasm engine (web/src/engine/fixtures/, made
// by `node scripts/record-fixtures.mjs`), so every summary, event, frame, series and error
// message it gives is one the engine gave. It knows only the recorded runs and frames: any
// other request rejects with an Error saying what to add to the recorder. Frames were
// recorded with the engine's default window only: a call that asks for another window
// rejects. Each frame's bulk is rebuilt as the wasm layer makes it, typed arrays on one
// new ArrayBuffer per call (so it can be transferred like the engine's).
import { BULK_ARRAYS, BULK_LAYOUT, packBulk, type FrameBulk, type FrameWindowRequest } from './bulk';
import { cancelledBy, type BuiltinScenario, type CreateOptions, type RunPool, type SimEngine, type SimHandle } from './engine';
import type { KernelInfo } from '../base/kernels';
import type { CounterSeries, Divergence, Frame, MechanismInfo, NumaHardware, PatchInfo, ScenarioSummary, SimEvent, ToggleValue } from './types';

// The files as scripts/record-fixtures.mjs stores them (without repeats; see there).
type ScenarioRef = { builtin: string } | { text: string };
type StoredSummary = Omit<ScenarioSummary, 'listings'> & { listings: number };
/** A frame's header without its event, and its bulk arrays as plain numbers. */
type FrameHeaderFields = Omit<Frame, 'bulk' | 'event'>;
type BulkNumbers = Record<keyof FrameBulk, number[]>;
type StoredFrame = Partial<FrameHeaderFields> & { step: number; bulk?: Partial<BulkNumbers> };
interface StoredRun {
  name: string;
  scenario: ScenarioRef;
  toggles: Record<string, ToggleValue>;
  params: Record<string, number>;
  summary: StoredSummary;
  series: CounterSeries;
  /** The engine's progressMarks(), as plain numbers. */
  marks: number[];
  events: SimEvent[];
  causeChains: number[][];
  /** The frames kept, in step order: each has only the fields (and bulk arrays) that differ from the one before, never its event. */
  frames: StoredFrame[];
  seekError: string;
}
interface StoredEngine {
  patches: PatchInfo[];
  builtins: BuiltinScenario[];
  /** The engine's `mechanisms()`. */
  mechanisms: MechanismInfo[];
  describes: { scenario: ScenarioRef; params: Record<string, number>; summary: StoredSummary }[];
  errors: { scenario: ScenarioRef; toggles: Record<string, ToggleValue>; params: Record<string, number>; message: string; describe: string | null }[];
  /** Where pairs of runs first differ, as the engine's DivergenceSearch found it. */
  divergences: { scenario: ScenarioRef; togglesA: Record<string, ToggleValue>; togglesB: Record<string, ToggleValue>; params: Record<string, number>; result: Divergence }[];
  listings: ScenarioSummary['listings'][];
  /** The engine's bulk layout: [array name, typed-array type] in buffer order. */
  bulkLayout: [string, string][];
}

/** A recorded frame: its header without the event, and its bulk arrays as numbers. */
export interface RecordedFrame {
  header: FrameHeaderFields;
  bulk: Readonly<BulkNumbers>;
}

/** A recorded run, as the engine gave it. */
export interface RecordedRun {
  name: string;
  /** The scenario text. */
  text: string;
  /** Toggles and params the run was asked for. */
  toggles: Record<string, ToggleValue>;
  params: Record<string, number>;
  summary: ScenarioSummary;
  series: CounterSeries;
  /** [position0, ops0, ...] as the engine's progressMarks() gave them. */
  marks: number[];
  /** Every event of the run, by step. */
  events: SimEvent[];
  /** The cause chain of each event, as steps, newest first. */
  causeChains: number[][];
  /** The frames kept, by step, without their event (it is `events[step - 1]`) and with their bulk arrays as plain numbers (the fixture engine packs them into typed arrays per call). */
  frames: Map<number, RecordedFrame>;
  /** The engine's message for a seek past the end (to step totalSteps + 1). */
  seekError: string;
}

const engineFile = import.meta.glob<StoredEngine>('./fixtures/engine.json', { eager: true, import: 'default' });
const runFiles = import.meta.glob<StoredRun>('./fixtures/runs/*.json', { eager: true, import: 'default' });

const STORED: StoredEngine = (() => {
  const f = Object.values(engineFile)[0];
  if (!f) throw new Error('web/src/engine/fixtures/engine.json is missing: run `node scripts/record-fixtures.mjs`');
  return f;
})();

/** Checks that the engine lays out its bulk arrays as bulk.ts's FrameBulk / BULK_LAYOUT say (the hand-written side of the boundary). */
function checkLayout(recorded: readonly (readonly [string, string])[]): void {
  const ours = BULK_LAYOUT.map((name) => [name, BULK_ARRAYS[name].name]);
  if (JSON.stringify(recorded) !== JSON.stringify(ours)) {
    throw new Error(
      `the engine lays out a frame's bulk arrays as ${JSON.stringify(recorded)} (web/src/engine/fixtures/engine.json), but web/src/engine/bulk.ts packs ${JSON.stringify(ours)}: update FrameBulk, BULK_ARRAYS and BULK_LAYOUT there`,
    );
  }
}
checkLayout(STORED.bulkLayout);

function textOf(ref: ScenarioRef): string {
  if ('text' in ref) return ref.text;
  const b = STORED.builtins.find((s) => s.id === ref.builtin);
  if (!b) throw new Error(`a fixture names built-in ${ref.builtin}, which engine.json does not have`);
  return b.text;
}

function summaryOf(stored: StoredSummary): ScenarioSummary {
  const listings = STORED.listings[stored.listings];
  if (!listings) throw new Error(`a fixture summary names listings ${stored.listings}, which engine.json does not have`);
  return { ...stored, listings };
}

function runOf(stored: StoredRun): RecordedRun {
  const frames = new Map<number, RecordedFrame>();
  let prev: RecordedFrame | null = null;
  for (const f of stored.frames) {
    const { bulk, ...fields } = f;
    const header = { ...prev?.header, ...fields } as FrameHeaderFields;
    const arrays = { ...prev?.bulk, ...bulk } as BulkNumbers;
    for (const name of BULK_LAYOUT) {
      if (!Array.isArray(arrays[name])) throw new Error(`the fixture run ${stored.name} has no bulk.${name} at step ${f.step}: run \`node scripts/record-fixtures.mjs\``);
    }
    const frame: RecordedFrame = { header, bulk: arrays };
    frames.set(f.step, frame);
    prev = frame;
  }
  const { name, toggles, params, series, marks, events, causeChains, seekError } = stored;
  return { name, text: textOf(stored.scenario), toggles, params, summary: summaryOf(stored.summary), series, marks: marks ?? [], events, causeChains, frames, seekError };
}

/** Whether `window` asks for the engine's default window (nothing, or no field set). */
function isDefaultWindow(window: FrameWindowRequest | null | undefined): boolean {
  return window === undefined || window === null || Object.values(window).every((v) => v === undefined || v === null);
}

const RUNS: RecordedRun[] = Object.values(runFiles).map(runOf);
const DESCRIBES = STORED.describes.map((d) => ({ text: textOf(d.scenario), params: d.params, summary: summaryOf(d.summary) }));
const ERRORS = STORED.errors.map(({ scenario, ...e }) => ({ text: textOf(scenario), ...e }));
const DIVERGENCES = (STORED.divergences ?? []).map(({ scenario, ...d }) => ({ text: textOf(scenario), ...d }));

/** The built-in scenarios the fixtures cover (a subset of the engine's, in its order). */
export const FIXTURE_SCENARIOS: BuiltinScenario[] = STORED.builtins;

/** The recorded run with this name (for tests that want its facts). */
export function fixtureRun(name: string): RecordedRun {
  const run = RUNS.find((r) => r.name === name);
  if (!run) throw new Error(`no fixture run ${name} (recorded: ${RUNS.map((r) => r.name).join(', ')})`);
  return run;
}

/** The text of the recorded custom scenario (a link's own text). */
export const FIXTURE_CUSTOM_TEXT: string = fixtureRun('custom').text;

/** The request texts the engine refused, with its messages. */
export const FIXTURE_ERRORS = ERRORS;

const sameRecord = (a: Record<string, unknown>, b: Record<string, unknown>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** Whether `summary` is what the engine gives for `params` (each named param set, the others at their defaults). */
function paramsMatch(summary: ScenarioSummary, params: Record<string, number>): boolean {
  if (!Object.keys(params).every((name) => summary.params.some((p) => p.name === name))) return false;
  return summary.params.every((p) => (params[p.name] ?? p.default) === p.value);
}

function describeLabel(text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>): string {
  const id = /^id\s*=\s*"([^"]*)"/m.exec(text)?.[1] ?? 'a custom scenario';
  return `${id} with toggles ${JSON.stringify(toggles)} and params ${JSON.stringify(params)}`;
}

/** Throws the engine's recorded message if it refused this request. */
function throwRecordedError(text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, forDescribe: boolean): void {
  for (const e of ERRORS) {
    if (e.text !== text || !sameRecord(e.params, params)) continue;
    if (forDescribe && e.describe !== null && Object.keys(e.toggles).length === 0) throw new Error(e.describe);
    if (!forDescribe && sameRecord(e.toggles, toggles)) throw new Error(e.message);
  }
}

/** The recorded run the engine would prepare for this request. */
function findRun(text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>): RecordedRun {
  throwRecordedError(text, toggles, params, false);
  const base = DESCRIBES.find((d) => d.text === text)?.summary.toggles ?? {};
  const wanted = { ...base, ...toggles };
  const run = RUNS.find((r) => r.text === text && sameRecord(r.summary.toggles, wanted) && paramsMatch(r.summary, params));
  if (!run) {
    throw new Error(
      `the fixture engine has no recorded run of ${describeLabel(text, toggles, params)}: add it to RUNS in scripts/record-fixtures.mjs and run \`node scripts/record-fixtures.mjs\``,
    );
  }
  return run;
}

class FixtureSim implements SimHandle {
  private readonly run: RecordedRun;
  private readonly log: FixtureEngineLog;
  private readonly seekDelayMs: number;
  private cur = 0;
  private freed = false;

  constructor(run: RecordedRun, log: FixtureEngineLog, seekDelayMs: number) {
    this.run = run;
    this.log = log;
    this.seekDelayMs = seekDelayMs;
  }

  private get total(): number {
    return this.run.summary.totalSteps;
  }
  private alive(): void {
    if (this.freed) throw new Error('simulation used after free()');
  }
  /** The recorded frame at the current step, with its event put back and its bulk packed into a new buffer; only the default window was recorded. */
  private frameNow(window?: FrameWindowRequest): Frame {
    if (!isDefaultWindow(window)) {
      throw new Error(
        `the fixture engine has only the engine's default frame window recorded, not ${JSON.stringify(window)}: use a wasm engine, or record windowed frames in scripts/record-fixtures.mjs and serve them in fixtureEngine.ts`,
      );
    }
    const f = this.run.frames.get(this.cur);
    if (!f) {
      const kept = [...this.run.frames.keys()].join(', ');
      throw new Error(
        `the fixture run ${this.run.name} has no frame at step ${this.cur} (kept: ${kept}): add the step to RUNS in scripts/record-fixtures.mjs and run \`node scripts/record-fixtures.mjs\``,
      );
    }
    return { ...f.header, event: this.cur === 0 ? null : (this.run.events[this.cur - 1] ?? null), bulk: packBulk(f.bulk) };
  }
  private seekNow(step: number): void {
    this.alive();
    if (!Number.isInteger(step) || step < 0) throw new Error(`step must be a whole number >= 0, not ${step}`);
    if (step > this.total) {
      // The engine's own message, recorded for step totalSteps + 1.
      throw new Error(this.run.seekError.replace(`step ${this.total + 1} `, `step ${step} `));
    }
    this.cur = step;
  }
  /** Every call answers asynchronously, like a worker; after `seekDelayMs` when set. */
  private latency(): Promise<void> {
    return this.seekDelayMs > 0 ? sleep(this.seekDelayMs) : Promise.resolve();
  }

  summary(): ScenarioSummary {
    return this.run.summary;
  }
  async step(n: number): Promise<number> {
    await this.latency();
    this.alive();
    this.cur = Math.max(0, Math.min(this.total, this.cur + Math.max(0, Math.trunc(n))));
    return this.cur;
  }
  async seek(step: number): Promise<void> {
    await this.latency();
    this.seekNow(step);
  }
  async frameAt(step: number, window?: FrameWindowRequest): Promise<Frame> {
    await this.latency();
    // Like the worker's frameAt: seek, then the frame (a window it cannot give fails after the seek).
    this.seekNow(step);
    this.log.framesFetched.push(step);
    return this.frameNow(window);
  }
  async currentStep(): Promise<number> {
    await this.latency();
    this.alive();
    return this.cur;
  }
  async frame(window?: FrameWindowRequest): Promise<Frame> {
    await this.latency();
    this.alive();
    return this.frameNow(window);
  }
  async events(from: number, to: number): Promise<SimEvent[]> {
    await this.latency();
    this.alive();
    return this.run.events.slice(Math.max(0, from), Math.max(0, to));
  }
  async counters(): Promise<Record<string, number>> {
    return { ...(await this.frame()).counters };
  }
  async series(): Promise<CounterSeries> {
    await this.latency();
    this.alive();
    return this.run.series;
  }
  async causeChain(step: number): Promise<SimEvent[]> {
    await this.latency();
    this.alive();
    const chain = this.run.causeChains[step] ?? [];
    return chain.map((s) => this.run.events[s] as SimEvent);
  }
  async progressMarks(): Promise<Float64Array> {
    await this.latency();
    this.alive();
    return Float64Array.from(this.run.marks);
  }
  free(): void {
    this.freed = true;
  }
}

/** How the fixture engine behaves in time (all zero by default: every call resolves on the next microtask). */
export interface FixtureEngineOptions {
  /** How long each create takes, in (possibly fake) timer milliseconds. */
  createDelayMs?: number;
  /** Progress reports during a create, evenly spread over createDelayMs (needs createDelayMs > 0); like the engine's, only the last knows the total. */
  progressReports?: number;
  /** How long each call on a simulation takes. */
  seekDelayMs?: number;
  /** The mechanisms to report instead of the recorded ones (e.g. with presets). */
  mechanisms?: MechanismInfo[];
  /** The kernel versions and kernels to report (none by default: the recordings have none). */
  kernelVersions?: string[];
  kernels?: KernelInfo[];
  /** Reads numactl text (by default the fixture engine cannot and rejects). */
  parseNumactl?: (text: string) => NumaHardware;
  /** Plans, runs and reports sweeps (by default the fixture engine cannot and rejects: use the wasm engine). */
  sweeps?: Pick<SimEngine, 'planSweep' | 'sweepReport' | 'openRunPool'>;
  /** Answers `explore` (tests of the Explore view); without it, explore rejects. */
  explore?: SimEngine['explore'];
}

const NO_SWEEPS = 'the fixture engine cannot run sweeps: use the wasm engine';

/** A pool whose every run rejects: the fixture engine has no counters-only runs. */
const noRunPool: RunPool = { run: () => Promise.reject(new Error(NO_SWEEPS)), close: () => {} };

/** What the fixture engine was asked to do, for tests. */
export interface FixtureEngineLog {
  /** Number of simulations created (including failed and cancelled ones). */
  creates: number;
  /** Steps of every frameAt call, in order. */
  framesFetched: number[];
}

/** The fixture engine with its call log. */
export type FixtureEngine = SimEngine & { readonly log: FixtureEngineLog };

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelledBy(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelledBy(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Creates the fixture engine (tests and `?engine=fake` dev mode only). */
export function createFixtureEngine(options: FixtureEngineOptions = {}): FixtureEngine {
  const { createDelayMs = 0, progressReports = 0, seekDelayMs = 0 } = options;
  const log: FixtureEngineLog = { creates: 0, framesFetched: [] };
  const create = async (text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, opts: CreateOptions = {}): Promise<SimHandle> => {
    const { signal, onProgress, seed, schedule } = opts;
    log.creates++;
    if (signal?.aborted) throw cancelledBy(signal);
    // Look the run up first so that bad input fails at once, as the engine's parser does.
    const run = findRun(text, toggles, params);
    if (schedule !== undefined && schedule.trim() !== '') {
      throw new Error(`schedule: the fixture engine has no recorded run of ${describeLabel(text, toggles, params)} under the schedule "${schedule}" (only in the default order)`);
    }
    if (seed !== undefined && seed !== run.summary.seed) {
      throw new Error(`the fixture engine has no recorded run of ${describeLabel(text, toggles, params)} at seed ${seed} (only at the scenario's seed ${run.summary.seed})`);
    }
    const sim = new FixtureSim(run, log, seekDelayMs);
    const total = sim.summary().totalSteps;
    const reports = createDelayMs > 0 ? Math.max(0, Math.trunc(progressReports)) : 0;
    if (reports > 0) {
      for (let i = 1; i <= reports; i++) {
        await sleep(createDelayMs / reports, signal);
        onProgress?.({ done: Math.round((total * i) / reports), total: i === reports ? total : null });
      }
    } else if (createDelayMs > 0) {
      await sleep(createDelayMs, signal);
    } else {
      await Promise.resolve();
      if (signal?.aborted) throw cancelledBy(signal);
    }
    return sim;
  };
  return {
    kind: 'fake',
    log,
    patches: () => STORED.patches,
    builtinScenarios: () => STORED.builtins,
    mechanisms: () => options.mechanisms ?? STORED.mechanisms,
    kernelVersions: () => options.kernelVersions ?? [],
    kernels: () => options.kernels ?? [],
    parseNumactl: async (text) => {
      await Promise.resolve();
      if (!options.parseNumactl) throw new Error('the fixture engine cannot read numactl output: use the wasm engine');
      return options.parseNumactl(text);
    },
    readPaste: async (kind) => {
      await Promise.resolve();
      throw new Error(`the fixture engine cannot read pasted ${kind} text: use the wasm engine`);
    },
    describe: async (text, params) => {
      await Promise.resolve();
      throwRecordedError(text, {}, params, true);
      const d = DESCRIBES.find((x) => x.text === text && paramsMatch(x.summary, params));
      if (!d) {
        throw new Error(
          `the fixture engine has no recorded describe of ${describeLabel(text, {}, params)}: add a run of it to RUNS in scripts/record-fixtures.mjs and run \`node scripts/record-fixtures.mjs\``,
        );
      }
      return d.summary;
    },
    create,
    firstDivergence: async (text, togglesA, togglesB, params, opts = {}) => {
      await Promise.resolve();
      if (opts.signal?.aborted) throw cancelledBy(opts.signal);
      // Compared as the engine resolves them: the scenario's own values filled in.
      const base = DESCRIBES.find((x) => x.text === text)?.summary.toggles ?? {};
      const d = DIVERGENCES.find(
        (x) =>
          x.text === text &&
          sameRecord({ ...base, ...x.togglesA }, { ...base, ...togglesA }) &&
          sameRecord({ ...base, ...x.togglesB }, { ...base, ...togglesB }) &&
          sameRecord(x.params, params),
      );
      if (!d) {
        throw new Error(
          `the fixture engine has no recorded divergence of ${describeLabel(text, togglesA, params)} against toggles ${JSON.stringify(togglesB)}: add it to DIVERGENCES in scripts/record-fixtures.mjs and run \`node scripts/record-fixtures.mjs\``,
        );
      }
      return d.result;
    },
    planSweep: (...args) => options.sweeps?.planSweep(...args) ?? Promise.reject(new Error(NO_SWEEPS)),
    sweepReport: (...args) => options.sweeps?.sweepReport(...args) ?? Promise.reject(new Error(NO_SWEEPS)),
    openRunPool: (size) => options.sweeps?.openRunPool(size) ?? noRunPool,
    explore: (...args) => options.explore?.(...args) ?? Promise.reject(new Error('the fixture engine cannot explore interleavings: use the wasm engine')),
  };
}
