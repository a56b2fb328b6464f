// The NUMA balancing panel (issue 6): per process the scanner's sweep (each VMA a bar of
// cells, PROT_NONE hint PTEs not yet faulted in orange, present PTEs in blue, the saved scan
// offset and the chunk change_prot_numa is marking, highlighted at scan_* events, with
// numa_scan_seq, the next scan time and the scan period); the hint faults with the
// two-stage filter's branch, its reason and the outcome; the IPI fan-out of a shootdown over
// the process's mm_cpumask (who gets an IPI, who is lazy and does not); the counters; and
// the shootdown IPIs over time stacked by cause with the migrations beside them. Everything
// but the plot comes from the frame (`views.numa`, the engine's NumaView at this step, and
// its ipis, mmCpumask and cpus); the plot from the run's counter series.
import { area, format, line, scaleLinear } from 'd3';
import { useId, useMemo, useRef, type PointerEvent } from 'react';
import { formatCount } from '../../base/format';
import type { HintFaultView } from '../../engine/generated/HintFaultView';
import type { NumaProcessView } from '../../engine/generated/NumaProcessView';
import type { NumaView } from '../../engine/generated/NumaView';
import type { ScanVmaView } from '../../engine/generated/ScanVmaView';
import type { CounterSeries, Frame, ScenarioSummary } from '../../engine/types';
import { useLaneActions, useRun } from '../../store/context';
import { MechanismPanel } from '../MechanismPanel';
import panel from '../Panel.module.css';
import { nearestSampleIndex, simNsToPx, stepAtPx, timeUnitForSpanNs } from '../plots/plotMath';
import type { MechanismPanelProps } from '../registry';
import { barCells, capFanout, CAUSE_LABEL, CAUSES, causeSeries, decisionText, fanout, nextScanText, outcomeText, RULE_LABEL, sentBySender, spanFraction, stackCauses, vpnToFraction } from './numaModel';
import styles from './NumaPanel.module.css';

/** Counters in the panel's header strip. */
const HEADLINE = ['numa_pte_updates', 'numa_hint_faults', 'numa_hint_faults_local', 'numa_pages_migrated', 'irq_tlb_count', 'nr_tlb_remote_flush'];

/** CPUs drawn in a fan-out (a big machine's others are counted). */
const FANOUT_SHOWN = 40;

/** Hint faults drawn as cards (the view lists a few more). */
const FAULTS_SHOWN = 3;

const BAR_W = 600;
const BAR_H = 34;
/** Room left and right of a bar for the scan-offset marker. */
const BAR_PAD = 8;
const PLOT_W = 600;
const PLOT_H = 120;
const M = { left: 44, right: 44, top: 6, bottom: 18 };
const RANGE_PX: readonly [number, number] = [M.left, PLOT_W - M.right];
const CAUSE_COLOURS: Readonly<Record<string, string>> = {
  scan: 'var(--oi-skyblue)',
  mapped: 'var(--oi-vermillion)',
  race: 'var(--oi-purple)',
  pending: 'var(--oi-orange)',
  other: 'var(--ink-faint)',
};
const fmtTick = format('~s');
const fmtAxis = format('~g');

