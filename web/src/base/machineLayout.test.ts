import { describe, expect, it } from 'vitest';
import { cpuHeightPx, DEFAULT_METRICS, frameCellPxFor, frameLabelFits, machineLayoutPx, MAX_FRAMES_DRAWN, MAX_TLB_LINES, nodeColumns, tlbLinesShown } from './machineLayout';

describe('machineLayoutPx', () => {
  it('puts two nodes side by side with equal widths inside the drawing', () => {
    const layout = machineLayoutPx(
      [
        { cpuCount: 2, frameCount: 16 },
        { cpuCount: 2, frameCount: 16 },
      ],
      4,
    );
    expect(layout.nodes).toHaveLength(2);
    const [a, b] = layout.nodes;
    expect(a?.box.widthPx).toBeCloseTo(b?.box.widthPx ?? 0);
    expect((b?.box.xPx ?? 0) + (b?.box.widthPx ?? 0)).toBeCloseTo(DEFAULT_METRICS.widthPx);
    expect(a?.box.yPx).toBe(0);
    expect(layout.heightPx).toBe(a?.box.heightPx);
  });
  it('keeps CPUs and frames inside their node box without overlap', () => {
    const layout = machineLayoutPx([{ cpuCount: 6, frameCount: 40 }], 3);
    const node = layout.nodes[0];
    expect(node).toBeDefined();
    if (!node) return;
    const inside = (r: { xPx: number; yPx: number; widthPx: number; heightPx: number }) =>
      r.xPx >= node.box.xPx - 1e-6 &&
      r.yPx >= node.box.yPx &&
      r.xPx + r.widthPx <= node.box.xPx + node.box.widthPx + 1e-6 &&
      r.yPx + r.heightPx <= node.box.yPx + node.box.heightPx + 1e-6;
    expect(node.cpus.every(inside)).toBe(true);
    expect(node.frames.every(inside)).toBe(true);
    // CPUs wrap after 4 per row.
    expect(node.cpus[4]?.yPx).toBeGreaterThan(node.cpus[0]?.yPx ?? 0);
    const lastCpuBottom = Math.max(...node.cpus.map((c) => c.yPx + c.heightPx));
    expect(Math.min(...node.frames.map((f) => f.yPx))).toBeGreaterThan(lastCpuBottom);
  });
  it('wraps four nodes into two rows', () => {
    expect(nodeColumns(1)).toBe(1);
    expect(nodeColumns(2)).toBe(2);
    expect(nodeColumns(4)).toBe(2);
    expect(nodeColumns(8)).toBe(3);
    const layout = machineLayoutPx(Array.from({ length: 4 }, () => ({ cpuCount: 1, frameCount: 4 })), 2);
    expect(layout.nodes[2]?.box.yPx).toBeGreaterThan(0);
    expect(layout.nodes[2]?.box.xPx).toBe(0);
  });
  it('grows the CPU box with TLB entries', () => {
    expect(cpuHeightPx(8)).toBeGreaterThan(cpuHeightPx(2));
    expect(cpuHeightPx(64)).toBe(cpuHeightPx(MAX_TLB_LINES));
    expect(tlbLinesShown(64)).toBe(MAX_TLB_LINES);
    expect(tlbLinesShown(0)).toBe(1);
  });
});

describe('big nodes', () => {
  it('shrinks frame cells and caps how many are drawn', () => {
    expect(frameCellPxFor(16)).toBe(DEFAULT_METRICS.frameCellPx);
    expect(frameLabelFits(frameCellPxFor(16))).toBe(true);
    expect(frameLabelFits(frameCellPxFor(1000))).toBe(false);
    const layout = machineLayoutPx([{ cpuCount: 2, frameCount: 1 << 20 }], 8);
    const node = layout.nodes[0];
    expect(node?.frames).toHaveLength(MAX_FRAMES_DRAWN);
    expect(node?.frameCellPx).toBe(7);
    expect(layout.heightPx).toBeLessThan(2000);
  });
});
