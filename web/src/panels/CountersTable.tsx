// Counters: kernel vmstat names as the engine gives them, value, delta of this step, grouped
// by the mechanism that declares them (the engine's metadata), each with its doc as tooltip.
// "Copy as text" keeps the run's own counter order and format (countersText.ts).
import { useId, useMemo, useState } from 'react';
import { formatCount, formatDelta } from '../base/format';
import { groupCounters } from '../base/mechanisms';
import type { CounterInfo, Frame } from '../engine/types';
import { useAppStore } from '../store/context';
import { choiceLabel, toggleValueLabel } from '../store/simSlice';
import { abCountersAsText, countersAsText, percentChange } from './countersText';
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

/** A counter's tooltip: its doc, and whether the kernel has it. */
export function counterTooltip(info: CounterInfo): string | undefined {
  const model = info.kernel ? '' : 'Model only: the kernel has no such counter.';
  const text = [info.doc, model].filter((t) => t !== '').join(' ');
  return text === '' ? undefined : text;
}

/** A, B and B's change against A, grouped like the one-run table; a row is marked when either run moved it this step. */
function AbTable({ groups, a, b, noteId }: { groups: ReturnType<typeof groupCounters>; a: Frame; b: Frame; noteId: string }) {
  const da = a.event?.counterDeltas ?? {};
  const db = b.event?.counterDeltas ?? {};
  return (
    <table className={styles.table} aria-label="Counters of run A and run B">
      <thead>
        <tr>
          <th scope="col">counter</th>
          <th scope="col" className={styles.num}>
            A
          </th>
          <th scope="col" className={styles.num}>
            B
          </th>
          <th scope="col" className={styles.num}>
            B vs A
          </th>
        </tr>
      </thead>
      {groups.map((group) => (
        <tbody key={group.mechanism?.id ?? ''}>
          {groups.length > 1 && (
            <tr className={styles.group}>
              <th scope="colgroup" colSpan={4}>
                {group.mechanism?.title ?? 'Other counters'}
              </th>
            </tr>
          )}
          {group.counters.map((info) => {
            const { name } = info;
            const va = a.counters[name] ?? 0;
            const vb = b.counters[name] ?? 0;
            const moved = (da[name] ?? 0) !== 0 || (db[name] ?? 0) !== 0;
            return (
              <tr key={name} className={moved ? styles.active : undefined}>
                <th scope="row" className={info.kernel ? styles.name : `${styles.name} ${styles.modelOnly}`} title={counterTooltip(info)} aria-describedby={info.kernel ? undefined : noteId}>
                  {name}
                </th>
                <td className={styles.num}>{formatCount(va)}</td>
                <td className={styles.num}>{formatCount(vb)}</td>
                <td className={`${styles.num} ${vb > va ? styles.up : vb < va ? styles.down : ''}`}>{va === vb ? '' : percentChange(va, vb)}</td>
              </tr>
            );
          })}
        </tbody>
      ))}
    </table>
  );
}

