// The Explore view's own store (kept apart from the lab's run store): the budget chosen, the
// search running or done, and its report. A search is one engine call that can take minutes;
// it runs in a worker of its own (SimEngine.explore), and Cancel terminates that worker.
import { createStore, type StoreApi } from 'zustand/vanilla';
import { CancelledError, errorMessage, isCancelled, type SimEngine } from '../engine/engine';
import type { ExploreBase, ExploreReport } from './exploreModel';

/** Where the search is. */
export type ExploreStatus =
  | { kind: 'idle' }
  | { kind: 'running'; startedAtMs: number; budget: number }
  | { kind: 'done'; elapsedMs: number; budget: number }
  | { kind: 'cancelled'; elapsedMs: number; budget: number }
  | { kind: 'failed'; message: string };

/** The explore store's state and actions. */
export interface ExploreState {
  /** States per value asked for (null: the scenario's own). */
  budget: number | null;
  status: ExploreStatus;
  /** What the report's search ran on. */
  base: ExploreBase | null;
  report: ExploreReport | null;
  setBudget: (budget: number | null) => void;
  /** Runs a search (superseding a running one); resolves when it has ended however it ended. */
  start: (engine: SimEngine, base: ExploreBase, budget: number) => Promise<void>;
  /** Stops the running search (its worker is terminated); the last report stays. */
  cancel: () => void;
}

/** An explore store (vanilla zustand; React reads it with `useStore`). */
export type ExploreStore = StoreApi<ExploreState>;

/** Creates an explore store; `now` is the clock (milliseconds). */
export function createExploreStore(now: () => number = () => performance.now()): ExploreStore {
  return createStore<ExploreState>()((set, get) => {
    let active: AbortController | null = null;
    return {
      budget: null,
      status: { kind: 'idle' },
      base: null,
      report: null,
      setBudget: (budget) => set({ budget }),
      start: async (engine, base, budget) => {
        active?.abort(new CancelledError('a new search started'));
        const controller = new AbortController();
        active = controller;
        const startedAtMs = now();
        set({ status: { kind: 'running', startedAtMs, budget } });
        try {
          const report = await engine.explore(base.scenarioText, base.toggles, base.params, base.toggle, budget, controller.signal);
          if (active !== controller) return;
          set({ status: { kind: 'done', elapsedMs: now() - startedAtMs, budget }, base, report });
        } catch (err) {
          if (active !== controller) return;
          if (isCancelled(err) || controller.signal.aborted) set({ status: { kind: 'cancelled', elapsedMs: now() - startedAtMs, budget } });
          else set({ status: { kind: 'failed', message: errorMessage(err) } });
        } finally {
          if (active === controller) active = null;
        }
      },
      cancel: () => {
        const running = active;
        if (!running) return;
        running.abort(new CancelledError('cancelled'));
        const status = get().status;
        active = null;
        if (status.kind === 'running') set({ status: { kind: 'cancelled', elapsedMs: now() - status.startedAtMs, budget: status.budget } });
      },
    };
  });
}

/** The lab's explore store. */
export const exploreStore = createExploreStore();
