// Dense TLBs: one row per CPU, one cell per TLB slot (sky blue: a cached translation, a bottom bar
// when writable, a top-right mark when dirty; light grey: empty slot). The row of this step's CPU
// has MachineView's event colours; CPUs the step touched get a purple bar; entries for the PTEs or
// pfns this step touched get a dashed ring, entries of the hovered / selected frame a solid one.
import { useCallback, useMemo } from 'react';
import { TLB_DIRTY, TLB_WRITE, type FrameBulk } from '../../engine/bulk';
import { box, BOTTOM_BAR, deviceBox, drawCell, drawMark, TOP_RIGHT } from './cells';
import { DenseGrid, type Painter } from './DenseGrid';
import { cellYPx, labelEvery, tlbCpuCount, tlbRange, tlbSummary, tlbText, type GridOptions } from './denseMath';
import { ring } from './overlay';
import styles from './Dense.module.css';

/** Font size of the row labels for a root font size. */
export function tlbLabelPx(remPx: number): number {
  return Math.round(remPx * 0.75);
}

/** TLB grid layout: `slots` columns after a gutter for "CPU 63", cells from 0.3 rem (at least 4 px) to 1 rem. */
export function tlbGridOptions(slots: number, remPx: number): GridOptions {
  const label = tlbLabelPx(remPx);
  return { cols: Math.max(1, slots), minCellPx: Math.max(4, Math.round(remPx * 0.3)), maxCellPx: Math.round(remPx * 1), gapPx: 1, gutterPx: Math.ceil(label * 3.6) + 12 };
}

export interface TlbCanvasProps {
  bulk: FrameBulk;
  /** TLB slots per CPU (topology.tlbEntries). */
  slots: number;
  /** Number of CPUs (ids 0..cpuCount-1); default: one per tlbCpuStart entry. */
  cpuCount?: number;
  /** The CPU of this step (event.cpu) and the other CPUs it touched (event.touched.cpus). */
  eventCpu?: number | null;
  touchedCpus?: readonly number[];
  /** This step's touched PTEs [pid, vpn] and pfns: their TLB entries get a ring. */
  touchedPtes?: readonly (readonly [number, number])[];
  touchedPfns?: readonly number[];
  hoverPfn?: number | null;
  selectedPfn?: number | null;
  onHoverPfn?: (pfn: number | null) => void;
  onSelectPfn?: (pfn: number) => void;
}

