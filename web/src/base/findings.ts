// A run's findings, derived from the run itself: the events whose counter deltas count one
// (the engine's `explore::FINDINGS`): a lost write (`lost_writes`: a dropped page held data the
// file never got; `latent_lost_writes`: the run ends with such a page; `tlb_old_frame_stores`:
// a store through a stale TLB entry to a frame the page table replaced), a use after free, a
// stale read, a store into a page under migration, a TLB entry that outlived a flush, or a
// store through a stale TLB entry (`stale_tlb_stores`). The interleaving explorer reports all
// but the last as bad outcomes; the lab marks them on the scrubber of any run that has them,
// so a link reopened in a fresh browser shows the same marks with nothing extra in the URL.
//
// The whole-run counter series says between which sampled steps a finding counter grew; only
// the events there are read, so a long run costs a few small reads, not all its events.
import type { SimHandle } from '../engine/engine';
import type { CounterSeries, SimEvent } from '../engine/types';

/** The counters that make an event a finding, with what to call it. */
export const FINDING_COUNTERS: Readonly<Record<string, string>> = {
  lost_writes: 'Lost write',
  latent_lost_writes: 'Lost write (the run ends with it: a clean page holds data the file never got)',
  tlb_old_frame_stores: 'Lost write (store to a replaced frame)',
  tlb_use_after_free: 'Use after free through a TLB entry',
  tlb_stale_reads: 'Stale read',
  migration_stale_stores: 'Store into a page under migration',
  tlb_flush_outlived: 'TLB entry outlived its flush',
  stale_tlb_stores: 'Store through a stale TLB entry',
};

/** Most findings read per run (each is marked; the note lists the first few). */
export const MAX_FINDINGS = 64;

/** One finding of a run: the event at `step` whose deltas count it. */
export interface RunFinding {
  /** The event's step (the frame after it, `step + 1`, shows it done). */
  step: number;
  /** The counter it moved (a key of FINDING_COUNTERS). */
  counter: string;
  /** What it is, for people. */
  label: string;
  /** How many it counts (the delta). */
  count: number;
  cpu: number;
  task: string;
  kind: string;
  function: string;
  narration: string;
  /** For a use of a stale TLB entry: the steps that set it up (the walk that cached the entry, the other CPU's last step on that PTE), as the explorer names them. */
  related: RelatedStep[];
}

/** A step a finding involves besides its own. */
export interface RelatedStep {
  step: number;
  /** What happened there, for people, short. */
  what: string;
  /** The same with the kernel function. */
  detail: string;
}

/** Counters that count a use of a TLB entry (the event is the access, it names the PTE). */
const TLB_USES: ReadonlySet<string> = new Set(['tlb_old_frame_stores', 'tlb_use_after_free', 'tlb_stale_reads', 'migration_stale_stores', 'tlb_flush_outlived', 'stale_tlb_stores']);

/** How far back a finding's walk is looked for (steps). */
export const RELATED_LOOKBACK = 5000;

/** Findings whose related steps are looked for (the first ones; each reads up to RELATED_LOOKBACK events). */
export const RELATED_MAX = 8;

/** Steps [from, to) whose events moved a finding counter, merged and in order, from the run's series. */
export function findingWindows(series: CounterSeries | null): { from: number; to: number }[] {
  if (!series) return [];
  const windows: { from: number; to: number }[] = [];
  for (const name of Object.keys(FINDING_COUNTERS)) {
    const values = series.counters[name];
    if (!values) continue;
    let prevStep = 0;
    let prevValue = 0;
    series.steps.forEach((step, i) => {
      const value = values[i] ?? prevValue;
      if (value > prevValue) windows.push({ from: prevStep, to: Math.max(step, prevStep + 1) });
      prevStep = step;
      prevValue = value;
    });
  }
  windows.sort((a, b) => a.from - b.from);
  const merged: { from: number; to: number }[] = [];
  for (const w of windows) {
    const last = merged[merged.length - 1];
    if (last && w.from <= last.to) last.to = Math.max(last.to, w.to);
    else merged.push({ ...w });
  }
  return merged;
}

/** The findings among `events`, in step order. */
export function findingsIn(events: readonly SimEvent[]): RunFinding[] {
  const out: RunFinding[] = [];
  for (const e of events) {
    for (const [counter, label] of Object.entries(FINDING_COUNTERS)) {
      const count = e.counterDeltas[counter] ?? 0;
      if (count > 0) out.push({ step: e.step, counter, label, count, cpu: e.cpu, task: e.task, kind: e.kind, function: e.function, narration: e.narration, related: [] });
    }
  }
  return out.sort((a, b) => a.step - b.step);
}

/**
 * The steps before `use` (an access through a TLB entry, at the end of `before`) that set it up, the
 * way the engine's explorer names them (`explore.rs` `involved`): the same CPU's last page walk of
 * that PTE (it cached the entry) and, after it, the last step of another CPU on that PTE.
 */
export function relatedSteps(use: SimEvent, before: readonly SimEvent[]): RelatedStep[] {
  const pte = use.touched.ptes[0];
  if (!pte || use.kind !== 'access') return [];
  const on = (e: SimEvent) => e.touched.ptes.some(([pid, vpn]) => pid === pte[0] && vpn === pte[1]);
  const earlier = before.filter((e) => e.step < use.step);
  let walk = -1;
  for (let i = earlier.length - 1; i >= 0; i--) {
    const e = earlier[i]!;
    if (e.cpu === use.cpu && e.kind === 'page_walk' && on(e)) {
      walk = i;
      break;
    }
  }
  if (walk < 0) return [];
  const out: RelatedStep[] = [{ step: earlier[walk]!.step, what: `CPU ${use.cpu} cached it`, detail: `CPU ${use.cpu}'s page walk cached the TLB entry` }];
  for (let i = earlier.length - 1; i > walk; i--) {
    const e = earlier[i]!;
    if (e.cpu !== use.cpu && on(e)) {
      out.push({ step: e.step, what: `CPU ${e.cpu} changed the PTE`, detail: `CPU ${e.cpu} changed the PTE in ${e.function}` });
      break;
    }
  }
  return out;
}

/** Reads a run's findings: the events of the windows where its series says a finding counter grew (and, for a use of a stale TLB entry, the steps before it that set it up). */
export async function readFindings(sim: SimHandle, series: CounterSeries | null, max = MAX_FINDINGS): Promise<RunFinding[]> {
  const out: RunFinding[] = [];
  for (const w of findingWindows(series)) {
    if (out.length >= max) break;
    out.push(...findingsIn(await sim.events(w.from, w.to)));
  }
  const kept = out.slice(0, max);
  let looked = 0;
  for (const f of kept) {
    if (!TLB_USES.has(f.counter) || f.kind !== 'access') continue;
    if (looked++ >= RELATED_MAX) break;
    const from = Math.max(0, f.step - RELATED_LOOKBACK);
    const events = await sim.events(from, f.step + 1);
    const use = events.find((e) => e.step === f.step);
    if (use) f.related = relatedSteps(use, events);
  }
  return kept;
}
