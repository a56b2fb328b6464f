// The load in progress: what runs, for how long, how far and a Cancel button.
// The engine prepares a run in slices and reports the steps prepared so far;
// how many steps the run has is known only at the end. When the same run was
// prepared before in this session its step count is the estimate and the bar
// fills; otherwise the bar is indeterminate and the step count counts up.
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
  const total = p?.total ?? loading.expectedTotal;
  // An estimate can be off by a few steps: the bar stops short of full until the run is done.
  const percent = p && total !== null && total > 0 ? Math.min(p.total === null ? 99 : 100, Math.floor((100 * p.done) / total)) : null;
  const prepared = p ? `${formatCount(p.done)} steps prepared` : null;
  const valueText =
    percent === null || !p || total === null
      ? [prepared, `${elapsed} elapsed`].filter(Boolean).join(', ')
      : `${percent}%: ${formatCount(p.done)} of ${p.total === null ? 'about ' : ''}${formatCount(total)} steps, ${elapsed} elapsed`;
  return (
    <section className={placement === 'overlay' ? styles.overlay : styles.inline} aria-label="Loading">
      <p className={styles.text}>
        {/* Announced once when the load starts; the ticking time is left out of the live region. */}
        <span role="status">Running {loading.label}…</span> <span className={styles.elapsed}>{elapsed}</span>
        {p && (
          <span className={styles.count}>
            {' '}
            · {formatCount(p.done)}
            {percent !== null && total !== null ? ` / ${p.total === null ? '~' : ''}${formatCount(total)}` : ''} steps prepared
          </span>
        )}
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
