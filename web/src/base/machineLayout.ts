// Layout of the machine view: NUMA node boxes, CPU boxes inside them and a
// grid of page frames per node. All sizes in SVG user units (px).
import { scaleBand } from 'd3';
import { columnsThatFit, gridCellsPx, type RectPx } from './geometry';

/** What the layout needs to know about one node. */
export interface NodeShape {
  cpuCount: number;
  frameCount: number;
}

/** Fixed sizes of the machine drawing. */
export interface MachineMetricsPx {
  widthPx: number;
  gapPx: number;
  paddingPx: number;
  titlePx: number;
  cpuLinePx: number;
  cpuHeaderLines: number;
  tlbLinePx: number;
  cpuGapPx: number;
  maxCpusPerRow: number;
  frameCellPx: number;
  frameGapPx: number;
  memTitlePx: number;
}

/** Default sizes, tuned for a projector (SVG ≈ its natural size in the left column at 1440 px). */
export const DEFAULT_METRICS: MachineMetricsPx = {
  widthPx: 800,
  gapPx: 16,
  paddingPx: 12,
  titlePx: 28,
  cpuLinePx: 20,
  cpuHeaderLines: 4,
  tlbLinePx: 18,
  cpuGapPx: 10,
  maxCpusPerRow: 4,
  frameCellPx: 34,
  frameGapPx: 4,
  memTitlePx: 24,
};

/**
 * Sizes for lecture mode: drawn at its natural size (one user unit = one CSS px) beside the
 * code pane at 1280 × 720, with every text at least 24 px (LECTURE_FONTS).
 */
export const LECTURE_METRICS: MachineMetricsPx = {
  widthPx: 760,
  gapPx: 16,
  paddingPx: 12,
  titlePx: 36,
  cpuLinePx: 29,
  cpuHeaderLines: 4,
  tlbLinePx: 27,
  cpuGapPx: 10,
  maxCpusPerRow: 2,
  frameCellPx: 40,
  frameGapPx: 4,
  memTitlePx: 32,
};

/** TLB lines a CPU box draws at most in lecture mode (the last one summarises the rest). */
export const LECTURE_TLB_LINES = 4;

/** Font sizes (px) of a CPU box's lines and a frame's pfn label. */
export interface MachineFontsPx {
  name: number;
  task: number;
  state: number;
  fn: number;
  mono: number;
  badge: number;
  badgeWidth: number;
  badgeHeight: number;
  pfn: number;
  /** pfn labels of 4 digits or more. */
  pfnLong: number;
}

/** The lab's fonts for a CPU box of `widthPx` (small boxes get smaller type and one-letter badges). */
export function labFontsPx(widthPx: number): MachineFontsPx {
  const small = widthPx < 170;
  const f = small ? 12 : 15;
  return { name: f + 1, task: f - 1, state: f - 2, fn: f - 1, mono: small ? 11 : 13.5, badge: small ? 11 : 12, badgeWidth: small ? 17 : 48, badgeHeight: 18, pfn: 11.5, pfnLong: 9.5 };
}

/** Lecture mode's fonts: at least 24 px everywhere. */
export const LECTURE_FONTS: MachineFontsPx = { name: 24, task: 24, state: 24, fn: 24, mono: 24, badge: 24, badgeWidth: 64, badgeHeight: 28, pfn: 24, pfnLong: 24 };

/** At most this many frames are drawn per node (the rest is summarised). */
export const MAX_FRAMES_DRAWN = 1024;

/** Frame cell size for a node with `frameCount` frames: big labelled cells for small nodes, dots for big ones. */
export function frameCellPxFor(frameCount: number, m: MachineMetricsPx = DEFAULT_METRICS): number {
  if (frameCount <= 64) return m.frameCellPx;
  if (frameCount <= 160) return 20;
  if (frameCount <= 512) return 12;
  return 7;
}

/** Whether frame cells of `cellPx` are big enough to carry a pfn label. */
export function frameLabelFits(cellPx: number): boolean {
  return cellPx >= 24;
}

/** Where everything of one node goes. */
export interface NodeLayout {
  box: RectPx;
  cpus: RectPx[];
  memLabelYPx: number;
  /** One cell per drawn frame (the first min(frameCount, MAX_FRAMES_DRAWN) of the node). */
  frames: RectPx[];
  frameCellPx: number;
}

/** The whole machine drawing. */
export interface MachineLayout {
  widthPx: number;
  heightPx: number;
  nodes: NodeLayout[];
}

/** Number of node columns: all nodes side by side up to 2, then 2 per row (3+ nodes: 2 or 3 per row). */
export function nodeColumns(nodeCount: number): number {
  if (nodeCount <= 2) return Math.max(1, nodeCount);
  if (nodeCount === 3 || nodeCount > 4) return 3;
  return 2;
}

