// Playback slice: playing flag, speed, and the tick that advances the cursor.
import type { StateCreator } from 'zustand';
import type { AppState, PlaybackSlice } from './types';

/** Speeds offered in the UI, in steps per second. */
export const SPEEDS = [0.5, 1, 2, 4, 8, 16, 32] as const;

/** The cursor as the transport sees it: shown and asked-for position and the last one (A's steps alone; the A/B axis in a comparison). */
export function cursorOf(s: AppState): { position: number; target: number; last: number; ready: boolean } {
  const a = s.runs.a;
  if (s.ab) return { position: s.ab.position, target: s.ab.target, last: s.ab.axis.length - 1, ready: a.summary !== null };
  return { position: a.step, target: a.targetStep, last: a.summary?.totalSteps ?? 0, ready: a.summary !== null };
}

/** Creates the playback slice. */
export const createPlaybackSlice: StateCreator<AppState, [], [], PlaybackSlice> = (set, get) => ({
  playing: false,
  speed: 2,
  play: () => {
    const s = get();
    const c = cursorOf(s);
    if (!c.ready) return;
    if (c.target >= c.last) void s.seek(0);
    set({ playing: true });
  },
  pause: () => set({ playing: false }),
  togglePlay: () => (get().playing ? get().pause() : get().play()),
  setSpeed: (speed) => set({ speed: Number.isFinite(speed) && speed > 0 ? speed : 2 }),
  tick: () => {
    const s = get();
    const c = cursorOf(s);
    if (!s.playing || !c.ready) return;
    // Wait for the frame(s) asked for last: playback slows down rather than skips steps.
    if (c.position !== c.target) return;
    if (c.position >= c.last) {
      set({ playing: false });
      return;
    }
    void s.stepBy(1);
    if (cursorOf(get()).target >= c.last) set({ playing: false });
  },
});
