// The app store: one zustand store made of three slices.
import { createStore, type StoreApi } from 'zustand/vanilla';
import { fnv1a32Hex } from '../base/hash';
import type { ShareState } from '../share/url';
import { createPlaybackSlice } from './playbackSlice';
import { createSimSlice } from './simSlice';
import type { AppState } from './types';
import { createUiSlice } from './uiSlice';

/** A store instance (vanilla API, usable outside React and in tests). */
export type AppStore = StoreApi<AppState>;

/** Creates a fresh app store. */
export function createAppStore(): AppStore {
  return createStore<AppState>()((...a) => ({
    ...createSimSlice(...a),
    ...createPlaybackSlice(...a),
    ...createUiSlice(...a),
  }));
}

/** The shareable subset of the state (what the URL holds), or null before a scenario is loaded. */
export function selectShareState(s: AppState): ShareState | null {
  if (!s.scenario || !s.summary) return null;
  return {
    scenario: {
      ...(s.scenario.kind === 'builtin' ? { kind: 'builtin', id: s.scenario.id, hash: fnv1a32Hex(s.scenarioText) } : { kind: 'custom', text: s.scenario.text }),
      ...(s.scenario.seed === undefined ? {} : { seed: s.scenario.seed }),
    },
    toggles: s.toggleOverrides,
    params: s.paramOverrides,
    step: s.step,
    selection: s.selection,
  };
}
