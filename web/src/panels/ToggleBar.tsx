// Patch toggles: one switch (bool) or select (enum) per patch, named by the
// patch title, with a patch card openable beside it.
import { useId, useMemo, useState } from 'react';
import { kernelOptions, matchingKernel, matchingPreset, presetChoices, presetToggles } from '../base/kernels';
import type { PatchInfo, SimEvent, ToggleValue } from '../engine/types';
import { useAppStore } from '../store/context';
import { PatchCard } from './PatchCard';
import styles from './ToggleBar.module.css';

const NO_FUNCTIONS: readonly string[] = [];

/**
 * Patches whose changed functions this run goes through (relevant), and the rest. `runFunctions`
 * is every function the whole run's events name (the summary's, once the run is prepared);
 * without it, the events at hand decide.
 */
export function splitRelevant(
  patches: readonly PatchInfo[],
  runFunctions: readonly string[],
  events: readonly SimEvent[],
): { relevant: PatchInfo[]; other: PatchInfo[] } {
  const functions = new Set(runFunctions.length > 0 ? runFunctions : events.map((e) => e.function));
  const relevant = patches.filter((p) => p.functions.some((f) => functions.has(f)));
  return { relevant, other: patches.filter((p) => !relevant.includes(p)) };
}

function ToggleControl({ patch, value, onChange, locked }: { patch: PatchInfo; value: ToggleValue; onChange: (v: ToggleValue) => void; locked?: string }) {
  const id = useId();
  if (patch.kind === 'bool') {
    const on = value === true;
    return (
      <label className={styles.switch} htmlFor={id} title={locked}>
        <input id={id} type="checkbox" role="switch" className={styles.checkbox} checked={on} disabled={locked !== undefined} onChange={(e) => onChange(e.target.checked)} />
        <span className={styles.track} aria-hidden="true">
          <span className={styles.thumb} />
        </span>
        <span className={styles.title}>{patch.title}</span>
        <span className={on ? styles.stateOn : styles.stateOff} aria-hidden="true">
          {patch.valueLabels[on ? 1 : 0] ?? (on ? 'on' : 'off')}
        </span>
      </label>
    );
  }
  const index = Math.max(0, patch.values.findIndex((v) => v === value));
  return (
    <span className={styles.enum}>
      <label htmlFor={id} className={styles.title}>
        {patch.title}
      </label>
      <select id={id} className={styles.select} value={String(index)} disabled={locked !== undefined} title={locked} onChange={(e) => onChange(patch.values[Number(e.target.value)] ?? patch.default)}>
        {patch.values.map((v, i) => (
          <option key={String(v)} value={String(i)}>
            {patch.valueLabels[i] ?? String(v)}
          </option>
        ))}
      </select>
    </span>
  );
}

/** The value of the "custom" option of the kernel and preset pickers. */
const CUSTOM = '__custom';

/** "Kernel": custom, or a mainline version whose toggles are applied in one rebuild; shows the latest version the toggles equal. */
export function KernelPicker({ toggles }: { toggles: Record<string, ToggleValue> }) {
  const id = useId();
  const kernels = useAppStore((s) => s.kernels);
  const versions = useAppStore((s) => s.kernelVersions);
  const setToggles = useAppStore((s) => s.setToggles);
  const options = useMemo(() => kernelOptions(kernels, versions), [kernels, versions]);
  if (options.length === 0) return null;
  const current = matchingKernel(kernels, toggles);
  return (
    <span className={styles.picker}>
      <label htmlFor={id} className={styles.title}>
        Kernel
      </label>
      <select
        id={id}
        className={styles.select}
        value={current ?? CUSTOM}
        title="Sets every toggle as this mainline kernel has it; “custom” when the toggles match no kernel"
        onChange={(e) => {
          const picked = options.find((o) => o.version === e.target.value);
          const kernel = kernels.find((k) => k.version === e.target.value);
          if (picked && kernel) void setToggles(kernel.toggles, `kernel ${picked.label}`);
        }}
      >
        <option value={CUSTOM}>custom</option>
        {options.map((o) => (
          <option key={o.version} value={o.version}>
            {o.label}
          </option>
        ))}
      </select>
    </span>
  );
}

