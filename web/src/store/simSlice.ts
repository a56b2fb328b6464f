// Simulation slice: owns the SimHandle, the loaded scenario and the current frame.
//
// Every engine call is asynchronous (the engine runs in workers). Two rules keep
// what is on screen consistent:
// - Loads (open a scenario; rebuild it for a toggle or a param) are numbered.
//   Starting a load supersedes the running one (its engine work is aborted), and
//   a load installs its simulation only while it is still the latest; anything
//   it built after being superseded is freed unseen. The scenario on screen stays
//   usable until a load replaces it.
// - Seeks are coalesced (LatestOnly): `targetStep` is the step asked for last;
//   `step` and `frame` change together when a frame arrives, so the step number
//   shown always belongs to the frame shown.
import type { StateCreator } from 'zustand';
import { fnv1a32Hex } from '../base/hash';
import { LatestOnly } from '../base/latest';
import { CancelledError, cancelledBy, errorMessage, isCancelled, type SimHandle } from '../engine/engine';
import type { Progress } from '../engine/protocol';
import type { Frame, PatchInfo, ScenarioSummary, SimEvent, ToggleValue } from '../engine/types';
import { urlToState, type ScenarioRef } from '../share/url';
import { clampWindow, DEFAULT_WINDOW_REQUEST, followTouched, sameWindow, toFrameWindow, windowForPfn, windowForPte, type WindowRequest } from './bulkWindow';
import type { AppState, OpenRequest, SimSlice } from './types';

/** The scenario opened when nothing else is asked for. */
export const DEFAULT_SCENARIO_ID = 'numa-hint-fault-101';

/** Runs longer than this do not fetch all their events, only a window of EVENTS_WINDOW around the current step. */
export const MAX_EVENTS_FETCHED = 20_000;

/** Events fetched around the step of a long run: the engine regenerates them (about 150 ms for 8 000), and the worker answers no seek meanwhile. */
export const EVENTS_WINDOW = 8_000;

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

/** Index of the chapter containing `step` (the last chapter starting at or before it), or -1. */
export function chapterIndexAt(chapters: readonly { step: number }[], step: number): number {
  let index = -1;
  chapters.forEach((c, i) => {
    if (c.step <= step) index = i;
  });
  return index;
}

/** Step to go to for "previous/next chapter" from `step`, or null when there is none. */
export function chapterTarget(chapters: readonly { step: number }[], step: number, direction: 1 | -1): number | null {
  const starts = [...new Set(chapters.map((c) => c.step))].sort((a, b) => a - b);
  if (direction > 0) return starts.find((s) => s > step) ?? null;
  const before = starts.filter((s) => s < step);
  return before.length > 0 ? (before[before.length - 1] as number) : null;
}

/** Describes a toggle value for messages ("on", "off" or the enum label). */
export function toggleValueLabel(patch: PatchInfo | undefined, value: ToggleValue): string {
  if (patch) {
    const i = patch.values.findIndex((v) => v === value);
    const label = patch.valueLabels[i];
    if (label) return label;
  }
  return value === true ? 'on' : value === false ? 'off' : String(value);
}

/** Keeps only toggle overrides the registry knows with a value of the right type; returns problems too. */
export function checkToggles(patches: readonly PatchInfo[], toggles: Record<string, ToggleValue>): { toggles: Record<string, ToggleValue>; problems: string[] } {
  const out: Record<string, ToggleValue> = {};
  const problems: string[] = [];
  for (const [id, value] of Object.entries(toggles)) {
    const patch = patches.find((p) => p.id === id);
    if (!patch) {
      problems.push(`unknown toggle "${id}" was ignored`);
    } else if (!patch.values.some((v) => v === value)) {
      problems.push(`toggle "${id}" cannot be ${JSON.stringify(value)} (it takes ${patch.valueLabels.join(', ')}); it was ignored`);
    } else {
      out[id] = value;
    }
  }
  return { toggles: out, problems };
}

/** Keeps only param overrides the scenario declares and within min..max; returns problems too. */
export function checkParams(summary: ScenarioSummary, params: Record<string, number>): { params: Record<string, number>; problems: string[] } {
  const out: Record<string, number> = {};
  const problems: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    const info = summary.params.find((p) => p.name === name);
    if (!info) problems.push(`unknown param "${name}" was ignored`);
    else if (!Number.isInteger(value)) problems.push(`param "${name}" = ${value} is not a whole number; it was ignored`);
    else if (!(value >= info.min && value <= info.max)) problems.push(`param "${name}" = ${value} is outside ${info.min}–${info.max}; it was ignored`);
    else if (value !== info.default) out[name] = value;
  }
  return { params: out, problems };
}