/** The counters table with "Copy as text". */
export function CountersTable() {
  const titleId = useId();
  const summary = useAppStore((s) => s.runs.a.summary);
  const frame = useAppStore((s) => s.runs.a.frame);
  const frameB = useAppStore((s) => (s.ab ? s.runs.b.frame : null));
  const choice = useAppStore((s) => s.ab?.choice ?? null);
  const patches = useAppStore((s) => s.patches);
  const overrides = useAppStore((s) => s.toggleOverrides);
  const paramOverrides = useAppStore((s) => s.paramOverrides);
  const comparison = useAppStore((s) => s.comparison);
  const mechanisms = useAppStore((s) => s.mechanisms);
  const [status, setStatus] = useState('');
  const noteId = useId();
  const counterNames = summary?.counterNames;
  const counters = frame?.counters;
  const names = useMemo(() => (counterNames && counterNames.length > 0 ? counterNames : Object.keys(counters ?? {})), [counterNames, counters]);
  const groups = useMemo(() => groupCounters(mechanisms, names), [mechanisms, names]);
  // A/B: the counters either run moves at all (its series ends above 0), so that rows stay put while stepping.
  const seriesA = useAppStore((s) => (s.ab ? s.runs.a.series : null));
  const seriesB = useAppStore((s) => (s.ab ? s.runs.b.series : null));
  const abGroups = useMemo(() => {
    if (!seriesA || !seriesB) return groups;
    const moves = (name: string): boolean => (seriesA.counters[name]?.some((v) => v !== 0) ?? false) || (seriesB.counters[name]?.some((v) => v !== 0) ?? false);
    return groupCounters(mechanisms, names.filter(moves));
  }, [groups, mechanisms, names, seriesA, seriesB]);
  if (!summary || !frame) return null;
  const deltas = frame.event?.counterDeltas ?? {};
  const anyModelOnly = groups.some((g) => g.counters.some((c) => !c.kernel));

  const copy = async (): Promise<void> => {
    const toggles = Object.entries(summary.toggles)
      .filter(([id]) => id in overrides)
      .map(([id, v]) => `${id}=${toggleValueLabel(patches.find((p) => p.id === id), v)}`);
    const params = Object.entries(paramOverrides).map(([k, v]) => `${k}=${v}`);
    const heading = [
      `mmviz: ${summary.id} (${summary.title})`,
      `toggles: ${toggles.length ? toggles.join(', ') : 'defaults'}${params.length ? `; params: ${params.join(', ')}` : ''}`,
    ];
    const text =
      choice && frameB
        ? abCountersAsText({
            heading: [...heading, `A/B: ${choiceLabel(choice, patches)}; A at step ${formatCount(frame.step)}, B at step ${formatCount(frameB.step)}`],
            names,
            a: frame.counters,
            b: frameB.counters,
            labels: ['A', 'B'],
          })
        : countersAsText({
            heading: [
              ...heading,
              `step ${formatCount(frame.step)} / ${formatCount(summary.totalSteps)}`,
              // A reader of the pasted table must know what the run's own warnings say.
              ...summary.warnings.map((w) => `warning: ${w}`),
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
    <section className={panel.panel} aria-labelledby={titleId}>
      <h2 id={titleId} className={panel.title}>
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
          {comparison.fromStep !== comparison.step ? ` (at step ${formatCount(comparison.fromStep)}, the same point of the workload)` : ''}.
        </p>
      )}
      {choice && frameB ? (
        <AbTable groups={abGroups} a={frame} b={frameB} noteId={noteId} />
      ) : (
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
        {groups.map((group) => (
          <tbody key={group.mechanism?.id ?? ''}>
            {/* Only with several groups: one mechanism's heading would say nothing. */}
            {groups.length > 1 && (
              <tr className={styles.group}>
                <th scope="colgroup" colSpan={3}>
                  {group.mechanism?.title ?? 'Other counters'}
                </th>
              </tr>
            )}
            {group.counters.map((info) => {
              const { name } = info;
              const value = frame.counters[name] ?? 0;
              const delta = deltas[name] ?? 0;
              const before = comparison && comparison.step === frame.step ? comparison.counters[name] : undefined;
              const changed = before !== undefined && before !== value;
              return (
                <tr key={name} className={delta !== 0 ? styles.active : undefined}>
                  <th
                    scope="row"
                    className={info.kernel ? styles.name : `${styles.name} ${styles.modelOnly}`}
                    title={counterTooltip(info)}
                    aria-describedby={info.kernel ? undefined : noteId}
                  >
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
        ))}
      </table>
      )}
      {anyModelOnly && (
        <p id={noteId} className={styles.note}>
          <span className={styles.modelOnly}>Slanted</span> names: counters of the model only, not in the kernel’s /proc/vmstat.
        </p>
      )}
    </section>
  );
}
