// End-to-end tests of the Explore view (Explore… in the header, for scenarios with [explore]):
// a small search of mremap-race-101 in the lab's wasm, with the numbers the engine gives in
// Node; a lost-write outcome under `deferred` opened as a normal run (its schedule in the link,
// the finding marked on the scrubber); that link in a fresh browser; a schedule that does not
// fit; A/B of an outcome's schedule. Registered by run.mjs (which owns the browser and server).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const SCENARIO = 'mremap-race-101';
const TOGGLE = 'mremap_flush';
const BUDGET = 2_000;

/** The Explore dialog, opened from the header. */
async function openExplore(lab) {
  await lab.page.getByRole('button', { name: /^Explore…/ }).click();
  const dialog = lab.page.getByRole('dialog', { name: 'Explore' });
  await dialog.waitFor();
  return dialog;
}

/** What the lab shows of a run: its step, its lost_writes, its finding marks and notes. */
async function runView(lab) {
  const { step, total } = await lab.readStep();
  return {
    step,
    total,
    lostWrites: await lab.readCounter('lost_writes'),
    marks: await lab.page.locator('svg [data-finding-step]').evaluateAll((gs) => gs.map((g) => Number(g.getAttribute('data-finding-step')))),
    related: await lab.page.locator('svg [data-related-step]').evaluateAll((ls) => ls.map((l) => Number(l.getAttribute('data-related-step')))),
    notes: (await lab.page.getByRole('note', { name: 'Findings of this run' }).first().textContent())?.replace(/\s+/g, ' ').trim(),
  };
}

/**
 * @param {{ newLab: () => Promise<import('./helper.mjs').Lab>, freshLab: () => Promise<{ lab: import('./helper.mjs').Lab, close: () => Promise<void> }>, wasm: any, builtins: { id: string, text: string }[] }} h
 */
