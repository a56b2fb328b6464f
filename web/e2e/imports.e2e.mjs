/* global CSSStyleSheet -- used in the page (page.evaluate). */
// End-to-end tests of the importers of pasted machine output: a real `lscpu` merged into the
// real `numactl --hardware` of the same machine (Machine…), then `/proc/zoneinfo` and two
// `/proc/vmstat` snapshots (Measured…) whose change shows beside the simulated counters of the
// same names; markup pasted or typed into any box or text field stays text, and a bad line is
// named with the text kept.
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
const NUMACTL = fixture('numactl-intel-xeon-max-9470c-2s-hbm-cpuless.txt');
const LSCPU = fixture('lscpu-intel-xeon-max-9470c-aurora-hbm.txt');
const ZONEINFO = fixture('zoneinfo-pcp-qa-2node-8cpu-kernel5x-per-node-stats.txt');
const BEFORE = fixture('vmstat-devbox-6.18-before.txt');
const AFTER = fixture('vmstat-devbox-6.18-after-10s.txt');
const SCENARIO = 'numa-hint-fault-101';

// The engine's own wasm package in Node is the oracle for the numbers shown.
const wasmPkg = join(here, '..', 'src', 'wasm-pkg');
const wasm = await import(join(wasmPkg, 'mmviz.js'));
await wasm.default({ module_or_path: readFileSync(join(wasmPkg, 'mmviz_bg.wasm')) });

/** Markup that would run or render if a box's text were ever parsed as HTML. */
const PAYLOADS = ['<script>window.__pwned = 1</script>', '<img src=x onerror="window.__pwned = 1">', '<b id="injected">bold</b>'];

/**
 * The counter names of the Counters panel that wrap inside a word: for every row header, where
 * its text goes to a new line (a character's box below the previous one's), the character before
 * must be `_` (names wrap only between their words). Returns "name: where" for each bad break.
 */
async function midWordBreaks(page) {
  return page.evaluate(() => {
    const bad = [];
    for (const th of document.querySelectorAll('th[scope="row"]')) {
      const chars = [];
      const walk = document.createTreeWalker(th, 4 /* NodeFilter.SHOW_TEXT */);
      for (let node = walk.nextNode(); node; node = walk.nextNode()) {
        for (let i = 0; i < node.data.length; i++) {
          const r = document.createRange();
          r.setStart(node, i);
          r.setEnd(node, i + 1);
          const box = r.getBoundingClientRect();
          if (box.width > 0) chars.push({ c: node.data[i], top: box.top, height: box.height });
        }
      }
      for (let i = 1; i < chars.length; i++) {
        if (chars[i].top > chars[i - 1].top + chars[i - 1].height / 2 && chars[i - 1].c !== '_') {
          bad.push(`${th.textContent}: ${chars.slice(0, i).map((x) => x.c).join('')} / …`);
        }
      }
    }
    return bad;
  });
}

/** Nothing pasted became markup: no injected element, nothing ran. */
async function assertNoInjection(page) {
  const got = await page.evaluate(() => ({
    pwned: window.__pwned ?? null,
    img: document.querySelectorAll('img[src="x"]').length,
    bold: document.querySelectorAll('#injected').length,
    scripts: [...document.querySelectorAll('script')].filter((s) => s.textContent?.includes('__pwned')).length,
  }));
  assert.deepEqual(got, { pwned: null, img: 0, bold: 0, scripts: 0 });
}

