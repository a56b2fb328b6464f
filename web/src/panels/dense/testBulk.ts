// A small hand-made FrameBulk for the tests of the dense views.
import type { FrameBulk } from '../../engine/bulk';

/**
 * pid 1: vpns 0x10-0x13 (present W D A -> pfn 2, PROT_NONE A -> pfn 3, none, migration -> pfn 5);
 * pid 2: vpn 0x20 present (no bits) -> pfn 6.
 * Frames 0-3 on node 0, 4-7 on node 1. Two CPUs: CPU 0 holds two entries, CPU 1 none.
 */
export function testBulk(): FrameBulk {
  return {
    ptePid: Uint16Array.from([1, 1, 1, 1, 2]),
    pteVpn: Uint32Array.from([0x10, 0x11, 0x12, 0x13, 0x20]),
    ptePfn: Uint32Array.from([2, 3, 0, 5, 6]),
    pteFlags: Uint8Array.from([1 | 4 | 8 | 16, 2 | 16, 0, 3, 1]),
    framePfn: Uint32Array.from([0, 1, 2, 3, 4, 5, 6, 7]),
    frameNode: Uint8Array.from([0, 0, 0, 0, 1, 1, 1, 1]),
    // 0 free, 1 free, 2 mapped dirty, 3 mapped locked, 4 isolated, 5 migrating locked, 6 mapped, 7 free
    frameFlags: Uint8Array.from([0, 0, 1 | 8, 1 | 4, 2, 3 | 4, 1, 0]),
    frameMapPid: Uint16Array.from([0xffff, 0xffff, 1, 1, 0xffff, 1, 2, 0xffff]),
    frameMapVpn: Uint32Array.from([0, 0, 0x10, 0x11, 0, 0x13, 0x20, 0]),
    tlbCpuStart: Uint32Array.from([0, 2]),
    tlbPid: Uint16Array.from([1, 2]),
    tlbVpn: Uint32Array.from([0x10, 0x20]),
    tlbPfn: Uint32Array.from([2, 6]),
    tlbFlags: Uint8Array.from([1 | 2, 0]),
  };
}
