// End-to-end: a pasted /proc/zoneinfo shapes the run. A person pastes a machine's
// `numactl --hardware` into Machine…, runs the PCP auto-tuning scenario on it, then pastes the
// same machine's /proc/zoneinfo, sees per node what the run takes (and from where), runs again
// and sees the frame (the zone's watermarks and pageset sizes) and a counter (high's peak)
// change; the link copied afterwards reopens the same run in a fresh browser context.
// Run by run.mjs (which imports this file) against the built site; fixtures' sources are in
// e2e/fixtures/README.md.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { useBrowser } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name) => readFileSync(join(here, 'fixtures', name), 'utf8');
// The PCP QA 5.x machine (2 nodes, 8 CPUs, 8 GB): its real zoneinfo, and its numactl as written
// from that zoneinfo's numbers (no numactl output of it was published).
const NUMACTL = fixture('numactl-pcp-qa-2node-8cpu-for-zoneinfo.txt');
const ZONEINFO = fixture('zoneinfo-pcp-qa-2node-8cpu-kernel5x-per-node-stats.txt');
// Three processes of 5,000 pages on CPU 0 (about 90,000 steps).
const START = 'v=1&sc=pcp-autotune&p.processes=3&step=0';

// The engine's own wasm package in Node is the oracle for what the run takes.
const wasmPkg = join(here, '..', 'src', 'wasm-pkg');
const wasm = await import(join(wasmPkg, 'mmviz.js'));
await wasm.default({ module_or_path: readFileSync(join(wasmPkg, 'mmviz_bg.wasm')) });

/** The PCP panel's card of node 0's zone at the current step: its watermarks and pageset sizes. */
async function zoneFacts(page) {
  const card = page.getByTestId(/^pcp-zone-/).first();
  const facts = await card.locator('dt, dd').allTextContents();
  const get = (dt) => facts[facts.indexOf(dt) + 1];
  return { wmarks: get('watermarks min/low/high'), sizes: get('batch · high_min–max') };
}

/** Opens Machine…, uses what is in its boxes, and waits for the run on that machine at step 0. */
async function useMachine(lab, dialog) {
  await dialog.getByRole('button', { name: 'Use this machine' }).click();
  await lab.page.getByRole('dialog', { name: 'Machine from numactl --hardware' }).waitFor({ state: 'hidden', timeout: 60_000 });
  await lab.waitForLoaded();
  await lab.waitForStep(0, 60_000);
}

describe('a pasted /proc/zoneinfo shapes the run', () => {
  const browser = useBrowser({ viewport: { width: 1280, height: 720 } });

  it('Machine…: numactl alone, then with the zoneinfo: the zones change the frame and the counters, and the link reopens that run', async () => {
    const lab = await browser.newLab();
    const { page } = lab;
    await lab.openScenario(undefined, START);
    await lab.waitForLoaded();

    // numactl alone: the model derives the zones from the scaled node sizes.
    await page.getByRole('button', { name: 'Machine…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Machine from numactl --hardware' });
    await dialog.getByTestId('numactl-text').fill(NUMACTL);
    await dialog.getByTestId('numactl-summary').filter({ hasText: /^2 nodes, 8 CPUs/ }).waitFor();
    const scale = Number(await dialog.getByRole('spinbutton', { name: 'Memory scale' }).inputValue());
    assert.equal(scale, 32, 'the chosen scale keeps 7,950 MB under 65,536 simulated pages');
    await useMachine(lab, dialog);
    const derived = await zoneFacts(page);
    await lab.lastStep();
    const peakDerived = await lab.readCounter('pcp_high_peak');

    // With the zoneinfo: what the run takes, value by value, and where it comes from.
    await page.getByRole('button', { name: 'Machine…' }).click();
    await dialog.getByTestId('machine-zoneinfo-text').fill(ZONEINFO);
    const table = dialog.getByTestId('machine-zones-table');
    await table.waitFor();
    const oracle = wasm.nodeZones(NUMACTL, '', ZONEINFO, String(scale));
    assert.deepEqual(
      oracle.map((z) => [z.node, z.sim_managed, z.sim_wmarks, z.batch, z.high_min, z.high_max, z.high_max_pasted]),
      [
        [0, 31_726, [349, 437, 524], 63, 1_764, 15_863, false],
        [1, 31_880, [354, 442, 531], 63, 3_540, 31_880, false],
      ],
    );
    const row0 = (await table.locator('tbody tr').first().locator('th, td').allTextContents()).map((t) => t.trim());
    // The scenario sets pcp_batch = 63 (its test box's) in [knobs]: the knob wins, and says so.
    assert.deepEqual(row0, ['0', 'DMA + DMA32 + Normal', '1,015,248', '31,726', '349 / 437 / 524 (pasted)', '63 (knob)', '1,764 (pasted)', '15,863 (derived)']);
    assert.match(await dialog.getByTestId('machine-zones-note').textContent(), /the scenario sets pcp_batch = 63 in \[knobs\], which wins over the paste/);
    assert.match(await dialog.getByTestId('machine-zones-note').textContent(), /Sizes and watermarks are divided by the memory scale \(32 real 4 KiB pages per simulated page\)/);
    assert.match(await dialog.getByTestId('machine-zones-crowded').textContent(), /node 1: 44 %/);
    await table.scrollIntoViewIfNeeded();
    await lab.screenshot('zoneinfo-01-machine-zones');
    await useMachine(lab, dialog);

    // The frame: node 0's zone has the pasted watermarks (/ 32) and pageset sizes.
    const pasted = await zoneFacts(page);
    assert.deepEqual(pasted, { wmarks: '349/437/524', sizes: '63 · 1,764–15,863' });
    assert.notDeepEqual(pasted, derived, `without the zoneinfo the zone was ${JSON.stringify(derived)}`);
    await page.getByTestId(/^pcp-zone-/).first().scrollIntoViewIfNeeded();
    await lab.screenshot('zoneinfo-02-run-on-pasted-zones');
    // The counters: with high_max from the real zone, auto-tuning lets high reach the
    // 5,000-page working set; the derived high_max (the scaled zone / 8 / 4 CPUs) stops it.
    await lab.lastStep();
    const peak = await lab.readCounter('pcp_high_peak');
    assert.ok(peak >= 5_000 && peakDerived < 1_000, `pcp_high_peak ${peakDerived} -> ${peak}`);
    const step = (await lab.readStep()).step;

    // The link carries the machine (the custom scenario holds the pasted texts).
    const link = await lab.copyLink();
    assert.match(link, /[#&]s=/, link);
    const fresh = await browser.freshLab();
    try {
      await fresh.lab.openLink(link);
      await fresh.lab.waitForLoaded();
      await fresh.lab.waitForStep(step, 60_000);
      assert.equal(await fresh.lab.readCounter('pcp_high_peak'), peak);
      await fresh.lab.stepTo(0);
      assert.deepEqual(await zoneFacts(fresh.lab.page), pasted);
    } finally {
      await fresh.close();
    }
    await page.close();
  });

  it('raised no page errors', () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});
