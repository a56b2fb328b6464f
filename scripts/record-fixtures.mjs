// Records the engine fixtures the unit tests read (web/src/engine/fixtures/), from the real
// wasm engine. Run after `npm run build:wasm`: `node scripts/record-fixtures.mjs`.
// tests/wasm-native.test.mjs fails when a checked-in fixture differs from a fresh recording.
//
// - numa-hint-fault-101.listings.json: for numa-hint-fault-101 under both values of
//   numa_delay_map, the active listings of the run, the patch registry and every
//   (function, line) its events step through (listing.test.ts).
// - engine.json: the patch registry, the built-in scenarios the fixture engine offers, the
//   mechanisms' metadata (`mechanisms()`), the summaries `describe` gives, the engine's error messages for a few bad requests and the
//   listings of the summaries.
//   engine.json's `bulkLayout` is how the wasm layer lays a frame's bulk arrays out in their
//   one ArrayBuffer ([name, typed-array type] in buffer order); the fixture engine checks it
//   against bulk.ts's FrameBulk / BULK_LAYOUT and rebuilds every frame's bulk with it.
// - engine.json's `divergences`: where pairs of runs first differ (DIVERGENCES below), as the
//   engine's DivergenceSearch found it.
// - runs/*.json: a few prepared runs (RUNS below): summary, series, progress marks, every event, the cause
//   chain of every event (as steps) and the frames at the steps the unit tests visit only.
//   Frames are recorded with the engine's default window only (`frame()` without one): the
//   fixture engine refuses any other window.
// Stored without repeats, losslessly: a frame keeps only the header fields that differ from
// the previous frame kept and never its event (the run's event `step - 1`); its `bulk`
// keeps only the arrays that differ, each as a plain array of its numbers (their types are
// the layout's); a summary's `listings` is an index into engine.json's `listings`; a
// scenario is a built-in's id or its text.
// web/src/engine/fixtureEngine.ts serves them behind the SimEngine interface.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCENARIO = 'numa-hint-fault-101';
const fixturesDir = path.join(root, 'web/src/engine/fixtures');

/** Where the listings fixture lives. */
export const fixturePath = path.join(fixturesDir, `${SCENARIO}.listings.json`);

const GENERATED = 'Recorded from the real engine by `node scripts/record-fixtures.mjs` (after `npm run build:wasm`); do not edit.';

/** The built-in scenarios the fixture engine offers, in the engine's order. */
const BUILTINS = ['numa-hint-fault-101', 'rmap-101'];

