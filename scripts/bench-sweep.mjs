#!/usr/bin/env node
// What a sweep costs in the lab: opens the built lab (web/dist, `npm run build`) in headless
// Chromium (playwright-core and Debian's /usr/bin/chromium, as web/e2e/run.mjs does), opens a
// scenario, fills Sweep… (toggle, parameter, values, seeds) and times it from "Run sweep" to the
// status line that says it is done. Prints the lab's own count of runs and workers, the wall
// time, and the report's table.
//
//   node scripts/bench-sweep.mjs [--scenario numa-pmbench] [--toggle numa_delay_map]
//       [--vary node1_cpus] [--values 16,24,32,48,64] [--seeds N] [--param name=value ...] [--repeat 1]
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../web/e2e/server.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(repo, 'web', 'dist');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const params = args.flatMap((a, i) => (a === '--param' && args[i + 1] ? [args[i + 1]] : []));
const scenario = opt('scenario', 'numa-pmbench');
const toggle = opt('toggle', 'numa_delay_map');
const vary = opt('vary', 'node1_cpus');
const values = opt('values', '16,24,32,48,64');
const seeds = opt('seeds', '');
const repeat = Number(opt('repeat', '1'));

if (!existsSync(join(dist, 'index.html'))) {
  console.error('web/dist is not built: run `npm run build` first');
  process.exit(2);
}
const server = await startStaticServer(dist);
const profile = mkdtempSync(join(tmpdir(), 'mmviz-bench-sweep-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  viewport: { width: 1280, height: 720 },
});
try {
  const page = await context.newPage();
  const fragment = [`v=1&sc=${scenario}`, ...params.map((p) => `p.${p}`), 'step=0'].join('&');
  await page.goto(`${server.url}#${fragment}`);
  await page.getByRole('status', { name: 'Step readout' }).waitFor({ timeout: 60_000 });
  await page.getByRole('progressbar', { name: /^Running / }).waitFor({ state: 'detached', timeout: 300_000 });
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await page.getByRole('button', { name: 'Sweep…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sweep' });
  await dialog.getByRole('combobox', { name: 'Toggle' }).selectOption(toggle);
  await dialog.getByRole('combobox', { name: 'Parameter' }).selectOption(vary);
  await dialog.getByRole('textbox', { name: 'Values' }).fill(values);
  await dialog.getByRole('textbox', { name: 'Seeds' }).fill(seeds);
  console.log(`${scenario}: ${toggle} over ${vary}=${values}${seeds ? `, seeds 1-${seeds}` : ''}${params.length ? `, ${params.join(' ')}` : ''}; navigator.hardwareConcurrency ${cores}`);
  for (let i = 0; i < repeat; i++) {
    const started = Date.now();
    await dialog.getByRole('button', { name: 'Run sweep' }).click();
    await dialog.getByRole('progressbar', { name: 'Sweep runs done' }).waitFor({ timeout: 30_000 });
    const done = dialog.getByText(/^\d+ runs in .* on \d+ workers?\.$/);
    await done.waitFor({ timeout: 1_800_000 });
    const wallMs = Date.now() - started;
    console.log(`run ${i + 1}: ${(await done.textContent()).trim()} (wall, click to done: ${(wallMs / 1000).toFixed(1)} s)`);
    if (i === repeat - 1) console.log(await dialog.getByLabel('Sweep table').textContent());
    // The next repeat waits for the status line to be replaced.
    if (i < repeat - 1) await dialog.getByRole('textbox', { name: 'Values' }).fill(values);
  }
} finally {
  await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
