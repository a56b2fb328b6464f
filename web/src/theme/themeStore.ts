// The theme in effect, outside the app store: it belongs to the browser, not to a run (Reset
// keeps it, a link never carries it). Applies the theme as <html data-theme="…">, which selects
// a token set (src/styles/themes/), follows the system's preferences while the choice is
// "auto", keeps the choice in local storage and follows other tabs' changes to it.
import { useSyncExternalStore } from 'react';
import { resolveTheme, type SystemPreferences, type ThemeName } from './theme';
import { parseStoredTheme, serializeTheme, THEME_STORAGE_KEY, type ThemeChoice } from './themeStorage';

/** The theme state. */
export interface ThemeState {
  choice: ThemeChoice;
  /** The theme drawn. */
  resolved: ThemeName;
  /** What "auto" gives with the system's preferences now (shown beside it in the picker). */
  auto: ThemeName;
  /** Why the stored choice could not be read, or null. */
  problem: string | null;
}

const DARK_QUERY = '(prefers-color-scheme: dark)';
const CONTRAST_QUERY = '(prefers-contrast: more)';

function systemPreferences(): SystemPreferences {
  const match = (q: string): boolean => (typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(q).matches : false);
  return { dark: match(DARK_QUERY), moreContrast: match(CONTRAST_QUERY) };
}

function readStored(): string | null {
  try {
    return globalThis.localStorage?.getItem(THEME_STORAGE_KEY) ?? null;
  } catch {
    // Storage switched off: nothing stored.
    return null;
  }
}

function writeStored(choice: ThemeChoice): void {
  try {
    globalThis.localStorage?.setItem(THEME_STORAGE_KEY, serializeTheme(choice));
  } catch {
    // Storage full or off: the choice holds for this page.
  }
}

let state: ThemeState = { choice: 'auto', resolved: 'light', auto: 'light', problem: null };
const listeners = new Set<() => void>();
let started = false;

function apply(next: ThemeState): void {
  state = next;
  if (typeof document !== 'undefined') document.documentElement.dataset.theme = next.resolved;
  for (const l of listeners) l();
}

function stateFor(choice: ThemeChoice, problem: string | null): ThemeState {
  const system = systemPreferences();
  return { choice, resolved: resolveTheme(choice, system), auto: resolveTheme('auto', system), problem };
}

function refresh(): void {
  const next = stateFor(state.choice, state.problem);
  if (next.resolved !== state.resolved || next.auto !== state.auto) apply(next);
}

/** Reads the stored choice, applies it and starts following the system and other tabs (once; later calls do nothing). */
export function initTheme(): ThemeState {
  if (started) return state;
  started = true;
  const { choice, problem } = parseStoredTheme(readStored());
  apply(stateFor(choice, problem));
  if (typeof window !== 'undefined') {
    if (typeof window.matchMedia === 'function') {
      for (const q of [DARK_QUERY, CONTRAST_QUERY]) window.matchMedia(q).addEventListener('change', refresh);
    }
    window.addEventListener('storage', (e) => {
      if (e.key !== THEME_STORAGE_KEY) return;
      const read = parseStoredTheme(e.newValue);
      apply(stateFor(read.choice, read.problem));
    });
  }
  return state;
}

/** Sets and stores the user's choice. */
export function setThemeChoice(choice: ThemeChoice): void {
  writeStored(choice);
  apply(stateFor(choice, null));
}

/** The current theme state. */
export function getThemeState(): ThemeState {
  return state;
}

/** Calls `listener` after every change; returns the unsubscribe function. */
export function subscribeTheme(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Hook: the theme state, re-rendering on every change (a canvas that reads tokens redraws on `resolved`). */
export function useTheme(): ThemeState {
  return useSyncExternalStore(subscribeTheme, getThemeState, getThemeState);
}
