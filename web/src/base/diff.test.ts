import { describe, expect, it } from 'vitest';
import { sideBySideDiff } from './diff';

describe('sideBySideDiff', () => {
  it('returns same rows for equal input', () => {
    expect(sideBySideDiff(['a', 'b'], ['a', 'b'])).toEqual([
      { kind: 'same', left: 0, right: 0 },
      { kind: 'same', left: 1, right: 1 },
    ]);
  });
  it('pairs a replaced line and shows pure additions and removals', () => {
    const rows = sideBySideDiff(['a', 'b', 'c', 'd'], ['a', 'B', 'c', 'x', 'd']);
    expect(rows).toEqual([
      { kind: 'same', left: 0, right: 0 },
      { kind: 'changed', left: 1, right: 1 },
      { kind: 'same', left: 2, right: 2 },
      { kind: 'added', left: null, right: 3 },
      { kind: 'same', left: 3, right: 4 },
    ]);
    expect(sideBySideDiff(['a', 'b'], ['a'])).toEqual([
      { kind: 'same', left: 0, right: 0 },
      { kind: 'removed', left: 1, right: null },
    ]);
  });
  it('covers every line of both sides exactly once', () => {
    const left = ['x', 'a', 'b', 'c', 'y', 'z'];
    const right = ['a', 'q', 'c', 'z', 'w'];
    const rows = sideBySideDiff(left, right);
    expect(rows.flatMap((r) => (r.left === null ? [] : [r.left]))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(rows.flatMap((r) => (r.right === null ? [] : [r.right]))).toEqual([0, 1, 2, 3, 4]);
    expect(sideBySideDiff([], [])).toEqual([]);
  });
});
