// Pixel drawing of one cell and its marks, shared by the dense views (device pixels, no allocation).
import { cellXPx, cellYPx, type GridLayout } from './denseMath';
import type { DensePalette } from './palette';
import { Raster } from './raster';

/** Scratch box [x0, y0, x1, y1] in device pixels, reused by every cell. */
export const box = new Int32Array(4);

/** Writes cell `i`'s device-pixel box into `out` (default: the shared scratch box). */
export function deviceBox(l: GridLayout, i: number, dpr: number, out: Int32Array = box): Int32Array {
  const x = cellXPx(l, i);
  const y = cellYPx(l, i);
  out[0] = Math.round(x * dpr);
  out[1] = Math.round(y * dpr);
  out[2] = Math.round((x + l.cellPx) * dpr);
  out[3] = Math.round((y + l.cellPx) * dpr);
  return out;
}

/** Side of every cell in device pixels: the same for all cells (so they can be stamped), never wider than the pitch leaves room for. */
export function cellSideDev(l: GridLayout, dpr: number): number {
  const gapDev = l.pitchPx > l.cellPx ? 1 : 0;
  return Math.max(1, Math.min(Math.round(l.cellPx * dpr), Math.floor(l.pitchPx * dpr) - gapDev));
}

/** Writes the device-pixel top-left corner of cell `i` into box[0], box[1]. */
export function cellOriginDev(l: GridLayout, i: number, dpr: number): void {
  box[0] = Math.round(cellXPx(l, i) * dpr);
  box[1] = Math.round(cellYPx(l, i) * dpr);
}

/** Builds the stamp of style `key` into `r` (a side x side surface; `b` is its box). */
export type StampBuilder = (r: Raster, b: Int32Array, p: DensePalette, key: number) => void;

/** Pre-drawn cells, one per style key (e.g. a PTE flag byte), rebuilt when the side or the palette changes. */
export class StampCache {
  private side = -1;
  private palette: DensePalette | null = null;
  private stamps: (Int32Array | undefined)[] = [];
  private readonly b = new Int32Array(4);

  get(key: number, side: number, p: DensePalette, build: StampBuilder): Int32Array {
    if (side !== this.side || p !== this.palette) {
      this.side = side;
      this.palette = p;
      this.stamps = [];
    }
    let s = this.stamps[key];
    if (!s) {
      const r = Raster.sized(side, side);
      this.b[0] = 0;
      this.b[1] = 0;
      this.b[2] = side;
      this.b[3] = side;
      build(r, this.b, p, key);
      s = r.px;
      this.stamps[key] = s;
    }
    return s;
  }
}

/** Smallest cell side (device pixels) that gets an outline, and the one that gets marks. */
export const OUTLINE_MIN_PX = 5;
export const MARKS_MIN_PX = 6;

/** Fills a cell, with a one-device-pixel outline when it is big enough. */
export function drawCell(r: Raster, b: Int32Array, fill: number, outline: number): void {
  const x0 = b[0] ?? 0;
  const y0 = b[1] ?? 0;
  const x1 = b[2] ?? 0;
  const y1 = b[3] ?? 0;
  if (x1 - x0 >= OUTLINE_MIN_PX) {
    r.fill(x0, y0, x1, y1, outline);
    r.fill(x0 + 1, y0 + 1, x1 - 1, y1 - 1, fill);
  } else {
    r.fill(x0, y0, x1, y1, fill);
  }
}

export const TOP_LEFT = 0;
export const TOP_RIGHT = 1;
export const BOTTOM_LEFT = 2;
export const BOTTOM_BAR = 3;
export const CENTRE = 4;

/** A mark in a cell: a corner square (about 30% of the side), a bar along the bottom, or a centre dot. */
export function drawMark(r: Raster, b: Int32Array, where: number, colour: number): void {
  const x0 = b[0] ?? 0;
  const y0 = b[1] ?? 0;
  const x1 = b[2] ?? 0;
  const y1 = b[3] ?? 0;
  const side = x1 - x0;
  if (side < MARKS_MIN_PX) return;
  const m = Math.max(2, Math.round(side * 0.3));
  const inset = side >= 10 ? 2 : 1;
  switch (where) {
    case TOP_LEFT:
      r.fill(x0 + inset, y0 + inset, x0 + inset + m, y0 + inset + m, colour);
      break;
    case TOP_RIGHT:
      r.fill(x1 - inset - m, y0 + inset, x1 - inset, y0 + inset + m, colour);
      break;
    case BOTTOM_LEFT:
      r.fill(x0 + inset, y1 - inset - m, x0 + inset + m, y1 - inset, colour);
      break;
    case BOTTOM_BAR:
      r.fill(x0 + inset + m + 1, y1 - inset - Math.max(1, Math.round(m / 2)), x1 - inset, y1 - inset, colour);
      break;
    default: {
      const c0x = x0 + ((side - m) >> 1);
      const c0y = y0 + ((y1 - y0 - m) >> 1);
      r.fill(c0x, c0y, c0x + m, c0y + m, colour);
    }
  }
}

/** A diagonal hatch (bottom-left to top-right, every 4 device pixels): the migrating frames' pattern. */
export function drawHatch(r: Raster, b: Int32Array, colour: number): void {
  const x0 = (b[0] ?? 0) + 1;
  const y0 = (b[1] ?? 0) + 1;
  const x1 = (b[2] ?? 0) - 1;
  const y1 = (b[3] ?? 0) - 1;
  const side = x1 - x0;
  if (side < 3) return;
  for (let d = 2; d < 2 * side; d += 4) {
    for (let k = 0; k < side; k++) {
      const x = x0 + k;
      const y = y1 - 1 - (d - k);
      if (y >= y0 && y < y1) r.fill(x, y, x + 1, y + 1, colour);
    }
  }
}
