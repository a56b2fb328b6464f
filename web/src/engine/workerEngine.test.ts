// The engine protocol end to end without a browser: the UI-side client and
// engine (workerEngine.ts) talk through fake ports to the real worker-side host
// (workerHost.ts), which drives a small fake wasm module.
import { describe, expect, it } from 'vitest';
import { bulkFromViews } from './bulk';
import { normalizeFrame } from './normalize';
import { CancelledError, isCancelled } from './engine';
import { parseCallMessage, parseWorkerMessage, type CallMessage, type ErrorMessage, type Progress, type WorkerMessage } from './protocol';
import type { RawSimulation, RawWasmModule } from './raw';
import { buildSimulation, createWorkerHost, nextSliceSteps } from './workerHost';
import { EngineWorkerClient, loadWorkerEngine, WorkerRunPool, type WorkerPort } from './workerEngine';

const SCENARIO = 'steps = 10';

/** A stand-in for the wasm module: "steps = N" scenarios whose frames carry Map counters, as serde may produce. */
/** The seeds `Simulation.load` was given, in order (undefined: the scenario's own). */
const loadSeeds: (number | undefined)[] = [];

function fakeRawModule(): RawWasmModule {
  class Simulation implements RawSimulation {
    static load(text: string, toggles: Record<string, boolean | string>, params: Record<string, number>, seed?: number): Simulation {
      loadSeeds.push(seed);
      return new Simulation(text, toggles, params);
    }
    private cur = 0;
    private prepared = 0;
    private readonly total: number;
    constructor(text: string, toggles: Record<string, boolean | string>, params: Record<string, number>) {
      const m = /^steps = (\d+)$/.exec(text);
      if (!m) throw new Error(`scenario line 1: expected "steps = N", not ${JSON.stringify(text)}`);
      if (Object.keys(toggles).some((t) => t !== 'numa_delay_map')) throw new Error('unknown toggle');
      this.total = params.steps ?? Number(m[1]);
    }
    summary(): unknown {
      return new Map<string, unknown>([
        ['id', 'fake'],
        ['totalSteps', this.total],
        ['params', []],
      ]);
    }
    step(n: number): number {
      this.cur = Math.min(this.total, this.cur + n);
      return this.cur;
    }
    seek(step: number): void {
      if (step > this.total) throw new Error(`step ${step} is beyond the end of this scenario (${this.total} steps)`);
      this.cur = step;
    }
    currentStep(): number {
      return this.cur;
    }
    frame(): unknown {
      return { step: this.cur, event: null, counters: new Map([['pgfault', BigInt(this.cur)]]), mmCpumask: {}, bulk: bulkFromViews([], [], []) };
    }
    events(from: number, to: number): unknown {
      return Array.from({ length: Math.max(0, Math.min(to, this.total) - from) }, (_, i) => ({ step: from + i, counterDeltas: new Map([['pgfault', 1]]) }));
    }
    counters(): unknown {
      return { pgfault: this.cur };
    }
    series(): unknown {
      const steps = [0, Math.floor(this.total / 2), this.total];
      return { steps, timeNs: steps.map((s) => s * 100), counters: new Map([['pgfault', steps.map((s) => BigInt(s))]]) };
    }
    prepare(budget: number): number {
      this.prepared = Math.min(this.total, this.prepared + budget);
      return this.prepared;
    }
    isPrepared(): boolean {
      return this.prepared === this.total;
    }
    causeChain(step: number): unknown {
      return Array.from({ length: step + 1 }, (_, i) => ({ step: step - i, counterDeltas: {} }));
    }
    free(): void {}
  }
  return {
    default: async () => undefined,
    Simulation,
    patches: () => [{ id: 'numa_delay_map' }],
    builtinScenarios: () => [{ id: 'fake', title: 'Fake', text: SCENARIO }],
    sweepPlan: (text, params, request) =>
      (request as { toggle: string }).toggle === 'nope'
        ? { problem: { field: 'toggle', message: 'unknown toggle `nope`' } }
        : { plan: { scenario: text, params, columns: new Map([['0', 'pgfault']]) } },
    sweepRun: (_text, toggles, params, seed) => ({ values: new Map([['pgfault', BigInt((params.steps ?? 10) + (toggles.numa_delay_map ? 1 : 0))]]), steps: seed ?? -1, warnings: [] }),
    sweepReport: (_text, _params, _request, runs) => ({ report: { runs_done: (runs as unknown[]).length }, table: 'a table' }),
    mechanisms: () => [
      {
        id: 'core',
        title: 'Core',
        toggles: [],
        counters: [{ name: 'pgfault', doc: 'Page faults', kernel: true }],
        events: [{ name: 'fault', doc: 'A fault', category: 'fault' }],
        ops: [],
        views: [{ id: 'core', title: 'Core', plots: ['pgfault'] }],
      },
    ],
  };
}

