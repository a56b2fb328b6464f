// Times the wasm build in Node (after npm run build:wasm): counters-only runs (runCounters),
// and with --seek / --frame the recorded Simulation (constructor, seek, frame()). --frame
// times seek, frame() (the header as a serde object plus the bulk typed arrays copied out
// of wasm memory) and what the worker's postMessage does with it: a structuredClone of
// the header with the arrays' buffers transferred, not copied.
//
//   node scripts/bench-wasm.mjs                       every built-in, one run each (as before)
//   node scripts/bench-wasm.mjs --scenario numa-delay-map-scale --runs 7 --native-run
//        --native-run: also runs the native CLI (mmviz bench --json) alternately with wasm,
//        and prints wasm/native; --native STEPS_PER_S gives a native figure instead
//   node scripts/bench-wasm.mjs --scenario numa-delay-map-scale --param accesses=40000 --seek
//   node scripts/bench-wasm.mjs --scenario scripts/bench-frame-64cpu.toml --frame --runs 21
//   node scripts/bench-wasm.mjs --scenario numa-delay-map-scale --diverge numa_delay_map --runs 7
//        --diverge ID: also times the lab's "first divergence" (DivergenceSearch, the toggle's
//        first value against its second, as the lab's worker runs it, in 40 ms slices) and skips
//        the counters-only runs
//
// --scenario takes a built-in id or a file; --seeks N (default 200) and --seed S (default 1)
// pick the same random steps as `mmviz bench --seek/--frame` (splitmix64). --json prints JSON.
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = path.join(root, 'web/src/wasm-pkg');
const wasm = await import(pkg + '/mmviz.js');
await wasm.default({ module_or_path: readFileSync(pkg + '/mmviz_bg.wasm') });

const opts = { scenarios: [], params: {}, runs: 1, seeks: 200, seed: 1n, seek: false, frame: false, json: false, native: null, nativeRun: false, diverge: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const next = () => {
    if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
    return argv[++i];
  };
  if (a === '--scenario') opts.scenarios.push(next());
  else if (a === '--param') {
    const [k, v] = next().split('=');
    opts.params[k] = Number(v);
  } else if (a === '--runs') opts.runs = Math.max(1, Number(next()));
  else if (a === '--seeks') opts.seeks = Number(next());
  else if (a === '--seed') opts.seed = BigInt(next());
  else if (a === '--seek') opts.seek = true;
  else if (a === '--frame') opts.frame = true;
  else if (a === '--json') opts.json = true;
  else if (a === '--native') opts.native = Number(next());
  else if (a === '--native-run') opts.nativeRun = true;
  else if (a === '--diverge') opts.diverge = next();
  else throw new Error(`unknown argument ${a}`);
}

const builtins = wasm.builtinScenarios();
function load(s) {
  const b = builtins.find((x) => x.id === s);
  if (b) return { id: b.id, text: b.text, arg: b.id };
  if (existsSync(s)) return { id: path.basename(s, '.toml'), text: readFileSync(s, 'utf8'), arg: s };
  throw new Error(`${s}: no such file or built-in`);
}
const inputs = opts.scenarios.length ? opts.scenarios.map(load) : builtins.map((b) => ({ id: b.id, text: b.text, arg: b.id }));

/** median, p95, min, max (ms or s, whatever xs holds). */
function spread(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return { median, p95: s[Math.min(n, Math.max(1, Math.ceil(n * 0.95))) - 1], min: s[0], max: s[n - 1], n };
}

/** splitmix64, as in `mmviz bench` (same seed, same steps). */
function splitmix(seed) {
  let state = BigInt.asUintN(64, seed);
  return (n) => {
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    z ^= z >> 31n;
    return n === 0 ? 0 : Number(z % BigInt(n));
  };
}

function nativeBin() {
  const dir = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
  const bin = path.join(dir, 'release/mmviz');
  if (!existsSync(bin)) throw new Error(`${bin} not found: cargo build --release -p mmviz-cli first`);
  return bin;
}

/** One native counters-only run through the CLI; its own timer (no process start-up). */
function nativeOnce(input) {
  const args = ['bench', input.arg, '--json', ...Object.entries(opts.params).map(([k, v]) => `--param=${k}=${v}`)];
  const out = JSON.parse(execFileSync(nativeBin(), args, { encoding: 'utf8' }));
  return out[0].wall_s;
}

/** Times one divergence search as the lab's worker runs it (slices of about 40 ms); returns [ms, outcome]. */
function divergeOnce(input, id) {
  const patch = wasm.patches().find((p) => p.id === id);
  if (!patch) throw new Error(`--diverge: no toggle ${id}`);
  const t0 = performance.now();
  const search = wasm.DivergenceSearch.load(input.text, { [id]: patch.values[0] }, { [id]: patch.values[1] }, opts.params);
  let budget = 20_000;
  let out = null;
  while (out === null) {
    const t = performance.now();
    out = search.advance(budget);
    const took = performance.now() - t;
    budget = Math.max(1_000, Math.min(2_000_000, Math.round(budget * Math.min(2, Math.max(0.5, took > 0 ? 40 / took : 2)))));
  }
  search.free();
  return [performance.now() - t0, out];
}

