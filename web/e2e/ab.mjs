// End-to-end tests of the A/B comparison: two runs of one scenario side by side, advanced
// together on the workload, the engine's first divergence, links that reopen both frames, and
// Back after a jump. Registered by run.mjs, which owns the browser and the server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const DELAY_MAP = 'numa_delay_map';

/** Reads { a, totalA, b, totalB } from the A/B readout ("A step 5 / 181 · B step 5 / 161"). */
export async function readAbSteps(lab) {
  const text = (await lab.readout().textContent()) ?? '';
  const m = /A step\s+([\d,]+)\s*\/\s*([\d,]+).*B step\s+([\d,]+)\s*\/\s*([\d,]+)/.exec(text);
  if (!m) throw new Error(`unexpected A/B readout "${text}"`);
  const n = (s) => Number(s.replace(/,/g, ''));
  return { a: n(m[1]), totalA: n(m[2]), b: n(m[3]), totalB: n(m[4]) };
}

/** Waits until the A/B readout shows steps `a` and `b`. */
async function waitForAbSteps(lab, a, b, timeout = 10_000) {
  await lab.page.waitForFunction(
    ([x, y]) => {
      const t = (document.querySelector('output[aria-label="Step readout"]')?.textContent ?? '').replace(/,/g, '');
      return new RegExp(`A step\\s+${x}\\s*/.*B step\\s+${y}\\s*/`).test(t);
    },
    [a, b],
    { timeout },
  );
}

/** Starts A/B from the bar: compare `what` (an option label prefix), A and B by their option labels. */
async function startAb(lab, what, a, b) {
  await lab.page.getByRole('button', { name: 'A/B compare…' }).click();
  const form = lab.page.getByRole('form', { name: 'Start an A/B comparison' });
  const compare = form.getByRole('combobox', { name: 'Compare' });
  const option = await compare.locator('option').evaluateAll((os, w) => os.find((o) => o.textContent.startsWith(w))?.value, what);
  assert.ok(option, `an option starting "${what}"`);
  await compare.selectOption(option);
  await form.getByRole('combobox', { name: 'A', exact: true }).selectOption({ label: a });
  await form.getByRole('combobox', { name: 'B', exact: true }).selectOption({ label: b });
  await form.getByRole('button', { name: 'Show side by side' }).click();
  await lab.page.getByRole('region', { name: 'A/B comparison' }).waitFor({ timeout: 60_000 });
}

/** The narration text of lane `lane` ('A' or 'B'). */
async function narration(lab, lane) {
  return (await lab.page.getByRole('group', { name: `Run ${lane} narration` }).locator('p').first().textContent()) ?? '';
}

/**
 * Registers the A/B suite. `newLab()` opens a page in the shared context; `freshLab()` opens
 * one in a new browser context (no storage, no history) and returns { lab, close }.
 */
export function abSuite({ newLab, freshLab, scenario }) {
  describe('A/B comparison', () => {
    it(`${scenario}: numa_delay_map off vs on in lock-step, the first divergence, Back after the jump, and the link in a fresh context`, async () => {
      const lab = await newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      await lab.openScenario(scenario);
      await startAb(lab, DELAY_MAP, 'v5.12: map, then migrate', 'v5.13: migrate, map only on failure');
      let s = await readAbSteps(lab);
      assert.deepEqual([s.a, s.b], [0, 0]);
      assert.ok(s.totalA > s.totalB, `v5.12's run (${s.totalA} steps) sends IPIs v5.13's (${s.totalB}) does not`);
      // The engine finds where they part: inside the first hint fault's do_numa_page.
      const bar = lab.page.getByRole('region', { name: 'A/B comparison' });
      await bar.getByText(/First divergence at step \d+/).waitFor({ timeout: 30_000 });
      const found = /First divergence at step (\d+): ([^\n]*)/.exec((await bar.textContent()) ?? '');
      assert.ok(found);
      assert.match(found[2], /do_numa_page/);
      const divergence = Number(found[1]);
      // Lock-step: the transport moves both runs, by the keyboard too.
      for (let i = 0; i < 5; i++) await lab.page.getByRole('button', { name: 'Step forward', exact: true }).click();
      await waitForAbSteps(lab, 5, 5);
      await lab.pressTransportKey('ArrowRight');
      await waitForAbSteps(lab, 6, 6);
      await lab.screenshot('ab-01-lock-step-1280');
      // The jump: both runs show the step that parts them.
      await bar.getByRole('button', { name: 'Jump to first divergence' }).click();
      await waitForAbSteps(lab, divergence + 1, divergence + 1);
      assert.match(await narration(lab, 'A'), /^Old flow: the PTE is made present again/);
      assert.match(await narration(lab, 'B'), /^New flow: the accessible PTE is only computed/);
      await lab.screenshot('ab-02-first-divergence-1280');
      // Counters of both runs with the change.
      assert.ok(await lab.page.getByRole('table', { name: 'Counters of run A and run B' }).isVisible());
      // A/B steps on the workload, not on steps: past the next access, the shorter run waits.
      await lab.pressTransportKey('End');
      await waitForAbSteps(lab, s.totalA, s.totalB);
      const ends = [await narration(lab, 'A'), await narration(lab, 'B')];
      const link = await lab.copyLink();
      assert.match(link, /ab=t\.numa_delay_map:false,true/);
      assert.match(link, new RegExp(`step=${s.totalA}&.*bstep=${s.totalB}`));
      // Back returns to where the jump started; Forward to the entry the jump made, which the
      // End key (no jump) and Copy link moved on to the end before the URL had followed the
      // jump (under load that is within the 250 ms debounce: the case that once lost the entry).
      await lab.page.goBack();
      await waitForAbSteps(lab, 6, 6, 60_000);
      await lab.page.goForward();
      await waitForAbSteps(lab, s.totalA, s.totalB, 60_000);
      // The link (at the end of both runs) in a fresh browser context shows the same two frames.
      const fresh = await freshLab();
      try {
        await fresh.lab.page.setViewportSize({ width: 1280, height: 720 });
        await fresh.lab.openLink(link);
        await waitForAbSteps(fresh.lab, s.totalA, s.totalB, 60_000);
        assert.deepEqual([await narration(fresh.lab, 'A'), await narration(fresh.lab, 'B')], ends);
        assert.deepEqual(await fresh.lab.alerts(), []);
        await fresh.lab.screenshot('ab-03-link-in-fresh-context');
      } finally {
        await fresh.close();
      }
      await lab.page.close();
    });

    it('mremap-2mb across three mremap_flush values: A/B of the first two, with a message saying so', async () => {
      const lab = await newLab();
      await lab.page.setViewportSize({ width: 1280, height: 720 });
      await lab.openScenario(undefined, 'v=2&sc=mremap-2mb&ab=t.mremap_flush:deferred,dirty,present&step=0');
      await lab.page.getByRole('region', { name: 'A/B comparison' }).waitFor({ timeout: 60_000 });
      const alerts = (await lab.alerts()).join('\n');
      assert.match(alerts, /compares 3 runs \(deferred, dirty, present\).*A = deferred and B = dirty/);
      const s = await readAbSteps(lab);
      assert.deepEqual([s.a, s.b], [0, 0]);
      assert.match((await lab.page.getByRole('region', { name: 'A/B comparison' }).textContent()) ?? '', /mremap_flush: .* vs /);
      await lab.screenshot('ab-04-three-values-as-two');
      await lab.page.close();
    });
  });
}
