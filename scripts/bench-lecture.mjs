#!/usr/bin/env node
// Lecture mode's first paint after a chapter jump, in headless Chromium on the built site
// (web/dist: `npm run build` first), served on loopback and driven with playwright-core and
// Debian's /usr/bin/chromium (fresh profile, no sandbox, as web/e2e/run.mjs does).
//
//   node scripts/bench-lecture.mjs [--scenario numa-hint-fault-101] [--runs 21] [--width 1280 --height 720]
//
// Opens the scenario in lecture mode, answers its questions once (so that "next" jumps), then
// goes back and forth over its chapters with the clicker's keys (PageUp, PageDown). For each
// jump it reports the time from the key press to the commit of the new chapter's frame (the step
// readout shows it) and to the first paint after it (a task queued from the animation frame that
// shows it runs after that frame is painted). Prints the median, min and max of each.
/* global MutationObserver, requestAnimationFrame, KeyboardEvent -- the jump's callback runs in the page */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../web/e2e/server.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const scenario = opt('scenario', 'numa-hint-fault-101');
const runs = Number(opt('runs', '21'));
const width = Number(opt('width', '1280'));
const height = Number(opt('height', '720'));

const server = await startStaticServer(join(repo, 'web', 'dist'));
const profile = mkdtempSync(join(tmpdir(), 'mmviz-bench-lecture-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  viewport: { width, height },
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}#v=2&sc=${scenario}&step=0&lecture=1`);
  await page.getByRole('region', { name: 'Lecture mode' }).waitFor({ timeout: 180_000 });
  await page.locator('output[aria-label="Step readout"]').waitFor({ timeout: 180_000 });
  const readStep = async () => Number(/step\s+([\d,]+)/.exec((await page.locator('output[aria-label="Step readout"]').textContent()) ?? '')?.[1]?.replace(/,/g, ''));
  // The chapters' steps, from the first pass: PageDown reveals a waiting question, then jumps.
  const starts = [await readStep()];
  // Twice in a row without a move: the last chapter (a first press may only reveal a question).
  for (let i = 0, still = 0; i < 64 && still < 2; i++) {
    const before = await readStep();
    await page.keyboard.press('PageDown');
    await page.waitForTimeout(300);
    const after = await readStep();
    if (after !== before) {
      starts.push(after);
      still = 0;
    } else still++;
  }
  const chapters = [...new Set(starts)];
  if (chapters.length < 2) throw new Error(`${scenario} has fewer than two chapters to jump between`);
  // One jump: the key press, then the commit and the paint of the frame at `expect`.
  const jump = (key, expect) =>
    page.evaluate(
      ([k, step]) =>
        new Promise((resolve) => {
          const readout = () => document.querySelector('output[aria-label="Step readout"]')?.textContent ?? '';
          const shows = () => new RegExp(`step\\s+${step.toLocaleString('en-US')}\\s*/`).test(readout()) || new RegExp(`step\\s+${step}\\s*/`).test(readout());
          let committed = null;
          const t0 = performance.now();
          const observer = new MutationObserver(() => {
            if (committed === null && shows()) committed = performance.now() - t0;
          });
          observer.observe(document.body, { subtree: true, childList: true, characterData: true });
          const frame = () => {
            if (shows()) {
              // This animation frame's paint shows it; a task queued now runs after that paint.
              setTimeout(() => {
                observer.disconnect();
                resolve({ commit: committed ?? performance.now() - t0, paint: performance.now() - t0 });
              }, 0);
            } else requestAnimationFrame(frame);
          };
          window.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
          requestAnimationFrame(frame);
        }),
      [key, expect],
    );
  // Back and forth over the chapters: last to first with PageUp, first to last with PageDown.
  const commits = [];
  const paints = [];
  let at = chapters.length - 1;
  let direction = -1;
  while (paints.length < runs) {
    if (at + direction < 0 || at + direction >= chapters.length) direction = -direction;
    at += direction;
    const r = await jump(direction < 0 ? 'PageUp' : 'PageDown', chapters[at]);
    commits.push(r.commit);
    paints.push(r.paint);
    await page.waitForTimeout(50);
  }
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return `median ${s[Math.floor(s.length / 2)].toFixed(1)} ms, min ${s[0].toFixed(1)}, max ${s[s.length - 1].toFixed(1)}`;
  };
  console.log(`${scenario} in lecture mode at ${width}x${height}: ${paints.length} chapter jumps over chapters at steps ${chapters.join(', ')}`);
  console.log(`  key press -> frame committed: ${stats(commits)}`);
  console.log(`  key press -> first paint:     ${stats(paints)}`);
} finally {
  await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
