// The A/B bar: start a side-by-side comparison of the scenario on screen (one toggle's two
// values, two kernels or two presets), and, once it runs, say what differs, where the two runs
// first part (found by the engine), and swap, change or end it.
import { useId, useMemo, useState } from 'react';
import { formatCount } from '../base/format';
import { kernelOptions, presetChoices } from '../base/kernels';
import type { PatchInfo, ToggleValue } from '../engine/types';
import type { AbChoice } from '../share/url';
import { useAppStore } from '../store/context';
import { choiceLabel, toggleValueLabel } from '../store/simSlice';
import type { AbState } from '../store/types';
import styles from './AbBar.module.css';

/** What the setup form compares: a toggle's id, or kernels or presets. */
type What = { kind: 'toggle'; id: string } | { kind: 'kernel' } | { kind: 'preset' };

const whatKey = (w: What): string => (w.kind === 'toggle' ? `t.${w.id}` : w.kind);

/** The form that starts (or changes) a comparison. */
function AbSetup({ initial, onDone }: { initial: AbChoice | null; onDone: () => void }) {
  const id = useId();
  const patches = useAppStore((s) => s.patches);
  const kernels = useAppStore((s) => s.kernels);
  const versions = useAppStore((s) => s.kernelVersions);
  const mechanisms = useAppStore((s) => s.mechanisms);
  const toggles = useAppStore((s) => s.runs.a.summary?.toggles ?? {});
  const functions = useAppStore((s) => s.runs.a.summary?.functions ?? []);
  const setAb = useAppStore((s) => s.setAb);
  const kernelList = useMemo(() => kernelOptions(kernels, versions), [kernels, versions]);
  const presets = useMemo(() => presetChoices(mechanisms), [mechanisms]);
  // Toggles whose functions this run goes through first: those are the ones that can change it.
  const orderedPatches = useMemo(() => {
    const seen = new Set(functions);
    const relevant = patches.filter((p) => p.functions.some((f) => seen.has(f)));
    return [...relevant, ...patches.filter((p) => !relevant.includes(p))];
  }, [patches, functions]);
  const firstPatch = orderedPatches[0];
  const startWhat: What = initial
    ? initial.kind === 'toggle'
      ? { kind: 'toggle', id: initial.id }
      : { kind: initial.kind }
    : firstPatch
      ? { kind: 'toggle', id: firstPatch.id }
      : { kind: 'kernel' };
  const [what, setWhat] = useState<What>(startWhat);
  const options = (w: What): { value: string; label: string }[] => {
    if (w.kind === 'toggle') {
      const p = patches.find((x) => x.id === w.id);
      return (p?.values ?? []).map((v, i) => ({ value: String(v), label: p?.valueLabels[i] ?? String(v) }));
    }
    if (w.kind === 'kernel') return kernelList.map((k) => ({ value: k.version, label: k.label }));
    return presets.map((c) => ({ value: c.key, label: c.key }));
  };
  const opts = options(what);
  /** Default A and B: A as the run on screen has it, B the next value. */
  const defaults = (w: What): [string, string] => {
    const o = options(w);
    if (initial && whatKey(w) === whatKey(startWhat)) return [String(initial.a), String(initial.b)];
    if (w.kind === 'toggle') {
      const current = String(toggles[w.id] ?? o[0]?.value ?? '');
      const other = o.find((x) => x.value !== current)?.value ?? current;
      return [current, other];
    }
    return [o[o.length - 2]?.value ?? o[0]?.value ?? '', o[o.length - 1]?.value ?? ''];
  };
  const [[a, b], setAB] = useState<[string, string]>(() => defaults(startWhat));
  const same = a === b;

  const choose = (w: What): void => {
    setWhat(w);
    setAB(defaults(w));
  };
  const submit = async (): Promise<void> => {
    if (same) return;
    let choice: AbChoice;
    if (what.kind === 'toggle') {
      const p = patches.find((x) => x.id === what.id);
      const read = (text: string): ToggleValue => p?.values.find((v) => String(v) === text) ?? text;
      choice = { kind: 'toggle', id: what.id, a: read(a), b: read(b) };
    } else choice = { kind: what.kind, a, b };
    if (await setAb(choice)) onDone();
  };

  return (
    <form
      className={styles.setup}
      aria-label="Start an A/B comparison"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className={styles.field} htmlFor={`${id}-what`}>
        Compare
      </label>
      <select id={`${id}-what`} className={styles.select} value={whatKey(what)} onChange={(e) => choose(parseWhat(e.target.value))}>
        {orderedPatches.map((p) => (
          <option key={p.id} value={`t.${p.id}`}>
            {p.id} ({p.title})
          </option>
        ))}
        {kernelList.length > 1 && <option value="kernel">kernel versions</option>}
        {presets.length > 1 && <option value="preset">presets</option>}
      </select>
      <label className={styles.field} htmlFor={`${id}-a`}>
        A
      </label>
      <select id={`${id}-a`} className={styles.select} value={a} onChange={(e) => setAB([e.target.value, b])}>
        {opts.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <label className={styles.field} htmlFor={`${id}-b`}>
        B
      </label>
      <select id={`${id}-b`} className={styles.select} value={b} onChange={(e) => setAB([a, e.target.value])}>
        {opts.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <button type="submit" className={styles.button} disabled={same} aria-describedby={same ? `${id}-same` : undefined}>
        Show side by side
      </button>
      <button type="button" className={styles.button} onClick={onDone}>
        Cancel
      </button>
      {same && (
        <span id={`${id}-same`} className={styles.note}>
          A and B are the same: pick two different values.
        </span>
      )}
    </form>
  );
}

function parseWhat(value: string): What {
  if (value.startsWith('t.')) return { kind: 'toggle', id: value.slice(2) };
  return value === 'preset' ? { kind: 'preset' } : { kind: 'kernel' };
}

/** "numa_delay_map: v5.12 (off) → …" for one differing toggle. */
function differingLabel(patches: readonly PatchInfo[], [id, a, b]: [string, ToggleValue, ToggleValue]): string {
  const p = patches.find((x) => x.id === id);
  return `${id} (A ${toggleValueLabel(p, a)}, B ${toggleValueLabel(p, b)})`;
}

/** Where the search for the first divergence is, and the button that goes there. */
function Divergence({ ab }: { ab: AbState }) {
  const goDivergence = useAppStore((s) => s.goDivergence);
  const pause = useAppStore((s) => s.pause);
  const d = ab.divergence;
  if (d.state === 'searching') {
    return (
      <span className={styles.divergence} role="status">
        Looking for the first step where A and B differ… ({formatCount(d.compared)} steps compared)
      </span>
    );
  }
  if (d.state === 'failed') return <span className={styles.divergence}>The first divergence could not be found: {d.message}</span>;
  if (d.result.step === null) {
    return (
      <span className={styles.divergence} role="status">
        A and B never differ: all {formatCount(d.result.compared)} steps are the same.
      </span>
    );
  }
  const step = d.result.step;
  return (
    <span className={styles.divergence}>
      <span role="status">
        First divergence at step {formatCount(step)}
        {d.result.reason ? `: ${d.result.reason}` : ''}.
      </span>{' '}
      <button
        type="button"
        className={styles.button}
        onClick={() => {
          pause();
          void goDivergence();
        }}
      >
        Jump to first divergence
      </button>
    </span>
  );
}

/** The A/B bar (under the toggles): the setup form, or the running comparison. */
export function AbBar() {
  const ab = useAppStore((s) => s.ab);
  const patches = useAppStore((s) => s.patches);
  const setAb = useAppStore((s) => s.setAb);
  const [editing, setEditing] = useState(false);
  if (!ab) {
    return editing ? (
      <div className={styles.bar}>
        <AbSetup initial={null} onDone={() => setEditing(false)} />
      </div>
    ) : (
      <div className={styles.bar}>
        <button type="button" className={styles.button} onClick={() => setEditing(true)}>
          A/B compare…
        </button>
        <span className={styles.note}>two runs side by side, in lock-step on the workload</span>
      </div>
    );
  }
  const { choice, differing } = ab;
  const swapped: AbChoice = { ...choice, a: choice.b, b: choice.a } as AbChoice;
  const more = choice.kind === 'toggle' ? differing.filter(([id]) => id !== choice.id) : [];
  return (
    <section className={`${styles.bar} ${styles.active}`} aria-label="A/B comparison">
      {editing ? (
        <AbSetup initial={choice} onDone={() => setEditing(false)} />
      ) : (
        <div className={styles.row}>
          <strong className={styles.title}>A/B</strong>
          <span className={styles.what}>{choiceLabel(choice, patches)}</span>
          <button type="button" className={styles.button} onClick={() => void setAb(swapped)}>
            Swap A and B
          </button>
          <button type="button" className={styles.button} onClick={() => setEditing(true)}>
            Change…
          </button>
          <button type="button" className={styles.button} onClick={() => void setAb(null)}>
            End A/B
          </button>
          <Divergence ab={ab} />
        </div>
      )}
      {differing.length === 0 && (
        <p className={styles.warning} role="alert">
          A and B have the same toggles: they are the same run.
        </p>
      )}
      {(more.length > 0 || (choice.kind !== 'toggle' && differing.length > 1)) && (
        <p className={styles.warning} role="alert">
          A and B differ in {differing.length} toggles, not one: {differing.map((d) => differingLabel(patches, d)).join('; ')}. A change in the
          counters may come from any of them.
        </p>
      )}
    </section>
  );
}
