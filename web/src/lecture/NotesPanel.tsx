// Speaker notes in lecture mode: the chapters with their narration (what to say) and the
// questions each asks, the current one marked; a chapter's title goes there. A panel toggled
// with N rather than a presenter window: see web/README.md ("Lecture mode").
import { useEffect, useRef } from 'react';
import { useAppStore, useLaneActions, useRun } from '../store/context';
import { questionsOf } from '../store/lectureSlice';
import { chapterIndexAt } from '../store/simSlice';
import styles from './NotesPanel.module.css';

/** The speaker notes. */
export function NotesPanel() {
  const chapters = useRun((r) => r.summary?.chapters);
  const step = useRun((r) => r.step);
  const questions = useAppStore((s) => questionsOf(s));
  const { seek } = useLaneActions();
  const pause = useAppStore((s) => s.pause);
  const current = chapters ? chapterIndexAt(chapters, step) : -1;
  const currentItem = useRef<HTMLLIElement>(null);
  useEffect(() => {
    currentItem.current?.scrollIntoView?.({ block: 'nearest' });
  }, [current]);
  if (!chapters) return null;
  return (
    <aside className={styles.notes} aria-label="Speaker notes">
      <h2 className={styles.title}>Speaker notes</h2>
      {chapters.length === 0 && <p>This scenario has no chapters.</p>}
      <ol className={styles.list}>
        {chapters.map((c, i) => (
          <li key={`${c.step}-${i}`} ref={i === current ? currentItem : undefined} aria-current={i === current ? 'step' : undefined} className={i === current ? styles.current : undefined}>
            <button
              type="button"
              className={styles.chapter}
              onClick={() => {
                pause();
                void seek(c.step, { history: true });
              }}
            >
              {i + 1}. {c.title}
            </button>
            {c.narration && <p className={styles.narration}>{c.narration}</p>}
            {questions
              .filter((q) => q.step === c.step)
              .map((q) => (
                <p key={q.index} className={styles.question}>
                  Asks: {q.prompt}
                </p>
              ))}
          </li>
        ))}
      </ol>
    </aside>
  );
}
