// One lane's frame fetching: the run a lane shows, the frame at its step, the events around it.
//
// Each lane (A, and B in an A/B comparison) has its own simulation in its own worker, so the
// two fetch their frames in parallel. Seeks are coalesced (LatestOnly): `targetStep` is the
// step asked for last; `step` and `frame` change together when a frame arrives, so the step
// shown always belongs to the frame shown. A frame of a run that was replaced meanwhile is
// dropped.
import { LatestOnly } from '../base/latest';
import { errorMessage, type SimHandle } from '../engine/engine';
import type { Frame, SimEvent } from '../engine/types';
import { clampWindow, DEFAULT_WINDOW_REQUEST, followTouched, sameWindow, toFrameWindow, windowForPfn, windowForPte, type WindowRequest } from './bulkWindow';
import type { AppState, LaneId, RunState } from './types';

/** Runs longer than this do not fetch all their events, only a window of EVENTS_WINDOW around the current step. */
export const MAX_EVENTS_FETCHED = 20_000;

/** Events fetched around the step of a long run: the engine regenerates them (about 150 ms for 8 000), and the worker answers no seek meanwhile. */
export const EVENTS_WINDOW = 8_000;

/** A lane with no run. */
export const EMPTY_RUN: RunState = {
  sim: null,
  summary: null,
  events: [],
  eventsWindow: { from: 0, to: 0 },
  eventsComplete: true,
  series: null,
  frame: null,
  bulkWindow: DEFAULT_WINDOW_REQUEST,
  step: 0,
  targetStep: 0,
  marks: null,
  scheduleProblem: null,
  findings: [],
};

/** The window of events to fetch for a run of `total` steps around `step`: all of them when few enough. */
export function eventsWindowAt(step: number, total: number, size = EVENTS_WINDOW): { from: number; to: number } {
  if (total <= MAX_EVENTS_FETCHED) return { from: 0, to: total };
  const from = Math.max(0, Math.min(total - size, step - Math.floor(size / 2)));
  return { from, to: from + size };
}

/** True when `step` has moved near enough an edge of `window` (not an edge of the run) that a new window should be fetched. */
export function needsNewWindow(step: number, total: number, window: { from: number; to: number }, size = EVENTS_WINDOW): boolean {
  if (total <= MAX_EVENTS_FETCHED) return false;
  const margin = Math.floor(size / 4);
  return (window.from > 0 && step < window.from + margin) || (window.to < total && step >= window.to - margin) || step < window.from || step >= window.to;
}

/** The event whose frame is `step` (the event of step - 1) when the fetched events hold it, else null. */
export function eventBefore(s: { events: readonly SimEvent[]; eventsWindow: { from: number } }, step: number): SimEvent | null {
  const e = s.events[step - 1 - s.eventsWindow.from];
  return e && e.step === step - 1 ? e : null;
}

/** Clamps a step into 0..=total. */
export function clampStep(step: number, total: number): number {
  if (!Number.isFinite(step)) return 0;
  return Math.max(0, Math.min(total, Math.trunc(step)));
}

/**
 * The frame at `step` with window `w`, and the window it has. The window is clamped to the
 * processes' VMAs as the summary lists them, but a step can have fewer PTEs (a process that
 * exited has none left): when the engine refuses the window, the frame comes with the first PTEs.
 */
export async function frameIn(sim: SimHandle, step: number, w: WindowRequest): Promise<{ frame: Frame; window: WindowRequest }> {
  try {
    return { frame: await sim.frameAt(step, toFrameWindow(w)), window: w };
  } catch (err) {
    if (w.pteOffset === 0) throw err;
    const first = { ...w, pteOffset: 0 };
    return { frame: await sim.frameAt(step, toFrameWindow(first)), window: first };
  }
}

type Get = () => AppState;
type Set = (partial: Partial<AppState> | ((s: AppState) => Partial<AppState>)) => void;

/** Replaces fields of one lane's run. */
export function patchRun(set: Set, lane: LaneId, patch: Partial<RunState>): void {
  set((s) => ({ runs: { ...s.runs, [lane]: { ...s.runs[lane], ...patch } } }));
}

/** The frame fetching of one lane (see the top of this file). */
export class LaneFetcher {
  private readonly lane: LaneId;
  private readonly get: Get;
  private readonly set: Set;
  private readonly seeker: LatestOnly<number>;
  private readonly windower: LatestOnly<number>;

