// Counters: kernel vmstat names as the engine gives them, value, delta of this step.
import { useState } from 'react';
import { formatCount, formatDelta } from '../base/format';
import { useAppStore } from '../store/context';
import { toggleValueLabel } from '../store/simSlice';
import { countersAsText } from './countersText';
import styles from './CountersTable.module.css';
import panel from './Panel.module.css';

/** Copies text to the clipboard, falling back to a hidden textarea. */
async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    if (!ok) throw new Error('copy refused');
  }
}

/** The counters table with "Copy as text". */
export function CountersTable() {
  const summary = useAppStore((s) => s.summary);
  const frame = useAppStore((s) => s.frame);
  const patches = useAppStore((s) => s.patches);
  const overrides = useAppStore((s) => s.toggleOverrides);
  const paramOverrides = useAppStore((s) => s.paramOverrides);
  const comparison = useAppStore((s) => s.comparison);
  const [status, setStatus] = useState('');
  if (!summary || !frame) return null;
  const deltas = frame.event?.counterDeltas ?? {};
  const names = summary.counterNames.length > 0 ? summary.counterNames : Object.keys(frame.counters);

  const copy = async (): Promise<void> => {
    const toggles = Object.entries(summary.toggles)
      .filter(([id]) => id in overrides)
      .map(([id, v]) => `${id}=${toggleValueLabel(patches.find((p) => p.id === id), v)}`);
    const params = Object.entries(paramOverrides).map(([k, v]) => `${k}=${v}`);
    const text = countersAsText({
      heading: [
        `mmviz: ${summary.id} (${summary.title})`,
        `toggles: ${toggles.length ? toggles.join(', ') : 'defaults'}${params.length ? `; params: ${params.join(', ')}` : ''}`,
        `step ${frame.step} / ${summary.totalSteps}`,
      ],
      names,
      values: frame.counters,
      deltas,
    });
    try {
      await copyText(text);
      setStatus('Copied');
    } catch {
      setStatus('Copy failed');
    }
    setTimeout(() => setStatus(''), 2500);
  };

  return (
    <section className={panel.panel} aria-labelledby="counters-title">
      <h2 id="counters-title" className={panel.title}>
        Counters <span className={panel.subtitle}>/proc/vmstat</span>
        <button type="button" className={panel.smallButton} onClick={() => void copy()}>
          Copy as text
        </button>
        <span role="status" className={panel.subtitle}>
          {status}
        </span>
      </h2>
      {comparison && comparison.step === frame.step && (
        <p className={styles.comparison}>
          Rebuilt with <code>{comparison.reason}</code>: “was” shows the value before the change
          {comparison.fromStep !== comparison.step ? ` (at step ${comparison.fromStep}, past the new end)` : ''}.
        </p>
      )}
      <table className={styles.table}>
        <thead>
          <tr>
            <th scope="col">counter</th>
            <th scope="col" className={styles.num}>
              value
            </th>
            <th scope="col" className={styles.num}>
              this step
            </th>
          </tr>
        </thead>
        <tbody>
          {names.map((name) => {
            const value = frame.counters[name] ?? 0;
            const delta = deltas[name] ?? 0;
            const before = comparison && comparison.step === frame.step ? comparison.counters[name] : undefined;
            const changed = before !== undefined && before !== value;
            return (
              <tr key={name} className={delta !== 0 ? styles.active : undefined}>
                <th scope="row" className={styles.name}>
                  {name}
                </th>
                <td className={styles.num}>
                  {formatCount(value)}
                  {changed && <span className={styles.was}> (was {formatCount(before)})</span>}
                </td>
                <td className={`${styles.num} ${delta > 0 ? styles.up : delta < 0 ? styles.down : ''}`}>{formatDelta(delta)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
