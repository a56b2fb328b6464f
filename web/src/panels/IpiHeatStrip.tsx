// The IPI heat strip: per CPU, how many flush IPIs it received over simulated time, one
// strip per run (A above B in an A/B comparison) on one time axis, with each run's current
// time marked. Counted from the run's events (`ipi_recv`, the receiving CPU), so a run too
// long to fetch every event shows the window of events it has, and says so.
import { scaleLinear } from 'd3';
import { useId, useMemo } from 'react';
import { formatCount, formatTimeNs } from '../base/format';
import type { SimEvent } from '../engine/types';
import { useAppStore } from '../store/context';
import type { LaneId, RunState } from '../store/types';
import panel from './Panel.module.css';
import styles from './IpiHeatStrip.module.css';

/** Time bins across the strip. */
export const BINS = 80;

/** The event kind of an IPI's receipt. */
const IPI_RECV = 'ipi_recv';

/** Per CPU (index), per bin: IPIs received, over `[0, endNs]` cut into `bins` bins. */
export function ipiCounts(events: readonly SimEvent[], cpus: number, endNs: number, bins = BINS): number[][] {
  const out = Array.from({ length: cpus }, () => new Array<number>(bins).fill(0));
  const span = Math.max(1, endNs);
  for (const e of events) {
    if (e.kind !== IPI_RECV || e.cpu < 0 || e.cpu >= cpus) continue;
    const bin = Math.min(bins - 1, Math.max(0, Math.floor((e.timeNs / span) * bins)));
    const row = out[e.cpu] as number[];
    row[bin] = (row[bin] ?? 0) + 1;
  }
  return out;
}

const VIEW_W = 600;
const LABEL_W = 44;

/** CPUs of a run's machine. */
function cpuCount(run: RunState): number {
  return run.summary?.topology.nodes.reduce((n, node) => n + node.cpus.length, 0) ?? 0;
}

/** One run's strip. */
function Strip({ lane, run, counts, endNs, max, showLabel }: { lane: LaneId; run: RunState; counts: number[][]; endNs: number; max: number; showLabel: boolean }) {
  const cpus = counts.length;
  const rowPx = Math.max(2, Math.min(12, Math.floor(180 / Math.max(1, cpus))));
  const heightPx = cpus * rowPx;
  const x = scaleLinear().domain([0, BINS]).range([LABEL_W, VIEW_W]);
  const cellW = x(1) - x(0);
  const total = counts.reduce((n, row) => n + row.reduce((m, v) => m + v, 0), 0);
  const nowPx = LABEL_W + ((run.frame?.timeNs ?? 0) / Math.max(1, endNs)) * (VIEW_W - LABEL_W);
  const busiest = counts
    .map((row, cpu) => ({ cpu, n: row.reduce((m, v) => m + v, 0) }))
    .filter((c) => c.n > 0)
    .sort((p, q) => q.n - p.n)
    .slice(0, 4);
  const label = `Run ${lane.toUpperCase()}: ${formatCount(total)} IPIs received${busiest.length ? `, most by ${busiest.map((c) => `CPU ${c.cpu} (${c.n})`).join(', ')}` : ''}`;
  return (
    <figure className={styles.strip}>
      {showLabel && (
        <figcaption className={styles.caption}>
          <span className={lane === 'a' ? styles.laneA : styles.laneB}>{lane.toUpperCase()}</span> {formatCount(total)} IPIs received
        </figcaption>
      )}
      <svg viewBox={`0 0 ${VIEW_W} ${heightPx}`} className={styles.svg} role="img" aria-label={label}>
        {counts.map((row, cpu) => (
          <g key={cpu}>
            {cpu % Math.max(1, Math.ceil(12 / rowPx)) === 0 && (
              <text x={LABEL_W - 4} y={cpu * rowPx + rowPx / 2} dy="0.35em" textAnchor="end" className={styles.cpuLabel}>
                {cpu}
              </text>
            )}
            {row.map((n, bin) =>
              n > 0 ? (
                <rect key={bin} x={x(bin)} y={cpu * rowPx} width={cellW} height={rowPx - (rowPx > 3 ? 1 : 0)} className={styles.cell} fillOpacity={0.25 + (0.75 * n) / Math.max(1, max)}>
                  <title>{`CPU ${cpu}: ${n} IPI${n === 1 ? '' : 's'} received`}</title>
                </rect>
              ) : null,
            )}
          </g>
        ))}
        <line x1={nowPx} x2={nowPx} y1={0} y2={heightPx} className={styles.now} />
      </svg>
    </figure>
  );
}

/** The IPI heat strip panel (both runs in an A/B comparison). */
export function IpiHeatStrip() {
  const titleId = useId();
  const runA = useAppStore((s) => s.runs.a);
  const runB = useAppStore((s) => s.runs.b);
  const inAb = useAppStore((s) => s.ab !== null);
  const endNs = Math.max(runA.series?.timeNs.at(-1) ?? 0, inAb ? (runB.series?.timeNs.at(-1) ?? 0) : 0, 1);
  const cpusA = cpuCount(runA);
  const cpusB = cpuCount(runB);
  const countsA = useMemo(() => ipiCounts(runA.events, cpusA, endNs), [runA.events, cpusA, endNs]);
  const countsB = useMemo(() => (inAb ? ipiCounts(runB.events, cpusB, endNs) : []), [inAb, runB.events, cpusB, endNs]);
  if (!runA.summary) return null;
  const lanes: [LaneId, RunState, number[][]][] = inAb ? [['a', runA, countsA], ['b', runB, countsB]] : [['a', runA, countsA]];
  const max = Math.max(0, ...lanes.flatMap(([, , c]) => c.map((row) => Math.max(0, ...row))));
  const partial = lanes.some(([, r]) => !r.eventsComplete);
  return (
    <section className={panel.panel} aria-labelledby={titleId}>
      <h2 id={titleId} className={panel.title}>
        IPIs per CPU <span className={panel.subtitle}>flush IPIs received over simulated time, 0 – {formatTimeNs(endNs)}</span>
      </h2>
      {max === 0 ? <p className={styles.none}>No CPU received an IPI in {inAb ? 'either run' : 'this run'}.</p> : null}
      {lanes.map(([lane, r, c]) => (
        <Strip key={lane} lane={lane} run={r} counts={c} endNs={endNs} max={max} showLabel={inAb} />
      ))}
      {partial && <p className={styles.none}>A long run: only the IPIs of the events fetched around the current step are counted.</p>}
    </section>
  );
}
