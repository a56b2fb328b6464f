// End-to-end tests of the sweep (Sweep… in the header): a sweep of numa-pmbench over
// node1_cpus drawn as small multiples with the numbers `mmviz sweep` gives, a point that
// opens its run, bad input named by field with nothing typed lost, and Cancel mid-way.
// Registered by run.mjs (the runner), which owns the browser and the server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

/** numa-pmbench at its quick size (wasm-core/engine/src/builtin.rs), node1_cpus aside. */
const QUICK = { processes: 4, threads: 2, seconds: 15 };
const QUICK_FRAGMENT = Object.entries(QUICK)
  .map(([k, v]) => `p.${k}=${v}`)
  .join('&');
const VALUES = [4, 8, 16];
const SEEDS = 2;

/**
 * The sweep as the engine computes it in Node (the wasm package: plan, every run, report),
 * which tests/sweep.test.mjs holds equal to `mmviz sweep --json`: the oracle for the lab.
 */
function engineSweep(wasm, text, params, request) {
  const { plan } = wasm.sweepPlan(text, params, request);
  assert.ok(plan, 'the oracle plans the sweep');
  const runs = [];
  for (const value of plan.vary ? plan.vary.values : [null]) {
    for (const seed of plan.seeds) {
      for (const toggleValue of plan.toggleValues) {
        const p = plan.vary ? { ...params, [plan.vary.name]: value } : params;
        const got = wasm.sweepRun(text, { [plan.toggle]: toggleValue }, p, seed);
        runs.push({ value, seed, toggleValue, values: got.values, steps: got.steps });
      }
    }
  }
  return { plan, runs, ...wasm.sweepReport(text, params, request, runs) };
}

/** The sweep dialog, opened from the header with the keyboard. */
async function openSweep(lab) {
  const button = lab.page.getByRole('button', { name: 'Sweep…' });
  await button.focus();
  await lab.page.keyboard.press('Enter');
  const dialog = lab.page.getByRole('dialog', { name: 'Sweep' });
  await dialog.waitFor();
  return dialog;
}

/** Fills the form: toggle, parameter, values, seeds. */
async function fillForm(dialog, { toggle = 'numa_delay_map', vary = 'node1_cpus', values, seeds }) {
  await dialog.getByRole('combobox', { name: 'Toggle' }).selectOption(toggle);
  await dialog.getByRole('combobox', { name: 'Parameter' }).selectOption(vary);
  await dialog.getByRole('textbox', { name: 'Values' }).fill(values);
  await dialog.getByRole('textbox', { name: 'Seeds' }).fill(seeds);
}

/**
 * @param {{ newLab: () => Promise<import('./helper.mjs').Lab>, wasm: any, builtins: { id: string, text: string }[] }} h
 */
