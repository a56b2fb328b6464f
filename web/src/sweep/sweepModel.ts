// The sweep's pure logic: the form as a request for the engine, the runs a plan asks for,
// a link to each run, the equivalent `mmviz sweep` command, and the report (the engine's
// arithmetic, `run::sweep`) laid out as small multiples. No numbers are computed here:
// every mean, min, max and change comes from the engine's report.
import { format } from 'd3';
import type { ParamInfo, SweepField, SweepPlan, SweepProblem, SweepReport, SweepRequest, ToggleValue } from '../engine/types';
import { stateToUrl, type ScenarioRef } from '../share/url';

/** The most runs one sweep may ask for in the lab (values x seeds x toggle values). */
export const MAX_SWEEP_RUNS = 200;

/** The most workers a sweep runs on, whatever the machine says it has. */
export const MAX_SWEEP_WORKERS = 8;

/** The sweep form as typed: nothing in it is lost on a bad value. */
export interface SweepForm {
  /** The toggle compared ('' until chosen). */
  toggle: string;
  /** The parameter varied ('' for none). */
  vary: string;
  /** Its values as typed. */
  values: string;
  /** The number of seeds as typed ('' for the scenario's own seed). */
  seeds: string;
  /** The counters and metrics shown; null for those the scenario's [[expect]] blocks name. */
  columns: string[] | null;
}

/** An empty form. */
export const EMPTY_FORM: SweepForm = { toggle: '', vary: '', values: '', seeds: '', columns: null };

/** What a sweep runs on: the lab's scenario, toggles and params when it started. */
export interface SweepBase {
  /** The scenario (without a seed: each run says its own). */
  scenario: ScenarioRef;
  scenarioText: string;
  /** How people call it: its id, or "the custom scenario". */
  label: string;
  /** The lab's toggle overrides. */
  toggles: Record<string, ToggleValue>;
  /** The lab's param overrides, without the varied one. */
  params: Record<string, number>;
}

/** One run of a sweep: where it sits in the plan, and what the engine is asked to run. */
export interface SweepJob {
  value: number | null;
  seed: number;
  toggleValue: ToggleValue;
  toggles: Record<string, ToggleValue>;
  params: Record<string, number>;
}

/** A run done: its place, its numbers, its step count (for a link to its end) and warnings. */
export interface SweepRunRecord {
  value: number | null;
  seed: number;
  toggleValue: ToggleValue;
  values: Record<string, number>;
  steps: number;
  warnings: string[];
}

/** The request for the engine, or what is wrong with the form before the engine is asked (a seed count that is no whole number). */
export function requestOf(form: SweepForm, maxRuns = MAX_SWEEP_RUNS): { request: SweepRequest } | { problem: SweepProblem } {
  const seedsText = form.seeds.trim();
  let seeds: number | null = null;
  if (seedsText !== '') {
    if (!/^\d{1,9}$/.test(seedsText)) return { problem: { field: 'seeds', message: `\`${seedsText}\` is not a whole number of seeds` } };
    seeds = Number(seedsText);
  }
  return {
    request: {
      toggle: form.toggle,
      vary: form.vary === '' ? null : form.vary,
      values: form.vary === '' ? '' : form.values,
      seeds,
      columns: form.columns,
      maxRuns,
    },
  };
}

/** Workers for a sweep of `runs` runs on a machine of `cores` logical CPUs (navigator.hardwareConcurrency). */
export function poolSize(cores: number | undefined, runs: number): number {
  const c = cores !== undefined && Number.isFinite(cores) && cores >= 1 ? Math.trunc(cores) : 2;
  return Math.max(1, Math.min(c, MAX_SWEEP_WORKERS, runs));
}

/** The toggle values of a plan as the report names them ("off", "on", or the enum value). */
export function toggleValueText(v: ToggleValue): string {
  return v === true ? 'on' : v === false ? 'off' : v;
}

/** Every run of a plan, in `mmviz sweep`'s order (values, then seeds, then toggle values), with the toggles and params it runs with. */
export function sweepJobs(plan: SweepPlan, base: SweepBase): SweepJob[] {
  const jobs: SweepJob[] = [];
  for (const value of plan.vary ? plan.vary.values : [null]) {
    for (const seed of plan.seeds) {
      for (const toggleValue of plan.toggleValues) {
        jobs.push({
          value,
          seed,
          toggleValue,
          toggles: { ...base.toggles, [plan.toggle]: toggleValue },
          params: plan.vary && value !== null ? { ...base.params, [plan.vary.name]: value } : { ...base.params },
        });
      }
    }
  }
  return jobs;
}

