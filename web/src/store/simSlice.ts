// Simulation slice: the scenario on screen, its runs as lanes, and the cursor over them.
//
// Every engine call is asynchronous (the engine runs in workers). Two rules keep what is on
// screen consistent:
// - Loads (open a scenario; rebuild it for a toggle or a param; start or change an A/B
//   comparison) are numbered. Starting a load supersedes the running one (its engine work is
//   aborted), and a load installs its runs only while it is still the latest; anything it
//   built after being superseded is freed unseen. What is on screen stays usable until a load
//   replaces it.
// - Each lane fetches its frames on its own (lane.ts); the cursor says what both show. Alone,
//   the cursor is A's step. In an A/B comparison it is a position on the axis that lines the
//   two runs up on their workload (base/abAxis.ts), so both advance together on the same user
//   accesses, each by as many steps as its kernel needs.
import type { StateCreator } from 'zustand';
import { buildAxis, clampPosition, positionOf, positionOfPair, stepsAt } from '../base/abAxis';
import { fnv1a32Hex } from '../base/hash';
import { presetChoices, presetToggles } from '../base/kernels';
import { LatestOnly } from '../base/latest';
import { CancelledError, cancelledBy, errorMessage, isCancelled, type SimHandle } from '../engine/engine';
import type { Progress } from '../engine/protocol';
import type { PatchInfo, ScenarioSummary, ToggleValue } from '../engine/types';
import { archivedScenario, lineChanges, type ArchivedScenario } from '../share/archive';
import { urlToState, type AbChoice, type ScenarioRef } from '../share/url';
import { readFindings } from '../base/findings';
import { clampWindow, DEFAULT_WINDOW_REQUEST, type WindowRequest } from './bulkWindow';
import { clampStep, EMPTY_RUN, eventsWindowAt, frameIn, LaneFetcher, MAX_EVENTS_FETCHED } from './lane';
import { cursorBounds } from './playbackSlice';
import type { AbState, AppState, LaneId, OpenRequest, RunState, SimSlice } from './types';

export { clampStep, eventBefore, EVENTS_WINDOW, eventsWindowAt, MAX_EVENTS_FETCHED, needsNewWindow } from './lane';

/** The scenario opened when nothing else is asked for. */
export const DEFAULT_SCENARIO_ID = 'numa-hint-fault-101';

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

/** What the catalogue offers for naming a lane's toggles. */
interface LaneCatalog {
  patches: readonly PatchInfo[];
  kernels: readonly { version: string; toggles: Record<string, ToggleValue> }[];
  mechanisms: AppState['mechanisms'];
}

/** The toggles an A/B choice sets in lane `lane` (on top of A's others), or a problem saying why it cannot. */
export function choiceToggles(choice: AbChoice, lane: LaneId, catalog: LaneCatalog): { toggles: Record<string, ToggleValue> } | { problem: string } {
  const which = choice[lane];
  switch (choice.kind) {
    case 'toggle': {
      const patch = catalog.patches.find((p) => p.id === choice.id);
      if (!patch) return { problem: `there is no toggle "${choice.id}"` };
      if (!patch.values.some((v) => v === which)) return { problem: `toggle "${choice.id}" cannot be ${JSON.stringify(which)} (it takes ${patch.valueLabels.join(', ')})` };
      return { toggles: { [choice.id]: which } };
    }
    case 'kernel': {
      const k = catalog.kernels.find((x) => x.version === which);
      if (!k) return { problem: `this version of mmviz tells no kernel ${String(which)} apart (it knows ${catalog.kernels.map((x) => x.version).join(', ') || 'none'})` };
      return { toggles: k.toggles };
    }
    case 'preset': {
      const c = presetChoices(catalog.mechanisms).find((x) => x.key === which);
      if (!c) return { problem: `there is no preset "${String(which)}"` };
      return { toggles: presetToggles(c.preset) };
    }
  }
}

/** "numa_delay_map: off vs on", "kernel v5.12 vs v5.13", "preset base vs patch7": an A/B choice for people. */
export function choiceLabel(choice: AbChoice, patches: readonly PatchInfo[]): string {
  if (choice.kind === 'toggle') {
    const patch = patches.find((p) => p.id === choice.id);
    return `${choice.id}: ${toggleValueLabel(patch, choice.a)} vs ${toggleValueLabel(patch, choice.b)}`;
  }
  const name = (key: string): string => (choice.kind === 'preset' ? (key.split('/')[1] ?? key) : key);
  return `${choice.kind} ${name(String(choice.a))} vs ${name(String(choice.b))}`;
}

