// The step scrubber (range input labelled "Step") with event marks beside it: one row per
// category of the events shown (from the engine's mechanism metadata; "other" is not marked),
// and above them the run's findings (a lost write, a stale-TLB store: base/findings.ts), for the
// whole run however long, each a triangle and a line in the danger colour (dotted lines: the steps
// that set a stale-TLB use up).
import { scaleBand, scaleLinear } from 'd3';
import { useId, useMemo } from 'react';
import { positionOf, type AbAxis } from '../base/abAxis';
import { formatCount } from '../base/format';
import type { SimEvent } from '../engine/types';
import { useAppStore, useCursor } from '../store/context';
import { CATEGORIES, categoryColor, eventCategory, kindCategories, type EventCategory } from './eventKinds';
import styles from './Scrubber.module.css';

/** Marks width in viewBox units (stretched to the track). */
const MARKS_WIDTH = 1000;
const ROW_PX = 7;
/** Height of a lane's findings row. */
const FINDING_PX = 9;

/** Where a lane's step sits on the scrubber: the step itself alone, its axis position in an A/B comparison. */
function placeOf(axis: AbAxis | null, lane: 'a' | 'b', step: number): number {
  return axis ? positionOf(axis, lane, step) : step;
}

/** Range input + marks of event kinds and chapters (in an A/B comparison, A's marks above B's). */
export function Scrubber() {
  const id = useId();
  // The thumb follows the position asked for (a drag must not snap back while frames load); the "now" line the one shown.
  const { position, target, first, last } = useCursor();
  const axis = useAppStore((s) => s.ab?.axis ?? null);
  const chapters = useAppStore((s) => s.runs.a.summary?.chapters);
  const eventsA = useAppStore((s) => s.runs.a.events);
  const eventsB = useAppStore((s) => s.runs.b.events);
  const findingsA = useAppStore((s) => s.runs.a.findings);
  const findingsB = useAppStore((s) => s.runs.b.findings);
  const mechanisms = useAppStore((s) => s.mechanisms);
  const eventsComplete = useAppStore((s) => s.runs.a.eventsComplete);
  const marked = useAppStore((s) => s.runs.a.eventsWindow);
  const seek = useAppStore((s) => s.seek);
  const pause = useAppStore((s) => s.pause);

  const { marks, rows, present, bandPx } = useMemo(() => {
    const kinds = kindCategories(mechanisms);
    const lanes: ['a' | 'b', readonly SimEvent[]][] = axis ? [['a', eventsA], ['b', eventsB]] : [['a', eventsA]];
    const categories = new Set<EventCategory>(lanes.flatMap(([, evs]) => evs.map((e) => eventCategory(e.kind, kinds))));
    const shown = CATEGORIES.filter((c) => c.id !== 'other' && categories.has(c.id));
    const band = shown.length * ROW_PX;
    const rowScale = scaleBand<string>().domain(shown.map((c) => c.id)).range([0, band]);
    const x = scaleLinear().domain([first, Math.max(first + 1, last)]).range([0, MARKS_WIDTH]);
    const list = lanes.flatMap(([lane, evs], li) =>
      evs.flatMap((e) => {
        const cat = eventCategory(e.kind, kinds);
        const y = rowScale(cat);
        if (y === undefined) return [];
        return [{ key: `${lane}${e.step}`, x: x(placeOf(axis, lane, e.step + 1)), y: y + li * (band + 4), color: categoryColor(cat) }];
      }),
    );
    return { marks: list, rows: shown.length * lanes.length, present: shown, bandPx: band };
  }, [eventsA, eventsB, axis, mechanisms, first, last]);

  const x = scaleLinear().domain([first, Math.max(first + 1, last)]).range([0, MARKS_WIDTH]);
  const findingLanes: ['a' | 'b', typeof findingsA][] = axis ? [['a', findingsA], ['b', findingsB]] : [['a', findingsA]];
  const anyFinding = findingLanes.some(([, f]) => f.length > 0);
  // The findings' row sits above the event rows (a triangle per finding, A's then B's in a comparison).
  const findingPx = anyFinding ? FINDING_PX * findingLanes.length : 0;
  const heightPx = Math.max(1, rows) * ROW_PX + 6 + (axis ? 4 : 0) + findingPx;
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
          min={first}
          max={last}
          step={1}
          value={target}
          aria-valuetext={axis ? `position ${formatCount(target)} of ${formatCount(last)} (A and B side by side)` : `step ${formatCount(target)} of ${formatCount(last)}`}
          onChange={(e) => {
            pause();
            void seek(Number(e.target.value));
          }}
        />
        <svg className={styles.marks} viewBox={`0 0 ${MARKS_WIDTH} ${heightPx}`} preserveAspectRatio="none" height={heightPx} aria-hidden="true">
          {findingLanes.flatMap(([lane, list], li) =>
            list.map((f, i) => {
              const fx = x(placeOf(axis, lane, f.step + 1));
              const top = li * FINDING_PX;
              return (
                <g key={`f${lane}${i}`} className={styles.finding} data-finding-step={f.step}>
                  <polygon points={`${fx - 6},${top + 1} ${fx + 6},${top + 1} ${fx},${top + FINDING_PX - 1}`} />
                  <line x1={fx} x2={fx} y1={top + FINDING_PX - 1} y2={heightPx} />
                  {/* The steps that set it up (the walk that cached the entry, the other CPU's change): a dotted line each. */}
                  {f.related.map((r) => {
                    const rx = x(placeOf(axis, lane, r.step + 1));
                    return <line key={r.step} className={styles.related} data-related-step={r.step} x1={rx} x2={rx} y1={top + 2} y2={heightPx} />;
                  })}
                </g>
              );
            }),
          )}
          <g transform={`translate(0 ${findingPx})`}>
          {chapters?.map((c, i) => (
            <line key={`c${i}`} x1={x(placeOf(axis, 'a', c.step))} x2={x(placeOf(axis, 'a', c.step))} y1={0} y2={heightPx} className={styles.chapterMark} />
          ))}
          {axis && <line x1={0} x2={MARKS_WIDTH} y1={bandPx + 5} y2={bandPx + 5} className={styles.chapterMark} />}
          {marks.map((m) => (
            <line key={m.key} x1={m.x} x2={m.x} y1={m.y + 3} y2={m.y + 3 + ROW_PX - 1} stroke={m.color} className={styles.mark} />
          ))}
          </g>
          <line x1={x(position)} x2={x(position)} y1={0} y2={heightPx} className={styles.now} />
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
          {anyFinding && (
            <li className={styles.findingKey}>
              <svg className={styles.rowKey} viewBox="0 0 12 10" aria-hidden="true">
                <polygon points="0,0 12,0 6,10" />
              </svg>
              Findings (lost write, stale-TLB use; dotted: the steps that set one up){axis ? ': A above, B below' : ''}
            </li>
          )}
          {axis && <li>Marks: A above, B below</li>}
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
