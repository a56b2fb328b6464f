// The real engine: the Rust simulator compiled to wasm, run in Web Workers
// (worker.ts) so that preparing a run, which takes seconds for long ones, never
// blocks the page.
//
// Each simulation lives in a worker of its own. A wasm call cannot be
// interrupted and a worker answers its calls in order, so a worker busy preparing
// a run answers nothing else until it is done:
// with one worker per simulation, the simulation on screen keeps answering seeks
// while the next one prepares, and cancelling a preparation is terminating its
// worker. Freeing a simulation terminates its worker too, which hands its wasm
// memory (a wasm memory never shrinks) back to the browser. One spare worker is
// kept initialised so that a new run does not wait for wasm to start.
import { cancelledBy, errorMessage, type BuiltinScenario, type CreateOptions, type RunPool, type SimEngine, type SimHandle } from './engine';
import { parseWorkerMessage, type CallMessage, type EngineMethod, type EngineMethods, type Progress } from './protocol';
import type { FrameWindowRequest } from './bulk';
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

/** The part of a Worker the client needs; a fake in unit tests. */
export interface WorkerPort {
  post(message: CallMessage): void;
  /** Installs the receivers of the worker's messages and of its failure (it did not start or it crashed). */
  listen(onMessage: (data: unknown) => void, onFailure: (message: string) => void): void;
  terminate(): void;
}

/** Starts a real engine worker (Vite bundles worker.ts and the wasm package it loads). */
export function startEngineWorker(): WorkerPort {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  return {
    post: (message) => worker.postMessage(message),
    listen: (onMessage, onFailure) => {
      worker.onmessage = (e: MessageEvent<unknown>) => onMessage(e.data);
      worker.onmessageerror = () => onFailure('a message from the engine worker could not be read');
      worker.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        onFailure(e.message || 'the engine worker could not be started');
      };
    },
    terminate: () => worker.terminate(),
  };
}

interface Pending {
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
  onProgress: ((progress: Progress) => void) | undefined;
}

/** Calls into one engine worker: typed requests matched to replies by id. */
export class EngineWorkerClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedBy: Error | null = null;
  private readonly port: WorkerPort;

  constructor(port: WorkerPort) {
    this.port = port;
    port.listen(
      (data) => this.receive(data),
      (message) => this.close(new Error(`The engine worker failed: ${message}`)),
    );
  }

  /** True once the worker was terminated (every later call rejects). */
  get closed(): boolean {
    return this.closedBy !== null;
  }

  /** Calls `method`; resolves with its result or rejects with an Error carrying the engine's message. */
  call<M extends EngineMethod>(method: M, args: EngineMethods[M]['args'], onProgress?: (progress: Progress) => void): Promise<EngineMethods[M]['result']> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    const id = this.nextId++;
    return new Promise<EngineMethods[M]['result']>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject, onProgress });
      this.port.post({ type: 'call', id, method, args } as CallMessage);
    });
  }

  /** Terminates the worker; pending and later calls reject with `reason`. */
  close(reason: Error): void {
    if (this.closedBy) return;
    this.closedBy = reason;
    this.port.terminate();
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(reason);
  }

  private receive(data: unknown): void {
    const message = parseWorkerMessage(data);
    // Unknown ids are replies to calls that were rejected when the worker was closed.
    const pending = message ? this.pending.get(message.id) : undefined;
    if (!message || !pending) return;
    if (message.type === 'progress') {
      pending.onProgress?.({ done: message.done, total: message.total });
      return;
    }
    this.pending.delete(message.id);
    if (message.type === 'reply') pending.resolve(message.result);
    else pending.reject(new Error(message.message));
  }
}

/** A simulation living in its own worker. */
class WorkerSim implements SimHandle {
  private readonly client: EngineWorkerClient;
  private readonly handle: number;
  private readonly info: ScenarioSummary;
  constructor(client: EngineWorkerClient, handle: number, info: ScenarioSummary) {
    this.client = client;
    this.handle = handle;
    this.info = info;
  }
  summary(): ScenarioSummary {
    return this.info;
  }
  step(n: number): Promise<number> {
    return this.client.call('step', [this.handle, n]);
  }
  async seek(step: number): Promise<void> {
    await this.client.call('seek', [this.handle, step]);
  }
  frameAt(step: number, window?: FrameWindowRequest): Promise<Frame> {
    return this.client.call('frameAt', window ? [this.handle, step, window] : [this.handle, step]);
  }
  currentStep(): Promise<number> {
    return this.client.call('currentStep', [this.handle]);
  }
  frame(window?: FrameWindowRequest): Promise<Frame> {
    return this.client.call('frame', window ? [this.handle, window] : [this.handle]);
  }
  events(from: number, to: number): Promise<SimEvent[]> {
    return this.client.call('events', [this.handle, from, to]);
  }
  counters(): Promise<Record<string, number>> {
    return this.client.call('counters', [this.handle]);
  }
  series(): Promise<CounterSeries> {
    return this.client.call('series', [this.handle]);
  }
  causeChain(step: number): Promise<SimEvent[]> {
    return this.client.call('causeChain', [this.handle, step]);
  }
  progressMarks(): Promise<Float64Array> {
    return this.client.call('progressMarks', [this.handle]);
  }
  free(): void {
    this.client.close(new Error('simulation used after free()'));
  }
}

