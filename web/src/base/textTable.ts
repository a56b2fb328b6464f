// Plain-text tables for pasting into e-mail (monospace-aligned, no tabs).

/** Column alignment of a text table. */
export type Align = 'left' | 'right';

/** One column of a plain-text table. */
export interface TextColumn {
  header: string;
  align: Align;
}

/** Number of terminal cells a string occupies (code points; good enough for ASCII/Latin tables). */
export function textWidthCells(text: string): number {
  return Array.from(text).length;
}

/** Pads `text` with spaces to `widthCells`, on the right for left alignment and vice versa. */
export function padCells(text: string, widthCells: number, align: Align): string {
  const pad = ' '.repeat(Math.max(0, widthCells - textWidthCells(text)));
  return align === 'left' ? text + pad : pad + text;
}

/**
 * Formats rows as an aligned plain-text table: header, a dashed rule, rows;
 * columns separated by two spaces, no trailing spaces, lines joined by "\n".
 */
export function formatTextTable(columns: TextColumn[], rows: string[][]): string {
  const widths = columns.map((col, i) =>
    Math.max(textWidthCells(col.header), ...rows.map((row) => textWidthCells(row[i] ?? ''))),
  );
  const line = (cells: string[]): string =>
    columns
      .map((col, i) => padCells(cells[i] ?? '', widths[i] ?? 0, col.align))
      .join('  ')
      .replace(/\s+$/, '');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(columns.map((c) => c.header)), rule, ...rows.map(line)].join('\n');
}
