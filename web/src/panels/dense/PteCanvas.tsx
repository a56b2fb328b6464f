// Dense page-table view: a grid of PTE cells per process, coloured by kind, with marks for
// accessed / dirty / writable, rings on the PTEs this step touched and on those mapping the hovered
// or selected frame.
import { useCallback, useMemo } from 'react';
import { PTE_ACCESSED, PTE_DIRTY, PTE_KIND_MASK, PTE_MIGRATION, PTE_NONE, PTE_PROTNONE, PTE_WRITE, type BulkWindow, type FrameBulk } from '../../engine/bulk';
import { box, BOTTOM_BAR, CENTRE, cellOriginDev, cellSideDev, drawCell, drawHatch, drawMark, StampCache, TOP_LEFT, TOP_RIGHT, type StampBuilder } from './cells';
import { DenseGrid, type Painter } from './DenseGrid';
import { findPte, fmt, pteSummary, pteText, segments, type GridOptions } from './denseMath';
import { ring, RING_PAD_PX } from './overlay';
import styles from './Dense.module.css';

/** PTE grid layout for a root font size: cells from 0.45 rem (at least 6 px) to 1.1 rem, about 26 rem high at most. */
export function pteGridOptions(remPx: number): GridOptions {
  return { minCellPx: Math.max(6, Math.round(remPx * 0.45)), maxCellPx: Math.round(remPx * 1.1), gapPx: 1, maxHeightPx: remPx * 26, padPx: RING_PAD_PX };
}

/**
 * A PTE cell for flag byte `f`: kind colour with a pattern where colour alone would carry the
 * kind (a migration entry is hatched like a migrating frame, PROT_NONE has a centre dot), then
 * accessed (top left), dirty (top right), writable (bottom bar).
 */
const buildPte: StampBuilder = (r, b, p, f) => {
  const kind = f & PTE_KIND_MASK;
  drawCell(r, b, p.pte[kind as 0 | 1 | 2 | 3].px, p.border.px);
  if (kind === PTE_NONE) return;
  if (kind === PTE_MIGRATION) drawHatch(r, b, p.hatch.px);
  else if (kind === PTE_PROTNONE) drawMark(r, b, CENTRE, p.dots.px);
  if (f & PTE_ACCESSED) drawMark(r, b, TOP_LEFT, p.ink.px);
  if (f & PTE_DIRTY) drawMark(r, b, TOP_RIGHT, p.ink.px);
  if (f & PTE_WRITE) drawMark(r, b, BOTTOM_BAR, p.ink.px);
};
const pteStamps = new StampCache();
const PTE_STYLE_BITS = PTE_KIND_MASK | PTE_WRITE | PTE_DIRTY | PTE_ACCESSED;

export interface PteCanvasProps {
  bulk: FrameBulk;
  /** Which part of all PTEs the bulk holds (captions and summaries say so when it is not all). */
  window?: BulkWindow;
  /** Names of the processes, for captions. */
  processes?: readonly { pid: number; name: string }[];
  /** [pid, vpn] of the PTEs this step touched (event.touched.ptes). */
  touched?: readonly (readonly [number, number])[];
  hoverPfn?: number | null;
  selectedPfn?: number | null;
  onHoverPfn?: (pfn: number | null) => void;
  /** Click / Enter on a PTE with a frame (like the pfn buttons of PageTableView). */
  onSelectPfn?: (pfn: number) => void;
  /** A PTE gone to: the grid's cursor moves to it (outline and tooltip) once the bulk holds it. */
  reveal?: { pid: number; vpn: number } | null;
}

interface GroupProps extends Omit<PteCanvasProps, 'processes'> {
  start: number;
  end: number;
  name: string | undefined;
}

