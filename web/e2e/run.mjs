// End-to-end tests of the built site (web/dist) in headless Chromium.
// Run `npx vite build --config web/vite.config.ts` (or `npm run build`) first.
//
// Dev-only knobs: MMVIZ_E2E_URL=<url> tests a running server instead of web/dist,
// MMVIZ_E2E_SCENARIO=<id> changes the default scenario id expected.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import lzString from 'lz-string';
import { chromium } from 'playwright-core';
import { abSuite } from './ab.mjs';
import { shareSuite } from './share.mjs';
import { lectureSuite } from './lecture.mjs';
import { Lab } from './helper.mjs';
import { builtPolicy, checkGuards, guardContext } from './guard.mjs';
import { startStaticServer } from './server.mjs';
import { sweepSuite } from './sweep.mjs';
import { exploreSuite } from './explore.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const distDir = join(here, '..', 'dist');
const SCENARIO = process.env.MMVIZ_E2E_SCENARIO ?? 'numa-hint-fault-101';
const DELAY_MAP_TITLE = 'NUMA balancing: reduce TLB flush via delaying mapping on hint page fault';
const FLUSH_MULTI_TITLE = 'x86/mm/tlb: Flush remote and local TLBs concurrently';
// Real `numactl --hardware` output (AWS c5n.18xlarge; source in e2e/fixtures/README.md) and a broken one.
const NUMACTL_REAL = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'numactl-aws-c5n-18xlarge-2s-intel-72cpu.txt'), 'utf8');
const NUMACTL_BROKEN = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'numactl-bad-ragged-row.txt'), 'utf8');
// The long run: the scale scenario at its default size (about 1.5 M steps, a
// few seconds to prepare).
const LONG_SCENARIO = 'numa-delay-map-scale';
const LONG_FRAGMENT = `v=1&sc=${LONG_SCENARIO}&step=0`;
// The same run made 2.5 times longer (about 3.4 M steps), for the test that must see it still
// preparing after several interactions whatever the machine's speed.
const LONGER_FRAGMENT = `v=1&sc=${LONG_SCENARIO}&p.accesses=150000&step=0`;
const LONG_LABEL = LONG_SCENARIO;

// Custom scenarios, opened through a link (s=): a VMA of 100,000 pages on a machine of 80,000
// frames, both more than one frame window (65,536) holds. The thread runs on node 1, whose frames
// (pfn 70,000 on) are all beyond the first window too.
const BIG_VMA = `format = 1
id = "big-vma"
title = "A VMA bigger than one frame window"

[machine]
tlb_entries = 8
[[machine.node]]
cpus = [0]
mem_pages = 70000
[[machine.node]]
cpus = [1]
mem_pages = 10000

[[process]]
name = "big"
[[process.vma]]
name = "heap"
pages = 100000
[[process.thread]]
cpu = 1
ops = [
  { op = "access", vma = "heap", page = 3 },
  { op = "access", vma = "heap", page = 70000, write = true },
  { op = "access", vma = "heap", page = 90000 },
]
`;
// Mixed dense and small views: a page table of 2,048 PTEs (a canvas) over 128 frames and 2 × 8 TLB slots (SVG) ...
const DENSE_PTES_SMALL_MACHINE = `format = 1
id = "dense-ptes-small-machine"
title = "A dense page table on a small machine"

[machine]
tlb_entries = 8
[[machine.node]]
cpus = [0]
mem_pages = 64
[[machine.node]]
cpus = [1]
mem_pages = 64

[[process]]
name = "sparse"
[[process.vma]]
name = "heap"
pages = 2048
[[process.thread]]
cpu = 0
ops = [
  { op = "access", vma = "heap", page = 0, write = true },
  { op = "access", vma = "heap", page = 1 },
  { op = "access", vma = "heap", page = 2 },
]
`;
// ... and the other way round: 8 PTEs (HTML rows) on 2,048 frames and 16 × 64 TLB slots (canvases).
const SMALL_PTES_DENSE_MACHINE = `format = 1
id = "small-ptes-dense-machine"
title = "A small page table on a dense machine"

[machine]
tlb_entries = 64
[[machine.node]]
cpus = [0, 1, 2, 3, 4, 5, 6, 7]
mem_pages = 1024
[[machine.node]]
cpus = [8, 9, 10, 11, 12, 13, 14, 15]
mem_pages = 1024

[[process]]
name = "small"
[[process.vma]]
name = "heap"
pages = 8
[[process.thread]]
cpu = 0
ops = [
  { op = "access", vma = "heap", page = 0, write = true },
  { op = "access", vma = "heap", page = 1 },
  { op = "access", vma = "heap", page = 2 },
]
`;

/** The fragment of a link to a custom scenario at `step`. */
function customFragment(text, step) {
  return `v=1&s=${lzString.compressToEncodedURIComponent(text)}&step=${step}`;
}

/** The step before a run's last thread exits (its mappings are gone after that): the frame after its last access. */
function stepBeforeExit(sim) {
  const total = sim.summary().totalSteps;
  const events = sim.events(0, total);
  const exit = events.findIndex((e) => /exit/.test(e.kind));
  assert.ok(exit > 0, 'the run ends with an exit');
  return exit;
}

const PTE_KIND_LABELS = ['none', 'present', 'PROT_NONE', 'migration'];

/** The engine's PTE (pid, vpn) at `step`, described as the PTE grid's tooltip describes it. */
function pteTextAt(sim, step, pid, vpn, index) {
  sim.seek(step);
  const f = sim.frame({ pteOffset: index, pteCount: 1, pfnCount: 0 });
  assert.equal(f.bulk.ptePid[0], pid);
  assert.equal(f.bulk.pteVpn[0], vpn);
  const flags = f.bulk.pteFlags[0];
  const bits = [
    [flags & 4, 'writable'],
    [flags & 8, 'dirty'],
    [flags & 16, 'accessed'],
  ]
    .filter(([on]) => on)
    .map(([, name]) => name)
    .join(', ');
  const target = (flags & 3) === 0 ? '' : ` → pfn 0x${f.bulk.ptePfn[0].toString(16)}`;
  return { text: `pid ${pid} vpn 0x${vpn.toString(16)}${target}: ${PTE_KIND_LABELS[flags & 3]}${bits ? `; ${bits}` : ''}`, pfn: f.bulk.ptePfn[0], flags };
}

/** Red, green, blue of the pixel at (x, y) CSS pixels of a canvas. */
async function canvasPixel(canvas, x, y) {
  return canvas.evaluate(
    (c, [px, py]) => {
      const dpr = c.width / c.getBoundingClientRect().width;
      return [...c.getContext('2d').getImageData(Math.round(px * dpr), Math.round(py * dpr), 1, 1).data].slice(0, 3);
    },
    [x, y],
  );
}

// The engine's own wasm package, run in Node, is the oracle for counters and
// cause chains (its headless runCounters equals `mmviz run --json`, which
// tests/wasm-native.test.mjs checks).
const wasmPkg = join(here, '..', 'src', 'wasm-pkg');
const wasm = await import(join(wasmPkg, 'mmviz.js'));
await wasm.default({ module_or_path: readFileSync(join(wasmPkg, 'mmviz_bg.wasm')) });
const BUILTINS = wasm.builtinScenarios();

/** The counters of a scenario's whole run, as `mmviz run <id> --json` gives them. */
function finalCounters(id, toggles = {}, params = {}) {
  const builtin = BUILTINS.find((b) => b.id === id);
  assert.ok(builtin, `built-in scenario ${id}`);
  return wasm.runCounters(builtin.text, toggles, params);
}

let server = null;
let context;
let userDataDir;
let baseUrl;
const pageErrors = [];

/** A fresh page (and Lab) for one test; fails the test on dialogs. */
async function newLab() {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('dialog', (d) => {
    pageErrors.push(`unexpected dialog: ${d.message()}`);
    void d.dismiss();
  });
  return new Lab(page, baseUrl);
}

/** Chromium's options for every context the tests open. */
const LAUNCH = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  viewport: { width: 1440, height: 900 },
};

/** A page in a new browser context of its own (new profile: no storage, no history), as a recipient of a link has. */
async function freshLab() {
  const dir = mkdtempSync(join(tmpdir(), 'mmviz-e2e-fresh-'));
  const ctx = await chromium.launchPersistentContext(dir, LAUNCH);
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(baseUrl).origin });
  await guardContext(ctx, baseUrl);
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on('pageerror', (e) => pageErrors.push(e.message));
  return {
    lab: new Lab(page, baseUrl),
    context: ctx,
    close: async () => {
      await ctx.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

before(async () => {
  if (process.env.MMVIZ_E2E_URL) {
    baseUrl = process.env.MMVIZ_E2E_URL;
  } else {
    if (!existsSync(join(distDir, 'index.html'))) {
      throw new Error('web/dist is not built: run `npx vite build --config web/vite.config.ts` (or `npm run build`) first');
    }
    // The page's policy is the meta tag the build wrote (a static host sends no header; README).
    builtPolicy(distDir);
    server = await startStaticServer(distDir);
    baseUrl = server.url;
  }
  userDataDir = mkdtempSync(join(tmpdir(), 'mmviz-e2e-'));
  context = await chromium.launchPersistentContext(userDataDir, LAUNCH);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(baseUrl).origin });
  await guardContext(context, baseUrl);
  for (const p of context.pages()) await p.close();
});

// Every test, here and in the feature files: a request off the lab's origin or a CSP violation fails it, naming the URL or directive.
afterEach(() => checkGuards());

