// Native and wasm builds of the engine must agree: for every built-in scenario and
// every value of numa_delay_map, the counters and the event-stream hash of
// `mmviz run --json --hash` equal those of the wasm package's headless run, and the
// counters those of a prepared Simulation stepped to its end.
// Needs `npm run build:wasm` and `cargo build -p mmviz-cli` first (scripts/test-all.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = path.join(root, 'web/src/wasm-pkg');
const mmviz = process.env.MMVIZ_BIN ?? path.join(root, 'target/debug/mmviz');

const wasm = await import(path.join(pkg, 'mmviz.js'));
await wasm.default({ module_or_path: readFileSync(path.join(pkg, 'mmviz_bg.wasm')) });

for (const { id, text } of wasm.builtinScenarios()) {
  for (const delay of [false, true]) {
    test(`${id} with numa_delay_map=${delay}: native and wasm counters and event hashes agree`, () => {
      const native = JSON.parse(
        execFileSync(mmviz, ['run', id, '--set', `numa_delay_map=${delay ? 'on' : 'off'}`, '--json', '--hash'], { encoding: 'utf8' }),
      );
      const headless = wasm.runCounters(text, { numa_delay_map: delay }, {});
      assert.deepEqual(headless.counters, native.counters);
      assert.equal(headless.steps, native.steps);
      assert.match(native.event_hash, /^[0-9a-f]{16}$/);
      assert.equal(wasm.eventHash(text, { numa_delay_map: delay }, {}), native.event_hash);

      const sim = new wasm.Simulation(text, { numa_delay_map: delay }, {});
      const total = sim.summary().totalSteps;
      assert.equal(total, native.steps);
      sim.seek(total);
      assert.deepEqual(sim.counters(), native.counters);
      sim.free();
    });
  }
}

test('the engine fixtures the unit tests read are what the engine records today', async () => {
  const { checkedInFixtures, fixtureFiles } = await import('../scripts/record-fixtures.mjs');
  const fresh = fixtureFiles(wasm);
  const have = checkedInFixtures();
  const rerecord = 'run `node scripts/record-fixtures.mjs` (after `npm run build:wasm`) and review the diff';
  assert.deepEqual(Object.keys(have).sort(), Object.keys(fresh).sort(), `the fixture files in web/src/engine/fixtures/ are not the ones recorded: ${rerecord}`);
  for (const [name, text] of Object.entries(fresh)) {
    assert.ok(have[name] === text, `web/src/engine/fixtures/${name} differs from a fresh recording from the engine: ${rerecord}`);
  }
  // They are read by every unit test run: keep them small (record only the steps the tests visit).
  const bytes = Object.values(fresh).reduce((n, text) => n + Buffer.byteLength(text), 0);
  assert.ok(bytes < 512 * 1024, `the fixtures take ${Math.round(bytes / 1024)} KB; keep them under 512 KB`);
});

test('wasm errors are real Error objects with the engine message', () => {
  assert.throws(() => new wasm.Simulation('format = 1\nid = "x"', {}, {}), (e) => e instanceof Error && /missing field|machine/.test(e.message));
  const { text } = wasm.builtinScenarios()[0];
  assert.throws(() => new wasm.Simulation(text, { numa_dleay_map: true }, {}), (e) => e instanceof Error && /unknown toggle `numa_dleay_map`/.test(e.message));
  assert.throws(() => new wasm.Simulation(text, {}, { pages: 9999 }), (e) => e instanceof Error && /out of range/.test(e.message));
  const sim = new wasm.Simulation(text, {}, {});
  const total = sim.summary().totalSteps;
  assert.throws(() => sim.seek(total + 1), (e) => e instanceof Error && /beyond the end/.test(e.message));
  assert.throws(() => sim.seek(-1), (e) => e instanceof Error && /whole number/.test(e.message));
  sim.free();
});

test('seeking backwards gives the same frame as stepping forwards', () => {
  const { text } = wasm.builtinScenarios()[0];
  const sim = new wasm.Simulation(text, {}, {});
  const total = sim.summary().totalSteps;
  const frames = [];
  for (let s = 0; s <= total; s++) {
    sim.seek(s);
    frames.push(JSON.stringify(sim.frame()));
  }
  for (let s = total; s >= 0; s -= 7) {
    sim.seek(s);
    assert.equal(JSON.stringify(sim.frame()), frames[s], `frame ${s}`);
  }
  sim.free();
});