export function sweepSuite(h) {
  describe('sweep: small multiples', () => {
    it('numa-pmbench over node1_cpus: small multiples with mmviz sweep\'s numbers, and a point opens its run', async () => {
      const text = h.builtins.find((b) => b.id === 'numa-pmbench')?.text;
      assert.ok(text, 'numa-pmbench is built in');
      const request = { toggle: 'numa_delay_map', vary: 'node1_cpus', values: VALUES.join(', '), seeds: SEEDS, columns: null, maxRuns: 200 };
      const oracle = engineSweep(h.wasm, text, QUICK, request);

      const lab = await h.newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      await lab.openScenario(undefined, `v=1&sc=numa-pmbench&${QUICK_FRAGMENT}&p.node1_cpus=4&step=0`);
      await lab.waitForLoaded();
      const dialog = await openSweep(lab);
      // The first field has the focus; the form is the lab's scenario's.
      // (The dialog is named by its title, aria-labelledby.)
      assert.equal(await lab.page.evaluate(() => document.getElementById(document.activeElement?.closest('dialog')?.getAttribute('aria-labelledby') ?? '')?.textContent), 'Sweep: numa-pmbench');
      await fillForm(dialog, { values: '4, 8, 16', seeds: String(SEEDS) });
      await dialog.getByRole('button', { name: 'Run sweep' }).click();
      // Progress with Cancel while it runs (3 values x 2 seeds x off/on = 12 runs).
      const progress = dialog.getByRole('progressbar', { name: 'Sweep runs done' });
      await progress.waitFor({ timeout: 10_000 });
      assert.match(await progress.getAttribute('aria-valuetext'), /^\d+ of 12 runs, /);
      await dialog.getByRole('region', { name: 'Sweep progress' }).getByRole('button', { name: 'Cancel' }).waitFor();
      await lab.screenshot('50a-sweep-running');
      await dialog.getByText(/^12 runs in .* on \d+ workers?\.$/).waitFor({ timeout: 120_000 });

      // One chart per counter the scenario's [[expect]] blocks name, as the CLI shows by default.
      const charts = dialog.getByRole('list', { name: 'Charts' }).getByRole('listitem');
      assert.equal(await charts.count(), oracle.report.columns.length);
      const columns = await dialog.locator('figure[data-column]').evaluateAll((els) => els.map((e) => e.getAttribute('data-column')));
      assert.deepEqual(columns, oracle.report.columns);
      // Each chart: a link per run drawn (3 values x 2 seeds, "on" against "off"), each dot at the engine's change.
      for (const column of oracle.report.columns) {
        const chart = dialog.locator(`figure[data-column="${column}"]`);
        const rows = oracle.report.summary.filter((s) => s.column === column);
        const expected = rows.flatMap((r) => r.changes_pct.map((c, k) => ({ x: r.value, seed: r.seeds[k], y: c }))).filter((p) => p.y !== null);
        assert.equal(await chart.getByRole('link').count(), expected.length, column);
        for (const p of expected) {
          const dot = chart.getByRole('link', { name: new RegExp(`^node1_cpus ${p.x}, seed ${p.seed}: ${column} `) }).locator('circle');
          assert.equal(Number(await dot.getAttribute('data-y')), p.y, `${column} at ${p.x}, seed ${p.seed}`);
        }
        // The y axis says its unit.
        assert.match((await chart.textContent()) ?? '', /change against off, %/);
      }
      await dialog.getByRole('list', { name: 'Charts' }).scrollIntoViewIfNeeded();
      await lab.screenshot('50b-sweep-small-multiples');

      // The plain-text copy is mmviz sweep's table, within 72 columns.
      await dialog.getByRole('button', { name: 'Copy as text' }).click();
      await dialog.getByText('Copied', { exact: true }).waitFor();
      const copied = await lab.page.evaluate(() => navigator.clipboard.readText());
      assert.equal(copied, oracle.table);
      assert.ok(copied.split('\n').every((l) => l.length <= 72), copied);
      assert.match(await dialog.getByText(/^The same on the command line:/).textContent(), /mmviz sweep numa-pmbench --toggle numa_delay_map --param processes=4 --param seconds=15 --param threads=2 --vary node1_cpus=4,8,16 --seeds 2/);

      // A counter added with the picker: drawn from the same runs, none run again.
      await dialog.getByRole('combobox', { name: 'Add a counter' }).selectOption('numa_pte_updates');
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await dialog.locator('figure[data-column="numa_pte_updates"]').waitFor();
      assert.equal(await charts.count(), oracle.report.columns.length + 1);

      // Each toggle value's own values: a line per value, the y axis in the counter's unit.
      await dialog.getByRole('radio', { name: 'Values' }).check();
      const ipis = dialog.locator('figure[data-column="irq_tlb_count"]');
      await ipis.getByRole('link', { name: /^node1_cpus 8, seed 2: irq_tlb_count .* with numa_delay_map off\. Open this run$/ }).waitFor();
      assert.equal(await ipis.getByRole('link').count(), VALUES.length * SEEDS * 2);
      await dialog.locator('figure[data-column="irq_tlb_count"]').scrollIntoViewIfNeeded();
      await lab.screenshot('50c-sweep-values');

      // A point opens its run: node1_cpus 8, seed 2 (not the scenario's own 11), the patch on, at its last step.
      const run = oracle.runs.find((r) => r.value === 8 && r.seed === 2 && r.toggleValue === true);
      const point = ipis.getByRole('link', { name: /^node1_cpus 8, seed 2: irq_tlb_count .* with numa_delay_map on\. Open this run$/ });
      assert.match(await point.getAttribute('href'), /[#&]p\.node1_cpus=8&.*seed=2&step=\d+$/);
      await point.click();
      await dialog.waitFor({ state: 'hidden' });
      await lab.page.waitForFunction(() => /[#&]seed=2&/.test(location.hash) && /t\.numa_delay_map=true/.test(location.hash));
      await lab.waitForLoaded();
      await lab.waitForStep(run.steps, 60_000);
      assert.equal((await lab.readStep()).total, run.steps);
      assert.equal(await lab.readCounter('irq_tlb_count'), run.values.irq_tlb_count);
      assert.equal(await lab.readCounter('numa_pages_migrated'), run.values.numa_pages_migrated);
      assert.equal(await lab.page.getByRole('spinbutton', { name: /node1_cpus/ }).inputValue(), '8');
      await lab.page.getByText('seed 2', { exact: true }).waitFor();
      assert.deepEqual(await lab.alerts(), []);
      await lab.screenshot('50d-sweep-point-opened');
      // The sweep is still there when the dialog opens again.
      const again = await openSweep(lab);
      await again.locator('figure[data-column="irq_tlb_count"]').waitFor();
      await lab.page.keyboard.press('Escape');
      await again.waitFor({ state: 'hidden' });
      await lab.page.close();
    });

    it('bad input names the field and keeps what was typed; Cancel stops a sweep mid-way', async () => {
      const lab = await h.newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      await lab.openScenario(undefined, `v=1&sc=numa-pmbench&${QUICK_FRAGMENT}&step=0`);
      await lab.waitForLoaded();
      const dialog = await openSweep(lab);
      const values = dialog.getByRole('textbox', { name: 'Values' });
      const seeds = dialog.getByRole('textbox', { name: 'Seeds' });
      // A value outside the parameter's range.
      await fillForm(dialog, { values: '16, 999', seeds: '' });
      await dialog.getByRole('button', { name: 'Run sweep' }).click();
      await dialog.getByRole('alert').filter({ hasText: '999 is outside the range of `node1_cpus`, 1 to 128' }).waitFor();
      assert.equal(await values.getAttribute('aria-invalid'), 'true');
      assert.equal(await values.inputValue(), '16, 999');
      await lab.screenshot('50e-sweep-bad-value');
      // Too many runs: both fields it depends on are marked, nothing is lost.
      await values.fill('16, 24, 32');
      await seeds.fill('500');
      await dialog.getByRole('button', { name: 'Run sweep' }).click();
      await dialog.getByRole('alert').filter({ hasText: /^Too many runs: 3 values x 500 seeds x 2 toggle values are 3000 runs; at most 200/ }).waitFor();
      assert.equal(await seeds.getAttribute('aria-invalid'), 'true');
      assert.equal(await values.getAttribute('aria-invalid'), 'true');
      assert.equal(await seeds.inputValue(), '500');
      // Not a number of seeds.
      await seeds.fill('two');
      await dialog.getByRole('button', { name: 'Run sweep' }).click();
      await dialog.getByRole('alert').filter({ hasText: '`two` is not a whole number of seeds' }).waitFor();
      assert.equal(await seeds.inputValue(), 'two');
      // The form outlives the dialog.
      await lab.page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await openSweep(lab);
      assert.equal(await values.inputValue(), '16, 24, 32');
      assert.equal(await seeds.inputValue(), 'two');

      // Cancel mid-way: runs of the published size (about 7 M steps each) are stopped while they run.
      await lab.page.keyboard.press('Escape');
      await lab.openScenario(undefined, 'v=1&sc=numa-pmbench&step=0');
      await lab.waitForLoaded(180_000);
      const big = await openSweep(lab);
      await fillForm(big, { values: '16, 24', seeds: '' });
      await big.getByRole('button', { name: 'Run sweep' }).click();
      const progress = big.getByRole('progressbar', { name: 'Sweep runs done' });
      await progress.waitFor();
      assert.match(await progress.getAttribute('aria-valuetext'), /^0 of 4 runs, /);
      await big.getByRole('region', { name: 'Sweep progress' }).getByRole('button', { name: 'Cancel' }).click();
      await progress.waitFor({ state: 'detached' });
      const cancelled = await big.getByText(/^Cancelled (before any of the 4 runs finished|: \d of 4 runs were done; they are shown)\.$/).textContent();
      assert.match(cancelled, /^Cancelled (before any|: [1-3] of 4)/);
      assert.equal(await big.getByRole('button', { name: 'Run sweep' }).isEnabled(), true);
      await lab.screenshot('50f-sweep-cancelled');
      await lab.page.close();
    });
  });
}
