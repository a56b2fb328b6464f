// Mechanism metadata for unit tests that must not depend on the recorded engine's: small,
// hand-written, in the shape of `SimEngine.mechanisms()`.
import type { EventCategory, MechanismInfo, PresetInfo } from './types';

/** A mechanism with the given counters ([name, kernel?]), event kinds ([name, category]), toggles and plotted counters. */
export function testMechanism(
  id: string,
  parts: { counters?: readonly (string | [string, boolean])[]; events?: readonly [string, EventCategory][]; toggles?: readonly string[]; plots?: readonly string[]; presets?: readonly PresetInfo[] } = {},
): MechanismInfo {
  return {
    id,
    title: `${id} title`,
    toggles: [...(parts.toggles ?? [])],
    counters: (parts.counters ?? []).map((c) => (typeof c === 'string' ? { name: c, doc: `${c} doc`, kernel: true } : { name: c[0], doc: `${c[0]} doc`, kernel: c[1] })),
    events: (parts.events ?? []).map(([name, category]) => ({ name, doc: `${name} doc`, category })),
    ops: [],
    costs: [],
    knobs: [],
    views: parts.plots !== undefined ? [{ id, title: `${id} view`, plots: [...parts.plots] }] : [],
    presets: [...(parts.presets ?? [])],
    metrics: [],
  };
}
