// What the engine's mechanism metadata (`SimEngine.mechanisms()`) tells the panels: which
// mechanism declares a counter, which mechanisms a run exercises, which counters to plot
// first. Pure, and it names no mechanism: everything comes from the metadata, so a new
// mechanism in the engine needs nothing here.
import type { CounterInfo, CounterSeries, MechanismInfo, PatchInfo, ToggleValue } from '../engine/types';

/** The counters of one mechanism that a run has, in the order the mechanism declares them. */
export interface CounterGroup {
  /** The mechanism declaring them; null for counters no mechanism declares. */
  mechanism: MechanismInfo | null;
  counters: CounterInfo[];
}

/**
 * Groups a run's counters (`names`) by the mechanism that declares them: groups in the
 * metadata's order, each group's counters in the mechanism's order. Mechanisms with none of
 * the counters get no group; counters no mechanism declares come last, in `names` order,
 * in a group whose mechanism is null (no doc, taken as kernel counters).
 */
export function groupCounters(mechanisms: readonly MechanismInfo[], names: readonly string[]): CounterGroup[] {
  const wanted = new Set(names);
  const placed = new Set<string>();
  const groups: CounterGroup[] = [];
  for (const mechanism of mechanisms) {
    const counters = mechanism.counters.filter((c) => wanted.has(c.name) && !placed.has(c.name));
    for (const c of counters) placed.add(c.name);
    if (counters.length > 0) groups.push({ mechanism, counters });
  }
  const rest = names.filter((n) => !placed.has(n));
  if (rest.length > 0) groups.push({ mechanism: null, counters: [...new Set(rest)].map((name) => ({ name, doc: '', kernel: true })) });
  return groups;
}

/** The value of every counter at the end of the run (the last sample of the series; 0 when it has none). */
export function finalCounters(series: CounterSeries): Record<string, number> {
  return Object.fromEntries(Object.entries(series.counters).map(([name, values]) => [name, values.at(-1) ?? 0]));
}

/** Whether a counter moves in a run: some sample of its series is not zero. */
export function counterMoves(series: CounterSeries, name: string): boolean {
  return series.counters[name]?.some((v) => v !== 0) ?? false;
}

/** What a run says about its mechanisms: its counters at the end, its toggle values and the registry they are compared with. */
export interface RunFacts {
  finalCounters: Record<string, number>;
  toggles: Record<string, ToggleValue>;
  patches: readonly PatchInfo[];
}

/**
 * The mechanisms a run exercises, in the metadata's order: those with a counter that is not
 * zero at the end of the run, or with a toggle the run sets (to a value other than the
 * registry's default: the scenario's `[toggles]` or the user switched it).
 */
export function exercisedMechanisms(mechanisms: readonly MechanismInfo[], run: RunFacts): MechanismInfo[] {
  const toggleSet = (id: string): boolean => {
    const value = run.toggles[id];
    const patch = run.patches.find((p) => p.id === id);
    return value !== undefined && patch !== undefined && value !== patch.default;
  };
  return mechanisms.filter((m) => m.counters.some((c) => (run.finalCounters[c.name] ?? 0) !== 0) || m.toggles.some(toggleSet));
}

/** How many counters the Plots panel draws until the user picks others. */
export const MAX_DEFAULT_PLOTS = 4;

/**
 * The counters plotted until the user picks others: those the mechanisms' views name to
 * plot that move in this run, without repeats, at most `max`. The most specific mechanism
 * comes first: the registry lists a mechanism after those it builds on (core, migrate,
 * numa, fork…), so views are taken in reverse metadata order, each in its own order; a run
 * of NUMA balancing plots NUMA's counters before page migration's. When no view names a
 * moving counter: the first moving counters of `names` (the run's counters in their
 * order). Empty when nothing moves.
 */
export function defaultPlotCounters(mechanisms: readonly MechanismInfo[], series: CounterSeries, names: readonly string[], max = MAX_DEFAULT_PLOTS): string[] {
  const taken: string[] = [];
  for (const m of [...mechanisms].reverse()) {
    for (const view of m.views) {
      for (const name of view.plots) {
        if (taken.length < max && !taken.includes(name) && counterMoves(series, name)) taken.push(name);
      }
    }
  }
  if (taken.length > 0) return taken;
  return [...new Set(names)].filter((name) => counterMoves(series, name)).slice(0, max);
}
