// Playback slice: playing flag, speed, and the tick that advances the cursor.
import type { StateCreator } from 'zustand';
import { positionOf } from '../base/abAxis';
import { waitingQuestionAt } from './lectureSlice';
import type { AppState, PlaybackSlice } from './types';

/** Speeds offered in the UI, in steps per second. */
export const SPEEDS = [0.5, 1, 2, 4, 8, 16, 32] as const;

/** The cursor's first and last positions: the run's (A's steps alone; the A/B axis in a comparison), narrowed to an embed's steps. */
export function cursorBounds(s: AppState): { first: number; last: number } {
  const a = s.runs.a;
  const end = s.ab ? s.ab.axis.length - 1 : (a.summary?.totalSteps ?? 0);
  const r = s.range;
  if (!r) return { first: 0, last: end };
  const at = (step: number): number => (s.ab ? positionOf(s.ab.axis, 'a', step) : step);
  const first = Math.min(end, at(r.from));
  return { first, last: Math.max(first, Math.min(end, at(r.to))) };
}

/** The cursor as the transport sees it: shown and asked-for position and its bounds (A's steps alone; the A/B axis in a comparison). */
export function cursorOf(s: AppState): { position: number; target: number; first: number; last: number; ready: boolean } {
  const a = s.runs.a;
  const { first, last } = cursorBounds(s);
  if (s.ab) return { position: s.ab.position, target: s.ab.target, first, last, ready: a.summary !== null };
  return { position: a.step, target: a.targetStep, first, last, ready: a.summary !== null };
}

/** Creates the playback slice. */
export const createPlaybackSlice: StateCreator<AppState, [], [], PlaybackSlice> = (set, get) => ({
  playing: false,
  speed: 2,
  play: () => {
    const s = get();
    const c = cursorOf(s);
    if (!c.ready) return;
    if (c.target >= c.last) void s.seek(c.first);
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
    // Playing stops at the end, and at a question asked at the next step (predict, then reveal).
    if (cursorOf(get()).target >= c.last || (!s.ab && waitingQuestionAt(s, c.position + 1))) set({ playing: false });
  },
});
