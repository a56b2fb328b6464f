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
  const { fixturePath, fixtureText } = await import('../scripts/record-fixtures.mjs');
  assert.equal(
    readFileSync(fixturePath, 'utf8'),
    fixtureText(wasm),
    'web/src/engine/fixtures is out of date: run `node scripts/record-fixtures.mjs` and review the diff',
  );
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
