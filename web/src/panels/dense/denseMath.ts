// Pure parts of the dense (canvas) views: the SVG/canvas threshold, grid layout, hit-testing,
// flag decoding, tooltips and the aria summaries. No DOM here, so all of it is unit-tested.
import {
  FRAME_DIRTY,
  FRAME_LOCKED,
  FRAME_UNMAPPED_PID,
  PTE_ACCESSED,
  PTE_DIRTY,
  PTE_WRITE,
  TLB_DIRTY,
  TLB_WRITE,
  frameStateCode,
  pteKindCode,
  type BulkWindow,
  type FrameBulk,
} from '../../engine/bulk';
import type { FrameState, PteKind } from '../../engine/types';

/** Views with more cells than this draw on canvas; smaller ones stay SVG / HTML. The one place this rule lives. */
export const DENSE_THRESHOLD = 512;

/** Whether a view of `cells` cells (PTEs, frames or TLB entries) is dense, i.e. drawn on canvas. */
export function isDense(cells: number): boolean {
  return cells > DENSE_THRESHOLD;
}

/** Kind names by kind code (pteFlags bits 0-1). */
export const PTE_KINDS: readonly PteKind[] = ['none', 'present', 'protnone', 'migration'];
/** Frame state names by state code (frameFlags bits 0-1). */
export const FRAME_STATES: readonly FrameState[] = ['free', 'mapped', 'isolated', 'migrating'];
/** Names as the page-table view prints them. */
export const PTE_KIND_LABELS: readonly string[] = ['none', 'present', 'PROT_NONE', 'migration'];

/** Decoded PTE flag byte. */
export function decodePteFlags(flags: number): { kind: PteKind; write: boolean; dirty: boolean; accessed: boolean } {
  return {
    kind: PTE_KINDS[pteKindCode(flags)] ?? 'none',
    write: (flags & PTE_WRITE) !== 0,
    dirty: (flags & PTE_DIRTY) !== 0,
    accessed: (flags & PTE_ACCESSED) !== 0,
  };
}

/** Decoded frame flag byte. */
export function decodeFrameFlags(flags: number): { state: FrameState; locked: boolean; dirty: boolean } {
  return { state: FRAME_STATES[frameStateCode(flags)] ?? 'free', locked: (flags & FRAME_LOCKED) !== 0, dirty: (flags & FRAME_DIRTY) !== 0 };
}

// ---------------------------------------------------------------- layout

/** A grid of `count` square cells, row-major, in CSS pixels. */
export interface GridLayout {
  count: number;
  cols: number;
  rows: number;
  /** Side of a cell. */
  cellPx: number;
  /** Distance between the starts of two neighbouring cells (cell + gap). */
  pitchPx: number;
  /** Left edge of column 0 (room for row labels). */
  originXPx: number;
  /** Top edge of row 0. */
  originYPx: number;
  /** Size of the canvas: the cells, the gutter and the padding. */
  widthPx: number;
  heightPx: number;
}

export interface GridOptions {
  /** Smallest and largest cell side. */
  minCellPx: number;
  maxCellPx: number;
  /** Gap between cells. */
  gapPx: number;
  /** Preferred largest height: the biggest cell whose grid fits in it wins; with none, the smallest cell. */
  maxHeightPx?: number;
  /** Fixed number of columns (e.g. TLB slots); otherwise as many as fit, a multiple of 8 from 16 on. */
  cols?: number;
  /** Room left of column 0 (row labels). */
  gutterPx?: number;
  /** Room above row 0. */
  topPx?: number;
  /** Room on every side of the cells, for the rings drawn around edge cells. */
  padPx?: number;
}

/** Columns of cells of pitch `pitchPx` that fit in `availPx` (at least 1; a multiple of 8 from 16 on, so rows start at round indices). */
export function columnsFor(availPx: number, pitchPx: number, gapPx: number): number {
  const fit = Math.max(1, Math.floor((availPx + gapPx) / pitchPx));
  return fit >= 16 ? fit - (fit % 8) : fit;
}

