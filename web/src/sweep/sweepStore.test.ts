import { describe, expect, it } from 'vitest';
import { cancelledBy, type RunPool, type SimEngine } from '../engine/engine';
import { createFixtureEngine } from '../engine/fixtureEngine';
import type { RunValues, SweepPlan, SweepPlanOutcome, SweepReportOutcome, SweepRequest, SweepRunValues, ToggleValue } from '../engine/types';
import { EMPTY_FORM, type SweepBase } from './sweepModel';
import { createSweepStore } from './sweepStore';

const plan: SweepPlan = {
  scenario: 's',
  scenarioSeed: 7,
  toggle: 'numa_delay_map',
  toggleValues: [false, true],
  vary: { name: 'pages', values: [2, 4] },
  seeds: [1, 2],
  columns: ['ctxt'],
};

const base: SweepBase = { scenario: { kind: 'builtin', id: 's', hash: null }, scenarioText: 'text', label: 's', toggles: {}, params: { other: 1 } };

interface PendingRun {
  toggles: Record<string, ToggleValue>;
  params: Record<string, number>;
  seed: number | null;
  signal: AbortSignal | undefined;
  resolve: (v: RunValues) => void;
  reject: (e: Error) => void;
}

/** An engine whose runs the test ends by hand; it records the plans, reports and pools asked for. */
function scriptedEngine(planOutcome: SweepPlanOutcome = { plan }) {
  const pending: PendingRun[] = [];
  const reports: { request: SweepRequest; runs: SweepRunValues[] }[] = [];
  const pools: { size: number; closed: boolean }[] = [];
  const engine: SimEngine = {
    ...createFixtureEngine(),
    planSweep: async () => planOutcome,
    sweepReport: async (_text, _params, request, runs): Promise<SweepReportOutcome> => {
      reports.push({ request, runs });
      return {
        report: { scenario: 's', toggle: 'numa_delay_map', toggle_values: ['off', 'on'], vary: plan.vary, seeds: plan.seeds, columns: request.columns ?? plan.columns, results: [], summary: [], absolute: [], runs_planned: 8, runs_done: runs.length },
        table: `table of ${runs.length}`,
      };
    },
    openRunPool: (size): RunPool => {
      const pool = { size, closed: false };
      pools.push(pool);
      return {
        run: (_text, toggles, params, seed, signal) =>
          new Promise<RunValues>((resolve, reject) => {
            pending.push({ toggles, params, seed, signal, resolve, reject });
            signal?.addEventListener('abort', () => reject(cancelledBy(signal)), { once: true });
          }),
        close: () => {
          pool.closed = true;
        },
      };
    },
  };
  return { engine, pending, reports, pools };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Ends the pending run at `i` with `ctxt` as its number. */
function finish(p: PendingRun | undefined, ctxt: number): void {
  p?.resolve({ values: { ctxt }, steps: 100, warnings: [] });
}

describe('sweep store', () => {
  it('runs every run of the plan on a pool sized to the machine and reports as runs finish', async () => {
    const store = createSweepStore({ ...EMPTY_FORM, toggle: 'numa_delay_map', vary: 'pages', values: '2, 4', seeds: '2' });
    const { engine, pending, reports, pools } = scriptedEngine();
    const done = store.getState().start(engine, base, 2);
    await tick();
    expect(pools).toEqual([{ size: 2, closed: false }]);
    // The pool throttles: the store hands it all 8 runs, with the lab's params plus the value, at each seed.
    expect(pending.map((p) => [p.params, p.seed, p.toggles])).toEqual([
      [{ other: 1, pages: 2 }, 1, { numa_delay_map: false }],
      [{ other: 1, pages: 2 }, 1, { numa_delay_map: true }],
      [{ other: 1, pages: 2 }, 2, { numa_delay_map: false }],
      [{ other: 1, pages: 2 }, 2, { numa_delay_map: true }],
      [{ other: 1, pages: 4 }, 1, { numa_delay_map: false }],
      [{ other: 1, pages: 4 }, 1, { numa_delay_map: true }],
      [{ other: 1, pages: 4 }, 2, { numa_delay_map: false }],
      [{ other: 1, pages: 4 }, 2, { numa_delay_map: true }],
    ]);
    expect(store.getState().status).toMatchObject({ kind: 'running', done: 0, total: 8, workers: 2 });
    finish(pending[1], 5);
    await tick();
    expect(store.getState().status).toMatchObject({ kind: 'running', done: 1 });
    expect(store.getState().report?.runs_done).toBe(1);
    expect(reports.at(-1)?.runs).toEqual([{ value: 2, seed: 1, toggleValue: true, values: { ctxt: 5 } }]);
    pending.forEach((p, i) => finish(p, i));
    await done;
    expect(store.getState().status).toMatchObject({ kind: 'done', total: 8, workers: 2 });
    expect(store.getState().runs).toHaveLength(8);
    expect(store.getState().table).toBe('table of 8');
    expect(pools[0]?.closed).toBe(true);
  });

  it('Cancel stops the runs under way and keeps what was done', async () => {
    const store = createSweepStore({ ...EMPTY_FORM, toggle: 'numa_delay_map', vary: 'pages', values: '2, 4', seeds: '2' });
    const { engine, pending, pools } = scriptedEngine();
    const done = store.getState().start(engine, base, 2);
    await tick();
    finish(pending[0], 10);
    finish(pending[1], 20);
    await tick();
    store.getState().cancel();
    expect(store.getState().status).toEqual({ kind: 'cancelled', done: 2, total: 8 });
    await done;
    expect(pending.slice(2).every((p) => p.signal?.aborted)).toBe(true);
    expect(pools[0]?.closed).toBe(true);
    expect(store.getState().status).toEqual({ kind: 'cancelled', done: 2, total: 8 });
    expect(store.getState().report?.runs_done).toBe(2);
  });

  it('a failing run stops the sweep and names the run', async () => {
    const store = createSweepStore({ ...EMPTY_FORM, toggle: 'numa_delay_map', vary: 'pages', values: '2, 4', seeds: '2' });
    const { engine, pending } = scriptedEngine();
    const done = store.getState().start(engine, base, 2);
    await tick();
    pending[5]?.reject(new Error('the run failed'));
    await done;
    expect(store.getState().status).toEqual({ kind: 'failed', message: 'A run of the sweep failed: pages=4, numa_delay_map on, seed 1: the run failed' });
    expect(pending.filter((p) => p !== pending[5]).every((p) => p.signal?.aborted)).toBe(true);
  });

  it("the engine's problem is shown beside its field, nothing typed is lost, and editing the field clears it", async () => {
    const form = { ...EMPTY_FORM, toggle: 'numa_delay_map', vary: 'pages', values: '2, 999', seeds: '' };
    const store = createSweepStore(form);
    const { engine, pools } = scriptedEngine({ problem: { field: 'values', message: '999 is outside the range of `pages`, 1 to 64' } });
    await store.getState().start(engine, base, 2);
    expect(store.getState().problem).toEqual({ field: 'values', message: '999 is outside the range of `pages`, 1 to 64' });
    expect(store.getState().form).toEqual(form);
    expect(store.getState().status).toEqual({ kind: 'idle' });
    expect(pools).toEqual([]);
    store.getState().setForm({ seeds: '2' });
    expect(store.getState().problem).not.toBeNull();
    store.getState().setForm({ values: '2, 9' });
    expect(store.getState().problem).toBeNull();
    // A seed count that is not a number never reaches the engine.
    store.getState().setForm({ seeds: 'x' });
    await store.getState().start(engine, base, 2);
    expect(store.getState().problem?.field).toBe('seeds');
  });

  it('other counters come from the same runs: the report again, no run again', async () => {
    const store = createSweepStore({ ...EMPTY_FORM, toggle: 'numa_delay_map', vary: 'pages', values: '2, 4', seeds: '2' });
    const { engine, pending, reports } = scriptedEngine();
    const done = store.getState().start(engine, base, 2);
    await tick();
    pending.forEach((p, i) => finish(p, i));
    await done;
    const runsAsked = pending.length;
    await store.getState().setColumns(['ctxt', 'pgfault']);
    expect(pending).toHaveLength(runsAsked);
    expect(reports.at(-1)?.request.columns).toEqual(['ctxt', 'pgfault']);
    expect(store.getState().report?.columns).toEqual(['ctxt', 'pgfault']);
    expect(store.getState().form.columns).toEqual(['ctxt', 'pgfault']);
  });
});