describe('importers: lscpu, zoneinfo, vmstat', () => {
  const browser = useBrowser({ viewport: { width: 1280, height: 720 } });

  it('Machine…: a real lscpu merges into the same machine\'s numactl; markup stays text and a bad line is named', async () => {
    const lab = await browser.newLab();
    const { page } = lab;
    await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&step=0`);
    await lab.waitForLoaded();
    await page.getByRole('button', { name: 'Machine…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Machine from numactl --hardware' });
    await dialog.getByTestId('numactl-text').fill(NUMACTL);
    await dialog.getByTestId('numactl-summary').waitFor();
    await dialog.getByTestId('lscpu-text').fill(LSCPU);
    const summary = dialog.getByTestId('lscpu-summary');
    await summary.filter({ hasText: 'CPU lists checked against numactl' }).waitFor();
    const oracle = wasm.parseLscpu(LSCPU);
    assert.equal(oracle.cpus, 208);
    assert.match(await summary.textContent(), /^208 CPUs; 2 sockets × 52 cores × 2 threads; 4 NUMA nodes with CPU lists/);
    assert.match(await dialog.getByTestId('numactl-summary').textContent(), /^4 nodes, 208 CPUs, 1,161,589 MB/);
    await lab.screenshot('imports-01-machine-lscpu');

    // Markup in the lscpu box: the line is named, shown as text, and the box keeps it all.
    for (const payload of PAYLOADS) {
      const text = `${LSCPU}${payload}\n`;
      await dialog.getByTestId('lscpu-text').fill(text);
      const error = dialog.getByTestId('lscpu-error');
      await error.waitFor();
      const line = LSCPU.split('\n').length;
      assert.match(await error.textContent(), new RegExp(`^lscpu, line ${line}: cannot read`));
      assert.ok((await error.textContent()).includes(payload), 'the line is quoted as text');
      assert.equal(await dialog.getByTestId('lscpu-text').inputValue(), text);
      assert.ok(await dialog.getByRole('button', { name: 'Use this machine' }).isDisabled(), 'no run on a machine with an unread lscpu');
      await assertNoInjection(page);
    }
    // Markup in the numactl box: the line is named, shown as text, and the box keeps it all.
    await dialog.getByTestId('lscpu-text').fill(LSCPU);
    for (const payload of PAYLOADS) {
      // As the third line: named. (As the last line the parser takes any line ending in `>` for
      // the next shell prompt and skips it; that is checked below, still as text.)
      const lines = NUMACTL.split('\n');
      const text = [...lines.slice(0, 2), payload, ...lines.slice(2)].join('\n');
      await dialog.getByTestId('numactl-text').fill(text);
      const error = dialog.getByTestId('numactl-error').filter({ hasText: payload });
      await error.waitFor();
      assert.match(await error.textContent(), /^Line 3:/);
      assert.equal(await dialog.getByTestId('numactl-text').inputValue(), text);
      assert.equal(await dialog.getByRole('button', { name: 'Use this machine' }).count(), 0, 'no run on an unread machine');
      await assertNoInjection(page);
    }
    await dialog.getByTestId('numactl-text').fill(`${NUMACTL}${PAYLOADS[1]}\n`);
    await dialog.getByTestId('numactl-summary').waitFor();
    await assertNoInjection(page);
    await dialog.getByTestId('numactl-text').fill(NUMACTL);
    await dialog.getByTestId('numactl-summary').waitFor();
    // Markup in the zoneinfo box: named by line, shown as text, the text kept, no run.
    for (const payload of PAYLOADS) {
      const text = `${ZONEINFO}${payload}\n`;
      await dialog.getByTestId('machine-zoneinfo-text').fill(text);
      const error = dialog.getByTestId('machine-zoneinfo-error').filter({ hasText: payload });
      await error.waitFor();
      assert.match(await error.textContent(), new RegExp(`^zoneinfo, line ${ZONEINFO.split('\n').length}: cannot read`));
      assert.ok((await error.textContent()).includes(payload), 'the line is quoted as text');
      assert.equal(await dialog.getByTestId('machine-zoneinfo-text').inputValue(), text);
      assert.ok(await dialog.getByRole('button', { name: 'Use this machine' }).isDisabled(), 'no run on an unread zoneinfo');
      await assertNoInjection(page);
    }
    // Another machine's zoneinfo (the Aurora numactl is pasted): named, nothing run.
    await dialog.getByTestId('machine-zoneinfo-text').fill(ZONEINFO);
    await dialog.getByTestId('machine-zoneinfo-error').filter({ hasText: /node 0's zones manage 1015248 pages \(3965 MB\) but numactl says/ }).waitFor();
    await dialog.getByTestId('machine-zoneinfo-text').fill('');
    // A node lscpu and numactl disagree on: named in the lscpu box.
    const other = LSCPU.replace('NUMA node1 CPU(s):     52-103,156-207', 'NUMA node1 CPU(s):     52-103');
    await dialog.getByTestId('lscpu-text').fill(other);
    await dialog.getByTestId('lscpu-error').filter({ hasText: /NUMA node1 CPU\(s\) 52-103 differ from node 1 cpus/ }).waitFor();
    await dialog.getByTestId('lscpu-text').fill(LSCPU);
    await summary.filter({ hasText: 'CPU lists checked against numactl' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('Measured…: zoneinfo beside the model, two vmstat snapshots beside the counters, markup stays text', async () => {
    const lab = await browser.newLab();
    const { page } = lab;
    await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&step=40`);
    await lab.waitForLoaded();
    await page.getByRole('button', { name: 'Measured…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Measured on your machine' });
    await dialog.getByTestId('vmstat-before').fill(BEFORE);
    await dialog.getByTestId('vmstat-after').fill(AFTER);
    await dialog.getByTestId('vmstat-interval').fill('10');
    const oracle = wasm.vmstatDelta(BEFORE, AFTER);
    const vsummary = dialog.getByTestId('vmstat-summary');
    await vsummary.waitFor();
    const changed = oracle.changes.filter((c) => c.delta !== 0).length;
    assert.match(await vsummary.textContent(), new RegExp(`^${oracle.changes.length} counters in both snapshots, ${changed} changed\\. \\d+ of them the simulation counts too`));
    await dialog.getByTestId('zoneinfo-text').fill(ZONEINFO);
    const table = dialog.getByTestId('zoneinfo-table');
    await table.waitFor();
    const zones = wasm.parseZoneinfo(ZONEINFO).zones;
    assert.equal(await table.locator('tbody tr').count(), zones.length);
    assert.match(await dialog.getByTestId('zoneinfo-unused').textContent(), /per-node stats/);
    await table.scrollIntoViewIfNeeded();
    await lab.screenshot('imports-02-measured-zoneinfo');

    // Markup in every box of the dialog: named by box and line, shown as text, text kept.
    for (const payload of PAYLOADS) {
      await dialog.getByTestId('vmstat-before').fill(`${BEFORE}${payload}\n`);
      // The message of this text (the previous one stays shown while the engine reads it).
      const before = dialog.getByTestId('vmstat-error').filter({ hasText: payload });
      await before.waitFor();
      assert.match(await before.textContent(), new RegExp(`^Before snapshot, line ${BEFORE.split('\n').length}: cannot read`));
      assert.equal(await dialog.getByTestId('vmstat-before').inputValue(), `${BEFORE}${payload}\n`);
      await assertNoInjection(page);
      await dialog.getByTestId('vmstat-before').fill(BEFORE);
      await dialog.getByTestId('vmstat-after').fill(`${AFTER}${payload}\n`);
      const error = dialog.getByTestId('vmstat-error').filter({ hasText: /^After snapshot/ }).filter({ hasText: payload });
      await error.waitFor();
      assert.match(await error.textContent(), new RegExp(`^After snapshot, line ${AFTER.split('\n').length}: cannot read`));
      assert.ok((await error.textContent()).includes(payload));
      await dialog.getByTestId('zoneinfo-text').fill(`${ZONEINFO}${payload}\n`);
      await dialog.getByTestId('zoneinfo-error').filter({ hasText: payload }).waitFor();
      await dialog.getByTestId('vmstat-interval').fill(payload);
      await assertNoInjection(page);
      assert.equal(await dialog.getByTestId('vmstat-interval').inputValue(), payload);
    }
    await dialog.getByTestId('vmstat-after').fill(AFTER);
    await dialog.getByTestId('zoneinfo-text').fill(ZONEINFO);
    await dialog.getByTestId('vmstat-interval').fill('10');
    await vsummary.waitFor();
    await dialog.getByRole('button', { name: 'Show beside the counters' }).click();
    await dialog.getByRole('button', { name: 'Close' }).click();

    // The Counters panel: a "your machine /s" column, only for counters both have, labelled.
    const header = page.getByRole('columnheader', { name: 'your machine /s' });
    await header.waitFor();
    assert.match(await page.getByTestId('reality-note').textContent(), /A measurement of that machine, not of the model; only counters both have \(\d+ here\)/);
    const alloc = oracle.changes.find((c) => c.name === 'pgalloc_normal');
    if (alloc) {
      const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'pgalloc_normal', exact: true }) });
      if ((await row.count()) > 0) {
        const rate = alloc.delta / 10;
        const cell = await row.locator('td').last().textContent();
        assert.match(cell, /\/s$/, 'per second');
        assert.ok(cell.includes(Math.abs(rate) >= 100 ? Math.round(Math.abs(rate)).toLocaleString('en-US') : Math.abs(rate).toFixed(1)), `pgalloc_normal ${cell} vs ${rate}`);
      }
    }
    // The screenshot shows rows both have (the first rows, nr_tlb_*, this machine lacks).
    await page.getByRole('rowheader', { name: 'pgalloc_normal', exact: true }).scrollIntoViewIfNeeded();
    await lab.screenshot('imports-03-counters-reality');
    // With the measured column on, no counter name wraps inside a word, at 1280x720 and at
    // 150 % zoom (the same page in a viewport of 1280/1.5 x 720/1.5 CSS pixels).
    assert.deepEqual(await midWordBreaks(page), []);
    await page.setViewportSize({ width: 853, height: 480 });
    await page.getByRole('rowheader', { name: 'numa_hint_faults_local', exact: true }).scrollIntoViewIfNeeded();
    assert.deepEqual(await midWordBreaks(page), []);
    await lab.screenshot('imports-04-counters-reality-150pct');
    // The check sees a break inside a word when there is one (the old style broke anywhere).
    // (A constructed stylesheet: the lab's CSP refuses an inline <style> element.)
    const breakAll = 'th[scope="row"] { word-break: break-all !important; }';
    await page.evaluate((css) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      window.__breakAll = sheet;
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    }, breakAll);
    assert.ok((await midWordBreaks(page)).length > 0, 'the check finds mid-word breaks');
    await page.evaluate(() => {
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== window.__breakAll);
    });
    await page.setViewportSize({ width: 1280, height: 720 });
    // A reload keeps every pasted text (sessionStorage).
    await page.reload();
    await lab.waitForLoaded();
    await page.getByRole('button', { name: 'Measured…' }).click();
    assert.equal(await dialog.getByTestId('vmstat-before').inputValue(), BEFORE);
    assert.equal(await dialog.getByTestId('zoneinfo-text').inputValue(), ZONEINFO);
  });

  it('markup typed into the other text fields (Go to step, Export range, Sweep values and seeds) stays text', async () => {
    const lab = await browser.newLab();
    const { page } = lab;
    await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&step=3`);
    await lab.waitForLoaded();
    for (const payload of PAYLOADS) {
      const go = page.getByRole('textbox', { name: 'Go to step' });
      await go.fill(payload);
      await go.press('Enter');
      assert.equal(await go.inputValue(), payload, 'the box keeps the text');
      assert.equal((await lab.readStep()).step, 3, 'no seek');
      await assertNoInjection(page);
      await go.fill('');
    }
    await page.getByRole('button', { name: 'Export…' }).click();
    const exportDialog = page.getByRole('dialog').filter({ has: page.getByText('Frame as SVG') });
    for (const payload of PAYLOADS) {
      for (const name of ['From', 'To']) {
        await exportDialog.getByRole('textbox', { name, exact: true }).fill(payload);
        assert.equal(await exportDialog.getByRole('textbox', { name, exact: true }).inputValue(), payload);
      }
      await exportDialog.getByRole('button', { name: 'Steps as SVGs (.zip)' }).click();
      await assertNoInjection(page);
    }
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Sweep…' }).click();
    const sweep = page.getByRole('dialog').filter({ has: page.getByRole('textbox', { name: 'Seeds' }) });
    const vary = sweep.getByRole('combobox').first();
    const choices = await vary.locator('option').evaluateAll((os) => os.map((o) => o.value).filter((v) => v !== ''));
    if (choices.length > 0) await vary.selectOption(choices[0]);
    for (const payload of PAYLOADS) {
      if (choices.length > 0) await sweep.getByRole('textbox', { name: 'Values' }).fill(payload);
      await sweep.getByRole('textbox', { name: 'Seeds' }).fill(payload);
      await assertNoInjection(page);
      assert.equal(await sweep.getByRole('textbox', { name: 'Seeds' }).inputValue(), payload);
    }
    await page.keyboard.press('Escape');
    await page.close();
  });

  it('raised no page errors', () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});
