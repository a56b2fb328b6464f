import { describe, expect, it } from 'vitest';
import { resolveTheme } from './theme';
import { parseStoredTheme, serializeTheme, THEME_CHOICES } from './themeStorage';

describe('parseStoredTheme', () => {
  it('reads what serializeTheme writes, for every choice', () => {
    for (const c of THEME_CHOICES) expect(parseStoredTheme(serializeTheme(c))).toEqual({ choice: c, problem: null });
    expect(serializeTheme('dark')).toBe('{"v":1,"theme":"dark"}');
  });

  it('is auto without a message when nothing is stored', () => {
    expect(parseStoredTheme(null)).toEqual({ choice: 'auto', problem: null });
    expect(parseStoredTheme('')).toEqual({ choice: 'auto', problem: null });
  });

  it('falls back to auto and says why for anything else', () => {
    const problem = (text: string): string => {
      const r = parseStoredTheme(text);
      expect(r.choice).toBe('auto');
      return r.problem ?? '';
    };
    expect(problem('dark')).toMatch(/^The saved theme could not be read \(mmviz\.theme in this browser's storage: "dark" is not JSON\); using Auto\.$/);
    expect(problem('{"theme":"dark"}')).toMatch(/no format version/);
    expect(problem('{"v":"1","theme":"dark"}')).toMatch(/no format version/);
    expect(problem('[1]')).toMatch(/no format version/);
    expect(problem('{"v":2,"theme":"dark"}')).toMatch(/format 2 was written by a newer mmviz; this one reads up to 1/);
    expect(problem('{"v":1,"theme":"sepia"}')).toMatch(/"sepia" is not one of auto, light, dark, high-contrast/);
    expect(problem('{"v":1}')).toMatch(/no theme/);
    expect(problem('{"v":1,"theme":"dark","extra":true}')).toMatch(/unexpected fields/);
    expect(problem(`{"v":1,"theme":"${'x'.repeat(2000)}"}`)).toMatch(/more than a theme takes/);
    // Control characters in a stored value are never echoed as such.
    expect(problem('{"v":1,"theme":"a\\u0007b"}')).toMatch(/"a\?b"/);
  });
});

describe('resolveTheme', () => {
  it('keeps an explicit choice whatever the system says', () => {
    for (const dark of [false, true]) for (const moreContrast of [false, true]) {
      expect(resolveTheme('light', { dark, moreContrast })).toBe('light');
      expect(resolveTheme('dark', { dark, moreContrast })).toBe('dark');
      expect(resolveTheme('high-contrast', { dark, moreContrast })).toBe('high-contrast');
    }
  });
  it('follows prefers-color-scheme, and prefers-contrast: more first, for auto', () => {
    expect(resolveTheme('auto', { dark: false, moreContrast: false })).toBe('light');
    expect(resolveTheme('auto', { dark: true, moreContrast: false })).toBe('dark');
    expect(resolveTheme('auto', { dark: true, moreContrast: true })).toBe('high-contrast');
  });
});
