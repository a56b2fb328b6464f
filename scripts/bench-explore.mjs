// Times the interleaving explorer in WebAssembly (the lab's Explore view runs the same
// `explore()` in a worker): each explorable built-in at the budgets the view offers.
//   node scripts/bench-explore.mjs [--budgets 2000,20000] [--scenario ID]
// Needs the wasm package (`bash scripts/build-wasm.sh`). Prints one line per search.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..', 'web', 'src', 'wasm-pkg');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const budgets = arg('budgets', '2000,20000').split(',').map(Number);
const only = arg('scenario', null);

const wasm = await import(join(pkg, 'mmviz.js'));
await wasm.default({ module_or_path: readFileSync(join(pkg, 'mmviz_bg.wasm')) });
for (const s of wasm.builtinScenarios()) {
  if (!s.explore || (only && s.id !== only)) continue;
  for (const budget of budgets) {
    const started = performance.now();
    const report = wasm.explore(s.text, {}, {}, s.explore.toggle ?? undefined, budget);
    const seconds = (performance.now() - started) / 1000;
    const values = report.values.map((v) => `${v.value}: ${v.exhaustive ? 'exhaustive' : 'cut'}, ${v.schedules} schedules, ${v.outcomes.length} outcomes, ${v.outcomes.filter((o) => o.bad).length} bad`);
    console.log(`${s.id} --budget ${budget}: ${seconds.toFixed(2)} s (${values.join('; ')})`);
  }
}
