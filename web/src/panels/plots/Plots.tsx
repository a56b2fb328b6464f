// Plots: small multiples of chosen counters over the whole run's simulated time,
// with a cursor at the current step; clicking or dragging on a plot seeks there.
import { curveStepAfter, curveStepBefore, format, line, scaleLinear } from 'd3';
import { useId, useMemo, useRef, useState, type PointerEvent } from 'react';
import { defaultPlotCounters } from '../../base/mechanisms';
import type { CounterSeries } from '../../engine/types';
import { useAppStore, useLaneActions, useRun } from '../../store/context';
import panel from '../Panel.module.css';
import { nearestSampleIndex, ratePerUs, simNsToPx, stepAtPx, timeUnitForSpanNs, type TimeUnit } from './plotMath';
import styles from './Plots.module.css';

// Okabe–Ito colours readable on light and dark backgrounds (yellow and black left out).
const PALETTE = ['var(--oi-blue)', 'var(--oi-vermillion)', 'var(--oi-green)', 'var(--oi-purple)', 'var(--oi-orange)', 'var(--oi-skyblue)'];

// Plot geometry in viewBox units; the SVG scales to the panel's width.
const VIEW_W = 480;
const VIEW_H = 84;
const M = { left: 42, right: 8, top: 6, bottom: 18 };
const RANGE_PX: readonly [number, number] = [M.left, VIEW_W - M.right];

const formatCount = format('~s');
const formatRate = format('.2~g');
const formatTick = format('~g');

/** Run B's line on the same plot (an A/B comparison): drawn dashed, with its own cursor. */
interface Overlay {
  series: CounterSeries;
  values: number[];
  cursorNs: number;
  current: string;
}

interface PlotProps {
  name: string;
  colour: string;
  series: CounterSeries;
  values: number[];
  rate: boolean;
  unit: TimeUnit;
  cursorNs: number;
  /** The value to show beside the name (the current step's). */
  current: string;
  onSeek: (step: number) => void;
  overlay?: Overlay | null;
}

