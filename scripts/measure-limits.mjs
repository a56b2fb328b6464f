// How large a run the wasm engine prepares, and at what cost (BENCHMARKS.md, "Limits"; the
// maxima are in wasm-core/engine/src/limits.rs). Needs `npm run build:wasm` first.
//   node scripts/measure-limits.mjs pages N     a 2-node machine of N pages, one VMA of N/2 touched twice
//   node scripts/measure-limits.mjs steps N     numa-delay-map-scale with --param accesses=N
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const pkg = join(dirname(fileURLToPath(import.meta.url)), '..', 'web', 'src', 'wasm-pkg');
const wasm = await import(pkg + '/mmviz.js');
const out = await wasm.default({ module_or_path: readFileSync(pkg + '/mmviz_bg.wasm') });
const mem = () => (out.memory.buffer.byteLength / 2 ** 20).toFixed(0);
const [kind, arg] = process.argv.slice(2);

/** A scenario of a 2-node machine of `n` pages whose one thread touches both ends of a VMA of n/2 pages. */
function machineOf(n) {
  const half = Math.floor(n / 2);
  return `format = 1\nid = "big-${n}"\ntitle = "A machine of ${n} pages"\n\n[machine]\ntlb_entries = 8\n` +
    `[[machine.node]]\ncpus = [0]\nmem_pages = ${half}\n[[machine.node]]\ncpus = [1]\nmem_pages = ${half}\n\n` +
    `[[process]]\nname = "big"\n[[process.vma]]\nname = "heap"\npages = ${half}\n[[process.thread]]\ncpu = 1\n` +
    `ops = [\n  { op = "access", vma = "heap", page = 3 },\n  { op = "access", vma = "heap", page = ${half - 1}, write = true },\n]\n`;
}
let text, params = {};
if (kind === 'pages') text = machineOf(Number(arg));
else {
  text = wasm.builtinScenarios().find((b) => b.id === 'numa-delay-map-scale').text; params = { accesses: Number(arg) };
}
const t0 = performance.now();
const sim = new wasm.Simulation(text, {}, params);
while (!sim.isPrepared()) sim.prepare(1_000_000);
const t1 = performance.now();
const total = sim.summary().totalSteps;
sim.seek(Math.floor(total / 2));
sim.frame({ pteOffset: 0, pteCount: 4096, pfnCount: 4096 });
const t2 = performance.now();
console.log(`${kind} ${arg}: ${total} steps, prepare ${((t1 - t0) / 1000).toFixed(2)} s, seek+frame ${(t2 - t1).toFixed(0)} ms, wasm memory ${mem()} MiB`);
