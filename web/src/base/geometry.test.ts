import { describe, expect, it } from 'vitest';
import { archOverPx, cellInDirection, columnsThatFit, curvedPathPx, gridCellsPx, insetRectPx, rectCenterPx, rectEdgeTowardPx } from './geometry';

const box = { xPx: 10, yPx: 20, widthPx: 100, heightPx: 40 };

describe('geometry', () => {
  it('finds the centre', () => {
    expect(rectCenterPx(box)).toEqual({ xPx: 60, yPx: 40 });
  });
  it('finds the edge point toward a target on each side', () => {
    expect(rectEdgeTowardPx(box, { xPx: 500, yPx: 40 })).toEqual({ xPx: 110, yPx: 40 });
    expect(rectEdgeTowardPx(box, { xPx: 60, yPx: -100 })).toEqual({ xPx: 60, yPx: 20 });
    expect(rectEdgeTowardPx(box, { xPx: 60, yPx: 40 })).toEqual({ xPx: 60, yPx: 40 });
    const corner = rectEdgeTowardPx(box, { xPx: 160, yPx: 140 });
    expect(corner.yPx).toBeCloseTo(60);
    expect(corner.xPx).toBeCloseTo(80);
  });
  it('bends a curve to the left of travel', () => {
    expect(curvedPathPx({ xPx: 0, yPx: 0 }, { xPx: 100, yPx: 0 }, 20)).toBe('M0,0 Q50,-20 100,0');
    expect(curvedPathPx({ xPx: 0, yPx: 0 }, { xPx: 0, yPx: 0 }, 20)).toBe('M0,0 Q0,0 0,0');
  });
  it('insets without going negative', () => {
    expect(insetRectPx(box, 5)).toEqual({ xPx: 15, yPx: 25, widthPx: 90, heightPx: 30 });
    expect(insetRectPx(box, 80).widthPx).toBe(0);
  });
  it('lays out a grid row by row', () => {
    const cells = gridCellsPx(5, 2, { xPx: 0, yPx: 0 }, 10, 2);
    expect(cells.map((c) => [c.xPx, c.yPx])).toEqual([
      [0, 0],
      [12, 0],
      [0, 12],
      [12, 12],
      [0, 24],
    ]);
    expect(gridCellsPx(0, 3, { xPx: 0, yPx: 0 }, 10, 2)).toEqual([]);
  });
  it('counts columns that fit', () => {
    expect(columnsThatFit(100, 10, 2)).toBe(8);
    expect(columnsThatFit(5, 10, 2)).toBe(1);
  });
});

describe('archOverPx', () => {
  it('arches from top centre to top centre above both boxes', () => {
    const a = { xPx: 0, yPx: 100, widthPx: 40, heightPx: 20 };
    const b = { xPx: 100, yPx: 80, widthPx: 40, heightPx: 20 };
    expect(archOverPx(a, b, 30)).toBe('M20,100 C20,50 120,50 120,80');
  });
});

describe('cellInDirection', () => {
  // Two rows of three, then a second block (another node) whose columns do not line up.
  const cells = [
    { id: 0, xPx: 0, yPx: 0 },
    { id: 1, xPx: 20, yPx: 0 },
    { id: 2, xPx: 40, yPx: 0 },
    { id: 3, xPx: 0, yPx: 20 },
    { id: 4, xPx: 20, yPx: 20 },
    { id: 16, xPx: 100, yPx: 0 },
  ];
  it('moves left and right in reading order, up and down within a column, clamped at the edges', () => {
    expect(cellInDirection(cells, 1, 'ArrowRight')).toBe(2);
    expect(cellInDirection(cells, 2, 'ArrowRight')).toBe(3);
    expect(cellInDirection(cells, 16, 'ArrowRight')).toBe(16);
    expect(cellInDirection(cells, 0, 'ArrowLeft')).toBe(0);
    expect(cellInDirection(cells, 1, 'ArrowDown')).toBe(4);
    expect(cellInDirection(cells, 4, 'ArrowUp')).toBe(1);
    expect(cellInDirection(cells, 2, 'ArrowDown')).toBe(2);
    expect(cellInDirection(cells, 16, 'ArrowDown')).toBe(16);
    expect(cellInDirection(cells, 4, 'Home')).toBe(0);
    expect(cellInDirection(cells, 0, 'End')).toBe(16);
  });
  it('leaves other keys, and unknown cells, alone', () => {
    expect(cellInDirection(cells, 1, 'PageDown')).toBeNull();
    expect(cellInDirection(cells, 1, 'Enter')).toBeNull();
    expect(cellInDirection(cells, 99, 'ArrowRight')).toBeNull();
  });
});