/** Layout of `count` cells in a box `widthPx` wide. */
export function gridLayout(count: number, widthPx: number, opts: GridOptions): GridLayout {
  const pad = opts.padPx ?? 0;
  const gutter = (opts.gutterPx ?? 0) + pad;
  const top = (opts.topPx ?? 0) + pad;
  const avail = Math.max(1, widthPx - gutter - pad);
  const gap = opts.gapPx;
  const minCell = Math.max(1, Math.floor(opts.minCellPx));
  const maxCell = Math.max(minCell, Math.floor(opts.maxCellPx));
  const shape = (cell: number): { cols: number; rows: number } => {
    const cols = opts.cols !== undefined ? Math.max(1, opts.cols) : Math.min(Math.max(1, count), columnsFor(avail, cell + gap, gap));
    return { cols, rows: Math.max(1, Math.ceil(count / cols)) };
  };
  let cell = minCell;
  if (opts.cols !== undefined) {
    // Fixed columns: the largest cell that fits the width.
    const fits = Math.floor((avail + gap) / Math.max(1, opts.cols)) - gap;
    cell = Math.max(minCell, Math.min(maxCell, fits));
  } else {
    for (let c = maxCell; c >= minCell; c--) {
      const { rows } = shape(c);
      if (opts.maxHeightPx === undefined || top + rows * (c + gap) <= opts.maxHeightPx) {
        cell = c;
        break;
      }
    }
  }
  const { cols, rows } = shape(cell);
  const pitch = cell + gap;
  return {
    count,
    cols,
    rows,
    cellPx: cell,
    pitchPx: pitch,
    originXPx: gutter,
    originYPx: top,
    // As wide as the cells need (not the whole box): fewer pixels to put and composite per step.
    widthPx: gutter + cols * pitch - gap + pad,
    heightPx: top + rows * pitch - gap + pad,
  };
}

/** Left edge of cell `i`. */
export function cellXPx(l: GridLayout, i: number): number {
  return l.originXPx + (i % l.cols) * l.pitchPx;
}

/** Top edge of cell `i`. */
export function cellYPx(l: GridLayout, i: number): number {
  return l.originYPx + Math.floor(i / l.cols) * l.pitchPx;
}

/** Index of the cell under (xPx, yPx) (the gap right/below a cell counts as that cell), or -1. */
export function hitIndex(l: GridLayout, xPx: number, yPx: number): number {
  const col = Math.floor((xPx - l.originXPx) / l.pitchPx);
  const row = Math.floor((yPx - l.originYPx) / l.pitchPx);
  if (col < 0 || col >= l.cols || row < 0 || row >= l.rows) return -1;
  const i = row * l.cols + col;
  return i < l.count ? i : -1;
}

/** The cell a key moves to from `i` (arrows, Home, End), or null for other keys: PageUp/PageDown are the lab's (chapters) wherever the focus is. */
export function moveCell(l: GridLayout, i: number, key: string): number | null {
  const last = l.count - 1;
  if (last < 0) return null;
  const from = i < 0 ? 0 : i;
  const clamp = (j: number): number => Math.max(0, Math.min(last, j));
  switch (key) {
    case 'ArrowRight':
      return i < 0 ? 0 : clamp(from + 1);
    case 'ArrowLeft':
      return clamp(from - 1);
    case 'ArrowDown':
      return i < 0 ? 0 : clamp(from + l.cols);
    case 'ArrowUp':
      return clamp(from - l.cols);
    case 'Home':
      return 0;
    case 'End':
      return last;
    default:
      return null;
  }
}

/** Every `k`-th row gets a label, the smallest k of 1, 2, 4, 8, … whose rows are at least `labelPx` apart. */
export function labelEvery(pitchPx: number, labelPx: number): number {
  let k = 1;
  while (k * pitchPx < labelPx && k < 1024) k *= 2;
  return k;
}

// ---------------------------------------------------------------- segments and look-ups

/** A run of equal keys: PTEs of one pid, frames of one node. */
export interface Segment {
  key: number;
  start: number;
  end: number;
}

/** Runs of equal values in `keys[0..count)` (ptePid is ordered by pid, frames come grouped by node). */
export function segments(keys: ArrayLike<number>, count = keys.length): Segment[] {
  const out: Segment[] = [];
  let start = 0;
  for (let i = 1; i <= count; i++) {
    if (i === count || keys[i] !== keys[start]) {
      if (i > start) out.push({ key: keys[start] ?? 0, start, end: i });
      start = i;
    }
  }
  return out;
}

/** Index of the first element >= value in the ordered `values[start..end)`. */
function lowerBound(values: ArrayLike<number>, start: number, end: number, value: number): number {
  let lo = start;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] ?? 0) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the PTE (pid, vpn) in the bulk, or -1. */
export function findPte(bulk: FrameBulk, pid: number, vpn: number): number {
  const n = bulk.ptePid.length;
  // Ordered by pid, then vpn: the pid's run, then the vpn in it.
  const first = lowerBound(bulk.ptePid, 0, n, pid);
  const end = lowerBound(bulk.ptePid, first, n, pid + 1);
  const i = lowerBound(bulk.pteVpn, first, end, vpn);
  return i < end && bulk.pteVpn[i] === vpn ? i : -1;
}

