// Simulation slice: owns the SimHandle, the loaded scenario and the current frame.
import type { StateCreator } from 'zustand';
import { fnv1a32Hex } from '../base/hash';
import { errorMessage, type SimEngine, type SimHandle } from '../engine/engine';
import type { PatchInfo, ScenarioSummary, ToggleValue } from '../engine/types';
import { urlToState, type ScenarioRef } from '../share/url';
import type { AppState, SimSlice } from './types';

/** The scenario opened when nothing else is asked for. */
export const DEFAULT_SCENARIO_ID = 'numa-hint-fault-101';

/** Runs longer than this do not fetch all their events (the scrubber marks are skipped). */
export const MAX_EVENTS_FETCHED = 20_000;

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

interface Built {
  sim: SimHandle;
  summary: ScenarioSummary;
}

/** Creates the simulation slice. */
export const createSimSlice: StateCreator<AppState, [], [], SimSlice> = (set, get) => {
  // Baseline summaries (no toggle overrides), per scenario text and params, to
  // know the scenario's own toggle values. Params do not change toggle defaults,
  // but the params are kept so that a run too long by default can still be opened.
  const baselines = new Map<string, ScenarioSummary>();

  const baselineFor = (engine: SimEngine, text: string, params: Record<string, number>): ScenarioSummary => {
    const key = `${JSON.stringify(Object.entries(params).sort())}\n${text}`;
    const cached = baselines.get(key);
    if (cached) return cached;
    const sim = engine.create(text, {}, params);
    try {
      const summary = sim.summary();
      if (baselines.size > 32) baselines.clear();
      baselines.set(key, summary);
      return summary;
    } finally {
      sim.free();
    }
  };

  const textOf = (ref: ScenarioRef): string | null => {
    if (ref.kind === 'custom') return ref.text;
    return get().scenarios.find((s) => s.id === ref.id)?.text ?? null;
  };

  /** Builds a simulation at `step` and installs it; returns false (after reporting) on failure. */
  const install = (
    ref: ScenarioRef,
    text: string,
    toggles: Record<string, ToggleValue>,
    params: Record<string, number>,
    step: number,
    reportClamp: boolean,
  ): boolean => {
    const { engine, report } = get();
    if (!engine) return false;
    let built: Built;
    let baseline: ScenarioSummary;
    try {
      baseline = baselineFor(engine, text, params);
      const sim = engine.create(text, toggles, params);
      built = { sim, summary: sim.summary() };
    } catch (err) {
      report(`The scenario could not be loaded: ${errorMessage(err)}`);
      return false;
    }
    const total = built.summary.totalSteps;
    let target = clampStep(step, total);
    if (reportClamp && step > total) {
      report(`step ${step} is beyond the end of this scenario (${total} steps); showing the last step`);
    }
    try {
      built.sim.seek(target);
      const frame = built.sim.frame();
      const eventsComplete = total <= MAX_EVENTS_FETCHED;
      const events = eventsComplete ? built.sim.events(0, total) : [];
      const old = get().sim;
      if (old && old !== built.sim) old.free();
      // Overrides that equal the baseline are not overrides.
      const toggleOverrides: Record<string, ToggleValue> = {};
      for (const [id, v] of Object.entries(toggles)) if (baseline.toggles[id] !== v) toggleOverrides[id] = v;
      const paramOverrides: Record<string, number> = {};
      for (const [name, v] of Object.entries(params)) {
        const info = baseline.params.find((p) => p.name === name);
        if (!info || info.default !== v) paramOverrides[name] = v;
      }
      target = built.sim.currentStep();
      set({
        sim: built.sim,
        scenario: ref,
        scenarioText: text,
        baselineToggles: baseline.toggles,
        toggleOverrides,
        paramOverrides,
        summary: built.summary,
        events,
        eventsComplete,
        frame,
        step: target,
      });
      return true;
    } catch (err) {
      built.sim.free();
      report(`The simulation failed: ${errorMessage(err)}`);
      return false;
    }
  };

  return {
    engine: null,
    patches: [],
    scenarios: [],
    sim: null,
    scenario: null,
    scenarioText: '',
    baselineToggles: {},
    toggleOverrides: {},
    paramOverrides: {},
    summary: null,
    events: [],
    eventsComplete: true,
    frame: null,
    step: 0,
    comparison: null,

    attachEngine: (engine) => {
      try {
        set({ engine, patches: engine.patches(), scenarios: engine.builtinScenarios() });
      } catch (err) {
        set({ engine });
        get().report(`The simulation engine failed to start: ${errorMessage(err)}`);
      }
    },

    boot: (engine, fragment) => {
      get().attachEngine(engine);
      get().applyFragment(fragment);
    },

    applyFragment: (fragment) => {
      const read = urlToState(fragment);
      if (!read.ok) {
        get().report(read.error);
        get().openDefault();
        return;
      }
      for (const w of read.warnings) get().report(w, 'warning');
      if (read.state === null) get().openDefault();
      else get().applyShareState(read.state);
    },

    applyShareState: (state) => {
      const { scenarios, report } = get();
      const ref = state.scenario;
      if (ref.kind === 'builtin') {
        const builtin = scenarios.find((s) => s.id === ref.id);
        if (!builtin) {
          report(`This link names the scenario "${ref.id}", which this version of mmviz does not have; showing the default scenario.`);
          get().openDefault();
          return;
        }
        if (ref.hash && ref.hash !== fnv1a32Hex(builtin.text)) {
          report(
            `The scenario "${builtin.id}" has changed since this link was made, so the frame shown may differ from the one that was shared.`,
            'warning',
          );
        }
      }
      if (!get().open({ ...state, selection: state.selection })) get().openDefault();
    },

    open: (req) => {
      const { patches, report, engine } = get();
      if (!engine) return false;
      const text = textOf(req.scenario);
      if (text === null) {
        report(`There is no built-in scenario "${req.scenario.kind === 'builtin' ? req.scenario.id : ''}".`);
        return false;
      }
      const t = checkToggles(patches, req.toggles);
      for (const p of t.problems) report(`In this link, ${p}.`, 'warning');
      let params = req.params;
      if (Object.keys(params).length > 0) {
        // Param limits come from any summary of the scenario: with these params, else with none.
        let info: ScenarioSummary | null = null;
        for (const attempt of [params, {}]) {
          try {
            info = baselineFor(engine, text, attempt);
            break;
          } catch {
            // Try the next; if none works, install() reports the engine's message.
          }
        }
        if (info) {
          const checked = checkParams(info, params);
          for (const p of checked.problems) report(`In this link, ${p}.`, 'warning');
          params = checked.params;
        }
      }
      get().pause();
      const ok = install(req.scenario, text, t.toggles, params, req.step, true);
      if (ok) set({ selection: req.selection ?? null, comparison: null, hoverPfn: null });
      return ok;
    },

    openDefault: () => {
      const { scenarios, report } = get();
      const builtin = scenarios.find((s) => s.id === DEFAULT_SCENARIO_ID) ?? scenarios[0];
      if (!builtin) {
        report('The engine has no built-in scenarios.');
        return;
      }
      get().open({ scenario: { kind: 'builtin', id: builtin.id, hash: null }, toggles: {}, params: {}, step: 0 });
    },

    openBuiltin: (id) => {
      get().open({ scenario: { kind: 'builtin', id, hash: null }, toggles: {}, params: {}, step: 0 });
    },

    setToggle: (id, value) => {
      const s = get();
      if (!s.scenario || !s.summary) return;
      const patch = s.patches.find((p) => p.id === id);
      const before = s.summary.toggles[id];
      const reason = `${patch?.id ?? id} ${before === undefined ? '' : toggleValueLabel(patch, before)} → ${toggleValueLabel(patch, value)}`;
      const old = s.frame ? { step: s.step, counters: s.frame.counters } : null;
      const toggles = { ...s.toggleOverrides, [id]: value };
      if (install(s.scenario, s.scenarioText, toggles, s.paramOverrides, s.step, false)) {
        set({ comparison: old ? { reason, step: get().step, fromStep: old.step, counters: old.counters } : null });
      }
    },

    setParam: (name, value) => {
      const s = get();
      if (!s.scenario || !s.summary) return false;
      const info = s.summary.params.find((p) => p.name === name);
      if (!info || !Number.isInteger(value) || !(value >= info.min && value <= info.max)) return false;
      const old = s.frame ? { step: s.step, counters: s.frame.counters } : null;
      const params = { ...s.paramOverrides, [name]: value };
      const ok = install(s.scenario, s.scenarioText, s.toggleOverrides, params, s.step, false);
      if (ok) set({ comparison: old ? { reason: `${name} ${info.value} → ${value}`, step: get().step, fromStep: old.step, counters: old.counters } : null });
      return ok;
    },

    seek: (step) => {
      const { sim, summary, report } = get();
      if (!sim || !summary) return;
      const target = clampStep(step, summary.totalSteps);
      try {
        sim.seek(target);
        set({ frame: sim.frame(), step: sim.currentStep(), comparison: null });
      } catch (err) {
        report(`The simulation failed: ${errorMessage(err)}`);
        set({ playing: false });
      }
    },

    stepBy: (delta) => get().seek(get().step + delta),
    goFirst: () => get().seek(0),
    goLast: () => get().seek(get().summary?.totalSteps ?? 0),
    goChapter: (direction) => {
      const { summary, step } = get();
      if (!summary) return;
      const target = chapterTarget(summary.chapters, step, direction);
      if (target !== null) get().seek(target);
    },
  };
};
