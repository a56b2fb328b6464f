// A canvas that draws a grid of cells from typed arrays: device-pixel-ratio aware, one draw pass
// per change of its painter (i.e. per frame), a tooltip and an outline for the cell under the
// pointer or the keyboard cursor (HTML over the canvas, so hovering never redraws), click or
// Enter to select, and an aria-label summary because a canvas is opaque to screen readers.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { cellXPx, cellYPx, gridLayout, hitIndex, moveCell, type GridLayout, type GridOptions } from './denseMath';
import { useTheme } from '../../theme/themeStore';
import { themePalette, type DensePalette } from './palette';
import { Raster } from './raster';
import styles from './Dense.module.css';

/**
 * What a dense view draws: cells as pixels (stamping only the cells whose key changed, see Raster.changed),
 * then optional vector overlays (rings) in CSS pixels over the whole canvas.
 */
export interface Painter {
  cells(r: Raster, l: GridLayout, dpr: number, p: DensePalette): void;
  overlay?(ctx: CanvasRenderingContext2D, l: GridLayout, p: DensePalette, r: Raster, dpr: number): void;
}

/** Draws one frame of a dense view on `canvas` (exported for the render benchmark and tests). */
export function drawDense(canvas: HTMLCanvasElement, raster: Raster, painter: Painter, l: GridLayout, dpr: number, p: DensePalette): boolean {
  const ctx = canvas.getContext('2d');
  if (!ctx) return false;
  const w = Math.max(1, Math.round(l.widthPx * dpr));
  const h = Math.max(1, Math.round(l.heightPx * dpr));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  raster.ensure(ctx, w, h);
  // Only the cells whose style changed since the last draw are stamped again, unless the layout, ratio or palette changed.
  if (raster.begin(l.count, l.rows, [l, dpr, p])) raster.clear(p.background.px);
  painter.cells(raster, l, dpr, p);
  raster.put(ctx);
  if (painter.overlay) {
    ctx.save();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    painter.overlay(ctx, l, p, raster, dpr);
    ctx.restore();
  }
  return true;
}

/** Root font size in CSS pixels (the app's big type: 17 px, 19 px on wide screens; more with a user's larger default). */
function rootFontPx(): number {
  if (typeof document === 'undefined' || typeof getComputedStyle !== 'function') return 17;
  const v = parseFloat(getComputedStyle(document.documentElement).fontSize);
  return Number.isFinite(v) && v > 0 ? v : 17;
}

