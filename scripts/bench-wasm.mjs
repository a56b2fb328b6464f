import { readFileSync } from 'node:fs';
// Times the wasm build's headless runs of every built-in scenario (after npm run build:wasm).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web/src/wasm-pkg');
const wasm = await import(pkg + '/mmviz.js');
await wasm.default({ module_or_path: readFileSync(pkg + '/mmviz_bg.wasm') });
for (const { id, text } of wasm.builtinScenarios()) {
  const t0 = performance.now(); const r = wasm.runCounters(text, {}, {}); const dt = (performance.now() - t0) / 1000;
  console.log(id, r.steps, dt.toFixed(4), 's', Math.round(r.steps / dt), 'steps/s');
}
