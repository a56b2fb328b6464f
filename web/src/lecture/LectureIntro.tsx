// Lecture mode's first slide: what the scenario shows (its description, with the CPUs and
// nodes of this run), what each parameter means and is set to, the patches that change this
// run's code and how they are set, the machine, and the chapters to come.
import { useMemo } from 'react';
import { splitRelevant } from '../panels/ToggleBar';
import { machineLabel } from '../panels/useMachineNote';
import { toggleValueLabel } from '../store/simSlice';
import { useAppStore, useRun } from '../store/context';
import styles from './LectureIntro.module.css';

/** Paragraphs of a description (blank lines part them; single line breaks are spaces). */
export function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p !== '');
}

/** "v5.13" of "v5.13: migrate, map only on failure": a value label's kernel, or the label when it names none. */
export function shortValueLabel(label: string): string {
  const m = /^(v\d+\.\d+(?:\s*[–-]\s*v\d+\.\d+)?(?: and (?:later|older))?):/.exec(label);
  return m ? (m[1] as string) : label;
}

/** The first slide. */
export function LectureIntro() {
  const summary = useRun((r) => r.summary);
  const patches = useAppStore((s) => s.patches);
  const leaveIntro = useAppStore((s) => s.lectureNext);
  const relevant = useMemo(() => (summary ? splitRelevant(patches, summary.functions, []).relevant : []), [patches, summary]);
  if (!summary) return null;
  return (
    <section className={styles.intro} aria-label="About this scenario">
      <div className={styles.text}>
        {paragraphs(summary.description).map((p, i) => (
          <p key={i}>{p}</p>
        ))}
        <h2 className={styles.heading}>Machine</h2>
        <p className={styles.plainP}>
          {machineLabel(summary.topology)}
          {summary.topology.nodes.length <= 4 && `: ${summary.topology.nodes.map((n) => `node ${n.id}: CPU${n.cpus.length === 1 ? '' : 's'} ${n.cpus.join(', ') || 'none'}`).join('; ')}`}
        </p>
      </div>
      <div className={styles.facts}>
        {summary.params.length > 0 && (
          <>
            <h2 className={styles.heading}>Parameters</h2>
            <dl className={styles.list}>
              {summary.params.map((p) => (
                <div key={p.name}>
                  <dt>
                    <code>{p.name}</code> = {p.value}
                  </dt>
                  <dd>{p.description || 'no description'}</dd>
                </div>
              ))}
            </dl>
          </>
        )}
        {relevant.length > 0 && (
          <>
            <h2 className={styles.heading}>Patches</h2>
            <ul className={styles.plain}>
              {relevant.map((p) => {
                const label = toggleValueLabel(p, summary.toggles[p.id] ?? p.default);
                return (
                  <li key={p.id} title={`${p.title}: ${label}`}>
                    <code>{p.id}</code> {shortValueLabel(label)}
                  </li>
                );
              })}
            </ul>
          </>
        )}
        {summary.chapters.length > 0 && (
          <>
            <h2 className={styles.heading}>Chapters</h2>
            <ol className={styles.chapters}>
              {summary.chapters.map((c, i) => (
                <li key={i}>{c.title}</li>
              ))}
            </ol>
          </>
        )}
        <p className={styles.start}>
          <button type="button" className={styles.button} onClick={() => void leaveIntro()}>
            Start <kbd>PageDown</kbd>
          </button>
        </p>
      </div>
    </section>
  );
}
