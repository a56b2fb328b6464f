// Which theme is drawn (pure): the user's choice, or for "auto" the system's preferences.
import type { ThemeChoice } from './themeStorage';

/** A theme with its own token set in src/styles/themes/ (the value of <html data-theme>). */
export const THEME_NAMES = ['light', 'dark', 'high-contrast'] as const;
/** A theme that can be drawn. */
export type ThemeName = (typeof THEME_NAMES)[number];

/** What the system says (the media queries prefers-color-scheme: dark and prefers-contrast: more). */
export interface SystemPreferences {
  dark: boolean;
  moreContrast: boolean;
}

/** The theme to draw: the choice itself, or for "auto" high contrast when the system asks for more contrast, else dark or light as it prefers. */
export function resolveTheme(choice: ThemeChoice, system: SystemPreferences): ThemeName {
  if (choice !== 'auto') return choice;
  if (system.moreContrast) return 'high-contrast';
  return system.dark ? 'dark' : 'light';
}

/** Names for people. */
export const THEME_LABELS: Readonly<Record<ThemeChoice, string>> = {
  auto: 'Auto',
  light: 'Light',
  dark: 'Dark',
  'high-contrast': 'High contrast',
};
