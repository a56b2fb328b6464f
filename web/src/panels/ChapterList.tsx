// Chapter list: click to seek; the current chapter is marked.
import { useId } from 'react';
import { formatCount } from '../base/format';
import { chapterIndexAt } from '../store/simSlice';
import { useAppStore, useLaneActions, useRun } from '../store/context';
import panel from './Panel.module.css';
import styles from './ChapterList.module.css';

/** The scenario's chapters as buttons. */
export function ChapterList() {
  const titleId = useId();
  const chapters = useRun((r) => r.summary?.chapters);
  const step = useRun((r) => r.step);
  const laneActions = useLaneActions();
  const seek = laneActions.seek;
  const pause = useAppStore((s) => s.pause);
  if (!chapters || chapters.length === 0) return null;
  const current = chapterIndexAt(chapters, step);
  return (
    <nav className={panel.panel} aria-labelledby={titleId}>
      <h2 id={titleId} className={panel.title}>
        Chapters <span className={panel.subtitle}>PageUp / PageDown</span>
      </h2>
      <ol className={styles.list}>
        {chapters.map((c, i) => (
          <li key={`${c.step}-${i}`}>
            <button
              type="button"
              className={styles.chapter}
              aria-current={i === current ? 'step' : undefined}
              title={c.narration}
              onClick={() => {
                pause();
                void seek(c.step, { history: true });
              }}
            >
              <span className={styles.step}>{formatCount(c.step)}</span>
              <span>{c.title}</span>
            </button>
          </li>
        ))}
      </ol>
    </nav>
  );
}
