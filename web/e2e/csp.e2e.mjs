// The lab under its Content-Security-Policy (web/README.md, "Content-Security-Policy"): the
// build writes the policy into index.html, and loading the lab and a scenario, exporting the
// frame as SVG and PNG and opening the editor (CodeMirror, a lazily loaded chunk) violate it
// nowhere. The guard every e2e test runs under (guard.mjs) is checked here to catch a violation
// and an off-origin request, so that "no problems" means something. Run by run.mjs.
/* global getComputedStyle -- runs in the page. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { takeProblems } from './guard.mjs';
import { useBrowser } from './harness.mjs';

const SCENARIO = 'numa-hint-fault-101';

describe('Content-Security-Policy', () => {
  const browser = useBrowser({ viewport: { width: 1280, height: 720 } });

  it('the guard catches a CSP violation and a request off the page’s origin', async () => {
    const lab = await browser.newLab();
    await lab.openScenario(SCENARIO);
    takeProblems();
    // An inline script: the policy refuses it, and the refusal is reported.
    const ran = await lab.page.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true';
      document.body.appendChild(s);
      await new Promise((r) => setTimeout(r, 100));
      return Boolean(window.__inlineRan);
    });
    assert.equal(ran, false, 'an inline script ran under the policy');
    // A request to another origin (from a page of its own, no policy there): reported with its URL.
    const other = await browser.newLab();
    await other.page.setContent('<img src="http://127.0.0.1:9/off-origin.png" alt="">');
    await other.page.waitForTimeout(200);
    await other.page.close();
    const seen = takeProblems();
    assert.ok(seen.some((p) => /^CSP violation: script-src/.test(p)), `the inline script is reported:\n${seen.join('\n')}`);
    assert.ok(seen.some((p) => p.includes('http://127.0.0.1:9/off-origin.png')), `the off-origin request is reported:\n${seen.join('\n')}`);
    await lab.page.close();
  });

  it('loading the lab and a scenario, exporting SVG and PNG and opening the editor violate nothing', async () => {
    const lab = await browser.newLab();
    await lab.openScenario(SCENARIO, `v=2&sc=${SCENARIO}&step=12`);
    await lab.waitForStep(12, 30_000);
    const policy = await lab.page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '');
    assert.match(policy, /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
    assert.doesNotMatch(policy, /'unsafe-inline'|'unsafe-eval'|'unsafe-hashes'|\*/);
    await lab.stepForward();
    await lab.page.getByRole('button', { name: 'Export…' }).click();
    const dialog = lab.page.getByRole('dialog', { name: 'Export' });
    await dialog.waitFor();
    for (const [button, magic] of [
      ['Frame as SVG', '<?xml'],
      ['Frame as PNG', '\u0089PNG'],
    ]) {
      const [file] = await Promise.all([lab.page.waitForEvent('download'), dialog.getByRole('button', { name: button }).click()]);
      const stream = await file.createReadStream();
      const chunks = [];
      for await (const c of stream) chunks.push(c);
      const bytes = Buffer.concat(chunks);
      assert.equal(bytes.subarray(0, magic.length).toString('latin1'), magic, `${button}: ${bytes.length} bytes`);
    }
    await lab.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await lab.page.getByRole('button', { name: /^Edit…/ }).click();
    const editor = lab.page.getByRole('dialog', { name: 'Edit scenario' });
    await editor.getByRole('textbox', { name: 'Scenario text (TOML)' }).waitFor({ timeout: 30_000 });
    await editor.getByRole('status').getByText(/The engine reads it/).waitFor({ timeout: 30_000 });
    // CodeMirror's own styles apply (an adopted stylesheet, not a refused <style> element).
    assert.equal(await editor.locator('.cm-editor').evaluate((el) => getComputedStyle(el).display), 'flex');
    await lab.page.waitForTimeout(300);
    assert.deepEqual(takeProblems(), []);
    assert.deepEqual(browser.pageErrors, []);
    await lab.page.close();
  });
});
