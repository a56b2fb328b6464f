// The lab's end of the bad-input catalogue (the decoders' table is src/share/badLinks.test.ts,
// the CLI's wasm-core/cli/tests/bad_inputs.rs): a bad link shows a message naming what is wrong
// and where, the lab keeps working, and nothing the person typed is lost; a pasted text over the
// engine's limit is named at once and kept. Run by run.mjs.
/* global HTMLTextAreaElement -- used in the page (evaluate). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import lzString from 'lz-string';
import { useBrowser } from './harness.mjs';

const SCENARIO = 'numa-hint-fault-101';
/** A custom scenario on a machine of 10^5 CPUs. */
const HUGE_CPUS = `format = 1
id = "huge-cpus"
title = "A machine of 100,000 CPUs"

[[machine.node]]
cpus = [0, 99999]
mem_pages = 64

[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 4
[[process.thread]]
cpu = 0
ops = [{ op = "access", vma = "heap", page = 0 }]
`;

describe('bad input in the lab', () => {
  const browser = useBrowser({ viewport: { width: 1280, height: 720 } });

  it('bad links: each shows a message naming the part of the link or the field, and the lab still steps', async () => {
    const lab = await browser.newLab();
    const cases = [
      [`v=2&sc=${SCENARIO}&pc=${'x'.repeat(200_001)}`, /This link could not be read: it is too long \(200,0\d\d characters after #; at most 200,000\)/],
      [`v=99&sc=${SCENARIO}`, /This link could not be read: it was made by a newer version of mmviz \(link format v=99/],
      [`v=2&s=${lzString.compressToEncodedURIComponent(HUGE_CPUS)}`, /machine\.node\[0\]\.cpus.*CPU id 99999 is out of range 0\.\.=255 \(the model runs machines of up to 256 CPUs\)/],
    ];
    for (const [fragment, message] of cases) {
      const started = Date.now();
      await lab.openScenario(undefined, fragment);
      const alert = lab.page.getByRole('alert').filter({ hasText: message });
      await alert.first().waitFor({ timeout: 30_000 });
      assert.ok(Date.now() - started < 60_000, `${fragment.slice(0, 40)}: ${Date.now() - started} ms`);
      await lab.stepForward();
      assert.equal((await lab.readStep()).step, 1, `the lab steps after ${fragment.slice(0, 40)}`);
    }
    await lab.page.close();
  });

  it('a pasted text over the limit is named at once and kept, and a bad link after it loses nothing typed', async () => {
    const lab = await browser.newLab();
    await lab.openScenario(SCENARIO);
    const page = lab.page;
    await page.getByRole('button', { name: 'Machine…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Machine from numactl --hardware' });
    // 55,000 lines, 1.2 MB: more than the engine reads (1 MiB) and than the gutter numbers. Set as
    // the textarea's value with an input event (what React sees of a paste): Chromium's own editing
    // takes minutes to insert that many lines into any textarea (a paste here took 153 s, and
    // Playwright's fill() of a plain <textarea> over 30 s), which is the browser's, not the lab's.
    const big = 'node 0 cpus: 0 1 2 3\n'.repeat(55_000);
    await dialog.getByTestId('numactl-text').evaluate((area, text) => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(area, text);
      area.dispatchEvent(new Event('input', { bubbles: true }));
    }, big);
    const error = dialog.getByTestId('numactl-error');
    await error.waitFor({ timeout: 10_000 });
    assert.match(await error.textContent(), /^Line 1: the numactl --hardware text is 1,155,000 bytes; at most 1,048,576 \(1 MiB\) are read/);
    assert.equal((await dialog.getByTestId('numactl-text').inputValue()).length, big.length);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // A bad link pasted into the address bar: a message, and the box keeps its text.
    await lab.pasteLink('v=2&sc=%3Cscript%3E');
    await page.getByRole('alert').filter({ hasText: /scenario id \(sc=\) may only contain/ }).first().waitFor();
    await page.getByRole('button', { name: 'Machine…' }).click();
    assert.equal((await dialog.getByTestId('numactl-text').inputValue()).length, big.length);
    await page.close();
  });
});
