// The load in progress: what runs, for how long, how far (when the engine says)
// and a Cancel button. Recording a long run takes seconds and the engine reports
// no progress yet, so the bar is indeterminate and the elapsed time counts up;
// once the worker posts progress, the bar fills instead.
import { useEffect, useState } from 'react';
import { formatCount, formatElapsedMs } from '../base/format';
import { useAppStore } from '../store/context';
import type { LoadingState } from '../store/types';
import styles from './LoadProgress.module.css';

/** How often the elapsed time is redrawn, in milliseconds. */
const TICK_MS = 100;

/** Milliseconds since `startedAtMs`, updated every TICK_MS while mounted. */
function useElapsedMs(startedAtMs: number): number {
  const [elapsedMs, setElapsedMs] = useState(0);
  useEffect(() => {
    const id = setInterval(() => setElapsedMs(Date.now() - startedAtMs), TICK_MS);
    return () => clearInterval(id);
  }, [startedAtMs]);
  return elapsedMs;
}

function LoadCard({ loading, placement, onCancel }: { loading: LoadingState; placement: 'overlay' | 'inline'; onCancel: () => void }) {
  const elapsed = formatElapsedMs(useElapsedMs(loading.startedAtMs));
  const p = loading.progress;
  const percent = p && p.total > 0 ? Math.min(100, Math.floor((100 * p.done) / p.total)) : null;
  const valueText =
    percent === null || !p ? `${elapsed} elapsed` : `${percent}%: ${formatCount(p.done)} of ${formatCount(p.total)} steps, ${elapsed} elapsed`;
  return (
    <section className={placement === 'overlay' ? styles.overlay : styles.inline} aria-label="Loading">
      <p className={styles.text}>
        {/* Announced once when the load starts; the ticking time is left out of the live region. */}
        <span role="status">Running {loading.label}…</span> <span className={styles.elapsed}>{elapsed}</span>
        {p && percent !== null && <span className={styles.count}> · {formatCount(p.done)} / {formatCount(p.total)} steps</span>}
      </p>
      <div className={styles.row}>
        <div
          className={styles.bar}
          role="progressbar"
          aria-label={`Running ${loading.label}`}
          aria-valuemin={percent === null ? undefined : 0}
          aria-valuemax={percent === null ? undefined : 100}
          aria-valuenow={percent ?? undefined}
          aria-valuetext={valueText}
        >
          {percent === null ? <div className={styles.sweep} /> : <div className={styles.fill} style={{ width: `${percent}%` }} />}
        </div>
        <button type="button" className={styles.cancel} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/** Shows the running load, if any: over the page when a scenario is on screen, else in its place. */
export function LoadProgress({ placement }: { placement: 'overlay' | 'inline' }) {
  const loading = useAppStore((s) => s.loading);
  const cancelLoad = useAppStore((s) => s.cancelLoad);
  if (!loading) return null;
  // Keyed by the load so that a superseding load starts its clock at zero.
  return <LoadCard key={loading.id} loading={loading} placement={placement} onCancel={cancelLoad} />;
}
