// What a run on a pasted machine takes from its `/proc/zoneinfo`, for people (pure functions):
// which of the scenario's knobs win over the pasted pageset sizes, where each value comes from,
// and what the memory scale does to them.
import type { NodeZone } from '../engine/types';
import { linesInsideStrings, tableHeader } from './numactl';

/** The knobs that set pageset sizes: a scenario's `[knobs]` win over a pasted zoneinfo. */
export const PCP_SIZE_KNOBS = ['pcp_batch', 'pcp_high_min', 'pcp_high_max', 'percpu_pagelist_high_fraction'] as const;

/** The pageset-size knobs `scenarioText` sets in its `[knobs]` table, in PCP_SIZE_KNOBS order, with their values as written. */
export function pcpKnobsSet(scenarioText: string): { name: string; value: string }[] {
  const lines = scenarioText.replace(/\r\n?/g, '\n').split('\n');
  const inside = linesInsideStrings(lines.join('\n'));
  let table: string | null = null;
  const set = new Map<string, string>();
  lines.forEach((line, i) => {
    if (inside[i]) return;
    const header = tableHeader(line);
    if (header !== null) {
      table = header;
      return;
    }
    const m = /^\s*([A-Za-z0-9_]+)\s*=\s*([^#\s]*)/.exec(line);
    // A fraction of 0 is the default: high comes from the low watermark, as without the knob.
    if (table === 'knobs' && m && !(m[1] === 'percpu_pagelist_high_fraction' && m[2] === '0')) set.set(m[1] as string, m[2] as string);
  });
  return PCP_SIZE_KNOBS.filter((k) => set.has(k)).map((name) => ({ name, value: set.get(name) as string }));
}

/** Where a pageset size of the run comes from. */
export type Source = 'pasted' | 'derived from the pasted zone' | 'model' | 'knob';

/** The run's value of one pageset size and where it comes from: a knob the scenario sets (its value as written, or null when the fraction knob makes the engine compute it), the paste, or the model. */
export function pagesetSource(
  z: NodeZone,
  what: 'batch' | 'high_min' | 'high_max',
  knobs: readonly { name: string; value: string }[],
): { value: number | string | null; source: Source } {
  const knob = knobs.find((k) => k.name === { batch: 'pcp_batch', high_min: 'pcp_high_min', high_max: 'pcp_high_max' }[what]);
  if (knob) return { value: knob.value, source: 'knob' };
  if (what !== 'batch' && knobs.some((k) => k.name === 'percpu_pagelist_high_fraction')) return { value: null, source: 'knob' };
  const value = z[what];
  if (value === null) return { value: null, source: 'model' };
  if (what === 'high_max' && !z.high_max_pasted) return { value, source: 'derived from the pasted zone' };
  return { value, source: 'pasted' };
}

/** Nodes whose CPUs could hold at least `share` % of the node's simulated pages on their lists at high_min. */
export function crowdedNodes(zones: readonly NodeZone[], share = 25): NodeZone[] {
  return zones.filter((z) => z.pcp_share >= share);
}

/** Simulated pages of the machine the zones give. */
export function zonesPages(zones: readonly NodeZone[]): number {
  return zones.reduce((n, z) => n + z.sim_managed, 0);
}