  constructor(lane: LaneId, get: Get, set: Set) {
    this.lane = lane;
    this.get = get;
    this.set = set;
    this.seeker = new LatestOnly<number>(
      (step) => this.fetch(step),
      (err) => {
        get().report(`The simulation failed: ${errorMessage(err)}`);
        patchRun(set, lane, { targetStep: this.run().step });
        set({ playing: false });
      },
    );
    this.windower = new LatestOnly<number>(
      async (step) => {
        const { sim, summary } = this.run();
        if (!sim || !summary) return;
        const window = eventsWindowAt(step, summary.totalSteps);
        let events;
        try {
          events = await sim.events(window.from, window.to);
        } catch (err) {
          if (this.run().sim !== sim) return;
          throw err;
        }
        if (this.run().sim === sim) patchRun(set, lane, { events, eventsWindow: window });
      },
      (err) => get().report(`The simulation failed: ${errorMessage(err)}`),
    );
  }

  private run(): RunState {
    return this.get().runs[this.lane];
  }

  /** Forgets requests not yet started (a new run is being installed). */
  clear(): void {
    this.seeker.clear();
    this.windower.clear();
  }

  /** Asks for `step` (clamped to the run); resolves once the latest asked-for frame is shown. */
  seek(step: number): Promise<void> {
    const { sim, summary } = this.run();
    if (!sim || !summary) return Promise.resolve();
    const target = clampStep(step, summary.totalSteps);
    patchRun(this.set, this.lane, { targetStep: target });
    return this.seeker.request(target);
  }

  /** Moves the window (clamped to the run) and asks for the current step's frame with it. */
  moveWindow(w: WindowRequest): Promise<void> {
    const { sim, summary, bulkWindow, targetStep } = this.run();
    if (!sim || !summary) return Promise.resolve();
    const next = clampWindow(summary, w);
    if (sameWindow(next, bulkWindow)) return Promise.resolve();
    patchRun(this.set, this.lane, { bulkWindow: next });
    return this.seeker.request(targetStep);
  }

  /** Moves the window (if needed) so that the frame holds the PTE (pid, vpn); false when no VMA holds it. */
  async showPte(pid: number, vpn: number): Promise<boolean> {
    const { summary, bulkWindow } = this.run();
    const w = summary ? windowForPte(summary, bulkWindow, pid, vpn) : null;
    if (!w) return false;
    await this.moveWindow(w);
    return true;
  }

  /** Moves the window (if needed) so that the frame holds frame `pfn`; false when the machine has no such frame. */
  async showPfn(pfn: number): Promise<boolean> {
    const { summary, bulkWindow } = this.run();
    const w = summary ? windowForPfn(summary, bulkWindow, pfn) : null;
    if (!w) return false;
    await this.moveWindow(w);
    return true;
  }

  /** After a run is installed with `frame`: follows what its step touched, and fetches the events around it when needed. */
  installed(frame: Frame): void {
    this.refollow(frame);
  }

  // A step that touches a PTE or frame outside the window moves it first (when its event is
  // known) or asks again right after (when it is not); a frame for a window that was replaced
  // meanwhile is dropped (the new window's request follows).
  private async fetch(wanted: number): Promise<void> {
    const { sim, summary } = this.run();
    if (!sim || !summary) return;
    const step = clampStep(wanted, summary.totalSteps);
    // Only a new step follows what it touched: paging at the same step keeps the window paged to.
    const moved = this.run().frame?.step !== step;
    if (moved) {
      const known = eventBefore(this.run(), step);
      if (known) {
        const follow = followTouched(summary, this.run().bulkWindow, known.touched);
        if (!sameWindow(follow, this.run().bulkWindow)) patchRun(this.set, this.lane, { bulkWindow: follow });
      }
    }
    const asked = this.run().bulkWindow;
    let got: { frame: Frame; window: WindowRequest };
    try {
      got = await frameIn(sim, step, asked);
    } catch (err) {
      // A simulation replaced meanwhile was freed, which fails its pending calls: nothing to report.
      if (this.run().sim !== sim) return;
      throw err;
    }
    // A frame of a simulation that was replaced meanwhile is dropped, and so is one for an older window.
    if (this.run().sim !== sim || !sameWindow(this.run().bulkWindow, asked)) return;
    const { frame } = got;
    patchRun(this.set, this.lane, { frame, bulkWindow: got.window, step: frame.step });
    if (this.lane === 'a') this.set({ comparison: null });
    const r = this.run();
    if (needsNewWindow(frame.step, summary.totalSteps, r.eventsWindow)) void this.windower.request(frame.step);
    // The event was not known before the frame came: follow it now, unless another step was asked for meanwhile.
    if (moved) this.refollow(frame);
  }

  /** Asks for `frame`'s step again when it touched a PTE or frame outside its window (and no other step is asked for). */
  private refollow(frame: Frame): void {
    const r = this.run();
    if (!r.summary || r.targetStep !== frame.step) return;
    const follow = followTouched(r.summary, r.bulkWindow, frame.event?.touched);
    if (sameWindow(follow, r.bulkWindow)) return;
    patchRun(this.set, this.lane, { bulkWindow: follow });
    void this.seeker.request(frame.step);
  }
}