/** The NUMA panel (view "numa"); the generic panel when the frame carries no NUMA state. */
export function NumaPanel(props: MechanismPanelProps) {
  const frame = useRun((r) => r.frame);
  const summary = useRun((r) => r.summary);
  const series = useRun((r) => r.series);
  const laneActions = useLaneActions();
  const seek = laneActions.seek;
  const id = useId();
  const v = frame?.views.numa as NumaView | undefined;
  if (!frame || !v || !summary) return <MechanismPanel {...props} />;
  const migrated = frame.counters.numa_pages_migrated ?? 0;
  const ipis = frame.counters.irq_tlb_count ?? 0;
  return (
    <section className={`${panel.panel} ${styles.numa}`} aria-labelledby={`${id}-title`} data-mechanism={props.mechanism.id} data-view={props.view.id}>
      <h2 id={`${id}-title`} className={panel.title}>
        {props.view.title}
        <span className={panel.subtitle}>
          {v.delayMap ? 'v5.13 flow: migrate, map only on failure' : 'v5.12 flow: map, then migrate'}
          {' · '}
          {v.skipDirtyFile ? 'dirty file pages skipped' : 'dirty file pages scanned'}
          {v.balancing ? '' : ' · automatic scanner off'}
        </span>
      </h2>
      <dl className={styles.counters} data-testid="numa-counters">
        {HEADLINE.map((name) => {
          const delta = frame.event?.counterDeltas[name] ?? 0;
          return (
            <div key={name} className={delta !== 0 ? styles.active : undefined} data-counter={name}>
              <dt>{name}</dt>
              <dd>{formatCount(frame.counters[name] ?? 0)}</dd>
            </div>
          );
        })}
        <div data-counter="ipis-per-migrated-page">
          <dt>IPIs / migrated page</dt>
          <dd>{migrated > 0 ? (ipis / migrated).toFixed(2) : '—'}</dd>
        </div>
      </dl>
      <div className={styles.columns}>
        <div className={styles.column}>
          <h3 className={styles.heading}>Scanner</h3>
          {v.nrProcesses > v.processes.length && (
            <p className={styles.note} data-testid="numa-capped">
              Showing {v.processes.length} of {v.nrProcesses} processes.
            </p>
          )}
          {v.processes.map((p) => (
            <ProcessScan key={p.pid} p={p} frame={frame} summary={summary} />
          ))}
        </div>
        <div className={styles.column}>
          <h3 className={styles.heading}>TLB shootdown</h3>
          <Shootdowns v={v} frame={frame} />
          <h3 className={styles.heading}>Hint fault</h3>
          <Faults v={v} />
        </div>
      </div>
      {series && <CausePlot series={series} frame={frame} onSeek={(step) => void seek(step, { history: true })} />}
    </section>
  );
}

/** One process's scanner: its numbers and a bar per VMA. */
function ProcessScan({ p, frame, summary }: { p: NumaProcessView; frame: Frame; summary: ScenarioSummary }) {
  const proc = summary.processes.find((x) => x.pid === p.pid);
  const ev = frame.event;
  const scanEvent = ev !== null && ev.kind.startsWith('scan_');
  const evPte = scanEvent ? ev.touched.ptes.find(([pid]) => pid === p.pid) : undefined;
  const highlighted = scanEvent && (evPte !== undefined || (p.scanning !== null && ev.cpu === p.scanning.cpu));
  const period = p.scanPeriodMs === null ? 'not started' : p.scanPeriodMs[0] === p.scanPeriodMs[1] ? `${p.scanPeriodMs[0]} ms` : `${p.scanPeriodMs[0]}–${p.scanPeriodMs[1]} ms`;
  return (
    <div className={highlighted ? `${styles.proc} ${styles.procActive}` : styles.proc} data-testid={`numa-proc-${p.pid}`}>
      <div className={styles.procHead}>
        <strong>
          {proc?.name ?? 'process'} (pid {p.pid})
        </strong>
        <span data-testid="scan-seq">scan_seq {p.scanSeq}</span>
        <span>next scan {nextScanText(p.nextScanNs, frame.timeNs)}</span>
        <span title="numa_scan_period of its threads, between task_scan_min and task_scan_max">
          period {period} (min {p.scanBoundsMs[0]}, max {p.scanBoundsMs[1]} ms)
        </span>
      </div>
      <div className={styles.procHead}>
        <span data-testid="protnone">
          <span className={`${styles.key} ${styles.keyProtnone}`} aria-hidden="true" /> {formatCount(p.protnone)} PROT_NONE not yet faulted
        </span>
        <span>
          <span className={`${styles.key} ${styles.keyPresent}`} aria-hidden="true" /> {formatCount(p.present)} present
        </span>
        <span>
          <span className={`${styles.key} ${styles.keyMigrating}`} aria-hidden="true" /> migration entry
        </span>
        {p.flushPending > 0 && <span className={styles.warn}>scan flush pending</span>}
      </div>
      {p.scanning && (
        <p className={styles.scanning} data-testid="scanning">
          {p.scanning.task} on CPU {p.scanning.cpu} marks pages {hex(p.scanning.startVpn)}–{hex(p.scanning.startVpn + p.scanning.pages - 1)}
          {p.scanning.explicit ? ' (explicit scan)' : ''}
        </p>
      )}
      {scanEvent && evPte && (
        <p className={styles.scanEvent} data-testid="scan-event">
          {ev.kind === 'scan_skip' ? 'Skip: ' : ev.kind === 'scan_pte' ? 'Marked: ' : ''}
          {ev.narration}
        </p>
      )}
      {p.vmas.map((vma) => (
        <VmaBar key={vma.index} vma={vma} name={proc?.vmas[vma.index]?.name ?? `vma ${vma.index}`} p={p} evVpn={evPte?.[1] ?? null} evKind={scanEvent ? ev.kind : null} />
      ))}
    </div>
  );
}

