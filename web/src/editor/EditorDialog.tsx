// "Edit…": the scenario's text in an editor (a chunk loaded only when opened), checked by the
// engine's own parser as you type, saved in the browser on every change, run on demand; Reset
// goes back to the built-in. A run of the edit is a custom scenario, so its link carries the text.
import { createPortal } from 'react-dom';
import { lazy, Suspense, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { errorMessage } from '../engine/engine';
import { useAppStore, useAppStoreApi } from '../store/context';
import { diagnosticOf, lineOfField, type Diagnostic } from './diagnostics';
import { clearDraft, loadDraft, pageStorage, saveDraft } from './draft';
import { Dialog } from '../widgets/Dialog';
import styles from './EditorDialog.module.css';

/** No problems (one array, so the editor is not told again on every render). */
const NO_PROBLEMS: Diagnostic[] = [];

const CodeEditor = lazy(() => import('./CodeEditor'));

/** Wait after the last keystroke before the engine reads the text, in milliseconds. */
export const CHECK_DELAY_MS = 350;

/** The engine's verdict on the text being edited. */
type Check = { state: 'checking' } | { state: 'ok'; title: string; steps: number } | { state: 'error'; problems: Diagnostic[] };

/** The draft's key: the built-in the edit started from, or "custom". */
function draftScenario(scenario: { kind: string; id?: string } | null): string {
  return scenario?.kind === 'builtin' && scenario.id ? scenario.id : 'custom';
}

/** The dialog's content; mounted while the dialog is open. Its check status goes in the dialog's head (`statusSlot`), beside the title. */
function EditorBody({ onClose, statusSlot }: { onClose: () => void; statusSlot: HTMLElement | null }) {
  const store = useAppStoreApi();
  const engine = useAppStore((s) => s.engine);
  const scenario = useAppStore((s) => s.scenario);
  const scenarioText = useAppStore((s) => s.scenarioText);
  const builtins = useAppStore((s) => s.scenarios);
  const patches = useAppStore((s) => s.patches);
  const key = draftScenario(scenario);
  const builtin = scenario?.kind === 'builtin' ? builtins.find((b) => b.id === scenario.id) : undefined;
  const ids = { status: useId(), problems: useId() };

  // What the editor opens with: the saved edit when there is one that differs, else the scenario's text.
  const [start] = useState(() => {
    const draft = loadDraft(pageStorage(), key);
    return draft && draft.text !== scenarioText ? { text: draft.text, restored: draft.savedAt } : { text: scenarioText, restored: null };
  });
  const [text, setText] = useState(start.text);
  const [saveNote, setSaveNote] = useState<string | null>(start.restored !== null ? `Your edit from ${new Date(start.restored).toLocaleString()} is back (kept in this browser).` : null);
  const [saveError, setSaveError] = useState<string | null>(null);
  // The engine's verdict and the text it is about: while they differ, the text is being checked.
  const [verdict, setVerdict] = useState<{ text: string; check: Check } | null>(null);
  const check: Check = verdict && verdict.text === text ? verdict.check : { state: 'checking' };
  const [replace, setReplace] = useState({ key: 0, text: '' });
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<string | null>(null);
  // Reset asks once (in the dialog, not a browser prompt) when it would throw an edit away.
  const [confirmReset, setConfirmReset] = useState(false);
  const toggles = useMemo(() => patches.map((p) => ({ id: p.id, title: p.title })), [patches]);

  // Autosave: every change, at once (a crash a moment later loses nothing).
  const onChange = useCallback(
    (t: string) => {
      setText(t);
      setConfirmReset(false);
      const problem = saveDraft(pageStorage(), key, { text: t, base: scenarioText, savedAt: Date.now() });
      setSaveError(problem);
      if (!problem) setSaveNote(`Saved in this browser at ${new Date().toLocaleTimeString()}.`);
    },
    [key, scenarioText],
  );

  // The engine reads the text a moment after the last keystroke; only the latest answer counts.
  const latest = useRef(0);
  useEffect(() => {
    if (!engine) return;
    const n = ++latest.current;
    const timer = setTimeout(() => {
      engine.describe(text, {}).then(
        (summary) => n === latest.current && setVerdict({ text, check: { state: 'ok', title: summary.title, steps: summary.totalSteps } }),
        (err: unknown) => {
          if (n !== latest.current) return;
          const d = diagnosticOf(errorMessage(err));
          setVerdict({ text, check: { state: 'error', problems: [d.line === null ? { ...d, line: lineOfField(text, d.field) } : d] } });
        },
      );
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [engine, text]);

  const run = async (): Promise<void> => {
    const s = store.getState();
    setRunError(null);
    setRunning(true);
    const opened = await s.open({ scenario: { kind: 'custom', text }, toggles: s.toggleOverrides, params: {}, step: 0 });
    setRunning(false);
    if (opened) onClose();
    else setRunError('It did not open: see the message at the top of the page. Your text is kept here.');
  };

  const reset = (): void => {
    if (!builtin) return;
    if (text !== builtin.text && !confirmReset) {
      setConfirmReset(true);
      return;
    }
    setConfirmReset(false);
    clearDraft(pageStorage(), key);
    setReplace((r) => ({ key: r.key + 1, text: builtin.text }));
    setText(builtin.text);
    setSaveNote('Back to the built-in text; no edit is saved.');
  };

  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      setSaveNote('Scenario text copied.');
    } catch {
      setSaveError('Copy failed: select the text and copy it with the keyboard.');
    }
  };

  const changed = text !== scenarioText;
  return (
    <>
      {statusSlot &&
        createPortal(
          <span id={ids.status} role="status" className={check.state === 'ok' ? styles.ok : styles.note}>
            {check.state === 'checking' && 'Checking…'}
            {check.state === 'ok' && `The engine reads it: “${check.title}”, ${check.steps.toLocaleString('en')} steps.`}
            {check.state === 'error' && `${check.problems.length} problem${check.problems.length === 1 ? '' : 's'}: see below.`}
          </span>,
          statusSlot,
        )}
      <div className={styles.editor}>
        <Suspense fallback={<p className={styles.loading}>Loading the editor…</p>}>
          <CodeEditor
            initial={start.text}
            replaceKey={replace.key}
            replaceWith={replace.text}
            onChange={onChange}
            diagnostics={check.state === 'error' ? check.problems : NO_PROBLEMS}
            toggles={toggles}
            label="Scenario text (TOML)"
            describedBy={`${ids.status} ${ids.problems}`}
          />
        </Suspense>
      </div>
      <ul id={ids.problems} className={styles.problems} aria-label="Problems">
        {check.state === 'error' &&
          check.problems.map((p, i) => (
            <li key={i}>
              {p.line !== null ? `Line ${p.line}` : 'Somewhere'}
              {p.field ? `, field ${p.field}` : ''}: {p.message}
            </li>
          ))}
      </ul>
      {saveError ? (
        <p role="alert" className={styles.warn}>
          Not saved: {saveError}
        </p>
      ) : (
        saveNote && <p className={styles.note}>{saveNote}</p>
      )}
      {confirmReset && (
        <p role="alert" className={styles.warn}>
          Reset puts the built-in {builtin?.id} back and removes your edit from this browser. Click “Yes, discard my edit” to go on, or edit on to keep it.
        </p>
      )}
      {runError && (
        <p role="alert" className={styles.warn}>
          {runError}
        </p>
      )}
      <div className={styles.actions}>
        <button type="button" className={styles.primary} disabled={running || check.state !== 'ok'} onClick={() => void run()}>
          {running ? 'Running…' : 'Run it'}
        </button>
        {builtin && (
          <button type="button" className={styles.button} disabled={running || (!changed && text === builtin.text)} onClick={reset}>
            {confirmReset ? 'Yes, discard my edit' : 'Reset to the built-in'}
          </button>
        )}
        <button type="button" className={styles.button} onClick={() => void copy()}>
          Copy scenario
        </button>
        <span className={styles.note}>Every change is kept in this browser; a run’s link carries the text.</span>
      </div>
    </>
  );
}

/** The header's Edit button and its dialog. */
export function EditorButton() {
  const [open, setOpen] = useState(false);
  const scenario = useAppStore((s) => s.scenario);
  const scenarioText = useAppStore((s) => s.scenarioText);
  const builtins = useAppStore((s) => s.scenarios);
  // Read on every render: closing the dialog re-renders, so the label follows a new or dropped edit.
  const draft = open ? null : loadDraft(pageStorage(), draftScenario(scenario));
  const pending = draft !== null && draft.text !== scenarioText;
  const close = (): void => setOpen(false);
  const [statusSlot, setStatusSlot] = useState<HTMLElement | null>(null);
  return (
    <>
      <button
        type="button"
        className={styles.headerButton}
        aria-haspopup="dialog"
        title={pending ? 'You have an edit of this scenario saved in this browser' : 'Edit the scenario’s text'}
        onClick={() => setOpen(true)}
      >
        {pending ? 'Edit… (your edit)' : 'Edit…'}
      </button>
      <Dialog
        open={open}
        onClose={close}
        title={
          <>
            Edit scenario <code>{scenario?.kind === 'builtin' && builtins.some((b) => b.id === scenario.id) ? scenario.id : 'custom'}</code>
          </>
        }
        className={styles.dialog}
        bodyClassName={styles.body}
        initialFocus="title"
        headExtra={<span ref={setStatusSlot} />}
      >
        <EditorBody onClose={close} statusSlot={statusSlot} />
      </Dialog>
    </>
  );
}