/** Width of the element, its device pixel ratio and the root font size, kept current (resizes, zoom, moving to another screen). */
function useSurface(fallbackWidthPx: number): { ref: (el: HTMLDivElement | null) => void; widthPx: number; dpr: number; remPx: number } {
  const [el, setEl] = useState<HTMLDivElement | null>(null);
  const [widthPx, setWidthPx] = useState(fallbackWidthPx);
  const [dpr, setDpr] = useState(() => (typeof window === 'undefined' ? 1 : window.devicePixelRatio || 1));
  const [remPx, setRemPx] = useState(rootFontPx);
  useLayoutEffect(() => {
    if (!el) return;
    const measure = (): void => {
      const w = el.clientWidth;
      if (w > 0) setWidthPx(w);
      setRemPx(rootFontPx());
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [el]);
  useEffect(() => {
    if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return;
    // Browser zoom and moving the window to another screen change the ratio: listen for the current one to stop matching.
    const mq = window.matchMedia(`(resolution: ${dpr}dppx)`);
    const onChange = (): void => {
      setDpr(window.devicePixelRatio || 1);
      setRemPx(rootFontPx());
    };
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, [dpr]);
  return { ref: setEl, widthPx, dpr, remPx };
}

export interface DenseGridProps {
  count: number;
  /** Layout options for the root font size (lecture type makes cells and labels bigger). */
  options: (remPx: number) => GridOptions;
  painter: Painter;
  /** Tooltip / announcement of cell i. */
  describe: (i: number) => string;
  /** Summary for screen readers. */
  ariaLabel: string;
  onSelect?: (i: number) => void;
  /** The cell under the pointer or cursor, -1 when none. */
  onHover?: (i: number) => void;
  /** Test hook: data-testid of the canvas. */
  testId?: string;
  /** HTML laid over the canvas (e.g. row labels, which stay crisp and follow the font size). */
  decorate?: (l: GridLayout, remPx: number) => ReactNode;
  /** A cell to show (e.g. one gone to): when this changes to a cell, the cursor moves there (outline and tooltip) and it is scrolled into view. */
  reveal?: number;
  /** Test hook: data-linked of the canvas, what its linked rings mark (e.g. their pfns). */
  linked?: string;
}

/** One dense grid on a canvas. */
export function DenseGrid({ count, options, painter, describe, ariaLabel, onSelect, onHover, testId, decorate, reveal = -1, linked }: DenseGridProps) {
  const { ref, widthPx, dpr, remPx } = useSurface(640);
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  const rasterRef = useRef<Raster | null>(null);
  // Read at draw time from the theme in effect: a theme switch gives a new palette, which redraws every cell.
  const { resolved: theme } = useTheme();
  const palette = useMemo(() => themePalette(theme), [theme]);
  const layout = useMemo(() => gridLayout(count, widthPx, options(remPx)), [count, widthPx, options, remPx]);
  const [cursor, setCursor] = useState(-1);
  const [byKeyboard, setByKeyboard] = useState(false);
  const [revealed, setRevealed] = useState(-1);
  const cursorRef = useRef<HTMLDivElement | null>(null);
  if (reveal !== revealed) {
    // A new cell to show: put the cursor on it (adjusting state while rendering, as React recommends).
    setRevealed(reveal);
    if (reveal >= 0 && reveal < count) setCursor(reveal);
  }
  useEffect(() => {
    if (revealed >= 0) cursorRef.current?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [revealed]);

  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    rasterRef.current ??= new Raster();
    drawDense(canvas, rasterRef.current, painter, layout, dpr, palette);
  }, [painter, layout, dpr, palette]);

  const shown = cursor >= 0 && cursor < count ? cursor : -1;
  const setShown = (i: number, keyboard: boolean): void => {
    if (i !== cursor) {
      setCursor(i);
      onHover?.(i);
    }
    setByKeyboard(keyboard);
  };
  const indexAt = (e: { clientX: number; clientY: number; currentTarget: HTMLCanvasElement }): number => {
    const rect = e.currentTarget.getBoundingClientRect();
    return hitIndex(layout, e.clientX - rect.left, e.clientY - rect.top);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLCanvasElement>): void => {
    if ((e.key === 'Enter' || e.key === ' ') && shown >= 0) {
      e.preventDefault();
      onSelect?.(shown);
      return;
    }
    if (e.key === 'Escape') {
      setShown(-1, true);
      return;
    }
    const next = moveCell(layout, shown, e.key);
    if (next === null) return;
    e.preventDefault();
    // The transport's keys (arrows step the run) must not fire while moving in the grid.
    e.stopPropagation();
    setShown(next, true);
  };

  const text = shown >= 0 ? describe(shown) : '';
  const x = shown >= 0 ? cellXPx(layout, shown) : 0;
  const y = shown >= 0 ? cellYPx(layout, shown) : 0;
  const flip = x > layout.widthPx / 2;
  return (
    <div ref={ref} className={styles.surface}>
      <div className={styles.stack} style={{ width: layout.widthPx, height: layout.heightPx }}>
        <canvas
          ref={canvasRef}
          className={styles.canvas}
          style={{ width: layout.widthPx, height: layout.heightPx }}
          role="img"
          aria-label={ariaLabel}
          aria-roledescription="dense view"
          tabIndex={0}
          data-testid={testId}
          data-linked={linked}
          onPointerMove={(e) => setShown(indexAt(e), false)}
          onPointerLeave={() => setShown(-1, false)}
          onClick={(e) => {
            const i = indexAt(e);
            if (i >= 0) onSelect?.(i);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => byKeyboard && setShown(-1, false)}
        />
        {decorate?.(layout, remPx)}
        {shown >= 0 && (
          <>
            <div ref={cursorRef} className={styles.cursor} style={{ left: x - 2, top: y - 2, width: layout.cellPx + 4, height: layout.cellPx + 4 }} aria-hidden="true" />
            <div
              className={styles.tooltip}
              style={{ top: y + layout.cellPx + 6, ...(flip ? { right: layout.widthPx - x - layout.cellPx } : { left: x }) }}
              aria-hidden="true"
              data-testid={testId ? `${testId}-tooltip` : undefined}
            >
              {text}
            </div>
          </>
        )}
      </div>
      <span className="visually-hidden" aria-live="polite">
        {byKeyboard ? text : ''}
      </span>
    </div>
  );
}
