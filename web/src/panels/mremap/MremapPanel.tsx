// The mremap panel (issue 7): the old and new ranges of each mremap side by side with their
// PTEs, the mmap_lock and both PTLs (who holds, who waits), each flush with when and why (a
// decision badge per PTE moved in the current extent), the CPUs whose TLB still holds an old
// translation (the stale window), and the findings (stores through a stale entry, lost
// writes) with a button that seeks to their step. IPIs are drawn by the machine view; this
// panel links to it. Everything comes from the frame's `views.mremap` (the engine's
// MremapView at this step), the counter series and the store.
import { useId, useMemo } from 'react';
import { formatCount } from '../../base/format';
import { scrollBehavior } from '../../base/useReducedMotion';
import type { CpuView } from '../../engine/types';
import type { MremapCellView as CellView } from '../../engine/generated/MremapCellView';
import type { MremapLockView as LockView } from '../../engine/generated/MremapLockView';
import type { MremapMoveView } from '../../engine/generated/MremapMoveView';
import type { MremapView } from '../../engine/generated/MremapView';
import { useLaneActions, useRun } from '../../store/context';
import panel from '../Panel.module.css';
import type { MechanismPanelProps } from '../registry';
import { anonStaleExplanation, decisionInfo, findingSteps, phaseText, regimeRule, vpnHex, type Finding } from './mremapModel';
import styles from './MremapPanel.module.css';

/** Counters shown in the panel's header line (the plots and the counters table have them all). */
const HEADLINE = ['mremap_calls', 'mremap_flush_ops', 'mremap_flush_ptl', 'mremap_flush_deferred', 'stale_tlb_stores', 'lost_writes'];

/** CPUs listed in the stale window at most (a big machine has many). */
const STALE_CPUS_SHOWN = 8;

/** Why a lost write happens, in one sentence. */
const LOST_WRITE_WHY =
  'A store through the stale, writable and dirty TLB entry of the old address reached the page after page_mkclean had cleaned it (the rmap walk finds only the new PTE): the page was dropped clean, and the file never got that store.';

/** The machine view's heading: the IPI link scrolls to it. */
const MACHINE_TITLE_ID = 'machine-title';

function showMachineView() {
  document.getElementById(MACHINE_TITLE_ID)?.scrollIntoView({ behavior: scrollBehavior(), block: 'start' });
}

function LockChip({ name, lock }: { name: string; lock: LockView | null }) {
  const held = lock?.holder != null;
  return (
    <div className={held ? `${styles.lock} ${styles.held}` : styles.lock} data-testid={`lock-${name}`}>
      <span className={styles.lockName}>{name}</span>
      <span>{lock === null ? '—' : held ? `held by ${lock.holder} (CPU ${lock.holderCpu})` : 'free'}</span>
      {lock !== null && lock.nrWaiters > 0 && (
        <span className={styles.waiters}>
          waiting: {lock.waiters.join(', ')}
          {lock.nrWaiters > lock.waiters.length ? ` +${lock.nrWaiters - lock.waiters.length}` : ''}
        </span>
      )}
    </div>
  );
}

function kindClass(kind: 'force' | 'deferred' | 'none'): string | undefined {
  return kind === 'force' ? styles.force : kind === 'deferred' ? styles.deferred : styles.noneNeeded;
}

function cellTitle(c: CellView, side: 'old' | 'new'): string {
  const what = c.pages === 1 ? `PTE ${vpnHex(c.vpn)}` : `${c.pages} PTEs from ${vpnHex(c.vpn)}`;
  const parts = [`${what}: ${c.present} present, ${c.dirty} dirty${c.pfn != null ? `, pfn ${c.pfn}` : ''}`];
  if (side === 'old' && c.nrStale > 0) parts.push(`stale in the TLB of CPU ${c.stale.join(', ')}${c.nrStale > c.stale.length ? ` and ${c.nrStale - c.stale.length} more` : ''}`);
  if (c.decision) parts.push(`decision: ${decisionInfo(c.decision).label}`);
  return parts.join('; ');
}

