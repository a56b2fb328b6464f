// What a lane's run says about itself beside the narration: the schedule it follows (a link's
// `sched=`), or why it could not follow it, and its findings (a lost write, a store through a
// stale TLB entry), each with its step and a button to go there. All of it comes from the run
// (base/findings.ts), so a link reopened anywhere shows the same.
import { formatCount } from '../base/format';
import { MAX_FINDINGS } from '../base/findings';
import { useAppStore, useLaneActions, useRun } from '../store/context';
import styles from './RunNotes.module.css';

/** Findings listed by name; the scrubber marks every one. */
const LISTED = 4;

/** The schedule, its problem and the findings of the calling lane's run; nothing when it has none of them. */
export function RunNotes() {
  const schedule = useAppStore((s) => s.scenario?.schedule ?? null);
  const problem = useRun((r) => r.scheduleProblem);
  const findings = useRun((r) => r.findings);
  const step = useRun((r) => r.step);
  const { seek } = useLaneActions();
  if (schedule === null && findings.length === 0) return null;
  const picks = schedule === null ? 0 : schedule.split(',').length;
  return (
    <div className={styles.notes}>
      {schedule !== null &&
        (problem === null ? (
          <p className={styles.schedule} title={`sched=${schedule}`}>
            Interleaving: this run follows a schedule ({picks} pick{picks === 1 ? '' : 's'} where a CPU other than the default one acts), <code className={styles.code}>{schedule.length > 60 ? `${schedule.slice(0, 60)}…` : schedule}</code>
          </p>
        ) : (
          <p className={styles.problem} role="note">
            <strong>This run does not follow the link's schedule</strong> (it is shown in the default order): {problem}
          </p>
        ))}
      {findings.length > 0 && (
        <div className={styles.findings} role="note" aria-label="Findings of this run">
          <strong className={styles.title}>
            {findings.length === 1 ? 'Finding' : `${findings.length >= MAX_FINDINGS ? `${MAX_FINDINGS}+` : findings.length} findings`}
          </strong>
          <ul className={styles.list}>
            {findings.slice(0, LISTED).map((f, i) => {
              const here = step === f.step + 1;
              return (
                <li key={`${f.step}:${f.counter}:${i}`} className={here ? styles.here : undefined} data-finding-step={f.step}>
                  <span className={styles.what}>
                    {f.label} at step {formatCount(f.step)}
                  </span>{' '}
                  <span className={styles.detail} title={f.narration}>
                    (CPU {f.cpu}
                    {f.task ? `, ${f.task}` : ''}
                    {f.function ? `, ${f.function}` : ''}): {f.narration}
                  </span>{' '}
                  <button type="button" className={styles.go} onClick={() => void seek(f.step + 1, { history: true })} disabled={here} aria-label={`Go to the ${f.label.toLowerCase()} at step ${f.step}`}>
                    {here ? 'shown' : 'Go'}
                  </button>
                  {f.related.map((r) => (
                    <span key={r.step} className={styles.related} data-related-step={r.step} title={`${r.detail} at step ${r.step}`}>
                      {r.what} at step {formatCount(r.step)}{' '}
                      <button type="button" className={styles.go} onClick={() => void seek(r.step + 1, { history: true })} disabled={step === r.step + 1} aria-label={`Go to step ${r.step}: ${r.detail}`}>
                        {step === r.step + 1 ? 'shown' : 'Go'}
                      </button>{' '}
                    </span>
                  ))}
                </li>
              );
            })}
            {findings.length > LISTED && <li className={styles.more}>and {findings.length - LISTED} more, marked on the scrubber</li>}
          </ul>
        </div>
      )}
    </div>
  );
}
