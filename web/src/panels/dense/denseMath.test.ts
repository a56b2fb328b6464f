import { describe, expect, it } from 'vitest';
import { FRAME_COLORS } from '../MachineView';
import {
  cellXPx,
  cellYPx,
  columnsFor,
  decodeFrameFlags,
  decodePteFlags,
  DENSE_THRESHOLD,
  findFrame,
  findPte,
  frameSummary,
  frameText,
  gridLayout,
  hitIndex,
  isDense,
  labelEvery,
  moveCell,
  pteSummary,
  pteText,
  segments,
  tlbRange,
  tlbSummary,
  tlbText,
} from './denseMath';
import { themeTokens } from '../../theme/themeTokens';
import { FRAME_TOKENS, packRgb, parseHexColor, readPalette, themePalette } from './palette';
import { testBulk } from './testBulk';

describe('threshold', () => {
  it('draws more than 512 cells on canvas, the rest stays SVG', () => {
    expect(DENSE_THRESHOLD).toBe(512);
    expect(isDense(512)).toBe(false);
    expect(isDense(513)).toBe(true);
    expect(isDense(64 * 64)).toBe(true);
  });
});

describe('gridLayout', () => {
  const opts = { minCellPx: 8, maxCellPx: 19, gapPx: 1, maxHeightPx: 442 };

  it('fits 4,096 cells in 800 px: whole rows of a multiple of 8 cells, inside the width', () => {
    const l = gridLayout(4096, 800, opts);
    expect(l.cols % 8).toBe(0);
    expect(l.cols * l.rows).toBeGreaterThanOrEqual(4096);
    expect((l.rows - 1) * l.cols).toBeLessThan(4096);
    expect(l.originXPx + l.cols * l.pitchPx - opts.gapPx).toBeLessThanOrEqual(800);
    expect(l.pitchPx).toBe(l.cellPx + 1);
    expect(l.heightPx).toBe(l.rows * l.pitchPx - 1);
  });

  it('takes the largest cell whose grid fits the height, else the smallest', () => {
    const l = gridLayout(1000, 800, opts);
    expect(l.heightPx).toBeLessThanOrEqual(442);
    const bigger = gridLayout(1000, 800, { ...opts, minCellPx: l.cellPx + 1 });
    expect(bigger.cellPx === l.cellPx + 1 && bigger.heightPx > 442).toBe(true);
    // 20,000 cells cannot fit 442 px: smallest cells, taller grid.
    expect(gridLayout(20_000, 800, opts).cellPx).toBe(8);
  });

  it('lays few cells in one row at the largest size', () => {
    const l = gridLayout(10, 800, opts);
    expect(l).toMatchObject({ cols: 10, rows: 1, cellPx: 19 });
  });

  it('with fixed columns (TLB slots) sizes cells to the width after the gutter', () => {
    const l = gridLayout(64 * 64, 803, { cols: 64, minCellPx: 5, maxCellPx: 17, gapPx: 1, gutterPx: 52 });
    expect(l.cols).toBe(64);
    expect(l.rows).toBe(64);
    expect(l.originXPx).toBe(52);
    expect(l.cellPx).toBe(Math.floor((803 - 52 + 1) / 64) - 1);
    expect(l.originXPx + 64 * l.pitchPx - 1).toBeLessThanOrEqual(803);
  });

  it('keeps room for rings around the edge cells', () => {
    const l = gridLayout(100, 400, { ...opts, padPx: 7 });
    expect(l.originXPx).toBe(7);
    expect(l.originYPx).toBe(7);
    expect(l.originXPx + l.cols * l.pitchPx - 1 + 7).toBeLessThanOrEqual(400);
    expect(l.heightPx).toBe(7 + l.rows * l.pitchPx - 1 + 7);
  });

  it('counts columns as multiples of 8 only from 16 on', () => {
    expect(columnsFor(100, 10, 1)).toBe(10);
    expect(columnsFor(229, 10, 1)).toBe(16);
    expect(columnsFor(5, 10, 1)).toBe(1);
  });
});

