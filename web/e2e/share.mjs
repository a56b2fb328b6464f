// End-to-end tests of sharing: links to older versions of a built-in scenario, links the CLI
// prints (`mmviz ... --link`), a bad link kept in the address bar, the build's offline cache.
// Registered by run.mjs, which owns the browser and the server.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { archivedTexts, currentScenarios, fnv1a32Hex } from '../../scripts/scenario-archive.mjs';
import { readAbSteps } from './ab.mjs';

/** Every file under `dir`, relative to it, with '/' separators. */
function filesUnder(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out;
}

/**
 * Registers the sharing suite. `wasm` is the engine's wasm package in Node (the oracle);
 * `freshLab()` opens a page in a new browser context and returns { lab, context, close };
 * `mmvizBin` is the CLI binary (or null when it is not built); `distDir` the built site.
 */
export function shareSuite(opts) {
  const { newLab, freshLab, wasm, mmvizBin, distDir } = opts;
  describe('sharing', () => {
    it('a link to an older version of a built-in opens that version and says so', async () => {
      // An archived version of a teaching scenario that the engine still runs.
      const current = currentScenarios();
      const archived = archivedTexts();
      let pick = null;
      for (const [id, byHash] of Object.entries(archived)) {
        if (!id.endsWith('-101') || !current[id]) continue;
        for (const [hash, text] of Object.entries(byHash)) {
          if (hash === fnv1a32Hex(current[id])) continue;
          try {
            wasm.Simulation.load(text, {}, {}).free();
            pick = { id, hash };
            break;
          } catch {
            // This version no longer parses: the lab would say so instead.
          }
        }
        if (pick) break;
      }
      assert.ok(pick, 'an older, still runnable version of some *-101 scenario is archived');
      const lab = await newLab();
      await lab.openScenario(undefined, `v=2&sc=${pick.id}&h=${pick.hash}&step=3`);
      await lab.waitForStep(3, 30_000);
      const alerts = (await lab.alerts()).join('\n');
      assert.match(alerts, new RegExp(`made when the scenario "${pick.id}" read differently, so it shows that version \\(of \\d{4}-\\d{2}-\\d{2}\\)`));
      // The link keeps naming that version.
      await lab.page.waitForFunction((h) => location.hash.includes(`h=${h}`), pick.hash);
      await lab.screenshot('share-01-older-version');
      // One click opens the current version instead.
      await lab.page.getByRole('button', { name: 'Open the current version' }).click();
      await lab.page.waitForFunction((h) => /[#&]h=[0-9a-f]{8}/.test(location.hash) && !location.hash.includes(`h=${h}`), pick.hash);
      await lab.page.close();
    });

    it('a link mmviz compare --link prints opens the same two runs side by side', { skip: mmvizBin && existsSync(mmvizBin) ? false : 'the CLI is not built' }, async () => {
      // The server's address is known once the suite runs (run.mjs starts it before the tests).
      const baseUrl = opts.baseUrl;
      const out = execFileSync(mmvizBin, ['compare', 'numa-hint-fault-101', '--toggle', 'numa_delay_map', '--link', '--base', baseUrl, '--json'], { encoding: 'utf8' });
      const printed = JSON.parse(out);
      assert.equal(printed.links.length, 1);
      const link = printed.links[0];
      assert.ok(link.startsWith(baseUrl), link);
      const lab = await newLab();
      await lab.openLink(link);
      await lab.page.getByRole('region', { name: 'A/B comparison' }).waitFor({ timeout: 60_000 });
      const s = await readAbSteps(lab);
      assert.deepEqual([s.a, s.b], [0, 0]);
      // The runs are the CLI's: the counters at the end are the ones it printed.
      await lab.pressTransportKey('End');
      await lab.page.waitForFunction(([a, b]) => (document.querySelector('output[aria-label="Step readout"]')?.textContent ?? '').replace(/,/g, '').includes(`A step ${a} / ${a} · B step ${b} / ${b}`), [s.totalA, s.totalB]);
      const table = lab.page.getByRole('table', { name: 'Counters of run A and run B' });
      const row = table.getByRole('row').filter({ has: lab.page.getByRole('rowheader', { name: 'nr_tlb_remote_flush_received', exact: true }) });
      const cells = (await row.getByRole('cell').allTextContents()).map((t) => t.replace(/,/g, ''));
      assert.deepEqual(cells.slice(0, 2), [String(printed.runs[0].counters.nr_tlb_remote_flush_received), String(printed.runs[1].counters.nr_tlb_remote_flush_received)]);
      assert.deepEqual(await lab.alerts(), []);
      await lab.page.close();
    });

    it('a link that cannot be read stays in the address bar beside its message; the lab stays usable', async () => {
      const lab = await newLab();
      const bad = 'v=2&sc=numa-hint-fault-101&ab=t.numa_delay_map:false&step=2';
      await lab.openScenario(undefined, bad);
      assert.match((await lab.alerts()).join('\n'), /This link could not be read: .*does not name two runs/);
      await lab.page.waitForTimeout(600);
      assert.equal(new URL(lab.page.url()).hash, `#${bad}`);
      await lab.stepForward();
      await lab.page.waitForFunction(() => /[#&]step=1(&|$)/.test(location.hash));
      await lab.page.close();
    });

    it('the built site lists every file in its offline cache, and works from any path', () => {
      const sw = readFileSync(join(distDir, 'sw.js'), 'utf8');
      const assets = JSON.parse(/const ASSETS = (\[.*\]);/.exec(sw)?.[1] ?? '[]');
      const files = filesUnder(distDir).filter((f) => f !== 'sw.js');
      for (const f of files) assert.ok(assets.includes(`./${f}`), `sw.js caches ${f}`);
      assert.ok(assets.includes('./'), 'and the page itself');
      assert.ok(files.some((f) => f.endsWith('.wasm')), 'the wasm module is one of the files');
      // Relative URLs only: the same files work at https://host/ and at https://host/some/path/.
      const html = readFileSync(join(distDir, 'index.html'), 'utf8');
      assert.doesNotMatch(html, /(src|href)="\/(?!\/)/);
    });

    it('after the first load, the lab opens and runs a scenario with the network off', async () => {
      const { lab, context, close } = await freshLab();
      try {
        await lab.openScenario();
        // The service worker caches the build and takes the page over.
        await lab.page.waitForFunction(() => navigator.serviceWorker?.controller !== null && navigator.serviceWorker?.controller !== undefined, null, { timeout: 60_000 });
        await context.setOffline(true);
        await lab.page.reload();
        await lab.readout().waitFor({ timeout: 60_000 });
        await lab.stepForward();
        await lab.openBuiltin('pcp-101', 60_000);
        await lab.stepForward();
        assert.deepEqual(await lab.alerts(), []);
        await lab.page.getByRole('button', { name: 'About mmviz', exact: true }).click();
        const about = lab.page.getByRole('dialog', { name: 'About mmviz' });
        assert.match((await about.textContent()) ?? '', /Works offline\s*yes/);
        await lab.screenshot('share-02-offline-about');
        await about.getByRole('button', { name: 'Close' }).click();
      } finally {
        await context.setOffline(false).catch(() => {});
        await close();
      }
    });
  });
}
