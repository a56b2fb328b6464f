import { describe, expect, it } from 'vitest';
import { bulkFromViews } from '../engine/bulk';
import { nodeOfPfn, touchedRow, vmaRows, windowStartFor } from './PageTableView';

describe('page table helpers', () => {
  it('reads rows from the bulk arrays and marks PTEs outside the window', () => {
    const vma = { startVpn: 10, pages: 3, kind: 'anon' as const, name: 'heap' };
    const bulk = bulkFromViews(
      [
        { pid: 1, vpn: 11, kind: 'present', pfn: 5, write: true, dirty: false, accessed: true },
        { pid: 1, vpn: 12, kind: 'none', pfn: 0, write: false, dirty: false, accessed: false },
        { pid: 2, vpn: 10, kind: 'present', pfn: 6, write: true, dirty: false, accessed: true },
      ],
      [],
      [],
    );
    expect(vmaRows(1, vma, bulk).map((r) => [r.vpn, r.pte?.kind ?? null, r.pte?.pfn ?? null])).toEqual([
      [10, null, null],
      [11, 'present', 5],
      [12, 'none', 0],
    ]);
    expect(vmaRows(1, vma, bulk, 2, 64).map((r) => r.vpn)).toEqual([12]);
    expect(touchedRow(1, vma, [[2, 11], [1, 12]])).toBe(2);
    expect(touchedRow(1, vma, [[1, 13]])).toBe(-1);
  });
  it('finds the node of a pfn', () => {
    const nodes = [
      { id: 0, cpus: [0], memPages: 16, firstPfn: 0 },
      { id: 1, cpus: [1], memPages: 16, firstPfn: 16 },
    ];
    expect(nodeOfPfn(nodes, 3)).toBe(0);
    expect(nodeOfPfn(nodes, 16)).toBe(1);
    expect(nodeOfPfn(nodes, 40)).toBeNull();
  });
  it('moves the window only when the row is outside it', () => {
    expect(windowStartFor(10, 0, 64, 1000)).toBe(0);
    expect(windowStartFor(100, 0, 64, 1000)).toBe(92);
    expect(windowStartFor(999, 0, 64, 1000)).toBe(936);
    expect(windowStartFor(3, 500, 64, 1000)).toBe(0);
  });
});
