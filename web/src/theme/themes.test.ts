// The themes' token files: the same names in each, every text colour readable (WCAG contrast)
// on every background it is drawn on, and no colour anywhere else in the styles.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AA_GRAPHICS, AA_TEXT, contrastRatio, parseHex } from '../base/contrast';
import { THEME_NAMES, type ThemeName } from './theme';
import { parseTokens, resolveTokens, SHARED_TOKENS_CSS, THEME_CSS, themeTokens } from './themeTokens';

/** Text colours that are drawn on any of the surfaces below. */
const TEXT = ['--ink', '--ink-soft', '--ink-faint', '--text-vermillion', '--text-green', '--text-blue', '--text-purple', '--text-orange'];
/** Surfaces text is drawn on: the page, panels, controls, highlights and message boxes. */
const SURFACES = [
  '--bg',
  '--panel-bg',
  '--surface',
  '--surface-hover',
  '--header-bg',
  '--highlight-bg',
  '--current-line-bg',
  '--danger-bg',
  '--warning-bg',
  '--info-bg',
  '--success-bg',
  '--removed-bg',
  '--added-bg',
  '--node-bg',
  '--cpu-bg',
  '--cpu-event-bg',
];
/** Other text / background pairs, each where it is used. */
const PAIRS: readonly (readonly [string, string, string])[] = [
  ['--on-ink', '--ink', 'pressed buttons, Play, tooltips'],
  ['--on-ink', '--ink-hover', 'Play under the pointer'],
  ['--on-strong', '--danger-strong', 'error line numbers, drain badges'],
  ['--on-strong', '--success-strong', '"Use this machine", refill badges'],
  ['--on-strong', '--purple-strong', 'deferred flush, zone lock badges'],
  ['--on-strong', '--blue-strong', 'mm_cpumask badge, decay badges'],
  ['--on-strong', '--neutral-strong', '"no flush needed" badges'],
  ['--on-fill', '--frame-mapped', 'pfn labels on mapped frames'],
  ['--on-fill', '--frame-isolated', 'pfn labels on isolated frames'],
  ['--on-fill', '--frame-migrating', 'pfn labels on migrating frames'],
  ['--frame-text', '--frame-free', 'pfn labels on free frames'],
  ['--ink', '--disabled-bg', 'a disabled primary button'],
  ['--ink-faint', '--cpu-lazy-bg', '"lazy" on a lazy CPU'],
];
/** Non-text parts that must stand out from the page (WCAG 1.4.11: 3:1). */
const GRAPHICS: readonly (readonly [string, string, string])[] = [
  ['--focus', '--bg', 'focus ring on the page'],
  ['--focus', '--panel-bg', 'focus ring in a panel'],
  ['--focus', '--header-bg', 'focus ring in the header'],
  ['--ink-soft', '--surface', 'borders of buttons, inputs and selects'],
  ['--ink-soft', '--header-bg', 'borders of the header\'s controls'],
];

/** The least text contrast each theme promises: AA for light and dark, AAA (7:1) for high contrast, except
 * for labels on the Okabe–Ito fills (which keep their hues in every theme: black on vermillion is 5.43:1). */
const MIN_TEXT: Readonly<Record<ThemeName, number>> = { light: AA_TEXT, dark: AA_TEXT, 'high-contrast': 7 };
const ON_FILL = '--on-fill';
const minFor = (theme: ThemeName, fg: string): number => (fg === ON_FILL ? AA_TEXT : MIN_TEXT[theme]);

interface Measured {
  fg: string;
  bg: string;
  ratio: number;
  where: string;
}

function measure(theme: ThemeName, pairs: readonly (readonly [string, string, string])[]): Measured[] {
  const t = themeTokens(theme);
  return pairs.map(([fg, bg, where]) => {
    const a = parseHex(t.get(fg) ?? '');
    const b = parseHex(t.get(bg) ?? '');
    if (!a || !b) throw new Error(`${theme}: ${fg} (${t.get(fg)}) or ${bg} (${t.get(bg)}) is not a hex colour`);
    return { fg, bg, ratio: contrastRatio(a, b), where };
  });
}

const textPairs = [...TEXT.flatMap((fg) => SURFACES.map((bg) => [fg, bg, 'text on a surface'] as const)), ...PAIRS];
const lowest = (m: Measured[]): Measured => m.reduce((a, b) => (b.ratio < a.ratio ? b : a));