function hex(vpn: number): string {
  return `0x${vpn.toString(16)}`;
}

/** A VMA as a bar of cells, with the scan offset and the chunk in flight. */
function VmaBar({ vma, name, p, evVpn, evKind }: { vma: ScanVmaView; name: string; p: NumaProcessView; evVpn: number | null; evKind: string | null }) {
  const cells = barCells(vma);
  const w = BAR_W / Math.max(1, cells.length);
  const offset = vpnToFraction(vma, p.scanOffsetVpn);
  const chunk = p.scanning ? spanFraction(vma, p.scanning.startVpn, p.scanning.pages) : null;
  const ev = evVpn !== null ? vpnToFraction(vma, evVpn) : null;
  return (
    <figure className={styles.vma}>
      <figcaption className={styles.vmaCaption}>
        <span>
          {name} ({vma.file ? 'file' : 'anon'}, {formatCount(vma.pages)} pages)
        </span>
        {vma.binPages > 1 && <span className={styles.note}>each cell: {vma.binPages} pages</span>}
      </figcaption>
      <svg
        viewBox={`${-BAR_PAD} -3 ${BAR_W + 2 * BAR_PAD} ${BAR_H + 15}`}
        // A fixed height whatever the column's width: cells stretch, strokes do not (non-scaling-stroke).
        preserveAspectRatio="none"
        className={styles.bar}
        role="img"
        aria-label={`${name}: ${cells.reduce((s, c) => s + c.protnone, 0)} PROT_NONE, ${cells.reduce((s, c) => s + c.present, 0)} present`}
        data-testid="vma-bar"
      >
        {cells.map((c, i) => {
          const x = i * w;
          const hPn = (c.protnone / Math.max(1, c.pages)) * BAR_H;
          const hPr = (c.present / Math.max(1, c.pages)) * BAR_H;
          const hMg = (c.migrating / Math.max(1, c.pages)) * BAR_H;
          const cw = Math.max(0.5, w - (w > 4 ? 1 : 0.25));
          return (
            <g key={c.vpn}>
              <title>{`${hex(c.vpn)}${c.pages > 1 ? ` (+${c.pages - 1})` : ''}: ${c.protnone} PROT_NONE, ${c.present} present, ${c.migrating} migrating, ${c.empty} none`}</title>
              <rect x={x} y={0} width={cw} height={BAR_H} className={styles.cellEmpty} />
              <rect x={x} y={BAR_H - hPr} width={cw} height={hPr} className={styles.cellPresent} />
              <rect x={x} y={BAR_H - hPr - hPn} width={cw} height={hPn} className={styles.cellProtnone} data-protnone={c.protnone} />
              {c.migrating > 0 && <rect x={x} y={BAR_H - hPr - hPn - hMg} width={cw} height={hMg} className={styles.cellMigrating} data-migrating={c.migrating} />}
            </g>
          );
        })}
        {chunk && <rect x={chunk[0] * BAR_W} y={-2} width={Math.max(3, (chunk[1] - chunk[0]) * BAR_W)} height={BAR_H + 4} className={styles.chunk} data-testid="scan-chunk" />}
        {offset !== null && (
          <g data-testid="scan-offset">
            <line x1={offset * BAR_W} x2={offset * BAR_W} y1={0} y2={BAR_H + 2} className={styles.offset} />
            <path d={`M${offset * BAR_W},${BAR_H + 2} l-6,9 h12 z`} className={styles.offsetMark} />
          </g>
        )}
        {ev !== null && (
          <rect
            x={ev * BAR_W}
            y={-1}
            width={Math.max(4, w - 1)}
            height={BAR_H + 2}
            className={evKind === 'scan_skip' ? styles.evSkip : styles.evMark}
            data-testid="scan-event-cell"
          />
        )}
      </svg>
    </figure>
  );
}

