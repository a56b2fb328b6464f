// Playback slice: playing flag, speed, and the tick that advances the run.
import type { StateCreator } from 'zustand';
import type { AppState, PlaybackSlice } from './types';

/** Speeds offered in the UI, in steps per second. */
export const SPEEDS = [0.5, 1, 2, 4, 8, 16, 32] as const;

/** Creates the playback slice. */
export const createPlaybackSlice: StateCreator<AppState, [], [], PlaybackSlice> = (set, get) => ({
  playing: false,
  speed: 2,
  play: () => {
    const s = get();
    if (!s.summary) return;
    if (s.targetStep >= s.summary.totalSteps) void s.seek(0);
    set({ playing: true });
  },
  pause: () => set({ playing: false }),
  togglePlay: () => (get().playing ? get().pause() : get().play()),
  setSpeed: (speed) => set({ speed: Number.isFinite(speed) && speed > 0 ? speed : 2 }),
  tick: () => {
    const s = get();
    if (!s.playing || !s.summary) return;
    // Wait for the frame asked for last: playback slows down rather than skips steps.
    if (s.step !== s.targetStep) return;
    if (s.step >= s.summary.totalSteps) {
      set({ playing: false });
      return;
    }
    void s.stepBy(1);
    if (get().targetStep >= s.summary.totalSteps) set({ playing: false });
  },
});