function Cells({ move, side }: { move: MremapMoveView; side: 'old' | 'new' }) {
  const cells = side === 'old' ? move.oldCells : move.newCells;
  const ext = move.extent;
  return (
    <ol className={styles.cells} aria-label={`${side === 'old' ? 'Old' : 'New'} range PTEs`}>
      {cells.map((c, i) => {
        const off = i * move.pagesPerCell;
        const inExtent = ext != null && off < ext.offset + ext.pages && off + c.pages > ext.offset;
        const cls = [styles.cell, c.present === 0 ? styles.empty : c.dirty > 0 ? styles.dirty : styles.present, inExtent ? styles.inExtent : '', side === 'old' && c.nrStale > 0 ? styles.stale : ''].filter(Boolean).join(' ');
        const d = c.decision ? decisionInfo(c.decision) : null;
        return (
          <li key={c.vpn} className={cls} title={cellTitle(c, side)} data-testid={`${side}-cell`}>
            <span className={styles.cellText}>{c.present === 0 ? '·' : c.pfn != null ? c.pfn : `${c.present}/${c.pages}`}</span>
            {c.dirty > 0 && c.present > 0 && <span className={styles.dBit}>D</span>}
            {d && (
              <span className={`${styles.badge} ${kindClass(d.kind)}`} data-testid="decision">
                {d.badge}
              </span>
            )}
            {side === 'old' && c.nrStale > 0 && <span className={styles.staleCpus}>{c.nrStale === 1 ? `CPU ${c.stale[0]}` : `${c.nrStale} CPUs`}</span>}
          </li>
        );
      })}
    </ol>
  );
}

function flushLine(move: MremapMoveView, regime: string): string | null {
  if (!move.active) return null;
  if (move.flushing === 'ptl') return 'Now: flush_tlb_range of this extent, forced under the PTL.';
  if (move.flushing === 'deferred') return 'Now: the deferred flush of the whole old range (every PTL dropped).';
  if (move.extent?.force) return regime === 'present' ? 'A moved PTE forces a flush of this extent: before either PTL is dropped.' : 'A moved PTE forces a flush of this extent: after the new PTL is dropped, before the old one is.';
  if (move.needFlush) return 'need_flush: the old translations stay until one flush of the whole range at the end.';
  return null;
}

function Move({ move, processName, vmaName, regime }: { move: MremapMoveView; processName: string; vmaName: string; regime: string }) {
  const flush = flushLine(move, regime);
  const anon = anonStaleExplanation(regime, move.file);
  const hasStale = move.oldCells.some((c) => c.nrStale > 0);
  return (
    <article className={styles.move} data-testid="mremap-move" data-active={move.active}>
      <h3 className={styles.moveTitle}>
        {processName}: {vmaName} <span className={styles.soft}>({move.file ? 'file' : 'anon'}, {move.pages} pages)</span>
        <span className={styles.phase} data-testid="phase">
          {move.caller ? `${move.caller} on CPU ${move.cpu}: ` : ''}
          {phaseText(move)}
        </span>
      </h3>
      <div className={styles.locks}>
        <LockChip name="mmap_lock" lock={move.mmapLock} />
        <LockChip name="old PTL" lock={move.oldPtl} />
        <LockChip name="new PTL" lock={move.newPtl} />
      </div>
      <div className={styles.ranges}>
        <div className={styles.range}>
          <div className={styles.rangeHead}>old {vpnHex(move.oldStart)}</div>
          <Cells move={move} side="old" />
        </div>
        <div className={styles.arrow} aria-hidden="true">
          →
        </div>
        <div className={styles.range}>
          <div className={styles.rangeHead}>
            new {move.newStart != null ? vpnHex(move.newStart) : '(not chosen yet)'}
            {move.active && move.newStart != null && (
              <span className={styles.soft} data-testid="moved">
                {' '}
                {move.moved}/{move.pages} moved
              </span>
            )}
          </div>
          <Cells move={move} side="new" />
        </div>
      </div>
      {move.pagesPerCell > 1 && (
        <p className={styles.note}>
          {move.pages} pages: each cell stands for {move.pagesPerCell} PTEs (at most 64 cells per range).
        </p>
      )}
      {flush && (
        <p className={styles.flush} data-testid="flush">
          {flush}
        </p>
      )}
      {anon && (move.active || hasStale) && (
        <p className={styles.explain} data-testid="anon-explain">
          {anon}
        </p>
      )}
    </article>
  );
}

function FindingList({ label, findings, onSeek, current }: { label: string; findings: Finding[]; onSeek: (s: number) => void; current: number }) {
  if (findings.length === 0) return null;
  return (
    <li className={styles.finding}>
      <span className={styles.findingLabel}>{label}</span>
      {findings.map((f) => (
        <button key={f.step} type="button" className={f.step === current ? `${panel.smallButton} ${styles.here}` : panel.smallButton} onClick={() => onSeek(f.step)} title={f.exact ? `Go to step ${formatCount(f.step)}` : `It happened by step ${formatCount(f.step)} (the counter is sampled): go there`}>
          {f.exact ? '' : '≤ '}step {formatCount(f.step)}
          {f.count > 1 ? ` (×${f.count})` : ''}
        </button>
      ))}
    </li>
  );
}

function cpuDoing(cpus: readonly CpuView[], id: number): string {
  const c = cpus.find((x) => x.id === id);
  if (!c) return '';
  return c.lazy ? `${c.state} (lazy: no IPI)` : c.state;
}