/** Index of frame `pfn` in the bulk, or -1 (binary search if the pfns are ordered, else a scan). */
export function findFrame(bulk: FrameBulk, pfn: number): number {
  const n = bulk.framePfn.length;
  const i = lowerBound(bulk.framePfn, 0, n, pfn);
  if (i < n && bulk.framePfn[i] === pfn) return i;
  return bulk.framePfn.indexOf(pfn);
}

/** First TLB index of each CPU and its entry count: entries of CPU c are tlb*[start(c) .. start(c) + count(c)). */
export function tlbRange(bulk: FrameBulk, cpu: number): { start: number; count: number } {
  const start = bulk.tlbCpuStart[cpu] ?? bulk.tlbPid.length;
  const next = cpu + 1 < bulk.tlbCpuStart.length ? (bulk.tlbCpuStart[cpu + 1] ?? bulk.tlbPid.length) : bulk.tlbPid.length;
  return { start, count: Math.max(0, next - start) };
}

/** Number of CPUs the TLB arrays describe, when the topology does not say: one start per CPU. */
export function tlbCpuCount(bulk: FrameBulk): number {
  return bulk.tlbCpuStart.length;
}

// ---------------------------------------------------------------- text

const nf = new Intl.NumberFormat('en-US');
/** 4096 -> "4,096". */
export function fmt(n: number): string {
  return nf.format(n);
}

function hex(n: number): string {
  return `0x${n.toString(16)}`;
}

/** "W D A"-style letters of set bits, or "" when none. */
function bits(parts: [boolean, string][]): string {
  return parts
    .filter(([on]) => on)
    .map(([, name]) => name)
    .join(', ');
}

/** Tooltip of PTE `i`: "pid 1 vpn 0x1a → pfn 0x3f: present; writable, dirty, accessed". */
export function pteText(bulk: FrameBulk, i: number): string {
  const f = bulk.pteFlags[i] ?? 0;
  const d = decodePteFlags(f);
  const pid = bulk.ptePid[i] ?? 0;
  const vpn = bulk.pteVpn[i] ?? 0;
  const target = d.kind === 'none' ? '' : ` → pfn ${hex(bulk.ptePfn[i] ?? 0)}`;
  const b = bits([
    [d.write, 'writable'],
    [d.dirty, 'dirty'],
    [d.accessed, 'accessed'],
  ]);
  return `pid ${pid} vpn ${hex(vpn)}${target}: ${PTE_KIND_LABELS[pteKindCode(f)]}${b ? `; ${b}` : ''}`;
}

/** Tooltip of frame `i`: "pfn 0x3f (63), node 0: mapped by pid 1 vpn 0x1a, locked, dirty". */
export function frameText(bulk: FrameBulk, i: number): string {
  const pfn = bulk.framePfn[i] ?? 0;
  const d = decodeFrameFlags(bulk.frameFlags[i] ?? 0);
  const mapPid = bulk.frameMapPid[i] ?? FRAME_UNMAPPED_PID;
  const mapped = mapPid === FRAME_UNMAPPED_PID ? '' : ` by pid ${mapPid} vpn ${hex(bulk.frameMapVpn[i] ?? 0)}`;
  return `pfn ${hex(pfn)} (${pfn}), node ${bulk.frameNode[i] ?? 0}: ${d.state}${mapped}${d.locked ? ', locked' : ''}${d.dirty ? ', dirty' : ''}`;
}

/** Tooltip of TLB entry `slot` of CPU `cpu`: "CPU 3, TLB entry 5 of 64: pid 1 vpn 0x1a → pfn 0x3f, writable, dirty". */
export function tlbText(bulk: FrameBulk, cpu: number, slot: number, slots: number): string {
  const { start, count } = tlbRange(bulk, cpu);
  if (slot >= count) return `CPU ${cpu}, TLB slot ${slot + 1} of ${slots}: empty (${count} entries)`;
  const i = start + slot;
  const f = bulk.tlbFlags[i] ?? 0;
  const b = bits([
    [(f & TLB_WRITE) !== 0, 'writable'],
    [(f & TLB_DIRTY) !== 0, 'dirty'],
  ]);
  return `CPU ${cpu}, TLB entry ${slot + 1} of ${count}: pid ${bulk.tlbPid[i] ?? 0} vpn ${hex(bulk.tlbVpn[i] ?? 0)} → pfn ${hex(bulk.tlbPfn[i] ?? 0)}${b ? `, ${b}` : ''}`;
}

/** "present 3,900" style parts, only non-zero counts, in the given order; "none" when all are zero. */
function countList(names: readonly string[], counts: readonly number[]): string {
  const parts: string[] = [];
  names.forEach((name, k) => {
    const c = counts[k] ?? 0;
    if (c > 0) parts.push(`${fmt(c)} ${name}`);
  });
  return parts.join(', ') || 'none';
}

