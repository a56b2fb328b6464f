// End-to-end tests of lecture mode (a clicker through every chapter, predict then reveal, type
// measured at 1280 × 720), lecture links per slide, embed mode inside another page's iframe, and
// the collapsed patch bar. Registered by run.mjs, which owns the browser, the server and the
// engine oracle (the wasm package run in Node).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { allowOrigin } from './guard.mjs';
import { startStaticServer } from './server.mjs';

/** Every visible text of the page (or of `rootSelector`) with its rendered size in px: computed font-size × the SVG's scale for SVG text. */
export async function renderedTextSizes(page, rootSelector = 'body') {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    const out = [];
    if (!root) return out;
    const walker = document.createTreeWalker(root, window.NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      const text = (node.textContent ?? '').trim();
      const el = node.parentElement;
      if (!text || !el || el.closest('title, option, [aria-hidden="true"] title')) continue;
      const box = el.getBoundingClientRect();
      const style = window.getComputedStyle(el);
      // Off screen, hidden, or clipped to nothing (visually hidden headings for screen readers).
      if (box.width < 2 || box.height < 2 || style.visibility === 'hidden' || box.bottom < 0 || box.top > window.innerHeight) continue;
      let px = Number.parseFloat(style.fontSize);
      if (el instanceof window.SVGGraphicsElement) {
        const m = el.getScreenCTM();
        if (m) px *= Math.hypot(m.a, m.b);
      }
      out.push({ px: Math.round(px * 100) / 100, text: text.slice(0, 48), tag: el.tagName });
    }
    return out;
  }, rootSelector);
}

/** The rendered size (px) of the first SVG text of the lecture's machine whose content is `text` (or starts with it, with `prefix`). */
async function svgTextPx(page, text, prefix = false) {
  return page.evaluate(([t, p]) => {
    const el = [...document.querySelectorAll('[data-mode="lecture"] svg text')].find((x) => (p ? x.textContent?.startsWith(t) : x.textContent === t));
    if (!el) return null;
    const m = el.getScreenCTM();
    return Number.parseFloat(window.getComputedStyle(el).fontSize) * (m ? Math.hypot(m.a, m.b) : 1);
  }, [text, prefix]);
}