/** The registry every worker reports on init. */
type Registry = EngineMethods['init']['result'];

/** SimEngine over a pool of engine workers, one per simulation. */
class WorkerEngine implements SimEngine {
  readonly kind = 'wasm' as const;
  private readonly start: () => WorkerPort;
  private readonly registry: Registry;
  private spare: Promise<EngineWorkerClient>;

  constructor(start: () => WorkerPort, registry: Registry, first: EngineWorkerClient) {
    this.start = start;
    this.registry = registry;
    this.spare = Promise.resolve(first);
  }

  patches(): PatchInfo[] {
    return this.registry.patches;
  }

  builtinScenarios(): BuiltinScenario[] {
    return this.registry.scenarios;
  }

  mechanisms(): MechanismInfo[] {
    return this.registry.mechanisms;
  }

  kernelVersions(): string[] {
    return this.registry.kernelVersions ?? [];
  }

  kernels(): KernelInfo[] {
    return this.registry.kernels ?? [];
  }

  /** Asks the spare worker: parsing takes well under a millisecond. */
  async parseNumactl(text: string): Promise<NumaHardware> {
    const client = await this.spare;
    return client.call('parseNumactl', [text]);
  }

  /** Asks the spare worker, as parseNumactl. */
  async readPaste<K extends PasteKind>(kind: K, texts: PasteKinds[K]['texts']): Promise<PasteKinds[K]['result']> {
    const client = await this.spare;
    return client.call('readPaste', [kind, [...texts]]) as Promise<PasteKinds[K]['result']>;
  }

  async create(scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, options: CreateOptions = {}): Promise<SimHandle> {
    const { seed, schedule } = options;
    return this.inOwnWorker(options, async (client, onProgress) => {
      // Without a seed or a schedule the call is the one older workers know (three arguments).
      const args: EngineMethods['create']['args'] =
        schedule !== undefined
          ? [scenarioText, { ...toggles }, { ...params }, seed ?? null, schedule]
          : seed === undefined
            ? [scenarioText, { ...toggles }, { ...params }]
            : [scenarioText, { ...toggles }, { ...params }, seed];
      const { handle, summary } = await client.call('create', args, onProgress);
      return new WorkerSim(client, handle, summary);
    });
  }

  /** Runs in a worker of its own, which is closed when it is done: the search can take long and is stopped by terminating it. */
  async firstDivergence(
    scenarioText: string,
    togglesA: Record<string, ToggleValue>,
    togglesB: Record<string, ToggleValue>,
    params: Record<string, number>,
    options: CreateOptions = {},
  ): Promise<Divergence> {
    return this.inOwnWorker(options, async (client, onProgress) => {
      try {
        return await client.call('firstDivergence', [scenarioText, { ...togglesA }, { ...togglesB }, { ...params }], onProgress);
      } finally {
        client.close(new Error('the divergence search is over'));
      }
    });
  }

  /** Runs in a worker of its own (never a simulation's), closed when the search is over; aborting `signal` terminates it mid-search. */
  async explore(scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, toggle: string | null, budget: number, signal?: AbortSignal): Promise<ExploreReport> {
    return this.inOwnWorker(signal ? { signal } : {}, async (client) => {
      try {
        return await client.call('explore', [scenarioText, { ...toggles }, { ...params }, toggle, budget]);
      } finally {
        client.close(new Error('the exploration is over'));
      }
    });
  }

