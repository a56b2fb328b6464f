// Keeps web/src/share/scenarioArchive.json: the text of every version of every built-in scenario
// that mmviz has shipped, by the hash a link carries (`h=`, FNV-1a of the text). A link made
// when a built-in read differently opens the version it names (the lab loads this file only
// then, as a chunk of its own), so a link never silently shows another scenario.
//
//   node scripts/scenario-archive.mjs            adds the current scenarios/*.toml (run it
//                                                after changing a scenario: tests/scenario-archive.test.mjs
//                                                fails until every current text is archived)
//   node scripts/scenario-archive.mjs --history  also adds every version in the git history
//   node scripts/scenario-archive.mjs --check    exits 1 if a current text is missing (what the test checks)
//
// Stored per scenario id: { hash: { date, text } }, newest first; entries are never removed. The
// texts are stored as they are: versions of one scenario share most of their lines, so the file
// compresses to about a tenth on the wire (1.07 MB, 84 KB gzip for 112 versions, 2026-11-27).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the archive lives. */
export const ARCHIVE = path.join(root, 'web/src/share/scenarioArchive.json');
const SCENARIOS = path.join(root, 'scenarios');
const GENERATED = 'Written by `node scripts/scenario-archive.mjs`; do not edit. Every shipped version of every built-in scenario, by the hash links carry.';

/** FNV-1a 32-bit over UTF-16 code units, 8 hex digits: the lab's fnv1a32Hex (web/src/base/hash.ts). */
export function fnv1a32Hex(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** The current built-in scenarios: id -> text. */
export function currentScenarios() {
  const out = {};
  for (const f of readdirSync(SCENARIOS).filter((x) => x.endsWith('.toml')).sort()) {
    out[f.slice(0, -'.toml'.length)] = readFileSync(path.join(SCENARIOS, f), 'utf8');
  }
  return out;
}

/** The archive as stored: { _generated, scenarios: { id: { hash: { date, text } } } }. */
export function readArchive() {
  try {
    return JSON.parse(readFileSync(ARCHIVE, 'utf8'));
  } catch {
    return { _generated: GENERATED, scenarios: {} };
  }
}

/** The texts of every archived version: id -> hash -> text. */
export function archivedTexts(archive = readArchive()) {
  const out = {};
  for (const [id, versions] of Object.entries(archive.scenarios ?? {})) {
    out[id] = {};
    for (const [hash, v] of Object.entries(versions)) out[id][hash] = v.text;
  }
  return out;
}

/** Current scenarios whose text is not in the archive (ids). */
export function missing(archive = readArchive()) {
  const texts = archivedTexts(archive);
  return Object.entries(currentScenarios())
    .filter(([id, text]) => texts[id]?.[fnv1a32Hex(text)] !== text)
    .map(([id]) => id);
}

/** Every version of scenarios/*.toml in the git history: [id, text, date]. */
function historyVersions() {
  const out = [];
  const log = execFileSync('git', ['log', '--format=%H %cs', '--', 'scenarios/'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
  for (const line of log) {
    const [commit, date] = line.split(' ');
    const files = execFileSync('git', ['ls-tree', '--name-only', `${commit}:scenarios`], { cwd: root, encoding: 'utf8' }).trim().split('\n');
    for (const f of files.filter((x) => x.endsWith('.toml'))) {
      const text = execFileSync('git', ['show', `${commit}:scenarios/${f}`], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
      out.push([f.slice(0, -'.toml'.length), text, date]);
    }
  }
  return out;
}

function add(archive, id, text, date) {
  // A file committed empty on its way in was never a scenario anyone could link to.
  if (text.trim() === '') return false;
  archive.scenarios[id] ??= {};
  const hash = fnv1a32Hex(text);
  const have = archive.scenarios[id][hash];
  if (have) {
    // Keep the earliest date a version was seen.
    if (date < have.date) have.date = date;
    return false;
  }
  archive.scenarios[id][hash] = { date, text };
  return true;
}

function write(archive) {
  // Newest first per scenario, scenarios by id: a stable file.
  const scenarios = {};
  for (const id of Object.keys(archive.scenarios).sort()) {
    const entries = Object.entries(archive.scenarios[id]).sort(([ha, a], [hb, b]) => (a.date === b.date ? (ha < hb ? -1 : 1) : a.date < b.date ? 1 : -1));
    scenarios[id] = Object.fromEntries(entries);
  }
  writeFileSync(ARCHIVE, `${JSON.stringify({ _generated: GENERATED, scenarios }, null, 1)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--check')) {
    const m = missing();
    if (m.length > 0) {
      console.error(`scenario-archive: not archived yet: ${m.join(', ')} (run \`node scripts/scenario-archive.mjs\`)`);
      process.exit(1);
    }
    console.log('scenario-archive: every built-in scenario is archived');
    process.exit(0);
  }
  const archive = readArchive();
  archive.scenarios ??= {};
  let added = 0;
  if (args.includes('--history')) for (const [id, text, date] of historyVersions()) added += add(archive, id, text, date) ? 1 : 0;
  const today = new Date().toISOString().slice(0, 10);
  for (const [id, text] of Object.entries(currentScenarios())) added += add(archive, id, text, today) ? 1 : 0;
  write(archive);
  const versions = Object.values(archive.scenarios).reduce((n, v) => n + Object.keys(v).length, 0);
  console.log(`scenario-archive: ${added} version(s) added; ${versions} versions of ${Object.keys(archive.scenarios).length} scenarios in web/src/share/scenarioArchive.json`);
}
