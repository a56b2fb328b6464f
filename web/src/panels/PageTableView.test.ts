import { describe, expect, it } from 'vitest';
import { nodeOfPfn, vmaRows, windowStartFor } from './PageTableView';

describe('page table helpers', () => {
  it('fills missing PTEs with none rows', () => {
    const rows = vmaRows(1, { startVpn: 10, pages: 3, kind: 'anon', name: 'heap' }, [
      { pid: 1, vpn: 11, kind: 'present', pfn: 5, write: true, dirty: false, accessed: true },
      { pid: 2, vpn: 10, kind: 'present', pfn: 6, write: true, dirty: false, accessed: true },
    ]);
    expect(rows.map((r) => [r.vpn, r.kind])).toEqual([
      [10, 'none'],
      [11, 'present'],
      [12, 'none'],
    ]);
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
