// The sweep's own store (kept apart from the lab's run store): the form as typed, the
// running sweep and what it has done. A sweep runs on a snapshot of the lab's scenario,
// toggles and params (a SweepBase); each of its runs is a counters-only run on a pool of
// workers sized to the machine; the report (the engine's arithmetic) is asked for again
// as runs finish, so the charts fill in while it runs and a cancelled sweep keeps what it
// did.
import { z } from 'zod';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { LatestOnly } from '../base/latest';
import { CancelledError, errorMessage, isCancelled, type SimEngine } from '../engine/engine';
import type { SweepPlan, SweepProblem, SweepReport, SweepRequest } from '../engine/types';
import { EMPTY_FORM, jobLabel, poolSize, requestOf, sweepJobs, type ChartMode, type SweepBase, type SweepForm, type SweepRunRecord } from './sweepModel';

/** Where the sweep is. */
export type SweepStatus =
  | { kind: 'idle' }
  | { kind: 'planning' }
  | { kind: 'running'; startedAtMs: number; done: number; total: number; workers: number }
  | { kind: 'done'; elapsedMs: number; total: number; workers: number }
  | { kind: 'cancelled'; done: number; total: number }
  | { kind: 'failed'; message: string };

/** The sweep last started: what it ran on, what it asked and the engine's plan. */
export interface SweepRun {
  base: SweepBase;
  request: SweepRequest;
  plan: SweepPlan;
}

/** The sweep store's state and actions. */
export interface SweepState {
  form: SweepForm;
  /** What is wrong with the form (from the engine's checks), shown beside its field. */
  problem: SweepProblem | null;
  status: SweepStatus;
  sweep: SweepRun | null;
  /** The runs done so far, in the order they finished. */
  runs: SweepRunRecord[];
  report: SweepReport | null;
  /** The report as `mmviz sweep` prints it (at most 72 columns). */
  table: string;
  /** The runs' warnings, each with the run it is from. */
  warnings: string[];
  mode: ChartMode;
  setForm: (patch: Partial<SweepForm>) => void;
  setMode: (mode: ChartMode) => void;
  /** Checks the form with the engine and runs the sweep; resolves when it has ended however it ended. */
  start: (engine: SimEngine, base: SweepBase, cores?: number) => Promise<void>;
  /** Stops the running sweep (runs under way are stopped at once); what was done stays. */
  cancel: () => void;
  /** Shows other counters (null: the scenario's [[expect]] ones): the report again from the same runs, none run again. */
  setColumns: (columns: string[] | null) => Promise<void>;
}

/** The sessionStorage key of the form (nothing typed is lost on a reload). */
export const SWEEP_FORM_KEY = 'mmviz.sweepForm';

const formSchema = z.object({
  toggle: z.string().max(64),
  vary: z.string().max(64),
  values: z.string().max(2000),
  seeds: z.string().max(20),
  columns: z.array(z.string().max(64)).max(200).nullable(),
});

/** The form kept in this tab's session, or the empty form when there is none or it is not one. */
export function storedForm(): SweepForm {
  try {
    const text = globalThis.sessionStorage?.getItem(SWEEP_FORM_KEY);
    if (!text) return EMPTY_FORM;
    const parsed = formSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : EMPTY_FORM;
  } catch {
    return EMPTY_FORM;
  }
}

function storeForm(form: SweepForm): void {
  try {
    globalThis.sessionStorage?.setItem(SWEEP_FORM_KEY, JSON.stringify(form));
  } catch {
    // Storage full or off: the store still holds the form for this page.
  }
}

/** A sweep store (vanilla zustand; React reads it with `useSweep`). */
export type SweepStore = StoreApi<SweepState>;

