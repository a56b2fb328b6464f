// Chooses and loads the engine for the app: always wasm (in workers), except the
// fixture engine (runs recorded from the real engine, fixtureEngine.ts) in dev mode when
// asked for with `?engine=fake` (never in a production build).
import type { SimEngine } from './engine';
import { loadWorkerEngine } from './workerEngine';

// One engine per page: it holds no scenario state, only the registry and a warm
// spare worker, so a store made by Reset (or React's double effects in
// development) reuses it instead of starting more workers.
let shared: Promise<SimEngine> | null = null;

/** Loads the engine the app should use (once per page; a failed load is retried on the next call). */
export function loadAppEngine(): Promise<SimEngine> {
  shared ??= chooseEngine().catch((err: unknown) => {
    shared = null;
    throw err;
  });
  return shared;
}

async function chooseEngine(): Promise<SimEngine> {
  const query = new URLSearchParams(window.location.search);
  if (import.meta.env.DEV && query.get('engine') === 'fake') {
    const { createFixtureEngine } = await import('./fixtureEngine');
    // `&delay=<ms>` makes every run take that long, to try the loading indicator and Cancel.
    const delay = Number(query.get('delay') ?? 0);
    return createFixtureEngine({ createDelayMs: Number.isFinite(delay) && delay > 0 ? delay : 0, progressReports: 10 });
  }
  return loadWorkerEngine();
}
