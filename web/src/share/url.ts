// The shareable part of the app state <-> the URL fragment (pure functions).
//
// Format v2 (fragment, `&`-separated, values percent-encoded):
//   v=2                      format version (required; v=1 links are upgraded by code)
//   sc=<id>&h=<hash8>        built-in scenario id + FNV-1a hash of its text, or
//   s=<lz-string>            custom scenario text (compressToEncodedURIComponent)
//   t.<toggle>=<value>       toggles that differ from the scenario's defaults (true/false or enum value)
//   p.<param>=<number>       params that differ from their defaults
//   seed=<n>                 the run's seed, when it is not the scenario's own (a sweep's run)
//   sched=<STEP:CPU,...>     the run's schedule (optional): at global step STEP, CPU CPU acts
//                            where the default order (by simulated time) would pick another;
//                            both lanes of an A/B comparison follow it (the Explore view's runs)
//   step=<n>                 step shown (0 when absent); A's step in an A/B comparison
//   sel=<panel>:<object>     selected object, e.g. machine:pfn-12
//   ab=<what>:<A>,<B>        an A/B comparison (optional): t.<toggle>:<a>,<b> (the toggle's
//                            values), k:<vA>,<vB> (kernels) or p:<mech/preset>,<mech/preset>
//   bstep=<n>                B's step in an A/B comparison (A's partner at `step` when absent)
//   pc=<counter>,<counter>   the counters plotted (the run's defaults when absent)
//   rate=1                   plots show rates per µs
//   lecture=1|intro          lecture mode (optional), at `step`, or on its first slide (the
//                            scenario's description and parameters)
//   embed=1                  embed mode (optional; `?embed` in the query says the same)
//   from=<n>&to=<n>          the steps an embed shows (optional): the transport stays within them
// v1 (2026-11-22 to 2026-11-27) had v, sc, h, s, t.*, p.*, step and sel, with the same meanings.
// v2 added ab, bstep, pc, rate, seed, lecture, embed, from and to; sched came within v2
// (2026-11-28: an optional key, which a lab from before reads as an unknown part and ignores,
// saying so).
// A toggle id the engine renamed (RENAMED_TOGGLES) is read as its successor, in t.* and ab=,
// with the value meaning the same (mremap_latency_limit=true is mremap_pmd_extents=false).
// Everything read from a URL is validated here (zod) and is only ever used as data.
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from 'lz-string';
import { group, MAX_LINK_CHARS, MAX_SCENARIO_BYTES, sizeProblem } from '../base/limits';
import { decompressedLength } from './lzLength';
import { z } from 'zod';
import type { ToggleValue } from '../engine/types';

/** Current URL format version. */
export const URL_FORMAT_VERSION = 2;

/** Largest fragment we try to read (the engine's limits.rs MAX_LINK_CHARS). */
export const MAX_FRAGMENT_CHARS = MAX_LINK_CHARS;

/**
 * Which scenario a link opens, at which seed when not at the scenario's own (`seed=`), and
 * under which schedule when not the default order (`sched=`, the engine's `STEP:CPU,...` text).
 */
export type ScenarioRef = ({ kind: 'builtin'; id: string; hash: string | null } | { kind: 'custom'; text: string }) & { seed?: number; schedule?: string };

/** Longest `sched=` value read (the engine holds at most 4096 picks of a few characters each). */
export const MAX_SCHEDULE_CHARS = 60_000;

/** Panels that can hold a selection. */
export const PANELS = ['machine', 'pagetable', 'code', 'counters', 'chapters'] as const;
/** A panel id. */
export type PanelId = (typeof PANELS)[number];

/** A selected object in a panel, e.g. { panel: 'machine', object: 'pfn-12' }. */
export interface Selection {
  panel: PanelId;
  object: string;
}

/**
 * What an A/B comparison compares: the same scenario with one toggle's two values, two kernel
 * versions (each one's toggles on top of A's others) or two named presets (`mechanism/name`).
 */
export type AbChoice =
  | { kind: 'toggle'; id: string; a: ToggleValue; b: ToggleValue }
  | { kind: 'kernel'; a: string; b: string }
  | { kind: 'preset'; a: string; b: string };

