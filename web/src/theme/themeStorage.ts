// The theme the user chose, as kept in local storage (pure: parse and write). The link never
// carries it. Stored as versioned JSON, {"v":1,"theme":"dark"}, validated with zod like every
// other outside input: anything unreadable falls back to "auto" with a message saying why.
import { z } from 'zod';
import { quoteForMessage } from '../share/url';

/** What the theme picker offers: "auto" follows the system's colour-scheme (and contrast) preference. */
export const THEME_CHOICES = ['auto', 'light', 'dark', 'high-contrast'] as const;
/** A choice in the theme picker. */
export type ThemeChoice = (typeof THEME_CHOICES)[number];

/** The local storage key. */
export const THEME_STORAGE_KEY = 'mmviz.theme';
/** The format version written now. */
export const THEME_STORAGE_VERSION = 1;
/** Longest stored text read (anything longer is not ours). */
const MAX_STORED_CHARS = 1_000;

/** Upgraders from stored version N (key) to N + 1, applied in order: none yet, v1 is the first. */
export const THEME_UPGRADERS: Readonly<Record<number, (old: Record<string, unknown>) => Record<string, unknown>>> = {};

const versioned = z.looseObject({ v: z.number().int().min(1) });
const v1 = z.strictObject({ v: z.literal(1), theme: z.enum(THEME_CHOICES) });

/** What was read: the choice (auto when nothing usable was stored) and, when the stored text was unusable, why. */
export interface StoredTheme {
  choice: ThemeChoice;
  problem: string | null;
}

/** Reads the stored text (null when nothing is stored). */
export function parseStoredTheme(text: string | null): StoredTheme {
  if (text === null || text === '') return { choice: 'auto', problem: null };
  const fail = (why: string): StoredTheme => ({ choice: 'auto', problem: `The saved theme could not be read (${THEME_STORAGE_KEY} in this browser's storage: ${why}); using Auto.` });
  if (text.length > MAX_STORED_CHARS) return fail(`${text.length} characters, more than a theme takes`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return fail(`${quoteForMessage(text)} is not JSON`);
  }
  const head = versioned.safeParse(raw);
  if (!head.success) return fail('no format version (v)');
  let data: Record<string, unknown> = head.data;
  if (head.data.v > THEME_STORAGE_VERSION) return fail(`format ${head.data.v} was written by a newer mmviz; this one reads up to ${THEME_STORAGE_VERSION}`);
  for (let v = head.data.v; v < THEME_STORAGE_VERSION; v++) {
    const up = THEME_UPGRADERS[v];
    if (!up) return fail(`format ${v} can no longer be read`);
    data = { ...up(data), v: v + 1 };
  }
  const parsed = v1.safeParse(data);
  if (!parsed.success) {
    const theme = data.theme;
    if (typeof theme !== 'string') return fail('no theme');
    if (!(THEME_CHOICES as readonly string[]).includes(theme)) return fail(`${quoteForMessage(theme)} is not one of ${THEME_CHOICES.join(', ')}`);
    return fail('unexpected fields');
  }
  return { choice: parsed.data.theme, problem: null };
}

/** The text stored for a choice. */
export function serializeTheme(choice: ThemeChoice): string {
  return JSON.stringify({ v: THEME_STORAGE_VERSION, theme: choice });
}
