// Dense machine memory: physical frames grouped per node, coloured by state as in MachineView
// (free white, mapped sky blue, isolated orange with dots, migrating vermillion with a hatch), with
// marks for locked (top left) and dirty (top right), rings on the pfns this step touched and on
// the hovered / selected frame.
import { useCallback, useMemo } from 'react';
import { FRAME_DIRTY, FRAME_ISOLATED, FRAME_LOCKED, FRAME_MIGRATING, FRAME_STATE_MASK, type FrameBulk } from '../../engine/bulk';
import { box, CENTRE, cellOriginDev, cellSideDev, drawCell, drawHatch, drawMark, StampCache, TOP_LEFT, TOP_RIGHT, type StampBuilder } from './cells';
import { DenseGrid, type Painter } from './DenseGrid';
import { findFrame, fmt, frameSummary, frameText, segments, type GridOptions } from './denseMath';
import { ring, RING_PAD_PX } from './overlay';
import styles from './Dense.module.css';

/** Frame grid layout for a root font size: cells from 0.4 rem (at least 5 px) to 1.4 rem, about 20 rem high per node at most. */
export function frameGridOptions(remPx: number): GridOptions {
  return { minCellPx: Math.max(5, Math.round(remPx * 0.4)), maxCellPx: Math.round(remPx * 1.4), gapPx: 1, maxHeightPx: remPx * 20, padPx: RING_PAD_PX };
}

/** A frame cell for flag byte `f`: state colour and pattern, then locked (top left) and dirty (top right). */
const buildFrame: StampBuilder = (r, b, p, f) => {
  const state = f & FRAME_STATE_MASK;
  drawCell(r, b, p.frame[state as 0 | 1 | 2 | 3].px, p.border.px);
  if (state === FRAME_MIGRATING) drawHatch(r, b, p.hatch.px);
  else if (state === FRAME_ISOLATED) drawMark(r, b, CENTRE, p.dots.px);
  if (f & FRAME_LOCKED) drawMark(r, b, TOP_LEFT, p.ink.px);
  if (f & FRAME_DIRTY) drawMark(r, b, TOP_RIGHT, p.ink.px);
};
const frameStamps = new StampCache();
const FRAME_STYLE_BITS = FRAME_STATE_MASK | FRAME_LOCKED | FRAME_DIRTY;

export interface FrameCanvasProps {
  bulk: FrameBulk;
  /** pfns this step touched (event.touched.pfns). */
  touchedPfns?: readonly number[];
  hoverPfn?: number | null;
  selectedPfn?: number | null;
  onHoverPfn?: (pfn: number | null) => void;
  /** Click / Enter on a frame (MachineView toggles the selection `pfn-N`). */
  onSelectPfn?: (pfn: number) => void;
  /** A frame gone to: the grid's cursor moves to it (outline and tooltip) once the bulk holds it. */
  revealPfn?: number | null;
}

interface GroupProps extends FrameCanvasProps {
  start: number;
  end: number;
}