/** One counter over simulated time (A's, with B's dashed over it in an A/B comparison). */
function CounterPlot({ name, colour, series, values, rate, unit, cursorNs, current, onSeek, overlay }: PlotProps) {
  const seriesB = overlay?.series ?? null;
  const valuesB = overlay?.values ?? null;
  const { path, pathB, yTicks, y, domainNs } = useMemo(() => {
    const end = Math.max(series.timeNs.at(-1) ?? 0, seriesB?.timeNs.at(-1) ?? 0);
    const domain: readonly [number, number] = [series.timeNs[0] ?? 0, end];
    const max = Math.max(0, ...values, ...(valuesB ?? []));
    const yScale = scaleLinear()
      .domain([0, max > 0 ? max : 1])
      .nice(3)
      .range([VIEW_H - M.bottom, M.top]);
    // A counter keeps its value until its next sample (it changed at that sample's time);
    // a rate belongs to the interval that ends at its sample.
    const pathOf = (s: CounterSeries, vs: number[]): string =>
      line<number>()
        .x((_, i) => simNsToPx(s.timeNs[i] ?? 0, domain, RANGE_PX))
        .y((v) => yScale(v))
        .curve(rate ? curveStepBefore : curveStepAfter)(vs) ?? '';
    // Counts are whole numbers: no "0.5" ticks on a counter that reached 1.
    const ticks = yScale.ticks(3).filter((t) => rate || Number.isInteger(t));
    return { path: pathOf(series, values), pathB: seriesB && valuesB ? pathOf(seriesB, valuesB) : null, yTicks: ticks, y: yScale, domainNs: domain };
  }, [series, values, rate, seriesB, valuesB]);
  const xUnits = scaleLinear()
    .domain([domainNs[0] / unit.ns, domainNs[1] / unit.ns])
    .range(RANGE_PX);
  // The step last asked for by this drag, so that a drag within one sample asks only once.
  const asked = useRef<number | null>(null);

  const seekAt = (e: PointerEvent<SVGSVGElement>): void => {
    const rect = e.currentTarget.getBoundingClientRect();
    // Client pixels to viewBox units (the SVG is scaled to the panel's width).
    const px = rect.width > 0 ? ((e.clientX - rect.left) * VIEW_W) / rect.width : e.clientX;
    const step = stepAtPx(series, px, domainNs, RANGE_PX);
    if (step === null || step === asked.current) return;
    asked.current = step;
    onSeek(step);
  };

  const cursorPx = simNsToPx(cursorNs, domainNs, RANGE_PX);
  return (
    <figure className={styles.plot}>
      <figcaption className={styles.caption}>
        <span className={styles.swatch} style={{ background: colour }} aria-hidden="true" />
        <span className={styles.name}>{name}</span>
        <span className={styles.value}>
          {overlay ? `A ${current} · B ${overlay.current}` : current}
        </span>
      </figcaption>
      <svg
        className={styles.svg}
        viewBox={`0 0 ${VIEW_W} ${VIEW_H}`}
        role="img"
        aria-label={`${name}${rate ? ' per µs' : ''} over simulated time${overlay ? ', A solid and B dashed' : ''}; click to go to that time${overlay ? ' in A' : ''}`}
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          asked.current = null;
          try {
            e.currentTarget.setPointerCapture(e.pointerId);
          } catch {
            // Not every pointer (or test DOM) can be captured; the click still seeks.
          }
          seekAt(e);
        }}
        onPointerMove={(e) => {
          if (e.buttons & 1) seekAt(e);
        }}
      >
        {/* The plotted area, for the e2e page object to aim at; clicks anywhere on the SVG seek. */}
        <rect className={styles.area} x={RANGE_PX[0]} y={M.top} width={RANGE_PX[1] - RANGE_PX[0]} height={VIEW_H - M.bottom - M.top} data-plot-area="" />
        {yTicks.map((t) => (
          <g key={t} className={styles.grid}>
            <line x1={RANGE_PX[0]} x2={RANGE_PX[1]} y1={y(t)} y2={y(t)} />
            <text x={RANGE_PX[0] - 4} y={y(t)} dy="0.32em" textAnchor="end">
              {rate ? formatRate(t) : formatCount(t)}
            </text>
          </g>
        ))}
        {xUnits.ticks(6).map((t) => (
          <g key={t} className={styles.grid}>
            <line x1={xUnits(t)} x2={xUnits(t)} y1={VIEW_H - M.bottom} y2={VIEW_H - M.bottom + 3} />
            <text x={xUnits(t)} y={VIEW_H - 3} textAnchor="middle">
              {formatTick(t)}
            </text>
          </g>
        ))}
        {/* Below the y labels, where no time tick is. */}
        <text className={styles.unit} x={RANGE_PX[0] - 4} y={VIEW_H - 3} textAnchor="end">
          {unit.label}
        </text>
        <path className={styles.line} d={path} stroke={colour} data-counter={name} />
        {pathB !== null && <path className={`${styles.line} ${styles.lineB}`} d={pathB} stroke={colour} data-counter={`${name}:b`} />}
        <line className={styles.cursor} data-plot-cursor="" x1={cursorPx} x2={cursorPx} y1={M.top} y2={VIEW_H - M.bottom} />
        {overlay && (
          <line
            className={`${styles.cursor} ${styles.cursorB}`}
            data-plot-cursor="b"
            x1={simNsToPx(overlay.cursorNs, domainNs, RANGE_PX)}
            x2={simNsToPx(overlay.cursorNs, domainNs, RANGE_PX)}
            y1={M.top}
            y2={VIEW_H - M.bottom}
          />
        )}
      </svg>
    </figure>
  );
}

/** Every counter of `series` as a rate per µs (none unless `rate`). */
function ratesOf(series: CounterSeries | null, rate: boolean): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  if (series && rate) for (const [name, values] of Object.entries(series.counters)) out[name] = ratePerUs(series.timeNs, values);
  return out;
}

