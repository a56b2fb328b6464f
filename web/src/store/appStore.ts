// The app store: one zustand store made of four slices.
import { createStore, type StoreApi } from 'zustand/vanilla';
import { fnv1a32Hex } from '../base/hash';
import type { ShareState } from '../share/url';
import { createCatalogSlice } from './catalogSlice';
import { createLectureSlice } from './lectureSlice';
import { createPlaybackSlice } from './playbackSlice';
import { createSimSlice } from './simSlice';
import type { AppState } from './types';
import { createUiSlice } from './uiSlice';

/** A store instance (vanilla API, usable outside React and in tests). */
export type AppStore = StoreApi<AppState>;

/** Creates a fresh app store. */
export function createAppStore(): AppStore {
  return createStore<AppState>()((...a) => ({
    ...createCatalogSlice(...a),
    ...createSimSlice(...a),
    ...createPlaybackSlice(...a),
    ...createUiSlice(...a),
    ...createLectureSlice(...a),
  }));
}

/** The shareable subset of the state (what the URL holds), or null before a scenario is loaded. */
export function selectShareState(s: AppState): ShareState | null {
  const a = s.runs.a;
  if (!s.scenario || !a.summary) return null;
  const share: ShareState = {
    scenario: {
      ...(s.scenario.kind === 'builtin' ? { kind: 'builtin', id: s.scenario.id, hash: fnv1a32Hex(s.scenarioText) } : { kind: 'custom', text: s.scenario.text }),
      ...(s.scenario.seed === undefined ? {} : { seed: s.scenario.seed }),
      ...(s.scenario.schedule ? { schedule: s.scenario.schedule } : {}),
    },
    toggles: s.toggleOverrides,
    params: s.paramOverrides,
    step: a.step,
    selection: s.selection,
  };
  if (s.ab) {
    share.ab = s.ab.choice;
    share.bStep = s.runs.b.step;
  }
  if (s.plots.counters !== null || s.plots.rate) share.plots = s.plots;
  if (s.mode === 'lecture') share.lecture = s.lectureIntro ? 'intro' : 'on';
  if (s.mode === 'embed') {
    share.embed = true;
    if (s.range) share.range = s.range;
  }
  return share;
}
