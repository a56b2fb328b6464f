// A sweep's report as small multiples: one small chart per counter, the varied parameter's
// values on a shared x scale, the counter's change (or each toggle value's own value) on a
// y scale of its own, labelled with its unit. Each dot is a run and a link that opens it in
// the lab; with several seeds a bar marks their mean and a whisker their min and max. D3
// gives the scales and ticks; React draws.
import { extent, scaleLinear, type ScaleLinear } from 'd3';
import { useId } from 'react';
import styles from './SweepCharts.module.css';
import { formatValue, type ChartSeries, type SmallMultiple } from './sweepModel';

/** Size of one chart's SVG and its margins, in CSS px. */
const WIDTH_PX = 300;
const HEIGHT_PX = 200;
const MARGIN = { top: 12, right: 14, bottom: 40, left: 62 };
const PLOT_W = WIDTH_PX - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT_PX - MARGIN.top - MARGIN.bottom;
/** How far apart the dots of one x are drawn, per seed, in px. */
const SEED_SPREAD_PX = 3.5;

/** Colours of the toggle values, in order (Okabe-Ito, colour-blind safe): the first one compared against is blue. */
const COLOURS = ['var(--oi-blue)', 'var(--oi-vermillion)', 'var(--oi-green)', 'var(--oi-purple)', 'var(--oi-orange)', 'var(--oi-skyblue)'];

/** The colour of a toggle value's series. */
function colourOf(i: number): string {
  return COLOURS[i % COLOURS.length] ?? 'var(--ink)';
}

/** The shared x scale: the varied values (or one slot without a varied parameter). */
export function xScaleFor(values: readonly number[]): ScaleLinear<number, number> {
  if (values.length === 0) return scaleLinear().domain([-1, 1]).range([0, PLOT_W]);
  const [lo, hi] = extent(values) as [number, number];
  const pad = hi > lo ? (hi - lo) * 0.08 : Math.max(1, Math.abs(lo) * 0.1);
  return scaleLinear()
    .domain([lo - pad, hi + pad])
    .range([0, PLOT_W]);
}

/** A chart's y scale: every dot and whisker, and 0 for changes. */
function yScaleFor(m: SmallMultiple, withZero: boolean): ScaleLinear<number, number> {
  const ys: number[] = withZero ? [0] : [];
  for (const s of m.series) {
    for (const p of s.points) ys.push(p.y);
    for (const a of s.means) ys.push(a.min, a.max);
  }
  const [lo, hi] = ys.length > 0 ? (extent(ys) as [number, number]) : [0, 1];
  const span = hi - lo || Math.max(1, Math.abs(hi) * 0.1);
  // Not niced: a nice domain can leave half the chart empty (0 to -150 for changes near -95 %).
  return scaleLinear()
    .domain([lo - span * 0.08, hi + span * 0.08])
    .range([PLOT_H, 0]);
}

/** One series: lines through the means, whiskers with caps and a bar at the mean when there are several seeds, and a link per run. */
function Series({ s, y, xOf, seeds, onOpen }: { s: ChartSeries; y: ScaleLinear<number, number>; xOf: (v: number | null) => number; seeds: number; onOpen: (href: string) => void }) {
  const colour = colourOf(s.colour);
  const path = s.means
    .map((m) => ({ px: xOf(m.x), py: y(m.mean) }))
    .sort((a, b) => a.px - b.px)
    .map((p, i) => `${i === 0 ? 'M' : 'L'}${p.px.toFixed(1)},${p.py.toFixed(1)}`)
    .join('');
  return (
    <g data-series={s.toggleValue}>
      {s.means.length > 1 && <path d={path} fill="none" stroke={colour} strokeWidth={1.5} strokeOpacity={0.7} />}
      {seeds > 1 &&
        s.means.map((m) => {
          const px = xOf(m.x);
          return (
            <g key={`m${m.x}`} data-mean={m.mean} aria-hidden="true">
              <line x1={px} x2={px} y1={y(m.min)} y2={y(m.max)} stroke={colour} strokeWidth={1.5} />
              <line x1={px - 4} x2={px + 4} y1={y(m.min)} y2={y(m.min)} stroke={colour} strokeWidth={1.5} />
              <line x1={px - 4} x2={px + 4} y1={y(m.max)} y2={y(m.max)} stroke={colour} strokeWidth={1.5} />
              <line x1={px - 9} x2={px + 9} y1={y(m.mean)} y2={y(m.mean)} stroke={colour} strokeWidth={3} />
            </g>
          );
        })}
      {s.points.map((p) => {
        const offset = seeds > 1 ? (p.seedIndex - (seeds - 1) / 2) * SEED_SPREAD_PX : 0;
        return (
          <a
            key={`${p.x}:${p.seed}`}
            href={p.href}
            aria-label={p.label}
            className={styles.point}
            onClick={(e) => {
              // A plain click opens the run here (the dialog closes); with a modifier the browser opens it elsewhere.
              if (e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey) onOpen(p.href);
            }}
          >
            <title>{p.label}</title>
            <circle
              cx={xOf(p.x) + offset}
              cy={y(p.y)}
              r={seeds > 1 ? 3.5 : 4.5}
              fill={seeds > 1 ? 'var(--bg)' : colour}
              stroke={colour}
              strokeWidth={1.8}
              data-y={p.y}
              data-seed={p.seed}
            />
          </a>
        );
      })}
    </g>
  );
}