/** The compact, keyboard-usable counter picker: a disclosure holding one checkbox per counter. */
function CounterPicker({ names, chosen, onChange }: { names: string[]; chosen: string[]; onChange: (next: string[]) => void }) {
  return (
    <details className={styles.picker}>
      <summary>Counters ({chosen.length})</summary>
      <fieldset className={styles.choices}>
        <legend className={styles.hidden}>Counters to plot</legend>
        {names.map((name) => (
          <label key={name} className={styles.choice}>
            <input
              type="checkbox"
              checked={chosen.includes(name)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, name] : chosen.filter((c) => c !== name))}
            />
            {name}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

/** The Plots panel (collapsible). */
export function Plots() {
  const summary = useRun((r) => r.summary);
  const series = useRun((r) => r.series);
  const frame = useRun((r) => r.frame);
  const laneActions = useLaneActions();
  const seek = laneActions.seek;
  const mechanisms = useAppStore((s) => s.mechanisms);
  // In an A/B comparison B's series is drawn over A's.
  const seriesB = useAppStore((s) => (s.ab ? s.runs.b.series : null));
  const frameB = useAppStore((s) => (s.ab ? s.runs.b.frame : null));
  const [open, setOpen] = useState(true);
  // The user's pick; until there is one, each run plots what its mechanisms' views name (defaultPlotCounters).
  // What is plotted is part of the link (the store's `plots`).
  const plots = useAppStore((s) => s.plots);
  const setPlots = useAppStore((s) => s.setPlots);
  const picked = plots.counters;
  const rate = plots.rate;
  const bodyId = useId();
  const rates = useMemo(() => ratesOf(series, rate), [series, rate]);
  const ratesB = useMemo(() => ratesOf(seriesB, rate), [seriesB, rate]);
  const counterNames = summary?.counterNames;
  const names = useMemo(() => (counterNames && counterNames.length > 0 ? counterNames : Object.keys(series?.counters ?? {})), [counterNames, series]);
  const defaults = useMemo(() => (series ? defaultPlotCounters(mechanisms, series, names) : []), [mechanisms, series, names]);
  if (!summary || !frame || !series) return null;

  const chosen = picked ?? defaults;
  // A counter this run does not have (e.g. after switching scenarios) stays chosen but is not drawn.
  const shown = chosen.filter((name) => series.counters[name] !== undefined);
  const unit = timeUnitForSpanNs((series.timeNs.at(-1) ?? 0) - (series.timeNs[0] ?? 0));
  const sampleNow = nearestSampleIndex(series.timeNs, frame.timeNs);

  return (
    <section className={panel.panel} aria-labelledby={`${bodyId}-title`}>
      <h2 id={`${bodyId}-title`} className={panel.title}>
        <button type="button" className={styles.disclosure} aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> Plots
        </button>
        <span className={panel.subtitle}>
          whole run, {series.steps.length.toLocaleString('en')} samples{seriesB ? '; A solid, B dashed' : ''}
        </span>
      </h2>
      <div id={bodyId} hidden={!open}>
        <div className={styles.controls}>
          <CounterPicker names={names} chosen={chosen} onChange={(counters) => setPlots({ ...plots, counters })} />
          <button type="button" className={panel.smallButton} aria-pressed={rate} onClick={() => setPlots({ ...plots, rate: !rate })}>
            Rate per µs
          </button>
        </div>
        {shown.length === 0 && <p className={styles.empty}>No counter chosen: pick some under “Counters”.</p>}
        {shown.map((name, i) => {
          const values = rate ? (rates[name] ?? []) : (series.counters[name] ?? []);
          const current = rate ? `${formatRate(values[sampleNow] ?? 0)} /µs` : (frame.counters[name] ?? 0).toLocaleString('en');
          let overlay: Overlay | null = null;
          if (seriesB && frameB && seriesB.counters[name] !== undefined) {
            const valuesB = rate ? (ratesB[name] ?? []) : (seriesB.counters[name] ?? []);
            const nowB = nearestSampleIndex(seriesB.timeNs, frameB.timeNs);
            overlay = {
              series: seriesB,
              values: valuesB,
              cursorNs: frameB.timeNs,
              current: rate ? `${formatRate(valuesB[nowB] ?? 0)} /µs` : (frameB.counters[name] ?? 0).toLocaleString('en'),
            };
          }
          return (
            <CounterPlot
              key={name}
              name={name}
              colour={PALETTE[i % PALETTE.length] as string}
              series={series}
              values={values}
              rate={rate}
              unit={unit}
              cursorNs={frame.timeNs}
              current={current}
              onSeek={(step) => void seek(step, { history: true })}
              overlay={overlay}
            />
          );
        })}
      </div>
    </section>
  );
}
