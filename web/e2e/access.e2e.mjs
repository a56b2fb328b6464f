// End-to-end tests of themes and access: a theme switch (a screenshot of each theme), keyboard-only
// operation of a whole scenario (skip link, Play, every chapter with PageDown, the key sheet, go to
// step), keys after a mouse pick in a dropdown and on the focused scrubber, and the layout from
// 1280x720 to 4K. Run by run.mjs (which imports this file) against the built site.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import lzString from 'lz-string';
import { useBrowser } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SCENARIO = 'numa-hint-fault-101';
// The engine's own wasm package in Node is the oracle for the chapters.
const wasmPkg = join(here, '..', 'src', 'wasm-pkg');
const wasm = await import(join(wasmPkg, 'mmviz.js'));
await wasm.default({ module_or_path: readFileSync(join(wasmPkg, 'mmviz_bg.wasm')) });

/** The chapters' first steps of a built-in scenario's run, as the engine gives them. */
function chapterSteps(id) {
  const builtin = wasm.builtinScenarios().find((b) => b.id === id);
  assert.ok(builtin, `built-in scenario ${id}`);
  const sim = new wasm.Simulation(builtin.text, {}, {});
  const { chapters, totalSteps } = sim.summary();
  sim.free();
  return { steps: chapters.map((c) => c.step), titles: chapters.map((c) => c.title), totalSteps };
}

// A page table of 2,048 PTEs: drawn on a canvas (a dense view), whose pixels must follow the theme.
const DENSE_PTES = `format = 1
id = "dense-ptes"
title = "A dense page table"

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
]
`;

/** The accessible name (aria-label, else text) and tag of the focused element. */
async function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    return { tag: el?.tagName ?? '', name: (el?.getAttribute('aria-label') ?? el?.textContent ?? '').trim(), id: el?.id ?? '' };
  });
}