/** A worker port wired to a real host in the same thread; messages cross asynchronously, as with postMessage. */
class LoopbackPort implements WorkerPort {
  terminated = false;
  /** While set, replies to `create` wait here (a recording that takes long). */
  holdCreates = false;
  private readonly held: (() => void)[] = [];
  private onMessage: (data: unknown) => void = () => {};
  private readonly host: (data: unknown) => Promise<void>;

  constructor(load: () => Promise<RawWasmModule>) {
    const creates = new Set<number>();
    this.host = createWorkerHost(load, (message: WorkerMessage) => {
      const deliver = (): void => {
        if (!this.terminated) this.onMessage(structuredClone(message));
      };
      if (this.holdCreates && creates.has(message.id) && message.type !== 'progress') this.held.push(deliver);
      else setTimeout(deliver, 0);
    });
    this.trackCreates = (call) => {
      if (call.method === 'create') creates.add(call.id);
    };
  }
  private readonly trackCreates: (call: CallMessage) => void;

  post(message: CallMessage): void {
    if (this.terminated) throw new Error('posted to a terminated worker');
    this.trackCreates(message);
    const data = structuredClone(message);
    setTimeout(() => void this.host(data), 0);
  }
  listen(onMessage: (data: unknown) => void): void {
    this.onMessage = onMessage;
  }
  terminate(): void {
    this.terminated = true;
  }
  /** Lets held create replies through. */
  release(): void {
    for (const deliver of this.held.splice(0)) setTimeout(deliver, 0);
  }
}

