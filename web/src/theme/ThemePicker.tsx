// The header's theme picker: Auto (what the system prefers, named beside it), light, dark, high contrast.
import { useEffect } from 'react';
import { useAppStore } from '../store/context';
import { THEME_LABELS } from './theme';
import { setThemeChoice, useTheme } from './themeStore';
import { THEME_CHOICES, type ThemeChoice } from './themeStorage';
import styles from './ThemePicker.module.css';

function isChoice(value: string): value is ThemeChoice {
  return (THEME_CHOICES as readonly string[]).includes(value);
}

/** `<select>` labelled "Theme"; says so in the banner when the stored choice could not be read. */
export function ThemePicker() {
  const { choice, auto, problem } = useTheme();
  const report = useAppStore((s) => s.report);
  useEffect(() => {
    if (problem) report(problem, 'warning');
  }, [problem, report]);
  return (
    <label className={styles.field}>
      <span className={styles.label}>Theme</span>
      <select
        className={styles.select}
        value={choice}
        onChange={(e) => {
          if (isChoice(e.target.value)) setThemeChoice(e.target.value);
        }}
      >
        {THEME_CHOICES.map((c) => (
          <option key={c} value={c}>
            {c === 'auto' ? `Auto (${THEME_LABELS[auto].toLowerCase()})` : THEME_LABELS[c]}
          </option>
        ))}
      </select>
    </label>
  );
}