describe('hitIndex', () => {
  const l = gridLayout(1000, 500, { minCellPx: 8, maxCellPx: 8, gapPx: 1, gutterPx: 30, topPx: 4 });

  it('maps the centre of every cell back to its index', () => {
    for (let i = 0; i < l.count; i++) {
      expect(hitIndex(l, cellXPx(l, i) + l.cellPx / 2, cellYPx(l, i) + l.cellPx / 2)).toBe(i);
    }
  });

  it('gives the gap right of and below a cell to that cell', () => {
    expect(hitIndex(l, cellXPx(l, 5) + l.cellPx + 0.5, cellYPx(l, 5) + 1)).toBe(5);
    expect(hitIndex(l, cellXPx(l, 5) + 1, cellYPx(l, 5) + l.cellPx + 0.5)).toBe(5);
  });

  it('is -1 outside the grid and past the last cell', () => {
    expect(hitIndex(l, 10, 10)).toBe(-1); // gutter
    expect(hitIndex(l, 40, 1)).toBe(-1); // above row 0
    expect(hitIndex(l, l.originXPx + l.cols * l.pitchPx + 1, 10)).toBe(-1);
    expect(hitIndex(l, 40, l.heightPx + 5)).toBe(-1);
    const lastRowX = cellXPx(l, l.cols - 1) + 1;
    const lastRowY = cellYPx(l, l.count - 1) + 1;
    expect(l.count % l.cols).not.toBe(0);
    expect(hitIndex(l, lastRowX, lastRowY)).toBe(-1);
  });
});

describe('moveCell and labelEvery', () => {
  const l = gridLayout(100, 90, { minCellPx: 8, maxCellPx: 8, gapPx: 1 }); // 10 columns
  it('moves by cells and rows, clamped; leaves PageUp/PageDown to the lab', () => {
    expect(l.cols).toBe(10);
    expect(moveCell(l, -1, 'ArrowRight')).toBe(0);
    expect(moveCell(l, 5, 'ArrowRight')).toBe(6);
    expect(moveCell(l, 0, 'ArrowLeft')).toBe(0);
    expect(moveCell(l, 5, 'ArrowDown')).toBe(15);
    expect(moveCell(l, 95, 'ArrowDown')).toBe(99);
    expect(moveCell(l, 5, 'ArrowUp')).toBe(0);
    expect(moveCell(l, 5, 'PageDown')).toBeNull();
    expect(moveCell(l, 5, 'PageUp')).toBeNull();
    expect(moveCell(l, 5, 'End')).toBe(99);
    expect(moveCell(l, 50, 'Home')).toBe(0);
    expect(moveCell(l, 5, 'a')).toBeNull();
  });
  it('labels every row when rows are tall enough, else every 2nd, 4th, …', () => {
    expect(labelEvery(15, 14)).toBe(1);
    expect(labelEvery(10, 14)).toBe(2);
    expect(labelEvery(4, 14)).toBe(4);
  });
});

describe('decoding and look-ups', () => {
  const bulk = testBulk();

  it('decodes PTE and frame flag bytes', () => {
    expect(decodePteFlags(1 | 4 | 8 | 16)).toEqual({ kind: 'present', write: true, dirty: true, accessed: true });
    expect(decodePteFlags(2 | 16)).toEqual({ kind: 'protnone', write: false, dirty: false, accessed: true });
    expect(decodePteFlags(3).kind).toBe('migration');
    expect(decodePteFlags(0).kind).toBe('none');
    expect(decodeFrameFlags(1 | 8)).toEqual({ state: 'mapped', locked: false, dirty: true });
    expect(decodeFrameFlags(3 | 4)).toEqual({ state: 'migrating', locked: true, dirty: false });
    expect(decodeFrameFlags(2).state).toBe('isolated');
  });

  it('splits PTEs per pid and frames per node', () => {
    expect(segments(bulk.ptePid)).toEqual([
      { key: 1, start: 0, end: 4 },
      { key: 2, start: 4, end: 5 },
    ]);
    expect(segments(bulk.frameNode).map((s) => [s.key, s.start, s.end])).toEqual([
      [0, 0, 4],
      [1, 4, 8],
    ]);
    expect(segments(new Uint8Array(0))).toEqual([]);
  });

  it('finds PTEs by (pid, vpn) and frames by pfn', () => {
    expect(findPte(bulk, 1, 0x12)).toBe(2);
    expect(findPte(bulk, 2, 0x20)).toBe(4);
    expect(findPte(bulk, 2, 0x10)).toBe(-1);
    expect(findPte(bulk, 3, 0x10)).toBe(-1);
    expect(findFrame(bulk, 5)).toBe(5);
    expect(findFrame(bulk, 9)).toBe(-1);
    expect(findFrame({ ...bulk, framePfn: Uint32Array.from([7, 3, 5]) }, 5)).toBe(2);
  });

  it('reads each CPU\'s TLB range', () => {
    expect(tlbRange(bulk, 0)).toEqual({ start: 0, count: 2 });
    expect(tlbRange(bulk, 1)).toEqual({ start: 2, count: 0 });
    // With a closing offset (CPUs + 1 starts) the result is the same.
    expect(tlbRange({ ...bulk, tlbCpuStart: Uint32Array.from([0, 2, 2]) }, 1)).toEqual({ start: 2, count: 0 });
  });
});

