// Bulk state of a frame as typed arrays (engine -> UI), and tiny pure decoders of its flag bytes.

export interface FrameBulk {
  // PTEs in the window, ordered by pid then vpn
  ptePid: Uint16Array;
  pteVpn: Uint32Array;
  ptePfn: Uint32Array;
  pteFlags: Uint8Array; // bits 0-1 kind (0 none, 1 present, 2 protnone, 3 migration); bit 2 write; bit 3 dirty; bit 4 accessed
  framePfn: Uint32Array;
  frameNode: Uint8Array;
  frameFlags: Uint8Array; // bits 0-1 state (0 free, 1 mapped, 2 isolated, 3 migrating); bit 2 locked; bit 3 dirty
  frameMapPid: Uint16Array; // 0xFFFF = not mapped
  frameMapVpn: Uint32Array;
  tlbCpuStart: Uint32Array;
  tlbPid: Uint16Array;
  tlbVpn: Uint32Array;
  tlbPfn: Uint32Array;
  tlbFlags: Uint8Array; // bit 0 write; bit 1 dirty
}

export interface BulkWindow {
  total: number;
  offset: number;
  count: number;
}

/** PTE kind codes (pteFlags bits 0-1). */
export const PTE_NONE = 0;
export const PTE_PRESENT = 1;
export const PTE_PROTNONE = 2;
export const PTE_MIGRATION = 3;
export const PTE_KIND_MASK = 0b11;
export const PTE_WRITE = 1 << 2;
export const PTE_DIRTY = 1 << 3;
export const PTE_ACCESSED = 1 << 4;

/** Frame state codes (frameFlags bits 0-1). */
export const FRAME_FREE = 0;
export const FRAME_MAPPED = 1;
export const FRAME_ISOLATED = 2;
export const FRAME_MIGRATING = 3;
export const FRAME_STATE_MASK = 0b11;
export const FRAME_LOCKED = 1 << 2;
export const FRAME_DIRTY = 1 << 3;
/** frameMapPid of an unmapped frame. */
export const FRAME_UNMAPPED_PID = 0xffff;

/** TLB entry flags. */
export const TLB_WRITE = 1 << 0;
export const TLB_DIRTY = 1 << 1;

/** Kind code (0-3) of a PTE flag byte. */
export function pteKindCode(flags: number): number {
  return flags & PTE_KIND_MASK;
}

/** State code (0-3) of a frame flag byte. */
export function frameStateCode(flags: number): number {
  return flags & FRAME_STATE_MASK;
}
