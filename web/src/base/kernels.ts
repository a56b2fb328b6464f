// Kernel versions and named presets in the lab (pure functions): which versions the kernel
// picker offers and what it calls them, which version or preset the current toggles match,
// and a patch's history as a short timeline.
import type { PatchInfo, PresetInfo, ToggleValue } from '../engine/types';

/** The toggles one mainline kernel version determines (the engine's `kernelToggles(version)`). */
export interface KernelInfo {
  /** The version asked for, e.g. "v4.17" (what `kernelToggles` was called with). */
  version: string;
  /** Every toggle that version determines, `{id: value}`. */
  toggles: Record<string, ToggleValue>;
}

/** A version as [major, minor], or null when it is not vMAJOR.MINOR. */
export function parseVersion(v: string): [number, number] | null {
  const m = /^v(\d{1,3})\.(\d{1,3})$/.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** The last minor release of each major series before the next major (v4.20 came before v5.0). */
const LAST_MINOR: Readonly<Record<number, number>> = { 3: 19, 4: 20, 5: 19, 6: 19 };

/** The mainline release before `v` ("v5.13" → "v5.12", "v5.0" → "v4.20"), or null when unknown. */
export function previousVersion(v: string): string | null {
  const p = parseVersion(v);
  if (!p) return null;
  const [major, minor] = p;
  if (minor > 0) return `v${major}.${minor - 1}`;
  const last = LAST_MINOR[major - 1];
  return last === undefined ? null : `v${major - 1}.${last}`;
}

/**
 * The versions the engine lists (each one changes some toggle, oldest first) plus the release
 * before the first, which stands for all older kernels: what the worker asks `kernelToggles` for.
 */
export function versionsToAsk(versions: readonly string[]): string[] {
  const first = versions[0];
  const before = first ? previousVersion(first) : null;
  return before && !versions.includes(before) ? [before, ...versions] : [...versions];
}

/** A picker option: the version to apply and a label naming the releases that behave alike. */
export interface KernelOption {
  version: string;
  label: string;
}

/**
 * Labels for the kernels, oldest first: each one covers the releases up to the one before the
 * next ("v4.17 – v5.12"); the first of an older kernel ("v4.16 and older") when it is the release
 * before the engine's first version; the last "v5.13 and later".
 */
export function kernelOptions(kernels: readonly KernelInfo[], engineVersions: readonly string[]): KernelOption[] {
  return kernels.map((k, i) => {
    const next = kernels[i + 1];
    if (!next) return { version: k.version, label: `${k.version} and later` };
    if (i === 0 && !engineVersions.includes(k.version)) return { version: k.version, label: `${k.version} and older` };
    const last = previousVersion(next.version);
    const label = !last || last === k.version ? k.version : `${k.version} – ${last}`;
    return { version: k.version, label };
  });
}

/** True when every toggle of `wanted` has that value in `current`. */
export function togglesMatch(wanted: Record<string, ToggleValue> | readonly (readonly [string, ToggleValue])[], current: Record<string, ToggleValue>): boolean {
  const entries = Array.isArray(wanted) ? wanted : Object.entries(wanted);
  return entries.length > 0 && entries.every(([id, v]) => current[id] === v);
}

/** The latest kernel whose toggles all equal the current ones, or null ("custom"). */
export function matchingKernel(kernels: readonly KernelInfo[], current: Record<string, ToggleValue>): string | null {
  let found: string | null = null;
  for (const k of kernels) if (togglesMatch(k.toggles, current)) found = k.version;
  return found;
}

/** A named preset of a mechanism, with the mechanism it belongs to. */
export interface PresetChoice {
  /** Unique among the choices: `mechanism/name`. */
  key: string;
  mechanism: string;
  preset: PresetInfo;
}

/** Every preset of every mechanism, in the engine's order. */
export function presetChoices(mechanisms: readonly { id: string; presets?: readonly PresetInfo[] }[]): PresetChoice[] {
  return mechanisms.flatMap((m) => (m.presets ?? []).map((preset) => ({ key: `${m.id}/${preset.name}`, mechanism: m.id, preset })));
}

/** The last preset whose toggles all equal the current ones, or null. */
export function matchingPreset(choices: readonly PresetChoice[], current: Record<string, ToggleValue>): string | null {
  let found: string | null = null;
  for (const c of choices) if (togglesMatch(c.preset.toggles, current)) found = c.key;
  return found;
}

/** The toggles a preset sets, as a record (later entries win). */
export function presetToggles(preset: PresetInfo): Record<string, ToggleValue> {
  const out: Record<string, ToggleValue> = {};
  for (const [id, v] of preset.toggles) out[id] = v;
  return out;
}

/** One step of a toggle's history: from which release on it has which value (label). */
export interface HistoryStep {
  /** "" for the oldest kernels. */
  from: string;
  /** "on"/"off" for a bool, the value's name for an enum. */
  value: string;
}

/** True when a patch was never merged into mainline (its version or commit says so). */
export function neverMerged(patch: PatchInfo): boolean {
  return parseVersion(patch.version) === null || /not merged/i.test(patch.commit);
}

/** How a toggle value is written in a history: "on"/"off" for bools, the value's name for enums. */
export function historyValue(value: ToggleValue): string {
  return value === true ? 'on' : value === false ? 'off' : value;
}

/**
 * A toggle's history as steps, oldest first. A bool without a history is off before its
 * version and on from it; a patch never merged is off in every kernel (no step).
 */
export function historySteps(patch: PatchInfo): HistoryStep[] {
  if (patch.history.length > 0) return patch.history.map(([from, value]) => ({ from, value }));
  if (patch.kind !== 'bool' || neverMerged(patch)) return [];
  return [
    { from: '', value: 'off' },
    { from: patch.version, value: 'on' },
  ];
}

/** The values of a toggle no mainline kernel has (proposals never merged). */
export function unmergedValues(patch: PatchInfo): string[] {
  const steps = historySteps(patch);
  if (steps.length === 0) return patch.kind === 'bool' ? ['on'] : [];
  const named = new Set(steps.map((s) => s.value));
  return patch.values.map(historyValue).filter((v) => !named.has(v));
}

/** A toggle's history in one line: "v4.8 deferred · v4.9 dirty · v4.19 present", "off before v5.13, on from v5.13", "never merged". */
export function formatHistory(patch: PatchInfo): string {
  const steps = historySteps(patch);
  const unmerged = unmergedValues(patch);
  if (steps.length === 0) return patch.kind === 'bool' ? 'never merged (every mainline kernel has it off)' : 'no history';
  let text: string;
  if (patch.history.length === 0 && steps.length === 2) {
    text = `off before ${patch.version}, on from ${patch.version}`;
  } else {
    text = steps
      .map((s, i) => {
        if (s.from !== '') return `${s.from} ${s.value}`;
        const next = steps[i + 1];
        return next ? `${s.value} before ${next.from}` : `${s.value} in every kernel`;
      })
      .join(' · ');
  }
  return unmerged.length > 0 ? `${text} · ${unmerged.join(', ')}: never merged` : text;
}
