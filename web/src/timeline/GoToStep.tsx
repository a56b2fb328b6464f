// "Go to step": type a step (1234567 or 1,234,567) and press Enter; a bad one gets a message
// beside the field, which keeps what was typed.
import { useId, useState } from 'react';
import { useAppStore } from '../store/context';
import { parseStepInput } from './goToStep';
import styles from './Transport.module.css';

/** The field; `total` is run A's last step (in an A/B comparison, B goes to the same point of the workload). */
export function GoToStep({ total }: { total: number }) {
  const seekLane = useAppStore((s) => s.seekLane);
  const pause = useAppStore((s) => s.pause);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const inputId = useId();
  const messageId = useId();
  return (
    <form
      className={styles.goTo}
      onSubmit={(e) => {
        e.preventDefault();
        const read = parseStepInput(text, total);
        if (!read.ok) {
          setProblem(read.message);
          return;
        }
        setProblem(null);
        setText('');
        pause();
        void seekLane('a', read.step);
      }}
    >
      <label htmlFor={inputId}>Go to step</label>
      <input
        id={inputId}
        className={styles.goToInput}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        spellCheck={false}
        placeholder="1,234,567"
        value={text}
        aria-invalid={problem !== null}
        aria-describedby={messageId}
        onChange={(e) => {
          setText(e.target.value);
          if (problem !== null) setProblem(null);
        }}
      />
      <span id={messageId} className={styles.goToProblem} aria-live="polite">
        {problem}
      </span>
    </form>
  );
}
