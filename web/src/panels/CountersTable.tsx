// Counters: kernel vmstat names as the engine gives them, value, delta of this step, grouped
// by the mechanism that declares them (the engine's metadata), each with its doc as tooltip.
// "Copy as text" keeps the run's own counter order and format (countersText.ts). With two
// /proc/vmstat snapshots pasted in "Measured…", a column beside shows how much the counters of
// the same names moved on that real machine (per second when the interval was given).
import { useId, useMemo, useState } from 'react';
import { formatCount, formatDelta } from '../base/format';
import { groupCounters } from '../base/mechanisms';
import type { CounterInfo, Frame } from '../engine/types';
import type { Reality } from '../store/types';
import { useAppStore, useAppStoreApi } from '../store/context';
import { percentChange, runReportText } from './countersText';
import { reportAbout } from './reportAbout';
import { currentLink } from '../share/useUrlSync';
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

/**
 * A counter's name that may wrap only after an underscore, between its words (`numa_hint_` /
 * `faults_local`), never inside one: a `<wbr>` after each `_`, and the CSS breaks nowhere else.
 * Its cell carries the name as `aria-label` too, so that no accessible-name computation puts
 * spaces between the pieces.
 */
export function CounterName({ name }: { name: string }) {
  const parts = name.split('_');
  return (
    <>
      {parts.map((p, i) => (
        <span key={i}>
          {p}
          {i < parts.length - 1 && (
            <>
              _<wbr />
            </>
          )}
        </span>
      ))}
    </>
  );
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
                <th
                  scope="row"
                  className={info.kernel ? styles.name : `${styles.name} ${styles.modelOnly}`}
                  title={counterTooltip(info)}
                  aria-label={name}
                  aria-describedby={info.kernel ? undefined : noteId}
                >
                  <CounterName name={name} />
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

/** A real machine's change of counter `name` as shown (total, or per second with an interval); null when that machine has no such counter. */
export function realityCell(reality: Reality, name: string): string | null {
  const c = reality.delta.changes.find((x) => x.name === name);
  if (!c) return null;
  if (reality.intervalS === null) return c.delta === 0 ? '0' : formatDelta(c.delta);
  const rate = c.delta / reality.intervalS;
  const text = Math.abs(rate) >= 100 || rate === 0 ? formatCount(Math.round(Math.abs(rate))) : Math.abs(rate).toFixed(1);
  return `${rate < 0 ? '−' : rate > 0 ? '+' : ''}${text}/s`;
}

/** The counters table with "Copy as text". */
export function CountersTable() {
  const titleId = useId();
  const store = useAppStoreApi();
  const summary = useAppStore((s) => s.runs.a.summary);
  const frame = useAppStore((s) => s.runs.a.frame);
  const frameB = useAppStore((s) => (s.ab ? s.runs.b.frame : null));
  const choice = useAppStore((s) => s.ab?.choice ?? null);
  const patches = useAppStore((s) => s.patches);
  const overrides = useAppStore((s) => s.toggleOverrides);
  const paramOverrides = useAppStore((s) => s.paramOverrides);
  const comparison = useAppStore((s) => s.comparison);
  const mechanisms = useAppStore((s) => s.mechanisms);
  const reality = useAppStore((s) => s.reality);
  const [status, setStatus] = useState('');
  const noteId = useId();
  const realityId = useId();
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
    const summaryB = store.getState().runs.b.summary;
    const text = runReportText({
      about: reportAbout({ summary, frame, frameB: choice ? frameB : null, choice, patches, overrides, paramOverrides }),
      counters:
        choice && frameB
          ? { kind: 'ab', names, a: frame.counters, b: frameB.counters }
          : { kind: 'one', names, values: frame.counters, deltas },
      link: currentLink(store),
      toggles: Object.entries(summary.toggles).map(([id, a]) => {
        const patch = patches.find((p) => p.id === id);
        const b = choice && summaryB ? summaryB.toggles[id] : undefined;
        return { id, a, ...(b === undefined ? {} : { b }), commit: patch?.commit ?? 'unknown', version: patch?.version ?? '' };
      }),
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
      {/* Scrolls sideways only where a name's longest word and the numbers cannot fit (a very narrow panel or a large zoom). */}
      <div className={styles.scroll}>
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
            {reality && (
              <th scope="col" className={`${styles.num} ${styles.reality}`} aria-describedby={realityId} title="Measured on your machine (two /proc/vmstat snapshots you pasted), not simulated">
                your machine{reality.intervalS !== null ? ' /s' : ' Δ'}
              </th>
            )}
          </tr>
        </thead>
        {groups.map((group) => (
          <tbody key={group.mechanism?.id ?? ''}>
            {/* Only with several groups: one mechanism's heading would say nothing. */}
            {groups.length > 1 && (
              <tr className={styles.group}>
                <th scope="colgroup" colSpan={reality ? 4 : 3}>
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
                    aria-label={name}
                    aria-describedby={info.kernel ? undefined : noteId}
                  >
                    <CounterName name={name} />
                  </th>
                  <td className={styles.num}>
                    {formatCount(value)}
                    {changed && <span className={styles.was}> (was {formatCount(before)})</span>}
                  </td>
                  <td className={`${styles.num} ${delta > 0 ? styles.up : delta < 0 ? styles.down : ''}`}>{formatDelta(delta)}</td>
                  {reality && <td className={`${styles.num} ${styles.reality}`}>{realityCell(reality, name) ?? ''}</td>}
                </tr>
              );
            })}
          </tbody>
        ))}
      </table>
      )}
      </div>
      {reality && (
        <p id={realityId} className={styles.realityNote} data-testid="reality-note">
          <strong>Your machine</strong>: how much each counter moved between the two <code>/proc/vmstat</code> snapshots pasted in Measured…
          {reality.intervalS !== null ? `, per second over ${reality.intervalS} s` : ''}. A measurement of that machine, not of the model; only counters both have (
          {names.filter((n) => realityCell(reality, n) !== null).length} here){choice && frameB ? '; not shown in an A/B comparison' : ''}.
        </p>
      )}
      {anyModelOnly && (
        <p id={noteId} className={styles.note}>
          <span className={styles.modelOnly}>Slanted</span> names: counters of the model only, not in the kernel’s /proc/vmstat.
        </p>
      )}
    </section>
  );
}