/** The lecture's heading ("Chapter 2/4 The scanner marks PROT_NONE", or the scenario's title on the first slide). */
async function lectureHeading(lab) {
  return ((await lab.page.getByRole('region', { name: 'Lecture mode' }).getByRole('heading', { level: 1 }).textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** Presses `key` and waits for the lecture to show step `step`. */
async function press(lab, key, step) {
  await lab.page.keyboard.press(key);
  if (step !== undefined) await lab.waitForStep(step);
}

/** Asserts every text on screen is at least 24 px and returns the smallest, with the named ones. */
async function assertRoomSized(lab, where) {
  const sizes = await renderedTextSizes(lab.page, '[data-mode="lecture"]');
  assert.ok(sizes.length > 10, `${where}: texts found`);
  const small = sizes.filter((s) => s.px < 24);
  assert.deepEqual(small, [], `${where}: every text is at least 24 px`);
  return Math.min(...sizes.map((s) => s.px));
}

/**
 * Registers the lecture and embed suite. `newLab()` opens a page in the shared context,
 * `freshLab()` one in a new browser context ({ lab, close }); `wasm` is the engine's package
 * (the oracle) and `baseUrl()` the lab's address.
 */
export function lectureSuite({ newLab, freshLab, scenario, wasm, builtins, baseUrl }) {
  /** The engine's own summary of `scenario` under `toggles` (chapters and questions with their answers). */
  const engineSummary = (toggles = {}) => {
    const { text } = builtins.find((b) => b.id === scenario);
    const sim = new wasm.Simulation(text, toggles, {});
    const summary = sim.summary();
    sim.free();
    return summary;
  };

  describe('lecture mode', () => {
    it(`${scenario}: a clicker goes through every chapter, a question is predicted and revealed, and every text is at least 24 px at 1280×720`, async () => {
      const summary = engineSummary();
      const chapters = summary.chapters;
      assert.equal(chapters.length, 4);
      const [scan, migrate, decision] = summary.questions;
      const lab = await newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      await lab.openScenario(scenario);
      // A dropdown picked with the mouse keeps the focus, as the issue found it: PageDown used to switch the scenario.
      const picker = lab.page.getByRole('combobox', { name: 'Scenario' });
      await lab.openBuiltin('rmap-101');
      await picker.selectOption(scenario);
      await lab.page.waitForFunction((id) => new RegExp(`[#&]sc=${id}(&|$)`).test(location.hash), scenario);
      await lab.waitForStep(0);
      // Focused, as a mouse pick leaves it (selectOption alone does not focus).
      await picker.focus();
      assert.equal(await lab.page.evaluate(() => document.activeElement?.tagName), 'SELECT');
      // A prepared link enters lecture mode on its first slide, with the dropdown still focused.
      await lab.pasteLink(`v=2&sc=${scenario}&step=0&lecture=intro`);
      const lecture = lab.page.getByRole('region', { name: 'Lecture mode' });
      await lecture.waitFor();
      // Chrome hidden: no header, pickers or toggle bar.
      assert.equal(await lab.page.getByRole('combobox').count(), 0);
      assert.equal(await lab.page.getByRole('switch').count(), 0);
      const intro = lecture.getByRole('region', { name: 'About this scenario' });
      await intro.waitFor();
      const introText = ((await intro.textContent()) ?? '').replace(/\s+/g, ' ');
      assert.match(introText, /run on node 1 \(CPUs 2 and 3\); their heap is on node 0/);
      assert.match(introText, /pages = 4Heap pages thread 0 migrates/);
      assert.equal(await lectureHeading(lab), summary.title);
      const introMin = await assertRoomSized(lab, 'first slide');
      await lab.screenshot('lecture-01-first-slide');

      // PageDown: the first chapter. Arrows step; Space goes on to the next chapter.
      await press(lab, 'PageDown', chapters[0].step);
      assert.equal(await lectureHeading(lab), `Chapter 1/4 ${chapters[0].title}`);
      await lab.page.getByText(chapters[0].narration).waitFor();
      await press(lab, 'ArrowRight', 1);
      await press(lab, 'ArrowRight', 2);
      await press(lab, 'ArrowLeft', 1);
      await lab.screenshot('lecture-02-chapter-1');
      await press(lab, ' ', chapters[1].step);
      assert.equal(await lectureHeading(lab), `Chapter 2/4 ${chapters[1].title}`);
      await lab.page.waitForFunction((n) => new RegExp(`[#&]step=${n}&.*lecture=1`).test(location.hash), chapters[1].step);

      // The scanner's question, asked before the steps that answer it.
      assert.equal(scan.step, chapters[1].step);
      const card = lab.page.getByRole('region', { name: /^Question/ });
      await card.getByText(scan.prompt).waitFor();
      // The chapter's narration, which says who gets the IPI, is held back until the answer.
      const narration = lecture.getByRole('region', { name: 'Narration' });
      assert.match((await narration.textContent()) ?? '', /^First a question: /);
      assert.equal(await lab.page.getByText(chapters[1].narration).count(), 0);
      // Type: narration, labels, pfn labels and task names, measured, and everything else on screen.
      const narrationPx = await lecture.getByRole('region', { name: 'Narration' }).locator('p').first().evaluate((p) => Number.parseFloat(window.getComputedStyle(p).fontSize));
      const labelPx = await svgTextPx(lab.page, 'CPU 3');
      const nodePx = await svgTextPx(lab.page, 'Node 1 ', true);
      const pfnPx = await svgTextPx(lab.page, '16');
      const taskPx = await svgTextPx(lab.page, 'task 1/1');
      for (const [what, px] of [['narration', narrationPx], ['CPU label', labelPx], ['node title', nodePx], ['pfn label', pfnPx], ['task name', taskPx]]) {
        assert.ok(px !== null && px >= 24, `${what}: ${px} px`);
      }
      const questionMin = await assertRoomSized(lab, 'a question');
      await lab.screenshot('lecture-03-question');
      // The room picks CPU 3 with the mouse; the clicker's PageDown still reaches the lecture (it reveals).
      await card.getByRole('checkbox', { name: 'CPU 3' }).click();
      await press(lab, 'PageDown');
      const reveal = card.getByRole('status');
      await reveal.waitFor();
      assert.equal(((await reveal.textContent()) ?? '').trim(), `The run says: CPU ${scan.answer.cpus.join(', ')}: the CPU with an ipi_recv event in these steps.`);
      assert.deepEqual(scan.answer.cpus, [3]);
      await card.getByText('You picked CPU 3: right.').waitFor();
      assert.equal((await lab.readStep()).step, scan.step, 'the reveal does not move');
      await narration.getByText(chapters[1].narration).waitFor();
      await lab.screenshot('lecture-04-revealed');

      // The migration's question: a number typed in, revealed by PageDown from the box.
      await press(lab, 'PageDown', chapters[2].step);
      assert.equal(await lectureHeading(lab), `Chapter 3/4 ${chapters[2].title}`);
      await card.getByText(migrate.prompt).waitFor();
      await card.getByRole('spinbutton', { name: 'Your guess' }).fill('4');
      await press(lab, 'PageDown');
      await reveal.waitFor();
      const value = migrate.answer.value;
      assert.equal(((await reveal.textContent()) ?? '').trim(), `The run says: ${value}: nr_tlb_remote_flush went from ${migrate.answer.from} to ${migrate.answer.to} over these steps.`);
      // v5.13 (the scenario's kernel): the PTE stays PROT_NONE, no migration needs a shootdown.
      assert.equal(value, 0);
      await card.getByText('Your guess was 4 (over by 4).').waitFor();
      await lab.screenshot('lecture-05-count-revealed');

      // The last chapter, back one, and on again: the answered question does not stop it twice.
      await press(lab, 'PageDown', chapters[3].step);
      assert.equal(await lectureHeading(lab), `Chapter 4/4 ${chapters[3].title}`);
      await card.getByText(decision.prompt).waitFor();
      await press(lab, 'PageUp', chapters[2].step);
      await press(lab, 'PageDown', chapters[3].step);
      await press(lab, ' ');
      await reveal.waitFor();
      const judged = await card.getByRole('listitem').allTextContents();
      assert.equal(judged.length, 2);
      assert.match(judged[1] ?? '', /No: a PROT_NONE PTE is in no TLB.*\(holds: 0 ipi_send events\)/);
      assert.match(judged[0] ?? '', /\(does not hold: 0 ipi_send events\)/);
      await lab.screenshot('lecture-06-choice-revealed');
      // No chapter after the last: PageDown stays.
      await press(lab, 'PageDown');
      await lab.page.waitForTimeout(200);
      assert.equal((await lab.readStep()).step, chapters[3].step);
      // Each chapter jump is a history entry: Back returns to the chapter before, still in lecture mode.
      await lab.page.goBack();
      await lab.waitForStep(chapters[2].step);
      assert.equal(await lectureHeading(lab), `Chapter 3/4 ${chapters[2].title}`);
      await lab.page.goForward();
      await lab.waitForStep(chapters[3].step);
      assert.equal(await lectureHeading(lab), `Chapter 4/4 ${chapters[3].title}`);

      // The speaker notes: every chapter's narration, the current one marked.
      await press(lab, 'n');
      const notes = lab.page.getByRole('complementary', { name: 'Speaker notes' });
      await notes.waitFor();
      assert.deepEqual(await notes.getByRole('button').allTextContents(), chapters.map((c, i) => `${i + 1}. ${c.title}`));
      assert.match((await notes.locator('li[aria-current="step"]').textContent()) ?? '', new RegExp(`^4\\. ${chapters[3].title}`));
      await notes.getByText(chapters[1].narration).waitFor();
      const notesMin = await assertRoomSized(lab, 'the notes');
      await lab.screenshot('lecture-07-notes');
      // Escape closes the notes, then leaves lecture mode at the same step.
      await press(lab, 'Escape');
      await notes.waitFor({ state: 'detached' });
      await press(lab, 'Escape');
      await lecture.waitFor({ state: 'detached' });
      await picker.waitFor();
      assert.equal((await lab.readStep()).step, chapters[3].step);
      await lab.page.waitForFunction(() => !/lecture=/.test(location.hash));
      assert.deepEqual(await lab.alerts(), []);
      console.log(`# lecture mode at 1280x720: smallest text ${Math.min(introMin, questionMin, notesMin)} px; narration ${narrationPx} px, CPU label ${labelPx} px, node title ${nodePx} px, pfn label ${pfnPx} px, task name ${taskPx} px`);
      await lab.page.close();
    });

    it('the lab\'s "Lecture mode" button enters at the step on screen; a link per slide reopens that slide in a fresh browser', async () => {
      const lab = await newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      await lab.openScenario(scenario, `v=2&sc=${scenario}&step=40`);
      await lab.page.getByRole('button', { name: 'Lecture mode' }).click();
      await lab.page.getByRole('region', { name: 'Lecture mode' }).waitFor();
      assert.equal((await lab.readStep()).step, 40);
      await lab.page.waitForFunction(() => /[#&]step=40&.*lecture=1/.test(location.hash));
      const link = lab.page.url();
      await lab.page.keyboard.press('Escape');
      await lab.page.getByRole('combobox', { name: 'Scenario' }).waitFor();
      await lab.page.close();

      const summary = engineSummary();
      const fresh = await freshLab();
      try {
        await fresh.lab.page.setViewportSize({ width: 1280, height: 720 });
        await fresh.lab.openLink(link);
        await fresh.lab.page.getByRole('region', { name: 'Lecture mode' }).waitFor();
        await fresh.lab.waitForStep(40);
        assert.equal(await lectureHeading(fresh.lab), `Chapter 3/4 ${summary.chapters[2].title}`);
        // A slide with a question waiting: the question is there to be asked.
        await fresh.lab.openLink(`${baseUrl()}#v=2&sc=${scenario}&step=${summary.chapters[1].step}&lecture=1`);
        await fresh.lab.page.getByRole('region', { name: /^Question/ }).getByText(summary.questions[0].prompt).waitFor();
        // The first slide (it has no step readout to wait for).
        await fresh.lab.page.goto('about:blank');
        await fresh.lab.page.goto(`${baseUrl()}#v=2&sc=${scenario}&step=0&lecture=intro`);
        await fresh.lab.page.getByRole('region', { name: 'About this scenario' }).waitFor({ timeout: 30_000 });
        assert.deepEqual(await fresh.lab.alerts(), []);
        await fresh.lab.screenshot('lecture-08-link-first-slide');
      } finally {
        await fresh.close();
      }
    });
  });

  describe('embed mode', () => {
    it('inside an iframe of another page: minimal chrome, the steps it may show, no history entries, sized by the host, and a link to the full lab', async () => {
      const lab = await newLab();
      const page = lab.page;
      await page.setViewportSize({ width: 1100, height: 760 });
      const src = `${baseUrl()}?embed#v=2&sc=${scenario}&step=20&from=16&to=40`;
      // A slide of its own, served from another origin (a server on another port), the lab in an iframe it sizes.
      const hostDir = mkdtempSync(join(tmpdir(), 'mmviz-e2e-host-'));
      writeFileSync(
        join(hostDir, 'index.html'),
        `<!doctype html><html><head><meta charset="utf-8"><title>A slide</title></head><body style="margin:0;font-family:sans-serif">` +
          `<h1 style="font-size:22px;margin:8px">Why the shootdown goes away</h1>` +
          `<iframe id="lab" title="mmviz: ${scenario}" src="${src}" style="width:960px;height:600px;border:1px solid #777"></iframe></body></html>`,
      );
      const host = await startStaticServer(hostDir);
      // The host page is the test's own, on another origin: its requests are not the lab's.
      const disallow = allowOrigin(host.url);
      try {
      await page.goto(host.url);
      assert.notEqual(new URL(host.url).origin, new URL(baseUrl()).origin);
      const hostHistory = await page.evaluate(() => history.length);
      const frame = page.frameLocator('#lab');
      const readout = frame.locator('output[aria-label="Step readout"]');
      await readout.waitFor({ timeout: 30_000 });
      const stepIn = async () => Number(/step\s+(\d+)/.exec((await readout.textContent()) ?? '')?.[1]);
      const waitStep = async (n) => {
        for (let i = 0; i < 100 && (await stepIn()) !== n; i++) await page.waitForTimeout(50);
        assert.equal(await stepIn(), n);
      };
      await waitStep(20);
      // Minimal chrome: no scenario picker, toggles or A/B bar; the steps it shows are named.
      assert.equal(await frame.getByRole('combobox', { name: 'Scenario' }).count(), 0);
      assert.equal(await frame.getByRole('switch').count(), 0);
      assert.equal(await frame.getByRole('button', { name: 'A/B compare…' }).count(), 0);
      await frame.getByText('steps 16–40').waitFor();
      await lab.screenshot('embed-01-in-iframe');
      // The transport cannot leave the range: End and Home go to its ends, and no further.
      await frame.getByRole('button', { name: 'Last step', exact: true }).click();
      await waitStep(40);
      assert.equal(await frame.getByRole('button', { name: 'Step forward', exact: true }).isDisabled(), true);
      await frame.getByRole('button', { name: 'First step', exact: true }).click();
      await waitStep(16);
      assert.equal(await frame.getByRole('button', { name: 'Step back', exact: true }).isDisabled(), true);
      const slider = frame.getByRole('slider', { name: 'Step' });
      assert.deepEqual([await slider.getAttribute('min'), await slider.getAttribute('max')], ['16', '40']);
      await frame.getByRole('button', { name: 'Step forward', exact: true }).click();
      await waitStep(17);
      // No history entries and no writes to its own address: the host's Back button stays the host's.
      await page.waitForTimeout(400);
      assert.equal(await page.evaluate(() => history.length), hostHistory);
      const frameHash = await page.frames().find((f) => f.url().startsWith(baseUrl()))?.evaluate(() => location.hash);
      assert.equal(frameHash, `#v=2&sc=${scenario}&step=20&from=16&to=40`);
      // "Open in the full lab": a new tab at the same frame, without embed or range.
      const open = frame.getByRole('link', { name: /Open in the full lab/ });
      assert.equal(await open.getAttribute('target'), '_blank');
      assert.match((await open.getAttribute('rel')) ?? '', /\bnoopener\b/);
      const href = (await open.getAttribute('href')) ?? '';
      assert.match(href, new RegExp(`^${baseUrl().replace(/[.?]/g, '\\$&')}#v=2&sc=${scenario}&h=[0-9a-f]{8}&step=17$`));
      const [popup] = await Promise.all([page.context().waitForEvent('page'), open.click()]);
      await popup.locator('output[aria-label="Step readout"]').waitFor({ timeout: 30_000 });
      await popup.getByRole('combobox', { name: 'Scenario' }).waitFor();
      await popup.waitForFunction(() => /step\s+17\s*\//.test(document.querySelector('output[aria-label="Step readout"]')?.textContent ?? ''));
      await popup.close();
      // Sized by the host: a narrow frame shows the machine alone, as wide as the frame.
      await page.evaluate(() => {
        const f = document.getElementById('lab');
        f.style.width = '520px';
        f.style.height = '480px';
      });
      await frame.getByRole('heading', { name: /^Code/ }).waitFor({ state: 'hidden' });
      const machine = await frame.getByRole('group', { name: /NUMA nodes/ }).boundingBox();
      assert.ok(machine && machine.width > 440 && machine.width < 520, `the machine fills the narrow frame (${machine?.width} px)`);
      await lab.screenshot('embed-02-narrow-iframe');
      } finally {
        disallow();
        await host.close();
        rmSync(hostDir, { recursive: true, force: true });
      }
      await page.close();
    });
  });

  describe('the scenario\'s story', () => {
    it('"About this scenario" shows the description and every parameter\'s meaning as text, not tooltips', async () => {
      const summary = engineSummary();
      const lab = await newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      await lab.openScenario(scenario);
      await lab.page.locator('summary', { hasText: 'About this scenario' }).click();
      const table = lab.page.getByRole('table', { name: 'Parameters' });
      await table.waitFor();
      assert.ok(summary.params.length > 0);
      for (const p of summary.params) {
        assert.ok(p.description, `${p.name} has a description`);
        const row = table.getByRole('row').filter({ has: lab.page.getByText(p.name, { exact: true }) });
        await row.getByText(p.description, { exact: true }).waitFor();
        assert.ok(await row.getByText(p.description, { exact: true }).isVisible());
      }
      const first = summary.description.split(/\n\s*\n/)[0].replace(/\s+/g, ' ').trim();
      await lab.page.getByText(first, { exact: true }).waitFor();
      await lab.screenshot('story-01-about-scenario');
      await lab.page.close();
    });
  });

  describe('the patch bar', () => {
    it('is one collapsed bar at 1280×720 with the run\'s toggles, expanding to every patch', async () => {
      const lab = await newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      await lab.openScenario(scenario);
      const header = await lab.page.locator('header').boundingBox();
      // The issue measured 421 px for the patch panel alone.
      assert.ok(header && header.height < 150, `the header with the patch bar is ${header?.height} px high`);
      const chips = lab.page.getByRole('list', { name: 'Patches this run goes through' });
      const titles = await chips.getByRole('switch').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      assert.ok(titles.includes('NUMA balancing: reduce TLB flush via delaying mapping on hint page fault'), titles.join(' | '));
      await lab.screenshot('bar-01-collapsed-1280');
      await lab.page.getByRole('button', { name: /^All patches \(\d+\)$/ }).click();
      await lab.page.getByRole('button', { name: 'About the patch: NUMA balancing: reduce TLB flush via delaying mapping on hint page fault' }).waitFor();
      await lab.screenshot('bar-02-expanded-1280');
      await lab.page.getByRole('button', { name: 'Fewer patches' }).click();
      await chips.waitFor();
      console.log(`# collapsed header at 1280x720: ${header.height} px`);
      await lab.page.close();
    });
  });
}