/** The hint-fault cards: those in progress first, then the latest. */
function Faults({ v }: { v: NumaView }) {
  if (v.faults.length === 0) return <p className={styles.note}>No hint fault yet.</p>;
  return (
    <>
      {v.nrFaultsInProgress > 0 && (
        <p className={styles.note}>
          {v.nrFaultsInProgress} in progress{v.nrFaultsInProgress > FAULTS_SHOWN ? ` (showing ${FAULTS_SHOWN})` : ''}
        </p>
      )}
      <ol className={styles.faults}>
        {v.faults.slice(0, FAULTS_SHOWN).map((f) => (
          <FaultCard key={`${f.task}-${f.step}`} f={f} />
        ))}
      </ol>
    </>
  );
}

function FaultCard({ f }: { f: HintFaultView }) {
  const outcomeClass = f.outcome === 'migrated' ? styles.ok : f.outcome === 'failed' ? styles.bad : f.outcome === 'pending' ? styles.pending : styles.neutral;
  return (
    <li className={f.inProgress ? `${styles.fault} ${styles.faultLive}` : styles.fault} data-testid="hint-fault" data-outcome={f.outcome} data-rule={f.rule}>
      <div className={styles.faultHead}>
        <strong>{f.task}</strong> on CPU {f.cpu} (node {f.cpuNid}) · page {hex(f.vpn)} (pfn {f.pfn}) on node {f.pageNid}
        <span className={styles.note}>{f.inProgress ? ` · now in ${f.inFunction}` : ` · step ${f.step.toLocaleString('en')}`}</span>
      </div>
      {f.inProgress && (
        <>
          <div>
            last_cpupid: {f.lastCpupid}
            {f.lastNid !== null ? ` (node ${f.lastNid})` : ''}
          </div>
          <div data-testid="fault-rule">
            <span className={styles.badge}>{RULE_LABEL[f.rule] ?? f.rule}</span> {f.reason}
          </div>
        </>
      )}
      <div data-testid="fault-decision">
        Decision: <strong>{decisionText(f)}</strong>
        {!f.inProgress && f.rule !== '' && <span className={styles.note}> ({RULE_LABEL[f.rule] ?? f.rule})</span>}
      </div>
      <div data-testid="fault-outcome">
        Outcome: <strong className={outcomeClass}>{outcomeText(f)}</strong>
        {f.unmapIpis > 0 && (
          <span>
            {' '}
            · its unmap flushed: {f.unmapIpis} IPI{f.unmapIpis === 1 ? '' : 's'} ({f.unmapCause})
          </span>
        )}
      </div>
    </li>
  );
}

