// One scenario param as a validated number input. Out-of-range values show a
// message and are not applied; the typed text stays in the box.
import { useEffect, useId, useRef, useState } from 'react';
import type { ParamInfo } from '../engine/types';
import styles from './ParamInput.module.css';

/** Why `text` is not a valid value for `info`, or null when it is. */
export function paramProblem(info: Pick<ParamInfo, 'min' | 'max'>, text: string): string | null {
  if (text.trim() === '') return 'Enter a number';
  const n = Number(text);
  if (!Number.isFinite(n)) return 'Not a number';
  if (!Number.isInteger(n)) return 'Must be a whole number; not applied';
  if (n < info.min || n > info.max) return `Must be ${info.min}–${info.max}; not applied`;
  return null;
}

/** A labelled number input for one param; applies valid values after a short pause, on Enter or on blur. */
export function ParamInput({ info, onApply }: { info: ParamInfo; onApply: (value: number) => void }) {
  const id = useId();
  const [text, setText] = useState(String(info.value));
  const [seenValue, setSeenValue] = useState(info.value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  if (seenValue !== info.value) {
    // The applied value changed from outside (link, reset): show it.
    setSeenValue(info.value);
    setText(String(info.value));
  }
  useEffect(() => () => clearTimeout(timer.current), []);
  const problem = paramProblem(info, text);
  const apply = (value: string): void => {
    clearTimeout(timer.current);
    if (paramProblem(info, value) === null && Number(value) !== info.value) onApply(Number(value));
  };
  return (
    <span className={styles.param}>
      <label htmlFor={id} className={styles.name} title={info.description}>
        {info.name}
      </label>
      <input
        id={id}
        className={styles.input}
        type="number"
        inputMode="numeric"
        step={1}
        min={info.min}
        max={info.max}
        value={text}
        aria-invalid={problem !== null}
        aria-describedby={problem ? `${id}-msg` : undefined}
        onChange={(e) => {
          const v = e.target.value;
          setText(v);
          clearTimeout(timer.current);
          if (paramProblem(info, v) === null) timer.current = setTimeout(() => apply(v), 500);
        }}
        onBlur={() => apply(text)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') apply(text);
        }}
      />
      {problem && (
        <span id={`${id}-msg`} className={styles.problem}>
          {problem}
        </span>
      )}
    </span>
  );
}