function portFactory(load: () => Promise<RawWasmModule> = async () => fakeRawModule()) {
  const ports: LoopbackPort[] = [];
  const start = (): LoopbackPort => {
    const port = new LoopbackPort(load);
    ports.push(port);
    return port;
  };
  return { ports, start };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('worker engine over the protocol', () => {
  it('reads the registry, creates, seeks and normalises what crosses', async () => {
    const { ports, start } = portFactory();
    const engine = await loadWorkerEngine(start);
    expect(engine.kind).toBe('wasm');
    expect(engine.builtinScenarios().map((s) => s.id)).toEqual(['fake']);
    expect(engine.patches().map((p) => p.id)).toEqual(['numa_delay_map']);
    expect(engine.mechanisms().map((m) => [m.id, m.counters.map((c) => c.name), m.events.map((e) => e.category)])).toEqual([['core', ['pgfault'], ['fault']]]);
    const sim = await engine.create(SCENARIO, {}, { steps: 7 });
    expect(sim.summary()).toEqual({ id: 'fake', totalSteps: 7, params: [] });
    const frame = await sim.frameAt(4);
    expect(frame.step).toBe(4);
    expect(frame.counters).toEqual({ pgfault: 4 });
    expect(await sim.currentStep()).toBe(4);
    expect(await sim.step(10)).toBe(7);
    expect(await sim.counters()).toEqual({ pgfault: 7 });
    expect((await sim.events(5, 9)).map((e) => [e.step, e.counterDeltas])).toEqual([
      [5, { pgfault: 1 }],
      [6, { pgfault: 1 }],
    ]);
    expect(await sim.series()).toEqual({ steps: [0, 3, 7], timeNs: [0, 300, 700], counters: { pgfault: [0, 3, 7] } });
    // The first worker ran the simulation; a second one is warm for the next run.
    expect(ports).toHaveLength(2);
    sim.free();
    expect(ports[0]?.terminated).toBe(true);
    await expect(sim.frame()).rejects.toThrow('simulation used after free()');
  });

  it("rejects with real Errors carrying the engine's message", async () => {
    const { ports, start } = portFactory();
    const engine = await loadWorkerEngine(start);
    const err = await engine.create('bogus', {}, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('scenario line 1: expected "steps = N", not "bogus"');
    // A worker whose recording failed is not reused.
    expect(ports[0]?.terminated).toBe(true);
    const sim = await engine.create(SCENARIO, {}, {});
    await expect(sim.seek(11)).rejects.toThrow('step 11 is beyond the end of this scenario (10 steps)');
    expect((await sim.frameAt(10)).step).toBe(10);
  });

  it('describes a scenario on the spare worker without creating a simulation or a worker', async () => {
    const { ports, start } = portFactory();
    const engine = await loadWorkerEngine(start);
    expect(await engine.describe(SCENARIO, { steps: 4 })).toEqual({ id: 'fake', totalSteps: 4, params: [] });
    await expect(engine.describe('nonsense', {})).rejects.toThrow('scenario line 1');
    expect(ports).toHaveLength(1);
    const sim = await engine.create(SCENARIO, {}, {});
    expect(sim.summary().totalSteps).toBe(10);
    expect(await sim.causeChain(2)).toEqual([
      { step: 2, counterDeltas: {} },
      { step: 1, counterDeltas: {} },
      { step: 0, counterDeltas: {} },
    ]);
  });

  it('reports a wasm package that will not load', async () => {
    const { start } = portFactory(async () => {
      throw new Error('The simulation engine (WebAssembly) is not built. Run `npm run build:wasm`, then rebuild the site.');
    });
    await expect(loadWorkerEngine(start)).rejects.toThrow('The simulation engine (WebAssembly) is not built.');
  });

  it("cancelling a recording terminates only its worker; the simulation on screen keeps answering", async () => {
    const { ports, start } = portFactory();
    const engine = await loadWorkerEngine(start);
    const shown = await engine.create(SCENARIO, {}, {});
    await tick();
    const loadingPort = ports[1] as LoopbackPort;
    loadingPort.holdCreates = true;
    const controller = new AbortController();
    const loading = engine.create(SCENARIO, {}, { steps: 500 }, { signal: controller.signal }).catch((e: unknown) => e);
    await tick();
    expect((await shown.frameAt(3)).step).toBe(3);
    controller.abort(new CancelledError('cancelled loading fake'));
    const err = await loading;
    expect(isCancelled(err)).toBe(true);
    expect((err as Error).message).toBe('cancelled loading fake');
    expect(loadingPort.terminated).toBe(true);
    // A late reply from the terminated worker changes nothing.
    loadingPort.release();
    await tick();
    expect((await shown.frameAt(5)).step).toBe(5);
    // A fresh worker was started (re-initialising wasm) and takes the next run.
    const next = await engine.create(SCENARIO, {}, { steps: 3 });
    expect(next.summary().totalSteps).toBe(3);
    expect(ports.filter((p) => !p.terminated).length).toBeGreaterThanOrEqual(2);
  });

  it('an already aborted signal rejects before any work', async () => {
    const { start } = portFactory();
    const engine = await loadWorkerEngine(start);
    const controller = new AbortController();
    controller.abort();
    await expect(engine.create(SCENARIO, {}, {}, { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('seeds and sweeps over the protocol', () => {
  it("a run at a link's seed reaches Simulation.load; without one the call is as before", async () => {
    const { start } = portFactory();
    const engine = await loadWorkerEngine(start);
    loadSeeds.length = 0;
    await engine.create(SCENARIO, {}, {});
    await engine.create(SCENARIO, {}, {}, { seed: 3 });
    expect(loadSeeds).toEqual([undefined, 3]);
  });

  it('plans and reports a sweep on the spare worker, normalising what crosses', async () => {
    const { ports, start } = portFactory();
    const engine = await loadWorkerEngine(start);
    const request = { toggle: 'numa_delay_map', vary: null, values: '', seeds: null, columns: null, maxRuns: 200 };
    expect(await engine.planSweep(SCENARIO, { steps: 2 }, request)).toEqual({ plan: { scenario: SCENARIO, params: { steps: 2 }, columns: { 0: 'pgfault' } } });
    expect(await engine.planSweep(SCENARIO, {}, { ...request, toggle: 'nope' })).toEqual({ problem: { field: 'toggle', message: 'unknown toggle `nope`' } });
    expect(await engine.sweepReport(SCENARIO, {}, request, [{ value: null, seed: 1, toggleValue: true, values: {} }])).toEqual({ report: { runs_done: 1 }, table: 'a table' });
    expect(ports).toHaveLength(1);
  });

  it('a run pool runs counters-only runs on workers of its own, at the seed given', async () => {
    const { ports, start } = portFactory();
    const engine = await loadWorkerEngine(start);
    const pool = engine.openRunPool(2);
    const got = await Promise.all([1, 2, 3].map((seed) => pool.run(SCENARIO, { numa_delay_map: seed === 2 }, { steps: 4 }, seed)));
    expect(got).toEqual([
      { values: { pgfault: 4 }, steps: 1, warnings: [] },
      { values: { pgfault: 5 }, steps: 2, warnings: [] },
      { values: { pgfault: 4 }, steps: 3, warnings: [] },
    ]);
    // The registry's worker (the spare) and the pool's two.
    expect(ports).toHaveLength(3);
    pool.close();
    expect(ports.slice(1).every((p) => p.terminated)).toBe(true);
    expect(ports[0]?.terminated).toBe(false);
    await expect(pool.run(SCENARIO, {}, {}, null)).rejects.toThrow('the run pool was closed');
  });
});

/** A client over a scripted port that has answered its init. */
function scriptedClient(): { port: ScriptedPort; client: EngineWorkerClient } {
  const port = new ScriptedPort();
  return { port, client: new EngineWorkerClient(port) };
}

/** Answers the last call posted to `port` with `result`. */
function reply(port: ScriptedPort, result: unknown): void {
  const call = port.posted.at(-1);
  if (!call) throw new Error('nothing was posted');
  port.onMessage({ type: 'reply', id: call.id, result });
}

describe('run pool', () => {
  it('runs at most `size` at once, reuses a free worker, and a stopped run terminates only its own', async () => {
    const started: ScriptedPort[] = [];
    const pool = new WorkerRunPool(async () => {
      const { port, client } = scriptedClient();
      started.push(port);
      return client;
    }, 2);
    const stop = new AbortController();
    const runs = [
      pool.run('a', {}, {}, 1),
      pool.run('b', {}, {}, 2, stop.signal).catch((e: unknown) => e),
      pool.run('c', {}, {}, 3),
      pool.run('d', {}, {}, 4),
    ];
    await tick();
    expect(started).toHaveLength(2);
    expect(started.map((p) => p.posted.map((c) => c.method))).toEqual([['sweepRun'], ['sweepRun']]);
    // The first run ends: its worker takes the third.
    reply(started[0]!, { values: { x: 1 }, steps: 10, warnings: [] });
    await tick();
    expect(started).toHaveLength(2);
    expect(started[0]?.posted.at(-1)?.args).toEqual(['c', {}, {}, 3]);
    // The second is stopped mid-way: its worker is terminated and a new one takes the fourth.
    stop.abort(new CancelledError('cancelled the sweep'));
    expect(isCancelled(await runs[1])).toBe(true);
    expect(started[1]?.terminated).toBe(true);
    await tick();
    expect(started).toHaveLength(3);
    expect(started[2]?.posted.at(-1)?.args).toEqual(['d', {}, {}, 4]);
    reply(started[0]!, { values: {}, steps: 3, warnings: [] });
    reply(started[2]!, { values: {}, steps: 4, warnings: [] });
    expect((await runs[0]) as unknown).toEqual({ values: { x: 1 }, steps: 10, warnings: [] });
    expect(((await runs[2]) as { steps: number }).steps).toBe(3);
    expect(((await runs[3]) as { steps: number }).steps).toBe(4);
    pool.close();
    expect(started.every((p) => p.terminated)).toBe(true);
  });

  it('a run waiting for a worker and then stopped leaves the queue', async () => {
    const started: ScriptedPort[] = [];
    const pool = new WorkerRunPool(async () => {
      const { port, client } = scriptedClient();
      started.push(port);
      return client;
    }, 1);
    const stop = new AbortController();
    const first = pool.run('a', {}, {}, 1);
    const waiting = pool.run('b', {}, {}, 2, stop.signal).catch((e: unknown) => e);
    const third = pool.run('c', {}, {}, 3);
    await tick();
    stop.abort(new CancelledError('stopped'));
    expect(isCancelled(await waiting)).toBe(true);
    reply(started[0]!, { values: {}, steps: 1, warnings: [] });
    await first;
    await tick();
    // The freed worker went to the third run, not to the stopped one.
    expect(started[0]?.posted.at(-1)?.args).toEqual(['c', {}, {}, 3]);
    reply(started[0]!, { values: {}, steps: 3, warnings: [] });
    expect((await third).steps).toBe(3);
    pool.close();
  });
});

/** A port whose worker side is scripted by the test. */
class ScriptedPort implements WorkerPort {
  readonly posted: CallMessage[] = [];
  terminated = false;
  onMessage: (data: unknown) => void = () => {};
  onFailure: (message: string) => void = () => {};
  post(message: CallMessage): void {
    this.posted.push(message);
  }
  listen(onMessage: (data: unknown) => void, onFailure: (message: string) => void): void {
    this.onMessage = onMessage;
    this.onFailure = onFailure;
  }
  terminate(): void {
    this.terminated = true;
  }
}

describe('engine worker client', () => {
  it('matches replies by id, passes progress to its call and ignores stray messages', async () => {
    const port = new ScriptedPort();
    const client = new EngineWorkerClient(port);
    const progress: Progress[] = [];
    const created = client.call('create', [SCENARIO, {}, {}], (p) => progress.push(p));
    const stepped = client.call('step', [1, 2]);
    const [create, step] = port.posted;
    expect(create).toEqual({ type: 'call', id: 1, method: 'create', args: [SCENARIO, {}, {}] });
    expect(step?.id).toBe(2);
    port.onMessage({ type: 'progress', id: 1, done: 100, total: 400 });
    port.onMessage({ type: 'progress', id: 1, done: 'lots', total: 400 });
    port.onMessage({ type: 'reply', id: 99, result: 'nobody asked' });
    port.onMessage('garbage');
    port.onMessage({ type: 'reply', id: 2, result: 3 });
    port.onMessage({ type: 'progress', id: 1, done: 400, total: 400 });
    port.onMessage({ type: 'reply', id: 1, result: { handle: 1, summary: { totalSteps: 400 } } });
    port.onMessage({ type: 'progress', id: 1, done: 500, total: 400 });
    expect(await stepped).toBe(3);
    expect(await created).toEqual({ handle: 1, summary: { totalSteps: 400 } });
    expect(progress).toEqual([
      { done: 100, total: 400 },
      { done: 400, total: 400 },
    ]);
  });

  it('a crashed worker rejects every pending and later call', async () => {
    const port = new ScriptedPort();
    const client = new EngineWorkerClient(port);
    const pending = client.call('frame', [1]);
    port.onFailure('Uncaught RuntimeError: unreachable');
    await expect(pending).rejects.toThrow('The engine worker failed: Uncaught RuntimeError: unreachable');
    await expect(client.call('frame', [1])).rejects.toThrow('The engine worker failed');
    expect(port.terminated).toBe(true);
    expect(client.closed).toBe(true);
  });
});

describe('worker host', () => {
  it('answers malformed calls with an error and keeps the order of calls', async () => {
    const posted: WorkerMessage[] = [];
    const answer = createWorkerHost(async () => fakeRawModule(), (m) => posted.push(m));
    void answer({ type: 'call', id: 1, method: 'seek', args: [1, 0] });
    void answer({ type: 'call', id: 2, method: 'init', args: [] });
    void answer({ type: 'call', id: 3, method: 'create', args: [SCENARIO, {}, {}] });
    void answer({ type: 'call', id: 4, method: 'frameAt', args: [1, 2] });
    void answer({ type: 'call', id: 5, method: 'rm -rf', args: [] });
    void answer({ type: 'call', id: 6, method: 'frame', args: 'no' });
    void answer({ type: 'call', id: 7, method: 'free', args: [1] });
    await answer({ type: 'call', id: 8, method: 'frame', args: [1] });
    expect(posted.map((m) => [m.id, m.type])).toEqual([
      [1, 'error'],
      [2, 'reply'],
      [3, 'progress'],
      [3, 'reply'],
      [4, 'reply'],
      [5, 'error'],
      [6, 'error'],
      [7, 'reply'],
      [8, 'error'],
    ]);
    const text = (id: number) => posted.find((m): m is ErrorMessage => m.id === id && m.type === 'error')?.message;
    expect(text(1)).toBe('the engine worker was used before init');
    expect(text(5)).toBe('unknown engine method "rm -rf"');
    expect(text(6)).toBe('the arguments of frame are not a list');
    expect(text(8)).toBe('there is no simulation 1 in this worker (it was freed)');
  });
});

describe('frames across the worker boundary', () => {
  it("transfers a frame's bulk buffers instead of copying them, and refuses a frame without them", async () => {
    const posted: [WorkerMessage, ArrayBuffer[] | undefined][] = [];
    const answer = createWorkerHost(async () => fakeRawModule(), (m, transfer) => posted.push([m, transfer]));
    await answer({ type: 'call', id: 1, method: 'init', args: [] });
    await answer({ type: 'call', id: 2, method: 'create', args: [SCENARIO, {}, {}] });
    await answer({ type: 'call', id: 3, method: 'frameAt', args: [1, 2] });
    await answer({ type: 'call', id: 4, method: 'counters', args: [1] });
    const [frameReply, transfer] = posted.find(([m]) => m.id === 3) ?? [];
    expect(frameReply?.type).toBe('reply');
    const bulk = (frameReply as { result: { bulk: Record<string, ArrayBufferView> } }).result.bulk;
    expect(transfer).toEqual([bulk.tlbCpuStart?.buffer]); // the fake's only non-empty array
    expect(posted.find(([m]) => m.id === 4)?.[1]).toBeUndefined();
    expect(() => normalizeFrame({ step: 1, counters: {}, mmCpumask: {} })).toThrow('without its bulk arrays');
  });
});

describe('protocol parsing', () => {
  it('accepts only well-formed messages', () => {
    expect(parseWorkerMessage({ type: 'error', id: 3, message: '' })).toEqual({ type: 'error', id: 3, message: 'the engine failed without a message' });
    expect(parseWorkerMessage({ type: 'reply', id: -1, result: 1 })).toBeNull();
    expect(parseWorkerMessage({ type: 'progress', id: 1, done: 1, total: Number.NaN })).toBeNull();
    expect(parseWorkerMessage(null)).toBeNull();
    expect(parseCallMessage({ type: 'call', id: 1.5, method: 'init', args: [] })).toBeNull();
    expect(parseCallMessage({ type: 'call', id: 1, method: 'init', args: [] })).toEqual({ type: 'call', id: 1, method: 'init', args: [] });
  });
});

describe('preparing in slices', () => {
  it('reports the steps prepared after each slice, the total only at the end', async () => {
    const reports: [number, number | null][] = [];
    let clock = 0;
    const sim = await buildSimulation(fakeRawModule(), 'steps = 10000', {}, {}, (done, total) => reports.push([done, total]), {
      firstSliceSteps: 1000,
      targetSliceMs: 40,
      // Every slice "takes" 10 ms, so the next one doubles.
      nowMs: () => (clock += 5),
    });
    expect(sim.isPrepared()).toBe(true);
    expect(reports).toEqual([
      [1000, null],
      [3000, null],
      [7000, null],
      [10000, 10000],
    ]);
  });

  it('sizes slices towards the target time, at most doubling or halving', () => {
    expect(nextSliceSteps(100_000, 20, 40)).toBe(200_000);
    expect(nextSliceSteps(100_000, 400, 40)).toBe(50_000);
    expect(nextSliceSteps(100_000, 50, 40)).toBe(80_000);
    expect(nextSliceSteps(100_000, 0, 40)).toBe(200_000);
    expect(nextSliceSteps(1_000, 1_000, 40)).toBe(1_000);
  });

  it('frees the simulation when a slice fails', async () => {
    const mod = fakeRawModule();
    let freed = false;
    const failing = {
      ...mod,
      Simulation: Object.assign(mod.Simulation, {
        load: () => ({
          prepare: () => {
            throw new Error('the run could not finish: too many steps');
          },
          isPrepared: () => false,
          free: () => {
            freed = true;
          },
        }),
      }),
    } as unknown as RawWasmModule;
    await expect(buildSimulation(failing, SCENARIO, {}, {}, () => {})).rejects.toThrow('too many steps');
    expect(freed).toBe(true);
  });
});
