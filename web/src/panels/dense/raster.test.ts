import { describe, expect, it } from 'vitest';
import { box, cellOriginDev, cellSideDev, drawCell, drawMark, StampCache, TOP_RIGHT } from './cells';
import { gridLayout } from './denseMath';
import { readPalette } from './palette';
import { Raster } from './raster';

/** A 2D context stand-in: ImageData of its own and a log of the puts. */
function fakeContext(): { ctx: CanvasRenderingContext2D; puts: number[][] } {
  const puts: number[][] = [];
  const ctx = {
    createImageData: (w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) }),
    putImageData: (_img: unknown, _x: number, _y: number, ...dirty: number[]) => puts.push(dirty),
  } as unknown as CanvasRenderingContext2D;
  return { ctx, puts };
}

describe('Raster', () => {
  it('fills clipped rectangles', () => {
    const r = Raster.sized(4, 3);
    r.fill(-2, 1, 2, 9, 7);
    expect([...r.px]).toEqual([0, 0, 0, 0, 7, 7, 0, 0, 7, 7, 0, 0]);
  });

  it('stamps a cell, clipped at the edges', () => {
    const r = Raster.sized(3, 3);
    const pat = Int32Array.from([1, 2, 3, 4]);
    r.stamp(0, 0, pat, 2);
    r.stamp(2, 2, pat, 2);
    expect([...r.px]).toEqual([1, 2, 0, 3, 4, 0, 0, 0, 1]);
  });

  it('redraws only changed cells, until the layout, ratio or palette changes', () => {
    const r = new Raster();
    const { ctx } = fakeContext();
    r.ensure(ctx, 10, 10);
    const deps = [{}, 1];
    expect(r.begin(3, 1, deps)).toBe(true);
    expect(r.changed(0, 5)).toBe(true);
    expect(r.changed(0, 5)).toBe(false);
    expect(r.begin(3, 1, deps)).toBe(false);
    expect(r.changed(0, 5)).toBe(false);
    expect(r.changed(0, 6)).toBe(true);
    expect(r.begin(3, 1, [{}, 1])).toBe(true);
    expect(r.changed(0, 6)).toBe(true);
  });

  it('puts everything after a full draw, then only the changed rectangles and last frame\'s overlay', () => {
    const r = new Raster();
    const { ctx, puts } = fakeContext();
    r.ensure(ctx, 20, 20);
    const deps = [1];
    r.begin(4, 1, deps);
    r.stamp(0, 0, new Int32Array(4), 2);
    r.put(ctx);
    expect(puts).toEqual([[]]);
    r.markOverlaid(5, 5, 9, 9);
    r.begin(4, 1, deps);
    r.stamp(10, 0, new Int32Array(4), 2);
    r.put(ctx);
    expect(puts.slice(1)).toEqual([
      [5, 5, 4, 4],
      [10, 0, 2, 2],
    ]);
    // A step with no change and no overlay puts nothing.
    r.begin(4, 1, deps);
    r.put(ctx);
    expect(puts).toHaveLength(3);
  });
});

describe('cells', () => {
  const p = readPalette(null);

  it('gives every cell the same device size, never wider than its pitch leaves room for', () => {
    const l = gridLayout(100, 200, { minCellPx: 7, maxCellPx: 7, gapPx: 1 });
    expect(cellSideDev(l, 1)).toBe(7);
    expect(cellSideDev(l, 2)).toBe(14);
    expect(cellSideDev(l, 1.25)).toBe(9);
    cellOriginDev(l, l.cols + 1, 2);
    expect([box[0], box[1]]).toEqual([16, 16]);
  });

  it('outlines big cells and leaves marks off small ones', () => {
    const r = Raster.sized(8, 8);
    const b = Int32Array.from([0, 0, 8, 8]);
    drawCell(r, b, 1, 2);
    expect(r.px[0]).toBe(2);
    expect(r.px[9]).toBe(1);
    drawMark(r, b, TOP_RIGHT, 3);
    expect(r.px.includes(3)).toBe(true);
    const small = Raster.sized(4, 4);
    drawCell(small, Int32Array.from([0, 0, 4, 4]), 1, 2);
    drawMark(small, Int32Array.from([0, 0, 4, 4]), TOP_RIGHT, 3);
    expect([...small.px].every((v) => v === 1)).toBe(true);
  });

  it('builds each stamp once per size and palette', () => {
    const cache = new StampCache();
    let builds = 0;
    const build = (r: Raster, b: Int32Array): void => {
      builds++;
      drawCell(r, b, 1, 2);
    };
    const a = cache.get(3, 6, p, build);
    expect(cache.get(3, 6, p, build)).toBe(a);
    expect(builds).toBe(1);
    cache.get(3, 7, p, build);
    expect(builds).toBe(2);
    expect(a).toHaveLength(36);
  });
});
