import { describe, expect, it } from 'vitest';
import type { SweepPlan, SweepReport } from '../engine/types';
import { urlToState } from '../share/url';
import { cliCommand, EMPTY_FORM, fieldsOf, formatChangePct, poolSize, requestOf, runLink, smallMultiples, sweepJobs, unitOf, type SweepBase, type SweepRunRecord } from './sweepModel';

const plan: SweepPlan = {
  scenario: 'numa-pmbench',
  scenarioSeed: 11,
  toggle: 'numa_delay_map',
  toggleValues: [false, true],
  vary: { name: 'node1_cpus', values: [16, 32] },
  seeds: [1, 2],
  columns: ['irq_tlb_count'],
};

const base: SweepBase = {
  scenario: { kind: 'builtin', id: 'numa-pmbench', hash: null },
  scenarioText: 'text',
  label: 'numa-pmbench',
  toggles: { tlb_flush_multi: true },
  params: { seconds: 15 },
};

describe('the form as a request', () => {
  it('passes what was typed to the engine, and refuses only a seed count that is no whole number', () => {
    const form = { ...EMPTY_FORM, toggle: 'numa_delay_map', vary: 'node1_cpus', values: '16, 32', seeds: ' 3 ' };
    expect(requestOf(form)).toEqual({ request: { toggle: 'numa_delay_map', vary: 'node1_cpus', values: '16, 32', seeds: 3, columns: null, maxRuns: 200 } });
    expect(requestOf({ ...form, seeds: '' })).toMatchObject({ request: { seeds: null } });
    // Without a parameter, the values typed are kept in the form but not asked for.
    expect(requestOf({ ...form, vary: '' })).toMatchObject({ request: { vary: null, values: '' } });
    for (const bad of ['-1', '2.5', 'two', '1e3']) expect(requestOf({ ...form, seeds: bad })).toEqual({ problem: { field: 'seeds', message: `\`${bad}\` is not a whole number of seeds` } });
  });

  it('marks both values and seeds for too many runs', () => {
    expect(fieldsOf({ field: 'runs', message: '' })).toEqual(['values', 'seeds']);
    expect(fieldsOf({ field: 'values', message: '' })).toEqual(['values']);
    expect(fieldsOf(null)).toEqual([]);
  });

  it('sizes the pool to the machine, at most the runs and 8', () => {
    expect(poolSize(2, 12)).toBe(2);
    expect(poolSize(16, 12)).toBe(8);
    expect(poolSize(16, 3)).toBe(3);
    expect(poolSize(undefined, 12)).toBe(2);
    expect(poolSize(0, 12)).toBe(2);
  });
});

describe('runs and their links', () => {
  it("lists the runs in mmviz sweep's order with the lab's toggles and params", () => {
    const jobs = sweepJobs(plan, base);
    expect(jobs).toHaveLength(8);
    expect(jobs.slice(0, 3).map((j) => [j.value, j.seed, j.toggleValue])).toEqual([
      [16, 1, false],
      [16, 1, true],
      [16, 2, false],
    ]);
    expect(jobs[1]).toMatchObject({ toggles: { tlb_flush_multi: true, numa_delay_map: true }, params: { seconds: 15, node1_cpus: 16 } });
  });

  it('a link opens exactly the run: its toggles and params, and its seed only when it is not the scenario\'s own', () => {
    const at2 = runLink(plan, base, { value: 32, seed: 2, toggleValue: true }, 1234);
    const read = urlToState(at2);
    expect(read).toEqual({
      ok: true,
      warnings: [],
      state: {
        scenario: { kind: 'builtin', id: 'numa-pmbench', hash: null, seed: 2 },
        toggles: { tlb_flush_multi: true, numa_delay_map: true },
        params: { seconds: 15, node1_cpus: 32 },
        step: 1234,
        selection: null,
      },
    });
    expect(runLink(plan, base, { value: 32, seed: 11, toggleValue: false }, 0)).not.toContain('seed=');
  });

  it('gives the same sweep as a command line', () => {
    const request = { toggle: 'numa_delay_map', vary: 'node1_cpus', values: '16 32,', seeds: 2, columns: null, maxRuns: 200 };
    expect(cliCommand(base, request)).toBe('mmviz sweep numa-pmbench --toggle numa_delay_map --set tlb_flush_multi=on --param seconds=15 --vary node1_cpus=16,32 --seeds 2');
    expect(cliCommand({ ...base, scenario: { kind: 'custom', text: 'x' }, toggles: {} }, { ...request, vary: null, seeds: null, columns: ['a', 'b'] })).toBe(
      'mmviz sweep scenario.toml --toggle numa_delay_map --param seconds=15 --columns a,b',
    );
  });
});

