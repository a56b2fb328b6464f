// Header: product name, scenario picker, patch toggles (+ cards), params, copy link.
import { useState } from 'react';
import { isLocalBase } from '../base/build';
import { EditorButton } from '../editor/EditorDialog';
import { ExportButton } from '../export/ExportDialog';
import { enterFullscreen } from '../lecture/fullscreen';
import { currentLink } from '../share/useUrlSync';
import { AboutButton } from './AboutDialog';
import { useAppStore, useAppStoreApi } from '../store/context';
import styles from './Header.module.css';
import { SweepButton } from '../sweep/SweepDialog';
import { ExploreButton } from '../explore/ExploreDialog';
import { MachineDialogButton } from './MachineDialog';
import { RealityDialogButton } from './RealityDialog';
import { ParamInput } from './ParamInput';
import { ToggleBar } from './ToggleBar';
import { ThemePicker } from '../theme/ThemePicker';
import { KeySheetButton } from '../timeline/KeySheet';

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

/** Says when the run is at a link's seed, not the scenario's own (a sweep's run). */
function SeedNote() {
  const seed = useAppStore((s) => (s.scenario?.seed === undefined ? null : (s.runs.a.summary?.seed ?? null)));
  if (seed === null) return null;
  return (
    <span className={styles.seed} title="This run is at a seed the link gives (seed=), not the scenario's own: a run of a sweep. Opening the scenario again runs it at its own seed.">
      seed {seed}
    </span>
  );
}

/** Links longer than this may be broken by mail clients (and they are hard to read). */
export const LONG_LINK_CHARS = 2000;

/** "Copy link": writes the URL now and copies the link at the lab's public address; says when it reaches only this machine, or is long. */
function CopyLink() {
  const store = useAppStoreApi();
  const [status, setStatus] = useState('');
  const [long, setLong] = useState(false);
  const copy = async (): Promise<void> => {
    const link = currentLink(store);
    const notes: string[] = [];
    if (isLocalBase(link)) notes.push('it opens only on this machine (build the lab with MMVIZ_PUBLIC_URL to share it)');
    const tooLong = link.length > LONG_LINK_CHARS;
    if (tooLong) notes.push(`it is ${link.length.toLocaleString('en')} characters long, which mail may break`);
    setLong(tooLong);
    try {
      await navigator.clipboard.writeText(link);
      setStatus(`Link copied${notes.length ? `: ${notes.join('; ')}` : ''}`);
    } catch {
      setStatus('Copy failed: the link is in the address bar');
    }
    setTimeout(() => setStatus(''), notes.length ? 8000 : 2500);
  };
  const copyScenario = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(store.getState().scenarioText);
      setStatus('Scenario copied: paste it into a file or the editor');
    } catch {
      setStatus('Copy failed');
    }
    setLong(false);
  };
  return (
    <div className={styles.copy}>
      <button type="button" className={styles.button} onClick={() => void copy()}>
        Copy link
      </button>
      {long && (
        <button type="button" className={styles.button} onClick={() => void copyScenario()}>
          Copy scenario instead
        </button>
      )}
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
        <SeedNote />
        <MachineDialogButton />
        {summary && <EditorButton />}
        <RealityDialogButton />
        <SweepButton />
        <ExploreButton />
        <LectureButton />
        <div className={styles.tools}>
          <ThemePicker />
          <KeySheetButton />
          <CopyLink />
          {summary && <ExportButton />}
          <AboutButton />
        </div>
      </div>
      {summary && <ToggleBar />}
    </header>
  );
}