after(async () => {
  await context?.close();
  await server?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

describe('mmviz lab', () => {
  it('opens the default scenario and steps forward and back', async () => {
    const lab = await newLab();
    await lab.openScenario();
    assert.equal(await lab.page.getByRole('combobox', { name: 'Scenario' }).inputValue(), SCENARIO);
    assert.equal((await lab.readStep()).step, 0);
    assert.deepEqual(await lab.alerts(), []);
    // One panel per view of each mechanism the run exercises (the engine's metadata): this run forks nothing.
    const mechanismPanels = await lab.page.locator('section[data-mechanism]').evaluateAll((els) => els.map((e) => e.getAttribute('data-mechanism')));
    assert.deepEqual(mechanismPanels, ['migrate', 'numa']);
    await lab.screenshot('01-open');
    for (let i = 0; i < 10; i++) await lab.stepForward();
    await lab.stepBack();
    assert.equal((await lab.readStep()).step, 9);
    assert.match(await lab.readout().textContent(), /^step 9 \/ \d+$/);
    await lab.page.waitForFunction(() => /[#&]step=9(&|$)/.test(location.hash));
    await lab.screenshot('02-step-9');
    await lab.page.close();
  });

  it('numa_delay_map lowers remote TLB flushes at the last step', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    await lab.toggle(DELAY_MAP_TITLE, false);
    await lab.lastStep();
    const off = await lab.readCounter('nr_tlb_remote_flush_received');
    await lab.screenshot('03-last-step-off');
    await lab.toggle(DELAY_MAP_TITLE, true);
    assert.equal(await lab.toggleSwitch(DELAY_MAP_TITLE).isChecked(), true);
    await lab.lastStep();
    const on = await lab.readCounter('nr_tlb_remote_flush_received');
    await lab.screenshot('04-last-step-on');
    assert.ok(on < off, `nr_tlb_remote_flush_received with the patch (${on}) should be lower than without (${off})`);
    // "Copy as text" gives an aligned plain-text table of the counters that moved (authoring.e2e.mjs checks the rest).
    await lab.page.getByRole('button', { name: 'Copy as text' }).click();
    await lab.page.getByText('Copied', { exact: true }).waitFor();
    const text = await lab.page.evaluate(() => navigator.clipboard.readText());
    const row = text.split('\n').find((l) => l.startsWith('nr_tlb_remote_flush_received '));
    if (on === 0) assert.equal(row, undefined, text);
    else assert.match(row ?? '', new RegExp(`^nr_tlb_remote_flush_received\\s+${on}\\s+[-+]?\\d+$`), text);
    const widths = new Set(text.split('\n').filter((l) => /^\S+\s+\d+\s+[-+]?\d+$/.test(l)).map((l) => l.length));
    assert.equal(widths.size, 1, 'rows are aligned');
    await lab.page.close();
  });

  it('a link restores the same step, toggle and counters after reload', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    // Flip the toggle away from the scenario's default so that the link must carry it.
    const wasOn = await lab.toggleSwitch(DELAY_MAP_TITLE).isChecked();
    await lab.toggle(DELAY_MAP_TITLE, !wasOn);
    await lab.stepTo(12);
    const counters = await lab.readCounters();
    const link = await lab.copyLink();
    assert.match(link, /#v=2&/);
    assert.match(link, new RegExp(`t\\.numa_delay_map=${!wasOn}`));
    assert.match(link, /step=12/);
    await lab.page.reload();
    await lab.readout().waitFor();
    await lab.waitForStep(12);
    assert.equal(await lab.toggleSwitch(DELAY_MAP_TITLE).isChecked(), !wasOn);
    assert.deepEqual(await lab.readCounters(), counters);
    await lab.openLink(link);
    await lab.waitForStep(12);
    assert.equal(await lab.toggleSwitch(DELAY_MAP_TITLE).isChecked(), !wasOn);
    assert.deepEqual(await lab.readCounters(), counters);
    assert.deepEqual(await lab.alerts(), []);
    await lab.screenshot('05-restored-from-link');
    await lab.page.close();
  });

  it('a garbled link shows an alert and the app still steps', async () => {
    const lab = await newLab();
    await lab.openScenario(undefined, 'v=1&s=%%%garbage');
    const alerts = await lab.alerts();
    assert.equal(alerts.length, 1);
    assert.match(alerts[0], /This link could not be read: /);
    await lab.screenshot('06-garbled-link');
    await lab.stepForward();
    assert.equal((await lab.readStep()).step, 1);
    await lab.page.getByRole('button', { name: /^Dismiss/ }).click();
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('a run that stops its thread for want of memory says so, and still steps', async () => {
    // A 64-page heap on a 16-page machine: the model (no reclaim) stops the thread.
    const tooSmall =
      'format = 1\nid = "too-small"\ntitle = "Too small"\n[machine]\n[[machine.node]]\ncpus = [0]\nmem_pages = 16\n' +
      '[[process]]\nname = "app"\n[[process.vma]]\nname = "heap"\npages = 64\n[[process.thread]]\ncpu = 0\nops = [{ op = "touch", vma = "heap" }]\n';
    const lab = await newLab();
    await lab.openScenario(undefined, customFragment(tooSmall, 0));
    await lab.page.getByRole('alert').first().waitFor();
    const alerts = await lab.alerts();
    assert.equal(alerts.length, 1, alerts.join('\n'));
    assert.match(alerts[0], /In this run, 1 thread stopped: no node had a free page for a fault .*`mem_pages`/);
    await lab.screenshot('06b-oom-warning');
    // The counters pasted into a reply carry the warning under their heading.
    await lab.page.getByRole('button', { name: 'Copy as text' }).click();
    await lab.page.getByText('Copied', { exact: true }).waitFor();
    const text = await lab.page.evaluate(() => navigator.clipboard.readText());
    assert.match(text, /^Warning: 1 thread stopped: no node had a free page/m, text);
    await lab.stepForward();
    assert.equal((await lab.readStep()).step, 1);
    await lab.page.close();
  });

  it('a hostile link is shown as text, never run', async () => {
    const lab = await newLab();
    await lab.openScenario(undefined, 'v=1&sc=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&step=%3Cscript%3Ealert(2)%3C/script%3E');
    const alerts = await lab.alerts();
    assert.match(alerts.join('\n'), /This link could not be read: /);
    assert.equal(await lab.page.locator('img[src="x"], main script').count(), 0);
    await lab.stepForward();
    await lab.page.close();
  });

  it('a step beyond the end clamps with an alert', async () => {
    const lab = await newLab();
    await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&step=9999`);
    const { step, total } = await lab.readStep();
    assert.equal(step, total);
    const alerts = await lab.alerts();
    assert.ok(
      alerts.some((a) => a.includes(`step 9999 is beyond the end of this scenario (${total} steps); showing the last step`)),
      `alerts were: ${JSON.stringify(alerts)}`,
    );
    await lab.screenshot('07-step-beyond-end');
    await lab.page.close();
  });

  it('keyboard: arrows, Home, End; not while typing', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    await lab.page.locator('body').click({ position: { x: 5, y: 5 } });
    const { total } = await lab.readStep();
    await lab.page.keyboard.press('ArrowRight');
    await lab.page.keyboard.press('ArrowRight');
    await lab.page.keyboard.press('ArrowRight');
    await lab.waitForStep(3);
    await lab.page.keyboard.press('ArrowLeft');
    await lab.waitForStep(2);
    await lab.page.keyboard.press('End');
    await lab.waitForStep(total);
    await lab.page.keyboard.press('Home');
    await lab.waitForStep(0);
    // After flipping a toggle with the mouse, the arrows still step (the switch takes no arrows).
    const sw = lab.toggleSwitch(DELAY_MAP_TITLE);
    const before = await sw.isChecked();
    await lab.toggle(DELAY_MAP_TITLE, !before);
    await lab.page.keyboard.press('ArrowRight');
    await lab.waitForStep(1);
    await lab.toggle(DELAY_MAP_TITLE, before);
    await lab.page.keyboard.press('Home');
    await lab.waitForStep(0);
    // Focus is visible on the transport.
    await lab.page.getByRole('button', { name: 'Step forward', exact: true }).focus();
    await lab.page.keyboard.press('Tab');
    await lab.screenshot('15-focus-ring', { clip: { x: 0, y: 0, width: 1440, height: 400 } });
    const param = lab.page.getByRole('spinbutton').first();
    if ((await param.count()) > 0) {
      await param.focus();
      await lab.page.keyboard.press('ArrowRight');
      await lab.page.keyboard.press('End');
      assert.equal((await lab.readStep()).step, 0);
    }
    await lab.page.close();
  });

  it('patch card, code diff and layouts at 1280×800 and 1920×1080', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    await lab.openPatchCard(DELAY_MAP_TITLE);
    const card = lab.page.getByRole('complementary', { name: `Patch: ${DELAY_MAP_TITLE}` });
    await card.waitFor();
    await lab.screenshot('08-patch-card');
    await lab.page.keyboard.press('Escape');
    await card.waitFor({ state: 'detached' });
    // Find a step in a function with a before/after listing and open the diff.
    const { total } = await lab.readStep();
    let found = false;
    for (let s = 1; s <= total && !found; s++) {
      await lab.stepTo(s);
      const diffButton = lab.page.getByRole('button', { name: 'Compare before/after' });
      if ((await diffButton.count()) > 0) {
        await diffButton.click();
        found = true;
      }
    }
    if (found) await lab.screenshot('09-code-diff');
    // An IPI on its way and one received, with and without motion.
    // The drawing is a group (its frames are buttons), named by what it shows.
    const machine = (re) => lab.page.getByRole('group', { name: re });
    let sent = -1;
    for (let s = 1; s <= total && sent < 0; s++) {
      await lab.stepTo(s);
      if ((await machine(/IPI from CPU \d+ to CPU \d+ sent/).count()) > 0) sent = s;
    }
    assert.ok(sent > 0, 'the scenario sends an IPI');
    await lab.screenshot('12-ipi-sent');
    for (let s = sent + 1; s <= Math.min(total, sent + 6); s++) {
      await lab.stepTo(s);
      if ((await machine(/IPI from CPU \d+ to CPU \d+ received/).count()) > 0) {
        await lab.screenshot('13-ipi-received');
        break;
      }
    }
    await lab.page.emulateMedia({ reducedMotion: 'reduce' });
    await lab.stepTo(sent);
    await lab.screenshot('14-ipi-sent-reduced-motion');
    await lab.page.emulateMedia({ reducedMotion: 'no-preference' });
    await lab.page.setViewportSize({ width: 1280, height: 800 });
    await lab.screenshot('10-1280x800');
    await lab.page.setViewportSize({ width: 1920, height: 1080 });
    await lab.screenshot('11-1920x1080');
    await lab.page.close();
  });

  it('every built-in scenario opens, goes to its last step and back, and ends with the engine counters', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    for (const { id, quick: params } of BUILTINS) {
      // A long reproduction run opens with its `quick` parameters (builtin.rs), through a link
      // (the npb runs at full size take about 40 s to prepare in the lab; BENCHMARKS.md).
      if (Object.keys(params).length === 0) await lab.openBuiltin(id);
      else {
        const query = Object.entries(params).map(([k, v]) => `&p.${k}=${v}`).join('');
        await lab.openLink(`${baseUrl}#v=1&sc=${id}${query}&step=0`);
        await lab.page.waitForFunction(() => !document.querySelector('[role="progressbar"]'), null, { timeout: 180_000 });
        await lab.waitForStep(0);
      }
      const { total } = await lab.readStep();
      const expected = finalCounters(id, {}, params);
      assert.equal(total, expected.steps, `${id}: steps`);
      await lab.pressTransportKey('End');
      await lab.waitForStep(total, 30_000);
      const shown = await lab.readCounters();
      assert.ok(Object.keys(shown).length > 0, `${id}: the counters table has rows`);
      for (const [name, value] of Object.entries(shown)) assert.equal(value, expected.counters[name] ?? 0, `${id}: ${name} at the last step`);
      for (const [name, value] of Object.entries(expected.counters)) if (value !== 0) assert.ok(name in shown, `${id}: ${name} (${value}) is in the table`);
      assert.equal(await lab.page.getByText(/no listing/).count(), 0, `${id}: the code pane has the last step's listing`);
      await lab.screenshot(`22-last-step-${id}`);
      await lab.page.keyboard.press('Home');
      await lab.waitForStep(0, 30_000);
    }
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('a huge page takes one hint fault for its 512 pages, and the code pane follows do_huge_pmd_numa_page', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    await lab.openBuiltin('numa-thp-101');
    // The reader's first hint fault on a huge PMD (`mmviz trace numa-thp-101`: event 2093).
    const said = lab.page.getByText(/numa_hint_faults \+= 1 for all 512 pages/).first();
    let found = false;
    for (let s = 2090; s <= 2098 && !found; s++) {
      await lab.stepTo(s);
      found = (await said.count()) > 0;
    }
    assert.ok(found, 'a step says the huge PMD hint fault counts once for 512 pages');
    await lab.page.getByText(/Linux v4\.17 mm\/huge_memory\.c/).first().waitFor();
    await lab.page.getByText(/task_numa_fault\(last_cpupid, page_nid, HPAGE_PMD_NR, flags\)/).first().waitFor();
    assert.equal(await lab.readCounter('numa_huge_pte_updates'), 2);
    assert.equal(await lab.readCounter('numa_hint_faults'), 1);
    await lab.screenshot('23-thp-hint-fault');
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('the cause chain of an IPI leads back to the fault, and each hop goes to its step', async () => {
    const toggles = { numa_delay_map: false };
    const { text } = BUILTINS.find((b) => b.id === SCENARIO);
    const sim = new wasm.Simulation(text, toggles, {});
    const events = sim.events(0, sim.summary().totalSteps);
    // The migration's flush (the first IPI of the run is the NUMA scan's).
    const recv = events.find((e) => e.kind === 'ipi_recv' && sim.causeChain(e.step).some((c) => c.function === 'ptep_clear_flush'));
    assert.ok(recv, 'the run has an IPI caused by a migration');
    const expected = sim.causeChain(recv.step).map((e) => `Go to step ${e.step + 1}: ${e.function}${e.line ? `:${e.line}` : ''} (${e.kind}) on CPU ${e.cpu}`);
    sim.free();

    const lab = await newLab();
    await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&t.numa_delay_map=false&step=${recv.step + 1}`);
    await lab.waitForStep(recv.step + 1);
    const hops = await lab.readCauseChain();
    assert.deepEqual(hops, expected);
    const fns = hops.map((h) => /: (\S+?)(:\S+)? \(/.exec(h)?.[1]);
    const order = ['flush_tlb_func_remote', 'flush_tlb_mm_range', 'ptep_clear_flush', 'try_to_unmap_one', 'migrate_misplaced_page', 'do_numa_page', 'handle_pte_fault', 'mmu_walk'];
    let at = -1;
    for (const fn of order) {
      const i = fns.indexOf(fn, at + 1);
      assert.ok(i > at, `${fn} comes after ${order[order.indexOf(fn) - 1] ?? 'the start'} in ${JSON.stringify(fns)}`);
      at = i;
    }
    assert.match(hops[1], /flush_tlb_mm_range:\w+ \(ipi_send\)/);
    assert.match(hops.find((h) => h.includes('mmu_walk')), /\(fault_entry\)/);
    // The receiver was running user code when the flush arrived; the sender is deep in the migration.
    const stacks = await lab.readCpuStacks();
    assert.match(stacks[`CPU ${recv.cpu}`], /IPI: flush_tlb_func_remote\(\) ran on top of this/);
    const sender = Number(/on CPU (\d+)$/.exec(hops[1])[1]);
    assert.match(stacks[`CPU ${sender}`], /do_numa_page\(\) › migrate_misplaced_page\(\).*ptep_clear_flush\(\) › flush_tlb_mm_range\(\)/);
    await lab.screenshot('23-cause-chain-ipi');
    await lab.screenshot('23b-call-stacks', { fullPage: true });
    // Each hop is a link to its step: go to the fault, then back to the IPI from there.
    const faultHop = fns.indexOf('do_numa_page');
    const faultStep = await lab.goToCauseHop(faultHop);
    assert.equal(faultStep, Number(/^Go to step (\d+)/.exec(expected[faultHop])[1]));
    assert.match((await lab.readCauseChain())[0], /do_numa_page/);
    await lab.page.waitForFunction((n) => new RegExp(`[#&]step=${n}(&|$)`).test(location.hash), faultStep);
    await lab.screenshot('24-cause-chain-after-click');
    const rootStep = await lab.goToCauseHop((await lab.readCauseChain()).length - 1);
    assert.ok(rootStep < faultStep);
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  // The long run prepares in a few seconds in Chromium here: everything that
  // must happen while it prepares is done first and quickly, then checked to
  // have happened before it ended.
  it('while a long run prepares, it shows progress and the scenario on screen still steps', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    await lab.pasteLink(LONGER_FRAGMENT);
    const text = await lab.waitForLoading();
    const stallDuringSteps = lab.longestMainThreadStallMs(400);
    // The previous scenario answers its transport while the other worker prepares.
    await lab.stepForward();
    await lab.page.keyboard.press('ArrowRight');
    await lab.waitForStep(2);
    // The worker reports the steps prepared after each slice.
    await lab.page.waitForFunction(() => /steps prepared/.test(document.querySelector('[role="progressbar"]')?.getAttribute('aria-valuetext') ?? ''), null, { timeout: 30_000 });
    const progressText = (await lab.loadingCard().textContent()) ?? '';
    await lab.screenshot('16-loading-long-run');
    const stillLoading = await lab.loadingIndicator().isVisible();
    const url = lab.page.url();
    const picked = await lab.page.getByRole('combobox', { name: 'Scenario' }).inputValue();
    const stall = await stallDuringSteps;
    assert.ok(stillLoading, 'the long run was still preparing during the steps and the screenshot');
    assert.match(text, new RegExp(`^Running ${LONG_LABEL} \\(accesses=150000\\)… \\d+\\.\\d s`));
    assert.match(progressText, /· [\d\u202f,\s]+ steps prepared/);
    assert.ok(stall < 400, `the main thread stalled for ${Math.round(stall)} ms while the run recorded`);
    assert.equal(picked, SCENARIO);
    // The address bar keeps the link being opened.
    assert.match(url, new RegExp(`sc=${LONG_SCENARIO}&p\\.accesses=150000&step=0`));
    await lab.waitForLoaded(180_000);
    const { step, total } = await lab.readStep();
    assert.equal(step, 0);
    assert.ok(total > 1_000_000, `total steps ${total}`);
    assert.equal(await lab.page.getByRole('combobox', { name: 'Scenario' }).inputValue(), LONG_SCENARIO);
    assert.deepEqual(await lab.alerts(), []);
    // Rapid key presses coalesce: the shown step and frame catch up with the last press.
    await lab.page.locator('body').click({ position: { x: 5, y: 5 } });
    await lab.pressKey('ArrowRight', 12);
    await lab.waitForStep(12);
    await lab.page.waitForFunction(() => /[#&]step=12(&|$)/.test(location.hash));
    await lab.screenshot('17-long-run-step-12');
    // The middle of the run: events (the scrubber's marks), narration, code and the cause chain are there too.
    const middle = Math.floor(total / 2);
    await lab.stepTo(middle);
    await lab.readCauseChain();
    await lab.page.getByText(/Event marks: steps [\d\u202f,\s]+–/).waitFor({ timeout: 30_000 });
    assert.equal(await lab.page.getByText(/no listing/).count(), 0, 'the code pane has a listing at the middle step');
    await lab.screenshot('18-long-run-middle');
    // The same run again: its length is known from the first time, so the bar fills.
    await lab.openBuiltin(SCENARIO);
    await lab.pasteLink(LONGER_FRAGMENT);
    await lab.waitForLoading();
    await lab.page.waitForFunction(() => Number(document.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow')) > 0, null, { timeout: 20_000 });
    assert.match((await lab.loadingIndicator().getAttribute('aria-valuetext')) ?? '', /^\d+%: [\d\u202f,\s]+ of about [\d\u202f,\s]+ steps/);
    await lab.screenshot('25-loading-estimated');
    await lab.waitForLoaded(180_000);
    assert.equal((await lab.readStep()).total, total);
    await lab.page.close();
  });

  it('Cancel stops a long run and leaves the previous scenario usable', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    await lab.stepTo(5);
    await lab.page.waitForFunction(() => /[#&]step=5(&|$)/.test(location.hash));
    await lab.pasteLink(LONG_FRAGMENT);
    await lab.waitForLoading();
    await lab.cancelLoading();
    assert.deepEqual(await lab.notices(), [`Cancelled loading ${LONG_LABEL}.`]);
    assert.deepEqual(await lab.alerts(), []);
    assert.equal(await lab.page.getByRole('combobox', { name: 'Scenario' }).inputValue(), SCENARIO);
    assert.equal((await lab.readStep()).step, 5);
    await lab.stepForward();
    assert.equal((await lab.readStep()).step, 6);
    // The address bar follows the screen again, so a reload opens what is shown.
    await lab.page.waitForFunction((id) => location.hash.includes(`sc=${id}&`) && /[#&]step=6(&|$)/.test(location.hash), SCENARIO);
    await lab.screenshot('19-after-cancel');
    // The app still builds runs after the worker was replaced.
    await lab.toggle(DELAY_MAP_TITLE, !(await lab.toggleSwitch(DELAY_MAP_TITLE).isChecked()));
    assert.equal((await lab.readStep()).step, 6);
    await lab.page.reload();
    await lab.readout().waitFor();
    await lab.waitForStep(6);
    assert.equal(await lab.page.getByRole('combobox', { name: 'Scenario' }).inputValue(), SCENARIO);
    await lab.page.close();
  });

  it('Cancel while a link opens with nothing on screen falls back to the default scenario', async () => {
    const lab = await newLab();
    await lab.openLinkLoading(LONG_FRAGMENT);
    const forwardDisabled = await lab.page.getByRole('button', { name: 'Step forward', exact: true }).isDisabled();
    await lab.screenshot('20-loading-from-link');
    await lab.cancelLoading();
    await lab.readout().waitFor({ timeout: 30_000 });
    assert.equal(forwardDisabled, true, 'the transport is disabled while nothing is on screen');
    assert.equal(await lab.page.getByRole('combobox', { name: 'Scenario' }).inputValue(), SCENARIO);
    assert.deepEqual(await lab.notices(), [`Cancelled loading ${LONG_LABEL}.`]);
    assert.deepEqual(await lab.alerts(), []);
    await lab.stepForward();
    await lab.screenshot('21-after-cancel-default');
    await lab.page.close();
  });

  it('plots counters over the whole run; clicking or dragging on a plot seeks there', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    // The counters the mechanisms' views name (the engine's metadata) that move in this run.
    assert.deepEqual(await lab.plottedCounters(), ['numa_pages_migrated', 'nr_tlb_remote_flush', 'irq_tlb_count', 'numa_hint_faults']);
    await lab.stepTo(60);
    await lab.plotsPanel().scrollIntoViewIfNeeded();
    await lab.screenshotPlots('26-plots-teaching');
    await lab.openBuiltin(LONG_SCENARIO);
    const { total } = await lab.readStep();
    // Meaningful curves: every default counter rises over the run.
    for (const counter of await lab.plottedCounters()) assert.ok((await lab.plotLineSpan(counter)) > 0.5, `${counter} is drawn as a rising curve`);
    assert.ok((await lab.plotCursorFraction('numa_pages_migrated')) < 0.01, 'the cursor starts at the left');
    // The middle of the time axis: a sampled step in the middle part of the run, and the cursor follows.
    await lab.clickPlot('numa_pages_migrated', 0.5);
    const middle = await lab.waitForStepOtherThan(0);
    assert.ok(middle > total * 0.25 && middle < total * 0.75, `step ${middle} of ${total} after clicking the middle of the plot`);
    await lab.waitForPlotCursorAt('numa_hint_faults', 0.5);
    await lab.screenshotPlots('27-plots-scale-middle');
    // A drag ends where it is let go.
    await lab.dragPlot('numa_pages_migrated', 0.5, 0.9);
    const dragged = await lab.waitForStepOtherThan(middle);
    assert.ok(dragged > middle, `step ${dragged} after dragging right from ${middle}`);
    await lab.waitForPlotCursorAt('numa_pages_migrated', 0.9);
    assert.ok((await lab.readStep()).step > total * 0.75, 'the step let go at is late in the run');
    await lab.page.getByRole('button', { name: 'Rate per µs' }).click();
    await lab.screenshotPlots('28-plots-scale-rate');
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('a big machine draws its page tables, frames and TLBs as dense canvases that follow the steps and link on hover', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    // The small default scenario stays SVG / HTML: no dense views, pfn buttons in the page table.
    assert.equal(await lab.page.locator('[aria-roledescription="dense view"]').count(), 0, 'no canvases for a small scenario');
    assert.ok((await lab.page.getByRole('button', { name: /^pfn \d+.*: highlight the frame$/ }).count()) > 0, 'pfn buttons in the page table');
    await lab.openBuiltin(LONG_SCENARIO);
    const pte = lab.page.getByRole('img', { name: /^[\d,]+ PTEs of pid \d+/ });
    const frames = lab.page.getByRole('img', { name: /^Node \d+: [\d,]+ frames/ });
    const tlb = lab.page.getByRole('img', { name: /^TLBs of 16 CPUs, 64 slots each/ });
    await tlb.waitFor({ timeout: 10_000 });
    assert.ok((await pte.count()) >= 1, 'a PTE canvas');
    assert.equal(await frames.count(), 2, 'a frame canvas per node');
    for (const el of [pte.first(), frames.first(), tlb]) assert.equal(await el.evaluate((e) => e.tagName), 'CANVAS');
    // No PTE rows (the grid replaces them).
    assert.equal(await lab.page.getByRole('button', { name: /: highlight the frame$/ }).count(), 0, 'no PTE rows');
    const labels = async () => [await tlb.getAttribute('aria-label'), ...(await frames.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))))];
    const before = await labels();
    for (let i = 0; i < 3; i++) await lab.stepForward();
    const afterSteps = await labels();
    assert.notDeepEqual(afterSteps, before, 'the canvases report the new steps');
    assert.match(afterSteps[0] ?? '', /CPU \d+ runs this step/);
    // Hover a TLB cell of this step's CPU: the tooltip names the entry.
    await tlb.evaluate((e) => e.scrollIntoView({ block: 'center' }));
    const tb = await tlb.boundingBox();
    assert.ok(tb, 'the TLB canvas is laid out');
    // The middle of CPU 0's row (the first row, under a few pixels of padding for the rings).
    await lab.page.mouse.move(tb.x + tb.width * 0.5, tb.y + 12);
    const tip = lab.page.getByTestId('tlb-canvas-tooltip');
    await tip.waitFor({ timeout: 5_000 });
    assert.match((await tip.textContent()) ?? '', /^CPU 0, TLB (entry|slot) \d+ of \d+/);
    await lab.screenshot('29a-dense-tlb-hover');
    // Hover a frame: its tooltip, and the frame canvas of node 0 keeps a tooltip per cell.
    await frames.first().evaluate((e) => e.scrollIntoView({ block: 'center' }));
    const fb = await frames.first().boundingBox();
    assert.ok(fb, 'the frame canvas is laid out');
    await lab.page.mouse.move(fb.x + fb.width / 2, fb.y + fb.height / 2);
    const ftip = lab.page.getByTestId('frame-canvas-0-tooltip');
    await ftip.waitFor({ timeout: 5_000 });
    assert.match((await ftip.textContent()) ?? '', /^pfn 0x[0-9a-f]+ \(\d+\), node 0: /);
    await lab.screenshot('29b-dense-frame-hover');
    // Hover a PTE: its tooltip.
    await pte.first().evaluate((e) => e.scrollIntoView({ block: 'center' }));
    const pb = await pte.first().boundingBox();
    assert.ok(pb);
    await lab.page.mouse.move(pb.x + pb.width / 2, pb.y + pb.height / 2);
    const ptip = lab.page.locator('[data-testid$="-tooltip"][data-testid^="pte-canvas-"]');
    await ptip.waitFor({ timeout: 5_000 });
    assert.match((await ptip.textContent()) ?? '', /^pid \d+ vpn 0x[0-9a-f]+/);
    await lab.screenshot('29c-dense-pte-hover');
    await lab.screenshot('29d-dense-views-full', { fullPage: true });
    // While a canvas has the focus, the arrow keys move its cursor, not the run.
    const { step } = await lab.readStep();
    await lab.page.mouse.move(0, 0);
    await tlb.focus();
    await lab.page.keyboard.press('ArrowRight');
    await lab.page.keyboard.press('ArrowRight');
    await tip.waitFor({ timeout: 5_000 });
    assert.equal((await lab.readStep()).step, step, 'arrow keys in the grid do not step the run');
    // Later in the run the TLBs hold entries and pages have moved.
    await lab.stepTo(400_000);
    await lab.page.waitForFunction(() => /: [1-9][\d,]* entries/.test(document.querySelector('[data-testid="tlb-canvas"]')?.getAttribute('aria-label') ?? ''));
    await tlb.evaluate((e) => e.scrollIntoView({ block: 'center' }));
    await lab.screenshot('29e-dense-later');
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('pages the page table and the frame grid beyond their first window: a PTE and a frame past 65,536 are drawn with their real state', async () => {
    const sim = new wasm.Simulation(BIG_VMA, {}, {});
    const step = stepBeforeExit(sim);
    const heap = sim.summary().processes[0].vmas[0];
    const page = 70_000;
    const vpn = heap.startVpn + page;
    const pte = pteTextAt(sim, step, 1, vpn, page);
    assert.equal(pte.flags & 3, 1, 'the PTE is present at that step');
    sim.free();
    assert.ok(pte.pfn >= 65_536, `its frame ${pte.pfn} is beyond the first frame window too`);

    const lab = await newLab();
    await lab.openScenario(undefined, customFragment(BIG_VMA, step));
    await lab.waitForStep(step);
    // The pointer stays on the (sticky) header and the controls are used from the keyboard: a pointer left over
    // a grid as the page scrolls would move the grid's cursor away from the cell gone to.
    await lab.page.mouse.move(0, 0);
    const ptePager = lab.page.getByRole('group', { name: 'Window of PTEs' });
    const framePager = lab.page.getByRole('group', { name: 'Window of frames' });
    // The step touched the PTE of page 90,000: the window followed it.
    await ptePager.getByText('PTEs 34,465–100,000 of 100,000').waitFor({ timeout: 10_000 });
    // Back to the first window: the PTE of page 70,000 is not in it.
    await ptePager.getByRole('button', { name: 'Earlier PTEs' }).press('Enter');
    await ptePager.getByText('PTEs 1–65,536 of 100,000').waitFor({ timeout: 10_000 });
    // Go to it: the window moves, the grid's cursor is on it and its tooltip gives the engine's state.
    await ptePager.getByLabel('Go to vpn').fill(`0x${vpn.toString(16)}`);
    await ptePager.getByLabel('Go to vpn').press('Enter');
    await ptePager.getByRole('status').getByText(pte.text, { exact: true }).waitFor({ timeout: 10_000 });
    assert.match((await ptePager.textContent()) ?? '', /PTEs 34,465–100,000 of 100,000/);
    const tip = lab.page.getByTestId('pte-canvas-1-tooltip');
    assert.equal(await tip.textContent(), pte.text);
    assert.equal(await lab.page.getByText(/outside the (frame's )?PTE window/).count(), 0, 'no row or cell is outside the window');
    assert.match((await lab.page.getByRole('img', { name: /PTEs of pid 1/ }).getAttribute('aria-label')) ?? '', /PTEs 34,465–100,000 of 100,000 in this window/);
    await lab.screenshot('30a-pte-beyond-first-window');
    // The frames: back to the first window, then select the PTE (Enter on the grid): the frame window follows the selected frame.
    await framePager.getByRole('button', { name: 'Earlier frames' }).press('Enter');
    await framePager.getByText('frames 1–65,536 of 80,000').waitFor({ timeout: 10_000 });
    await lab.page.getByTestId('pte-canvas-1').focus();
    await lab.page.keyboard.press('Enter');
    await framePager.getByText('frames 14,465–80,000 of 80,000').waitFor({ timeout: 10_000 });
    const node1 = lab.page.getByTestId('frame-canvas-1');
    await lab.page.waitForFunction((pfn) => document.querySelector('[data-testid="frame-canvas-1"]')?.getAttribute('data-linked')?.split(' ').includes(String(pfn)), pte.pfn);
    // Go to that frame: its tooltip says who maps it.
    await framePager.getByLabel('Go to pfn').fill(String(pte.pfn));
    await framePager.getByLabel('Go to pfn').press('Enter');
    const frameText = new RegExp(`^pfn 0x${pte.pfn.toString(16)} \\(${pte.pfn}\\), node 1: mapped by pid 1 vpn 0x${vpn.toString(16)}`);
    await lab.page.waitForFunction((re) => new RegExp(re).test(document.querySelector('[data-testid="frame-canvas-1-tooltip"]')?.textContent ?? ''), frameText.source);
    assert.match((await framePager.getByRole('status').textContent()) ?? '', frameText);
    await node1.evaluate((e) => e.scrollIntoView({ block: 'center' }));
    await lab.screenshot('30b-frame-beyond-first-window');
    // Stepping keeps the windows (the step before touched nothing outside them) and the transport answers.
    await lab.stepBack();
    assert.match((await ptePager.textContent()) ?? '', /PTEs 34,465–100,000 of 100,000/);
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('hover and selection link a dense (canvas) page table with a small (SVG) machine, and a small page table with dense frames and TLBs', async () => {
    // A canvas page table, SVG frames.
    let sim = new wasm.Simulation(DENSE_PTES_SMALL_MACHINE, {}, {});
    let step = stepBeforeExit(sim);
    const startVpn = sim.summary().processes[0].vmas[0].startVpn;
    sim.free();
    const lab = await newLab();
    await lab.openScenario(undefined, customFragment(DENSE_PTES_SMALL_MACHINE, step));
    await lab.waitForStep(step);
    const pteCanvas = lab.page.getByTestId('pte-canvas-1');
    assert.equal(await pteCanvas.evaluate((e) => e.tagName), 'CANVAS');
    assert.equal(await lab.page.locator('[data-testid^="frame-canvas"], [data-testid="tlb-canvas"]').count(), 0, 'frames and TLBs are SVG');
    const frameCell = (re) => lab.page.locator('svg g').filter({ has: lab.page.locator(':scope > title', { hasText: re }) });
    const heapFrame = frameCell(new RegExp(`^pfn \\d+ .*mapped by pid 1 vpn 0x${startVpn.toString(16)}(,|$)`));
    assert.equal(await heapFrame.count(), 1, 'one frame maps the heap\'s first page');
    // The left edge of the linked ring of PTE cell 0 (the grid is padded by 7 px; the ring is 4 px out).
    await pteCanvas.scrollIntoViewIfNeeded();
    const ringBefore = await canvasPixel(pteCanvas, 3, 10);
    // Hover the SVG frame: the PTE that maps it gets a ring on the canvas.
    await heapFrame.locator('rect').first().hover();
    await lab.page.waitForFunction((v) => document.querySelector('[data-testid="pte-canvas-1"]')?.getAttribute('data-linked') === v, `0x${startVpn.toString(16)}`);
    const ringAfter = await canvasPixel(pteCanvas, 3, 10);
    assert.ok(Math.max(...ringBefore) > 200 && Math.max(...ringAfter) < 100, `the ring is drawn (pixel ${ringBefore} before, ${ringAfter} while hovered)`);
    await lab.screenshot('31a-svg-frame-hover-links-pte-canvas', { fullPage: true });
    // Hover PTE cell 0 on the canvas: the SVG frame it maps is highlighted; a click keeps it.
    await pteCanvas.scrollIntoViewIfNeeded();
    const pb = await pteCanvas.boundingBox();
    assert.ok(pb);
    await lab.page.mouse.move(pb.x + 9, pb.y + 9);
    const tip = lab.page.getByTestId('pte-canvas-1-tooltip');
    await tip.waitFor({ timeout: 5_000 });
    const m = new RegExp(`^pid 1 vpn 0x${startVpn.toString(16)} → pfn 0x([0-9a-f]+): present`).exec((await tip.textContent()) ?? '');
    assert.ok(m, `tooltip ${await tip.textContent()}`);
    const pfn = parseInt(m[1], 16);
    const target = frameCell(new RegExp(`^pfn ${pfn} \\(`));
    await lab.page.waitForFunction((p) => [...document.querySelectorAll('svg g > title')].some((t) => t.textContent?.startsWith(`pfn ${p} (`) && t.parentElement?.querySelector('rect[class*="highlightFrame"]')), pfn);
    // ... and so is the SVG TLB line caching it (CPU 0's, which made the access).
    assert.equal(await lab.page.locator('svg rect[class*="tlbLinked"]').count(), 1, 'one TLB line caches that frame');
    await lab.screenshot('31b-pte-canvas-hover-links-svg-frame', { fullPage: true });
    await lab.page.mouse.click(pb.x + 9, pb.y + 9);
    await lab.page.mouse.move(0, 0);
    assert.equal(await target.locator('rect[class*="highlightFrame"]').count(), 1, 'the selected frame stays highlighted');
    assert.equal(await pteCanvas.getAttribute('data-linked'), `0x${startVpn.toString(16)}`);

    // HTML page-table rows, canvas frames and TLBs.
    sim = new wasm.Simulation(SMALL_PTES_DENSE_MACHINE, {}, {});
    step = stepBeforeExit(sim);
    sim.free();
    await lab.openScenario(undefined, customFragment(SMALL_PTES_DENSE_MACHINE, step));
    await lab.waitForStep(step);
    assert.equal(await lab.page.locator('[data-testid^="pte-canvas"]').count(), 0, 'the page table is rows');
    const pfnButton = lab.page.getByRole('button', { name: /^pfn \d+ on node \d+: highlight the frame$/ }).first();
    const [, p, node] = /^pfn (\d+) on node (\d+)/.exec((await pfnButton.getAttribute('aria-label')) ?? '') ?? [];
    assert.ok(p !== undefined, 'a pfn button');
    const frameCanvas = lab.page.getByTestId(`frame-canvas-${node}`);
    assert.equal(await frameCanvas.evaluate((e) => e.tagName), 'CANVAS');
    // Hover the row's pfn: the frame canvas rings it.
    await pfnButton.hover();
    await lab.page.waitForFunction(([n, v]) => document.querySelector(`[data-testid="frame-canvas-${n}"]`)?.getAttribute('data-linked') === v, [node, p]);
    await frameCanvas.evaluate((e) => e.scrollIntoView({ block: 'center' }));
    await pfnButton.hover();
    await lab.screenshot('31c-pte-row-hover-links-frame-canvas', { fullPage: true });
    // Hover that frame on the canvas (found with the keyboard cursor, then pointed at): its PTE row is highlighted.
    await lab.page.mouse.move(0, 0);
    await lab.page.waitForFunction(() => !document.querySelector('tr[class*="_linked_"]'));
    const firstPfn = Number((/pfn (\d+)–/.exec((await frameCanvas.getAttribute('aria-label')) ?? '') ?? [])[1]);
    await frameCanvas.focus();
    await lab.page.keyboard.press('Home');
    for (let i = 0; i < Number(p) - firstPfn; i++) await lab.page.keyboard.press('ArrowRight');
    const cursor = frameCanvas.locator('xpath=..').locator('[class*="_cursor_"]');
    const cb = await cursor.boundingBox();
    assert.ok(cb, 'the grid cursor is shown');
    await frameCanvas.blur();
    await lab.page.mouse.move(cb.x + cb.width / 2, cb.y + cb.height / 2);
    assert.match((await lab.page.getByTestId(`frame-canvas-${node}-tooltip`).textContent()) ?? '', new RegExp(`^pfn 0x[0-9a-f]+ \\(${p}\\), node ${node}: mapped by pid 1`));
    const linkedRow = lab.page.locator('tr[class*="_linked_"]');
    await linkedRow.waitFor({ timeout: 5_000 });
    assert.equal(await linkedRow.getByRole('button', { name: new RegExp(`^pfn ${p} on node`) }).count(), 1, 'the row of that pfn');
    await lab.screenshot('31d-frame-canvas-hover-links-pte-row', { fullPage: true });
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('the kernel picker sets every toggle of a version in one rebuild, and a link keeps it', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    const kernel = lab.page.getByRole('combobox', { name: 'Kernel' });
    // The scenario's toggles are those of the latest kernel the registry knows (every patch
    // merged: numa_delay_map and tlb_flush_multi on, with the later ones).
    const latest = await kernel.locator('option').last().getAttribute('value');
    assert.equal(await kernel.inputValue(), latest);
    const labels = await kernel.locator('option').allTextContents();
    assert.equal(labels[0], 'custom');
    const v512 = labels.find((l) => /\bv5\.12\b/.test(l));
    assert.ok(v512, `an option covers v5.12: ${labels.join(' | ')}`);
    await kernel.selectOption({ label: v512 });
    await lab.page.waitForFunction(() => /[#&]t\.numa_delay_map=false(&|$)/.test(location.hash) && /[#&]t\.tlb_flush_multi=false(&|$)/.test(location.hash));
    assert.equal(await lab.toggleSwitch(DELAY_MAP_TITLE).isChecked(), false);
    assert.equal(await lab.toggleSwitch(FLUSH_MULTI_TITLE).isChecked(), false);
    assert.notEqual(await kernel.inputValue(), latest);
    assert.equal(await kernel.locator('option:checked').textContent(), v512);
    // One rebuild for both toggles: the counters' comparison names them together.
    const rebuilt = await lab.page.getByText(/^Rebuilt with/).textContent();
    assert.match(rebuilt ?? '', /numa_delay_map=false/);
    assert.match(rebuilt ?? '', /tlb_flush_multi=false/);
    await lab.screenshot('32a-kernel-v5.12');
    const counters = await lab.readCounters();
    await lab.page.reload();
    await lab.readout().waitFor();
    await lab.waitForStep(0);
    assert.equal(await lab.toggleSwitch(DELAY_MAP_TITLE).isChecked(), false);
    assert.equal(await lab.toggleSwitch(FLUSH_MULTI_TITLE).isChecked(), false);
    assert.equal(await lab.page.getByRole('combobox', { name: 'Kernel' }).locator('option:checked').textContent(), v512);
    assert.deepEqual(await lab.readCounters(), counters);
    // One toggle away from every kernel: "custom".
    await lab.toggle(DELAY_MAP_TITLE, true);
    assert.equal(await lab.page.getByRole('combobox', { name: 'Kernel' }).inputValue(), '__custom');
    await lab.screenshot('32b-kernel-custom', { clip: { x: 0, y: 0, width: 1440, height: 220 } });
    // The keyboard reaches it and picks a kernel too.
    await lab.page.getByRole('combobox', { name: 'Kernel' }).focus();
    await lab.page.keyboard.press('End');
    await lab.page.waitForFunction(() => !/[#&]t\.(numa_delay_map|tlb_flush_multi)=/.test(location.hash));
    assert.equal(await lab.toggleSwitch(FLUSH_MULTI_TITLE).isChecked(), true);
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('a patch card shows the toggle\u2019s history', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    await lab.openPatchCard(DELAY_MAP_TITLE);
    const card = lab.page.getByRole('complementary', { name: `Patch: ${DELAY_MAP_TITLE}` });
    const timeline = card.getByRole('list', { name: /^History: / });
    assert.equal(await timeline.getAttribute('aria-label'), 'History: off before v5.13, on from v5.13');
    await lab.screenshot('32c-patch-card-history');
    await lab.page.keyboard.press('Escape');
    await lab.page.close();
  });

  it('pasting numactl --hardware output previews the machine, and a broken paste names its line and keeps the text', async () => {
    const lab = await newLab();
    await lab.openScenario(SCENARIO);
    const openDialog = async () => {
      await lab.page.getByRole('button', { name: 'Machine…' }).click();
      const dialog = lab.page.getByRole('dialog', { name: 'Machine from numactl --hardware' });
      await dialog.waitFor();
      return dialog;
    };
    let dialog = await openDialog();
    const box = dialog.getByRole('textbox', { name: 'numactl --hardware output' });
    // The box has the focus, and keys typed there do not step the run behind the dialog.
    assert.equal(await box.evaluate((b) => b === document.activeElement), true);
    await lab.page.keyboard.press('End');
    assert.equal((await lab.readStep()).step, 0);
    await box.fill(NUMACTL_REAL);
    await dialog.getByRole('table', { name: 'Nodes' }).waitFor();
    assert.equal(await dialog.getByTestId('numactl-summary').textContent(), '2 nodes, 72 CPUs, 189,300 MB (184.9 GiB)');
    const rows = await dialog.getByRole('table', { name: 'Nodes' }).locator('tbody tr').allTextContents();
    assert.match(rows[0] ?? '', /^00-17,36-53 \(36\)94,590 MB/);
    assert.match(rows[1] ?? '', /^118-35,54-71 \(36\)94,710 MB/);
    const distances = await dialog.getByRole('table', { name: 'Node distances' }).locator('tbody td').allTextContents();
    assert.deepEqual(distances, ['10', '21', '21', '10']);
    // 189,300 MB is 48.5 M real pages: 1,024 of them per simulated page keeps it under 65,536 (each node rounded down).
    assert.equal(await dialog.getByRole('spinbutton', { name: 'Memory scale' }).inputValue(), '1024');
    assert.match((await dialog.getByTestId('numactl-scale').textContent()) ?? '', /47,324 simulated pages/);
    await lab.screenshot('32d-numactl-preview');
    // Closed and opened again: the text is still there.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    dialog = await openDialog();
    assert.equal(await dialog.getByRole('textbox', { name: 'numactl --hardware output' }).inputValue(), NUMACTL_REAL);
    await dialog.getByRole('table', { name: 'Nodes' }).waitFor();

    // A broken paste: the engine's error with its line, the line marked, the text kept.
    await dialog.getByRole('textbox', { name: 'numactl --hardware output' }).fill(NUMACTL_BROKEN);
    const error = dialog.getByTestId('numactl-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /^Line 8: distance row for node 1 has 1 values, the header names 2 nodes/);
    assert.match((await error.getByRole('button').textContent()) ?? '', /^8\s*1:\s+20$/);
    assert.equal(await dialog.locator('[class*="_gutterMark_"]').textContent(), '8');
    await error.getByRole('button').click();
    const selected = await dialog.getByRole('textbox', { name: 'numactl --hardware output' }).evaluate((t) => t.value.slice(t.selectionStart, t.selectionEnd));
    assert.equal(selected, '  1:  20');
    await lab.screenshot('32e-numactl-error');
    await lab.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // A reload keeps it too (sessionStorage).
    await lab.page.reload();
    await lab.readout().waitFor();
    dialog = await openDialog();
    assert.equal(await dialog.getByRole('textbox', { name: 'numactl --hardware output' }).inputValue(), NUMACTL_BROKEN);
    await dialog.getByTestId('numactl-error').waitFor();
    // A machine without the CPUs the scenario's threads run on: the engine's message (line and field), the text kept.
    const TWO_CPUS = 'node 0 cpus: 0 1\nnode 0 size: 1000 MB\n';
    await dialog.getByRole('textbox', { name: 'numactl --hardware output' }).fill(TWO_CPUS);
    await dialog.getByTestId('numactl-summary').filter({ hasText: '1 node, 2 CPUs' }).waitFor();
    await dialog.getByRole('button', { name: 'Use this machine' }).click();
    const lacking = dialog.getByTestId('machine-use-error');
    await lacking.waitFor();
    assert.match((await lacking.textContent()) ?? '', /line \d+, field `process\[0\]\.thread\[0\]\.cpu`: CPU 2 does not exist \(the machine has CPUs 0-1\)/);
    assert.equal(await dialog.getByRole('textbox', { name: 'numactl --hardware output' }).inputValue(), TWO_CPUS);
    // The line is the rewritten scenario's: shown on demand, marked.
    await lacking.getByText('The scenario text the line number refers to').click();
    const marked = await lacking.locator('[class*="_scenarioMark_"]').textContent();
    assert.match(marked ?? '', /^\s*\d+ {2}cpu = 2/);
    await lab.screenshot('32f-numactl-use-refused');
    await dialog.getByRole('textbox', { name: 'numactl --hardware output' }).fill(NUMACTL_REAL);
    await dialog.getByRole('table', { name: 'Nodes' }).waitFor();
    await dialog.getByTestId('numactl-summary').filter({ hasText: '72 CPUs' }).waitFor();
    // "Use this machine": the scenario on the pasted machine, or the engine's message with the text kept.
    await dialog.getByRole('button', { name: 'Use this machine' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 60_000 });
    await lab.page.waitForFunction(() => /[#&]s=/.test(location.hash) && !document.querySelector('[role="progressbar"]'));
    assert.equal(await lab.page.getByRole('combobox', { name: 'Scenario' }).inputValue(), '__custom');
    // The machine drawn is the pasted one: two nodes of 36 CPUs, as ranges.
    await lab.page.getByText('CPUs 0-17,36-53').waitFor();
    await lab.page.getByText('CPUs 18-35,54-71').waitFor();
    // The text names the CPUs and nodes of this run (CPUs 2 and 3 are on node 0 here, not 1)
    // and the lab says that the machine is not the one the text was written for.
    const note = /This run's machine \(2 nodes, 72 CPUs\) is not the one numa-hint-fault-101 was written for \(2 nodes, 4 CPUs\)/;
    await lab.page.getByRole('alert').filter({ hasText: "This run's machine" }).waitFor();
    assert.match((await lab.alerts()).join('\n'), note);
    await lab.page.getByText(/^Each CPU keeps recent address translations in its TLB\. Both threads run on node 0, but the heap's pages are on node 0/).waitFor();
    await lab.screenshot('32g-numactl-use');
    // The link reopens it.
    const link = await lab.copyLink();
    await lab.openLink(link);
    await lab.page.getByText('CPUs 0-17,36-53').waitFor();
    await lab.page.getByRole('alert').filter({ hasText: "This run's machine" }).waitFor();
    assert.equal((await lab.alerts()).length, 1);
    await lab.page.close();
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});

abSuite({ newLab: () => newLab(), freshLab, scenario: SCENARIO });
shareSuite({
  newLab: () => newLab(),
  freshLab,
  wasm,
  get baseUrl() {
    return baseUrl;
  },
  mmvizBin: process.env.MMVIZ_BIN ? resolve(here, '..', '..', process.env.MMVIZ_BIN) : null,
  distDir,
});
lectureSuite({ newLab: () => newLab(), freshLab, scenario: SCENARIO, wasm, builtins: BUILTINS, baseUrl: () => baseUrl });

describe('PCP panel (page allocator)', () => {
  /** Scrolls the page so that the panel's top is just below the sticky header. */
  async function scrollToPanel(pcp) {
    await pcp.evaluate((el) => {
      const stage = document.querySelector('section[aria-label="Current step"]');
      const below = stage ? stage.getBoundingClientRect().height : 0;
      window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - below - 8);
    });
  }

  /** The PCP panel, scrolled into view. */
  async function pcpPanel(lab) {
    const pcp = lab.page.locator('section[data-view="pcp"]');
    await pcp.waitFor({ timeout: 60_000 });
    await scrollToPanel(pcp);
    return pcp;
  }

  it('pcp-101: the exit drain step by step, with the zone lock held, then released', async () => {
    const lab = await newLab();
    await lab.page.setViewportSize({ width: 1280, height: 800 });
    await lab.openScenario(undefined, 'v=1&sc=pcp-101&step=237');
    await lab.waitForStep(237);
    const pcp = await pcpPanel(lab);
    const row = pcp.getByTestId('pcp-row-0-0');
    // Step 237: CPU 0 took zone 0's lock to free 8 pages of its full PCP (count 32 = high 32).
    assert.equal(await row.getAttribute('data-count'), '32');
    assert.equal(await row.getAttribute('data-high'), '32');
    assert.match((await pcp.getByTestId('pcp-lock-0').textContent()) ?? '', /held by CPU 0 \(1\/0\)/);
    assert.match((await row.textContent()) ?? '', /free_pcppages_bulk/);
    assert.match((await row.getByTestId('pcp-activity').textContent()) ?? '', /zone lock/);
    await lab.screenshot('40a-pcp-101-mid-exit-lock-held');
    // One step on: the drain is done, 24 pages left, the lock free.
    await lab.stepForward();
    await scrollToPanel(pcp);
    assert.equal(await row.getAttribute('data-count'), '24');
    assert.match((await pcp.getByTestId('pcp-lock-0').textContent()) ?? '', /free$/);
    assert.match((await row.getByTestId('pcp-activity').textContent()) ?? '', /drain \(free_pcppages_bulk\)/);
    assert.equal(await pcp.getByTestId('pcp-zone-pcp-pages').textContent(), '24');
    await lab.screenshot('40b-pcp-101-mid-exit-drained');
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('pcp-autotune: high raised far above high_min under load', async () => {
    const lab = await newLab();
    await lab.page.setViewportSize({ width: 1280, height: 800 });
    await lab.openScenario(undefined, 'v=1&sc=pcp-autotune&step=1000');
    await lab.waitForStep(1000, 180_000);
    const pcp = await pcpPanel(lab);
    const row = pcp.getByTestId('pcp-row-0-0');
    assert.equal(await row.getAttribute('data-high'), '1144');
    assert.match((await row.textContent()) ?? '', /range 640-8,192/);
    await lab.stepTo(30_000);
    assert.equal(await row.getAttribute('data-high'), '6688');
    assert.equal(await row.getAttribute('data-count'), '6030');
    // Two steps seen: the sparkline has a line for high.
    assert.equal(await row.locator('polyline').count(), 2);
    await scrollToPanel(pcp);
    await lab.screenshot('40c-pcp-autotune-high-raised');
    await lab.page.close();
  });

  it('pcp-unix-pairs: 32 CPUs paged 8 at a time, the zone locks with their queues', async () => {
    const lab = await newLab();
    await lab.page.setViewportSize({ width: 1280, height: 800 });
    await lab.openScenario(undefined, 'v=1&sc=pcp-unix-pairs&step=87480');
    await lab.waitForStep(87_480, 180_000);
    const pcp = await pcpPanel(lab);
    // CPU 14 finds zone 0's lock held by CPU 2 and queues behind two others; four wait for zone 1's (held by CPU 21).
    assert.match((await pcp.getByTestId('pcp-lock-0').textContent()) ?? '', /held by CPU 2 \(2\/0\) · 3 waiting: CPU 7 \(4\/1\)/);
    assert.match((await pcp.getByTestId('pcp-lock-1').textContent()) ?? '', /held by CPU 21 \(11\/1\) · 4 waiting/);
    // Following the acting CPU (14): page 2 of 4.
    assert.equal(await pcp.getByTestId('pcp-page').textContent(), 'page 2/4');
    assert.equal(await pcp.locator('tbody tr').count(), 16);
    await lab.screenshot('40d-pcp-unix-pairs');
    // The pagesets of CPUs 8-15: CPU 14 (the acting one) spins on zone 0's lock.
    const acting = pcp.getByTestId('pcp-row-14-0');
    assert.match((await acting.textContent()) ?? '', /spinning on zone lock/);
    await acting.evaluate((el) => el.scrollIntoView({ block: 'end' }));
    await lab.screenshot('40e-pcp-unix-pairs-pagesets');
    await pcp.getByRole('button', { name: 'Next CPUs' }).click();
    assert.equal(await pcp.getByTestId('pcp-page').textContent(), 'page 3/4');
    await pcp.getByTestId('pcp-row-16-1').waitFor();
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});

describe('mremap panel', () => {
  const panelOf = (lab) => lab.page.locator('section[data-view="mremap"]');
  /** A lecture screen (1280x800) scrolled to the panel, then a screenshot. */
  async function shoot(lab, name) {
    await lab.page.setViewportSize({ width: 1280, height: 800 });
    // Its top just below the sticky step header.
    await panelOf(lab).evaluate((el) => {
      el.scrollIntoView({ block: 'start' });
      window.scrollBy(0, -230);
    });
    await lab.screenshot(name);
  }

  it('shows mremap-101 mid-move: both PTLs held, PTEs moving, forced-flush badges, the stale window', async () => {
    const lab = await newLab();
    // Step 20 (v4.19): two of the four PTEs are at the new address, under both PTLs, before the flush.
    await lab.openScenario(undefined, 'v=1&sc=mremap-101&step=20');
    await lab.waitForStep(20);
    const panel = panelOf(lab);
    await panel.waitFor();
    await panel.getByTestId('mremap-move').first().waitFor();
    assert.match(await panel.getByTestId('regime-rule').textContent(), /^v4\.19\+/);
    assert.match(await panel.getByTestId('phase').first().textContent(), /1\/0 on CPU 0: move_ptes/);
    assert.match(await panel.getByTestId('moved').first().textContent(), /2\/4 moved/);
    for (const lock of ['mmap_lock', 'old PTL', 'new PTL']) assert.match(await panel.getByTestId(`lock-${lock}`).first().textContent(), /held by 1\/0 \(CPU 0\)/);
    assert.deepEqual(await panel.getByTestId('decision').allTextContents(), ['F', 'F']);
    assert.match(await panel.getByTestId('stale-cpu').first().textContent(), /^CPU 0: 2 old translation/);
    await shoot(lab, '40-mremap-101-mid-move');
    // One step on: the third PTE moves.
    await lab.stepForward();
    assert.match(await panel.getByTestId('moved').first().textContent(), /3\/4 moved/);
    assert.deepEqual(await panel.getByTestId('decision').allTextContents(), ['F', 'F', 'F']);
    await lab.page.close();
  });

  it('flags the lost write of mremap-race-101 under deferred with a button to its step', async () => {
    const lab = await newLab();
    await lab.openScenario(undefined, 'v=1&sc=mremap-race-101&step=40');
    await lab.waitForStep(40);
    const panel = panelOf(lab);
    const findings = panel.getByRole('list', { name: 'Findings' });
    await findings.waitFor();
    const lost = findings.getByRole('button', { name: /^step \d+$/ }).first();
    const label = await lost.textContent();
    const step = Number(label.replace('step ', ''));
    assert.ok(step > 40, label);
    // The stale window is open: CPU 0 holds the old address writable and dirty during the delay.
    assert.match(await panel.getByTestId('stale-window').textContent(), /CPU 0: 1 old translation\(s\), 1 writable\+dirty/);
    await shoot(lab, '41-mremap-race-101-stale-window');
    await lost.click();
    await lab.waitForStep(step);
    assert.match(await findings.textContent(), /the file never got that store/);
    assert.equal(await lab.readCounter('lost_writes'), 1);
    await shoot(lab, '42-mremap-race-101-lost-write');
    await lab.page.close();
  });

  it('explains why the anonymous page\'s stale store is harmless under the 2018 rule', async () => {
    const lab = await newLab();
    await lab.openScenario(undefined, 'v=1&sc=mremap-race-101&t.mremap_flush=dirty_file_or_swapcache&step=40');
    await lab.waitForStep(40);
    const panel = panelOf(lab);
    await panel.getByTestId('anon-explain').first().waitFor();
    assert.match(await panel.getByTestId('anon-explain').first().textContent(), /lands in the same physical page/);
    assert.equal(await panel.getByRole('list', { name: 'Findings' }).getByText('Lost write (detected):').count(), 0);
    await shoot(lab, '43-mremap-race-101-2018-anon');
    await lab.page.close();
  });

  it('draws mremap-2mb with 8 PTEs per cell, the running mremap and the thread waiting for mmap_lock', async () => {
    const lab = await newLab();
    // A quarter into the run: thread 1/0 moves its 512-page region, 1/3 spins on mmap_lock.
    await lab.openScenario(undefined, 'v=1&sc=mremap-2mb&step=12990');
    await lab.waitForStep(12990, 120_000);
    const panel = panelOf(lab);
    await panel.getByTestId('mremap-move').first().waitFor();
    assert.equal(await panel.getByTestId('mremap-move').count(), 4);
    assert.match(await panel.textContent(), /512 pages: each cell stands for 8 PTEs \(at most 64 cells per range\)/);
    assert.match(await panel.getByTestId('phase').first().textContent(), /^1\/0 on CPU \d+: move_ptes/);
    assert.match(await panel.getByTestId('lock-mmap_lock').first().textContent(), /held by 1\/0 .*waiting: .*1\/3/);
    assert.equal(await panel.getByTestId('old-cell').count(), 4 * 64);
    await shoot(lab, '44-mremap-2mb');
    await lab.page.close();
  });
});

describe('NUMA balancing panel', () => {
  const panelOf = (lab) => lab.page.locator('section[data-view="numa"]');
  /** Opens `fragment` on a lecture screen (1280x800) and returns the panel, scrolled to just below the sticky step header. */
  async function open(lab, fragment, step, timeout = 60_000) {
    await lab.page.setViewportSize({ width: 1280, height: 800 });
    await lab.openScenario(undefined, fragment);
    await lab.waitForStep(step, timeout);
    const panel = panelOf(lab);
    await panel.waitFor({ timeout });
    await scrollTo(lab);
    return panel;
  }
  async function scrollTo(lab) {
    await panelOf(lab).evaluate((el) => {
      const stage = document.querySelector('section[aria-label="Current step"]');
      const below = stage ? stage.getBoundingClientRect().height : 0;
      window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - below - 8);
    });
  }

  it('numa-hint-fault-101: the hint fault decides to migrate (early-lifetime shortcut), then migrates', async () => {
    const lab = await newLab();
    // Step 41: mpol_misplaced has just decided (event 40) for pfn 0 on node 0, faulted from CPU 2 on node 1.
    const panel = await open(lab, 'v=1&sc=numa-hint-fault-101&step=41', 41);
    const fault = panel.getByTestId('hint-fault').first();
    assert.equal(await fault.getAttribute('data-rule'), 'early');
    assert.equal(await fault.getAttribute('data-outcome'), 'pending');
    assert.match(await fault.textContent(), /1\/0 on CPU 2 \(node 1\) · page 0x7f000 \(pfn 0\) on node 0/);
    assert.match(await fault.textContent(), /last_cpupid: unset/);
    assert.match(await panel.getByTestId('fault-rule').first().textContent(), /early-lifetime shortcut.*no preferred node yet/);
    assert.equal(await panel.getByTestId('fault-decision').first().textContent(), 'Decision: migrate to node 1');
    assert.match(await panel.getByTestId('protnone').first().textContent(), /4 PROT_NONE not yet faulted/);
    assert.match(await panel.locator('[data-counter="numa_hint_faults"]').textContent(), /numa_hint_faults1$/);
    await lab.screenshot('45a-numa-hint-fault-101-decides-to-migrate');
    // Step 58: the migration is done (event 57); the new PTE is present, three pages are still PROT_NONE.
    await lab.stepTo(58);
    assert.equal(await fault.getAttribute('data-outcome'), 'migrated');
    assert.match(await panel.getByTestId('fault-outcome').first().textContent(), /migrated to node 1/);
    assert.match(await panel.getByTestId('protnone').first().textContent(), /3 PROT_NONE not yet faulted/);
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it("numa-thread-race-101: the racing thread's mapping makes the migration's unmap send an IPI", async () => {
    const lab = await newLab();
    // Step 59: CPU 2 (1/0) unmaps pfn 0, which 1/1 mapped again after its isolate_lru_page failed; the IPI goes to CPU 3.
    const panel = await open(lab, 'v=1&sc=numa-thread-race-101&step=59', 59);
    const sd = panel.getByTestId('shootdown');
    assert.equal(await sd.count(), 1);
    assert.equal(await sd.getAttribute('data-cause'), 'race');
    assert.match(await sd.textContent(), /CPU 2 \(1\/0\) flushes mm 1 from try_to_unmap_one: .*another thread made present/);
    assert.deepEqual(await sd.locator('li').evaluateAll((els) => els.map((e) => e.dataset.role)), ['sender', 'ipi']);
    // The fault in progress (1/0's, migrating) first, then 1/1's finished one.
    const outcomes = await panel.getByTestId('hint-fault').evaluateAll((els) => els.map((e) => e.dataset.outcome));
    assert.deepEqual(outcomes, ['pending', 'failed']);
    assert.match(await panel.getByTestId('fault-outcome').first().textContent(), /migrating to node 1 .*1 IPI \(race\)/);
    assert.match(await panel.getByTestId('fault-outcome').nth(1).textContent(), /isolate_lru_page failed/);
    await lab.screenshot('45b-numa-thread-race-101-race-ipi');
    // Once CPU 3 has acknowledged, no shootdown is in flight any more.
    await lab.lastStep();
    assert.equal(await panel.getByTestId('shootdown').count(), 0);
    await lab.page.close();
  });

  it('numa-delay-map-scale mid-run: the scanner bar, faults in progress and the IPIs stacked by cause', async () => {
    const lab = await newLab();
    const panel = await open(lab, `v=1&sc=${LONG_SCENARIO}&step=700000`, 700_000, 180_000);
    const plot = panel.getByTestId('numa-cause-plot');
    await plot.waitFor();
    assert.deepEqual(await plot.locator('path[data-cause]').evaluateAll((els) => els.map((e) => e.dataset.cause)), ['scan', 'mapped', 'race', 'pending', 'other']);
    // 8,192 pages in 64 cells of 128.
    assert.match(await panel.textContent(), /each cell: 128 pages/);
    assert.equal(await panel.getByTestId('vma-bar').locator('[data-protnone]').count(), 64);
    assert.match(await panel.getByTestId('protnone').first().textContent(), /3,299 PROT_NONE not yet faulted/);
    assert.ok((await panel.getByTestId('hint-fault').count()) >= 1);
    await lab.screenshot('45c-numa-delay-map-scale-mid-run');
    // The plot's caption just below the sticky step header.
    await panel.getByTestId('numa-cause-plot').evaluate((el) => {
      const fig = el.closest('figure') ?? el;
      const stage = document.querySelector('section[aria-label="Current step"]');
      const below = stage ? stage.getBoundingClientRect().height : 0;
      window.scrollTo(0, fig.getBoundingClientRect().top + window.scrollY - below - 8);
    });
    await lab.screenshot('45c2-numa-delay-map-scale-plot');
    assert.deepEqual(await lab.alerts(), []);
    await lab.page.close();
  });

  it("numa-dirty-file-101: the scanner skips the dirty file page (numa_skip_dirty_file on)", async () => {
    const lab = await newLab();
    // Step 22: event 21, change_pte_range leaves PTE 0x7f001 (a dirty file page) alone.
    const panel = await open(lab, 'v=1&sc=numa-dirty-file-101&step=22', 22);
    assert.match(await panel.getByTestId('scan-event').textContent(), /^Skip: PTE 0x7f001: skipped, a dirty file page/);
    assert.equal(await panel.getByTestId('scan-event-cell').count(), 1);
    assert.match(await panel.getByTestId('scanning').textContent(), /1\/0 on CPU 2 marks pages 0x7f000–0x7f002 \(explicit scan\)/);
    await lab.screenshot('45d-numa-dirty-file-101-scan-skip');
    // The next chunk marks the clean file pages: scan_pte, PROT_NONE counted.
    await lab.stepTo(31);
    assert.match(await panel.getByTestId('scan-event').textContent(), /^Marked: PTE 0x7f401/);
    assert.match(await panel.getByTestId('protnone').first().textContent(), /2 PROT_NONE/);
    await lab.page.close();
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});

// One file per feature, registered here (this file owns the browser, the server and the oracle).
sweepSuite({ newLab: () => newLab(), wasm, builtins: BUILTINS });
exploreSuite({ newLab: () => newLab(), freshLab, wasm, builtins: BUILTINS });

// Feature files, one per feature, share this runner (node:test runs them after the tests above).
await import('./access.e2e.mjs');
await import('./authoring.e2e.mjs');
await import('./imports.e2e.mjs');
await import('./zoneinfo.e2e.mjs');
await import('./csp.e2e.mjs');
await import('./badinput.e2e.mjs');

describe('feature files', () => {
  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