/** At most this many TLB lines are drawn per CPU (the last one summarises the rest). */
export const MAX_TLB_LINES = 8;

/** Number of TLB lines a CPU box draws for a TLB of `tlbEntries` entries (at most `max`). */
export function tlbLinesShown(tlbEntries: number, max = MAX_TLB_LINES): number {
  return Math.max(1, Math.min(max, tlbEntries));
}

/** Height of one CPU box for a TLB of `tlbEntries` entries. */
export function cpuHeightPx(tlbEntries: number, m: MachineMetricsPx = DEFAULT_METRICS): number {
  return m.cpuHeaderLines * m.cpuLinePx + tlbLinesShown(tlbEntries) * m.tlbLinePx + 12;
}

/** Computes the layout of the machine view for the given nodes. */
export function machineLayoutPx(nodes: NodeShape[], tlbEntries: number, m: MachineMetricsPx = DEFAULT_METRICS): MachineLayout {
  const cols = nodeColumns(nodes.length);
  const nodeWidthPx = (m.widthPx - (cols - 1) * m.gapPx) / cols;
  const innerWidthPx = nodeWidthPx - 2 * m.paddingPx;
  const cpuHPx = cpuHeightPx(tlbEntries, m);

  // Height of each node's content, so that nodes in one row share a height.
  const gapFor = (cellPx: number): number => (cellPx >= 20 ? m.frameGapPx : 2);
  const contentHeights = nodes.map((n) => {
    const cpuRows = Math.ceil(Math.max(1, n.cpuCount) / m.maxCpusPerRow);
    const cellPx = frameCellPxFor(n.frameCount, m);
    const drawn = Math.min(n.frameCount, MAX_FRAMES_DRAWN);
    const frameCols = columnsThatFit(innerWidthPx, cellPx, gapFor(cellPx));
    const frameRows = Math.ceil(drawn / frameCols);
    const framesHPx = frameRows > 0 ? frameRows * (cellPx + gapFor(cellPx)) - gapFor(cellPx) : 0;
    return m.titlePx + cpuRows * (cpuHPx + m.cpuGapPx) + m.memTitlePx + framesHPx + m.paddingPx;
  });

  const laidOut: NodeLayout[] = [];
  let rowTopPx = 0;
  for (let rowStart = 0; rowStart < nodes.length; rowStart += cols) {
    const rowHeights = contentHeights.slice(rowStart, rowStart + cols);
    const rowHPx = Math.max(...rowHeights);
    for (let i = rowStart; i < Math.min(nodes.length, rowStart + cols); i++) {
      const n = nodes[i] as NodeShape;
      const box: RectPx = {
        xPx: (i - rowStart) * (nodeWidthPx + m.gapPx),
        yPx: rowTopPx,
        widthPx: nodeWidthPx,
        heightPx: rowHPx,
      };
      const perRow = Math.min(m.maxCpusPerRow, Math.max(1, n.cpuCount));
      const band = scaleBand<number>()
        .domain(Array.from({ length: perRow }, (_, k) => k))
        .range([box.xPx + m.paddingPx, box.xPx + m.paddingPx + innerWidthPx])
        .paddingInner(perRow > 1 ? m.cpuGapPx / (innerWidthPx / perRow) : 0);
      const cpus: RectPx[] = Array.from({ length: n.cpuCount }, (_, k) => ({
        xPx: band(k % perRow) ?? box.xPx + m.paddingPx,
        yPx: box.yPx + m.titlePx + Math.floor(k / perRow) * (cpuHPx + m.cpuGapPx),
        widthPx: band.bandwidth(),
        heightPx: cpuHPx,
      }));
      const cpuRows = Math.ceil(Math.max(1, n.cpuCount) / perRow);
      const memLabelYPx = box.yPx + m.titlePx + cpuRows * (cpuHPx + m.cpuGapPx) + m.memTitlePx * 0.7;
      const cellPx = frameCellPxFor(n.frameCount, m);
      const frameCols = columnsThatFit(innerWidthPx, cellPx, gapFor(cellPx));
      const frames = gridCellsPx(
        Math.min(n.frameCount, MAX_FRAMES_DRAWN),
        frameCols,
        { xPx: box.xPx + m.paddingPx, yPx: box.yPx + m.titlePx + cpuRows * (cpuHPx + m.cpuGapPx) + m.memTitlePx },
        cellPx,
        gapFor(cellPx),
      );
      laidOut.push({ box, cpus, memLabelYPx, frames, frameCellPx: cellPx });
    }
    rowTopPx += rowHPx + m.gapPx;
  }
  return { widthPx: m.widthPx, heightPx: Math.max(0, rowTopPx - m.gapPx), nodes: laidOut };
}