describe('contrast', () => {
  it('computes WCAG ratios', () => {
    expect(contrastRatio([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(contrastRatio([255, 255, 255], [255, 255, 255])).toBe(1);
    // Known values: #767676 on white is the lightest grey with 4.5:1; Okabe–Ito vermillion 3.87:1.
    expect(contrastRatio(parseHex('#767676') ?? [0, 0, 0], [255, 255, 255])).toBeCloseTo(4.54, 2);
    expect(contrastRatio(parseHex('#d55e00') ?? [0, 0, 0], [255, 255, 255])).toBeCloseTo(3.87, 2);
    expect(parseHex('#fff')).toEqual([255, 255, 255]);
    expect(parseHex('red')).toBeNull();
  });

  // The names carry the lowest ratio measured, so that `vitest --reporter verbose` reports it.
  for (const theme of THEME_NAMES) {
    const text = measure(theme, textPairs);
    const low = lowest(text.filter((m) => m.fg !== ON_FILL));
    const lowFill = lowest(text.filter((m) => m.fg === ON_FILL));
    it(`${theme}: every text colour on its backgrounds has at least ${MIN_TEXT[theme]}:1 (lowest ${low.ratio.toFixed(2)}:1, ${low.fg} on ${low.bg}; labels on fills ${lowFill.ratio.toFixed(2)}:1)`, () => {
      const failing = text.filter((m) => m.ratio < minFor(theme, m.fg)).map((m) => `${m.fg} on ${m.bg} (${m.where}): ${m.ratio.toFixed(2)}:1`);
      expect(failing).toEqual([]);
    });
    const graphics = measure(theme, GRAPHICS);
    const lowG = lowest(graphics);
    it(`${theme}: focus rings and control borders have at least 3:1 (lowest ${lowG.ratio.toFixed(2)}:1, ${lowG.fg} on ${lowG.bg})`, () => {
      const failing = graphics.filter((m) => m.ratio < AA_GRAPHICS).map((m) => `${m.fg} on ${m.bg} (${m.where}): ${m.ratio.toFixed(2)}:1`);
      expect(failing).toEqual([]);
    });
  }
});

describe('theme token files', () => {
  it('each theme defines the same colour tokens, all hex or rgb()', () => {
    const names = (theme: ThemeName): string[] => [...parseTokens(THEME_CSS[theme]).keys()].sort();
    const light = names('light');
    expect(light.length).toBeGreaterThan(50);
    for (const theme of THEME_NAMES) {
      expect(names(theme)).toEqual(light);
      for (const [name, value] of parseTokens(THEME_CSS[theme])) expect(`${name}: ${value}`).toMatch(/: (#[0-9a-f]{6}|rgb\(\d+ \d+ \d+ \/ \d+%\))$/);
    }
  });

  it('the shared tokens name no colour themselves, only theme tokens', () => {
    for (const [name, value] of parseTokens(SHARED_TOKENS_CSS)) {
      if (name.startsWith('--font') || name === '--radius' || name === '--gap') continue;
      expect(`${name}: ${value}`).toMatch(/: var\(--[a-z0-9-]+\)$/);
    }
    // Every alias resolves in every theme.
    for (const theme of THEME_NAMES) expect(() => themeTokens(theme)).not.toThrow();
  });

  it('resolves var() through layers, later ones winning', () => {
    const t = resolveTokens(':root { --a: #111111; --b: var(--a); --c: var(--nope, #222222); }', ':root[x] { --a: #333333; }');
    expect([t.get('--a'), t.get('--b'), t.get('--c')]).toEqual(['#333333', '#333333', '#222222']);
    expect(() => resolveTokens(':root { --a: var(--b); --b: var(--a); }')).toThrow(/refers to itself/);
    expect(() => resolveTokens(':root { --a: var(--missing); }')).toThrow(/not defined/);
  });
});

// Colours belong to the theme files: a colour written anywhere else would not follow a theme switch.
const SRC = join(__dirname, '..');
const THEMES_DIR = join(SRC, 'styles', 'themes');
const SKIP_DIRS = new Set(['wasm-pkg', 'generated', 'fixtures', 'node_modules']);
const COLOUR_IN_CSS = /#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(|(?<![-\w])(?:white|black|red|green|blue|gray|grey|yellow|orange|purple|pink|silver|navy|maroon|teal|olive|lime|aqua|fuchsia)(?![-\w])/i;
const COLOUR_IN_TS = /['"`](?:#[0-9a-f]{3,8}|(?:rgba?|hsla?)\([^'"`]*\)|white|black)['"`]/i;

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name) && path !== THEMES_DIR) files(path, out);
    } else out.push(path);
  }
  return out;
}

describe('no hard-coded colours', () => {
  const all = files(SRC);
  it('in any stylesheet but the theme files', () => {
    const css = all.filter((f) => f.endsWith('.css'));
    expect(css.length).toBeGreaterThan(20);
    const found = css.flatMap((f) =>
      readFileSync(f, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .split('\n')
        .map((line, i) => ({ line: line.replace(/^\s*[\w-]+(?=\s*:)/, ''), at: `${relative(SRC, f)}:${i + 1}` }))
        .filter(({ line }) => COLOUR_IN_CSS.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
  it('in any component or drawing code', () => {
    const code = all.filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f));
    const found = code.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(SRC, f)}:${i + 1}` }))
        .filter(({ line }) => COLOUR_IN_TS.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
