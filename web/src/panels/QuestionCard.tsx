// Predict, then reveal: the question a scenario asks at a chapter, before the steps that
// answer it. The room guesses (a number, some CPUs, or statements), then Reveal shows the
// answer the engine computed from this run (it follows the toggles) and the step that shows it.
import { useId } from 'react';
import { formatCount } from '../base/format';
import type { AnswerView, QuestionView } from '../engine/types';
import { useAppStore, useRun } from '../store/context';
import { questionShownAt, questionState } from '../store/lectureSlice';
import type { QuestionState } from '../store/types';
import styles from './QuestionCard.module.css';

const NO_NAMES: readonly string[] = [];

/** The run's answer in words, e.g. "4: nr_tlb_remote_flush went from 1 to 5 over these steps". */
export function answerText(answer: AnswerView): string {
  switch (answer.kind) {
    case 'count':
      return `${formatCount(answer.value)}: ${answer.counter} went from ${formatCount(answer.from)} to ${formatCount(answer.to)} over these steps.`;
    case 'cpus':
      return answer.cpus.length === 0
        ? `No CPU: no ${answer.event} event in these steps.`
        : `${answer.cpus.length === 1 ? 'CPU' : 'CPUs'} ${answer.cpus.join(', ')}: the ${answer.cpus.length === 1 ? 'CPU' : 'CPUs'} with ${/^[aeiou]/.test(answer.event) ? 'an' : 'a'} ${answer.event} event in these steps.`;
    case 'choice': {
      const right = answer.choices.filter((c) => c.correct).map((c) => `“${c.text}”`);
      return right.length === 0 ? 'None of the statements holds on this run.' : `${right.join(' and ')} ${right.length === 1 ? 'holds' : 'hold'} on this run.`;
    }
  }
}

/** What a choice measured, for people: "nr_tlb_remote_flush changed by 4" or "0 ipi_send events". */
export function measureText(measure: string, value: number, counterNames: readonly string[]): string {
  if (counterNames.includes(measure)) return `${measure} changed by ${formatCount(value)}`;
  return `${formatCount(value)} ${measure} event${value === 1 ? '' : 's'}`;
}

/** How a guess compares with the answer, or null without a guess. */
export function guessText(answer: AnswerView, guess: QuestionState['guess']): string | null {
  if (guess === null) return null;
  if (answer.kind === 'count' && typeof guess === 'number') {
    const off = guess - answer.value;
    return off === 0 ? `Your guess, ${formatCount(guess)}, is right.` : `Your guess was ${formatCount(guess)} (${off > 0 ? 'over' : 'under'} by ${formatCount(Math.abs(off))}).`;
  }
  if (Array.isArray(guess) && answer.kind === 'cpus') {
    const same = guess.length === answer.cpus.length && guess.every((c) => answer.cpus.includes(c));
    return `You picked ${guess.length === 0 ? 'no CPU' : `CPU ${[...guess].sort((a, b) => a - b).join(', ')}`}: ${same ? 'right' : 'not quite'}.`;
  }
  if (Array.isArray(guess) && answer.kind === 'choice') {
    const same = answer.choices.every((c, i) => c.correct === guess.includes(i));
    return same ? 'Your pick is right.' : 'Your pick differs from the run.';
  }
  return null;
}

