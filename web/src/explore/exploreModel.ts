// The Explore view's arithmetic-free parts: what a search ran on, the links that open an
// outcome's interleaving (alone, or A/B of the same schedule under two toggle values), and
// the same search as a command line. Every number shown comes from the engine's
// ExploreReport (`mmviz explore --json` without `seconds` and `replay`).
import type { ExploreReport } from '../engine/generated/ExploreReport';
import type { OutcomeReport } from '../engine/generated/OutcomeReport';
import type { ValueReport } from '../engine/generated/ValueReport';
import type { PatchInfo, ToggleValue } from '../engine/types';
import { stateToUrl, type ScenarioRef } from '../share/url';

export type { ExploreReport, OutcomeReport, ValueReport };

/** What a search ran on: the lab's scenario, toggles and params when it started, and the toggle it varies. */
export interface ExploreBase {
  /** The scenario as the lab's own link names it (a built-in with its text's hash), at no seed and no schedule. */
  scenario: ScenarioRef;
  scenarioText: string;
  /** "mremap-race-101" or "the custom scenario". */
  label: string;
  /** The lab's toggle overrides (the varied toggle's value is each outcome's own). */
  toggles: Record<string, ToggleValue>;
  params: Record<string, number>;
  /** The toggle under review (the scenario's `[explore]`), or null: the toggles as set. */
  toggle: string | null;
}

/** The budgets offered: a quick look, a longer one, and the scenario's own (its `[explore]` budget). */
export function budgetChoices(scenarioBudget: number | null): { value: number; label: string }[] {
  const out = [
    { value: 2_000, label: '2,000 states (quick)' },
    { value: 20_000, label: '20,000 states' },
  ];
  if (scenarioBudget !== null && scenarioBudget > 0 && !out.some((c) => c.value === scenarioBudget)) {
    out.push({ value: scenarioBudget, label: `${scenarioBudget.toLocaleString('en')} states (the scenario's own: long in the browser)` });
  }
  return out;
}

/** A toggle value as the report writes it ("deferred", "true") read as the lab's ToggleValue. */
export function readToggleValue(text: string): ToggleValue {
  return text === 'true' ? true : text === 'false' ? false : text;
}

/** The toggles a value's search ran with: the lab's, with the varied toggle's value on top. */
export function valueToggles(base: ExploreBase, value: ValueReport): Record<string, ToggleValue> {
  const out: Record<string, ToggleValue> = { ...base.toggles };
  for (const [id, v] of Object.entries(value.toggles)) out[id] = readToggleValue(v);
  return out;
}

/** The varied toggle's value in a value's search, or null (`as set`). */
export function variedValue(base: ExploreBase, value: ValueReport): ToggleValue | null {
  if (base.toggle === null) return null;
  const v = value.toggles[base.toggle];
  return v === undefined ? null : readToggleValue(v);
}

/** The step to open an outcome at: the frame after its first finding's last step, else the start. */
export function openStep(outcome: OutcomeReport): number {
  const steps = outcome.findings[0]?.steps ?? [];
  return steps.length > 0 ? Math.max(...steps) + 1 : 0;
}

/** The scenario reference of an outcome's run: the search's scenario under the outcome's schedule. */
function scheduled(base: ExploreBase, outcome: OutcomeReport): ScenarioRef {
  const { seed: _seed, schedule: _schedule, ...scenario } = base.scenario;
  return outcome.schedule === '' ? scenario : { ...scenario, schedule: outcome.schedule };
}

/** The link (a fragment, '#…') that opens an outcome's interleaving as a normal run: its toggle value, its schedule, at its finding. */
export function openLink(base: ExploreBase, value: ValueReport, outcome: OutcomeReport): string {
  return `#${stateToUrl({ scenario: scheduled(base, outcome), toggles: valueToggles(base, value), params: base.params, step: openStep(outcome), selection: null })}`;
}

/** The link that opens the same schedule under the outcome's toggle value (A) and `other` (B) side by side. */
export function abLink(base: ExploreBase, value: ValueReport, outcome: OutcomeReport, other: ToggleValue): string | null {
  const a = variedValue(base, value);
  if (base.toggle === null || a === null) return null;
  const { [base.toggle]: _varied, ...toggles } = base.toggles;
  const step = openStep(outcome);
  return `#${stateToUrl({
    scenario: scheduled(base, outcome),
    toggles,
    params: base.params,
    step,
    selection: null,
    ab: { kind: 'toggle', id: base.toggle, a, b: other },
    bStep: null,
  })}`;
}

/** The varied toggle's other values, for an A/B of an outcome under `value` (in the registry's order). */
export function otherValues(patches: readonly PatchInfo[], base: ExploreBase, value: ValueReport): ToggleValue[] {
  const a = variedValue(base, value);
  const patch = patches.find((p) => p.id === base.toggle);
  if (!patch || a === null) return [];
  return patch.values.filter((v) => v !== a);
}

/** "lost_write at step 108", "stale_tlb_store at steps 70, 73". */
export function findingLine(f: { kind: string; steps: readonly number[] }): string {
  if (f.steps.length === 0) return f.kind;
  return `${f.kind} at step${f.steps.length === 1 ? '' : 's'} ${f.steps.join(', ')}`;
}

/** "13 picks" / "the default order": how far the schedule departs from the default. */
export function scheduleSize(schedule: string): string {
  if (schedule.trim() === '') return 'the default order';
  const picks = schedule.split(',').length;
  return `${picks} pick${picks === 1 ? '' : 's'}`;
}

/** " within 3 deviations of the default order" under a delay bound, else "". */
export function boundText(delays: number | null | undefined): string {
  return delays === null || delays === undefined ? '' : ` within ${delays} deviation${delays === 1 ? '' : 's'} of the default order`;
}

/**
 * Whether a value's search covered every interleaving (every schedule within the delay bound,
 * when the search had one), and if not, why it stopped (the engine's words).
 */
export function coverage(value: ValueReport, delays: number | null | undefined): string {
  if (!value.exhaustive) return `no: stopped, ${value.cut ?? 'a budget reached'}`;
  return delays === null || delays === undefined ? 'yes: every interleaving' : `yes: every schedule${boundText(delays)}`;
}

/** Quotes a shell word when it needs it. */
function shellWord(w: string): string {
  return /^[A-Za-z0-9_.,=/:-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** The same search on the command line (`mmviz explore …`); a custom scenario is named `scenario.toml`. */
export function cliCommand(base: ExploreBase, budget: number): string {
  const parts = ['mmviz', 'explore', base.scenario.kind === 'builtin' ? base.scenario.id : 'scenario.toml'];
  if (base.toggle !== null) parts.push('--toggle', base.toggle);
  for (const [id, v] of Object.entries(base.toggles).sort(([x], [y]) => (x < y ? -1 : 1))) if (id !== base.toggle) parts.push('--set', `${id}=${String(v)}`);
  for (const [name, v] of Object.entries(base.params).sort(([x], [y]) => (x < y ? -1 : 1))) parts.push('--param', `${name}=${v}`);
  parts.push('--budget', String(budget));
  return parts.map(shellWord).join(' ');
}

/** The totals over a report's values: bad outcomes, and whether every search was exhaustive. */
export function reportTotals(report: ExploreReport): { bad: number; exhaustive: boolean } {
  return {
    bad: report.values.reduce((n, v) => n + v.outcomes.filter((o) => o.bad).length, 0),
    exhaustive: report.values.every((v) => v.exhaustive),
  };
}