/** One side of an A/B choice for people: "mremap_flush dirty", "kernel v5.13", "preset patch7". */
export function choiceSideLabel(choice: AbChoice, lane: LaneId, patches: readonly PatchInfo[]): string {
  const which = choice[lane];
  if (choice.kind === 'toggle') return `${choice.id} ${toggleValueLabel(patches.find((p) => p.id === choice.id), which)}`;
  return `${choice.kind} ${choice.kind === 'preset' ? (String(which).split('/')[1] ?? String(which)) : String(which)}`;
}

/** The toggles whose values differ between two summaries, [id, A, B], in registry order. */
export function differingToggles(patches: readonly PatchInfo[], a: ScenarioSummary, b: ScenarioSummary): [string, ToggleValue, ToggleValue][] {
  const ids = [...new Set([...patches.map((p) => p.id), ...Object.keys(a.toggles), ...Object.keys(b.toggles)])];
  const out: [string, ToggleValue, ToggleValue][] = [];
  for (const id of ids) {
    const va = a.toggles[id];
    const vb = b.toggles[id];
    if (va !== undefined && vb !== undefined && va !== vb) out.push([id, va, vb]);
  }
  return out;
}

/** How a load ended: its runs are on screen, it failed (and said why), or a newer load or Cancel stopped it. */
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

/** A run built for a lane (or kept from it). */
interface Built {
  sim: SimHandle;
  summary: ScenarioSummary;
  /** The run that was on screen in this lane, kept as it is (not to be freed, its frame is reusable). */
  kept: RunState | null;
  /** Why the schedule asked for could not be followed (the run is then in the default order), or null. */
  scheduleProblem: string | null;
}

/** The runs of one load, ready to install. */
interface BuiltLoad {
  a: Built;
  b: Built | null;
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

const sortedJson = (r: Record<string, unknown>): string => JSON.stringify(Object.entries(r).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));

/** Frees the simulations of `runs` that `keep` does not hold. */
function freeUnless(runs: readonly (SimHandle | null)[], keep: readonly (SimHandle | null)[]): void {
  for (const sim of runs) if (sim && !keep.includes(sim)) sim.free();
}

