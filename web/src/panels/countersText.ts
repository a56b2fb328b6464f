// The counters as plain text for a mailing-list reply or a slide: at most 72 columns (the
// width kernel mail is wrapped to), only the counters that moved, the link that reopens the
// run(s) and the upstream commit of every toggle the run has.
import { formatDeltaAscii } from '../base/format';
import { formatTextTable, textWidthCells } from '../base/textTable';
import type { ToggleValue } from '../engine/types';

/** Widest line of the text (a link excepted: see `runReportText`). */
export const TEXT_COLUMNS = 72;

/** B's change against A in per cent, as `mmviz compare` prints it: "+12.50%", "-3.00%", "0%" when both are 0, "new" when only B has it. */
export function percentChange(a: number, b: number): string {
  if (a === b) return a === 0 ? '0%' : '+0.00%';
  if (a === 0) return 'new';
  const p = ((b - a) / Math.abs(a)) * 100;
  return `${p > 0 ? '+' : ''}${p.toFixed(2)}%`;
}

/**
 * Breaks `text` at spaces into lines of at most `width` cells; lines after the first start with
 * `indent`. A word longer than the width is cut (it has no space to break at).
 */
export function wrapText(text: string, width: number = TEXT_COLUMNS, indent = ''): string[] {
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  const lines: string[] = [];
  let line = lead;
  let fresh = true;
  for (const word of text.trim().split(/\s+/).filter((w) => w !== '')) {
    if (fresh) {
      line += word;
      fresh = false;
    } else if (textWidthCells(line) + 1 + textWidthCells(word) <= width) {
      line += ` ${word}`;
    } else {
      lines.push(line);
      line = indent + word;
    }
    // A word wider than the line: cut it (the indent is always narrower than the width).
    while (textWidthCells(line) > width && textWidthCells(indent) < width) {
      const cells = Array.from(line);
      lines.push(cells.slice(0, width).join(''));
      line = indent + cells.slice(width).join('');
    }
  }
  lines.push(line.replace(/\s+$/, ''));
  return lines;
}

/** A toggle of the run, for the footer: its value(s) and where the patch is upstream. */
export interface ReportToggle {
  id: string;
  /** A's value (the run's value when there is one run). */
  a: ToggleValue;
  /** B's value in an A/B comparison. */
  b?: ToggleValue;
  /** Upstream commit id(s), or "not merged". */
  commit: string;
  /** Kernel release(s) the commit is in. */
  version: string;
}

/** The counters part of a report: one run at a step, or A against B. */
export type ReportCounters =
  | { kind: 'one'; names: readonly string[]; values: Record<string, number>; deltas: Record<string, number> }
  | { kind: 'ab'; names: readonly string[]; a: Record<string, number>; b: Record<string, number> };

/** Everything "Copy as text" puts in its text. */
export interface RunReportInput {
  /** Lines about the run (scenario, overrides, step, warnings): wrapped to the width. */
  about: string[];
  counters: ReportCounters;
  /** The link that reopens what is on screen. */
  link: string;
  toggles: ReportToggle[];
}

const valueText = (v: ToggleValue): string => (v === true ? 'on' : v === false ? 'off' : String(v));

/** A table that fits the width as is, or with each row's numbers on a line under its name. */
function fitTable(headers: string[], rows: string[][]): string[] {
  const columns = headers.map((header, i) => ({ header, align: i === 0 ? ('left' as const) : ('right' as const) }));
  const table = formatTextTable(columns, rows).split('\n');
  if (table.every((l) => textWidthCells(l) <= TEXT_COLUMNS)) return table;
  // Too wide (a very long counter name or value): name on its own line, the numbers under it.
  const numbers = formatTextTable(
    columns.slice(1),
    rows.map((r) => r.slice(1)),
  ).split('\n');
  const out = [headers[0] ?? '', `    ${numbers[0] ?? ''}`, `    ${numbers[1] ?? ''}`];
  rows.forEach((row, i) => out.push(row[0] ?? '', `    ${numbers[i + 2] ?? ''}`));
  return out.flatMap((l) => wrapText(l, TEXT_COLUMNS, '    '));
}

/**
 * The text of "Copy as text": lines about the run, the counters that moved (in one run: not 0 at
 * this step or changed by it; in A/B: not 0 in either), how many were left out, the link, and
 * each toggle's value with its upstream commit. Every line is at most 72 columns except the link,
 * which is never broken (a broken link does not open; kernel style exempts URLs the same way).
 */
export function runReportText(input: RunReportInput): string {
  const out: string[] = [];
  for (const line of input.about) out.push(...wrapText(line, TEXT_COLUMNS, '  '));
  out.push('');
  const c = input.counters;
  let shown: string[];
  if (c.kind === 'one') {
    shown = c.names.filter((n) => (c.values[n] ?? 0) !== 0 || (c.deltas[n] ?? 0) !== 0);
    out.push(...fitTable(['counter', 'value', 'this step'], shown.map((n) => [n, String(c.values[n] ?? 0), formatDeltaAscii(c.deltas[n] ?? 0)])));
  } else {
    shown = c.names.filter((n) => (c.a[n] ?? 0) !== 0 || (c.b[n] ?? 0) !== 0);
    out.push(...fitTable(['counter', 'A', 'B', 'B vs A'], shown.map((n) => [n, String(c.a[n] ?? 0), String(c.b[n] ?? 0), percentChange(c.a[n] ?? 0, c.b[n] ?? 0)])));
  }
  const hidden = c.names.length - shown.length;
  if (hidden > 0) out.push(`(${hidden} more counter${hidden === 1 ? '' : 's'} at 0${c.kind === 'ab' ? ' in both runs' : ''}: not shown)`);
  out.push('', 'Open in mmviz:', input.link);
  if (input.toggles.length > 0) {
    out.push('', c.kind === 'ab' ? 'Toggles (A / B) and their upstream commits:' : 'Toggles and their upstream commits:');
    for (const t of input.toggles) {
      const value = t.b === undefined || t.b === t.a ? valueText(t.a) : `${valueText(t.a)} / ${valueText(t.b)}`;
      const where = t.commit.includes('(') || t.version === '' ? t.commit : `${t.commit} (${t.version})`;
      out.push(...wrapText(`  ${t.id} = ${value}: ${where}`, TEXT_COLUMNS, '      '));
    }
  }
  out.push('');
  return out.join('\n');
}
