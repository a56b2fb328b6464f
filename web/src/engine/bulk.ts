// Per-step bulk state (PTEs, frames, TLB entries) as typed arrays: what the
// engine's `frame()` returns under `bulk` (filled in wasm-core/engine/src/view/bulk.rs,
// handed over in wasm-core/wasm/src/lib.rs) and what the worker transfers to the
// UI thread without copying. No per-PTE objects: panels read the arrays, through
// the small helpers below where that is clearer.
//
// A view of a large machine is windowed: `Frame.pteWindow` / `Frame.frameWindow`
// say which part of the whole is in the arrays ("showing count of total").
//
// FrameBulk is written by hand, not generated with ts-rs like the frame header
// (`generated/FrameHeader.ts`): the engine holds Vecs that the wasm layer copies into
// typed arrays on one ArrayBuffer, which serde (and so ts-rs) knows nothing of.
// BULK_LAYOUT below is that layout; the fixture recorder (scripts/record-fixtures.mjs)
// records the engine's, and the fixture engine refuses to load when they differ.
import type { BulkWindow } from './generated/BulkWindow';
import type { FrameWindow } from './generated/FrameWindow';

export interface FrameBulk {
  // PTEs in the window, ordered by pid then vpn
  ptePid: Uint16Array;
  pteVpn: Uint32Array;
  ptePfn: Uint32Array;
  pteFlags: Uint8Array; // bits 0-1 kind (0 none, 1 present, 2 protnone, 3 migration); bit 2 write; bit 3 dirty; bit 4 accessed
  // frames (physical pages) in the window, by pfn
  framePfn: Uint32Array;
  frameNode: Uint8Array;
  frameFlags: Uint8Array; // bits 0-1 state (0 free, 1 mapped, 2 isolated, 3 migrating); bit 2 locked; bit 3 dirty
  frameMapPid: Uint16Array; // 0xFFFF = not mapped
  frameMapVpn: Uint32Array;
  // TLB entries of every CPU, CPU c's entries are [tlbCpuStart[c], tlbCpuStart[c+1])
  tlbCpuStart: Uint32Array;
  tlbPid: Uint16Array;
  tlbVpn: Uint32Array;
  tlbPfn: Uint32Array;
  tlbFlags: Uint8Array; // bit 0 write; bit 1 dirty
}

/** In the header, for ptes and frames: what part of the whole is in the arrays (`count` items from index `offset` of `total`; for frames `offset` is the first pfn). Generated from the engine's `BulkWindow`. */
export type { BulkWindow };

/** Which PTEs and frames a frame carries (every field optional; the engine's default is the first 65,536 of each). Generated from the engine's `FrameWindow`. */
export type FrameWindowRequest = FrameWindow;

export type PteKind = 'none' | 'present' | 'protnone' | 'migration';
export type FrameState = 'free' | 'mapped' | 'isolated' | 'migrating';

export const PTE_KINDS: readonly PteKind[] = ['none', 'present', 'protnone', 'migration'];
export const FRAME_STATES: readonly FrameState[] = ['free', 'mapped', 'isolated', 'migrating'];

export const PTE_WRITE = 1 << 2;
export const PTE_DIRTY = 1 << 3;
export const PTE_ACCESSED = 1 << 4;
export const FRAME_LOCKED = 1 << 2;
export const FRAME_DIRTY = 1 << 3;
export const TLB_WRITE = 1;
export const TLB_DIRTY = 1 << 1;
/** `frameMapPid` of a frame that no PTE maps. */
export const NO_PID = 0xffff;

/** PTE kind codes (pteFlags bits 0-1), for code that works on the raw flag bytes (canvas views). */
export const PTE_NONE = 0;
export const PTE_PRESENT = 1;
export const PTE_PROTNONE = 2;
export const PTE_MIGRATION = 3;
export const PTE_KIND_MASK = 0b11;

/** Frame state codes (frameFlags bits 0-1). */
export const FRAME_FREE = 0;
export const FRAME_MAPPED = 1;
export const FRAME_ISOLATED = 2;
export const FRAME_MIGRATING = 3;
export const FRAME_STATE_MASK = 0b11;
/** frameMapPid of an unmapped frame (the same as `NO_PID`). */
export const FRAME_UNMAPPED_PID = 0xffff;