/** The shareable state: exactly what a link restores. */
export interface ShareState {
  scenario: ScenarioRef;
  toggles: Record<string, ToggleValue>;
  params: Record<string, number>;
  step: number;
  selection: Selection | null;
  /** The A/B comparison, or null for one run. */
  ab?: AbChoice | null;
  /** B's step in the comparison (null: A's partner at `step`). */
  bStep?: number | null;
  /** The plots' layout: the counters chosen (null: the run's defaults) and whether they show rates. */
  plots?: PlotLayout;
  /** Lecture mode: on at `step`, or on its first slide; null or absent: off. */
  lecture?: LectureMode | null;
  /** Embed mode (minimal chrome, no history entries). */
  embed?: boolean;
  /** The steps an embed shows, inclusive (A's steps); null or absent: the whole run. */
  range?: StepRange | null;
}

/** Lecture mode: on at the step, or on its first slide (the scenario's description and parameters). */
export type LectureMode = 'on' | 'intro';

/** Steps `from..=to`. */
export interface StepRange {
  from: number;
  to: number;
}

/** What the Plots panel shows: the counters chosen (null: the run's defaults) and rates or counts. */
export interface PlotLayout {
  counters: string[] | null;
  rate: boolean;
}

/** Result of reading a fragment: state (null for an empty fragment) plus non-fatal warnings, or an error. */
export type UrlReadResult = { ok: true; state: ShareState | null; warnings: string[] } | { ok: false; error: string };

/**
 * Toggle ids the engine replaced (wasm-core/engine/src/patches.rs `RENAMED`: an id never
 * changes meaning, so a toggle whose `on` was not "the patch applied" got a new one). Links
 * made before keep opening what they opened: the old id is read as the new one, its value
 * inverted where `inverted` says so.
 */
export const RENAMED_TOGGLES: Readonly<Record<string, { id: string; inverted: boolean }>> = {
  // on = before 37a4094e828f (LATENCY_LIMIT's 64-page extents); the new id's on is v4.18's.
  mremap_latency_limit: { id: 'mremap_pmd_extents', inverted: true },
};

const ON_TEXTS = ['true', 'on', '1', 'yes'];
const OFF_TEXTS = ['false', 'off', '0', 'no'];

/** A renamed toggle's value (as text, in the old id's meaning) in the new id's meaning; throws if it is not on/off. */
function renamedValue(oldId: string, value: string): string {
  const to = RENAMED_TOGGLES[oldId]!;
  const on = ON_TEXTS.includes(value) ? true : OFF_TEXTS.includes(value) ? false : null;
  if (on === null) throw new Error(`the value ${quoteForMessage(value)} of toggle "${oldId}" is not on/off`);
  return String(to.inverted ? !on : on);
}

/**
 * Rewrites a link's renamed toggle ids to today's (t.<id> keys and ab=t.<id>:A,B), keeping
 * each value's meaning. Used by the v1 -> v2 upgrader and when reading v2; throws Error with
 * a readable message when a link names both an old id and its successor.
 */
export function renameToggles(pairs: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of pairs) {
    const to = key.startsWith('t.') ? RENAMED_TOGGLES[key.slice(2)] : undefined;
    if (to === undefined) {
      out.set(key, value);
      continue;
    }
    const newKey = `t.${to.id}`;
    if (pairs.has(newKey)) throw new Error(`it names toggle "${key.slice(2)}" and its new name "${to.id}" both`);
    out.set(newKey, renamedValue(key.slice(2), value));
  }
  const ab = out.get('ab');
  if (ab !== undefined && ab.startsWith('t.')) {
    const colon = ab.indexOf(':');
    const id = colon < 0 ? '' : ab.slice(2, colon);
    const to = RENAMED_TOGGLES[id];
    if (to !== undefined) out.set('ab', `t.${to.id}:${ab.slice(colon + 1).split(',').map((v) => renamedValue(id, v)).join(',')}`);
  }
  return out;
}

/** Upgraders from version N (key) to N+1, applied in order to old links' key/value pairs. */
export type Upgrader = (pairs: Map<string, string>) => Map<string, string>;

