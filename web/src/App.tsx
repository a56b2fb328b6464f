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
import { LaneProvider, useAppStore, useAppStoreApi } from './store/context';
import { toggleValueLabel } from './store/simSlice';
import type { LaneId } from './store/types';
import { AbBar } from './panels/AbBar';
import { RunNotes } from './panels/RunNotes';
import { registerServiceWorker } from './offline/register';
import { IpiHeatStrip } from './panels/IpiHeatStrip';
import { KeySheet } from './timeline/KeySheet';
import { STEP_CONTROLS_ID, Transport } from './timeline/Transport';
import { useKeyboard } from './timeline/useKeyboard';
import { usePlayback } from './timeline/usePlayback';
import { AboutScenario } from './panels/AboutScenario';
import { QuestionCard } from './panels/QuestionCard';
import { useMachineNote } from './panels/useMachineNote';
import { LectureView } from './lecture/LectureView';
import { EmbedView } from './embed/EmbedView';

/** Registers the service worker once per page (offline use; src/offline/register.ts). */
let serviceWorkerRegistered = false;

/** Loads the engine once and boots the store from the URL. */
function useEngineBoot(): void {
  const store = useAppStoreApi();
  useEffect(() => {
    if (!serviceWorkerRegistered) {
      serviceWorkerRegistered = true;
      registerServiceWorker(store);
    }
  }, [store]);
  useEffect(() => {
    let cancelled = false;
    if (store.getState().engine) return;
    // `?embed` in the query: the page is embedded whatever its fragment says.
    if (new URLSearchParams(window.location.search).has('embed')) store.getState().setEmbedQuery(true);
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

/** "A: numa_delay_map v5.12 (off)": which run a lane is, for its heading. */
function LaneTitle({ lane }: { lane: LaneId }) {
  const label = useAppStore((s) => {
    const c = s.ab?.choice;
    if (!c) return '';
    const value = c[lane];
    if (c.kind === 'toggle') {
      const p = s.patches.find((x) => x.id === c.id);
      return `${c.id} ${toggleValueLabel(p, value)}`;
    }
    return c.kind === 'preset' ? `preset ${String(value).split('/')[1] ?? String(value)}` : `kernel ${String(value)}`;
  });
  return (
    <h2 className={styles.laneTitle}>
      <span className={lane === 'a' ? styles.laneA : styles.laneB}>{lane.toUpperCase()}</span> {label}
    </h2>
  );
}

/** One run's own panels (its machine, page table, code, cause chain and mechanism panels). */
function LanePanels({ lane, wide }: { lane: LaneId; wide: boolean }) {
  return (
    <LaneProvider lane={lane}>
      {wide ? (
        <>
          <div className={styles.left}>
            <MachineView />
            <PageTableView />
            <MechanismPanels />
          </div>
          <div className={styles.right}>
            <QuestionCard />
            <AboutScenario />
            <CauseChain />
            <CodePane />
            <CountersTable />
            <Plots />
            <IpiHeatStrip />
            <ChapterList />
          </div>
        </>
      ) : (
        <section className={styles.lane} aria-label={`Run ${lane.toUpperCase()}`}>
          <LaneTitle lane={lane} />
          <MachineView />
          <CodePane />
          <CauseChain />
          <PageTableView />
          <MechanismPanels />
        </section>
      )}
    </LaneProvider>
  );
}

/** Two runs side by side (stacked on narrow screens): each lane's narration and panels, one transport, shared counters and plots. */
function AbLayout() {
  return (
    <>
      <section className={styles.stage} aria-label="Current step">
        <div className={styles.lanes}>
          {(['a', 'b'] as const).map((lane) => (
            <LaneProvider key={lane} lane={lane}>
              <div className={styles.laneStage} aria-label={`Run ${lane.toUpperCase()} narration`} role="group">
                <LaneTitle lane={lane} />
                <Narration />
                <RunNotes />
                <NarrationAnnouncer />
              </div>
            </LaneProvider>
          ))}
        </div>
        <Transport />
      </section>
      <main className={styles.abMain}>
        <div className={styles.lanes}>
          <LanePanels lane="a" wide={false} />
          <LanePanels lane="b" wide={false} />
        </div>
        <div className={styles.shared}>
          <CountersTable />
          <Plots />
          <IpiHeatStrip />
          <ChapterList />
        </div>
      </main>
    </>
  );
}

/** Says once, in the banner, when the run's machine is not the one its scenario's text was written for. */
function useMachineNoteBanner(): void {
  const note = useMachineNote();
  const report = useAppStore((s) => s.report);
  useEffect(() => {
    if (note) report(note, 'warning');
  }, [note, report]);
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

/** The whole lab: the full lab, lecture mode or the embed (the store's `mode`). */
export function App() {
  useEngineBoot();
  useUrlSync();
  useKeyboard();
  usePlayback();
  useMachineNoteBanner();
  const ready = useAppStore((s) => s.runs.a.summary !== null);
  const engineLoaded = useAppStore((s) => s.engine !== null);
  const loading = useAppStore((s) => s.loading !== null);
  const inAb = useAppStore((s) => s.ab !== null);
  const mode = useAppStore((s) => s.mode);
  if (ready && mode === 'lecture') {
    return (
      <div className={styles.app} data-mode="lecture">
        <ErrorBanner />
        <KeySheet lecture />
        <LectureView />
      </div>
    );
  }
  if (mode === 'embed') {
    return (
      <div className={styles.app} data-mode="embed">
        <ErrorBanner />
        {ready ? (
          <EmbedView />
        ) : (
          <p className={styles.loading} role="status">
            {engineLoaded ? 'Preparing the run…' : 'Loading the simulation engine…'}
          </p>
        )}
      </div>
    );
  }
  return (
    <div className={styles.app} data-mode="lab">
      <SkipLink />
      <Header />
      <KeySheet />
      <ErrorBanner />
      {/* Early in the DOM, so that Cancel comes right after the header for keyboard users; shown over the page. */}
      {ready && <LoadProgress placement="overlay" />}
      {ready && <AbBar />}
      {ready ? (
        inAb ? (
          <AbLayout />
        ) : (
          <>
            <section className={styles.stage} aria-label="Current step">
              <Narration />
              <RunNotes />
              <NarrationAnnouncer />
              <Transport />
            </section>
            <main className={styles.main}>
              <LanePanels lane="a" wide />
            </main>
          </>
        )
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
