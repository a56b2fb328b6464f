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

/**
 * Parameters for the comparison: a long reproduction scenario runs with its `quick`
 * parameters (wasm-core/engine/src/builtin.rs: the same mechanisms in a smaller or shorter
 * run, the shape the cargo tests step through). Its numbers at full size are checked by
 * `mmviz check scenarios/`, and native against wasm at full size by `mmviz bench` and
 * `npm run bench` (BENCHMARKS.md); here native, wasm and a recorded run agree event for event.
 */
for (const { id, text, quick: params } of wasm.builtinScenarios()) {
  const paramArgs = Object.entries(params).flatMap(([k, v]) => ['--param', `${k}=${v}`]);
  for (const delay of [false, true]) {
    test(`${id} with numa_delay_map=${delay}: native and wasm counters and event hashes agree`, () => {
      const native = JSON.parse(
        execFileSync(mmviz, ['run', id, '--set', `numa_delay_map=${delay ? 'on' : 'off'}`, ...paramArgs, '--json', '--hash'], { encoding: 'utf8' }),
      );
      const headless = wasm.runCounters(text, { numa_delay_map: delay }, params);
      assert.deepEqual(headless.counters, native.counters);
      assert.equal(headless.steps, native.steps);
      assert.match(native.event_hash, /^[0-9a-f]{16}$/);
      assert.equal(wasm.eventHash(text, { numa_delay_map: delay }, params), native.event_hash);

      const sim = new wasm.Simulation(text, { numa_delay_map: delay }, params);
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
  // They are read by every unit test run: keep them small (record only the steps the tests
  // visit). They grow with the registry (every mechanism's listings ride along in the patch
  // registry and each summary): 480 KB with 4 mechanisms, 627 KB with 7, 769 KB with 8
  // (thp: four functions' listings in every summary), 917 KB once the A/B tests stepped both
  // numa-hint-fault-101 runs side by side through their first 72 steps (past where they part).
  const bytes = Object.values(fresh).reduce((n, text) => n + Buffer.byteLength(text), 0);
  assert.ok(bytes < 1000 * 1024, `the fixtures take ${Math.round(bytes / 1024)} KB; keep them under 1,000 KB`);
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

/** A frame as JSON, its typed arrays as plain arrays. */
const frameJson = (f) => JSON.stringify(f, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v));

test('a frame carries its bulk state as typed arrays, windowed on request, and says so', () => {
  const text = readFileSync(new URL('../scripts/bench-frame-64cpu.toml', import.meta.url), 'utf8');
  const sim = new wasm.Simulation(text, {}, { accesses: 5 });
  sim.seek(Math.floor(sim.summary().totalSteps / 2));
  const f = sim.frame();
  assert.ok(f.bulk.ptePid instanceof Uint16Array && f.bulk.pteVpn instanceof Uint32Array && f.bulk.pteFlags instanceof Uint8Array);
  assert.ok(f.bulk.frameMapPid instanceof Uint16Array && f.bulk.tlbCpuStart instanceof Uint32Array);
  assert.deepEqual(f.pteWindow, { total: 4096, offset: 0, count: 4096 });
  assert.deepEqual(f.frameWindow, { total: 8192, offset: 0, count: 8192 });
  assert.equal(f.bulk.pteVpn.length, 4096);
  assert.equal(f.bulk.tlbCpuStart.length, 65);
  assert.equal(f.bulk.tlbCpuStart[64], f.bulk.tlbPid.length);
  assert.equal(f.cpus[0].tlb, undefined);
  // All arrays are views on one buffer: the worker transfers one buffer per frame.
  assert.equal(new Set(Object.values(f.bulk).map((a) => a.buffer)).size, 1);
  assert.equal(f.bulk.pteVpn.byteOffset % 4, 0);
  assert.equal(f.bulk.ptePid.byteOffset % 2, 0);
  // A window: PTEs 100..149 of pid 1, frames 4096..4105.
  const w = sim.frame({ pid: 1, pteOffset: 100, pteCount: 50, pfnStart: 4096, pfnCount: 10 });
  assert.deepEqual(w.pteWindow, { total: 4096, offset: 100, count: 50 });
  assert.deepEqual(w.frameWindow, { total: 8192, offset: 4096, count: 10 });
  assert.deepEqual(Array.from(w.bulk.pteVpn), Array.from(f.bulk.pteVpn.slice(100, 150)));
  assert.deepEqual(Array.from(w.bulk.pteFlags), Array.from(f.bulk.pteFlags.slice(100, 150)));
  assert.deepEqual(Array.from(w.bulk.framePfn), Array.from({ length: 10 }, (_, i) => 4096 + i));
  // A vpn range counts as the whole of its selection.
  const start = f.bulk.pteVpn[0];
  const r = sim.frame({ vpnStart: start + 10, vpnEnd: start + 20 });
  assert.deepEqual(r.pteWindow, { total: 10, offset: 0, count: 10 });
  assert.equal(r.bulk.pteVpn[0], start + 10);
  // A count past the end shows what there is, and says so.
  assert.deepEqual(sim.frame({ pteOffset: 4000 }).pteWindow, { total: 4096, offset: 4000, count: 96 });
  // Bad windows are errors, not panics.
  const bad = [
    [{ pid: 7 }, /no such process/],
    [{ pteOffset: 5000 }, /only 4096/],
    [{ pfnStart: 9000 }, /only 8192 frames/],
    [{ vpnStart: 10, vpnEnd: 5 }, /backwards/],
    [{ pteCount: 1e9 }, /at most/],
    [{ ptes: 3 }, /has no field `ptes`/],
    [{ pteCount: 1.5 }, /frame window is/],
    [{ pteCount: -1 }, /frame window is/],
  ];
  for (const [win, re] of bad) assert.throws(() => sim.frame(win), (e) => e instanceof Error && re.test(e.message), JSON.stringify(win));
  // The simulation still works after a bad window.
  assert.equal(sim.frame().pteWindow.count, 4096);
  sim.free();
});

test('seeking backwards gives the same frame as stepping forwards', () => {
  const { text } = wasm.builtinScenarios()[0];
  const sim = new wasm.Simulation(text, {}, {});
  const total = sim.summary().totalSteps;
  const frames = [];
  for (let s = 0; s <= total; s++) {
    sim.seek(s);
    frames.push(frameJson(sim.frame()));
  }
  for (let s = total; s >= 0; s -= 7) {
    sim.seek(s);
    assert.equal(frameJson(sim.frame()), frames[s], `frame ${s}`);
  }
  sim.free();
});