/** Per-CPU rows of TLB entries on one canvas. */
export function TlbCanvas({ bulk, slots, cpuCount, eventCpu, touchedCpus, touchedPtes, touchedPfns, hoverPfn, selectedPfn, onHoverPfn, onSelectPfn }: TlbCanvasProps) {
  const cpus = cpuCount ?? tlbCpuCount(bulk);
  const cols = Math.max(1, slots);
  const options = useCallback((remPx: number) => tlbGridOptions(cols, remPx), [cols]);
  const entryAt = useCallback(
    (k: number): number => {
      if (k < 0) return -1;
      const cpu = Math.floor(k / cols);
      const slot = k % cols;
      const { start, count } = tlbRange(bulk, cpu);
      return slot < count ? start + slot : -1;
    },
    [bulk, cols],
  );

  const painter = useMemo<Painter>(
    () => ({
      cells(r, l, dpr, p) {
        const flags = bulk.tlbFlags;
        const border = p.border.px;
        const ink = p.ink.px;
        const rowH = l.pitchPx;
        // Row bands and bars first: this step's CPU, then the CPUs it touched.
        const bar = Math.max(3, Math.round(4 * dpr));
        if (eventCpu !== null && eventCpu !== undefined && eventCpu < cpus) {
          const y = cellYPx(l, eventCpu * cols);
          r.fill(0, Math.round((y - 1) * dpr), Math.round(l.widthPx * dpr), Math.round((y + rowH) * dpr), p.eventRow.px);
          r.fill(0, Math.round((y - 1) * dpr), bar, Math.round((y + rowH) * dpr), p.eventBar.px);
        }
        for (const c of touchedCpus ?? []) {
          if (c === eventCpu || c >= cpus) continue;
          const y = cellYPx(l, c * cols);
          r.fill(0, Math.round((y - 1) * dpr), bar, Math.round((y + rowH) * dpr), p.touchedBar.px);
        }
        for (let c = 0; c < cpus; c++) {
          const { start, count } = tlbRange(bulk, c);
          for (let s = 0; s < cols; s++) {
            deviceBox(l, c * cols + s, dpr);
            if (s >= count) {
              drawCell(r, box, p.tlbEmpty.px, p.tlbEmpty.px);
              continue;
            }
            const f = flags[start + s] ?? 0;
            drawCell(r, box, p.tlbEntry.px, border);
            if (f & TLB_WRITE) drawMark(r, box, BOTTOM_BAR, ink);
            if (f & TLB_DIRTY) drawMark(r, box, TOP_RIGHT, ink);
          }
        }
      },
      overlay(ctx, l, p, remPx) {
        // Row labels, as many as fit at the label size; the step's CPU always, in bold.
        const labelPx = tlbLabelPx(remPx);
        const every = labelEvery(l.pitchPx, labelPx * 1.15);
        ctx.textBaseline = 'middle';
        ctx.textAlign = 'right';
        const x = l.originXPx - 6;
        const yOf = (c: number): number => cellYPx(l, c * cols) + l.cellPx / 2;
        const ev = eventCpu !== null && eventCpu !== undefined && eventCpu < cpus ? eventCpu : -1;
        ctx.fillStyle = p.inkSoft.css;
        ctx.font = `${labelPx}px ${p.fontUi}`;
        for (let c = 0; c < cpus; c += every) {
          if (ev >= 0 && Math.abs(c - ev) * l.pitchPx < labelPx * 1.15 && c !== ev) continue;
          if (c !== ev) ctx.fillText(`CPU ${c}`, x, yOf(c));
        }
        if (ev >= 0) {
          ctx.fillStyle = p.ink.css;
          ctx.font = `700 ${labelPx}px ${p.fontUi}`;
          ctx.fillText(`CPU ${ev}`, x, yOf(ev));
        }
        // Rings: entries of the hovered / selected frame, then those this step touched.
        const linkA = hoverPfn ?? -1;
        const linkB = selectedPfn ?? -1;
        const tPtes = touchedPtes ?? [];
        const tPfns = touchedPfns ?? [];
        for (let c = 0; c < cpus; c++) {
          const { start, count } = tlbRange(bulk, c);
          for (let s = 0; s < Math.min(count, cols); s++) {
            const i = start + s;
            const pfn = bulk.tlbPfn[i] ?? -1;
            if (pfn === linkA || pfn === linkB) ring(ctx, l, c * cols + s, 'linked', p);
            let touched = tPfns.includes(pfn);
            if (!touched) {
              const pid = bulk.tlbPid[i];
              const vpn = bulk.tlbVpn[i];
              for (const [tp, tv] of tPtes) if (tp === pid && tv === vpn) touched = true;
            }
            if (touched) ring(ctx, l, c * cols + s, 'touched', p);
          }
        }
      },
    }),
    [bulk, cpus, cols, eventCpu, touchedCpus, touchedPtes, touchedPfns, hoverPfn, selectedPfn],
  );
  const describe = useCallback((k: number) => tlbText(bulk, Math.floor(k / cols), k % cols, cols), [bulk, cols]);
  const label = useMemo(() => tlbSummary(bulk, cpus, cols, eventCpu), [bulk, cpus, cols, eventCpu]);
  return (
    <figure className={styles.group}>
      <figcaption className={styles.caption}>
        <strong>TLBs</strong> · {cpus} CPUs × {cols} slots
      </figcaption>
      <DenseGrid
        count={cpus * cols}
        options={options}
        painter={painter}
        describe={describe}
        ariaLabel={label}
        testId="tlb-canvas"
        onHover={(k) => {
          const i = entryAt(k);
          onHoverPfn?.(i >= 0 ? (bulk.tlbPfn[i] ?? null) : null);
        }}
        onSelect={(k) => {
          const i = entryAt(k);
          if (i >= 0) onSelectPfn?.(bulk.tlbPfn[i] ?? 0);
        }}
      />
      <ul className={styles.legend} aria-label="Legend of the TLB grid">
        <li>
          <span className={styles.swatch} style={{ background: 'var(--oi-skyblue)' }} aria-hidden="true" /> cached translation
        </li>
        <li>
          <span className={styles.swatch} style={{ background: '#ececea', borderColor: '#ececea' }} aria-hidden="true" /> empty slot
        </li>
        <li>
          <span className={styles.bar} aria-hidden="true" /> bottom: writable
        </li>
        <li>
          <span className={styles.mark} aria-hidden="true" /> top right: dirty
        </li>
        <li>
          <span className={styles.swatch} style={{ background: 'var(--current-line-bg)', borderLeft: '4px solid var(--oi-orange)' }} aria-hidden="true" /> CPU of this step
        </li>
        <li>
          <span className={styles.swatch} style={{ borderLeft: '4px solid var(--oi-purple)' }} aria-hidden="true" /> other CPU this step touched
        </li>
      </ul>
    </figure>
  );
}