describe('texts', () => {
  const bulk = testBulk();

  it('describes the cell under the pointer', () => {
    expect(pteText(bulk, 0)).toBe('pid 1 vpn 0x10 → pfn 0x2: present; writable, dirty, accessed');
    expect(pteText(bulk, 1)).toBe('pid 1 vpn 0x11 → pfn 0x3: PROT_NONE; accessed');
    expect(pteText(bulk, 2)).toBe('pid 1 vpn 0x12: none');
    expect(frameText(bulk, 2)).toBe('pfn 0x2 (2), node 0: mapped by pid 1 vpn 0x10, dirty');
    expect(frameText(bulk, 5)).toBe('pfn 0x5 (5), node 1: migrating by pid 1 vpn 0x13, locked');
    expect(frameText(bulk, 0)).toBe('pfn 0x0 (0), node 0: free');
    expect(tlbText(bulk, 0, 0, 4)).toBe('CPU 0, TLB entry 1 of 2: pid 1 vpn 0x10 → pfn 0x2, writable, dirty');
    expect(tlbText(bulk, 1, 3, 4)).toBe('CPU 1, TLB slot 4 of 4: empty (0 entries)');
  });

  it('summarises each grid for screen readers', () => {
    expect(pteSummary(bulk, 0, 4, 'bench')).toBe('4 PTEs of pid 1 (bench), vpn 0x10–0x13: 1 present, 1 PROT_NONE, 1 migration, 1 none; 1 writable, 1 dirty, 2 accessed.');
    expect(pteSummary(bulk, 4, 5, undefined, { total: 100, offset: 4, count: 1 })).toBe(
      '1 PTE of pid 2, vpn 0x20–0x20: 1 present; 0 writable, 0 dirty, 0 accessed (PTEs 5–5 of 100 in this window).',
    );
    expect(frameSummary(bulk, 0, 4)).toBe('Node 0: 4 frames, pfn 0–3: 2 mapped, 2 free; 1 locked, 1 dirty.');
    expect(frameSummary(bulk, 4, 8)).toBe('Node 1: 4 frames, pfn 4–7: 1 mapped, 1 free, 1 isolated, 1 migrating; 1 locked, 0 dirty.');
    expect(tlbSummary(bulk, 2, 4, 0)).toBe('TLBs of 2 CPUs, 4 slots each: 2 entries (at most 2 on one CPU; 1 CPU with an empty TLB); 1 writable, 1 dirty. CPU 0 runs this step and holds 2 entries.');
  });

  it('groups thousands', () => {
    const n = 4096;
    const big = { ...testBulk(), ptePid: new Uint16Array(n).fill(1), pteVpn: Uint32Array.from({ length: n }, (_, i) => i), ptePfn: new Uint32Array(n), pteFlags: new Uint8Array(n).fill(1) };
    expect(pteSummary(big, 0, n)).toMatch(/^4,096 PTEs of pid 1, vpn 0x0–0xfff: 4,096 present;/);
  });
});

describe('palette', () => {
  it('parses the app\'s hex tokens', () => {
    expect(parseHexColor('#56b4e9')).toEqual([0x56, 0xb4, 0xe9]);
    expect(parseHexColor(' #fff ')).toEqual([255, 255, 255]);
    expect(parseHexColor('rgb(1, 2, 3)')).toBeNull();
  });

  it('packs colours as ImageData pixels (RGBA bytes)', () => {
    const px = new Int32Array([packRgb(0x56, 0xb4, 0xe9)]);
    expect([...new Uint8Array(px.buffer)]).toEqual([0x56, 0xb4, 0xe9, 255]);
  });

  it('reads the machine view\'s frame tokens, so canvas and SVG match', () => {
    expect([FRAME_COLORS.free, FRAME_COLORS.mapped, FRAME_COLORS.isolated, FRAME_COLORS.migrating]).toEqual(FRAME_TOKENS.map((t) => `var(${t})`));
    const light = themeTokens('light');
    expect(readPalette(null).frame.map((c) => c.css)).toEqual(FRAME_TOKENS.map((t) => light.get(t)));
    expect(readPalette(null).pte.map((c) => c.css)).toEqual(['#d4d4d0', '#56b4e9', '#d55e00', '#009e73']);
  });

  it('falls back to the named theme\'s token file where no stylesheet applies', () => {
    const dark = readPalette(null, 'dark');
    expect(dark.background.css).toBe(themeTokens('dark').get('--panel-bg'));
    expect(dark.background.css).not.toBe(readPalette(null, 'light').background.css);
    expect(themePalette('high-contrast').ink.css).toBe('#000000');
  });
});
