// The counters table as plain text (for a mailing-list reply).
import { formatDeltaAscii } from '../base/format';
import { formatTextTable } from '../base/textTable';

/** What the plain-text counters table shows. */
export interface CountersTextInput {
  /** First line(s) describing the run, e.g. scenario, toggles, step. */
  heading: string[];
  names: readonly string[];
  values: Record<string, number>;
  deltas: Record<string, number>;
}

/** Formats counters as a monospace-aligned table: counter, value, delta of this step. */
export function countersAsText(input: CountersTextInput): string {
  const rows = input.names.map((name) => [name, String(input.values[name] ?? 0), formatDeltaAscii(input.deltas[name] ?? 0)]);
  const table = formatTextTable(
    [
      { header: 'counter', align: 'left' },
      { header: 'value', align: 'right' },
      { header: 'this step', align: 'right' },
    ],
    rows,
  );
  return [...input.heading, '', table, ''].join('\n');
}

/** B's change against A in per cent, as `mmviz compare` prints it: "+12.50%", "-3.00%", "0%" when both are 0, "new" when only B has it. */
export function percentChange(a: number, b: number): string {
  if (a === b) return a === 0 ? '0%' : '+0.00%';
  if (a === 0) return 'new';
  const p = ((b - a) / Math.abs(a)) * 100;
  return `${p > 0 ? '+' : ''}${p.toFixed(2)}%`;
}

/** What the plain-text A/B table shows. */
export interface AbCountersTextInput {
  heading: string[];
  names: readonly string[];
  a: Record<string, number>;
  b: Record<string, number>;
  /** Column headers for A and B. */
  labels: [string, string];
}

/** Formats the counters of two runs as a monospace table: counter, A, B, change; only counters that are not 0 in both. */
export function abCountersAsText(input: AbCountersTextInput): string {
  const rows = input.names
    .filter((name) => (input.a[name] ?? 0) !== 0 || (input.b[name] ?? 0) !== 0)
    .map((name) => {
      const a = input.a[name] ?? 0;
      const b = input.b[name] ?? 0;
      return [name, String(a), String(b), percentChange(a, b)];
    });
  const table = formatTextTable(
    [
      { header: 'counter', align: 'left' },
      { header: input.labels[0], align: 'right' },
      { header: input.labels[1], align: 'right' },
      { header: 'B vs A', align: 'right' },
    ],
    rows,
  );
  return [...input.heading, '', table, ''].join('\n');
}
