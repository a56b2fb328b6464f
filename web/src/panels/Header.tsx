// Header: product name, scenario picker, patch toggles (+ cards), params, copy link.
import { useState } from 'react';
import { enterFullscreen } from '../lecture/fullscreen';
import { writeUrlNow } from '../share/useUrlSync';
import { useAppStore, useAppStoreApi } from '../store/context';
import styles from './Header.module.css';
import { MachineDialogButton } from './MachineDialog';
import { ParamInput } from './ParamInput';
import { ToggleBar } from './ToggleBar';

/** Scenario `<select>` labelled "Scenario". */
function ScenarioPicker() {
  const scenarios = useAppStore((s) => s.scenarios);
  const scenario = useAppStore((s) => s.scenario);
  const openBuiltin = useAppStore((s) => s.openBuiltin);
  const customTitle = useAppStore((s) => (s.scenario?.kind === 'custom' ? s.runs.a.summary?.title : undefined));
  const value = scenario?.kind === 'builtin' ? scenario.id : scenario ? '__custom' : '';
  return (
    <label className={styles.field}>
      <span className={styles.label}>Scenario</span>
      <select className={styles.select} value={value} onChange={(e) => void openBuiltin(e.target.value)} disabled={scenarios.length === 0}>
        {value === '' && <option value="">—</option>}
        {scenario?.kind === 'custom' && (
          <option value="__custom" disabled>
            {customTitle ? `Custom: ${customTitle}` : 'Custom scenario (from the link)'}
          </option>
        )}
        {scenarios.map((s) => (
          <option key={s.id} value={s.id}>
            {s.title}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Number inputs for the scenario's params. */
function ParamList() {
  const summary = useAppStore((s) => s.runs.a.summary);
  const setParam = useAppStore((s) => s.setParam);
  if (!summary || summary.params.length === 0) return null;
  return (
    <fieldset className={styles.params}>
      <legend className="visually-hidden">Parameters</legend>
      {summary.params.map((p) => (
        <ParamInput key={`${summary.id}:${p.name}`} info={p} onApply={(v) => void setParam(p.name, v)} />
      ))}
    </fieldset>
  );
}

/** "Copy link" button: writes the URL now and copies it. */
function CopyLink() {
  const store = useAppStoreApi();
  const [status, setStatus] = useState('');
  const copy = async (): Promise<void> => {
    const href = writeUrlNow(store);
    try {
      await navigator.clipboard.writeText(href);
      setStatus('Link copied');
    } catch {
      setStatus('Copy failed: the link is in the address bar');
    }
    setTimeout(() => setStatus(''), 2500);
  };
  return (
    <div className={styles.copy}>
      <button type="button" className={styles.button} onClick={() => void copy()}>
        Copy link
      </button>
      <span role="status" className={styles.status}>
        {status}
      </span>
    </div>
  );
}

/** "Lecture mode": the lab for a room, full screen when the browser allows (on its first slide at step 0). */
function LectureButton() {
  const enterLecture = useAppStore((s) => s.enterLecture);
  const atStart = useAppStore((s) => s.runs.a.step === 0);
  const ready = useAppStore((s) => s.runs.a.summary !== null);
  return (
    <button
      type="button"
      className={styles.button}
      disabled={!ready}
      title="Full screen, room-sized type, clicker keys (PageDown, PageUp, Space, arrows); Escape leaves"
      onClick={() => {
        enterLecture(atStart);
        void enterFullscreen(document.documentElement);
      }}
    >
      Lecture mode
    </button>
  );
}

/** The app header. */
export function Header() {
  const engineKind = useAppStore((s) => s.engine?.kind);
  const summary = useAppStore((s) => s.runs.a.summary);
  return (
    <header className={styles.header}>
      <div className={styles.row}>
        <h1 className={styles.brand}>
          mmviz <span className={styles.tagline}>the NUMA memory manager, step by step</span>
        </h1>
        {engineKind === 'fake' && (
          <strong className={styles.fake} title="Development only: a few runs recorded from the simulator, replayed; other scenarios, toggles and params fail">
            FAKE ENGINE
          </strong>
        )}
        <ScenarioPicker />
        <ParamList />
        <MachineDialogButton />
        <LectureButton />
        <CopyLink />
      </div>
      {summary && <ToggleBar />}
    </header>
  );
}
