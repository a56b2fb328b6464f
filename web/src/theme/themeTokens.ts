// The themes' token values as data, read from the same CSS files the page uses: the canvas
// palette's fallback where no stylesheet applies (unit tests in jsdom) and the contrast tests.
import tokensCss from '../styles/tokens.css?raw';
import darkCss from '../styles/themes/dark.css?raw';
import highContrastCss from '../styles/themes/high-contrast.css?raw';
import lightCss from '../styles/themes/light.css?raw';
import type { ThemeName } from './theme';

/** Token name (with its leading "--") → value. */
export type Tokens = ReadonlyMap<string, string>;

/** The custom properties a CSS text defines, in order (a later definition of a name wins). */
export function parseTokens(css: string): Map<string, string> {
  const out = new Map<string, string>();
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  for (const m of text.matchAll(/(--[a-z0-9-]+)\s*:\s*([^;{}]+);/gi)) {
    if (m[1] && m[2]) out.set(m[1], m[2].trim());
  }
  return out;
}

/** Substitutes every var(--name) (with or without a fallback) in `value`; throws on an unknown name or a cycle. */
function substitute(value: string, tokens: ReadonlyMap<string, string>, seen: readonly string[]): string {
  return value.replace(/var\(\s*(--[a-z0-9-]+)\s*(?:,\s*([^()]*))?\)/gi, (_, name: string, fallback: string | undefined) => {
    if (seen.includes(name)) throw new Error(`token ${name} refers to itself (${[...seen, name].join(' → ')})`);
    const raw = tokens.get(name);
    if (raw === undefined) {
      if (fallback !== undefined) return fallback.trim();
      throw new Error(`token ${name} is not defined`);
    }
    return substitute(raw, tokens, [...seen, name]);
  });
}

/** The tokens of CSS texts laid over each other (later ones win), every var() resolved. */
export function resolveTokens(...layers: string[]): Map<string, string> {
  const merged = new Map<string, string>();
  for (const css of layers) for (const [k, v] of parseTokens(css)) merged.set(k, v);
  const out = new Map<string, string>();
  for (const [k, v] of merged) out.set(k, substitute(v, merged, [k]));
  return out;
}

/** Each theme file's own CSS text. */
export const THEME_CSS: Readonly<Record<ThemeName, string>> = { light: lightCss, dark: darkCss, 'high-contrast': highContrastCss };
/** The shared tokens (aliases, type, spacing). */
export const SHARED_TOKENS_CSS = tokensCss;

/** Every token of a theme with its value resolved (the shared aliases read the theme's colours). */
export function themeTokens(theme: ThemeName): Tokens {
  return resolveTokens(tokensCss, THEME_CSS[theme]);
}
