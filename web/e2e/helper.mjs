// Page object for the mmviz lab: everything is found by role and accessible name.
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** Where screenshots go (git-ignored). */
export const SCREENSHOT_DIR = join(here, '..', '..', 'artifacts', 'screenshots');

/** Drives one page of the app. */
export class Lab {
  /** @param {import('playwright-core').Page} page @param {string} baseUrl URL of index.html (may carry a ?query) */
  constructor(page, baseUrl) {
    this.page = page;
    this.baseUrl = baseUrl;
  }

  /** Loads the app with an optional fragment (without '#') and waits for a scenario; selects `scenarioId` if given. */
  async openScenario(scenarioId, fragment = '') {
    await this.page.goto('about:blank');
    await this.page.goto(fragment ? `${this.baseUrl}#${fragment}` : this.baseUrl);
    await this.readout().waitFor({ state: 'visible', timeout: 30_000 });
    if (scenarioId) {
      const picker = this.page.getByRole('combobox', { name: 'Scenario' });
      if ((await picker.inputValue()) !== scenarioId) {
        await picker.selectOption(scenarioId);
        await this.waitForStep(0);
      }
    }
  }

  /** Picks a built-in scenario in the running page and waits until it is shown at step 0 (long runs take seconds to prepare). */
  async openBuiltin(scenarioId, timeout = 180_000) {
    const picker = this.page.getByRole('combobox', { name: 'Scenario' });
    if ((await picker.inputValue()) === scenarioId) return;
    await picker.selectOption(scenarioId);
    // The address bar follows the screen once the new run is shown (it holds still while a load runs).
    await this.page.waitForFunction(
      (id) => new RegExp(`[#&]sc=${id}(&|$)`).test(location.hash) && !document.querySelector('[role="progressbar"]'),
      scenarioId,
      { timeout },
    );
    await this.waitForStep(0);
  }

  /** Loads an exact link (fresh document load). */
  async openLink(link) {
    await this.page.goto('about:blank');
    await this.page.goto(link);
    await this.readout().waitFor({ state: 'visible', timeout: 30_000 });
  }

  /** Loads the app with a link whose run takes long and waits until it is loading (nothing is on screen yet). */
  async openLinkLoading(fragment) {
    await this.page.goto('about:blank');
    await this.page.goto(`${this.baseUrl}#${fragment}`);
    return this.waitForLoading(30_000);
  }

  /** The "step N / total" readout. */
  readout() {
    return this.page.getByRole('status', { name: 'Step readout' }).or(this.page.locator('output[aria-label="Step readout"]')).first();
  }

  /** Reads { step, total } from the readout ("step 1,234 / 5,678": digits grouped). */
  async readStep() {
    const text = (await this.readout().textContent()) ?? '';
    const m = /step\s+([\d,]+)\s*\/\s*([\d,]+)/.exec(text);
    if (!m) throw new Error(`unexpected readout "${text}"`);
    return { step: Number(m[1].replace(/,/g, '')), total: Number(m[2].replace(/,/g, '')) };
  }

  /** Waits until the readout shows `step`. */
  async waitForStep(step, timeout = 10_000) {
    await this.page.waitForFunction(
      (n) => {
        const m = /step\s+([\d,]+)\s*\//.exec(document.querySelector('output[aria-label="Step readout"]')?.textContent ?? '');
        return m !== null && Number(m[1].replace(/,/g, '')) === n;
      },
      step,
      { timeout },
    );
  }

  /** Presses a transport key (e.g. 'End', 'Home') with the focus on the page, not in a control. */
  async pressTransportKey(key) {
    await this.page.locator('body').click({ position: { x: 5, y: 5 } });
    await this.page.keyboard.press(key);
  }

  /** Clicks "Step forward". */
  async stepForward() {
    const { step } = await this.readStep();
    await this.page.getByRole('button', { name: 'Step forward', exact: true }).click();
    await this.waitForStep(step + 1);
  }

  /** Clicks "Step back". */
  async stepBack() {
    const { step } = await this.readStep();
    await this.page.getByRole('button', { name: 'Step back', exact: true }).click();
    await this.waitForStep(Math.max(0, step - 1));
  }

  /** Clicks "Last step" (unless already there: the button is then disabled) and returns the step. */
  async lastStep() {
    const button = this.page.getByRole('button', { name: 'Last step', exact: true });
    // A disabled button would make click() wait for its 30 s timeout.
    if (await button.isEnabled()) await button.click();
    const { total } = await this.readStep();
    await this.waitForStep(total);
    return total;
  }

  /**
   * Picks `value` in the dropdown named `name` as a mouse user does: the click opens its list and
   * focuses it, the list takes every key while open, the pick closes it and the focus stays on
   * the dropdown. (Headless Chromium opens a real list that Playwright cannot click in: Escape
   * closes it unchanged, then the option is set as a pick sets it.)
   */
  async pickWithMouse(name, value) {
    const select = this.page.getByRole('combobox', { name, exact: true });
    await select.click();
    await this.page.keyboard.press('Escape');
    await select.selectOption(value);
    return select;
  }