/** Kind code (0-3) of a PTE flag byte. */
export function pteKindCode(flags: number): number {
  return flags & PTE_KIND_MASK;
}

/** State code (0-3) of a frame flag byte. */
export function frameStateCode(flags: number): number {
  return flags & FRAME_STATE_MASK;
}

/** The kind of a PTE from its flags. */
export function pteKind(flags: number): PteKind {
  return PTE_KINDS[flags & 3] as PteKind;
}

/** The state of a frame from its flags. */
export function frameState(flags: number): FrameState {
  return FRAME_STATES[flags & 3] as FrameState;
}

/** The flags of a PTE from its fields. */
export function pteFlags(kind: PteKind, write: boolean, dirty: boolean, accessed: boolean): number {
  return PTE_KINDS.indexOf(kind) | (write ? PTE_WRITE : 0) | (dirty ? PTE_DIRTY : 0) | (accessed ? PTE_ACCESSED : 0);
}

/** The flags of a frame from its fields. */
export function frameFlags(state: FrameState, locked: boolean, dirty: boolean): number {
  return FRAME_STATES.indexOf(state) | (locked ? FRAME_LOCKED : 0) | (dirty ? FRAME_DIRTY : 0);
}

/** A PTE as a small object (for views that show a few hundred at most). */
export interface PteView {
  pid: number;
  vpn: number;
  kind: PteKind;
  pfn: number;
  write: boolean;
  dirty: boolean;
  accessed: boolean;
}

/** A frame as a small object. */
export interface FrameView {
  pfn: number;
  node: number;
  state: FrameState;
  /** [pid, vpn] of the mapping (rmap), if any. */
  mappedBy: [number, number] | null;
  locked: boolean;
  dirty: boolean;
}

/** A TLB entry as a small object. */
export interface TlbEntryView {
  pid: number;
  vpn: number;
  pfn: number;
  write: boolean;
  dirty: boolean;
}

/** Number of PTEs in the arrays. */
export function pteCount(b: FrameBulk): number {
  return b.ptePid.length;
}

/** Number of frames in the arrays. */
export function frameCount(b: FrameBulk): number {
  return b.framePfn.length;
}

/** PTE `i` of the arrays as an object. */
export function pteAt(b: FrameBulk, i: number): PteView {
  const f = b.pteFlags[i] ?? 0;
  return { pid: b.ptePid[i] ?? 0, vpn: b.pteVpn[i] ?? 0, kind: pteKind(f), pfn: b.ptePfn[i] ?? 0, write: (f & PTE_WRITE) !== 0, dirty: (f & PTE_DIRTY) !== 0, accessed: (f & PTE_ACCESSED) !== 0 };
}

/** Frame `i` of the arrays as an object. */
export function frameAt(b: FrameBulk, i: number): FrameView {
  const f = b.frameFlags[i] ?? 0;
  const pid = b.frameMapPid[i] ?? NO_PID;
  return {
    pfn: b.framePfn[i] ?? 0,
    node: b.frameNode[i] ?? 0,
    state: frameState(f),
    mappedBy: pid === NO_PID ? null : [pid, b.frameMapVpn[i] ?? 0],
    locked: (f & FRAME_LOCKED) !== 0,
    dirty: (f & FRAME_DIRTY) !== 0,
  };
}

/** Index of the PTE (pid, vpn) in the arrays (binary search: they are ordered by pid, then vpn), or -1 when it is not in the window. */
export function findPte(b: FrameBulk, pid: number, vpn: number): number {
  let lo = 0;
  let hi = b.ptePid.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const p = b.ptePid[mid] as number;
    if (p < pid || (p === pid && (b.pteVpn[mid] as number) < vpn)) lo = mid + 1;
    else hi = mid;
  }
  return lo < b.ptePid.length && b.ptePid[lo] === pid && b.pteVpn[lo] === vpn ? lo : -1;
}