describe('small multiples', () => {
  // A report shaped as the engine makes it (run::sweep): at 16 both seeds, at 32 seed 1 only (a cancelled sweep).
  const report: SweepReport = {
    scenario: 'numa-pmbench',
    toggle: 'numa_delay_map',
    toggle_values: ['off', 'on'],
    vary: plan.vary,
    seeds: [1, 2],
    columns: ['irq_tlb_count'],
    results: [],
    summary: [
      { value: 16, toggle_value: 'on', column: 'irq_tlb_count', seeds: [1, 2], changes_pct: [-90, -96], mean_pct: -93, min_pct: -96, max_pct: -90 },
      { value: 32, toggle_value: 'on', column: 'irq_tlb_count', seeds: [1], changes_pct: [null], mean_pct: null, min_pct: null, max_pct: null },
    ],
    absolute: [
      { value: 16, toggle_value: 'off', column: 'irq_tlb_count', seeds: [1, 2], values: [100, 200], mean: 150, min: 100, max: 200 },
      { value: 16, toggle_value: 'on', column: 'irq_tlb_count', seeds: [1, 2], values: [10, 8], mean: 9, min: 8, max: 10 },
      { value: 32, toggle_value: 'off', column: 'irq_tlb_count', seeds: [1], values: [0], mean: 0, min: 0, max: 0 },
      { value: 32, toggle_value: 'on', column: 'irq_tlb_count', seeds: [1], values: [5], mean: 5, min: 5, max: 5 },
    ],
    runs_planned: 8,
    runs_done: 6,
  };
  const runs: SweepRunRecord[] = [{ value: 16, seed: 2, toggleValue: true, values: {}, steps: 777, warnings: [] }];

  it('draws each change of the report as a linked dot, and the mean with its range', () => {
    const [chart] = smallMultiples(report, plan, base, runs, 'change');
    expect(chart?.yLabel).toBe('change against off, %');
    const [on] = chart?.series ?? [];
    expect(on?.legend).toBe('on against off');
    // 0 before the patch has no percentage: no dot.
    expect(on?.points.map((p) => [p.x, p.seed, p.y])).toEqual([
      [16, 1, -90],
      [16, 2, -96],
    ]);
    expect(on?.means).toEqual([{ x: 16, mean: -93, min: -96, max: -90 }]);
    const dot = on?.points[1];
    expect(dot?.label).toBe('node1_cpus 16, seed 2: irq_tlb_count \u221296.0 % with numa_delay_map on against off. Open the on run');
    // The link goes to the run's last step.
    expect(dot?.href).toBe('#v=2&sc=numa-pmbench&t.numa_delay_map=true&t.tlb_flush_multi=true&p.node1_cpus=16&p.seconds=15&seed=2&step=777');
  });

  it("draws each toggle value's own values in the counter's unit", () => {
    const [chart] = smallMultiples(report, plan, base, runs, 'absolute');
    expect(chart?.yLabel).toBe('count');
    expect(chart?.series.map((s) => [s.legend, s.points.length, s.means.map((m) => m.mean)])).toEqual([
      ['numa_delay_map off', 3, [150, 0]],
      ['numa_delay_map on', 3, [9, 5]],
    ]);
    expect(chart?.series[0]?.points[0]?.href).toMatch(/t\.numa_delay_map=false/);
  });

  it('names units from the engine\'s names', () => {
    expect([unitOf('try_to_unmap_pct'), unitOf('sys_time_ns'), unitOf('accesses_per_ms'), unitOf('throughput'), unitOf('steps'), unitOf('pgfault')]).toEqual([
      '%',
      'ns',
      'per simulated ms',
      'ops per simulated s',
      'steps',
      'count',
    ]);
    expect([formatChangePct(-95.06), formatChangePct(3)]).toEqual(['\u221295.1 %', '+3.0 %']);
  });
});