const rows = [];
for (const input of inputs) {
  const row = { scenario: input.id };
  if (opts.diverge) {
    const ms = [];
    let outcome = null;
    for (let r = 0; r < opts.runs; r++) {
      const [t, out] = divergeOnce(input, opts.diverge);
      ms.push(t);
      outcome = out;
    }
    Object.assign(row, { diverge: opts.diverge, step: outcome.step, compared: outcome.compared, ms: spread(ms) });
    if (!opts.json) {
      const s = spread(ms);
      console.log(
        `${input.id}: ${opts.diverge} first differs at step ${outcome.step} (${outcome.compared} pairs compared); found in ${s.median.toFixed(1)} ms (median of ${opts.runs}; ${s.min.toFixed(1)}-${s.max.toFixed(1)} ms)`,
      );
    }
    rows.push(row);
    continue;
  }
  const walls = [];
  const nativeWalls = [];
  let steps = 0;
  for (let r = 0; r < opts.runs; r++) {
    // Alternate native and wasm so both see the same machine load.
    if (opts.nativeRun) nativeWalls.push(nativeOnce(input));
    const t0 = performance.now();
    const res = wasm.runCounters(input.text, {}, opts.params);
    walls.push((performance.now() - t0) / 1000);
    steps = res.steps;
  }
  const w = spread(walls);
  Object.assign(row, { steps, runs: opts.runs, wall_s: w, steps_per_s: steps / w.median, steps_per_s_range: [steps / w.max, steps / w.min] });
  let native = opts.native;
  if (opts.nativeRun) {
    const nw = spread(nativeWalls);
    row.native_wall_s = nw;
    native = steps / nw.median;
    // Per-pair ratios show the spread of the ratio itself.
    row.ratio_pairs = spread(nativeWalls.map((n, i) => n / walls[i]));
  }
  if (native) {
    row.native_steps_per_s = native;
    row.wasm_over_native = row.steps_per_s / native;
  }
  if (!opts.json) {
    let line = `${input.id.padEnd(28)} ${String(steps).padStart(10)} steps  ${w.median.toFixed(4)} s  ${Math.round(steps / w.median)
      .toString()
      .padStart(10)} steps/s`;
    if (opts.runs > 1) line += `  (median of ${opts.runs}; ${w.min.toFixed(4)}-${w.max.toFixed(4)} s)`;
    console.log(line);
    if (native) {
      let r = `  wasm/native: ${row.wasm_over_native.toFixed(2)} (native ${Math.round(native)} steps/s`;
      if (row.native_wall_s) r += `, median of ${opts.runs}, ${row.native_wall_s.min.toFixed(4)}-${row.native_wall_s.max.toFixed(4)} s; per-pair ratio ${row.ratio_pairs.min.toFixed(2)}-${row.ratio_pairs.max.toFixed(2)}`;
      console.log(r + ')');
    }
  }
  if (opts.seek || opts.frame) {
    const t0 = performance.now();
    const sim = new wasm.Simulation(input.text, {}, opts.params);
    const prepareMs = performance.now() - t0;
    const total = sim.summary().totalSteps;
    const next = splitmix(opts.seed);
    row.recorded = { prepare_s: prepareMs / 1000, total_steps: total };
    if (opts.seek) {
      const times = [];
      for (let i = 0; i < opts.seeks; i++) {
        const step = next(total + 1);
        const t = performance.now();
        sim.seek(step);
        times.push(performance.now() - t);
      }
      row.recorded.seek_ms = spread(times);
    }
    if (opts.frame) {
      const seekT = [];
      const frameT = [];
      const cloneT = [];
      const allT = [];
      let sizes = null;
      for (let r = 0; r < opts.runs; r++) {
        const step = next(total + 1);
        const t = performance.now();
        sim.seek(step);
        const t1 = performance.now();
        const f = sim.frame();
        const t2 = performance.now();
        // What postMessage from the worker does (workerHost.ts): a structured clone of the
        // header, the bulk arrays' buffers transferred (web/src/engine/bulk.ts bulkBuffers).
        const buffers = [...new Set(Object.values(f.bulk).map((a) => a.buffer))].filter((b) => b.byteLength > 0);
        const moved = structuredClone(f, { transfer: buffers });
        const t3 = performance.now();
        if (moved.bulk.ptePid.length !== f.pteWindow.count) throw new Error('the transferred frame lost its PTEs');
        sizes = {
          ptes: f.pteWindow.count,
          pte_total: f.pteWindow.total,
          frames: f.frameWindow.count,
          frame_total: f.frameWindow.total,
          tlb_entries: moved.bulk.tlbPid.length,
          bulk_bytes: Object.values(moved.bulk).reduce((n, a) => n + a.byteLength, 0),
        };
        seekT.push(t1 - t);
        frameT.push(t2 - t1);
        cloneT.push(t3 - t2);
        allT.push(t3 - t);
      }
      row.recorded.frame = { ...sizes, seek_ms: spread(seekT), frame_ms: spread(frameT), transfer_ms: spread(cloneT), total_ms: spread(allT) };
    }
    sim.free();
    if (!opts.json) {
      const rec = row.recorded;
      console.log(`  prepared (recorded) in ${rec.prepare_s.toFixed(3)} s`);
      if (rec.seek_ms) {
        const s = rec.seek_ms;
        console.log(`  seek (${opts.seeks} random steps, seed ${opts.seed}): median ${s.median.toFixed(3)} ms, p95 ${s.p95.toFixed(3)} ms, max ${s.max.toFixed(3)} ms`);
      }
      if (rec.frame) {
        const f = rec.frame;
        console.log(
          `  frame (${f.ptes} of ${f.pte_total} PTEs, ${f.frames} of ${f.frame_total} frames, ${f.tlb_entries} TLB entries; ${f.bulk_bytes} bytes of arrays), median of ${opts.runs}: ` +
            `seek ${f.seek_ms.median.toFixed(3)} ms + frame() ${f.frame_ms.median.toFixed(3)} ms + structuredClone with transfer ${f.transfer_ms.median.toFixed(3)} ms = ` +
            `${f.total_ms.median.toFixed(3)} ms (max ${f.total_ms.max.toFixed(3)} ms)`,
        );
      }
    }
  }
  rows.push(row);
}
if (opts.json) console.log(JSON.stringify(rows, null, 2));
