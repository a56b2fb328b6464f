// The shareable part of the app state <-> the URL fragment (pure functions).
//
// Format v1 (fragment, `&`-separated, values percent-encoded):
//   v=1                      format version (required)
//   sc=<id>&h=<hash8>        built-in scenario id + FNV-1a hash of its text, or
//   s=<lz-string>            custom scenario text (compressToEncodedURIComponent)
//   t.<toggle>=<value>       toggles that differ from the scenario's defaults (true/false or enum value)
//   p.<param>=<number>       params that differ from their defaults
//   seed=<n>                 the run's seed, when it is not the scenario's own (a sweep's run)
//   step=<n>                 step shown (0 when absent)
//   sel=<panel>:<object>     selected object, e.g. machine:pfn-12
// Everything read from a URL is validated here (zod) and is only ever used as data.
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from 'lz-string';
import { z } from 'zod';
import type { ToggleValue } from '../engine/types';

/** Current URL format version. */
export const URL_FORMAT_VERSION = 1;

/** Largest fragment we try to read. */
export const MAX_FRAGMENT_CHARS = 200_000;

/** Which scenario a link opens, and at which seed when not at the scenario's own (`seed=`). */
export type ScenarioRef = ({ kind: 'builtin'; id: string; hash: string | null } | { kind: 'custom'; text: string }) & { seed?: number };

/** Panels that can hold a selection. */
export const PANELS = ['machine', 'pagetable', 'code', 'counters', 'chapters'] as const;
/** A panel id. */
export type PanelId = (typeof PANELS)[number];

/** A selected object in a panel, e.g. { panel: 'machine', object: 'pfn-12' }. */
export interface Selection {
  panel: PanelId;
  object: string;
}

/** The shareable state: exactly what a link restores. */
export interface ShareState {
  scenario: ScenarioRef;
  toggles: Record<string, ToggleValue>;
  params: Record<string, number>;
  step: number;
  selection: Selection | null;
}

/** Result of reading a fragment: state (null for an empty fragment) plus non-fatal warnings, or an error. */
export type UrlReadResult = { ok: true; state: ShareState | null; warnings: string[] } | { ok: false; error: string };

/** Upgraders from version N (key) to N+1, applied in order to old links' key/value pairs. */
export type Upgrader = (pairs: Map<string, string>) => Map<string, string>;

/** The registered upgraders: none yet, v1 is the first format. */
export const UPGRADERS: Readonly<Record<number, Upgrader>> = {};

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
    step: z.string().regex(/^\d{1,9}$/, 'the step (step=) is not a whole number 0 or larger').optional(),
    seed: z.string().regex(/^\d{1,15}$/, 'the seed (seed=) is not a whole number 0 or larger').optional(),
    sel: z
      .string()
      .regex(new RegExp(`^(${PANELS.join('|')}):[a-z0-9_.-]{1,64}$`), 'the selection (sel=) is not of the form panel:object')
      .optional(),
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

function encodeValue(value: string): string {
  return encodeURIComponent(value);
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
  parts.push(`step=${Math.max(0, Math.trunc(state.step))}`);
  if (state.selection) parts.push(`sel=${state.selection.panel}:${encodeValue(state.selection.object)}`);
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
  const text = decompressFromEncodedURIComponent(encoded);
  // Decompression of garbage often "succeeds" with junk: accept only canonical input.
  if (!text || compressToEncodedURIComponent(text) !== encoded) {
    throw new Error('the custom scenario (s=) is damaged: it could not be decompressed');
  }
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
    if (body.length > MAX_FRAGMENT_CHARS) throw new Error(`it is too long (${body.length} characters)`);
    let pairs = splitPairs(body);
    const v = pairs.get('v');
    if (v === undefined) throw new Error('it has no format version (v=)');
    if (!/^\d{1,4}$/.test(v)) throw new Error(`the format version ${quoteForMessage(v)} is not a number`);
    pairs = upgradePairs(Number(v), pairs, upgraders);

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
    let selection: Selection | null = null;
    if (f.sel !== undefined) {
      const colon = f.sel.indexOf(':');
      selection = { panel: f.sel.slice(0, colon) as PanelId, object: f.sel.slice(colon + 1) };
    }
    return { ok: true, state: { scenario, toggles, params, step: f.step === undefined ? 0 : Number(f.step), selection }, warnings };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `This link could not be read: ${reason}.` };
  }
}