/** Creates the simulation slice. */
export const createSimSlice: StateCreator<AppState, [], [], SimSlice> = (set, get) => {
  // Baseline summaries (no toggle overrides), per scenario text and params, to know the
  // scenario's own toggle values and param limits.
  const baselines = new Map<string, ScenarioSummary>();
  const baselineKey = (text: string, params: Record<string, number>): string => `${sortedJson(params)}\n${text}`;
  const rememberBaseline = (text: string, params: Record<string, number>, summary: ScenarioSummary): void => {
    if (baselines.size > 32) baselines.clear();
    baselines.set(baselineKey(text, params), summary);
  };
  // Steps of each run prepared in this session, to estimate the next preparation of the same run.
  const totals = new Map<string, number>();
  const runKey = (text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, seed?: number, schedule?: string): string =>
    `${seed ?? ''}\n${schedule ?? ''}\n${sortedJson(toggles)}\n${baselineKey(text, params)}`;
  // Each lane's toggles and run key as installed, to keep a run that a load asks for again.
  const installedKeys: Record<LaneId, string | null> = { a: null, b: null };

  const lanes: Record<LaneId, LaneFetcher> = { a: new LaneFetcher('a', get, set), b: new LaneFetcher('b', get, set) };

  // The running load. `generation` only grows; a load is current while its id equals it.
  let generation = 0;
  let active: { id: number; controller: AbortController; label: string; opensDefault: boolean } | null = null;
  // The divergence search of the comparison on screen.
  let divergenceSearch: AbortController | null = null;

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

  /**
   * Prepares the runs of a load (both lanes of a comparison in parallel, each in its worker),
   * keeping a run on screen when it is the one asked for and `reuse` (a rebuild; an open
   * prepares afresh); reads the baseline summary too. A link's `seed` replaces the scenario's own (a sweep's run).
   * Progress is the two runs' together.
   */
  const build = async (
    ctx: LoadContext,
    text: string,
    togglesA: Record<string, ToggleValue>,
    togglesB: Record<string, ToggleValue> | null,
    params: Record<string, number>,
    reuse: boolean,
    seed?: number,
    schedule?: string,
  ): Promise<BuiltLoad> => {
    const { engine } = get();
    if (!engine) throw new Error('the simulation engine is not loaded');
    const wanted: [LaneId, Record<string, ToggleValue>][] = togglesB ? [['a', togglesA], ['b', togglesB]] : [['a', togglesA]];
    const keys = wanted.map(([, t]) => runKey(text, t, params, seed, schedule));
    const known = keys.map((k) => totals.get(k));
    ctx.expect(known.every((t) => t !== undefined) ? known.reduce<number>((n, t) => n + (t ?? 0), 0) : null);
    const progress: (Progress | null)[] = wanted.map(() => null);
    const report = (i: number, p: Progress): void => {
      progress[i] = p;
      const done = progress.reduce((n, x) => n + (x?.done ?? 0), 0);
      const total = progress.every((x) => x?.total !== null && x?.total !== undefined) ? progress.reduce((n, x) => n + (x?.total ?? 0), 0) : null;
      ctx.onProgress({ done, total });
    };
    const settled = await Promise.allSettled(
      wanted.map(async ([lane, toggles], i): Promise<Built> => {
        const current = get().runs[lane];
        // The run on screen in some lane is the one asked for: keep it (a comparison started from one run keeps A).
        const sameAs = reuse ? (Object.keys(installedKeys) as LaneId[]).find((l) => installedKeys[l] === keys[i] && get().runs[l].sim) : undefined;
        if (sameAs) {
          const run = get().runs[sameAs];
          if (run.sim && run.summary) return { sim: run.sim, summary: run.summary, kept: sameAs === lane ? current : run, scheduleProblem: run.scheduleProblem };
        }
        const options = { signal: ctx.signal, onProgress: (p: Progress) => report(i, p), ...(seed === undefined ? {} : { seed }) };
        let sim: SimHandle;
        let scheduleProblem: string | null = null;
        try {
          sim = await engine.create(text, toggles, params, schedule ? { ...options, schedule } : options);
        } catch (err) {
          if (!schedule || isCancelled(err)) throw err;
          // The run without the schedule: if that one runs, the schedule was what did not fit
          // (the engine's message names the pick); the lane shows the default order and says so.
          sim = await engine.create(text, toggles, params, options);
          scheduleProblem = errorMessage(err).replace(/^schedule: /, '');
        }
        if (totals.size > 64) totals.clear();
        totals.set(keys[i] as string, sim.summary().totalSteps);
        return { sim, summary: sim.summary(), kept: null, scheduleProblem };
      }),
    );
    const made = settled.flatMap((r) => (r.status === 'fulfilled' && !r.value.kept ? [r.value.sim] : []));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    try {
      if (failed) throw failed.reason;
      ctx.live();
      const [a, b] = settled.map((r) => (r as PromiseFulfilledResult<Built>).value) as [Built, Built | undefined];
      let baseline = a.summary;
      if (Object.keys(togglesA).length === 0) rememberBaseline(text, params, baseline);
      else baseline = await baselineFor(ctx, text, params);
      return { a, b: b ?? null, baseline };
    } catch (err) {
      for (const sim of made) sim.free();
      throw err;
    }
  };

  /** A lane's first frame, events, series and marks for a built run; the window is clamped to it. */
  const prepareLane = async (built: Built, step: number, window: WindowRequest): Promise<RunState> => {
    const total = built.summary.totalSteps;
    const s = clampStep(step, total);
    const kept = built.kept;
    const eventsWindow = eventsWindowAt(s, total);
    const [framed, events, series, marks] = await Promise.all([
      frameIn(built.sim, s, clampWindow(built.summary, window)),
      kept && kept.eventsWindow.from === eventsWindow.from && kept.eventsWindow.to === eventsWindow.to ? Promise.resolve(kept.events) : built.sim.events(eventsWindow.from, eventsWindow.to),
      kept?.series ? Promise.resolve(kept.series) : built.sim.series(),
      kept?.marks ? Promise.resolve(kept.marks) : built.sim.progressMarks(),
    ]);
    // Derived from the run itself (its series and the events where a finding counter grew).
    const findings = kept?.series ? kept.findings : await readFindings(built.sim, series);
    return {
      sim: built.sim,
      summary: built.summary,
      events,
      eventsWindow,
      eventsComplete: total <= MAX_EVENTS_FETCHED,
      series,
      frame: framed.frame,
      bulkWindow: framed.window,
      step: framed.frame.step,
      targetStep: framed.frame.step,
      marks,
      scheduleProblem: built.scheduleProblem,
      findings,
    };
  };

  /** Where to put the new runs: A's step, or (a rebuild) the step at the same point of the workload as the old run's. */
  type Placement = { kind: 'step'; a: number; b: number | null } | { kind: 'follow'; oldMarks: Float64Array | null; oldTotal: number; oldStep: number };

  /** Fetches the first frames of the built runs and puts them on screen in one update; frees what is not kept on any failure. */
  const install = async (
    ctx: LoadContext,
    ref: ScenarioRef,
    text: string,
    load: BuiltLoad,
    toggles: Record<string, ToggleValue>,
    params: Record<string, number>,
    choice: AbChoice | null,
    placement: Placement,
    reportClamp: boolean,
    windows: Record<LaneId, WindowRequest>,
  ): Promise<void> => {
    const mine = [load.a, load.b].flatMap((b) => (b && !b.kept ? [b.sim] : []));
    try {
      // Where A goes. A rebuild keeps the point of the workload: the old run's step mapped
      // through both runs' progress marks (a toggle can change the number of steps before it).
      const marksA = load.a.kept?.marks ?? (await load.a.sim.progressMarks());
      ctx.live();
      const follow = (oldMarks: Float64Array | null, oldTotal: number, oldStep: number, next: Built, nextMarks: Float64Array): number => {
        if (!oldMarks) return oldStep;
        const axis = buildAxis(oldMarks, oldTotal, nextMarks, next.summary.totalSteps);
        return stepsAt(axis, positionOf(axis, 'a', oldStep)).b;
      };
      const stepA = placement.kind === 'step' ? placement.a : follow(placement.oldMarks, placement.oldTotal, placement.oldStep, load.a, marksA);
      const totalA = load.a.summary.totalSteps;
      if (reportClamp && stepA > totalA) get().report(`step ${stepA} is beyond the end of this scenario (${totalA} steps); showing the last step`);
      const runA = await prepareLane({ ...load.a, kept: load.a.kept ? { ...load.a.kept, marks: marksA } : null }, stepA, windows.a);
      ctx.live();
      let runB: RunState = EMPTY_RUN;
      let ab: AbState | null = null;
      if (load.b && choice) {
        const marksB = load.b.kept?.marks ?? (await load.b.sim.progressMarks());
        ctx.live();
        const axis = buildAxis(marksA, totalA, marksB, load.b.summary.totalSteps);
        const wantedB = placement.kind === 'step' ? placement.b : null;
        const position = wantedB !== null ? positionOfPair(axis, runA.step, wantedB) : positionOf(axis, 'a', runA.step);
        const stepB = stepsAt(axis, position).b;
        runB = await prepareLane({ ...load.b, kept: load.b.kept ? { ...load.b.kept, marks: marksB } : null }, stepB, windows.b);
        ctx.live();
        ab = {
          choice,
          axis,
          position,
          target: position,
          differing: differingToggles(get().patches, load.a.summary, load.b.summary),
          divergence: { state: 'searching', compared: 0 },
        };
      }
      // Overrides that equal the baseline are not overrides.
      const toggleOverrides: Record<string, ToggleValue> = {};
      for (const [id, v] of Object.entries(toggles)) if (load.baseline.toggles[id] !== v) toggleOverrides[id] = v;
      const paramOverrides: Record<string, number> = {};
      for (const [name, v] of Object.entries(params)) {
        const info = load.baseline.params.find((p) => p.name === name);
        if (!info || info.default !== v) paramOverrides[name] = v;
      }
      const old = get().runs;
      lanes.a.clear();
      lanes.b.clear();
      set({
        runs: { a: runA, b: runB },
        scenario: ref,
        scenarioText: text,
        baselineToggles: load.baseline.toggles,
        toggleOverrides,
        paramOverrides,
        ab,
        // Another run answers the questions anew.
        questionStates: {},
      });
      installedKeys.a = runKey(text, laneTogglesOf(toggles, choice, 'a'), params, ref.seed, ref.schedule);
      installedKeys.b = ab ? runKey(text, laneTogglesOf(toggles, choice, 'b'), params, ref.seed, ref.schedule) : null;
      freeUnless([old.a.sim, old.b.sim], [runA.sim, runB.sim]);
      // A schedule a run could not follow: said when the run is new, naming the lane in a comparison.
      for (const [lane, run, built] of [['A', runA, load.a], ['B', runB, load.b]] as const) {
        if (run.scheduleProblem === null || !built || built.kept) continue;
        const where = ab ? `Run ${lane} (${choiceSideLabel(ab.choice, lane === 'A' ? 'a' : 'b', get().patches)}) cannot follow the schedule` : 'This run cannot follow the schedule';
        get().report(`${where} sched=${ref.schedule ?? ''}: ${run.scheduleProblem}. It is shown in the default order instead; the schedule stays in the link.`, 'warning');
      }
      // What the engine says about the whole run (threads stopped for want of memory).
      for (const [lane, run] of [['A', runA], ['B', runB]] as const) {
        for (const w of run.summary?.warnings ?? []) get().report(ab ? `In run ${lane}, ${w}.` : `In this run, ${w}.`, 'warning');
      }
      if (runA.frame) lanes.a.installed(runA.frame);
      if (runB.frame) lanes.b.installed(runB.frame);
      if (ab) startDivergenceSearch(text, params);
      else stopDivergenceSearch();
    } catch (err) {
      for (const sim of mine) sim.free();
      throw err;
    }
  };

  /** A lane's toggles: A's overrides, with the A/B choice's on top for a comparison (already checked). */
  const laneTogglesOf = (toggles: Record<string, ToggleValue>, choice: AbChoice | null, lane: LaneId): Record<string, ToggleValue> => {
    if (!choice) return toggles;
    const c = choiceToggles(choice, lane, get());
    return 'toggles' in c ? { ...toggles, ...c.toggles } : toggles;
  };

  /** Checks an A/B choice against the catalogue; the problem for people, or null. */
  const choiceProblem = (choice: AbChoice): string | null => {
    for (const lane of ['a', 'b'] as const) {
      const c = choiceToggles(choice, lane, get());
      if ('problem' in c) return c.problem;
    }
    return null;
  };

  const stopDivergenceSearch = (): void => {
    divergenceSearch?.abort(new CancelledError('the comparison changed'));
    divergenceSearch = null;
  };

  /** Asks the engine where A and B first differ (in a worker of its own), for the comparison on screen. */
  const startDivergenceSearch = (text: string, params: Record<string, number>): void => {
    stopDivergenceSearch();
    const { engine, ab, toggleOverrides } = get();
    if (!engine || !ab) return;
    const controller = new AbortController();
    divergenceSearch = controller;
    const mine = ab;
    const update = (divergence: AbState['divergence']): void => {
      set((s) => (s.ab && s.ab.axis === mine.axis ? { ab: { ...s.ab, divergence } } : {}));
    };
    engine
      .firstDivergence(text, laneTogglesOf(toggleOverrides, ab.choice, 'a'), laneTogglesOf(toggleOverrides, ab.choice, 'b'), params, {
        signal: controller.signal,
        onProgress: (p) => update({ state: 'searching', compared: p.done }),
      })
      .then(
        (result) => update({ state: 'found', result }),
        (err: unknown) => {
          if (!isCancelled(err)) update({ state: 'failed', message: errorMessage(err) });
        },
      );
  };

  /** Rebuilds the scenario on screen with other toggles, params or A/B choice, at the same point of its workload. */
  const rebuild = (label: string, reason: string | null, toggles: Record<string, ToggleValue>, params: Record<string, number>, choice: AbChoice | null): Promise<LoadOutcome> => {
    const s = get();
    const ref = s.scenario;
    if (!ref || !s.runs.a.summary) return Promise.resolve('failed');
    const text = s.scenarioText;
    return runLoad(label, false, async (ctx) => {
      let load: BuiltLoad;
      try {
        load = await build(ctx, text, laneTogglesOf(toggles, choice, 'a'), choice ? laneTogglesOf(toggles, choice, 'b') : null, params, true, ref.seed, ref.schedule);
      } catch (err) {
        if (isCancelled(err)) throw err;
        get().report(`The scenario could not be loaded: ${errorMessage(err)}`);
        return 'failed';
      }
      // Read now, not when the rebuild started: the old runs stay steppable meanwhile.
      const before = get();
      const a = before.runs.a;
      const settled = a.frame !== null && a.step === a.targetStep;
      const old = settled && a.frame ? { step: a.step, counters: a.frame.counters } : null;
      const placement: Placement = {
        kind: 'follow',
        oldMarks: a.marks,
        oldTotal: a.summary?.totalSteps ?? 0,
        oldStep: a.targetStep,
      };
      // The same scenario: keep the windows paged to (clamped: params may have made them smaller).
      await install(ctx, ref, text, load, toggles, params, choice, placement, false, { a: before.runs.a.bulkWindow, b: before.runs.b.bulkWindow });
      set({ comparison: old && reason && !choice ? { reason, step: get().runs.a.step, fromStep: old.step, counters: old.counters } : null });
      return 'shown';
    });
  };

  /** Name of a scenario for labels and messages. */
  const scenarioName = (ref: ScenarioRef): string => (ref.kind === 'builtin' ? ref.id : 'the custom scenario');

  const textOf = (ref: ScenarioRef): string | null => {
    if (ref.kind === 'custom') return ref.text;
    return get().scenarios.find((s) => s.id === ref.id)?.text ?? null;
  };

  const openRequest = (req: OpenRequest, opensDefault = false): Promise<LoadOutcome> => {
    const p = paramsLabel(req.params);
    const base = p ? `${scenarioName(req.scenario)} (${p})` : scenarioName(req.scenario);
    const label = req.ab ? `${base}, A/B ${choiceLabel(req.ab, get().patches)}` : base;
    get().pause();
    return runLoad(label, opensDefault, async (ctx) => {
      const { patches, report } = get();
      const text = req.text ?? textOf(req.scenario);
      if (text === null) {
        report(`There is no built-in scenario "${req.scenario.kind === 'builtin' ? req.scenario.id : ''}".`);
        return 'failed';
      }
      const t = checkToggles(patches, req.toggles);
      for (const problem of t.problems) report(`In this link, ${problem}.`, 'warning');
      let choice = req.ab ?? null;
      const problem = choice ? choiceProblem(choice) : null;
      if (problem) {
        report(`This link's A/B comparison cannot be shown: ${problem}; showing run A alone.`, 'warning');
        choice = null;
      }
      let params = req.params;
      const buildFor = (ps: Record<string, number>): Promise<BuiltLoad> =>
        build(ctx, text, laneTogglesOf(t.toggles, choice, 'a'), choice ? laneTogglesOf(t.toggles, choice, 'b') : null, ps, false, req.scenario.seed, req.scenario.schedule);
      let load: BuiltLoad;
      try {
        load = await buildFor(params);
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
          load = await buildFor(params);
        } catch (retryErr) {
          if (isCancelled(retryErr)) throw retryErr;
          report(`The scenario could not be loaded: ${errorMessage(retryErr)}`);
          return 'failed';
        }
      }
      const placement: Placement = { kind: 'step', a: req.step, b: choice ? (req.bStep ?? null) : null };
      await install(ctx, req.scenario, text, load, t.toggles, params, choice, placement, true, { a: DEFAULT_WINDOW_REQUEST, b: DEFAULT_WINDOW_REQUEST });
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

  // The A/B cursor: one request in flight, for the latest position asked for; both lanes fetch
  // their frames in parallel and the position is shown once both have them.
  const cursor = new LatestOnly<number>(
    async (position) => {
      const ab = get().ab;
      if (!ab) return;
      const { a, b } = stepsAt(ab.axis, position);
      await Promise.all([lanes.a.seek(a), lanes.b.seek(b)]);
      const now = get();
      if (now.ab?.axis !== ab.axis) return;
      if (now.runs.a.step === a && now.runs.b.step === b) set({ ab: { ...now.ab, position } });
    },
    (err) => get().report(`The simulation failed: ${errorMessage(err)}`),
  );

  /** The cursor's end: A's last step alone, the axis's last position in a comparison. */
  const lastPosition = (): number => {
    const s = get();
    return s.ab ? s.ab.axis.length - 1 : (s.runs.a.summary?.totalSteps ?? 0);
  };

  /** The cursor asked for last. */
  const targetPosition = (): number => {
    const s = get();
    return s.ab ? s.ab.target : s.runs.a.targetStep;
  };

  const seekPosition = (position: number, options?: { history?: boolean }): Promise<void> => {
    const s = get();
    if (!s.runs.a.sim || !s.runs.a.summary) return Promise.resolve();
    // An embed makes no history entries: its page's Back button belongs to the page around it.
    if (options?.history && s.mode !== 'embed') set((x) => ({ historyMark: x.historyMark + 1 }));
    // An embed's steps: the cursor stays within them.
    const { first, last } = cursorBounds(s);
    const within = s.range ? Math.max(first, Math.min(last, position)) : position;
    if (s.ab) {
      const target = clampPosition(s.ab.axis, within);
      set({ ab: { ...s.ab, target } });
      return cursor.request(target);
    }
    return lanes.a.seek(within);
  };

  /** A person did something: a link held in the address bar (urlHold) gives way to what is on screen. Returns `x` (for use inline). */
  const release = (x: number): number => {
    if (get().urlHold !== null) set({ urlHold: null });
    return x;
  };

  /** The position at which lane `lane` shows `step`. */
  const positionForLane = (ab: AbState | null, lane: LaneId, step: number): number => (ab ? positionOf(ab.axis, lane, step) : step);

  return {
    runs: { a: EMPTY_RUN, b: EMPTY_RUN },
    scenario: null,
    scenarioText: '',
    baselineToggles: {},
    toggleOverrides: {},
    paramOverrides: {},
    ab: null,
    comparison: null,
    loading: null,
    historyMark: 0,
    urlHold: null,

    boot: async (engine, fragment) => {
      get().attachEngine(engine);
      await get().applyFragment(fragment);
    },

    applyFragment: async (fragment) => {
      const read = urlToState(fragment);
      if (!read.ok) {
        // The link stays in the address bar, so that its recipient sees what was sent.
        set({ urlHold: fragment });
        get().report(read.error);
        // A bad link on top of a scenario already shown leaves it there.
        if (!get().runs.a.summary) await get().openDefault();
        return;
      }
      for (const w of read.warnings) get().report(w, 'warning');
      if (read.state === null) {
        if (!get().runs.a.summary) await get().openDefault();
      } else await get().applyShareState(read.state);
    },

    applyShareState: async (linked) => {
      const { scenarios, report } = get();
      get().setView(linked.lecture ?? null, linked.embed ?? false, linked.range ?? null);
      // An embed opens within its steps.
      const range = get().range;
      const state = range ? { ...linked, step: Math.max(range.from, Math.min(range.to, linked.step)) } : linked;
      const ref = state.scenario;
      let text: string | null = ref.kind === 'custom' ? ref.text : null;
      if (ref.kind === 'builtin') {
        const builtin = scenarios.find((s) => s.id === ref.id);
        if (!builtin) {
          report(`This link names the scenario "${ref.id}", which this version of mmviz does not have; showing the default scenario.`);
          await get().openDefault();
          return;
        }
        text = builtin.text;
        if (ref.hash && ref.hash !== fnv1a32Hex(builtin.text)) {
          // The link names another version: open it if this lab shipped it, never silently another.
          let archived: ArchivedScenario | null = null;
          try {
            archived = await archivedScenario(builtin.id, ref.hash);
          } catch {
            // An unreadable archive is as good as none: said below.
          }
          if (archived) {
            text = archived.text;
            const current = { ...state, scenario: { kind: 'builtin' as const, id: builtin.id, hash: null } };
            report(
              `This link was made when the scenario "${builtin.id}" read differently, so it shows that version (of ${archived.date}); the current version differs in ${lineChanges(archived.text, builtin.text)}.`,
              'warning',
              { label: 'Open the current version', run: () => void get().open(current) },
            );
          } else {
            report(
              `The scenario "${builtin.id}" has changed since this link was made, and this version of mmviz does not have the version it names (h=${ref.hash}): it shows the current version, so the frame may differ from the one that was shared.`,
              'warning',
            );
          }
        }
      }
      if (state.plots) set({ plots: state.plots });
      // The runs on screen are the link's (Back, Forward, a link to another step): only move.
      const s = get();
      const sameRuns =
        s.runs.a.summary !== null &&
        s.loading === null &&
        s.scenarioText === text &&
        s.scenario?.seed === ref.seed &&
        (s.scenario?.schedule ?? '') === (ref.schedule ?? '') &&
        sortedJson(s.toggleOverrides) === sortedJson(checkToggles(s.patches, state.toggles).toggles) &&
        sortedJson(s.paramOverrides) === sortedJson(state.params) &&
        JSON.stringify(s.ab?.choice ?? null) === JSON.stringify(state.ab ?? null);
      if (sameRuns) {
        set({ selection: state.selection });
        const ab = get().ab;
        await seekPosition(ab ? positionOfPair(ab.axis, state.step, state.bStep ?? stepsAt(ab.axis, positionOf(ab.axis, 'a', state.step)).b) : state.step);
        return;
      }
      // Only a failure falls back to the default: a superseded or cancelled load leaves that to what replaced it.
      const request: OpenRequest = { ...state, selection: state.selection, ab: state.ab ?? null, bStep: state.bStep ?? undefined };
      const builtinText = ref.kind === 'builtin' ? textOf(ref) : null;
      if (text !== null && text !== builtinText && ref.kind === 'builtin') request.text = text;
      let outcome = await openRequest(request);
      if (outcome === 'failed' && request.text !== undefined) {
        // The older version no longer runs on this engine: say so, and show the current one.
        report(`The version of "${ref.kind === 'builtin' ? ref.id : ''}" this link names no longer runs in this version of mmviz (the message above says why); showing the current version.`, 'warning');
        outcome = await openRequest({ ...request, text: undefined });
      }
      if (outcome === 'failed' && !get().runs.a.summary) await get().openDefault();
    },

    open: async (req) => (await openRequest(req)) === 'shown',

    openDefault: openDefaultScenario,

    openBuiltin: async (id) => {
      release(0);
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
      if (!get().runs.a.sim && !current.opensDefault) void openDefaultScenario();
    },

    setToggle: async (id, value) => {
      release(0);
      const s = get();
      const summary = s.runs.a.summary;
      if (!s.scenario || !summary) return;
      const patch = s.patches.find((p) => p.id === id);
      const before = summary.toggles[id];
      const reason = `${patch?.id ?? id} ${before === undefined ? '' : toggleValueLabel(patch, before)} → ${toggleValueLabel(patch, value)}`;
      const label = `${scenarioName(s.scenario)} with ${patch?.id ?? id} ${toggleValueLabel(patch, value)}`;
      // The toggle an A/B comparison compares: A's side of it.
      const choice = s.ab?.choice.kind === 'toggle' && s.ab.choice.id === id ? { ...s.ab.choice, a: value } : (s.ab?.choice ?? null);
      await rebuild(label, reason, { ...s.toggleOverrides, [id]: value }, s.paramOverrides, choice);
    },

    setToggles: async (toggles, label) => {
      release(0);
      const s = get();
      const summary = s.runs.a.summary;
      if (!s.scenario || !summary) return;
      const { toggles: checked, problems } = checkToggles(s.patches, toggles);
      for (const problem of problems) s.report(`In ${label}, ${problem}.`, 'warning');
      const changed = Object.entries(checked).filter(([id, v]) => summary.toggles[id] !== v);
      // Nothing to change: no rebuild (the picker already shows it).
      if (changed.length === 0) return;
      const reason = `${label} (${changed.map(([id, v]) => `${id}=${String(v)}`).join(', ')})`;
      await rebuild(`${scenarioName(s.scenario)} with ${label}`, reason, { ...s.toggleOverrides, ...checked }, s.paramOverrides, s.ab?.choice ?? null);
    },

    setParam: async (name, value) => {
      release(0);
      const s = get();
      const summary = s.runs.a.summary;
      if (!s.scenario || !summary) return false;
      const info = summary.params.find((p) => p.name === name);
      if (!info || !Number.isInteger(value) || !(value >= info.min && value <= info.max)) return false;
      const label = `${scenarioName(s.scenario)} with ${name}=${value}`;
      return (await rebuild(label, `${name} ${info.value} → ${value}`, s.toggleOverrides, { ...s.paramOverrides, [name]: value }, s.ab?.choice ?? null)) === 'shown';
    },

    setAb: async (choice) => {
      release(0);
      const s = get();
      if (!s.scenario || !s.runs.a.summary) return false;
      if (choice === null) {
        if (!s.ab) return true;
        stopDivergenceSearch();
        cursor.clear();
        lanes.b.clear();
        const freed = s.runs.b.sim;
        installedKeys.b = null;
        set({ ab: null, runs: { a: s.runs.a, b: EMPTY_RUN } });
        if (freed && freed !== s.runs.a.sim) freed.free();
        return true;
      }
      const problem = choiceProblem(choice);
      if (problem) {
        s.report(`The A/B comparison cannot be shown: ${problem}.`);
        return false;
      }
      // A comparison's A takes the choice's value for the compared toggle(s): the bar's own value is replaced.
      const label = `${scenarioName(s.scenario)}, A/B ${choiceLabel(choice, s.patches)}`;
      return (await rebuild(label, null, s.toggleOverrides, s.paramOverrides, choice)) === 'shown';
    },

    goDivergence: async () => {
      const ab = get().ab;
      if (!ab) return;
      const found = ab.divergence.state === 'found' ? ab.divergence.result : null;
      if (!found || found.step === null) return;
      // The frame after the divergent step shows it as the step that just happened, in both runs.
      await seekPosition(positionOf(ab.axis, 'a', found.step + 1), { history: true });
    },

    seek: (position, options) => seekPosition(release(position), options),

    seekLane: (lane, step, options) => seekPosition(positionForLane(get().ab, lane, release(step)), options),

    stepBy: (delta) => seekPosition(targetPosition() + release(delta)),
    goFirst: () => seekPosition(release(0)),
    goLast: () => seekPosition(release(lastPosition())),
    goChapter: async (direction) => {
      release(0);
      const s = get();
      const summary = s.runs.a.summary;
      if (!summary) return;
      // Chapters are A's: from where A is asked to be.
      const fromStep = s.ab ? stepsAt(s.ab.axis, s.ab.target).a : s.runs.a.targetStep;
      const target = chapterTarget(summary.chapters, fromStep, direction);
      // A chapter is a jump a person makes (a clicker's PageDown, a chapter's button): Back returns.
      if (target !== null) await seekPosition(positionForLane(s.ab, 'a', target), { history: true });
    },

    setBulkWindow: (lane, w) => lanes[lane].moveWindow(w),
    showPte: (lane, pid, vpn) => lanes[lane].showPte(pid, vpn),
    showPfn: (lane, pfn) => lanes[lane].showPfn(pfn),
  };
};