/** The data-theme of <html> and the page's background colour. */
async function drawnTheme(page) {
  return page.evaluate(() => ({ theme: document.documentElement.dataset.theme, background: window.getComputedStyle(document.documentElement).backgroundColor }));
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

describe('themes and access', () => {
  const browser = useBrowser({ viewport: { width: 1280, height: 720 } });

  it('a theme switch: Auto follows the system, the choice is kept (never in the link), canvases repaint', async () => {
    const lab = await browser.newLab();
    const { page } = lab;
    await page.emulateMedia({ colorScheme: 'light' });
    await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&step=41`);
    const picker = page.getByRole('combobox', { name: 'Theme' });
    assert.equal(await picker.inputValue(), 'auto');
    assert.deepEqual(await drawnTheme(page), { theme: 'light', background: 'rgb(255, 255, 255)' });
    assert.equal(await picker.locator('option[value="auto"]').textContent(), 'Auto (light)');
    // Auto follows prefers-color-scheme while the page is open.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    assert.equal(await picker.locator('option[value="auto"]').textContent(), 'Auto (dark)');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await lab.screenshot('a11y-01-theme-light');
    // Each choice, with a mouse pick as a person makes it; a screenshot of each.
    for (const [choice, background] of [
      ['dark', 'rgb(21, 23, 26)'],
      ['high-contrast', 'rgb(255, 255, 255)'],
    ]) {
      await lab.pickWithMouse('Theme', choice);
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, choice);
      assert.deepEqual(await drawnTheme(page), { theme: choice, background });
      await lab.screenshot(`a11y-02-theme-${choice}`);
    }
    assert.equal(await page.evaluate(() => window.getComputedStyle(document.body).color), 'rgb(0, 0, 0)', 'high contrast: black text');
    // Kept in local storage, versioned; never in the link.
    assert.equal(await page.evaluate(() => window.localStorage.getItem('mmviz.theme')), '{"v":1,"theme":"high-contrast"}');
    const link = await lab.copyLink();
    assert.doesNotMatch(link, /theme|contrast|dark/);
    await page.reload();
    await lab.readout().waitFor();
    assert.equal((await drawnTheme(page)).theme, 'high-contrast');
    assert.equal(await picker.inputValue(), 'high-contrast');
    // A canvas (the dense page table) reads the tokens when it draws: a theme switch repaints it.
    await lab.openScenario(undefined, `v=1&s=${lzString.compressToEncodedURIComponent(DENSE_PTES)}&step=2`);
    const canvas = page.locator('[data-testid="pte-canvas-1"]');
    await canvas.waitFor();
    await canvas.scrollIntoViewIfNeeded();
    // The grid's padding (outside every cell) is the panel's background: white, then dark (#1d2024;
    // the canvas's colour management may move a channel by a few units).
    const light = await canvasPixel(canvas, 1, 1);
    assert.ok(Math.min(...light) > 240, `light padding ${light}`);
    await picker.selectOption('dark');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await page.waitForFunction(
      () => {
        const c = document.querySelector('[data-testid="pte-canvas-1"]');
        const dpr = c.width / c.getBoundingClientRect().width;
        return Math.max(...c.getContext('2d').getImageData(Math.round(dpr), Math.round(dpr), 1, 1).data.slice(0, 3)) < 60;
      },
      null,
      { timeout: 5_000 },
    );
    const dark = await canvasPixel(canvas, 1, 1);
    assert.ok(dark.every((v, i) => Math.abs(v - [0x1d, 0x20, 0x24][i]) <= 4), `dark padding ${dark}`);
    await lab.screenshot('a11y-03-dense-canvas-dark', { fullPage: true });
    // A stored value this version cannot read: Auto, and a message saying why.
    await page.evaluate(() => window.localStorage.setItem('mmviz.theme', 'sepia'));
    await page.reload();
    await lab.readout().waitFor();
    assert.equal(await picker.inputValue(), 'auto');
    const notes = await page.getByRole('alert').or(page.getByRole('status')).allTextContents();
    assert.ok(
      notes.some((n) => n.includes('The saved theme could not be read (mmviz.theme in this browser\'s storage: "sepia" is not JSON); using Auto.')),
      notes.join(' | '),
    );
    await page.evaluate(() => window.localStorage.removeItem('mmviz.theme'));
    await page.close();
  });

  it('keyboard only: skip link, Play, every chapter of numa-hint-fault-101 with PageDown, the key sheet, go to step', async () => {
    const { steps, titles, totalSteps } = chapterSteps(SCENARIO);
    assert.ok(steps.length >= 4, `${SCENARIO} has chapters`);
    const lab = await browser.newLab();
    const { page } = lab;
    await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&step=0`);
    // From page load, the first Tab stop is the skip link, shown when focused.
    await page.keyboard.press('Tab');
    assert.deepEqual(await focused(page), { tag: 'A', name: 'Skip to step controls', id: '' });
    const skip = page.getByRole('link', { name: 'Skip to step controls' });
    const box = await skip.boundingBox();
    assert.ok(box && box.y >= 0 && box.y < 60, `the skip link is on screen when focused (${JSON.stringify(box)})`);
    await lab.screenshot('a11y-04-skip-link');
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).id, 'step-controls');
    assert.doesNotMatch(page.url(), /step-controls/, 'the address bar keeps the link');
    // First step and Step back are disabled at step 0: the next stop is Play.
    await page.keyboard.press('Tab');
    assert.deepEqual(await focused(page), { tag: 'BUTTON', name: 'Play', id: '' });
    const ring = await page.evaluate(() => {
      const s = window.getComputedStyle(document.activeElement);
      return { style: s.outlineStyle, width: s.outlineWidth };
    });
    assert.deepEqual(ring, { style: 'solid', width: '3px' }, 'a visible focus ring');
    await lab.screenshot('a11y-05-play-focused');
    // Space on the focused Play button plays; again, it pauses; the narration is read once paused.
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();
    const live = page.getByRole('status', { name: 'Narration' });
    await lab.waitForStepOtherThan(0);
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
    const { step: paused } = await lab.readStep();
    await page.waitForFunction((text) => document.querySelector('[aria-label="Narration"]')?.textContent?.startsWith(text), `Step ${paused} of ${totalSteps}.`);
    // Home, then every chapter with PageDown (focus stays on Play); each is read out.
    await page.keyboard.press('Home');
    await lab.waitForStep(0);
    const firstChapter = steps[0] === 0 ? 1 : 0;
    for (let i = firstChapter; i < steps.length; i++) {
      await page.keyboard.press('PageDown');
      await lab.waitForStep(steps[i]);
      const said = `Step ${steps[i].toLocaleString('en')} of ${totalSteps.toLocaleString('en')}. Chapter ${i + 1} of ${steps.length}: ${titles[i]}.`;
      await page.waitForFunction((text) => document.querySelector('[aria-label="Narration"]')?.textContent?.startsWith(text), said);
    }
    assert.match((await live.textContent()) ?? '', new RegExp(`^Step ${steps.at(-1).toLocaleString('en')} of ${totalSteps.toLocaleString('en')}\\. Chapter ${steps.length} of ${steps.length}: `));
    await lab.screenshot('a11y-06-last-chapter');
    // PageDown past the last chapter stays; PageUp goes back one.
    await page.keyboard.press('PageUp');
    await lab.waitForStep(steps.at(-2));
    // The key sheet: "?" opens it with focus inside, Escape closes it and gives focus back.
    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.waitFor();
    assert.deepEqual(await focused(page), { tag: 'BUTTON', name: 'Close', id: '' });
    for (const key of ['Space', 'PageUp', 'PageDown', 'Home', 'End', '?', 'Esc', 'Tab']) {
      assert.ok(await sheet.getByRole('rowheader').filter({ hasText: key }).count(), `the sheet lists ${key}`);
    }
    await lab.screenshot('a11y-07-key-sheet');
    // Keys inside the sheet do not move the run behind it.
    await page.keyboard.press('PageDown');
    assert.equal((await lab.readStep()).step, steps.at(-2));
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'hidden' });
    assert.deepEqual(await focused(page), { tag: 'BUTTON', name: 'Play', id: '' });
    // Tab on to "Go to step": a bad step keeps the text and says why; a grouped one goes there.
    const field = page.getByRole('textbox', { name: 'Go to step' });
    for (let i = 0; i < 12 && !(await field.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    assert.equal(await field.evaluate((el) => el === document.activeElement), true, 'Tab reaches "Go to step"');
    await page.keyboard.type('1,23');
    await page.keyboard.press('Enter');
    await page.getByText('"1,23": group digits in threes (1,234,567) or type them plain (1234567).').waitFor();
    assert.equal(await field.inputValue(), '1,23');
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    await lab.screenshot('a11y-08-go-to-step-message');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('1,000');
    await page.keyboard.press('Enter');
    await page.getByText('Step 1,000 is past the last step (161).').waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('100');
    await page.keyboard.press('Enter');
    await lab.waitForStep(100);
    assert.equal(await field.inputValue(), '');
    // On to the machine's frames: one Tab stop, arrows move between them, Enter selects one.
    await page.keyboard.press('Tab');
    assert.match((await focused(page)).name, /^pfn 0 \(0x0\), node 0: /);
    await page.keyboard.press('ArrowRight');
    assert.match((await focused(page)).name, /^pfn 1 \(0x1\), node 0: /);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /[#&]sel=machine:pfn-1(&|$)/.test(window.location.hash));
    assert.equal((await lab.readStep()).step, 100, 'the arrows moved between frames, not steps');
    await lab.screenshot('a11y-09-frame-focused');
    assert.deepEqual(browser.pageErrors, []);
    await page.close();
  });

  it('after a mouse pick in the Speed, Kernel or Scenario dropdown, PageDown and the arrows drive the lab', async () => {
    const lab = await browser.newLab();
    const { page } = lab;
    const race = chapterSteps('numa-thread-race-101');
    const { steps } = chapterSteps(SCENARIO);
    await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&step=0`);
    const firstChapter = steps.find((s) => s > 0);
    // Speed: a mouse pick, then the clicker's keys.
    const speed = await lab.pickWithMouse('Speed', '8');
    assert.equal(await speed.evaluate((el) => el === document.activeElement), true, 'the dropdown keeps focus');
    await page.keyboard.press('PageDown');
    await lab.waitForStep(firstChapter);
    await page.keyboard.press('ArrowRight');
    await lab.waitForStep(firstChapter + 1);
    await page.keyboard.press('ArrowLeft');
    await lab.waitForStep(firstChapter);
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
    assert.equal(await speed.inputValue(), '8', 'the keys did not change the speed');
    await lab.screenshot('a11y-10-after-speed-pick');
    // Kernel: the pick rebuilds the run; PageDown then changes the chapter, not the kernel.
    const kernel = page.getByRole('combobox', { name: 'Kernel' });
    const kernels = await kernel.locator('option').evaluateAll((os) => os.map((o) => o.value));
    const other = kernels.find((k) => k !== 'custom' && k !== '' && k !== 'latest') ?? kernels[0];
    await lab.pickWithMouse('Kernel', other);
    await lab.waitForLoaded();
    const picked = await kernel.inputValue();
    const { step: before } = await lab.readStep();
    await page.keyboard.press('PageDown');
    await lab.waitForStepOtherThan(before);
    await page.keyboard.press('PageUp');
    await lab.waitForStep(steps.filter((s) => s <= before).at(-1) ?? 0);
    assert.equal(await kernel.inputValue(), picked, 'PageDown/PageUp did not change the kernel');
    // Scenario: after picking another one, PageDown goes to its first chapter; the scenario stays.
    const scenario = await lab.pickWithMouse('Scenario', 'numa-thread-race-101');
    await page.waitForFunction(() => /[#&]sc=numa-thread-race-101(&|$)/.test(location.hash) && !document.querySelector('[role="progressbar"]'));
    await lab.waitForStep(0);
    await page.keyboard.press('PageDown');
    await lab.waitForStep(race.steps.find((s) => s > 0));
    await page.keyboard.press('ArrowRight');
    await lab.waitForStep(race.steps.find((s) => s > 0) + 1);
    assert.equal(await scenario.inputValue(), 'numa-thread-race-101', 'the keys did not switch the scenario');
    // A dropdown reached with the keyboard keeps its arrows (how a keyboard user changes it), but not PageDown.
    await page.getByRole('button', { name: 'Step forward', exact: true }).focus();
    for (let i = 0; i < 4 && !(await speed.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    assert.equal(await speed.evaluate((el) => el === document.activeElement), true, 'Tab reaches Speed');
    await page.keyboard.press('ArrowUp');
    assert.equal(await speed.inputValue(), '4', 'ArrowUp picked the speed above');
    const { step: at } = await lab.readStep();
    await page.keyboard.press('PageDown');
    await lab.waitForStepOtherThan(at);
    assert.equal(await speed.inputValue(), '4');
    assert.deepEqual(browser.pageErrors, []);
    await page.close();
  });

  it('on the focused scrubber, PageDown and PageUp go forward and back by chapter and Space plays', async () => {
    const { steps } = chapterSteps(SCENARIO);
    const lab = await browser.newLab();
    const { page } = lab;
    await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&step=${steps[1]}`);
    const slider = page.getByRole('slider', { name: 'Step' });
    // A click on the track seeks there and leaves the focus on the scrubber (as a mouse user does).
    const track = await slider.boundingBox();
    assert.ok(track);
    await page.mouse.click(track.x + track.width * 0.02 + 11, track.y + track.height / 2);
    await lab.waitForStepOtherThan(steps[1]);
    assert.equal(await slider.evaluate((el) => el === document.activeElement), true);
    const { step: from } = await lab.readStep();
    const next = steps.find((s) => s > from);
    await page.keyboard.press('PageDown');
    await lab.waitForStep(next);
    await page.keyboard.press('PageDown');
    await lab.waitForStep(steps.find((s) => s > next));
    await page.keyboard.press('PageUp');
    await lab.waitForStep(next);
    assert.equal(await slider.inputValue(), String(next));
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();
    await lab.waitForStepOtherThan(next);
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
    assert.equal(await slider.getAttribute('aria-valuetext'), `step ${(await lab.readStep()).step} of 161`);
    await lab.screenshot('a11y-11-scrubber-keys');
    assert.deepEqual(browser.pageErrors, []);
    await page.close();
  });

  it('lays out from 1280x720 to 4K: no sideways scrolling, the step controls on screen', async () => {
    const lab = await browser.newLab();
    const { page } = lab;
    for (const [width, height] of [
      [1280, 720],
      [1920, 1080],
      [3840, 2160],
    ]) {
      await page.setViewportSize({ width, height });
      await lab.openScenario(undefined, `v=1&sc=${SCENARIO}&step=58`);
      const layout = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        play: document.querySelector('button[aria-label="Play"]')?.getBoundingClientRect().bottom ?? -1,
        fontPx: parseFloat(window.getComputedStyle(document.documentElement).fontSize),
      }));
      assert.ok(layout.scrollWidth <= layout.innerWidth, `${width}x${height}: no sideways scrolling (${layout.scrollWidth} > ${layout.innerWidth})`);
      assert.ok(layout.play > 0 && layout.play <= height, `${width}x${height}: Play is on screen (bottom at ${layout.play})`);
      await lab.screenshot(`a11y-12-layout-${width}x${height}`);
    }
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.close();
  });

  it('honours prefers-reduced-motion: no moving IPI dot, no smooth scrolling', async () => {
    const lab = await browser.newLab();
    const { page } = lab;
    // Step 59 of the race scenario has an IPI in flight (the e2e NUMA panel test's).
    await lab.openScenario(undefined, 'v=1&sc=numa-thread-race-101&step=59');
    await page.locator('svg animateMotion').first().waitFor({ state: 'attached' });
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.waitForFunction(() => document.querySelectorAll('svg animateMotion').length === 0);
    const animated = await page.evaluate(() => [...document.querySelectorAll('*')].filter((el) => window.getComputedStyle(el).animationName !== 'none' && parseFloat(window.getComputedStyle(el).animationDuration) > 0.01).length);
    assert.equal(animated, 0, 'no CSS animation runs');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await page.close();
  });

  it('raised no page errors', () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});