/** A run for people: "node1_cpus=16, numa_delay_map on, seed 2". */
export function jobLabel(plan: SweepPlan, job: Pick<SweepJob, 'value' | 'seed' | 'toggleValue'>): string {
  const parts: string[] = [];
  if (plan.vary && job.value !== null) parts.push(`${plan.vary.name}=${job.value}`);
  parts.push(`${plan.toggle} ${toggleValueText(job.toggleValue)}`);
  parts.push(`seed ${job.seed}`);
  return parts.join(', ');
}

/** The link (a fragment, '#…') that opens a run of the sweep in the lab at `step`: its scenario, toggles, params, and its seed when it is not the scenario's own. */
export function runLink(plan: SweepPlan, base: SweepBase, job: Pick<SweepJob, 'value' | 'seed' | 'toggleValue'>, step: number): string {
  const { seed: _ignored, ...scenario } = base.scenario;
  const params = plan.vary && job.value !== null ? { ...base.params, [plan.vary.name]: job.value } : base.params;
  const fragment = stateToUrl({
    scenario: job.seed === plan.scenarioSeed ? scenario : { ...scenario, seed: job.seed },
    toggles: { ...base.toggles, [plan.toggle]: job.toggleValue },
    params,
    step,
    selection: null,
  });
  return `#${fragment}`;
}

/** Quotes a shell word when it needs it. */
function shellWord(w: string): string {
  return /^[A-Za-z0-9_.,=/:-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** The same sweep on the command line (`mmviz sweep …`); a custom scenario is named `scenario.toml`. */
export function cliCommand(base: SweepBase, request: SweepRequest): string {
  const args = ['mmviz', 'sweep', base.scenario.kind === 'builtin' ? base.scenario.id : 'scenario.toml', '--toggle', request.toggle];
  for (const [id, v] of Object.entries(base.toggles).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (id !== request.toggle) args.push('--set', `${id}=${toggleValueText(v)}`);
  }
  for (const [name, v] of Object.entries(base.params).sort(([a], [b]) => (a < b ? -1 : 1))) args.push('--param', `${name}=${v}`);
  if (request.vary) args.push('--vary', `${request.vary}=${request.values.split(/[\s,]+/).filter(Boolean).join(',')}`);
  if (request.seeds !== null) args.push('--seeds', String(request.seeds));
  if (request.columns) args.push('--columns', request.columns.join(','));
  return args.map(shellWord).join(' ');
}

/** The form fields a problem marks (a problem with the number of runs marks both values and seeds). */
export function fieldsOf(problem: SweepProblem | null): SweepField[] {
  if (!problem) return [];
  return problem.field === 'runs' ? ['values', 'seeds'] : [problem.field];
}

/** The unit a counter or metric is counted in, from its name (the engine's naming: `_pct`, `_ns`, `_per_ms`). */
export function unitOf(name: string): string {
  if (name.endsWith('_pct')) return '%';
  if (name.endsWith('_ns')) return 'ns';
  if (name.endsWith('_per_ms')) return 'per simulated ms';
  if (name === 'throughput') return 'ops per simulated s';
  if (name === 'steps') return 'steps';
  return 'count';
}

const fmtSig = format('.4~r');
const fmtGroup = format(',');

/** A number for a label: grouped digits for large whole numbers, four significant digits otherwise. */
export function formatValue(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) >= 1) return fmtGroup(v);
  return fmtSig(v);
}

/** A change in percent for a label: "+3.1 %", "−95.1 %". */
export function formatChangePct(v: number): string {
  const t = format('.1f')(Math.abs(v));
  return `${v < 0 ? '\u2212' : '+'}${t} %`;
}

/** One run's point on a chart: a link to the run. */
export interface ChartPoint {
  /** The varied parameter's value (null without one). */
  x: number | null;
  y: number;
  seed: number;
  /** Its index among the point's seeds (to spread the dots of one x a little). */
  seedIndex: number;
  href: string;
  /** The accessible name of the link. */
  label: string;
}

/** The mean over seeds at one x, with its range. */
export interface ChartMean {
  x: number | null;
  mean: number;
  min: number;
  max: number;
}

