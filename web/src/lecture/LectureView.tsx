// Lecture mode: the lab for a room. Full screen (when the browser allows), room-sized type
// (at least 24 px at 1280 × 720), high contrast, no chrome: the chapter, the narration, the
// machine, the code pane (or the chapter's question), a counter or two and the step. A clicker
// drives it (timeline/keys.ts, lectureCommandForKey); Escape leaves it. The first slide is the scenario's description
// and parameters; the speaker notes (each chapter's narration) open beside the machine.
import { useEffect, useMemo, useRef } from 'react';
import { defaultPlotCounters } from '../base/mechanisms';
import { formatCount, formatTimeNs, functionLabel } from '../base/format';
import { CodePane } from '../panels/CodePane';
import { MachineView } from '../panels/MachineView';
import { QuestionCard } from '../panels/QuestionCard';
import { useMachineNote } from '../panels/useMachineNote';
import { useAppStore, useRun } from '../store/context';
import { questionShownAt, waitingQuestionAt } from '../store/lectureSlice';
import { chapterIndexAt } from '../store/simSlice';
import { setThemeOverride } from '../theme/themeStore';
import { Icon } from '../timeline/icons';
import { enterFullscreen, exitFullscreen, isFullscreen } from './fullscreen';
import { LectureIntro } from './LectureIntro';
import styles from './LectureView.module.css';
import { NotesPanel } from './NotesPanel';
import { useLectureKeys } from './useLectureKeys';

/** The top line: the chapter (or the first slide), and the ways out. */
function LectureBar() {
  const summary = useRun((r) => r.summary);
  const step = useRun((r) => r.step);
  const intro = useAppStore((s) => s.lectureIntro);
  const notesOpen = useAppStore((s) => s.notesOpen);
  const setNotesOpen = useAppStore((s) => s.setNotesOpen);
  const exitLecture = useAppStore((s) => s.exitLecture);
  if (!summary) return null;
  const chapters = summary.chapters;
  const index = chapterIndexAt(chapters, step);
  const chapter = chapters[index];
  return (
    <div className={styles.bar}>
      <h1 className={intro ? `${styles.chapter} ${styles.introTitle}` : styles.chapter}>
        {intro ? (
          summary.title
        ) : chapter ? (
          <>
            <span className={styles.chapterNo}>
              Chapter {index + 1}/{chapters.length}
            </span>{' '}
            {chapter.title}
          </>
        ) : (
          summary.title
        )}
      </h1>
      <div className={styles.barButtons}>
        <button type="button" className={styles.button} aria-pressed={notesOpen} onClick={() => setNotesOpen(!notesOpen)} title="Speaker notes: each chapter's narration (N)">
          Notes <kbd>N</kbd>
        </button>
        <button
          type="button"
          className={styles.button}
          title="Full screen (F)"
          onClick={() => {
            if (isFullscreen()) void exitFullscreen(true);
            else void enterFullscreen(document.documentElement);
          }}
        >
          Full screen <kbd>F</kbd>
        </button>
        <button
          type="button"
          className={styles.button}
          onClick={() => {
            exitLecture();
            void exitFullscreen();
          }}
        >
          Exit lecture <kbd>Esc</kbd>
        </button>
      </div>
    </div>
  );
}

/**
 * The narration in room-sized type: a chapter's own narration at its first step, else what the
 * step did. While the chapter's question waits for its answer, the chapter's narration (which
 * explains what happens, and so the answer) is held back: predict first, then read why. The
 * speaker notes keep it for the lecturer.
 */
function LectureNarration() {
  const frame = useRun((r) => r.frame);
  const summary = useRun((r) => r.summary);
  const waiting = useAppStore((s) => (frame ? waitingQuestionAt(s, frame.step) !== null : false));
  const findings = useRun((r) => r.findings);
  if (!frame || !summary) return null;
  // The run's findings (base/findings.ts): named when this frame shows one, else where they are.
  const here = findings.filter((f) => f.step + 1 === frame.step);
  const findingSteps = [...new Set(findings.map((f) => f.step))].slice(0, 8);
  const chapters = summary.chapters;
  const chapter = chapters[chapterIndexAt(chapters, frame.step)];
  const atChapterStart = chapter !== undefined && chapter.step === frame.step && chapter.narration !== '';
  const event = frame.event;
  const held = atChapterStart && waiting;
  const text = held
    ? 'First a question: what will the kernel do here? The explanation comes with the answer.'
    : atChapterStart
      ? chapter.narration
      : (event?.narration ?? chapter?.narration ?? summary.description);
  return (
    <section className={styles.narration} aria-label="Narration">
      <p className={text.length > 200 ? `${styles.narrationText} ${styles.narrationLong}` : styles.narrationText}>{text}</p>
      {/* At a chapter's start the text is the chapter's, not the last step's: no step details. */}
      {!atChapterStart && (
        <p className={styles.meta}>
          {event ? (
            <>
              <span className={styles.cpu}>CPU {event.cpu}</span>
              {event.function && <code>{functionLabel(event.function)}</code>}
              <span>{event.kind.replace(/_/g, ' ')}</span>
            </>
          ) : (
            <span>start of the run</span>
          )}
          <span>t = {formatTimeNs(frame.timeNs)}</span>
        </p>
      )}
      {findings.length > 0 && (
        <p className={styles.finding} role="note" aria-label="Findings of this run">
          {here.length > 0 ? `Finding at this step: ${here.map((f) => f.label.toLowerCase()).join(', ')}` : `Findings at step${findingSteps.length === 1 ? '' : 's'} ${findingSteps.join(', ')}`}
        </p>
      )}
    </section>
  );
}