/**
 * The registered upgraders. v1 -> v2: every v1 key keeps its meaning in v2 (v2 adds the A/B
 * comparison, the plots' layout, a seed, lecture and embed mode), so a v1 link's pairs are v2's
 * as they are but for renamed toggle ids (`renameToggles`); a v1 link never had the v2-only
 * keys, and one that has them is refused (it was not made by mmviz).
 */
export const UPGRADERS: Readonly<Record<number, Upgrader>> = {
  1: (pairs) => {
    for (const key of ['ab', 'bstep', 'pc', 'rate', 'seed', 'sched', 'lecture', 'embed', 'from', 'to']) {
      if (pairs.has(key)) throw new Error(`it is a v=1 link with ${quoteForMessage(key)}, which v1 did not have`);
    }
    return renameToggles(pairs);
  },
};

const NAME_RE = /^[a-z0-9_]{1,64}$/;
const ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ENUM_VALUE_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const NUMBER_RE = /^-?(?:\d{1,15}(?:\.\d{1,15})?|\.\d{1,15})(?:e[+-]?\d{1,3})?$/i;

/** Quotes an outside value for an error message: truncated, control characters removed (always shown as text). */
export function quoteForMessage(value: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '?');
  return `"${clean.length > 40 ? `${clean.slice(0, 40)}…` : clean}"`;
}

const fixedKeys = z
  .object({
    v: z.string().regex(/^\d{1,4}$/, 'the format version (v=) is not a number'),
    sc: z.string().regex(ID_RE, 'the scenario id (sc=) may only contain a-z, 0-9, "-" and "_"').optional(),
    h: z.string().regex(/^[0-9a-f]{8}$/, 'the scenario hash (h=) is not 8 hex digits').optional(),
    s: z.string().min(1, 'the custom scenario (s=) is empty').optional(),
    step: z.string().regex(/^\d{1,15}$/, 'the step (step=) is not a whole number 0 or larger').optional(),
    seed: z.string().regex(/^\d{1,15}$/, 'the seed (seed=) is not a whole number 0 or larger').optional(),
    // Only its length is checked here: whether the schedule fits the run (its picks, CPUs and
    // steps) is the engine's to say, naming the pick; the lab then opens the run without it.
    sched: z.string().max(MAX_SCHEDULE_CHARS, `the schedule (sched=) is longer than ${MAX_SCHEDULE_CHARS} characters`).optional(),
    sel: z
      .string()
      .regex(new RegExp(`^(${PANELS.join('|')}):[a-z0-9_.-]{1,64}$`), 'the selection (sel=) is not of the form panel:object')
      .optional(),
    ab: z.string().min(1, 'the A/B comparison (ab=) is empty').max(300, 'the A/B comparison (ab=) is too long').optional(),
    bstep: z.string().regex(/^\d{1,15}$/, "B's step (bstep=) is not a whole number 0 or larger").optional(),
    pc: z
      .string()
      .regex(/^[a-z0-9_]{1,64}(,[a-z0-9_]{1,64}){0,31}$/, 'the plotted counters (pc=) are not counter names separated by commas')
      .optional(),
    rate: z.enum(['1'], { message: 'the plots\' rate flag (rate=) is not 1' }).optional(),
    lecture: z.enum(['1', 'intro', '0'], { error: 'lecture mode (lecture=) is not 1, intro or 0' }).optional(),
    embed: z.enum(['1', '0', ''], { error: 'embed mode (embed=) is not 1 or 0' }).optional(),
    from: z.string().regex(/^\d{1,9}$/, 'the first step (from=) is not a whole number 0 or larger').optional(),
    to: z.string().regex(/^\d{1,9}$/, 'the last step (to=) is not a whole number 0 or larger').optional(),
  })
  .strict();

const toggleValueSchema = z
  .string()
  .regex(ENUM_VALUE_RE, 'is not a toggle value')
  .transform((v): ToggleValue => (v === 'true' ? true : v === 'false' ? false : v));
const paramValueSchema = z
  .string()
  .regex(NUMBER_RE, 'is not a number')
  .transform(Number)
  .refine(Number.isFinite, 'is not a finite number');

const KERNEL_RE = /^v\d{1,2}\.\d{1,3}$/;
const PRESET_RE = /^[a-z0-9_]{1,64}\/[A-Za-z0-9_.-]{1,64}$/;

