// Records the small engine fixtures the unit tests read (web/src/engine/fixtures/):
// for numa-hint-fault-101 under both values of numa_delay_map, the active listings
// of the run, the patch registry and every (function, line) its events step through.
// Run after `npm run build:wasm`: `node scripts/record-fixtures.mjs`.
// tests/wasm-native.test.mjs fails when the checked-in fixture differs from a fresh one.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCENARIO = 'numa-hint-fault-101';

/** Where the fixture lives. */
export const fixturePath = path.join(root, 'web/src/engine/fixtures', `${SCENARIO}.listings.json`);

/** The fixture's text, recorded from an initialised wasm module. */
export function fixtureText(wasm) {
  const { text } = wasm.builtinScenarios().find((s) => s.id === SCENARIO);
  const runs = [false, true].map((delay) => {
    const sim = new wasm.Simulation(text, { numa_delay_map: delay }, {});
    const summary = sim.summary();
    const seen = new Map();
    for (const e of sim.events(0, summary.totalSteps)) seen.set(`${e.function}\n${e.line}`, [e.function, e.line]);
    sim.free();
    return { toggles: summary.toggles, listings: summary.listings, steps: [...seen.values()] };
  });
  return `${JSON.stringify({ scenario: SCENARIO, patches: wasm.patches(), runs })}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkg = path.join(root, 'web/src/wasm-pkg');
  const wasm = await import(path.join(pkg, 'mmviz.js'));
  await wasm.default({ module_or_path: readFileSync(path.join(pkg, 'mmviz_bg.wasm')) });
  writeFileSync(fixturePath, fixtureText(wasm));
  console.log(`wrote ${path.relative(root, fixturePath)}`);
}
