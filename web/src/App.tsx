// The lab layout. Each panel reads what it needs from the store itself. The core panels are
// laid out here; under them, one panel per view of each mechanism the run exercises
// (MechanismPanels, drawn by the components of panels/registry.tsx).
import { useEffect } from 'react';
import styles from './App.module.css';
import { errorMessage } from './engine/engine';
import { loadAppEngine } from './engine/loadEngine';
import { CauseChain } from './panels/CauseChain';
import { CodePane } from './panels/CodePane';
import { CountersTable } from './panels/CountersTable';
import { ErrorBanner } from './panels/ErrorBanner';
import { Header } from './panels/Header';
import { MachineView } from './panels/MachineView';
import { MechanismPanels } from './panels/MechanismPanels';
import { Narration, NarrationAnnouncer } from './panels/Narration';
import { PageTableView } from './panels/PageTableView';
import { ChapterList } from './panels/ChapterList';
import { LoadProgress } from './panels/LoadProgress';
import { Plots } from './panels/plots/Plots';
import { useUrlSync } from './share/useUrlSync';
import { useAppStore, useAppStoreApi } from './store/context';
import { KeySheet } from './timeline/KeySheet';
import { STEP_CONTROLS_ID, Transport } from './timeline/Transport';
import { useKeyboard } from './timeline/useKeyboard';
import { usePlayback } from './timeline/usePlayback';

/** Loads the engine once and boots the store from the URL. */
function useEngineBoot(): void {
  const store = useAppStoreApi();
  useEffect(() => {
    let cancelled = false;
    if (store.getState().engine) return;
    loadAppEngine().then(
      (engine) => {
        if (!cancelled && !store.getState().engine) void store.getState().boot(engine, window.location.hash);
      },
      (err: unknown) => {
        if (!cancelled) store.getState().report(`The simulation engine could not be loaded: ${errorMessage(err)}`);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [store]);
}

/** The first Tab stop: moves focus to the transport (without touching the address bar, which holds the link). */
function SkipLink() {
  return (
    <a
      className="skip-link"
      href={`#${STEP_CONTROLS_ID}`}
      onClick={(e) => {
        e.preventDefault();
        document.getElementById(STEP_CONTROLS_ID)?.focus();
      }}
    >
      Skip to step controls
    </a>
  );
}

/** The whole lab. */
export function App() {
  useEngineBoot();
  useUrlSync();
  useKeyboard();
  usePlayback();
  const ready = useAppStore((s) => s.summary !== null);
  const engineLoaded = useAppStore((s) => s.engine !== null);
  const loading = useAppStore((s) => s.loading !== null);
  return (
    <div className={styles.app}>
      <SkipLink />
      <Header />
      <KeySheet />
      <ErrorBanner />
      {/* Early in the DOM, so that Cancel comes right after the header for keyboard users; shown over the page. */}
      {ready && <LoadProgress placement="overlay" />}
      {ready ? (
        <>
          <section className={styles.stage} aria-label="Current step">
            <Narration />
            <NarrationAnnouncer />
            <Transport />
          </section>
          <main className={styles.main}>
            <div className={styles.left}>
              <MachineView />
              <PageTableView />
              <MechanismPanels />
            </div>
            <div className={styles.right}>
              <CauseChain />
              <CodePane />
              <CountersTable />
              <Plots />
              <ChapterList />
            </div>
          </main>
        </>
      ) : engineLoaded ? (
        <>
          <section className={styles.stage} aria-label="Current step">
            <Transport />
          </section>
          {loading ? (
            <LoadProgress placement="inline" />
          ) : (
            <p className={styles.loading} role="status">
              No scenario is loaded. Pick one above.
            </p>
          )}
        </>
      ) : (
        <p className={styles.loading} role="status">
          Loading the simulation engine…
        </p>
      )}
    </div>
  );
}