/** The `ab=` value of a choice. */
export function abToText(choice: AbChoice): string {
  switch (choice.kind) {
    case 'toggle':
      return `t.${choice.id}:${String(choice.a)},${String(choice.b)}`;
    case 'kernel':
      return `k:${choice.a},${choice.b}`;
    case 'preset':
      return `p:${choice.a},${choice.b}`;
  }
}

/**
 * Reads an `ab=` value; throws Error with a readable message. A comparison of more than two
 * runs is read as A/B of its first two, with a warning saying so.
 */
export function abFromText(text: string): { choice: AbChoice; warning: string | null } {
  const colon = text.indexOf(':');
  if (colon < 0) throw new Error(`the A/B comparison (ab=) ${quoteForMessage(text)} is not of the form what:A,B`);
  const what = text.slice(0, colon);
  const values = text.slice(colon + 1).split(',');
  if (values.length < 2 || values.some((v) => v === '')) {
    throw new Error(`the A/B comparison (ab=) ${quoteForMessage(text)} does not name two runs (what:A,B)`);
  }
  const warning =
    values.length > 2
      ? `This link compares ${values.length} runs (${values.join(', ')}); the lab compares two side by side, so it shows A = ${values[0]} and B = ${values[1]}. For all of them, use "Sweep" or \`mmviz compare\`.`
      : null;
  const [a, b] = values as [string, string];
  if (what.startsWith('t.')) {
    const id = what.slice(2);
    if (!NAME_RE.test(id)) throw new Error(`${quoteForMessage(id)} in the A/B comparison (ab=) is not a valid toggle name`);
    const read = (v: string): ToggleValue => {
      const parsed = toggleValueSchema.safeParse(v);
      if (!parsed.success) throw new Error(`the value ${quoteForMessage(v)} of toggle "${id}" in the A/B comparison (ab=) is not a toggle value`);
      return parsed.data as ToggleValue;
    };
    return { choice: { kind: 'toggle', id, a: read(a), b: read(b) }, warning };
  }
  if (what === 'k') {
    for (const v of [a, b]) if (!KERNEL_RE.test(v)) throw new Error(`${quoteForMessage(v)} in the A/B comparison (ab=) is not a kernel version like v5.13`);
    return { choice: { kind: 'kernel', a, b }, warning };
  }
  if (what === 'p') {
    for (const v of [a, b]) if (!PRESET_RE.test(v)) throw new Error(`${quoteForMessage(v)} in the A/B comparison (ab=) is not a preset like page_alloc/patch7`);
    return { choice: { kind: 'preset', a, b }, warning };
  }
  throw new Error(`the A/B comparison (ab=) compares ${quoteForMessage(what)}, which is none of t.<toggle>, k (kernels) or p (presets)`);
}

function encodeValue(value: string): string {
  return encodeURIComponent(value);
}

/** The `sched=` value of a schedule: percent-encoded, with ':' and ',' kept as they are (as the CLI's `--link` writes it). */
export function scheduleToUrl(schedule: string): string {
  return encodeValue(schedule).replace(/%3A/g, ':').replace(/%2C/g, ',');
}