/** One small chart. */
function Chart({
  m,
  x,
  xValues,
  xName,
  withZero,
  seeds,
  doc,
  onOpen,
}: {
  m: SmallMultiple;
  x: ScaleLinear<number, number>;
  xValues: readonly number[];
  xName: string | null;
  withZero: boolean;
  seeds: number;
  doc: string;
  onOpen: (href: string) => void;
}) {
  const titleId = useId();
  const y = yScaleFor(m, withZero);
  const xOf = (v: number | null): number => (v === null ? PLOT_W / 2 : x(v));
  const xTicks = xValues.length > 0 && xValues.length <= 8 ? xValues : x.ticks(6);
  const yTicks = y.ticks(4);
  const yFormat = y.tickFormat(4, '~s');
  return (
    <figure className={styles.chart} data-column={m.column}>
      <figcaption id={titleId} className={styles.caption} title={doc || undefined}>
        <code>{m.column}</code>
      </figcaption>
      <svg width={WIDTH_PX} height={HEIGHT_PX} role="group" aria-labelledby={titleId} aria-description={`${m.yLabel} per ${xName ?? 'run'}`} className={styles.svg}>
        <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
          <rect width={PLOT_W} height={PLOT_H} className={styles.area} data-plot-area="" />
          {yTicks.map((t) => (
            <g key={`y${t}`} transform={`translate(0,${y(t)})`}>
              <line x2={PLOT_W} className={t === 0 && withZero ? styles.zero : styles.gridline} />
              <text x={-6} dy="0.32em" textAnchor="end" className={styles.tick}>
                {yFormat(t)}
              </text>
            </g>
          ))}
          {xValues.length > 0 &&
            xTicks.map((t) => (
              <g key={`x${t}`} transform={`translate(${x(t)},${PLOT_H})`}>
                <line y2={5} className={styles.axis} />
                <text y={17} textAnchor="middle" className={styles.tick}>
                  {formatValue(t)}
                </text>
              </g>
            ))}
          <line y1={PLOT_H} y2={PLOT_H} x2={PLOT_W} className={styles.axis} />
          <line y2={PLOT_H} className={styles.axis} />
          {m.series.map((s) => (
            <Series key={s.toggleValue} s={s} y={y} xOf={xOf} seeds={seeds} onOpen={onOpen} />
          ))}
          <text x={PLOT_W / 2} y={PLOT_H + 34} textAnchor="middle" className={styles.axisLabel}>
            {xName ?? ''}
          </text>
          <text transform={`translate(${-MARGIN.left + 12},${PLOT_H / 2}) rotate(-90)`} textAnchor="middle" className={styles.axisLabel}>
            {m.yLabel}
          </text>
        </g>
      </svg>
    </figure>
  );
}

/** The small multiples with their legend. */
export function SweepCharts({
  multiples,
  xValues,
  xName,
  withZero,
  seeds,
  docs,
  onOpen,
}: {
  multiples: readonly SmallMultiple[];
  /** The varied parameter's values (empty without one). */
  xValues: readonly number[];
  xName: string | null;
  /** Changes: draw the zero line and keep it in view. */
  withZero: boolean;
  /** Seeds per point: with more than one, dots are hollow and bars mark the mean. */
  seeds: number;
  /** What each column counts, for its tooltip. */
  docs: Readonly<Record<string, string>>;
  /** Called when a run's link is followed here. */
  onOpen: (href: string) => void;
}) {
  const x = xScaleFor(xValues);
  const legend = multiples[0]?.series ?? [];
  return (
    <div className={styles.wrap}>
      <ul className={styles.legend} aria-label="Legend">
        {legend.map((s) => (
          <li key={s.toggleValue}>
            <svg width={14} height={14} aria-hidden="true">
              <circle cx={7} cy={7} r={5} fill={colourOf(s.colour)} />
            </svg>{' '}
            {s.legend}
          </li>
        ))}
        {seeds > 1 && <li>○ a seed's run · bar: mean of {seeds} seeds · whisker: min to max</li>}
        {seeds === 1 && <li>● a run</li>}
      </ul>
      <div className={styles.multiples} role="list" aria-label="Charts">
        {multiples.map((m) => (
          <div role="listitem" key={m.column}>
            <Chart m={m} x={x} xValues={xValues} xName={xName} withZero={withZero} seeds={seeds} doc={docs[m.column] ?? ''} onOpen={onOpen} />
          </div>
        ))}
      </div>
    </div>
  );
}