/** How a load ended: its simulation is on screen, it failed (and said why), or a newer load or Cancel stopped it. */
type LoadOutcome = 'shown' | 'failed' | 'cancelled';

/** What a running load's steps need: its abort signal, a progress sink, and a check that it is still the latest. */
interface LoadContext {
  signal: AbortSignal;
  onProgress: (progress: Progress) => void;
  /** Sets the step count the bar expects (from an earlier run of the same scenario), or null. */
  expect: (total: number | null) => void;
  /** Throws CancelledError once the load was superseded or cancelled. */
  live: () => void;
}

interface Built {
  sim: SimHandle;
  summary: ScenarioSummary;
  /** Summary of the same scenario and params without toggle overrides. */
  baseline: ScenarioSummary;
}

/** "name=value, name=value" for a label, or "" without params. */
function paramsLabel(params: Record<string, number>): string {
  return Object.entries(params)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

/** Creates the simulation slice. */
export const createSimSlice: StateCreator<AppState, [], [], SimSlice> = (set, get) => {
  // Baseline summaries (no toggle overrides), per scenario text and params, to
  // know the scenario's own toggle values. Params do not change toggle defaults,
  // but the params are kept so that the param limits of a link's scenario can be checked.
  const baselines = new Map<string, ScenarioSummary>();
  const baselineKey = (text: string, params: Record<string, number>): string => `${JSON.stringify(Object.entries(params).sort())}\n${text}`;
  const rememberBaseline = (text: string, params: Record<string, number>, summary: ScenarioSummary): void => {
    if (baselines.size > 32) baselines.clear();
    baselines.set(baselineKey(text, params), summary);
  };
  // Steps of each run prepared in this session, to estimate the next preparation of the same run.
  const totals = new Map<string, number>();
  const runKey = (text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, seed?: number): string =>
    `${seed ?? ''}\n${JSON.stringify(Object.entries(toggles).sort())}\n${baselineKey(text, params)}`;

  // The running load. `generation` only grows; a load is current while its id equals it.
  let generation = 0;
  let active: { id: number; controller: AbortController; label: string; opensDefault: boolean } | null = null;

  /** Runs `task` as the new current load, superseding the running one; see the rules above. */
  const runLoad = async (label: string, opensDefault: boolean, task: (ctx: LoadContext) => Promise<LoadOutcome>): Promise<LoadOutcome> => {
    active?.controller.abort(new CancelledError(`superseded by loading ${label}`));
    const id = ++generation;
    const controller = new AbortController();
    active = { id, controller, label, opensDefault };
    set({ loading: { id, label, startedAtMs: Date.now(), progress: null, expectedTotal: null } });
    const ctx: LoadContext = {
      signal: controller.signal,
      onProgress: (progress) => {
        if (id !== generation) return;
        set((s) => (s.loading?.id === id ? { loading: { ...s.loading, progress } } : {}));
      },
      expect: (total) => {
        if (id !== generation) return;
        set((s) => (s.loading?.id === id ? { loading: { ...s.loading, progress: null, expectedTotal: total } } : {}));
      },
      live: () => {
        if (id !== generation || controller.signal.aborted) throw cancelledBy(controller.signal);
      },
    };
    try {
      return await task(ctx);
    } catch (err) {
      if (isCancelled(err) || id !== generation) return 'cancelled';
      get().report(`The simulation failed: ${errorMessage(err)}`);
      return 'failed';
    } finally {
      if (id === generation) {
        active = null;
        set({ loading: null });
      }
    }
  };

  /** Creates a simulation for the current load; frees it at once if the load was superseded meanwhile. */
  const createFor = async (ctx: LoadContext, text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, seed?: number): Promise<SimHandle> => {
    const { engine } = get();
    if (!engine) throw new Error('the simulation engine is not loaded');
    const key = runKey(text, toggles, params, seed);
    ctx.expect(totals.get(key) ?? null);
    const sim = await engine.create(text, toggles, params, { signal: ctx.signal, onProgress: ctx.onProgress, ...(seed === undefined ? {} : { seed }) });
    if (totals.size > 64) totals.clear();
    totals.set(key, sim.summary().totalSteps);
    try {
      ctx.live();
    } catch (err) {
      sim.free();
      throw err;
    }
    return sim;
  };

  /** The scenario's own toggle values and params, read without preparing a run. */
  const baselineFor = async (ctx: LoadContext, text: string, params: Record<string, number>): Promise<ScenarioSummary> => {
    const cached = baselines.get(baselineKey(text, params));
    if (cached) return cached;
    const { engine } = get();
    if (!engine) throw new Error('the simulation engine is not loaded');
    const summary = await engine.describe(text, params);
    ctx.live();
    rememberBaseline(text, params, summary);
    return summary;
  };

  /** Prepares the run (at `seed` when given) and, when toggles are overridden, reads the baseline summary too. */
  const build = async (ctx: LoadContext, text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, seed?: number): Promise<Built> => {
    const sim = await createFor(ctx, text, toggles, params, seed);
    try {
      let baseline = sim.summary();
      // Without overrides the run is its own baseline.
      if (Object.keys(toggles).length === 0) rememberBaseline(text, params, baseline);
      else baseline = await baselineFor(ctx, text, params);
      return { sim, summary: sim.summary(), baseline };
    } catch (err) {
      sim.free();
      throw err;
    }
  };

  const textOf = (ref: ScenarioRef): string | null => {
    if (ref.kind === 'custom') return ref.text;
    return get().scenarios.find((s) => s.id === ref.id)?.text ?? null;
  };

  // Seeks: one frame request in flight at a time, for the latest step asked for, with the window
  // asked for last (bulkWindow.ts). A step that touches a PTE or frame outside the window moves
  // it first (when its event is known) or asks again right after (when it is not); a frame for a
  // window that was replaced meanwhile is dropped (the new window's request follows).
  const seeker = new LatestOnly<number>(
    async (wanted) => {
      const { sim, summary } = get();
      if (!sim || !summary) return;
      const step = clampStep(wanted, summary.totalSteps);
      // Only a new step follows what it touched: paging at the same step keeps the window paged to.
      const moved = get().frame?.step !== step;
      if (moved) {
        const known = eventBefore(get(), step);
        if (known) {
          const follow = followTouched(summary, get().bulkWindow, known.touched);
          if (!sameWindow(follow, get().bulkWindow)) set({ bulkWindow: follow });
        }
      }
      const asked = get().bulkWindow;
      let got: { frame: Frame; window: WindowRequest };
      try {
        got = await frameIn(sim, step, asked);
      } catch (err) {
        // A simulation replaced meanwhile was freed, which fails its pending calls: nothing to report.
        if (get().sim !== sim) return;
        throw err;
      }
      // A frame of a simulation that was replaced meanwhile is dropped, and so is one for an older window.
      if (get().sim !== sim || !sameWindow(get().bulkWindow, asked)) return;
      const { frame } = got;
      set({ frame, bulkWindow: got.window, step: frame.step, comparison: null });
      const s = get();
      if (needsNewWindow(frame.step, summary.totalSteps, s.eventsWindow)) void windower.request(frame.step);
      // The event was not known before the frame came: follow it now, unless another step was asked for meanwhile.
      if (moved) refollow(frame);
    },
    (err) => {
      get().report(`The simulation failed: ${errorMessage(err)}`);
      set((s) => ({ playing: false, targetStep: s.step }));
    },
  );

  /**
   * The frame at `step` with window `w`, and the window it has. The window is clamped to the
   * processes' VMAs as the summary lists them, but a step can have fewer PTEs (a process that
   * exited has none left): when the engine refuses the window, the frame comes with the first PTEs.
   */
  const frameIn = async (sim: SimHandle, step: number, w: WindowRequest): Promise<{ frame: Frame; window: WindowRequest }> => {
    try {
      return { frame: await sim.frameAt(step, toFrameWindow(w)), window: w };
    } catch (err) {
      if (w.pteOffset === 0) throw err;
      const first = { ...w, pteOffset: 0 };
      return { frame: await sim.frameAt(step, toFrameWindow(first)), window: first };
    }
  };

  /** Asks for `frame`'s step again when it touched a PTE or frame outside its window (and no other step is asked for). */
  const refollow = (frame: Frame): void => {
    const s = get();
    if (!s.summary || s.targetStep !== frame.step) return;
    const follow = followTouched(s.summary, s.bulkWindow, frame.event?.touched);
    if (sameWindow(follow, s.bulkWindow)) return;
    set({ bulkWindow: follow });
    void seeker.request(frame.step);
  };

  /** Moves the window (clamped to the run) and asks for the current step's frame with it. */
  const moveWindow = (w: WindowRequest): Promise<void> => {
    const { sim, summary, bulkWindow, targetStep } = get();
    if (!sim || !summary) return Promise.resolve();
    const next = clampWindow(summary, w);
    if (sameWindow(next, bulkWindow)) return Promise.resolve();
    set({ bulkWindow: next });
    return seeker.request(targetStep);
  };

  // Long runs: the events window follows the step shown, one fetch at a time.
  const windower = new LatestOnly<number>(
    async (step) => {
      const { sim, summary } = get();
      if (!sim || !summary) return;
      const window = eventsWindowAt(step, summary.totalSteps);
      let events;
      try {
        events = await sim.events(window.from, window.to);
      } catch (err) {
        if (get().sim !== sim) return;
        throw err;
      }
      if (get().sim === sim) set({ events, eventsWindow: window });
    },
    (err) => get().report(`The simulation failed: ${errorMessage(err)}`),
  );

  /** Fetches the first frame (and the events) of a built run and puts it on screen; frees it on any failure. */
  const install = async (
    ctx: LoadContext,
    ref: ScenarioRef,
    text: string,
    built: Built,
    toggles: Record<string, ToggleValue>,
    params: Record<string, number>,
    step: number,
    reportClamp: boolean,
    wantedWindow: WindowRequest,
  ): Promise<void> => {
    try {
      const total = built.summary.totalSteps;
      if (reportClamp && step > total) {
        get().report(`step ${step} is beyond the end of this scenario (${total} steps); showing the last step`);
      }
      const { frame, window: bulkWindow } = await frameIn(built.sim, clampStep(step, total), clampWindow(built.summary, wantedWindow));
      ctx.live();
      const eventsWindow = eventsWindowAt(frame.step, total);
      const eventsComplete = total <= MAX_EVENTS_FETCHED;
      // The series is read once per run: the engine recorded it while preparing, so it is
      // cheap and never changes. Asked for with the events, in one round trip to the worker.
      const [events, series] = await Promise.all([built.sim.events(eventsWindow.from, eventsWindow.to), built.sim.series()]);
      ctx.live();
      // Overrides that equal the baseline are not overrides.
      const toggleOverrides: Record<string, ToggleValue> = {};
      for (const [id, v] of Object.entries(toggles)) if (built.baseline.toggles[id] !== v) toggleOverrides[id] = v;
      const paramOverrides: Record<string, number> = {};
      for (const [name, v] of Object.entries(params)) {
        const info = built.baseline.params.find((p) => p.name === name);
        if (!info || info.default !== v) paramOverrides[name] = v;
      }
      const old = get().sim;
      seeker.clear();
      windower.clear();
      set({
        sim: built.sim,
        scenario: ref,
        scenarioText: text,
        baselineToggles: built.baseline.toggles,
        toggleOverrides,
        paramOverrides,
        summary: built.summary,
        events,
        eventsWindow,
        eventsComplete,
        series,
        frame,
        bulkWindow,
        step: frame.step,
        targetStep: frame.step,
      });
      if (old && old !== built.sim) old.free();
      // What the engine says about the whole run (threads stopped for want of memory).
      for (const w of built.summary.warnings) get().report(`In this run, ${w}.`, 'warning');
      refollow(frame);
    } catch (err) {
      built.sim.free();
      throw err;
    }
  };

  /** Rebuilds the scenario on screen with other toggles or params, at the step asked for last. */
  const rebuild = (label: string, reason: string, toggles: Record<string, ToggleValue>, params: Record<string, number>): Promise<LoadOutcome> => {
    const s = get();
    const ref = s.scenario;
    if (!ref || !s.summary) return Promise.resolve('failed');
    const text = s.scenarioText;
    return runLoad(label, false, async (ctx) => {
      let built: Built;
      try {
        built = await build(ctx, text, toggles, params, ref.seed);
      } catch (err) {
        if (isCancelled(err)) throw err;
        get().report(`The scenario could not be loaded: ${errorMessage(err)}`);
        return 'failed';
      }
      // Read now, not when the rebuild started: the old run stays steppable meanwhile.
      const before = get();
      const old = before.frame && before.step === before.targetStep ? { step: before.step, counters: before.frame.counters } : null;
      // The same scenario: keep the window paged to (clamped: params may have made it smaller).
      await install(ctx, ref, text, built, toggles, params, before.targetStep, false, before.bulkWindow);
      set({ comparison: old ? { reason, step: get().step, fromStep: old.step, counters: old.counters } : null });
      return 'shown';
    });
  };

  /** Name of a scenario for labels and messages. */
  const scenarioName = (ref: ScenarioRef): string => (ref.kind === 'builtin' ? ref.id : 'the custom scenario');

  const openRequest = (req: OpenRequest, opensDefault = false): Promise<LoadOutcome> => {
    const p = paramsLabel(req.params);
    const label = p ? `${scenarioName(req.scenario)} (${p})` : scenarioName(req.scenario);
    get().pause();
    return runLoad(label, opensDefault, async (ctx) => {
      const { patches, report } = get();
      const text = textOf(req.scenario);
      if (text === null) {
        report(`There is no built-in scenario "${req.scenario.kind === 'builtin' ? req.scenario.id : ''}".`);
        return 'failed';
      }
      const t = checkToggles(patches, req.toggles);
      for (const problem of t.problems) report(`In this link, ${problem}.`, 'warning');
      let params = req.params;
      let built: Built;
      try {
        built = await build(ctx, text, t.toggles, params, req.scenario.seed);
      } catch (err) {
        if (isCancelled(err)) throw err;
        // The engine refused the run. If it was for the link's params, say which
        // ones (limits from a run without them) and open the run without them.
        let info: ScenarioSummary | null = null;
        if (Object.keys(params).length > 0) {
          try {
            info = await baselineFor(ctx, text, {});
          } catch (infoErr) {
            if (isCancelled(infoErr)) throw infoErr;
          }
        }
        const checked = info ? checkParams(info, params) : null;
        if (!checked || checked.problems.length === 0) {
          report(`The scenario could not be loaded: ${errorMessage(err)}`);
          return 'failed';
        }
        for (const problem of checked.problems) report(`In this link, ${problem}.`, 'warning');
        params = checked.params;
        try {
          built = await build(ctx, text, t.toggles, params, req.scenario.seed);
        } catch (retryErr) {
          if (isCancelled(retryErr)) throw retryErr;
          report(`The scenario could not be loaded: ${errorMessage(retryErr)}`);
          return 'failed';
        }
      }
      await install(ctx, req.scenario, text, built, t.toggles, params, req.step, true, DEFAULT_WINDOW_REQUEST);
      set({ selection: req.selection ?? null, comparison: null, hoverPfn: null });
      return 'shown';
    });
  };

  const openDefaultScenario = async (): Promise<void> => {
    const { scenarios, report } = get();
    const builtin = scenarios.find((s) => s.id === DEFAULT_SCENARIO_ID) ?? scenarios[0];
    if (!builtin) {
      report('The engine has no built-in scenarios.');
      return;
    }
    await openRequest({ scenario: { kind: 'builtin', id: builtin.id, hash: null }, toggles: {}, params: {}, step: 0 }, true);
  };

  return {
    engine: null,
    patches: [],
    scenarios: [],
    mechanisms: [],
    kernelVersions: [],
    kernels: [],
    sim: null,
    scenario: null,
    scenarioText: '',
    baselineToggles: {},
    toggleOverrides: {},
    paramOverrides: {},
    summary: null,
    events: [],
    eventsWindow: { from: 0, to: 0 },
    eventsComplete: true,
    series: null,
    frame: null,
    bulkWindow: DEFAULT_WINDOW_REQUEST,
    step: 0,
    targetStep: 0,
    comparison: null,
    loading: null,

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

    boot: async (engine, fragment) => {
      get().attachEngine(engine);
      await get().applyFragment(fragment);
    },

    applyFragment: async (fragment) => {
      const read = urlToState(fragment);
      if (!read.ok) {
        get().report(read.error);
        await get().openDefault();
        return;
      }
      for (const w of read.warnings) get().report(w, 'warning');
      if (read.state === null) await get().openDefault();
      else await get().applyShareState(read.state);
    },

    applyShareState: async (state) => {
      const { scenarios, report } = get();
      const ref = state.scenario;
      if (ref.kind === 'builtin') {
        const builtin = scenarios.find((s) => s.id === ref.id);
        if (!builtin) {
          report(`This link names the scenario "${ref.id}", which this version of mmviz does not have; showing the default scenario.`);
          await get().openDefault();
          return;
        }
        if (ref.hash && ref.hash !== fnv1a32Hex(builtin.text)) {
          report(
            `The scenario "${builtin.id}" has changed since this link was made, so the frame shown may differ from the one that was shared.`,
            'warning',
          );
        }
      }
      // Only a failure falls back to the default: a superseded or cancelled load leaves that to what replaced it.
      if ((await openRequest({ ...state, selection: state.selection })) === 'failed') await get().openDefault();
    },

    open: async (req) => (await openRequest(req)) === 'shown',

    openDefault: openDefaultScenario,

    openBuiltin: async (id) => {
      await openRequest({ scenario: { kind: 'builtin', id, hash: null }, toggles: {}, params: {}, step: 0 });
    },

    cancelLoad: () => {
      const current = active;
      if (!current) return;
      active = null;
      generation++;
      current.controller.abort(new CancelledError(`cancelled loading ${current.label}`));
      set({ loading: null });
      get().report(`Cancelled loading ${current.label}.`, 'info');
      // Nothing on screen to go back to: show the default scenario, unless that is what was cancelled.
      if (!get().sim && !current.opensDefault) void openDefaultScenario();
    },

    setToggle: async (id, value) => {
      const s = get();
      if (!s.scenario || !s.summary) return;
      const patch = s.patches.find((p) => p.id === id);
      const before = s.summary.toggles[id];
      const reason = `${patch?.id ?? id} ${before === undefined ? '' : toggleValueLabel(patch, before)} → ${toggleValueLabel(patch, value)}`;
      const label = `${scenarioName(s.scenario)} with ${patch?.id ?? id} ${toggleValueLabel(patch, value)}`;
      await rebuild(label, reason, { ...s.toggleOverrides, [id]: value }, s.paramOverrides);
    },

    setToggles: async (toggles, label) => {
      const s = get();
      if (!s.scenario || !s.summary) return;
      const { toggles: checked, problems } = checkToggles(s.patches, toggles);
      for (const problem of problems) s.report(`In ${label}, ${problem}.`, 'warning');
      const changed = Object.entries(checked).filter(([id, v]) => s.summary?.toggles[id] !== v);
      // Nothing to change: no rebuild (the picker already shows it).
      if (changed.length === 0) return;
      const reason = `${label} (${changed.map(([id, v]) => `${id}=${String(v)}`).join(', ')})`;
      await rebuild(`${scenarioName(s.scenario)} with ${label}`, reason, { ...s.toggleOverrides, ...checked }, s.paramOverrides);
    },

    setParam: async (name, value) => {
      const s = get();
      if (!s.scenario || !s.summary) return false;
      const info = s.summary.params.find((p) => p.name === name);
      if (!info || !Number.isInteger(value) || !(value >= info.min && value <= info.max)) return false;
      const label = `${scenarioName(s.scenario)} with ${name}=${value}`;
      return (await rebuild(label, `${name} ${info.value} → ${value}`, s.toggleOverrides, { ...s.paramOverrides, [name]: value })) === 'shown';
    },

    seek: (step) => {
      const { sim, summary } = get();
      if (!sim || !summary) return Promise.resolve();
      const target = clampStep(step, summary.totalSteps);
      set({ targetStep: target });
      return seeker.request(target);
    },

    stepBy: (delta) => get().seek(get().targetStep + delta),
    goFirst: () => get().seek(0),
    goLast: () => get().seek(get().summary?.totalSteps ?? 0),
    goChapter: async (direction) => {
      const { summary, targetStep } = get();
      if (!summary) return;
      const target = chapterTarget(summary.chapters, targetStep, direction);
      if (target !== null) await get().seek(target);
    },

    setBulkWindow: (w) => moveWindow(w),

    showPte: async (pid, vpn) => {
      const { summary, bulkWindow } = get();
      const w = summary ? windowForPte(summary, bulkWindow, pid, vpn) : null;
      if (!w) return false;
      await moveWindow(w);
      return true;
    },

    showPfn: async (pfn) => {
      const { summary, bulkWindow } = get();
      const w = summary ? windowForPfn(summary, bulkWindow, pfn) : null;
      if (!w) return false;
      await moveWindow(w);
      return true;
    },
  };
};
