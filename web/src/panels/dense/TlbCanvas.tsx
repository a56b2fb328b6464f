// Dense TLBs: one row per CPU, one cell per TLB slot (sky blue: a cached translation, a bottom bar
// when writable, a top-right mark when dirty; light grey: empty slot). The row of this step's CPU
// has MachineView's event colours; CPUs the step touched get a purple bar; entries for the PTEs or
// pfns this step touched get a dashed ring, entries of the hovered / selected frame a solid one.
import { useCallback, useMemo } from 'react';
import { TLB_DIRTY, TLB_WRITE, type FrameBulk } from '../../engine/bulk';
import { box, BOTTOM_BAR, cellOriginDev, cellSideDev, drawCell, drawMark, StampCache, TOP_RIGHT, type StampBuilder } from './cells';
import { DenseGrid, type Painter } from './DenseGrid';
import { cellYPx, labelEvery, tlbCpuCount, tlbRange, tlbSummary, tlbText, type GridLayout, type GridOptions } from './denseMath';
import { ring, RING_PAD_PX, rowRing } from './overlay';
import styles from './Dense.module.css';

/** Font size of the row labels for a root font size. */
export function tlbLabelPx(remPx: number): number {
  return Math.round(remPx * 0.75);
}

/** TLB grid layout: `slots` columns after a gutter for "CPU 63", cells from 0.3 rem (at least 4 px) to 1 rem. */
export function tlbGridOptions(slots: number, remPx: number): GridOptions {
  const label = tlbLabelPx(remPx);
  return { cols: Math.max(1, slots), minCellPx: Math.max(4, Math.round(remPx * 0.3)), maxCellPx: Math.round(remPx * 1), gapPx: 1, gutterPx: Math.ceil(label * 3.6) + 6, padPx: RING_PAD_PX };
}