function PteGroup({ bulk, window, start, end, name, touched, hoverPfn, selectedPfn, onHoverPfn, onSelectPfn, reveal }: GroupProps) {
  const n = end - start;
  const pid = bulk.ptePid[start] ?? 0;
  const touchedIdx = useMemo(() => {
    const out: number[] = [];
    for (const [tp, tv] of touched ?? []) {
      const i = findPte(bulk, tp, tv);
      if (i >= start && i < end) out.push(i - start);
    }
    return out;
  }, [bulk, touched, start, end]);

  // The PTEs mapping the hovered or selected frame.
  const linkedIdx = useMemo(() => {
    const linked = [hoverPfn, selectedPfn].filter((x): x is number => x !== null && x !== undefined);
    const out: number[] = [];
    if (linked.length === 0) return out;
    for (let k = 0; k < n; k++) {
      const i = start + k;
      if ((bulk.pteFlags[i] ?? 0) & PTE_KIND_MASK && linked.includes(bulk.ptePfn[i] ?? -1)) out.push(k);
    }
    return out;
  }, [bulk, start, n, hoverPfn, selectedPfn]);
  const revealIdx = useMemo(() => {
    if (!reveal) return -1;
    const i = findPte(bulk, reveal.pid, reveal.vpn);
    return i >= start && i < end ? i - start : -1;
  }, [bulk, reveal, start, end]);

  const painter = useMemo<Painter>(
    () => ({
      cells(r, l, dpr, p) {
        const flags = bulk.pteFlags;
        const side = cellSideDev(l, dpr);
        for (let k = 0; k < n; k++) {
          const f = (flags[start + k] ?? 0) & PTE_STYLE_BITS;
          if (!r.changed(k, f)) continue;
          cellOriginDev(l, k, dpr);
          r.stamp(box[0] ?? 0, box[1] ?? 0, pteStamps.get(f, side, p, buildPte), side);
        }
      },
      overlay(ctx, l, p, r, dpr) {
        for (const k of linkedIdx) ring(ctx, l, k, 'linked', p, r, dpr);
        for (const k of touchedIdx) ring(ctx, l, k, 'touched', p, r, dpr);
      },
    }),
    [bulk, start, n, touchedIdx, linkedIdx],
  );
  const linkedVpns = useMemo(() => linkedIdx.map((k) => `0x${(bulk.pteVpn[start + k] ?? 0).toString(16)}`).join(' '), [bulk, start, linkedIdx]);
  const pfnAt = useCallback((k: number): number | null => (k >= 0 && (bulk.pteFlags[start + k] ?? 0) & PTE_KIND_MASK ? (bulk.ptePfn[start + k] ?? null) : null), [bulk, start]);
  const describe = useCallback((k: number) => pteText(bulk, start + k), [bulk, start]);
  const label = useMemo(() => pteSummary(bulk, start, end, name, window), [bulk, start, end, name, window]);
  const whole = !window || window.count >= window.total;
  return (
    <figure className={styles.group}>
      <figcaption className={styles.caption}>
        pid {pid} {name && <strong>{name}</strong>} · {fmt(n)} PTEs
        {!whole && window && ` (${fmt(window.offset + 1)}–${fmt(window.offset + window.count)} of ${fmt(window.total)})`}
      </figcaption>
      {/* Very big page tables scroll inside the panel (the cells never get smaller than the minimum). */}
      <div className={styles.scroll}>
        <DenseGrid
          count={n}
          options={pteGridOptions}
          painter={painter}
          describe={describe}
          ariaLabel={label}
          testId={`pte-canvas-${pid}`}
          reveal={revealIdx}
          linked={linkedVpns}
          onHover={(k) => onHoverPfn?.(pfnAt(k))}
          onSelect={(k) => {
            const pfn = pfnAt(k);
            if (pfn !== null) onSelectPfn?.(pfn);
          }}
        />
      </div>
    </figure>
  );
}

/** The PTEs of the bulk, one canvas grid per process. */
export function PteCanvas(props: PteCanvasProps) {
  const { bulk, processes } = props;
  const groups = useMemo(() => segments(bulk.ptePid), [bulk]);
  if (groups.length === 0) return <p className={styles.empty}>No PTEs in this window.</p>;
  return (
    <div>
      {groups.map((g) => (
        <PteGroup key={g.key} {...props} start={g.start} end={g.end} name={processes?.find((p) => p.pid === g.key)?.name} />
      ))}
      <ul className={styles.legend} aria-label="Legend of the PTE grid">
        <li>
          <span className={styles.swatch} style={{ background: 'var(--pte-present)' }} aria-hidden="true" /> present
        </li>
        <li>
          <span className={styles.swatch} style={{ background: 'radial-gradient(circle, var(--dots) 28%, var(--pte-protnone) 30%)' }} aria-hidden="true" /> PROT_NONE
        </li>
        <li>
          <span className={styles.swatch} style={{ background: 'repeating-linear-gradient(45deg, var(--pte-migration) 0 3px, var(--hatch) 3px 4px)' }} aria-hidden="true" /> migration
        </li>
        <li>
          <span className={styles.swatch} style={{ background: 'var(--pte-none)' }} aria-hidden="true" /> none
        </li>
        <li>
          <span className={styles.mark} aria-hidden="true" /> top left: accessed
        </li>
        <li>
          <span className={styles.mark} aria-hidden="true" /> top right: dirty
        </li>
        <li>
          <span className={styles.bar} aria-hidden="true" /> bottom: writable
        </li>
        <li>
          <span className={styles.touchedKey} aria-hidden="true" /> touched this step
        </li>
        <li>
          <span className={styles.linkedKey} aria-hidden="true" /> maps the hovered / selected frame
        </li>
      </ul>
    </div>
  );
}