const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A custom scenario (a link's text): numa-hint-fault-101 renamed, 2 pages by default. */
function customText(wasm) {
  const { text } = wasm.builtinScenarios().find((s) => s.id === SCENARIO);
  return text
    .replace(/^id = ".*"$/m, 'id = "mine"')
    .replace(/^title = ".*"$/m, 'title = "Mine ✓"')
    .replace('default = 4', 'default = 2');
}

/** A custom scenario whose only thread runs out of memory: a 64-page heap on a 16-page node (the summary carries a warning). */
const OOM_TEXT = `format = 1
id = "too-small"
title = "Too small"
[machine]
[[machine.node]]
cpus = [0]
mem_pages = 16
[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = 64
[[process.thread]]
cpu = 0
ops = [{ op = "touch", vma = "heap" }]
`;

/**
 * The recorded runs: a scenario (built-in id or custom text), the toggles and params asked
 * for, and the steps whose frames are kept (negative: from the end, -1 is the last step).
 */
const RUNS = [
  // Both kernels' first 72 steps (the A/B tests step them side by side past where they part, step 38, and past step 65, where v5.13 has finished the next access and waits for v5.12).
  { name: 'hint-101', scenario: SCENARIO, toggles: {}, params: {}, frames: [...range(0, 72), -4, -3, -2, -1] },
  { name: 'hint-101-delay-off', scenario: SCENARIO, toggles: { numa_delay_map: false }, params: {}, frames: [...range(0, 72), 161, -1] },
  { name: 'hint-101-pages-2', scenario: SCENARIO, toggles: {}, params: { pages: 2 }, frames: [0, 1, 7, -1] },
  { name: 'rmap-101', scenario: 'rmap-101', toggles: {}, params: {}, frames: [...range(0, 4), -1] },
  { name: 'custom', scenario: { custom: true }, toggles: {}, params: {}, frames: [0, 3] },
  { name: 'oom', scenario: { text: OOM_TEXT }, toggles: {}, params: {}, frames: [0, -1] },
];

/** Pairs of runs whose first divergence is recorded (the fixture engine's firstDivergence). */
const DIVERGENCES = [
  { scenario: SCENARIO, togglesA: { numa_delay_map: false }, togglesB: { numa_delay_map: true }, params: {} },
  { scenario: SCENARIO, togglesA: { numa_delay_map: true }, togglesB: { numa_delay_map: false }, params: {} },
  { scenario: SCENARIO, togglesA: {}, togglesB: {}, params: {} },
];

/** Requests the engine refuses, with the message it gives. */
const ERRORS = [
  { scenario: { text: 'format = 1\nid = "broken"\nwhat = 1\n' }, toggles: {}, params: {} },
  { scenario: SCENARIO, toggles: { nope: true }, params: {} },
  { scenario: SCENARIO, toggles: { numa_delay_map: 'maybe' }, params: {} },
  { scenario: SCENARIO, toggles: {}, params: { pages: 99 } },
  { scenario: SCENARIO, toggles: {}, params: { nope: 1 } },
];

function textOf(wasm, scenario) {
  if (typeof scenario === 'string') return wasm.builtinScenarios().find((s) => s.id === scenario).text;
  if (scenario.custom) return customText(wasm);
  return scenario.text;
}

/** The listings fixture's text, recorded from an initialised wasm module. */
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

/**
 * The layout of a frame's bulk arrays as the wasm layer made them: [name, type] in buffer
 * order. Checks that they are views on one buffer, back to back, covering all of it (so a
 * rebuild from the layout gives the same bytes at the same offsets).
 */
function bulkLayoutOf(bulk, where) {
  const arrays = Object.entries(bulk);
  const buffer = arrays[0]?.[1].buffer;
  let offset = 0;
  for (const [name, a] of arrays) {
    if (!ArrayBuffer.isView(a) || a.buffer !== buffer) throw new Error(`${where}: bulk.${name} is not a view on the one buffer of the frame`);
    if (a.byteOffset !== offset) throw new Error(`${where}: bulk.${name} starts at byte ${a.byteOffset}, not ${offset} (right after the array before it)`);
    offset += a.byteLength;
  }
  if (offset !== buffer.byteLength) throw new Error(`${where}: the bulk arrays cover ${offset} of their buffer's ${buffer.byteLength} bytes`);
  return arrays.map(([name, a]) => [name, a.constructor.name]);
}

/** The layout every recorded frame has (checked to be one). */
let bulkLayout = null;

function recordRun(wasm, spec) {
  const text = textOf(wasm, spec.scenario);
  const sim = new wasm.Simulation(text, spec.toggles, spec.params);
  const summary = sim.summary();
  const total = summary.totalSteps;
  const events = sim.events(0, total);
  const causeChains = events.map((e) => {
    const chain = sim.causeChain(e.step);
    for (const c of chain) {
      if (!isDeepStrictEqual(c, events[c.step])) throw new Error(`${spec.name}: the cause chain of ${e.step} has an event unlike events()[${c.step}]`);
    }
    return chain.map((c) => c.step);
  });
  const steps = [...new Set(spec.frames.map((s) => (s < 0 ? total + 1 + s : s)))].filter((s) => s >= 0 && s <= total).sort((a, b) => a - b);
  const frames = [];
  let prev = null;
  for (const step of steps) {
    sim.seek(step);
    const frame = sim.frame();
    const expected = step === 0 ? null : events[step - 1];
    if (!isDeepStrictEqual(frame.event, expected)) throw new Error(`${spec.name}: the event of frame ${step} is not events()[${step - 1}]`);
    const layout = bulkLayoutOf(frame.bulk, `${spec.name} frame ${step}`);
    if (bulkLayout === null) bulkLayout = layout;
    else if (!isDeepStrictEqual(layout, bulkLayout)) throw new Error(`${spec.name} frame ${step}: the bulk layout ${JSON.stringify(layout)} is not ${JSON.stringify(bulkLayout)}`);
    const plain = { ...frame, bulk: Object.fromEntries(Object.entries(frame.bulk).map(([k, a]) => [k, Array.from(a)])) };
    // Only the fields that differ from the previous frame kept (and never the event); of the bulk, only the arrays that differ.
    const kept = { step };
    for (const [k, v] of Object.entries(plain)) {
      if (k === 'event' || (prev !== null && isDeepStrictEqual(prev[k], v))) continue;
      if (k === 'bulk' && prev !== null) kept.bulk = Object.fromEntries(Object.entries(v).filter(([name, a]) => !isDeepStrictEqual(prev.bulk[name], a)));
      else kept[k] = v;
    }
    frames.push(kept);
    prev = plain;
  }
  const series = sim.series();
  const marks = Array.from(sim.progressMarks());
  const seekError = messageOf(() => sim.seek(total + 1));
  sim.free();
  const scenario = typeof spec.scenario === 'string' ? { builtin: spec.scenario } : { text };
  return { _generated: GENERATED, name: spec.name, scenario, toggles: spec.toggles, params: spec.params, summary: shareListings(summary), series, marks, events, causeChains, frames, seekError };
}

/** The listings of every summary, each set kept once in engine.json: a summary names its set by index. */
let listingSets = [];
function shareListings(summary) {
  let i = listingSets.findIndex((l) => isDeepStrictEqual(l, summary.listings));
  if (i < 0) i = listingSets.push(summary.listings) - 1;
  return { ...summary, listings: i };
}

function messageOf(fn) {
  try {
    fn();
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  throw new Error('expected the engine to refuse');
}

/** Every fixture file (path relative to fixtures/ -> text), recorded from an initialised wasm module. */
export function fixtureFiles(wasm) {
  listingSets = [];
  bulkLayout = null;
  const files = { [path.basename(fixturePath)]: fixtureText(wasm) };
  const describes = [];
  for (const spec of RUNS) {
    const run = recordRun(wasm, spec);
    files[`runs/${spec.name}.json`] = `${JSON.stringify(run)}\n`;
    const text = textOf(wasm, spec.scenario);
    if (!describes.some((d) => d.text === text && isDeepStrictEqual(d.params, spec.params))) {
      const sim = wasm.Simulation.load(text, {}, spec.params);
      const scenario = typeof spec.scenario === 'string' ? { builtin: spec.scenario } : { text };
      describes.push({ text, scenario, params: spec.params, summary: shareListings(sim.summary()) });
      sim.free();
    }
  }
  const errors = ERRORS.map((spec) => {
    const text = textOf(wasm, spec.scenario);
    const message = messageOf(() => new wasm.Simulation(text, spec.toggles, spec.params));
    const describe = Object.keys(spec.toggles).length === 0 ? messageOf(() => wasm.Simulation.load(text, {}, spec.params)) : null;
    const scenario = typeof spec.scenario === 'string' ? { builtin: spec.scenario } : { text };
    return { scenario, toggles: spec.toggles, params: spec.params, message, describe };
  });
  const divergences = DIVERGENCES.map((spec) => {
    const search = wasm.DivergenceSearch.load(textOf(wasm, spec.scenario), spec.togglesA, spec.togglesB, spec.params);
    let result = null;
    while (result === null) result = search.advance(100_000);
    search.free();
    const scenario = typeof spec.scenario === 'string' ? { builtin: spec.scenario } : { text: textOf(wasm, spec.scenario) };
    return { scenario, togglesA: spec.togglesA, togglesB: spec.togglesB, params: spec.params, result };
  });
  const builtins = wasm.builtinScenarios().filter((s) => BUILTINS.includes(s.id));
  const describeFixtures = describes.map(({ scenario, params, summary }) => ({ scenario, params, summary }));
  const engine = { _generated: GENERATED, patches: wasm.patches(), builtins, mechanisms: wasm.mechanisms(), describes: describeFixtures, errors, divergences, listings: listingSets, bulkLayout };
  files['engine.json'] = `${JSON.stringify(engine)}\n`;
  return files;
}

/** Every fixture file now checked in (path relative to fixtures/ -> text). */
export function checkedInFixtures() {
  const out = {};
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.json')) out[path.relative(fixturesDir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(fixturesDir);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkg = path.join(root, 'web/src/wasm-pkg');
  const wasm = await import(path.join(pkg, 'mmviz.js'));
  await wasm.default({ module_or_path: readFileSync(path.join(pkg, 'mmviz_bg.wasm')) });
  const files = fixtureFiles(wasm);
  rmSync(path.join(fixturesDir, 'runs'), { recursive: true, force: true });
  let bytes = 0;
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(fixturesDir, name)), { recursive: true });
    writeFileSync(path.join(fixturesDir, name), text);
    bytes += Buffer.byteLength(text);
    console.log(`wrote web/src/engine/fixtures/${name} (${Math.round(Buffer.byteLength(text) / 1024)} KB)`);
  }
  console.log(`${Object.keys(files).length} fixtures, ${Math.round(bytes / 1024)} KB`);
}