/** Screen-reader summary of PTEs [start, end) (one pid): "4,096 PTEs of pid 1 (bench): 3,900 present, 180 PROT_NONE, 16 none; 812 writable, 300 dirty, 3,000 accessed". */
export function pteSummary(bulk: FrameBulk, start: number, end: number, name?: string, window?: BulkWindow): string {
  const kinds = [0, 0, 0, 0];
  let write = 0;
  let dirty = 0;
  let accessed = 0;
  for (let i = start; i < end; i++) {
    const f = bulk.pteFlags[i] ?? 0;
    kinds[f & 3] = (kinds[f & 3] ?? 0) + 1;
    if (f & PTE_WRITE) write++;
    if (f & PTE_DIRTY) dirty++;
    if (f & PTE_ACCESSED) accessed++;
  }
  const n = end - start;
  const pid = n > 0 ? (bulk.ptePid[start] ?? 0) : 0;
  const order = [1, 2, 3, 0];
  const kindText = countList(
    order.map((k) => PTE_KIND_LABELS[k] ?? ''),
    order.map((k) => kinds[k] ?? 0),
  );
  const range = n > 0 ? `, vpn ${hex(bulk.pteVpn[start] ?? 0)}–${hex(bulk.pteVpn[end - 1] ?? 0)}` : '';
  const win = window && window.count < window.total ? ` (PTEs ${fmt(window.offset + 1)}–${fmt(window.offset + window.count)} of ${fmt(window.total)} in this window)` : '';
  return `${fmt(n)} PTE${n === 1 ? '' : 's'} of pid ${pid}${name ? ` (${name})` : ''}${range}: ${kindText}; ${fmt(write)} writable, ${fmt(dirty)} dirty, ${fmt(accessed)} accessed${win}.`;
}

/** Screen-reader summary of frames [start, end) (one node): "Node 0: 4,096 frames, pfn 0–4095: 3,000 mapped, 1,090 free, 6 migrating; 2 locked, 40 dirty". */
export function frameSummary(bulk: FrameBulk, start: number, end: number): string {
  const states = [0, 0, 0, 0];
  let locked = 0;
  let dirty = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = start; i < end; i++) {
    const f = bulk.frameFlags[i] ?? 0;
    states[f & 3] = (states[f & 3] ?? 0) + 1;
    if (f & FRAME_LOCKED) locked++;
    if (f & FRAME_DIRTY) dirty++;
    const pfn = bulk.framePfn[i] ?? 0;
    if (pfn < lo) lo = pfn;
    if (pfn > hi) hi = pfn;
  }
  const n = end - start;
  const node = n > 0 ? (bulk.frameNode[start] ?? 0) : 0;
  const order = [1, 0, 2, 3];
  const stateText = countList(
    order.map((k) => FRAME_STATES[k] ?? ''),
    order.map((k) => states[k] ?? 0),
  );
  return `Node ${node}: ${fmt(n)} frame${n === 1 ? '' : 's'}${n > 0 ? `, pfn ${lo}–${hi}` : ''}: ${stateText}; ${fmt(locked)} locked, ${fmt(dirty)} dirty.`;
}

/** Screen-reader summary of the TLBs: "TLBs of 64 CPUs: 4,000 entries (up to 64 per CPU; 2 CPUs empty); 800 writable, 300 dirty. CPU 3 is this step's CPU." */
export function tlbSummary(bulk: FrameBulk, cpuCount: number, slots: number, eventCpu?: number | null): string {
  let total = 0;
  let most = 0;
  let empty = 0;
  for (let c = 0; c < cpuCount; c++) {
    const { count } = tlbRange(bulk, c);
    total += count;
    if (count > most) most = count;
    if (count === 0) empty++;
  }
  let write = 0;
  let dirty = 0;
  for (let i = 0; i < bulk.tlbFlags.length; i++) {
    const f = bulk.tlbFlags[i] ?? 0;
    if (f & TLB_WRITE) write++;
    if (f & TLB_DIRTY) dirty++;
  }
  const emptyText = empty > 0 ? `; ${fmt(empty)} CPU${empty === 1 ? '' : 's'} with an empty TLB` : '';
  const ev = eventCpu !== null && eventCpu !== undefined && eventCpu < cpuCount ? ` CPU ${eventCpu} runs this step and holds ${fmt(tlbRange(bulk, eventCpu).count)} entries.` : '';
  return `TLBs of ${fmt(cpuCount)} CPUs, ${fmt(slots)} slots each: ${fmt(total)} entries (at most ${fmt(most)} on one CPU${emptyText}); ${fmt(write)} writable, ${fmt(dirty)} dirty.${ev}`;
}
