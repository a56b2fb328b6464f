// The step scrubber (range input labelled "Step") with event marks beside it: one row per
// category of the events shown (from the engine's mechanism metadata; "other" is not marked).
import { scaleBand, scaleLinear } from 'd3';
import { useId, useMemo } from 'react';
import { formatCount } from '../base/format';
import { useAppStore } from '../store/context';
import { CATEGORIES, categoryColor, eventCategory, kindCategories, type EventCategory } from './eventKinds';
import styles from './Scrubber.module.css';

/** Marks width in viewBox units (stretched to the track). */
const MARKS_WIDTH = 1000;
const ROW_PX = 7;

/** Range input + marks of event kinds and chapters. */
export function Scrubber() {
  const id = useId();
  const step = useAppStore((s) => s.step);
  // The thumb follows the step asked for (a drag must not snap back while frames load); the "now" line the frame shown.
  const target = useAppStore((s) => s.targetStep);
  const total = useAppStore((s) => s.summary?.totalSteps ?? 0);
  const chapters = useAppStore((s) => s.summary?.chapters);
  const events = useAppStore((s) => s.events);
  const mechanisms = useAppStore((s) => s.mechanisms);
  const eventsComplete = useAppStore((s) => s.eventsComplete);
  const marked = useAppStore((s) => s.eventsWindow);
  const seek = useAppStore((s) => s.seek);
  const pause = useAppStore((s) => s.pause);

  const { marks, rows, present } = useMemo(() => {
    const kinds = kindCategories(mechanisms);
    const categories = new Set<EventCategory>(events.map((e) => eventCategory(e.kind, kinds)));
    const shown = CATEGORIES.filter((c) => c.id !== 'other' && categories.has(c.id));
    const rowScale = scaleBand<string>().domain(shown.map((c) => c.id)).range([0, shown.length * ROW_PX]);
    const x = scaleLinear().domain([0, Math.max(1, total)]).range([0, MARKS_WIDTH]);
    const list = events.flatMap((e) => {
      const cat = eventCategory(e.kind, kinds);
      const y = rowScale(cat);
      if (y === undefined) return [];
      return [{ key: e.step, x: x(e.step + 1), y, color: categoryColor(cat) }];
    });
    return { marks: list, rows: shown.length, present: shown };
  }, [events, mechanisms, total]);

  const x = scaleLinear().domain([0, Math.max(1, total)]).range([0, MARKS_WIDTH]);
  const heightPx = Math.max(1, rows) * ROW_PX + 6;
  return (
    <div className={styles.scrubber}>
      <label htmlFor={id} className={styles.label}>
        Step
      </label>
      <div className={styles.track}>
        <input
          id={id}
          className={styles.range}
          type="range"
          min={0}
          max={total}
          step={1}
          value={target}
          aria-valuetext={`step ${formatCount(target)} of ${formatCount(total)}`}
          onChange={(e) => {
            pause();
            void seek(Number(e.target.value));
          }}
        />
        <svg className={styles.marks} viewBox={`0 0 ${MARKS_WIDTH} ${heightPx}`} preserveAspectRatio="none" height={heightPx} aria-hidden="true">
          {chapters?.map((c, i) => (
            <line key={`c${i}`} x1={x(c.step)} x2={x(c.step)} y1={0} y2={heightPx} className={styles.chapterMark} />
          ))}
          {marks.map((m) => (
            <line key={m.key} x1={m.x} x2={m.x} y1={m.y + 3} y2={m.y + 3 + ROW_PX - 1} stroke={m.color} className={styles.mark} />
          ))}
          <line x1={x(step)} x2={x(step)} y1={0} y2={heightPx} className={styles.now} />
        </svg>
        <ul className={styles.legend} aria-label="Marks on the timeline, a row per kind, top first">
          {present.map((c, i) => (
            <li key={c.id}>
              {/* The key shows the kind's row as well as its colour: colour alone does not tell the rows apart. */}
              <svg className={styles.rowKey} viewBox={`0 0 10 ${present.length * 3}`} preserveAspectRatio="none" aria-hidden="true">
                {present.map((other, j) => (
                  <rect key={other.id} x={0} y={j * 3} width={10} height={j === i ? 3 : 2} style={{ fill: j === i ? c.color : 'var(--rule)' }} />
                ))}
              </svg>
              {c.label}
            </li>
          ))}
          {!eventsComplete && <li>Event marks: steps {formatCount(marked.from)}–{formatCount(marked.to)} only</li>}
          {chapters && chapters.length > 0 && (
            <li>
              <span className={styles.chapterSwatch} aria-hidden="true" />
              Chapters
            </li>
          )}
        </ul>
      </div>
    </div>
  );
}
