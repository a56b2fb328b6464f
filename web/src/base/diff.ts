// Line diff (longest common subsequence) for the before/after code view.

/** One row of a side-by-side diff; `left`/`right` are indexes into the inputs. */
export interface DiffRow {
  kind: 'same' | 'removed' | 'added' | 'changed';
  left: number | null;
  right: number | null;
}

/**
 * Aligns two lists of lines side by side. Unchanged lines share a row; a run of
 * removed lines followed by added lines is paired up as 'changed' rows.
 */
export function sideBySideDiff(left: readonly string[], right: readonly string[]): DiffRow[] {
  const n = left.length;
  const m = right.length;
  // lcs[i][j] = LCS length of left[i..] and right[j..]
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i] as number[];
    const below = lcs[i + 1] as number[];
    for (let j = m - 1; j >= 0; j--) {
      row[j] = left[i] === right[j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
    }
  }
  const raw: DiffRow[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && left[i] === right[j]) {
      raw.push({ kind: 'same', left: i++, right: j++ });
    } else if (j < m && (i >= n || (lcs[i]?.[j + 1] ?? 0) >= (lcs[i + 1]?.[j] ?? 0))) {
      raw.push({ kind: 'added', left: null, right: j++ });
    } else {
      raw.push({ kind: 'removed', left: i++, right: null });
    }
  }
  // Pair runs of removed+added lines into 'changed' rows.
  const rows: DiffRow[] = [];
  for (let k = 0; k < raw.length; ) {
    const cur = raw[k] as DiffRow;
    if (cur.kind === 'same') {
      rows.push(cur);
      k++;
      continue;
    }
    const removed: number[] = [];
    const added: number[] = [];
    while (k < raw.length && (raw[k] as DiffRow).kind !== 'same') {
      const r = raw[k] as DiffRow;
      if (r.kind === 'removed' && r.left !== null) removed.push(r.left);
      if (r.kind === 'added' && r.right !== null) added.push(r.right);
      k++;
    }
    const pairs = Math.max(removed.length, added.length);
    for (let p = 0; p < pairs; p++) {
      const l = removed[p] ?? null;
      const r = added[p] ?? null;
      rows.push({ kind: l !== null && r !== null ? 'changed' : l !== null ? 'removed' : 'added', left: l, right: r });
    }
  }
  return rows;
}
