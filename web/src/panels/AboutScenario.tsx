// "About this scenario": what the scenario shows (its description, with the CPUs and nodes of
// this run), each parameter's meaning and value, and a note when the run's machine is not the
// one the text was written for. Visible text, not tooltips.
import { useId } from 'react';
import { paragraphs } from '../lecture/LectureIntro';
import { useRun } from '../store/context';
import panel from './Panel.module.css';
import styles from './AboutScenario.module.css';
import { machineLabel, useMachineNote } from './useMachineNote';

/** The disclosure panel. */
export function AboutScenario() {
  const titleId = useId();
  const summary = useRun((r) => r.summary);
  const note = useMachineNote();
  if (!summary) return null;
  const text = paragraphs(summary.description);
  return (
    <details className={`${panel.panel} ${styles.about}`} open={note !== null ? true : undefined}>
      <summary className={styles.summary}>
        <h2 id={titleId} className={panel.title}>
          About this scenario <span className={panel.subtitle}>{summary.title}</span>
        </h2>
      </summary>
      {note && (
        <p className={styles.note} role="note">
          {note}
        </p>
      )}
      {text.length > 0 ? text.map((p, i) => <p key={i}>{p}</p>) : <p className={styles.none}>The scenario has no description.</p>}
      {summary.params.length > 0 && (
        <table className={styles.params} aria-label="Parameters">
          <thead>
            <tr>
              <th scope="col">Parameter</th>
              <th scope="col">Value</th>
              <th scope="col">Range</th>
              <th scope="col">Meaning</th>
            </tr>
          </thead>
          <tbody>
            {summary.params.map((p) => (
              <tr key={p.name}>
                {/* A cell, not a row header: the counters table's row headers are the page's counter names. */}
                <td>
                  <code>{p.name}</code>
                </td>
                <td>{p.value}</td>
                <td>
                  {p.min}–{p.max}
                </td>
                <td>{p.description || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className={styles.machine}>Machine: {machineLabel(summary.topology)}.</p>
    </details>
  );
}