/** Style key of an empty slot (entries use their flag bits 0-1). */
const EMPTY_SLOT = 4;
/** A TLB slot: empty, or a cached translation with writable (bottom bar) and dirty (top right) marks. */
const buildTlb: StampBuilder = (r, b, p, key) => {
  if (key === EMPTY_SLOT) {
    drawCell(r, b, p.tlbEmpty.px, p.tlbEmpty.px);
    return;
  }
  drawCell(r, b, p.tlbEntry.px, p.border.px);
  if (key & TLB_WRITE) drawMark(r, b, BOTTOM_BAR, p.ink.px);
  if (key & TLB_DIRTY) drawMark(r, b, TOP_RIGHT, p.ink.px);
};
const tlbStamps = new StampCache();

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
        const side = cellSideDev(l, dpr);
        const bar = Math.max(3, Math.round(4 * dpr));
        const right = Math.round((l.originXPx + l.cols * l.pitchPx) * dpr);
        const ev = eventCpu ?? -1;
        const touched = touchedCpus ?? [];
        for (let c = 0; c < cpus; c++) {
          // The row's band: 1 for this step's CPU, 2 for another CPU it touched; a change repaints the row.
          let band = c === ev ? 1 : 0;
          for (let t = 0; t < touched.length && band === 0; t++) if (touched[t] === c) band = 2;
          if (r.rowKeys[c] !== band) {
            r.rowKeys[c] = band;
            const y = cellYPx(l, c * cols);
            const y0 = Math.round(y * dpr);
            const y1 = Math.round((y + l.pitchPx) * dpr);
            r.fill(0, y0, right, y1, band === 1 ? p.eventRow.px : p.background.px);
            if (band !== 0) r.fill(0, y0, bar, y1, band === 1 ? p.eventBar.px : p.touchedBar.px);
            r.keys.fill(-1, c * cols, (c + 1) * cols);
          }
          const { start, count } = tlbRange(bulk, c);
          for (let s = 0; s < cols; s++) {
            const key = s >= count ? EMPTY_SLOT : (flags[start + s] ?? 0) & (TLB_WRITE | TLB_DIRTY);
            if (!r.changed(c * cols + s, key)) continue;
            cellOriginDev(l, c * cols + s, dpr);
            r.stamp(box[0] ?? 0, box[1] ?? 0, tlbStamps.get(key, side, p, buildTlb), side);
          }
        }
      },
      overlay(ctx, l, p, r, dpr) {
        // Other CPUs this step touched (dashed purple), then this step's CPU (solid orange).
        for (const c of touchedCpus ?? []) if (c !== eventCpu && c < cpus) rowRing(ctx, l, c, p.touchedBar.css, true, r, dpr);
        if (eventCpu !== null && eventCpu !== undefined && eventCpu < cpus) rowRing(ctx, l, eventCpu, p.eventBar.css, false, r, dpr);
        // Rings: entries of the hovered / selected frame, then those this step touched.
        const linkA = hoverPfn ?? -1;
        const linkB = selectedPfn ?? -1;
        const tPfns = touchedPfns ?? [];
        const tPtes = touchedPtes ?? [];
        const nPfn = tPfns.length;
        const nPte = tPtes.length;
        const tlbPfn = bulk.tlbPfn;
        for (let c = 0; c < cpus; c++) {
          const { start, count } = tlbRange(bulk, c);
          const end = start + Math.min(count, cols);
          for (let i = start; i < end; i++) {
            const pfn = tlbPfn[i] ?? -1;
            if (pfn === linkA || pfn === linkB) ring(ctx, l, c * cols + i - start, 'linked', p, r, dpr);
            let touched = false;
            for (let t = 0; t < nPfn && !touched; t++) touched = tPfns[t] === pfn;
            for (let t = 0; t < nPte && !touched; t++) {
              const pair = tPtes[t];
              touched = pair !== undefined && pair[0] === bulk.tlbPid[i] && pair[1] === bulk.tlbVpn[i];
            }
            if (touched) ring(ctx, l, c * cols + i - start, 'touched', p, r, dpr);
          }
        }
      },
    }),
    [bulk, cpus, cols, eventCpu, touchedCpus, touchedPtes, touchedPfns, hoverPfn, selectedPfn],
  );
  const ev = eventCpu !== null && eventCpu !== undefined && eventCpu < cpus ? eventCpu : -1;
  const labels = useCallback(
    (l: GridLayout, remPx: number) => {
      // Row labels in HTML (crisp at any zoom, the app's font): as many as fit at the label size; this step's CPU always, in bold.
      const labelPx = tlbLabelPx(remPx);
      const every = labelEvery(l.pitchPx, labelPx * 1.15);
      const rows: number[] = [];
      for (let c = 0; c < cpus; c += every) if (ev < 0 || c === ev || Math.abs(c - ev) * l.pitchPx >= labelPx * 1.15) rows.push(c);
      if (ev >= 0 && !rows.includes(ev)) rows.push(ev);
      return (
        <div aria-hidden="true">
          {rows.map((c) => (
            <span
              key={c}
              className={c === ev ? styles.rowLabelEvent : styles.rowLabel}
              style={{ top: cellYPx(l, c * cols) + l.cellPx / 2, width: l.originXPx - 8, fontSize: labelPx }}
            >
              CPU {c}
            </span>
          ))}
        </div>
      );
    },
    [cpus, cols, ev],
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
        decorate={labels}
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
          <span className={styles.swatch} style={{ background: 'var(--tlb-entry)' }} aria-hidden="true" /> cached translation
        </li>
        <li>
          <span className={styles.swatch} style={{ background: 'var(--tlb-empty)', borderColor: 'var(--tlb-empty)' }} aria-hidden="true" /> empty slot
        </li>
        <li>
          <span className={styles.bar} aria-hidden="true" /> bottom: writable
        </li>
        <li>
          <span className={styles.mark} aria-hidden="true" /> top right: dirty
        </li>
        <li>
          <span className={styles.swatch} style={{ background: 'var(--current-line-bg)', borderLeft: '4px solid var(--cpu-event)' }} aria-hidden="true" /> CPU of this step
        </li>
        <li>
          <span className={styles.swatch} style={{ borderLeft: '4px solid var(--cpu-touched)' }} aria-hidden="true" /> other CPU this step touched
        </li>
      </ul>
    </figure>
  );
}
