// The patch card: who, when, which commit, what it changes and why.
import { useEffect, useRef } from 'react';
import { formatHistory, historySteps, historyValue, unmergedValues } from '../base/kernels';
import type { PatchInfo, ToggleValue } from '../engine/types';
import styles from './PatchCard.module.css';

/** Only http(s) links are shown as links. */
export function safeHttpUrl(url: string): string | null {
  return /^https?:\/\/[^\s]+$/i.test(url) ? url : null;
}

/** The toggle's history as a small timeline (which value mainline kernels have, from which release), the current value marked. */
export function HistoryTimeline({ patch, value }: { patch: PatchInfo; value: ToggleValue }) {
  const steps = historySteps(patch);
  const unmerged = unmergedValues(patch);
  const now = historyValue(value);
  return (
    <ol className={styles.timeline} aria-label={`History: ${formatHistory(patch)}`}>
      {steps.map((s, i) => {
        const next = steps[i + 1];
        const when = s.from === '' ? (next ? `before ${next.from}` : 'every kernel') : `from ${s.from}`;
        return (
          <li key={`${s.from}:${s.value}`} className={s.value === now ? styles.stepCurrent : styles.step}>
            <span className={styles.when}>{when}</span> <span className={styles.value}>{s.value}</span>
          </li>
        );
      })}
      {unmerged.map((v) => (
        <li key={`unmerged:${v}`} className={v === now ? styles.stepCurrent : styles.step}>
          <span className={styles.when}>never merged</span> <span className={styles.value}>{v}</span>
        </li>
      ))}
    </ol>
  );
}

/** A non-modal card describing one patch; Escape or Close closes it. */
export function PatchCard({ patch, value, onClose }: { patch: PatchInfo; value: ToggleValue; onClose: () => void }) {
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    closeRef.current?.focus();
  }, [patch.id]);
  const href = safeHttpUrl(patch.link);
  const index = patch.values.findIndex((v) => v === value);
  return (
    <aside
      id="patch-card"
      className={styles.card}
      aria-label={`Patch: ${patch.title}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <div className={styles.head}>
        <h2 className={styles.title}>{patch.title}</h2>
        <button ref={closeRef} type="button" className={styles.close} onClick={onClose}>
          Close
        </button>
      </div>
      <dl className={styles.facts}>
        <dt>Author</dt>
        <dd>{patch.author}</dd>
        <dt>Date</dt>
        <dd>{patch.date}</dd>
        <dt>Commit</dt>
        <dd>
          <code>{patch.commit}</code>
        </dd>
        <dt>Version</dt>
        <dd>{patch.version}</dd>
        <dt>History</dt>
        <dd>
          <HistoryTimeline patch={patch} value={value} />
        </dd>
        <dt>Toggle</dt>
        <dd>
          <code>{patch.id}</code> = {patch.valueLabels[index] ?? String(value)}
        </dd>
        {href && (
          <>
            <dt>Link</dt>
            <dd>
              <a href={href} target="_blank" rel="noreferrer noopener">
                {href}
              </a>
            </dd>
          </>
        )}
      </dl>
      <p className={styles.explanation}>{patch.explanation}</p>
      {patch.functions.length > 0 && (
        <>
          <h3 className={styles.sub}>Functions changed</h3>
          <ul className={styles.functions}>
            {patch.functions.map((f) => (
              <li key={f}>
                <code>{f}()</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </aside>
  );
}
