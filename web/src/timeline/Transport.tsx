// Transport: first/back/play/forward/last, speed, scrubber with event marks, readout, go to step.
// Its root is the target of the page's skip link ("Skip to step controls").
import { formatCount } from '../base/format';
import { SPEEDS } from '../store/playbackSlice';
import { useAppStore, useCursor } from '../store/context';
import { GoToStep } from './GoToStep';
import { Icon } from './icons';
import { Scrubber } from './Scrubber';
import styles from './Transport.module.css';

/** The id of the transport's root, where the skip link sends focus. */
export const STEP_CONTROLS_ID = 'step-controls';

/** The transport bar; without a scenario its buttons are disabled and it says why. */
export function Transport() {
  // Alone, the cursor is A's step; in an A/B comparison, a position on the axis both runs advance on.
  const { target, last, ready } = useCursor();
  const stepA = useAppStore((s) => s.runs.a.step);
  const totalA = useAppStore((s) => s.runs.a.summary?.totalSteps ?? 0);
  const inAb = useAppStore((s) => s.ab !== null);
  const stepB = useAppStore((s) => s.runs.b.step);
  const totalB = useAppStore((s) => s.runs.b.summary?.totalSteps ?? 0);
  const playing = useAppStore((s) => s.playing);
  const speed = useAppStore((s) => s.speed);
  const stepBy = useAppStore((s) => s.stepBy);
  const goFirst = useAppStore((s) => s.goFirst);
  const goLast = useAppStore((s) => s.goLast);
  const togglePlay = useAppStore((s) => s.togglePlay);
  const setSpeed = useAppStore((s) => s.setSpeed);
  const pause = useAppStore((s) => s.pause);
  // From the step asked for last: a press while a frame is on its way moves on from there.
  const atStart = !ready || target <= 0;
  const atEnd = !ready || target >= last;
  const reason = ready ? undefined : 'transport-reason';
  return (
    <div className={styles.transport} id={STEP_CONTROLS_ID} tabIndex={-1} role="group" aria-label="Step controls">
      <div className={styles.buttons} role="group" aria-label="Transport" aria-describedby={reason}>
        <button type="button" className={styles.button} aria-label="First step" title="First step (Home)" disabled={atStart} onClick={() => { pause(); void goFirst(); }}>
          <Icon name="first" />
        </button>
        <button type="button" className={styles.button} aria-label="Step back" title="Step back (←)" disabled={atStart} onClick={() => { pause(); void stepBy(-1); }}>
          <Icon name="back" />
        </button>
        <button type="button" className={`${styles.button} ${styles.play}`} aria-label={playing ? 'Pause' : 'Play'} title={playing ? 'Pause (space)' : 'Play (space)'} disabled={!ready} onClick={togglePlay}>
          <Icon name={playing ? 'pause' : 'play'} />
        </button>
        <button type="button" className={styles.button} aria-label="Step forward" title="Step forward (→)" disabled={atEnd} onClick={() => { pause(); void stepBy(1); }}>
          <Icon name="forward" />
        </button>
        <button type="button" className={styles.button} aria-label="Last step" title="Last step (End)" disabled={atEnd} onClick={() => { pause(); void goLast(); }}>
          <Icon name="last" />
        </button>
      </div>
      {ready ? (
        <>
          <label className={styles.speed}>
            <span>Speed</span>
            <select value={String(speed)} onChange={(e) => setSpeed(Number(e.target.value))}>
              {SPEEDS.map((s) => (
                <option key={s} value={String(s)}>
                  {s} step{s === 1 ? '' : 's'}/s
                </option>
              ))}
            </select>
          </label>
          <Scrubber />
          <div className={styles.position}>
            <output className={styles.readout} aria-label="Step readout" aria-live="off">
              {inAb ? (
                <>
                  A step {formatCount(stepA)} / {formatCount(totalA)} · B step {formatCount(stepB)} / {formatCount(totalB)}
                </>
              ) : (
                <>
                  step {formatCount(stepA)} / {formatCount(totalA)}
                </>
              )}
            </output>
            <GoToStep total={totalA} />
          </div>
        </>
      ) : (
        <p id="transport-reason" className={styles.reason}>
          The step controls work once a scenario is loaded.
        </p>
      )}
    </div>
  );
}