/** The mremap panel (view `mremap`). */
export function MremapPanel({ mechanism, view }: MechanismPanelProps) {
  const id = useId();
  const frame = useRun((r) => r.frame);
  const summary = useRun((r) => r.summary);
  const series = useRun((r) => r.series);
  const events = useRun((r) => r.events);
  const eventsComplete = useRun((r) => r.eventsComplete);
  const laneActions = useLaneActions();
  const seek = laneActions.seek;
  const lost = useMemo(() => findingSteps(series, 'lost_writes', events, eventsComplete), [series, events, eventsComplete]);
  const staleStores = useMemo(() => findingSteps(series, 'stale_tlb_stores', events, eventsComplete), [series, events, eventsComplete]);
  if (!frame || !summary) return null;
  const state = frame.views[view.id] as MremapView | undefined;
  const regime = state?.regime ?? String(summary.toggles['mremap_flush'] ?? '');
  const onSeek = (s: number) => void seek(s, { history: true });
  const nameOf = (m: MremapMoveView) => {
    const p = summary.processes.find((x) => x.pid === m.pid);
    return { processName: p?.name ?? `pid ${m.pid}`, vmaName: p?.vmas[m.vma]?.name ?? `VMA ${m.vma}` };
  };
  return (
    <section className={`${panel.panel} ${styles.root}`} aria-labelledby={`${id}-title`} data-mechanism={mechanism.id} data-view={view.id}>
      <h2 id={`${id}-title`} className={panel.title}>
        mremap
        <span className={panel.subtitle}>
          <code>mremap_flush = {regime}</code>
          {state && (state.latencyLimit ? ', LATENCY_LIMIT: 64-page extents' : ', PMD-bounded extents')}
        </span>
      </h2>
      <p className={styles.rule} data-testid="regime-rule">
        {regimeRule(regime)}
      </p>
      <p className={styles.counters} data-testid="mremap-counters">
        {HEADLINE.filter((c) => c in frame.counters).map((c) => (
          <span key={c} className={frame.event?.counterDeltas[c] ? styles.changed : undefined}>
            <code>{c}</code> {frame.counters[c]}
          </span>
        ))}
      </p>
      {(lost.length > 0 || staleStores.length > 0) && (
        <ul className={styles.findings} aria-label="Findings">
          <FindingList label="Lost write (detected):" findings={lost} onSeek={onSeek} current={frame.step} />
          <FindingList label="Store through a stale TLB entry:" findings={staleStores} onSeek={onSeek} current={frame.step} />
          {lost.length > 0 && <li className={styles.findingWhy}>{LOST_WRITE_WHY}</li>}
        </ul>
      )}
      {!state && <p className={styles.soft}>No mremap under way, and no VMA an mremap moved is still mapped.</p>}
      {state?.moves.map((m) => (
        <Move key={`${m.pid}/${m.vma}`} move={m} regime={regime} {...nameOf(m)} />
      ))}
      {state && state.hidden > 0 && <p className={styles.note}>{state.hidden} more mremap(s) not drawn (at most 4).</p>}
      {state && (
        <div className={styles.staleBox} data-testid="stale-window">
          <h3 className={styles.moveTitle}>Stale window</h3>
          {state.staleCpus.length === 0 ? (
            <p className={styles.soft}>No CPU's TLB holds an old translation.</p>
          ) : (
            <ul className={styles.staleList}>
              {state.staleCpus.slice(0, STALE_CPUS_SHOWN).map((c) => (
                <li key={c.cpu} data-testid="stale-cpu">
                  <strong>CPU {c.cpu}</strong>: {c.entries} old translation(s)
                  {c.dirty > 0 ? `, ${c.dirty} writable+dirty (a store changes the page without a fault)` : ''}; {cpuDoing(frame.cpus, c.cpu)}
                  {c.ipisPending > 0 ? `; ${c.ipisPending} flush IPI(s) pending` : ''}
                </li>
              ))}
            </ul>
          )}
          {state.staleCpus.length > STALE_CPUS_SHOWN && <p className={styles.note}>{state.staleCpus.length - STALE_CPUS_SHOWN} more CPUs hold old translations (the first {STALE_CPUS_SHOWN} are listed).</p>}
          <button type="button" className={styles.link} onClick={showMachineView}>
            IPIs: see the machine view ↑
          </button>
        </div>
      )}
      <p className={styles.legend}>
        <span className={`${styles.badge} ${styles.force}`}>F</span> flush forced under the PTL · <span className={`${styles.badge} ${styles.deferred}`}>D</span> deferred (need_flush) · <span className={`${styles.badge} ${styles.noneNeeded}`}>–</span> none needed · hatched: still in a CPU's TLB
      </p>
    </section>
  );
}