  /** Moves the "Step" scrubber to `step`. */
  async stepTo(step) {
    const slider = this.page.getByRole('slider', { name: 'Step' });
    await slider.evaluate((el, value) => {
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
      setter?.call(el, String(value));
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    }, step);
    await this.waitForStep(step);
  }

  /** The switch of a patch, by its title. */
  toggleSwitch(title) {
    return this.page.getByRole('switch', { name: title, exact: true });
  }

  /** Sets a bool patch toggle (by title) to `on`, waiting for the rebuild. */
  async toggle(title, on) {
    const sw = this.toggleSwitch(title);
    if ((await sw.isChecked()) !== on) {
      await sw.click();
      await this.page.waitForFunction(
        ([t, v]) => {
          const el = [...document.querySelectorAll('input[role="switch"]')].find((e) => e.labels?.[0]?.textContent?.includes(t));
          return el && el.checked === v;
        },
        [title, on],
      );
    }
  }

  /** Reads a counter's value from the counters table. */
  async readCounter(name) {
    const row = this.page.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
    const cell = row.getByRole('cell').first();
    const text = (await cell.textContent()) ?? '';
    return Number(text.replace(/\(was.*$/, '').replace(/[^\d-]/g, ''));
  }

  /** All counters as { name: value }. */
  async readCounters() {
    const names = await this.page.getByRole('rowheader').allTextContents();
    const out = {};
    for (const n of names) out[n.trim()] = await this.readCounter(n.trim());
    return out;
  }

  /** Clicks "Copy link" and returns the link (from the clipboard when readable, else the address). */
  async copyLink() {
    await this.page.getByRole('button', { name: 'Copy link' }).click();
    await this.page.getByText(/Link copied|Copy failed/).waitFor({ timeout: 5_000 }).catch(() => {});
    const fromClipboard = await this.page.evaluate(() => navigator.clipboard.readText()).catch(() => '');
    return fromClipboard || this.page.url();
  }

  /** Opens a link fragment (without '#') in the running page, as when a link is pasted into the address bar: no reload. */
  async pasteLink(fragment) {
    await this.page.evaluate((f) => {
      window.location.hash = f;
    }, fragment);
  }

  /** The loading card of a running load (a region named "Loading"). */
  loadingCard() {
    return this.page.getByRole('region', { name: 'Loading' });
  }

  /** The progress bar of a running load ("Running <scenario>"). */
  loadingIndicator() {
    return this.page.getByRole('progressbar', { name: /^Running / });
  }

  /** Waits until a load is running; returns the card's text, e.g. "Running x… 1.2 s". */
  async waitForLoading(timeout = 10_000) {
    await this.loadingIndicator().waitFor({ state: 'visible', timeout });
    return ((await this.loadingCard().textContent()) ?? '').trim();
  }

  /** Waits until no load is running. */
  async waitForLoaded(timeout = 120_000) {
    await this.loadingIndicator().waitFor({ state: 'detached', timeout });
  }

  /** Clicks Cancel on the running load and waits until it is gone. */
  async cancelLoading() {
    await this.loadingCard().getByRole('button', { name: 'Cancel', exact: true }).click();
    await this.waitForLoaded(5_000);
  }

  /** Texts of the banner's notices (polite role="status" messages such as "Cancelled loading x."). */
  async notices() {
    const items = this.page.getByRole('status').filter({ has: this.page.getByRole('button', { name: /^Dismiss/ }) });
    return (await items.allTextContents()).map((t) => t.replace(/^Note:\s*/, '').replace(/Dismiss$/, '').trim());
  }

  /** The longest time, in ms, the page's main thread did not run a 10 ms timer during the next `durationMs`. */
  async longestMainThreadStallMs(durationMs = 1_000) {
    return this.page.evaluate(
      (duration) =>
        new Promise((resolve) => {
          const start = performance.now();
          let last = start;
          let worst = 0;
          const tick = () => {
            const now = performance.now();
            worst = Math.max(worst, now - last);
            last = now;
            if (now - start < duration) setTimeout(tick, 10);
            else resolve(worst);
          };
          setTimeout(tick, 10);
        }),
      durationMs,
    );
  }

  /** Presses a key `times` times as fast as the browser takes them. */
  async pressKey(key, times = 1) {
    for (let i = 0; i < times; i++) await this.page.keyboard.press(key);
  }

  /** The hops of the "Why?" panel's cause chain, newest first, once it has been read for the step shown. */
  causeChainHops() {
    return this.page.getByRole('list', { name: 'Cause chain' }).getByRole('button');
  }

  /** The accessible names of the cause chain's hops ("Go to step N: fn:line (kind) on CPU c", N with grouped digits), waiting for the chain. */
  async readCauseChain() {
    await this.causeChainHops().first().waitFor({ timeout: 10_000 });
    return this.causeChainHops().evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
  }

  /** Clicks the cause chain hop at `index` (0 = the current event) and waits for its step; returns the step. */
  async goToCauseHop(index) {
    const label = (await this.readCauseChain())[index] ?? '';
    const m = /^Go to step ([\d,]+):/.exec(label);
    if (!m) throw new Error(`no cause hop ${index} (labels: ${label})`);
    const step = Number(m[1].replace(/,/g, ''));
    await this.causeChainHops().nth(index).click();
    await this.waitForStep(step);
    return step;
  }

  /** Each CPU's call stack as shown under the machine view: { 'CPU 3': 'user code › …' }. */
  async readCpuStacks() {
    const list = this.page.getByRole('list', { name: 'Call stacks' }).or(this.page.locator('dl[aria-label="Call stacks"]')).first();
    return list.evaluate((dl) =>
      Object.fromEntries([...dl.querySelectorAll(':scope > div')].map((row) => [row.querySelector('dt')?.textContent ?? '', (row.querySelector('dd')?.textContent ?? '').trim()])),
    );
  }

  /** The plot of a counter in the Plots panel (an image named after the counter). */
  plot(counter) {
    return this.page.getByRole('img', { name: new RegExp(`^${counter}( per µs)? over simulated time`) });
  }

  /** The counters the Plots panel draws, in order. */
  async plottedCounters() {
    return this.page.locator('path[data-counter]').evaluateAll((els) => els.map((e) => e.getAttribute('data-counter')));
  }

  /** Clicks a counter's plot at `fraction` (0..1) of its time axis; returns without waiting for the seek. */
  async clickPlot(counter, fraction) {
    const area = this.plot(counter).locator('[data-plot-area]');
    // The mouse works in viewport coordinates: bring the plot into view first.
    await area.scrollIntoViewIfNeeded();
    const box = await area.boundingBox();
    if (!box) throw new Error(`the plot of ${counter} is not on screen`);
    await this.page.mouse.click(box.x + fraction * box.width, box.y + box.height / 2);
  }

  /** Presses on a counter's plot at `from` (0..1 of its time axis) and drags to `to` before letting go. */
  async dragPlot(counter, from, to) {
    const area = this.plot(counter).locator('[data-plot-area]');
    await area.scrollIntoViewIfNeeded();
    const box = await area.boundingBox();
    if (!box) throw new Error(`the plot of ${counter} is not on screen`);
    const y = box.y + box.height / 2;
    await this.page.mouse.move(box.x + from * box.width, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + to * box.width, y, { steps: 8 });
    await this.page.mouse.up();
  }

  /** Where a plot's current-step cursor is, as a fraction (0..1) of its time axis. */
  async plotCursorFraction(counter) {
    return this.plot(counter).evaluate((svg) => {
      const area = svg.querySelector('[data-plot-area]');
      const cursor = svg.querySelector('[data-plot-cursor]');
      const x = Number(area?.getAttribute('x'));
      return (Number(cursor?.getAttribute('x1')) - x) / Number(area?.getAttribute('width'));
    });
  }

  /** Waits until a plot's cursor is within `tolerance` of `fraction` of its time axis (seeks land one after the other). */
  async waitForPlotCursorAt(counter, fraction, tolerance = 0.02, timeout = 10_000) {
    const until = Date.now() + timeout;
    for (;;) {
      const at = await this.plotCursorFraction(counter);
      if (Math.abs(at - fraction) < tolerance) return at;
      if (Date.now() > until) throw new Error(`the cursor of ${counter} stayed at ${at}, not ${fraction}`);
      await this.page.waitForTimeout(100);
    }
  }

  /** How much of a plot's height its line spans (0 for a flat line, 1 from bottom to top). */
  async plotLineSpan(counter) {
    return this.plot(counter).evaluate((svg) => {
      const line = svg.querySelector('path[data-counter]');
      const area = svg.querySelector('[data-plot-area]');
      return line && area ? line.getBBox().height / area.getBBox().height : 0;
    });
  }

  /** Waits until the readout shows another step than `step`; returns the new one. */
  async waitForStepOtherThan(step, timeout = 10_000) {
    await this.page.waitForFunction(
      (n) => {
        const m = /step\s+([\d,]+)\s*\//.exec(document.querySelector('output[aria-label="Step readout"]')?.textContent ?? '');
        return m !== null && Number(m[1].replace(/,/g, '')) !== n;
      },
      step,
      { timeout },
    );
    return (await this.readStep()).step;
  }

  /** The Plots panel. */
  plotsPanel() {
    return this.page.getByRole('region', { name: /^Plots/ });
  }

  /** Saves a screenshot of the Plots panel as artifacts/screenshots/<name>.png. */
  async screenshotPlots(name) {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    await this.plotsPanel().screenshot({ path });
    return path;
  }

  /** Texts of the visible alerts. */
  async alerts() {
    return this.page.getByRole('alert').allTextContents();
  }

  /** Saves a screenshot as artifacts/screenshots/<name>.png; returns the path. */
  async screenshot(name, options = {}) {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    await this.page.screenshot({ path, ...options });
    return path;
  }
}