/** One line of a chart: a toggle value's (or a later toggle value's change). */
export interface ChartSeries {
  /** The toggle value (text) the line is of. */
  toggleValue: string;
  /** For the legend: "on against off", or "off". */
  legend: string;
  /** Index of its colour (the toggle value's index in the plan). */
  colour: number;
  means: ChartMean[];
  points: ChartPoint[];
}

/** One small chart: a counter or metric. */
export interface SmallMultiple {
  column: string;
  /** The y axis' label with its unit. */
  yLabel: string;
  series: ChartSeries[];
}

/** How the charts show a counter: its change between the toggle values, or each toggle value's own value. */
export type ChartMode = 'change' | 'absolute';

/** The report as small multiples: one chart per column, points linked to their runs. */
export function smallMultiples(report: SweepReport, plan: SweepPlan, base: SweepBase, runs: readonly SweepRunRecord[], mode: ChartMode): SmallMultiple[] {
  const first = report.toggle_values[0] ?? '';
  const toggleValueOf = (text: string): ToggleValue => plan.toggleValues[report.toggle_values.indexOf(text)] ?? text;
  const stepsOf = (value: number | null, seed: number, tv: ToggleValue): number =>
    runs.find((r) => r.value === value && r.seed === seed && r.toggleValue === tv)?.steps ?? 0;
  const vary = plan.vary?.name;
  const where = (x: number | null, seed: number): string => `${vary && x !== null ? `${vary} ${formatValue(x)}, ` : ''}seed ${seed}`;
  return report.columns.map((column) => {
    const unit = unitOf(column);
    if (mode === 'change') {
      const series: ChartSeries[] = report.toggle_values.slice(1).map((tv, i) => {
        const rows = report.summary.filter((s) => s.column === column && s.toggle_value === tv);
        const value = toggleValueOf(tv);
        const points: ChartPoint[] = [];
        const means: ChartMean[] = [];
        for (const row of rows) {
          row.changes_pct.forEach((c, k) => {
            const seed = row.seeds[k];
            if (c === null || seed === undefined) return;
            const job = { value: row.value, seed, toggleValue: value };
            points.push({
              x: row.value,
              y: c,
              seed,
              seedIndex: k,
              href: runLink(plan, base, job, stepsOf(row.value, seed, value)),
              label: `${where(row.value, seed)}: ${column} ${formatChangePct(c)} with ${plan.toggle} ${tv} against ${first}. Open the ${tv} run`,
            });
          });
          if (row.mean_pct !== null && row.min_pct !== null && row.max_pct !== null) means.push({ x: row.value, mean: row.mean_pct, min: row.min_pct, max: row.max_pct });
        }
        return { toggleValue: tv, legend: `${tv} against ${first}`, colour: i + 1, means, points };
      });
      return { column, yLabel: `change against ${first}, %`, series };
    }
    const series: ChartSeries[] = report.toggle_values.map((tv, i) => {
      const rows = report.absolute.filter((a) => a.column === column && a.toggle_value === tv);
      const value = toggleValueOf(tv);
      const points: ChartPoint[] = [];
      const means: ChartMean[] = [];
      for (const row of rows) {
        row.values.forEach((v, k) => {
          const seed = row.seeds[k];
          if (v === null || seed === undefined) return;
          points.push({
            x: row.value,
            y: v,
            seed,
            seedIndex: k,
            href: runLink(plan, base, { value: row.value, seed, toggleValue: value }, stepsOf(row.value, seed, value)),
            label: `${where(row.value, seed)}: ${column} ${formatValue(v)}${unit === 'count' ? '' : ` ${unit}`} with ${plan.toggle} ${tv}. Open this run`,
          });
        });
        if (row.mean !== null && row.min !== null && row.max !== null) means.push({ x: row.value, mean: row.mean, min: row.min, max: row.max });
      }
      return { toggleValue: tv, legend: `${plan.toggle} ${tv}`, colour: i, means, points };
    });
    return { column, yLabel: unit, series };
  });
}

/** The params a sweep may vary: the scenario's, with their ranges. */
export function varyChoices(params: readonly ParamInfo[]): { name: string; hint: string }[] {
  return params.map((p) => ({ name: p.name, hint: `${formatValue(p.min)} to ${formatValue(p.max)}, now ${formatValue(p.value)}` }));
}
