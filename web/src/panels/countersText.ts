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
