// Vector marks over the pixels (CSS pixels): the rings of touched and linked cells, as in the SVG views
// (MachineView's touchedFrame: dashed ink; highlightFrame: solid ink), with a light halo so they read on any fill.
import { cellXPx, cellYPx, type GridLayout } from './denseMath';
import type { DensePalette } from './palette';
import type { Raster } from './raster';

/** Room a ring (and its halo) needs outside its cell. */
export const RING_PAD_PX = 7;

/** Ring around a whole row of a grid (a TLB row): solid for this step's CPU (MachineView's eventCpu stroke), dashed for a CPU it touched. */
export function rowRing(ctx: CanvasRenderingContext2D, l: GridLayout, row: number, colour: string, dashed: boolean, r: Raster, dpr: number): void {
  const x = l.originXPx - 3;
  const y = l.originYPx + row * l.pitchPx - 3;
  const w = l.cols * l.pitchPx - (l.pitchPx - l.cellPx) + 6;
  const h = l.cellPx + 6;
  r.markOverlaid(Math.floor((x - 3) * dpr), Math.floor((y - 3) * dpr), Math.ceil((x + w + 3) * dpr), Math.ceil((y + h + 3) * dpr));
  ctx.lineWidth = 3;
  ctx.strokeStyle = colour;
  ctx.setLineDash(dashed ? [7, 3] : []);
  ctx.strokeRect(x, y, w, h);
  ctx.setLineDash([]);
}

/** Ring around cell `i` (recorded in `r` so that the next draw erases it): 'touched' (dashed, this step's event touched it) or 'linked' (solid, hovered or selected elsewhere). */
export function ring(ctx: CanvasRenderingContext2D, l: GridLayout, i: number, kind: 'touched' | 'linked', p: DensePalette, r: Raster, dpr: number): void {
  const x = cellXPx(l, i);
  const y = cellYPx(l, i);
  const out = kind === 'linked' ? 4 : 3;
  const w = l.cellPx + 2 * out;
  // The halo reaches 3 px past the ring's path: the next draw restores that square.
  r.markOverlaid(Math.floor((x - out - 4) * dpr), Math.floor((y - out - 4) * dpr), Math.ceil((x - out + w + 4) * dpr), Math.ceil((y - out + w + 4) * dpr));
  ctx.setLineDash([]);
  ctx.lineWidth = kind === 'linked' ? 6 : 5;
  ctx.strokeStyle = p.halo.css;
  ctx.strokeRect(x - out, y - out, w, w);
  ctx.lineWidth = kind === 'linked' ? 3 : 2.5;
  ctx.strokeStyle = p.ink.css;
  ctx.setLineDash(kind === 'linked' ? [] : [4, 2]);
  ctx.strokeRect(x - out, y - out, w, w);
  ctx.setLineDash([]);
}
