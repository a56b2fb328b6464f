import { describe, expect, it } from 'vitest';
import {
  BULK_ARRAYS,
  BULK_LAYOUT,
  bulkBuffers,
  bulkFromViews,
  checkBulk,
  findFrame,
  findPte,
  frameAt,
  frameState,
  NO_PID,
  pteAt,
  packBulk,
  pteKind,
  tlbCount,
  tlbEntries,
  tlbRange,
  windowNote,
  type FrameView,
  type PteView,
} from './bulk';

const pte = (pid: number, vpn: number, kind: PteView['kind'], pfn = 0): PteView => ({ pid, vpn, kind, pfn, write: kind === 'present', dirty: vpn % 2 === 0, accessed: true });
const frame = (pfn: number, mappedBy: [number, number] | null = null): FrameView => ({ pfn, node: pfn < 2 ? 0 : 1, state: mappedBy ? 'mapped' : 'free', mappedBy, locked: pfn === 3, dirty: false });

const sample = () =>
  bulkFromViews(
    [pte(2, 5, 'protnone', 3), pte(1, 11, 'present', 1), pte(1, 10, 'none'), pte(1, 12, 'migration', 2)],
    [frame(0), frame(1, [1, 11]), frame(2), frame(3, [2, 5])],
    [[{ pid: 1, vpn: 11, pfn: 1, write: true, dirty: false }], [], [{ pid: 2, vpn: 5, pfn: 3, write: false, dirty: true }, { pid: 1, vpn: 12, pfn: 2, write: true, dirty: true }]],
  );

describe('bulk arrays', () => {
  it('decode the flag bits of the layout', () => {
    expect([0, 1, 2, 3].map(pteKind)).toEqual(['none', 'present', 'protnone', 'migration']);
    expect(pteKind(1 | (1 << 2) | (1 << 4))).toBe('present');
    expect([0, 1, 2, 3].map(frameState)).toEqual(['free', 'mapped', 'isolated', 'migrating']);
    expect(frameState(3 | (1 << 2))).toBe('migrating');
  });
  it('order PTEs by pid then vpn and read them back', () => {
    const b = sample();
    expect(Array.from(b.ptePid)).toEqual([1, 1, 1, 2]);
    expect(Array.from(b.pteVpn)).toEqual([10, 11, 12, 5]);
    expect(Array.from(b.pteFlags)).toEqual([0 | (1 << 3) | (1 << 4), 1 | (1 << 2) | (1 << 4), 3 | (1 << 3) | (1 << 4), 2 | (1 << 4)]);
    expect(pteAt(b, 1)).toEqual(pte(1, 11, 'present', 1));
    expect(pteAt(b, 3)).toEqual(pte(2, 5, 'protnone', 3));
  });
  it('find a PTE by pid and vpn, and a frame by pfn', () => {
    const b = sample();
    expect(findPte(b, 1, 10)).toBe(0);
    expect(findPte(b, 1, 12)).toBe(2);
    expect(findPte(b, 2, 5)).toBe(3);
    expect(findPte(b, 1, 13)).toBe(-1);
    expect(findPte(b, 3, 0)).toBe(-1);
    expect(findFrame(b, 3)).toBe(3);
    expect(findFrame(b, 4)).toBe(-1);
    expect(findFrame(bulkFromViews([], [], []), 0)).toBe(-1);
    expect(frameAt(b, 3)).toEqual(frame(3, [2, 5]));
    expect(frameAt(b, 0).mappedBy).toBeNull();
    expect(b.frameMapPid[0]).toBe(NO_PID);
  });
  it("iterate a CPU's TLB entries", () => {
    const b = sample();
    expect(Array.from(b.tlbCpuStart)).toEqual([0, 1, 1, 3]);
    expect(tlbRange(b, 2)).toEqual([1, 3]);
    expect(tlbCount(b, 1)).toBe(0);
    expect(tlbEntries(b, 2)).toEqual([
      { pid: 2, vpn: 5, pfn: 3, write: false, dirty: true },
      { pid: 1, vpn: 12, pfn: 2, write: true, dirty: true },
    ]);
    expect(tlbEntries(b, 2, 1)).toHaveLength(1);
    expect(tlbEntries(b, 9)).toEqual([]);
  });
  it('list each buffer once for the transfer list, and check the shape', () => {
    const b = sample();
    expect(bulkBuffers(b)).toHaveLength(14); // every (non-empty) array has a buffer of its own
    expect(bulkBuffers(bulkFromViews([], [], []))).toHaveLength(1); // tlbCpuStart = [0]
    expect(checkBulk(b)).toBe(b);
    expect(() => checkBulk(undefined)).toThrow('without its bulk arrays');
    expect(() => checkBulk({ ...b, pteVpn: [1, 2] })).toThrow('frame.bulk.pteVpn is not a Uint32Array');
    expect(() => checkBulk({ ...b, pteFlags: new Uint8Array(1) })).toThrow('PTE arrays differ in length');
  });
  it('pack into one buffer laid out like the wasm layer, every view aligned', () => {
    const b = sample();
    const packed = packBulk(b);
    expect(bulkBuffers(packed)).toHaveLength(1);
    expect(checkBulk(packed)).toBe(packed);
    for (const key of BULK_LAYOUT) {
      expect(packed[key]).toBeInstanceOf(BULK_ARRAYS[key]);
      expect(Array.from(packed[key])).toEqual(Array.from(b[key]));
      expect(packed[key].byteOffset % packed[key].BYTES_PER_ELEMENT).toBe(0);
    }
    // Back to back in BULK_LAYOUT's order, covering the whole buffer.
    let offset = 0;
    for (const key of BULK_LAYOUT) {
      expect(packed[key].byteOffset).toBe(offset);
      offset += packed[key].byteLength;
    }
    expect(packed.pteVpn.buffer.byteLength).toBe(offset);
    expect(pteAt(packed, 3)).toEqual(pteAt(b, 3));
    expect(packBulk(b).pteVpn.buffer).not.toBe(packed.pteVpn.buffer); // a new buffer per call
    expect(() => packBulk({ ...b, ptePid: [70_000] })).toThrow('bulk.ptePid[0] = 70000 does not fit a Uint16Array');
  });
  it('say when a window shows part of the whole', () => {
    expect(windowNote({ total: 10, offset: 0, count: 10 }, 'PTEs')).toBeNull();
    expect(windowNote({ total: 100_000, offset: 0, count: 65_536 }, 'PTEs')).toBe('showing 65,536 of 100,000 PTEs');
  });
});
