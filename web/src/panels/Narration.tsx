// The narration line: what just happened, on which CPU, in which function.
import { formatTimeNs, functionLabel } from '../base/format';
import { chapterIndexAt } from '../store/simSlice';
import { useRun } from '../store/context';
import styles from './Narration.module.css';

/** Large narration of the current event (or the chapter/scenario intro at step 0). */
export function Narration() {
  const frame = useRun((r) => r.frame);
  const summary = useRun((r) => r.summary);
  if (!frame || !summary) return null;
  const chapter = summary.chapters[chapterIndexAt(summary.chapters, frame.step)];
  const event = frame.event;
  const text = event?.narration ?? chapter?.narration ?? summary.description;
  return (
    <div className={styles.narration}>
      <p className={styles.text} aria-live="off">
        {text}
      </p>
      <p className={styles.meta}>
        {event ? (
          <>
            <span className={styles.cpu}>CPU {event.cpu}</span>
            {event.function && <code className={styles.fn}>{functionLabel(event.function)}</code>}
            <span className={styles.kind}>{event.kind.replace(/_/g, ' ')}</span>
          </>
        ) : (
          <span className={styles.kind}>start of the run</span>
        )}
        <span className={styles.time}>t = {formatTimeNs(frame.timeNs)}</span>
        {chapter && <span className={styles.chapter}>Chapter: {chapter.title}</span>}
      </p>
    </div>
  );
}