export function exploreSuite(h) {
  describe('explore: every interleaving of a race scenario', () => {
    let openedLink = '';
    let openedView = null;
    let lostOutcome = null;
    /** The page of the first test, kept for the A/B test (its Explore report stays: one search, not two). */
    let mainLab = null;

    it('mremap-race-101: the search finds a lost write under deferred (with the engine\'s numbers, not exhaustive at this budget), Open runs it with the schedule in the link and the finding marked', async () => {
      const text = h.builtins.find((b) => b.id === SCENARIO)?.text;
      assert.ok(text, `${SCENARIO} is built in`);
      const oracle = h.wasm.explore(text, {}, {}, TOGGLE, BUDGET);
      const deferred = oracle.values.find((v) => v.toggles[TOGGLE] === 'deferred');
      assert.ok(deferred, 'the oracle searched deferred');
      lostOutcome = deferred.outcomes.find((o) => o.bad && o.findings.some((f) => f.kind === 'lost_write'));
      assert.ok(lostOutcome, `the engine finds a lost write under deferred within ${BUDGET} states`);

      const lab = await h.newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      await lab.openScenario(undefined, `v=2&sc=${SCENARIO}&step=0`);
      await lab.waitForLoaded();
      const dialog = await openExplore(lab);
      await dialog.getByRole('combobox', { name: 'Budget per value' }).selectOption(String(BUDGET));
      await dialog.getByRole('button', { name: 'Explore', exact: true }).click();
      const section = dialog.getByRole('region', { name: `${TOGGLE} = deferred` });
      await section.waitFor({ timeout: 300_000 });
      await lab.screenshot('60a-explore-report');
      // The table says what the engine says: not exhaustive (cut by the budget), its counts.
      const cells = await section.getByRole('cell').allTextContents();
      assert.deepEqual(cells, [`no: stopped, ${deferred.cut}`, deferred.schedules.toLocaleString('en'), deferred.states.toLocaleString('en'), String(deferred.outcomes.length), String(deferred.outcomes.filter((o) => o.bad).length)]);
      assert.match(await dialog.getByText(/^Searched in .* s \(2,000 states per value, WebAssembly\)\.$/).textContent(), /Searched in/);
      assert.match((await dialog.getByRole('status').first().textContent()) ?? '', /Not every search was exhaustive/);
      // No bad outcome under dirty (seed 001's argument), as the engine says.
      const dirty = oracle.values.find((v) => v.toggles[TOGGLE] === 'dirty');
      assert.equal(dirty.outcomes.filter((o) => o.bad).length, 0);
      assert.equal(await dialog.getByRole('region', { name: `${TOGGLE} = dirty` }).locator('[data-outcome="bad"]').count(), 0);

      // The lost-write outcome: Open.
      const item = section.locator('[data-outcome="bad"]').filter({ hasText: lostOutcome.schedule }).first();
      assert.match((await item.textContent()) ?? '', /lost_write at step/);
      await item.getByRole('link', { name: 'Open' }).click();
      await lab.page.waitForFunction((s) => location.hash.includes(`sched=${s}`) && !document.querySelector('dialog[open]'), lostOutcome.schedule, { timeout: 30_000 });
      await lab.waitForLoaded();
      const findingStep = Math.max(...lostOutcome.findings.find((f) => f.kind === 'lost_write').steps);
      await lab.waitForStep(Math.max(...lostOutcome.findings[0].steps) + 1);
      await lab.page.waitForFunction(() => !!document.querySelector('svg [data-finding-step]'));
      // The URL follows the screen after a short debounce.
      await lab.page.waitForFunction((t) => location.hash.includes(t), `t.${TOGGLE}=deferred`);
      openedLink = lab.page.url();
      assert.match(openedLink, new RegExp(`#v=2&sc=${SCENARIO}&h=[0-9a-f]{8}&t\\.${TOGGLE}=deferred&sched=${lostOutcome.schedule}&step=\\d+`));
      openedView = await runView(lab);
      assert.equal(openedView.lostWrites, 1);
      assert.ok(openedView.marks.includes(findingStep), `the scrubber marks the lost write at step ${findingStep}: ${openedView.marks}`);
      assert.match(openedView.notes, new RegExp(`Lost write at step ${findingStep} `));
      // The stale store's steps as the explorer names them (the walk that cached the entry, the
      // other CPU's step on the PTE, the store) are all marked: the store as a finding, the
      // others as the steps that set it up.
      const stale = lostOutcome.findings.find((f) => f.kind === 'stale_tlb_store');
      assert.ok(stale && stale.steps.length >= 3, `the explorer names the stale store's steps: ${JSON.stringify(stale)}`);
      for (const s of stale.steps) {
        assert.ok(openedView.marks.includes(s) || openedView.related.includes(s), `step ${s} of the stale store is marked: ${openedView.marks} / ${openedView.related}`);
      }
      assert.ok(openedView.related.length >= 2, `the walk and the PTE change are marked: ${openedView.related}`);
      assert.match(openedView.notes, /cached it at step/);
      await lab.screenshot('60b-explore-open-finding');
      // In lecture mode the finding stays marked.
      await lab.pasteLink(`${openedLink.split('#')[1]}&lecture=1`);
      await lab.page.locator('[data-mode="lecture"]').waitFor({ timeout: 30_000 });
      await lab.page.waitForTimeout(300);
      await lab.screenshot('60c-explore-finding-lecture');
      await lab.page.keyboard.press('Escape');
      await lab.page.locator('[data-mode="lab"]').waitFor({ timeout: 10_000 });
      mainLab = lab;
    });

    it('the outcome\'s link reopens the same run in a fresh browser: same step, counters and marks', async () => {
      assert.ok(openedLink, 'the test before opened an outcome');
      const fresh = await h.freshLab();
      try {
        await fresh.lab.page.setViewportSize({ width: 1280, height: 720 });
        await fresh.lab.openLink(openedLink);
        await fresh.lab.waitForLoaded();
        await fresh.lab.page.waitForFunction(() => !!document.querySelector('svg [data-finding-step]'), null, { timeout: 30_000 });
        assert.deepEqual(await runView(fresh.lab), openedView);
      } finally {
        await fresh.close();
      }
    });

    it('a schedule that does not fit: the lab says what and where, opens the rest of the link, and keeps the schedule', async () => {
      const lab = await h.newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      for (const [sched, says] of [
        ['4:9', /pick 1 \(`4:9`\): this machine has CPUs 0 to \d+/],
        ['4:1,x', /pick 2 \(`x`\): expected STEP:CPU/],
        ['4:2', /pick 1 \(`4:2`\): CPU 2 has nothing to do at step 4/],
      ]) {
        await lab.openScenario(undefined, `v=2&sc=${SCENARIO}&t.${TOGGLE}=dirty&sched=${sched}&step=7`);
        await lab.waitForLoaded();
        const message = lab.page.getByText(/^This run cannot follow the schedule/).first();
        await message.waitFor({ timeout: 30_000 });
        assert.match((await message.textContent()) ?? '', says);
        assert.match(await lab.page.getByRole('note').filter({ hasText: "does not follow the link's schedule" }).first().textContent(), says);
        assert.equal((await lab.readStep()).step, 7);
        // The rest of the link applies (its toggle, its step) and the schedule stays in it.
        await lab.page.waitForTimeout(400);
        assert.ok(lab.page.url().includes(`t.${TOGGLE}=dirty&sched=${sched}&step=7`), `the link keeps its toggle and schedule: ${lab.page.url()}`);
        if (sched === '4:9') await lab.screenshot('60d-explore-bad-schedule');
      }
      await lab.page.close();
    });

    it('A/B from an outcome: the same schedule under deferred and dirty side by side', async () => {
      assert.ok(lostOutcome && mainLab, 'the first test found the outcome');
      const lab = mainLab;
      // The report of the first test's search is still there (the same scenario): no second search.
      const dialog = await openExplore(lab);
      const section = dialog.getByRole('region', { name: `${TOGGLE} = deferred` });
      await section.waitFor({ timeout: 10_000 });
      const item = section.locator('[data-outcome="bad"]').filter({ hasText: lostOutcome.schedule }).first();
      await item.getByRole('combobox', { name: `A/B against ${TOGGLE}` }).selectOption('dirty');
      await item.getByRole('link', { name: 'A/B' }).click();
      await lab.page.waitForFunction(
        ([s, t]) => location.hash.includes(`sched=${s}`) && location.hash.includes(`ab=t.${t}:deferred,dirty`) && !document.querySelector('dialog[open]'),
        [lostOutcome.schedule, TOGGLE],
        { timeout: 30_000 },
      );
      await lab.waitForLoaded();
      await lab.page.getByRole('group', { name: 'Run B narration' }).waitFor();
      // A follows the schedule and shows its lost write; B either follows it too or says it cannot.
      const laneA = lab.page.getByRole('group', { name: 'Run A narration' });
      const laneB = lab.page.getByRole('group', { name: 'Run B narration' });
      await laneA.getByRole('note', { name: 'Findings of this run' }).waitFor({ timeout: 30_000 });
      assert.match((await laneA.textContent()) ?? '', /this run follows a schedule/);
      const b = (await laneB.textContent()) ?? '';
      assert.ok(/this run follows a schedule/.test(b) || /does not follow the link's schedule.*pick \d+/.test(b), `B says whether it follows the schedule: ${b}`);
      await lab.screenshot('60e-explore-ab');
      await lab.page.close();
    });
  });
}
