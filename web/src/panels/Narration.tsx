// The narration line: what just happened, on which CPU, in which function; and the polite live
// region that reads it to screen readers once the step holds still.
import { useEffect, useState } from 'react';
import { formatCount, formatTimeNs, functionLabel } from '../base/format';
import type { Frame, ScenarioSummary } from '../engine/types';
import { chapterIndexAt } from '../store/simSlice';
import { useAppStore, useLane, useRun } from '../store/context';
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

/** How long a step must stay on screen before it is read out: holding an arrow key, or a run of
 * PageDowns, reads only the step it stops at. While playing nothing is read; pausing reads the step. */
export const ANNOUNCE_DELAY_MS = 400;

/** What the live region says for a frame: "Step 41 of 161. CPU 2, should_numa_migrate_memory(): …", with the chapter when one starts here. */
export function announcement(frame: Frame, summary: ScenarioSummary): string {
  const i = chapterIndexAt(summary.chapters, frame.step);
  const chapter = summary.chapters[i];
  const starts = chapter !== undefined && chapter.step === frame.step ? `Chapter ${i + 1} of ${summary.chapters.length}: ${chapter.title}. ` : '';
  const event = frame.event;
  const what = event ? `CPU ${event.cpu}${event.function ? `, ${functionLabel(event.function)}` : ''}: ${event.narration}` : (chapter?.narration ?? summary.description);
  return `Step ${formatCount(frame.step)} of ${formatCount(summary.totalSteps)}. ${starts}${what}`;
}

/** The live region (visually hidden): reads the narration on pause and after each step, never while playing. */
export function NarrationAnnouncer() {
  const frame = useRun((r) => r.frame);
  const summary = useRun((r) => r.summary);
  const lane = useLane();
  const inAb = useAppStore((s) => s.ab !== null);
  const playing = useAppStore((s) => s.playing);
  const [said, setSaid] = useState('');
  const text = frame && summary ? announcement(frame, summary) : '';
  useEffect(() => {
    if (playing || text === '') return;
    const timer = setTimeout(() => setSaid(text), ANNOUNCE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, playing]);
  return (
    <div className="visually-hidden" role="status" aria-label={inAb ? `Narration of run ${lane.toUpperCase()}` : 'Narration'} aria-live="polite" aria-atomic="true">
      {inAb && said !== '' ? `Run ${lane.toUpperCase()}: ${said}` : said}
    </div>
  );
}