/** Index of frame `pfn` in the arrays (they hold a contiguous pfn range), or -1 when it is not in the window. */
export function findFrame(b: FrameBulk, pfn: number): number {
  const first = b.framePfn[0];
  if (first === undefined) return -1;
  const i = pfn - first;
  return i >= 0 && i < b.framePfn.length && b.framePfn[i] === pfn ? i : -1;
}

/** `[start, end)`: the indices of CPU `cpu`'s TLB entries (cpu is the CPU's index in `Frame.cpus`, which is its id). */
export function tlbRange(b: FrameBulk, cpu: number): [number, number] {
  const start = b.tlbCpuStart[cpu];
  const end = b.tlbCpuStart[cpu + 1];
  return start === undefined || end === undefined ? [0, 0] : [start, end];
}

/** Number of TLB entries of CPU `cpu`. */
export function tlbCount(b: FrameBulk, cpu: number): number {
  const [start, end] = tlbRange(b, cpu);
  return end - start;
}

/** TLB entry `i` (an index into the tlb arrays) as an object. */
export function tlbAt(b: FrameBulk, i: number): TlbEntryView {
  const f = b.tlbFlags[i] ?? 0;
  return { pid: b.tlbPid[i] ?? 0, vpn: b.tlbVpn[i] ?? 0, pfn: b.tlbPfn[i] ?? 0, write: (f & TLB_WRITE) !== 0, dirty: (f & TLB_DIRTY) !== 0 };
}

/** The first `limit` TLB entries of CPU `cpu` as objects (default: all of them; a TLB holds at most `tlb_entries`). */
export function tlbEntries(b: FrameBulk, cpu: number, limit = Infinity): TlbEntryView[] {
  const [start, end] = tlbRange(b, cpu);
  const out: TlbEntryView[] = [];
  for (let i = start; i < end && out.length < limit; i++) out.push(tlbAt(b, i));
  return out;
}

/** The arrays' buffers, once each: the transfer list of a postMessage. */
export function bulkBuffers(b: FrameBulk): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>();
  for (const a of Object.values(b) as ArrayBufferView[]) {
    if (a?.buffer instanceof ArrayBuffer && a.buffer.byteLength > 0) seen.add(a.buffer);
  }
  return [...seen];
}

/** The typed-array type of each bulk array. */
export const BULK_ARRAYS: Readonly<Record<keyof FrameBulk, (new (buffer: ArrayBuffer, byteOffset: number, length: number) => ArrayBufferView & ArrayLike<number>) & { name: string; BYTES_PER_ELEMENT: number }>> = {
  ptePid: Uint16Array,
  pteVpn: Uint32Array,
  ptePfn: Uint32Array,
  pteFlags: Uint8Array,
  framePfn: Uint32Array,
  frameNode: Uint8Array,
  frameFlags: Uint8Array,
  frameMapPid: Uint16Array,
  frameMapVpn: Uint32Array,
  tlbCpuStart: Uint32Array,
  tlbPid: Uint16Array,
  tlbVpn: Uint32Array,
  tlbPfn: Uint32Array,
  tlbFlags: Uint8Array,
};

/** The order of the arrays in their one buffer, as the wasm layer lays them out (`bulk_to_js`): the 4-byte arrays, then the 2-byte, then the 1-byte ones, so every view is aligned. */
export const BULK_LAYOUT: readonly (keyof FrameBulk)[] = [
  'pteVpn',
  'ptePfn',
  'framePfn',
  'frameMapVpn',
  'tlbCpuStart',
  'tlbVpn',
  'tlbPfn',
  'ptePid',
  'frameMapPid',
  'tlbPid',
  'pteFlags',
  'frameNode',
  'frameFlags',
  'tlbFlags',
];