/** "Preset": the mechanisms' named presets (shown only when some mechanism declares one), each applied in one rebuild. */
export function PresetPicker({ toggles }: { toggles: Record<string, ToggleValue> }) {
  const id = useId();
  const mechanisms = useAppStore((s) => s.mechanisms);
  const setToggles = useAppStore((s) => s.setToggles);
  const choices = useMemo(() => presetChoices(mechanisms), [mechanisms]);
  if (choices.length === 0) return null;
  const current = matchingPreset(choices, toggles);
  const ambiguous = new Set(choices.map((c) => c.preset.name)).size < choices.length;
  return (
    <span className={styles.picker}>
      <label htmlFor={id} className={styles.title}>
        Preset
      </label>
      <select
        id={id}
        className={styles.select}
        value={current ?? CUSTOM}
        onChange={(e) => {
          const c = choices.find((x) => x.key === e.target.value);
          if (c) void setToggles(presetToggles(c.preset), `preset ${c.preset.name}`);
        }}
      >
        <option value={CUSTOM}>custom</option>
        {choices.map((c) => (
          <option key={c.key} value={c.key} title={c.preset.doc}>
            {ambiguous ? `${c.mechanism}: ${c.preset.name}` : c.preset.name}
          </option>
        ))}
      </select>
    </span>
  );
}

/** All toggles of the registry, the ones relevant to this run first. */
export function ToggleBar() {
  const patches = useAppStore((s) => s.patches);
  const events = useAppStore((s) => s.runs.a.events);
  const toggles = useAppStore((s) => s.runs.a.summary?.toggles);
  const runFunctions = useAppStore((s) => s.runs.a.summary?.functions ?? NO_FUNCTIONS);
  const setToggle = useAppStore((s) => s.setToggle);
  // An A/B comparison owns the toggles it compares: the bar shows A's value and does not change it.
  const choice = useAppStore((s) => s.ab?.choice ?? null);
  const differing = useAppStore((s) => s.ab?.differing ?? null);
  const lockedIds = useMemo(() => {
    if (!choice) return new Set<string>();
    return new Set(choice.kind === 'toggle' ? [choice.id] : (differing ?? []).map(([id]) => id));
  }, [choice, differing]);
  const [openCard, setOpenCard] = useState<string | null>(null);
  const { relevant, other } = useMemo(() => splitRelevant(patches, runFunctions, events), [patches, runFunctions, events]);
  if (!toggles || patches.length === 0) return null;
  const cardPatch = patches.find((p) => p.id === openCard);

  const item = (p: PatchInfo) => (
    <li key={p.id} className={styles.item}>
      <ToggleControl
        patch={p}
        value={toggles[p.id] ?? p.default}
        onChange={(v) => void setToggle(p.id, v)}
        locked={lockedIds.has(p.id) ? 'Set by the A/B comparison (the A/B bar changes it); shown as run A has it' : undefined}
      />
      {lockedIds.has(p.id) && <span className={styles.none}>A/B</span>}
      <button
        type="button"
        className={styles.about}
        aria-expanded={openCard === p.id}
        aria-controls="patch-card"
        aria-label={`About the patch: ${p.title}`}
        onClick={() => setOpenCard(openCard === p.id ? null : p.id)}
      >
        About
      </button>
    </li>
  );

  return (
    <div className={styles.bar}>
      <span className={styles.pickers}>
        <KernelPicker toggles={toggles} />
        <PresetPicker toggles={toggles} />
      </span>
      <span className={styles.heading}>Patches</span>
      {relevant.length > 0 ? (
        <ul className={styles.list}>{relevant.map(item)}</ul>
      ) : (
        <span className={styles.none}>no patch changes code this run goes through</span>
      )}
      {other.length > 0 && (
        <details className={styles.more}>
          <summary>{relevant.length > 0 ? 'Other patches' : 'All patches'} ({other.length})</summary>
          <ul className={styles.list}>{other.map(item)}</ul>
        </details>
      )}
      {cardPatch && <PatchCard patch={cardPatch} value={toggles[cardPatch.id] ?? cardPatch.default} onClose={() => setOpenCard(null)} />}
    </div>
  );
}
