// Vector marks over the pixels (CSS pixels): the rings of touched and linked cells, as in the SVG views
// (MachineView's touchedFrame: dashed ink; highlightFrame: solid ink), with a light halo so they read on any fill.
import { cellXPx, cellYPx, type GridLayout } from './denseMath';
import type { DensePalette } from './palette';

/** Ring around cell `i`: 'touched' (dashed, this step's event touched it) or 'linked' (solid, hovered or selected elsewhere). */
export function ring(ctx: CanvasRenderingContext2D, l: GridLayout, i: number, kind: 'touched' | 'linked', p: DensePalette): void {
  const x = cellXPx(l, i);
  const y = cellYPx(l, i);
  const out = kind === 'linked' ? 4 : 3;
  const w = l.cellPx + 2 * out;
  ctx.setLineDash([]);
  ctx.lineWidth = kind === 'linked' ? 6 : 5;
  ctx.strokeStyle = '#ffffff';
  ctx.strokeRect(x - out, y - out, w, w);
  ctx.lineWidth = kind === 'linked' ? 3 : 2.5;
  ctx.strokeStyle = p.ink.css;
  ctx.setLineDash(kind === 'linked' ? [] : [4, 2]);
  ctx.strokeRect(x - out, y - out, w, w);
  ctx.setLineDash([]);
}