function FrameGroup({ bulk, start, end, touchedPfns, hoverPfn, selectedPfn, onHoverPfn, onSelectPfn, revealPfn }: GroupProps) {
  const n = end - start;
  const node = bulk.frameNode[start] ?? 0;
  const indexOf = useCallback(
    (pfn: number | null | undefined): number => {
      if (pfn === null || pfn === undefined) return -1;
      const i = findFrame(bulk, pfn);
      return i >= start && i < end ? i - start : -1;
    },
    [bulk, start, end],
  );
  const touchedIdx = useMemo(() => (touchedPfns ?? []).map(indexOf).filter((k) => k >= 0), [touchedPfns, indexOf]);
  const linkedIdx = useMemo(() => [indexOf(hoverPfn), indexOf(selectedPfn)].filter((k) => k >= 0), [indexOf, hoverPfn, selectedPfn]);

  const painter = useMemo<Painter>(
    () => ({
      cells(r, l, dpr, p) {
        const flags = bulk.frameFlags;
        const side = cellSideDev(l, dpr);
        for (let k = 0; k < n; k++) {
          const f = (flags[start + k] ?? 0) & FRAME_STYLE_BITS;
          if (!r.changed(k, f)) continue;
          cellOriginDev(l, k, dpr);
          r.stamp(box[0] ?? 0, box[1] ?? 0, frameStamps.get(f, side, p, buildFrame), side);
        }
      },
      overlay(ctx, l, p, r, dpr) {
        for (const k of linkedIdx) ring(ctx, l, k, 'linked', p, r, dpr);
        for (const k of touchedIdx) ring(ctx, l, k, 'touched', p, r, dpr);
      },
    }),
    [bulk, start, n, touchedIdx, linkedIdx],
  );
  const describe = useCallback((k: number) => frameText(bulk, start + k), [bulk, start]);
  const linkedPfns = useMemo(() => linkedIdx.map((k) => bulk.framePfn[start + k] ?? 0).join(' '), [bulk, start, linkedIdx]);
  const label = useMemo(() => frameSummary(bulk, start, end), [bulk, start, end]);
  const first = bulk.framePfn[start] ?? 0;
  const last = bulk.framePfn[end - 1] ?? 0;
  return (
    <figure className={styles.group}>
      <figcaption className={styles.caption}>
        <strong>Node {node}</strong> · pfn {first}–{last} · {fmt(n)} frames
      </figcaption>
      {/* A big node's frames scroll inside the panel (the cells never get smaller than the minimum). */}
      <div className={`${styles.scroll} ${styles.frameScroll}`}>
        <DenseGrid
          count={n}
          options={frameGridOptions}
          painter={painter}
          describe={describe}
          ariaLabel={label}
          testId={`frame-canvas-${node}`}
          linked={linkedPfns}
          reveal={indexOf(revealPfn)}
          onHover={(k) => onHoverPfn?.(k >= 0 ? (bulk.framePfn[start + k] ?? null) : null)}
          onSelect={(k) => onSelectPfn?.(bulk.framePfn[start + k] ?? 0)}
        />
      </div>
    </figure>
  );
}

/** The frames of the bulk, one canvas grid per NUMA node. */
export function FrameCanvas(props: FrameCanvasProps) {
  const { bulk } = props;
  const groups = useMemo(() => segments(bulk.frameNode), [bulk]);
  if (groups.length === 0) return <p className={styles.empty}>No frames.</p>;
  return (
    <div>
      {groups.map((g) => (
        <FrameGroup key={`${g.key}-${g.start}`} {...props} start={g.start} end={g.end} />
      ))}
      <ul className={styles.legend} aria-label="Legend of the frame grid">
        <li>
          <span className={styles.swatch} style={{ background: 'var(--frame-free)' }} aria-hidden="true" /> free
        </li>
        <li>
          <span className={styles.swatch} style={{ background: 'var(--frame-mapped)' }} aria-hidden="true" /> mapped
        </li>
        <li>
          <span className={styles.swatch} style={{ background: 'radial-gradient(circle, var(--dots) 28%, var(--frame-isolated) 30%)' }} aria-hidden="true" /> isolated
        </li>
        <li>
          <span
            className={styles.swatch}
            style={{ background: 'repeating-linear-gradient(45deg, var(--frame-migrating) 0 3px, var(--hatch) 3px 4px)' }}
            aria-hidden="true"
          />{' '}
          migrating
        </li>
        <li>
          <span className={styles.mark} aria-hidden="true" /> top left: locked
        </li>
        <li>
          <span className={styles.mark} aria-hidden="true" /> top right: dirty
        </li>
        <li>
          <span className={styles.touchedKey} aria-hidden="true" /> touched this step
        </li>
        <li>
          <span className={styles.linkedKey} aria-hidden="true" /> hovered / selected
        </li>
      </ul>
    </div>
  );
}