/** A counter or two, the transport and the step. */
function LectureFooter() {
  const frame = useRun((r) => r.frame);
  const summary = useRun((r) => r.summary);
  const series = useRun((r) => r.series);
  const mechanisms = useAppStore((s) => s.mechanisms);
  const playing = useAppStore((s) => s.playing);
  const togglePlay = useAppStore((s) => s.togglePlay);
  const stepBy = useAppStore((s) => s.stepBy);
  const pause = useAppStore((s) => s.pause);
  const lectureNext = useAppStore((s) => s.lectureNext);
  const lecturePrev = useAppStore((s) => s.lecturePrev);
  const names = summary?.counterNames;
  const counters = useMemo(() => (series && names ? defaultPlotCounters(mechanisms, series, names, 2) : []), [mechanisms, series, names]);
  if (!frame || !summary) return null;
  return (
    <div className={styles.footer}>
      <div className={styles.transport} role="group" aria-label="Lecture transport">
        <button type="button" className={styles.iconButton} aria-label="Previous chapter" title="Previous chapter (PageUp)" onClick={() => void lecturePrev()}>
          <Icon name="first" />
        </button>
        <button type="button" className={styles.iconButton} aria-label="Step back" title="Step back (←)" onClick={() => { pause(); void stepBy(-1); }}>
          <Icon name="back" />
        </button>
        <button type="button" className={`${styles.iconButton} ${styles.play}`} aria-label={playing ? 'Pause' : 'Play'} title="Play / pause (P)" onClick={togglePlay}>
          <Icon name={playing ? 'pause' : 'play'} />
        </button>
        <button type="button" className={styles.iconButton} aria-label="Step forward" title="Step forward (→)" onClick={() => { pause(); void stepBy(1); }}>
          <Icon name="forward" />
        </button>
        <button type="button" className={styles.iconButton} aria-label="Next chapter" title="Next chapter, or reveal the question's answer (PageDown, Space)" onClick={() => void lectureNext()}>
          <Icon name="last" />
        </button>
      </div>
      <output className={styles.readout} aria-label="Step readout">
        step {formatCount(frame.step)} / {formatCount(summary.totalSteps)}
      </output>
      <ul className={styles.counters} aria-label="Counters">
        {counters.map((name) => (
          <li key={name}>
            <span className={styles.counterName}>{name}</span> <strong>{formatCount(frame.counters[name] ?? 0)}</strong>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Lecture mode's whole screen. */
export function LectureView() {
  const root = useRef<HTMLDivElement>(null);
  useLectureKeys();
  const intro = useAppStore((s) => s.lectureIntro);
  const notesOpen = useAppStore((s) => s.notesOpen);
  const step = useRun((r) => r.targetStep);
  const hasQuestion = useAppStore((s) => questionShownAt(s, step) !== null);
  const machineNote = useMachineNote();
  // Keys go to the lecture from the start, not to a control the full lab had focused.
  useEffect(() => {
    root.current?.focus({ preventScroll: true });
  }, []);
  // The high-contrast theme's tokens while lecture mode is shown; the user's theme after.
  useEffect(() => {
    setThemeOverride('high-contrast');
    return () => setThemeOverride(null);
  }, []);
  return (
    <div ref={root} className={styles.lecture} tabIndex={-1} aria-label="Lecture mode" role="region">
      <LectureBar />
      {machineNote && <p className={styles.machineNote} role="note">{machineNote}</p>}
      {intro ? (
        <LectureIntro />
      ) : (
        <>
          <LectureNarration />
          <div className={styles.middle}>
            <div className={styles.machine}>
              <MachineView />
            </div>
            <div className={styles.side}>{notesOpen ? <NotesPanel /> : hasQuestion ? <QuestionCard /> : <CodePane />}</div>
          </div>
          <LectureFooter />
        </>
      )}
    </div>
  );
}
