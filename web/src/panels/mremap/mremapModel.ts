// The mremap panel's logic, kept pure for tests: what each decision badge says, when a regime
// flushes, where the findings (stale stores, lost writes) happened, and the words that
// explain why a stale store to an anonymous page still lands.
import type { CounterSeries, SimEvent } from '../../engine/types';
import type { MremapMoveView } from '../../engine/generated/MremapMoveView';

/** A `move_ptes` decision as the badge shows it. */
export interface DecisionInfo {
  /** One or two letters on the badge. */
  badge: string;
  /** Words for the tooltip and the legend. */
  label: string;
  /** It forces a flush of the extent under the PTL (else the deferred flush covers it, or nothing is needed). */
  kind: 'force' | 'deferred' | 'none';
}

const DECISIONS: Readonly<Record<string, DecisionInfo>> = {
  deferred: { badge: 'D', label: 'deferred: move_ptes never flushes (v4.8)', kind: 'deferred' },
  'not-dirty': { badge: 'D', label: 'not dirty: left to need_flush (deferred)', kind: 'deferred' },
  'not-present': { badge: '–', label: 'not present: no flush needed', kind: 'none' },
  'force-dirty': { badge: 'F', label: 'present and dirty: flush under the old PTL', kind: 'force' },
  'force-present': { badge: 'F', label: 'present: flush before either PTL drops', kind: 'force' },
  'force-file': { badge: 'F', label: 'dirty file page: flush under the old PTL', kind: 'force' },
  'force-locked': { badge: 'F', label: 'dirty anon page, trylock_page failed: flush under the old PTL', kind: 'force' },
  'force-swapcache': { badge: 'F', label: 'dirty anon page in the swap cache: flush under the old PTL', kind: 'force' },
  'anon-not-swapcache': { badge: 'D', label: 'dirty anon page, not in the swap cache: deferred', kind: 'deferred' },
};

/** The badge of decision `id` (the engine's `Decision`), or a neutral one for an unknown id. */
export function decisionInfo(id: string): DecisionInfo {
  return DECISIONS[id] ?? { badge: '?', label: id, kind: 'none' };
}

/** When regime `regime` (`mremap_flush`) flushes the old translations, in one line. */
export function regimeRule(regime: string): string {
  switch (regime) {
    case 'deferred':
      return 'v4.8: one flush of the whole old range after every PTL is dropped';
    case 'dirty':
      return 'v4.9–v4.18: an extent with a present, dirty PTE is flushed before its old PTL drops';
    case 'dirty_file_or_swapcache':
      return '2018 proposal: only dirty file, locked or swap-cache pages force a flush under the PTL';
    case 'present':
      return 'v4.19+: an extent with any present PTE is flushed before either PTL drops';
    default:
      return regime;
  }
}

/** What the call is doing, in words. */
export function phaseText(move: Pick<MremapMoveView, 'phase' | 'flushing' | 'active'>): string {
  if (!move.active) return 'done';
  switch (move.phase) {
    case 'mmap_lock':
      return 'waiting for mmap_lock (write)';
    case 'locked':
      return 'mmap_lock taken (write): move_vma next';
    case 'copy_vma':
      return 'move_vma: copy_vma';
    case 'move_page_tables':
      return 'move_page_tables';
    case 'move_ptes':
      return 'move_ptes (under the PTLs)';
    case 'flush':
      return move.flushing === 'ptl' ? 'flush_tlb_range under the PTL' : 'deferred flush_tlb_range';
    case 'do_munmap':
      return 'do_munmap of the old range';
    case 'return':
      return 'returning (up_write mmap_lock)';
    default:
      return move.phase;
  }
}

/** Where a counter went up: the frame step that first shows it, exact when `exact`, else the last step of the sample interval it went up in. */
export interface Finding {
  step: number;
  exact: boolean;
  /** How much it went up there. */
  count: number;
}

/**
 * Steps at which `counter` goes up over the whole run. Exact steps come from the loaded events
 * (`kind` names the event that counts it) when they cover the run; otherwise from the counter
 * series, whose samples may be several steps apart (then `exact` is false).
 */
export function findingSteps(
  series: CounterSeries | null,
  counter: string,
  events: readonly SimEvent[] = [],
  eventsComplete = false,
  limit = 8,
): Finding[] {
  if (eventsComplete && events.length > 0) {
    const out: Finding[] = [];
    for (const e of events) {
      const d = e.counterDeltas[counter] ?? 0;
      // The frame after event `e` is frame `e.step + 1`: the first to show the counter up.
      if (d > 0) out.push({ step: e.step + 1, exact: true, count: d });
      if (out.length >= limit) break;
    }
    return out;
  }
  const values = series?.counters[counter];
  if (!series || !values) return [];
  const out: Finding[] = [];
  let prev = 0;
  for (let i = 0; i < values.length && out.length < limit; i++) {
    const v = values[i] ?? 0;
    if (v > prev) {
      const step = series.steps[i] ?? 0;
      const before = i > 0 ? (series.steps[i - 1] ?? 0) : -1;
      out.push({ step, exact: step - before <= 1, count: v - prev });
    }
    prev = v;
  }
  return out;
}

/**
 * Why a store through a stale entry for an anonymous page is harmless under the 2018 rule, or
 * null when the move is not that case (a file page, or another regime).
 */
export function anonStaleExplanation(regime: string, file: boolean): string | null {
  if (regime !== 'dirty_file_or_swapcache' || file) return null;
  return (
    'Anonymous page outside the swap cache: its flush is deferred, so a CPU may still store through the old address. ' +
    'The store lands in the same physical page, now mapped at the new address: no writeback cleans an anonymous page, ' +
    'and the frame is not freed before the deferred flush (it stays mapped, and mremap holds mmap_lock). Nothing is lost.'
  );
}

/** A short hex vpn, e.g. 0x7f000. */
export function vpnHex(vpn: number): string {
  return `0x${vpn.toString(16)}`;
}