/** What the room picks or types before the reveal. */
function GuessInput({ question, state, onGuess }: { question: QuestionView; state: QuestionState; onGuess: (g: QuestionState['guess']) => void }) {
  const id = useId();
  const a = question.answer;
  const picked = Array.isArray(state.guess) ? state.guess : [];
  const toggle = (value: number, on: boolean): void => onGuess(on ? [...picked.filter((x) => x !== value), value] : picked.filter((x) => x !== value));
  if (a.kind === 'count') {
    return (
      <p className={`${styles.guess} ${styles.guessArea}`}>
        <label htmlFor={`${id}-n`}>Your guess</label>{' '}
        <input
          id={`${id}-n`}
          className={styles.number}
          type="number"
          inputMode="numeric"
          min={0}
          step={1}
          value={typeof state.guess === 'number' ? state.guess : ''}
          onChange={(e) => onGuess(e.target.value === '' || !Number.isFinite(Number(e.target.value)) ? null : Math.trunc(Number(e.target.value)))}
        />
      </p>
    );
  }
  const options = a.kind === 'cpus' ? a.options.map((c) => ({ value: c, label: `CPU ${c}` })) : a.choices.map((c, i) => ({ value: i, label: c.text }));
  return (
    <fieldset className={`${a.kind === 'cpus' ? styles.cpus : styles.choices} ${styles.guessArea}`}>
      <legend className={styles.legend}>{a.kind === 'cpus' ? 'Your guess: which CPUs?' : 'Your guess: pick every statement that holds'}</legend>
      {options.map((o) => (
        <label key={o.value} className={styles.option}>
          <input type="checkbox" checked={picked.includes(o.value)} onChange={(e) => toggle(o.value, e.target.checked)} /> {o.label}
        </label>
      ))}
    </fieldset>
  );
}

/** The answer, once revealed: what the run says, how the guess did, and the step that shows it. */
function Answer({ question, state }: { question: QuestionView; state: QuestionState }) {
  const seek = useAppStore((s) => s.seekLane);
  const pause = useAppStore((s) => s.pause);
  const step = useRun((r) => r.step);
  const counterNames = useRun((r) => r.summary?.counterNames ?? NO_NAMES);
  const a = question.answer;
  const guess = guessText(a, state.guess);
  return (
    <div className={styles.answer}>
      <p role="status" className={styles.reveal}>
        <strong>The run says:</strong> {answerText(a)}
      </p>
      {a.kind === 'choice' && (
        <ul className={styles.judged}>
          {a.choices.map((c, i) => (
            <li key={i} className={c.correct ? styles.holds : styles.fails}>
              <span aria-hidden="true">{c.correct ? '✔' : '✘'}</span> {c.text}{' '}
              <span className={styles.measure}>
                ({c.correct ? 'holds' : 'does not hold'}: {measureText(c.measure, c.value, counterNames)})
              </span>
            </li>
          ))}
        </ul>
      )}
      {guess && <p className={styles.guessResult}>{guess}</p>}
      <p className={styles.where}>
        {question.evidence.length > 1 ? (
          <>
            Seen at step{question.evidence.length === 1 ? '' : 's'} {question.evidence.map((s) => formatCount(s + 1)).join(', ')}
            {question.evidence.length >= 32 ? ', …' : ''}.{' '}
          </>
        ) : null}
        {step !== question.revealStep && (
          <button
            type="button"
            className={styles.button}
            onClick={() => {
              pause();
              void seek('a', question.revealStep, { history: true });
            }}
          >
            Show it: go to step {formatCount(question.revealStep)}
          </button>
        )}
      </p>
    </div>
  );
}

/** The question shown at the current step (lane A; none in an A/B comparison), or nothing. */
export function QuestionCard() {
  const titleId = useId();
  const step = useRun((r) => r.targetStep);
  const question = useAppStore((s) => questionShownAt(s, step));
  const state = useAppStore((s) => (question ? questionState(s, question.index) : null));
  const setGuess = useAppStore((s) => s.setGuess);
  const reveal = useAppStore((s) => s.reveal);
  const skip = useAppStore((s) => s.skipQuestion);
  if (!question || !state) return null;
  return (
    <section className={styles.card} aria-labelledby={titleId} data-question={question.index}>
      <h2 id={titleId} className={styles.title}>
        Question <span className={styles.sub}>predict, then reveal · {question.chapter}</span>
      </h2>
      <p className={styles.prompt}>{question.prompt}</p>
      {state.revealed ? (
        <Answer question={question} state={state} />
      ) : (
        <>
          <GuessInput question={question} state={state} onGuess={(g) => setGuess(question.index, g)} />
          <p className={styles.actions}>
            <button type="button" className={`${styles.button} ${styles.primary}`} onClick={() => reveal(question.index)}>
              Reveal the answer
            </button>
            <button type="button" className={styles.button} onClick={() => skip(question.index)}>
              Skip the question
            </button>
          </p>
        </>
      )}
    </section>
  );
}