/** The shootdown(s) at this step: sent now (the frame's ipis) or still awaiting acknowledgements. */
function Shootdowns({ v, frame }: { v: NumaView; frame: Frame }) {
  const sent = sentBySender(frame.ipis);
  const rows = v.shootdowns.map((s) => {
    const now = sent.get(s.from);
    const targets = now ?? s.pending;
    const mask = frame.mmCpumask[String(s.pid)] ?? [];
    return { s, targets, ...capFanout(fanout(s.from, targets, mask, frame.cpus), FANOUT_SHOWN), sentNow: now !== undefined };
  });
  if (rows.length === 0)
    return (
      <p className={styles.note} data-testid="no-shootdown">
        No shootdown in flight at this step.
      </p>
    );
  return (
    <>
      {v.nrShootdowns > rows.length && <p className={styles.note}>Showing {rows.length} of {v.nrShootdowns} shootdowns in flight.</p>}
      {rows.map(({ s, shown, hidden, sentNow }) => (
        <div key={s.from} className={styles.shootdown} data-testid="shootdown" data-cause={s.cause}>
          <div>
            CPU {s.from} ({s.task}) flushes mm {s.pid} from <code>{s.caller}</code>: {CAUSE_LABEL[s.cause] ?? s.cause}
          </div>
          <div className={styles.note}>
            {sentNow ? 'IPIs sent at this step' : `waiting for ${s.acksPending} acknowledgement${s.acksPending === 1 ? '' : 's'}`}
          </div>
          <ul className={styles.fanout} aria-label={`mm_cpumask of mm ${s.pid}`}>
            {shown.map((c) => (
              <li key={c.cpu} className={styles[`role_${c.role}`]} data-role={c.role} title={ROLE_TITLE[c.role]}>
                CPU {c.cpu}
                <span className={styles.role}>{ROLE_LABEL[c.role]}</span>
              </li>
            ))}
          </ul>
          {Object.keys(hidden).length > 0 && (
            <p className={styles.note} data-testid="fanout-hidden">
              Not drawn:{' '}
              {Object.entries(hidden)
                .map(([role, n]) => `${n} ${ROLE_LABEL[role] ?? role}`)
                .join(', ')}{' '}
              CPU(s).
            </p>
          )}
        </div>
      ))}
    </>
  );
}

const ROLE_LABEL: Readonly<Record<string, string>> = { sender: 'sender', ipi: 'IPI', lazy: 'lazy: none', running: 'done' };
const ROLE_TITLE: Readonly<Record<string, string>> = {
  sender: 'flushes its own TLB',
  ipi: 'gets a TLB-shootdown IPI',
  lazy: 'in lazy TLB mode: skipped (it flushes when it switches back)',
  running: 'in the mask, no IPI pending (it handled it, or joined the mask after the send)',
};