function sortedEntries<T>(record: Record<string, T>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Serialises shareable state to a URL fragment (without the leading '#'). */
export function stateToUrl(state: ShareState): string {
  const parts: string[] = [`v=${URL_FORMAT_VERSION}`];
  if (state.scenario.kind === 'builtin') {
    parts.push(`sc=${encodeValue(state.scenario.id)}`);
    if (state.scenario.hash) parts.push(`h=${encodeValue(state.scenario.hash)}`);
  } else {
    // lz-string's URI alphabet (A-Z a-z 0-9 + - $) is safe in a fragment as is.
    parts.push(`s=${compressToEncodedURIComponent(state.scenario.text)}`);
  }
  for (const [name, value] of sortedEntries(state.toggles)) parts.push(`t.${name}=${encodeValue(String(value))}`);
  for (const [name, value] of sortedEntries(state.params)) parts.push(`p.${name}=${encodeValue(String(value))}`);
  if (state.scenario.seed !== undefined) parts.push(`seed=${Math.max(0, Math.trunc(state.scenario.seed))}`);
  // ':' and ',' are safe in a fragment: kept readable (`sched=12:1,30:0`).
  if (state.scenario.schedule) parts.push(`sched=${scheduleToUrl(state.scenario.schedule)}`);
  parts.push(`step=${Math.max(0, Math.trunc(state.step))}`);
  if (state.selection) parts.push(`sel=${state.selection.panel}:${encodeValue(state.selection.object)}`);
  if (state.ab) {
    // ':' ',' '/' and '.' are safe in a fragment: kept readable.
    parts.push(`ab=${encodeValue(abToText(state.ab)).replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%2F/g, '/')}`);
    if (state.bStep !== null && state.bStep !== undefined) parts.push(`bstep=${Math.max(0, Math.trunc(state.bStep))}`);
  }
  if (state.plots?.counters) parts.push(`pc=${state.plots.counters.map(encodeValue).join(',')}`);
  if (state.plots?.rate) parts.push('rate=1');
  if (state.lecture) parts.push(`lecture=${state.lecture === 'intro' ? 'intro' : '1'}`);
  if (state.embed) parts.push('embed=1');
  if (state.range) parts.push(`from=${Math.max(0, Math.trunc(state.range.from))}`, `to=${Math.max(0, Math.trunc(state.range.to))}`);
  return parts.join('&');
}

/** Splits a fragment into key/value pairs; throws Error with a readable message. */
function splitPairs(fragment: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const part of fragment.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(rawKey);
    } catch {
      throw new Error(`the part ${quoteForMessage(rawKey)} is not valid percent-encoding`);
    }
    try {
      value = decodeURIComponent(rawValue);
    } catch {
      throw new Error(`the value of ${quoteForMessage(key)} is not valid percent-encoding`);
    }
    if (pairs.has(key)) throw new Error(`${quoteForMessage(key)} appears twice`);
    pairs.set(key, value);
  }
  return pairs;
}

/** Applies upgraders from `version` up to the current version; throws for unknown versions. */
export function upgradePairs(version: number, pairs: Map<string, string>, upgraders: Readonly<Record<number, Upgrader>> = UPGRADERS): Map<string, string> {
  if (version > URL_FORMAT_VERSION) {
    throw new Error(`it was made by a newer version of mmviz (link format v=${version}; this version reads up to v=${URL_FORMAT_VERSION})`);
  }
  let current = pairs;
  for (let v = version; v < URL_FORMAT_VERSION; v++) {
    const up = upgraders[v];
    if (!up) throw new Error(`link format v=${version} is not supported (this version reads v=${URL_FORMAT_VERSION})`);
    current = up(current);
  }
  current.set('v', String(URL_FORMAT_VERSION));
  return current;
}

/** Decodes custom scenario text from `s=`; throws if it is damaged. */
export function decodeScenarioText(encoded: string): string {
  // Its length first: a few dozen KB of link can stand for gigabytes of text (lzLength.ts).
  const size = decompressedLength(encoded, MAX_SCENARIO_BYTES);
  if (size.kind === 'over') {
    throw new Error(`the custom scenario (s=) would decompress to more than ${group(MAX_SCENARIO_BYTES)} characters; at most ${group(MAX_SCENARIO_BYTES)} bytes are read`);
  }
  if (size.kind === 'damaged') throw new Error('the custom scenario (s=) is damaged: it could not be decompressed');
  const text = decompressFromEncodedURIComponent(encoded);
  // Decompression of garbage often "succeeds" with junk: accept only canonical input.
  if (!text || compressToEncodedURIComponent(text) !== encoded) {
    throw new Error('the custom scenario (s=) is damaged: it could not be decompressed');
  }
  const over = sizeProblem('the custom scenario (s=)', text, MAX_SCENARIO_BYTES);
  if (over) throw new Error(over);
  return text;
}

/**
 * Reads a URL fragment (with or without leading '#') into shareable state.
 * Never throws: a bad link gives `{ ok: false, error }` with a readable message
 * starting "This link could not be read: ".
 */
