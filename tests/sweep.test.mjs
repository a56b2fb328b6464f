// The lab's sweep and `mmviz sweep` give the same numbers: the lab plans a sweep with the
// wasm package's `sweepPlan`, runs each of its runs with `sweepRun` (as its Web Workers do)
// and asks `sweepReport` for the arithmetic and the table; the report must equal what
// `mmviz sweep --json` prints for the same arguments, and the table what it prints without
// `--json`. Needs `npm run build:wasm` and `cargo build -p mmviz-cli` first (scripts/test-all.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = path.join(root, 'web/src/wasm-pkg');
const mmviz = process.env.MMVIZ_BIN ?? path.join(root, 'target/debug/mmviz');

const wasm = await import(path.join(pkg, 'mmviz.js'));
await wasm.default({ module_or_path: readFileSync(path.join(pkg, 'mmviz_bg.wasm')) });
const builtin = (id) => wasm.builtinScenarios().find((b) => b.id === id);

/**
 * What the lab does for a sweep of `id` (toggles and fixed params as the lab holds them):
 * the plan, then every run in the plan's order, then the report of their numbers.
 */
function labSweep(id, toggles, params, request) {
  const { text } = builtin(id);
  const outcome = wasm.sweepPlan(text, params, request);
  assert.ok(outcome.plan, JSON.stringify(outcome.problem));
  const { plan } = outcome;
  const runs = [];
  for (const value of plan.vary ? plan.vary.values : [null]) {
    for (const seed of plan.seeds) {
      for (const toggleValue of plan.toggleValues) {
        const runParams = plan.vary ? { ...params, [plan.vary.name]: value } : params;
        const got = wasm.sweepRun(text, { ...toggles, [plan.toggle]: toggleValue }, runParams, seed);
        runs.push({ value, seed, toggleValue, values: got.values });
      }
    }
  }
  // Any order: the report matches runs to the plan by value, seed and toggle value.
  runs.reverse();
  return wasm.sweepReport(text, params, request, runs);
}

/** `mmviz sweep` with `args`, as JSON and as text. */
function cliSweep(args) {
  const json = JSON.parse(execFileSync(mmviz, ['sweep', ...args, '--json'], { encoding: 'utf8' }));
  const text = execFileSync(mmviz, ['sweep', ...args], { encoding: 'utf8' });
  return { json, text };
}

test('a sweep over a parameter and seeds: the lab and mmviz sweep give the same report and table', () => {
  // numa-pmbench at its quick size over node1_cpus, with one toggle set away from the scenario's.
  const params = { processes: 2, threads: 2, seconds: 12 };
  const toggles = { tlb_flush_multi: true };
  const request = { toggle: 'numa_delay_map', vary: 'node1_cpus', values: '2, 4', seeds: 2, columns: null, maxRuns: 200 };
  const lab = labSweep('numa-pmbench', toggles, params, request);
  const cli = cliSweep([
    'numa-pmbench',
    '--toggle',
    'numa_delay_map',
    '--set',
    'tlb_flush_multi=on',
    ...Object.entries(params).flatMap(([k, v]) => ['--param', `${k}=${v}`]),
    '--vary',
    'node1_cpus=2,4',
    '--seeds',
    '2',
  ]);
  assert.deepEqual(lab.report, cli.json);
  assert.equal(lab.table, cli.text);
  // It is a real sweep: 2 values x 2 seeds, every run done, the expected counters shown.
  assert.equal(lab.report.runs_done, 8);
  assert.equal(lab.report.results.length, 4);
  assert.ok(lab.report.columns.includes('irq_tlb_count'), lab.report.columns.join(','));
  assert.ok(lab.report.absolute.every((a) => a.values.length === 2 && a.mean !== null), JSON.stringify(lab.report.absolute));
  // The toggles the lab holds reach every run: without tlb_flush_multi the IPIs differ.
  const without = labSweep('numa-pmbench', {}, params, request);
  const ipis = (r) => r.absolute.filter((a) => a.column === 'irq_tlb_count').map((a) => a.values);
  assert.notDeepEqual(ipis(without.report), ipis(lab.report));
  assert.ok(lab.table.split('\n').every((l) => l.length <= 72), lab.table);
});

test('a sweep of named columns at the scenario seed: the same report and table', () => {
  const request = { toggle: 'numa_delay_map', vary: null, values: '', seeds: null, columns: ['nr_tlb_remote_flush', 'throughput', 'steps'], maxRuns: null };
  const lab = labSweep('numa-hint-fault-101', {}, { pages: 4 }, request);
  const cli = cliSweep(['numa-hint-fault-101', '--toggle', 'numa_delay_map', '--param', 'pages=4', '--columns', 'nr_tlb_remote_flush,throughput,steps']);
  assert.deepEqual(lab.report, cli.json);
  assert.equal(lab.table, cli.text);
});

test('a bad sweep names the field, as the CLI does', () => {
  const { text } = builtin('numa-pmbench');
  const ask = (request) => wasm.sweepPlan(text, {}, { toggle: 'numa_delay_map', vary: 'node1_cpus', values: '16', seeds: null, columns: null, maxRuns: 200, ...request });
  assert.deepEqual(ask({ values: '16, 999' }).problem, { field: 'values', message: '999 is outside the range of `node1_cpus`, 1 to 128' });
  assert.equal(ask({ vary: 'cpus' }).problem.field, 'vary');
  assert.equal(ask({ toggle: 'nope' }).problem.field, 'toggle');
  assert.equal(ask({ seeds: 0 }).problem.field, 'seeds');
  assert.equal(ask({ columns: ['irq_tlb_cnt'] }).problem.field, 'columns');
  assert.match(ask({ values: '16,24,32', seeds: 40 }).problem.message, /^3 values x 40 seeds x 2 toggle values are 240 runs; at most 200/);
  // The same range message from the CLI, behind its flag.
  let err = '';
  try {
    execFileSync(mmviz, ['sweep', 'numa-pmbench', '--toggle', 'numa_delay_map', '--vary', 'node1_cpus=16,999'], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    err = e.stderr;
  }
  assert.equal(err.trim(), 'mmviz: --vary node1_cpus: 999 is outside the range of `node1_cpus`, 1 to 128');
});

test('a run at another seed: the seed reaches the engine, and the prepared run equals the counters-only one', () => {
  const { text } = builtin('numa-hint-fault-101');
  const own = wasm.sweepRun(text, {}, { pages: 4 }, undefined);
  const loaded = wasm.Simulation.load(text, {}, { pages: 4 });
  const ownSeed = loaded.summary().seed;
  loaded.free();
  assert.deepEqual(wasm.sweepRun(text, {}, { pages: 4 }, ownSeed).values, own.values);
  for (const seed of [2, 3]) {
    const counted = wasm.sweepRun(text, {}, { pages: 4 }, seed);
    const sim = wasm.Simulation.load(text, {}, { pages: 4 }, seed);
    while (!sim.isPrepared()) sim.prepare(100_000);
    assert.equal(sim.summary().seed, seed);
    assert.equal(sim.summary().totalSteps, counted.steps);
    sim.seek(counted.steps);
    for (const [name, v] of Object.entries(sim.counters())) assert.equal(v, counted.values[name], `${name} at seed ${seed}`);
    sim.free();
  }
  assert.throws(() => wasm.Simulation.load(text, {}, {}, 1.5), /seed must be a whole number/);
  assert.throws(() => wasm.sweepRun(text, {}, {}, -1), /seed must be a whole number/);
});
