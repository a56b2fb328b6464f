// Small geometry helpers in SVG user units (named *Px: one user unit is one CSS
// pixel at the SVG's natural size).

/** A point in SVG user units. */
export interface PointPx {
  xPx: number;
  yPx: number;
}

/** An axis-aligned rectangle in SVG user units (top-left corner + size). */
export interface RectPx {
  xPx: number;
  yPx: number;
  widthPx: number;
  heightPx: number;
}

/** Centre of a rectangle. */
export function rectCenterPx(rect: RectPx): PointPx {
  return { xPx: rect.xPx + rect.widthPx / 2, yPx: rect.yPx + rect.heightPx / 2 };
}

/** Point where the ray from the rectangle's centre toward `target` leaves the rectangle. */
export function rectEdgeTowardPx(rect: RectPx, target: PointPx): PointPx {
  const c = rectCenterPx(rect);
  const dx = target.xPx - c.xPx;
  const dy = target.yPx - c.yPx;
  if (dx === 0 && dy === 0) return c;
  const halfW = rect.widthPx / 2;
  const halfH = rect.heightPx / 2;
  const tx = dx === 0 ? Infinity : halfW / Math.abs(dx);
  const ty = dy === 0 ? Infinity : halfH / Math.abs(dy);
  const t = Math.min(tx, ty);
  return { xPx: c.xPx + dx * t, yPx: c.yPx + dy * t };
}

/**
 * SVG path of a quadratic curve from `from` to `to`, bent sideways by
 * `bendPx` (positive bends to the left of the direction of travel).
 */
export function curvedPathPx(from: PointPx, to: PointPx, bendPx: number): string {
  const mx = (from.xPx + to.xPx) / 2;
  const my = (from.yPx + to.yPx) / 2;
  const dx = to.xPx - from.xPx;
  const dy = to.yPx - from.yPx;
  const len = Math.hypot(dx, dy) || 1;
  const cx = mx + (dy / len) * bendPx;
  const cy = my - (dx / len) * bendPx;
  const r = (v: number): number => Math.round(v * 10) / 10;
  return `M${r(from.xPx)},${r(from.yPx)} Q${r(cx)},${r(cy)} ${r(to.xPx)},${r(to.yPx)}`;
}

/** Shrinks a rectangle by `insetPx` on every side (never below zero size). */
export function insetRectPx(rect: RectPx, insetPx: number): RectPx {
  return {
    xPx: rect.xPx + insetPx,
    yPx: rect.yPx + insetPx,
    widthPx: Math.max(0, rect.widthPx - 2 * insetPx),
    heightPx: Math.max(0, rect.heightPx - 2 * insetPx),
  };
}

/**
 * Lays `count` equal cells in rows of `columns` starting at `origin`:
 * cell i is at column i % columns, row floor(i / columns).
 */
export function gridCellsPx(count: number, columns: number, origin: PointPx, cellPx: number, gapPx: number): RectPx[] {
  const cols = Math.max(1, Math.floor(columns));
  return Array.from({ length: Math.max(0, count) }, (_, i) => ({
    xPx: origin.xPx + (i % cols) * (cellPx + gapPx),
    yPx: origin.yPx + Math.floor(i / cols) * (cellPx + gapPx),
    widthPx: cellPx,
    heightPx: cellPx,
  }));
}

/** How many cells of `cellPx` with `gapPx` between them fit in `widthPx` (at least 1). */
export function columnsThatFit(widthPx: number, cellPx: number, gapPx: number): number {
  return Math.max(1, Math.floor((widthPx + gapPx) / (cellPx + gapPx)));
}

/**
 * SVG path of an arch from the top edge of `from` to the top edge of `to`,
 * rising `heightPx` above the higher of the two (cubic Bézier), so that arrows
 * between neighbouring boxes stay visible.
 */
export function archOverPx(from: RectPx, to: RectPx, heightPx: number): string {
  const a = { xPx: from.xPx + from.widthPx / 2, yPx: from.yPx };
  const b = { xPx: to.xPx + to.widthPx / 2, yPx: to.yPx };
  const topPx = Math.min(a.yPx, b.yPx) - heightPx;
  const r = (v: number): number => Math.round(v * 10) / 10;
  return `M${r(a.xPx)},${r(a.yPx)} C${r(a.xPx)},${r(topPx)} ${r(b.xPx)},${r(topPx)} ${r(b.xPx)},${r(b.yPx)}`;
}

/** A cell of a drawn grid: its id and top-left corner in pixels. */
export interface CellAtPx {
  id: number;
  xPx: number;
  yPx: number;
}

/**
 * The cell an arrow key (or Home, End) moves to from cell `fromId` in `cells` (in reading
 * order): Left/Right the previous/next, Up/Down the nearest cell in the same column above or
 * below, Home/End the first/last; the same cell at an edge; null for other keys.
 */
export function cellInDirection(cells: readonly CellAtPx[], fromId: number, key: string): number | null {
  const i = cells.findIndex((c) => c.id === fromId);
  const from = cells[i];
  if (!from) return null;
  const at = (j: number): number => cells[Math.max(0, Math.min(cells.length - 1, j))]?.id ?? fromId;
  switch (key) {
    case 'ArrowLeft':
      return at(i - 1);
    case 'ArrowRight':
      return at(i + 1);
    case 'Home':
      return at(0);
    case 'End':
      return at(cells.length - 1);
    case 'ArrowUp':
    case 'ArrowDown': {
      const down = key === 'ArrowDown';
      let best: CellAtPx | null = null;
      for (const c of cells) {
        if (Math.abs(c.xPx - from.xPx) > 0.5) continue;
        const dy = c.yPx - from.yPx;
        if (down ? dy <= 0.5 : dy >= -0.5) continue;
        if (!best || Math.abs(dy) < Math.abs(best.yPx - from.yPx)) best = c;
      }
      return best?.id ?? fromId;
    }
    default:
      return null;
  }
}