/** Shootdown IPIs over the run stacked by cause, with numa_pages_migrated as a line; click to seek. */
function CausePlot({ series, frame, onSeek }: { series: CounterSeries; frame: Frame; onSeek: (step: number) => void }) {
  const n = series.steps.length;
  const { causes, layers, migrated, y, yM, domain, ticks } = useMemo(() => {
    const bycause = causeSeries(series.counters, n);
    const stacked = stackCauses(bycause, n);
    const mig = series.counters.numa_pages_migrated ?? [];
    // IPIs and migrations differ by orders of magnitude: each gets its own axis (IPIs left, pages right).
    const top = Math.max(1, ...(stacked.other ?? []).map((p) => p[1]));
    const yScale = scaleLinear().domain([0, top]).nice(3).range([PLOT_H - M.bottom, M.top]);
    const yMig = scaleLinear()
      .domain([0, Math.max(1, ...mig)])
      .nice(3)
      .range([PLOT_H - M.bottom, M.top]);
    const dom: [number, number] = [series.timeNs[0] ?? 0, series.timeNs.at(-1) ?? 0];
    const x = (i: number) => simNsToPx(series.timeNs[i] ?? 0, dom, RANGE_PX);
    const paths = CAUSES.map((c) => ({
      key: c.key,
      d:
        area<[number, number]>()
          .x((_, i) => x(i))
          .y0((p) => yScale(p[0]))
          .y1((p) => yScale(p[1]))(stacked[c.key] ?? []) ?? '',
    }));
    const migPath =
      line<number>()
        .x((_, i) => x(i))
        .y((v) => yMig(v))(mig) ?? '';
    return { causes: bycause, layers: paths, migrated: migPath, y: yScale, yM: yMig, domain: dom, ticks: yScale.ticks(3) };
  }, [series, n]);
  const asked = useRef<number | null>(null);
  const unit = timeUnitForSpanNs(domain[1] - domain[0]);
  const xUnits = scaleLinear()
    .domain([domain[0] / unit.ns, domain[1] / unit.ns])
    .range(RANGE_PX);
  const i = nearestSampleIndex(series.timeNs, frame.timeNs);
  const seekAt = (e: PointerEvent<SVGSVGElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const px = r.width > 0 ? ((e.clientX - r.left) * PLOT_W) / r.width : e.clientX;
    const step = stepAtPx(series, px, domain, RANGE_PX);
    if (step === null || step === asked.current) return;
    asked.current = step;
    onSeek(step);
  };
  const cursor = simNsToPx(frame.timeNs, domain, RANGE_PX);
  return (
    <figure className={styles.plot}>
      <figcaption className={styles.plotCaption}>
        <strong>Shootdown IPIs by cause (areas, left axis) and pages migrated (line, right axis), whole run</strong>
        <ul className={styles.legend}>
          {CAUSES.map((c) => (
            <li key={c.key} data-cause={c.key}>
              <span className={styles.swatch} style={{ background: CAUSE_COLOURS[c.key] }} aria-hidden="true" />
              {c.label} <span className={styles.value}>{formatCount(i >= 0 ? (causes[c.key]?.[i] ?? 0) : 0)}</span>
            </li>
          ))}
          <li>
            <span className={styles.swatchLine} aria-hidden="true" />
            numa_pages_migrated <span className={styles.value}>{formatCount(frame.counters.numa_pages_migrated ?? 0)}</span>
          </li>
        </ul>
        {i >= 0 && <span className={styles.note}>(values at the sample nearest this step)</span>}
      </figcaption>
      <svg
        viewBox={`0 0 ${PLOT_W} ${PLOT_H}`}
        className={styles.plotSvg}
        role="img"
        aria-label="Shootdown IPIs stacked by cause and pages migrated over simulated time; click to go to that time"
        data-testid="numa-cause-plot"
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          asked.current = null;
          seekAt(e);
        }}
        onPointerMove={(e) => {
          if (e.buttons & 1) seekAt(e);
        }}
      >
        {ticks.map((t) => (
          <g key={t} className={styles.grid}>
            <line x1={RANGE_PX[0]} x2={RANGE_PX[1]} y1={y(t)} y2={y(t)} />
            <text x={RANGE_PX[0] - 4} y={y(t)} dy="0.32em" textAnchor="end">
              {fmtTick(t)}
            </text>
          </g>
        ))}
        {yM.ticks(3).map((t) => (
          <text key={`m${t}`} className={styles.gridText} x={RANGE_PX[1] + 4} y={yM(t)} dy="0.32em" textAnchor="start">
            {fmtTick(t)}
          </text>
        ))}
        {xUnits.ticks(6).map((t) => (
          <text key={t} className={styles.gridText} x={xUnits(t)} y={PLOT_H - 3} textAnchor="middle">
            {fmtAxis(t)}
          </text>
        ))}
        <text className={styles.gridText} x={RANGE_PX[0] - 4} y={PLOT_H - 3} textAnchor="end">
          {unit.label}
        </text>
        {layers.map((l) => (
          <path key={l.key} d={l.d} fill={CAUSE_COLOURS[l.key]} className={styles.layer} data-cause={l.key} />
        ))}
        <path d={migrated} className={styles.migLine} />
        <line x1={cursor} x2={cursor} y1={M.top} y2={PLOT_H - M.bottom} className={styles.cursor} />
      </svg>
    </figure>
  );
}
