// Chooses and loads the engine for the app: always wasm, except the fake in
// dev mode when asked for with `?engine=fake` (never in a production build).
import type { SimEngine } from './engine';
import { loadWasmEngine } from './wasmEngine';

/** Loads the engine the app should use. */
export async function loadAppEngine(): Promise<SimEngine> {
  if (import.meta.env.DEV && new URLSearchParams(window.location.search).get('engine') === 'fake') {
    const { createFakeEngine } = await import('./fakeEngine');
    return createFakeEngine();
  }
  return loadWasmEngine();
}