export function urlToState(fragment: string, upgraders: Readonly<Record<number, Upgrader>> = UPGRADERS): UrlReadResult {
  const body = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  if (body.trim() === '') return { ok: true, state: null, warnings: [] };
  try {
    if (body.length > MAX_FRAGMENT_CHARS) throw new Error(`it is too long (${group(body.length)} characters after #; at most ${group(MAX_FRAGMENT_CHARS)})`);
    let pairs = splitPairs(body);
    const v = pairs.get('v');
    if (v === undefined) throw new Error('it has no format version (v=)');
    if (!/^\d{1,4}$/.test(v)) throw new Error(`the format version ${quoteForMessage(v)} is not a number`);
    pairs = renameToggles(upgradePairs(Number(v), pairs, upgraders));

    const fixed: Record<string, string> = {};
    const toggles: Record<string, ToggleValue> = {};
    const params: Record<string, number> = {};
    const warnings: string[] = [];
    const problems: string[] = [];
    for (const [key, value] of pairs) {
      if (key.startsWith('t.') || key.startsWith('p.')) {
        const name = key.slice(2);
        if (!NAME_RE.test(name)) {
          problems.push(`${quoteForMessage(key)} is not a valid ${key.startsWith('t.') ? 'toggle' : 'param'} name`);
          continue;
        }
        const parsed = (key.startsWith('t.') ? toggleValueSchema : paramValueSchema).safeParse(value);
        if (!parsed.success) {
          problems.push(`the value ${quoteForMessage(value)} of ${key.startsWith('t.') ? 'toggle' : 'param'} "${name}" ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
          continue;
        }
        if (key.startsWith('t.')) toggles[name] = parsed.data as ToggleValue;
        else params[name] = parsed.data as number;
      } else if (key in fixedKeys.shape) {
        fixed[key] = value;
      } else {
        warnings.push(`The link contains an unknown part ${quoteForMessage(key)}; it was ignored.`);
      }
    }
    const checked = fixedKeys.safeParse(fixed);
    if (!checked.success) {
      problems.push(...checked.error.issues.map((i) => i.message));
    }
    if (problems.length > 0 || !checked.success) throw new Error(problems.join('; '));
    const f = checked.data;
    if (f.sc !== undefined && f.s !== undefined) throw new Error('it names both a built-in scenario (sc=) and a custom one (s=)');
    let scenario: ScenarioRef;
    if (f.s !== undefined) scenario = { kind: 'custom', text: decodeScenarioText(f.s) };
    else if (f.sc !== undefined) scenario = { kind: 'builtin', id: f.sc, hash: f.h ?? null };
    else throw new Error('it names no scenario (sc= or s=)');
    if (f.seed !== undefined) scenario.seed = Number(f.seed);
    if (f.sched !== undefined && f.sched.trim() !== '') scenario.schedule = f.sched;
    let selection: Selection | null = null;
    if (f.sel !== undefined) {
      const colon = f.sel.indexOf(':');
      selection = { panel: f.sel.slice(0, colon) as PanelId, object: f.sel.slice(colon + 1) };
    }
    let ab: AbChoice | null = null;
    if (f.ab !== undefined) {
      const read = abFromText(f.ab);
      ab = read.choice;
      if (read.warning) warnings.push(read.warning);
    }
    if (f.bstep !== undefined && ab === null) warnings.push("The link gives B's step (bstep=) but no A/B comparison (ab=); it was ignored.");
    const state: ShareState = { scenario, toggles, params, step: f.step === undefined ? 0 : Number(f.step), selection };
    if (ab !== null) {
      state.ab = ab;
      state.bStep = f.bstep !== undefined ? Number(f.bstep) : null;
    }
    if (f.pc !== undefined || f.rate !== undefined) state.plots = { counters: f.pc !== undefined ? f.pc.split(',') : null, rate: f.rate === '1' };
    if (f.lecture === '1' || f.lecture === 'intro') state.lecture = f.lecture === '1' ? 'on' : 'intro';
    if (f.embed === '1' || f.embed === '') state.embed = true;
    if (f.from !== undefined || f.to !== undefined) {
      if (f.from === undefined || f.to === undefined) warnings.push('The link gives only one end of the steps to show (from= and to= go together); it was ignored.');
      else if (Number(f.from) > Number(f.to)) warnings.push(`The link's steps to show run backwards (from=${f.from} is after to=${f.to}); they were ignored.`);
      else state.range = { from: Number(f.from), to: Number(f.to) };
    }
    return { ok: true, state, warnings };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `This link could not be read: ${reason}.` };
  }
}
