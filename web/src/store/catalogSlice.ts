// Catalogue slice: the engine and what it offers (patches, scenarios, mechanisms, kernels),
// read once when the engine is attached.
import type { StateCreator } from 'zustand';
import { errorMessage } from '../engine/engine';
import type { AppState, CatalogSlice } from './types';

/** Creates the catalogue slice. */
export const createCatalogSlice: StateCreator<AppState, [], [], CatalogSlice> = (set, get) => ({
  engine: null,
  patches: [],
  scenarios: [],
  mechanisms: [],
  kernelVersions: [],
  kernels: [],
  attachEngine: (engine) => {
    try {
      set({
        engine,
        patches: engine.patches(),
        scenarios: engine.builtinScenarios(),
        mechanisms: engine.mechanisms(),
        kernelVersions: engine.kernelVersions(),
        kernels: engine.kernels(),
      });
    } catch (err) {
      set({ engine });
      get().report(`The simulation engine failed to start: ${errorMessage(err)}`);
    }
  },
});