/** Creates a sweep store. */
export function createSweepStore(initialForm: SweepForm = storedForm()): SweepStore {
  return createStore<SweepState>()((set, get) => {
    // The sweep running now: a newer start or Cancel supersedes it.
    let generation = 0;
    let active: { id: number; controller: AbortController } | null = null;
    // The engine of the latest sweep, for its reports.
    let reportEngine: SimEngine | null = null;

    /** Asks the engine for the report of the runs done (the latest state only). */
    const reporter = new LatestOnly<number>(
      async (id) => {
        const { sweep, runs } = get();
        if (!sweep || id !== generation) return;
        if (!reportEngine) return;
        const got = await reportEngine.sweepReport(
          sweep.base.scenarioText,
          sweep.base.params,
          sweep.request,
          runs.map((r) => ({ value: r.value, seed: r.seed, toggleValue: r.toggleValue, values: r.values })),
        );
        if (id !== generation || get().runs.length !== runs.length) return;
        if ('problem' in got) set({ problem: got.problem });
        else set({ report: got.report, table: got.table });
      },
      (err) => set({ status: { kind: 'failed', message: `The sweep's report failed: ${errorMessage(err)}` } }),
    );

    const start = async (engine: SimEngine, base: SweepBase, cores?: number): Promise<void> => {
      active?.controller.abort(new CancelledError('superseded by a new sweep'));
      const id = ++generation;
      const controller = new AbortController();
      active = { id, controller };
      reportEngine = engine;
      set({ problem: null, status: { kind: 'planning' } });
      const asked = requestOf(get().form);
      if ('problem' in asked) {
        set({ problem: asked.problem, status: { kind: 'idle' } });
        return;
      }
      let plan: SweepPlan;
      try {
        const outcome = await engine.planSweep(base.scenarioText, base.params, asked.request);
        if (id !== generation) return;
        if ('problem' in outcome) {
          set({ problem: outcome.problem, status: { kind: 'idle' } });
          return;
        }
        plan = outcome.plan;
      } catch (err) {
        if (id === generation) set({ status: { kind: 'failed', message: `The sweep could not be checked: ${errorMessage(err)}` } });
        return;
      }
      const jobs = sweepJobs(plan, base);
      const workers = poolSize(cores ?? globalThis.navigator?.hardwareConcurrency, jobs.length);
      const pool = engine.openRunPool(workers);
      const startedAtMs = Date.now();
      set({
        sweep: { base, request: asked.request, plan },
        runs: [],
        report: null,
        table: '',
        warnings: [],
        status: { kind: 'running', startedAtMs, done: 0, total: jobs.length, workers },
      });
      try {
        await Promise.all(
          jobs.map(async (job) => {
            let got;
            try {
              got = await pool.run(base.scenarioText, job.toggles, job.params, job.seed, controller.signal);
            } catch (err) {
              if (isCancelled(err) || controller.signal.aborted) throw err;
              throw new Error(`${jobLabel(plan, job)}: ${errorMessage(err)}`, { cause: err });
            }
            if (id !== generation) return;
            const record: SweepRunRecord = { value: job.value, seed: job.seed, toggleValue: job.toggleValue, values: got.values, steps: got.steps, warnings: got.warnings };
            set((s) => ({
              runs: [...s.runs, record],
              warnings: [...s.warnings, ...got.warnings.map((w) => `${jobLabel(plan, job)}: ${w}`)],
              status: s.status.kind === 'running' ? { ...s.status, done: s.status.done + 1 } : s.status,
            }));
            void reporter.request(id);
          }),
        );
        if (id === generation) set({ status: { kind: 'done', elapsedMs: Date.now() - startedAtMs, total: jobs.length, workers } });
      } catch (err) {
        if (id === generation && !isCancelled(err) && !controller.signal.aborted) {
          // One run failed: the others stop too (their numbers would make a report with a hole).
          controller.abort(new CancelledError('another run of the sweep failed'));
          set({ status: { kind: 'failed', message: `A run of the sweep failed: ${errorMessage(err)}` } });
        }
      } finally {
        pool.close();
        if (active?.id === id) active = null;
      }
      await reporter.request(id);
    };

    return {
      form: initialForm,
      problem: null,
      status: { kind: 'idle' },
      sweep: null,
      runs: [],
      report: null,
      table: '',
      warnings: [],
      mode: 'change',
      setForm: (patch) => {
        const form = { ...get().form, ...patch };
        storeForm(form);
        // Editing a field clears the problem shown beside it.
        const problem = get().problem;
        const touched = Object.keys(patch);
        const clears = problem && (touched.includes(problem.field) || (problem.field === 'runs' && (touched.includes('values') || touched.includes('seeds'))));
        set({ form, problem: clears ? null : problem });
      },
      setMode: (mode) => set({ mode }),
      start,
      cancel: () => {
        const current = active;
        const s = get().status;
        if (!current || s.kind !== 'running') return;
        active = null;
        current.controller.abort(new CancelledError('cancelled the sweep'));
        set({ status: { kind: 'cancelled', done: s.done, total: s.total } });
      },
      setColumns: async (columns) => {
        get().setForm({ columns });
        const { sweep } = get();
        if (!sweep) return;
        set({ sweep: { ...sweep, request: { ...sweep.request, columns } } });
        await reporter.request(generation);
      },
    };
  });
}

/** The page's sweep store (one per page, like the engine). */
export const sweepStore: SweepStore = createSweepStore();