/** The arrays as the wasm layer makes them: views on ONE new ArrayBuffer, laid out as BULK_LAYOUT (the fixture engine rebuilds recorded frames with it). Throws when a value does not fit its array's type. */
export function packBulk(arrays: Readonly<Record<keyof FrameBulk, ArrayLike<number>>>): FrameBulk {
  let bytes = 0;
  for (const key of BULK_LAYOUT) bytes += arrays[key].length * BULK_ARRAYS[key].BYTES_PER_ELEMENT;
  const buffer = new ArrayBuffer(bytes);
  const out: Partial<Record<keyof FrameBulk, ArrayBufferView>> = {};
  let offset = 0;
  for (const key of BULK_LAYOUT) {
    const type = BULK_ARRAYS[key];
    const src = arrays[key];
    const view = new type(buffer, offset, src.length) as unknown as { [i: number]: number; length: number };
    for (let i = 0; i < src.length; i++) {
      const v = src[i] as number;
      view[i] = v;
      if (view[i] !== v) throw new Error(`bulk.${key}[${i}] = ${v} does not fit a ${type.name}`);
    }
    out[key] = view as unknown as ArrayBufferView;
    offset += src.length * type.BYTES_PER_ELEMENT;
  }
  return out as FrameBulk;
}

/** Checks that `value` is a FrameBulk (every array of the right type, the parallel ones of equal length); throws an Error naming what is wrong. */
export function checkBulk(value: unknown): FrameBulk {
  if (!value || typeof value !== 'object') throw new Error('the engine sent a frame without its bulk arrays');
  const rec = value as Record<string, unknown>;
  for (const [key, type] of Object.entries(BULK_ARRAYS)) {
    if (!(rec[key] instanceof type)) throw new Error(`the engine's frame.bulk.${key} is not a ${type.name}`);
  }
  const b = value as FrameBulk;
  const same = (what: string, ...arrays: ArrayLike<number>[]): void => {
    const n = arrays[0]?.length ?? 0;
    if (arrays.some((a) => a.length !== n)) throw new Error(`the engine's ${what} arrays differ in length`);
  };
  same('PTE', b.ptePid, b.pteVpn, b.ptePfn, b.pteFlags);
  same('frame', b.framePfn, b.frameNode, b.frameFlags, b.frameMapPid, b.frameMapVpn);
  same('TLB', b.tlbPid, b.tlbVpn, b.tlbPfn, b.tlbFlags);
  return b;
}

/** Builds the arrays from small objects (for the fake engine and tests): the PTEs are sorted by pid, then vpn; `frames` must be a contiguous pfn range; `tlbs[c]` is CPU c's TLB. */
export function bulkFromViews(ptes: readonly PteView[], frames: readonly FrameView[], tlbs: readonly (readonly TlbEntryView[])[]): FrameBulk {
  const sorted = [...ptes].sort((a, b) => a.pid - b.pid || a.vpn - b.vpn);
  const entries = tlbs.flat();
  const starts = [0];
  for (const t of tlbs) starts.push((starts[starts.length - 1] as number) + t.length);
  return {
    ptePid: Uint16Array.from(sorted, (p) => p.pid),
    pteVpn: Uint32Array.from(sorted, (p) => p.vpn),
    ptePfn: Uint32Array.from(sorted, (p) => (p.kind === 'none' ? 0 : p.pfn)),
    pteFlags: Uint8Array.from(sorted, (p) => pteFlags(p.kind, p.write, p.dirty, p.accessed)),
    framePfn: Uint32Array.from(frames, (f) => f.pfn),
    frameNode: Uint8Array.from(frames, (f) => f.node),
    frameFlags: Uint8Array.from(frames, (f) => frameFlags(f.state, f.locked, f.dirty)),
    frameMapPid: Uint16Array.from(frames, (f) => f.mappedBy?.[0] ?? NO_PID),
    frameMapVpn: Uint32Array.from(frames, (f) => f.mappedBy?.[1] ?? 0),
    tlbCpuStart: Uint32Array.from(starts),
    tlbPid: Uint16Array.from(entries, (e) => e.pid),
    tlbVpn: Uint32Array.from(entries, (e) => e.vpn),
    tlbPfn: Uint32Array.from(entries, (e) => e.pfn),
    tlbFlags: Uint8Array.from(entries, (e) => (e.write ? TLB_WRITE : 0) | (e.dirty ? TLB_DIRTY : 0)),
  };
}

/** "showing N of M <what>" when a window holds only part of the whole, else null. */
export function windowNote(w: BulkWindow, what: string): string | null {
  if (w.count >= w.total) return null;
  return `showing ${w.count.toLocaleString('en-US')} of ${w.total.toLocaleString('en-US')} ${what}`;
}