  /** Takes the spare worker for one long call; aborting `options.signal` terminates it; a failed call closes it (a worker is not reused after a failure). */
  private async inOwnWorker<T>(options: CreateOptions, task: (client: EngineWorkerClient, onProgress: CreateOptions['onProgress']) => Promise<T>): Promise<T> {
    const { signal, onProgress } = options;
    if (signal?.aborted) throw cancelledBy(signal);
    const client = await this.takeWorker();
    if (signal?.aborted) {
      client.close(cancelledBy(signal));
      throw cancelledBy(signal);
    }
    const onAbort = (): void => client.close(cancelledBy(signal as AbortSignal));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await task(client, onProgress);
    } catch (err) {
      client.close(err instanceof Error ? err : new Error(errorMessage(err)));
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Asks the spare worker: reading a summary takes milliseconds and leaves no simulation behind. */
  async describe(scenarioText: string, params: Record<string, number>): Promise<ScenarioSummary> {
    const client = await this.spare;
    return client.call('describe', [scenarioText, {}, { ...params }]);
  }

  /** Asks the spare worker: a plan parses the scenario once per value, milliseconds. */
  async planSweep(scenarioText: string, params: Record<string, number>, request: SweepRequest): Promise<SweepPlanOutcome> {
    const client = await this.spare;
    return client.call('sweepPlan', [scenarioText, { ...params }, { ...request }]);
  }

  /** Asks the spare worker: the arithmetic of a few hundred runs takes milliseconds. */
  async sweepReport(scenarioText: string, params: Record<string, number>, request: SweepRequest, runs: SweepRunValues[]): Promise<SweepReportOutcome> {
    const client = await this.spare;
    return client.call('sweepReport', [scenarioText, { ...params }, { ...request }, runs]);
  }

  openRunPool(size: number): RunPool {
    return new WorkerRunPool(() => warmWorker(this.start), size);
  }

  /** Hands out the spare worker and starts warming the next one. */
  private takeWorker(): Promise<EngineWorkerClient> {
    const taken = this.spare;
    this.spare = warmWorker(this.start);
    // A spare that failed to start reports its error when it is taken, not before.
    this.spare.catch(() => {});
    return taken;
  }
}

/**
 * Counters-only runs on up to `size` workers of their own, started as runs need them and
 * reused: a run waits for a free worker when all are busy. Stopping a run terminates its
 * worker (a wasm call cannot be interrupted); the next run starts a new one.
 */
export class WorkerRunPool implements RunPool {
  private readonly start: () => Promise<EngineWorkerClient>;
  private readonly size: number;
  private readonly idle: EngineWorkerClient[] = [];
  private readonly all = new Set<EngineWorkerClient>();
  /** Workers starting or running, counted against `size`. */
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(start: () => Promise<EngineWorkerClient>, size: number) {
    this.start = start;
    this.size = Math.max(1, Math.trunc(size));
  }

  async run(scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, seed: number | null, signal?: AbortSignal): Promise<RunValues> {
    const client = await this.take(signal);
    let ok = false;
    const onAbort = (): void => client.close(cancelledBy(signal as AbortSignal));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) throw cancelledBy(signal);
      const got = await client.call('sweepRun', [scenarioText, { ...toggles }, { ...params }, seed]);
      ok = true;
      return got;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.give(client, ok);
    }
  }

  close(): void {
    this.closed = true;
    for (const c of this.all) c.close(new Error('the run pool was closed'));
    this.all.clear();
    this.idle.length = 0;
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** A free worker: an idle one, a new one while fewer than `size` are busy, else the next one freed. */
  private async take(signal?: AbortSignal): Promise<EngineWorkerClient> {
    for (;;) {
      if (this.closed) throw new Error('the run pool was closed');
      if (signal?.aborted) throw cancelledBy(signal);
      const ready = this.idle.pop();
      if (ready) {
        this.busy++;
        return ready;
      }
      if (this.busy < this.size) {
        this.busy++;
        try {
          const client = await this.start();
          this.all.add(client);
          if (this.closed) client.close(new Error('the run pool was closed'));
          return client;
        } catch (err) {
          this.busy--;
          this.wakeOne();
          throw err;
        }
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        // A run stopped while it waits leaves the queue, so that a freed worker wakes a run that still wants one.
        const onAbort = (): void => {
          const i = this.waiting.indexOf(wake);
          if (i >= 0) this.waiting.splice(i, 1);
          resolve();
        };
        this.waiting.push(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  /** Gives a worker back after a run: kept when the run succeeded, terminated when it failed or was stopped. */
  private give(client: EngineWorkerClient, ok: boolean): void {
    this.busy--;
    if (ok && !client.closed && !this.closed) {
      this.idle.push(client);
    } else {
      client.close(new Error('the run failed or was stopped'));
      this.all.delete(client);
    }
    this.wakeOne();
  }

  private wakeOne(): void {
    this.waiting.shift()?.();
  }
}

/** Starts a worker and initialises its wasm module. */
async function warmWorker(start: () => WorkerPort): Promise<EngineWorkerClient> {
  const client = new EngineWorkerClient(start());
  try {
    await client.call('init', []);
    return client;
  } catch (err) {
    client.close(err instanceof Error ? err : new Error(errorMessage(err)));
    throw err;
  }
}

/** Starts the first engine worker, reads the registry from it and returns the real engine. */
export async function loadWorkerEngine(start: () => WorkerPort = startEngineWorker): Promise<SimEngine> {
  const client = new EngineWorkerClient(start());
  try {
    const registry = await client.call('init', []);
    return new WorkerEngine(start, registry, client);
  } catch (err) {
    client.close(err instanceof Error ? err : new Error(errorMessage(err)));
    throw err;
  }
}
