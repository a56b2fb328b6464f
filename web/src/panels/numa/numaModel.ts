// Pure maths of the NUMA balancing panel: a VMA's bar (bins to cells, the scan offset and
// the chunk in flight to positions), the IPI fan-out of a shootdown (which CPUs of the
// process's mm_cpumask get an IPI, which are lazy and do not), the shootdown causes stacked
// over time from the counter series, and the words for a hint fault's decision and outcome.
// Tested without a DOM; NumaPanel.tsx only draws what these return.
import type { CpuView, IpiView } from '../../engine/types';
import type { HintFaultView } from '../../engine/generated/HintFaultView';
import type { ScanVmaView } from '../../engine/generated/ScanVmaView';

/** A cell of a VMA's bar: the pages it stands for and what they are. */
export interface BarCell {
  /** First page (vpn) of the cell. */
  vpn: number;
  /** Pages in the cell. */
  pages: number;
  /** PROT_NONE PTEs (marked, not yet faulted). */
  protnone: number;
  /** Present PTEs. */
  present: number;
  /** Migration entries (the page is being migrated). */
  migrating: number;
  /** The rest: no PTE. */
  empty: number;
}

/** The cells of a VMA's bar, one per engine bin. */
export function barCells(vma: ScanVmaView): BarCell[] {
  return vma.protnone.map((protnone, i) => {
    const vpn = vma.startVpn + i * vma.binPages;
    const pages = Math.max(0, Math.min(vma.binPages, vma.startVpn + vma.pages - vpn));
    const present = vma.present[i] ?? 0;
    const migrating = vma.migrating[i] ?? 0;
    return { vpn, pages, protnone, present, migrating, empty: Math.max(0, pages - protnone - present - migrating) };
  });
}

/** The fraction [0, 1] of the VMA's length at which page `vpn` lies (clamped); null when `vpn` is outside the VMA (or at its end). */
export function vpnToFraction(vma: Pick<ScanVmaView, 'startVpn' | 'pages'>, vpn: number): number | null {
  if (vma.pages <= 0 || vpn < vma.startVpn || vpn >= vma.startVpn + vma.pages) return null;
  return (vpn - vma.startVpn) / vma.pages;
}

/** The span [from, to] (fractions of the VMA) of pages [startVpn, startVpn + pages) inside the VMA, or null when they do not overlap. */
export function spanFraction(vma: Pick<ScanVmaView, 'startVpn' | 'pages'>, startVpn: number, pages: number): [number, number] | null {
  const lo = Math.max(startVpn, vma.startVpn);
  const hi = Math.min(startVpn + pages, vma.startVpn + vma.pages);
  if (hi <= lo || vma.pages <= 0) return null;
  return [(lo - vma.startVpn) / vma.pages, (hi - vma.startVpn) / vma.pages];
}

/** What a CPU of the process's mask is at a shootdown. */
export type FanoutRole = 'sender' | 'ipi' | 'lazy' | 'running';

/** One CPU of the fan-out. */
export interface FanoutCpu {
  cpu: number;
  role: FanoutRole;
}

/**
 * The fan-out of a shootdown sent by CPU `from` to the mm of process `pid`: every CPU of its
 * mm_cpumask with its role. `targets` are the CPUs that get (or still wait for) an IPI; a
 * CPU of the mask in lazy TLB mode gets none ("lazy"); any other is "running" (e.g. one
 * already acknowledged). CPUs outside the mask that got an IPI are listed too.
 */
export function fanout(from: number, targets: readonly number[], mask: readonly number[], cpus: readonly Pick<CpuView, 'id' | 'lazy'>[]): FanoutCpu[] {
  const lazy = new Set(cpus.filter((c) => c.lazy).map((c) => c.id));
  const hit = new Set(targets);
  const all = [...new Set([...mask, ...targets, from])].sort((a, b) => a - b);
  return all.map((cpu) => ({
    cpu,
    role: cpu === from ? 'sender' : hit.has(cpu) ? 'ipi' : lazy.has(cpu) ? 'lazy' : 'running',
  }));
}

/** The IPIs sent at this step (a frame's `ipis` of phase "sent"), grouped by sender: sender → targets. */
export function sentBySender(ipis: readonly IpiView[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const i of ipis) {
    if (i.phase !== 'sent') continue;
    const list = out.get(i.from) ?? [];
    list.push(i.to);
    out.set(i.from, list);
  }
  return out;
}

/** The shootdown causes stacked in the plot, bottom first: the counter each reads (null: the rest of irq_tlb_count). */
export const CAUSES: readonly { key: string; label: string; counter: string | null }[] = [
  { key: 'scan', label: 'scanner flush', counter: 'tlb_ipi_numa_scan' },
  { key: 'mapped', label: 'mapped by do_numa_page (v5.12)', counter: 'tlb_ipi_numa_mapped' },
  { key: 'race', label: 'racing thread', counter: 'tlb_ipi_numa_race' },
  { key: 'pending', label: 'pending scan flush', counter: 'tlb_ipi_numa_pending' },
  { key: 'other', label: 'other (tlb_ipi_other)', counter: null },
];

/** Per cause, per sample: the cumulative IPIs of that cause; "other" is irq_tlb_count minus the named causes, at least 0. */
export function causeSeries(counters: Readonly<Record<string, readonly number[]>>, samples: number): Record<string, number[]> {
  const at = (name: string, i: number) => counters[name]?.[i] ?? 0;
  const out: Record<string, number[]> = {};
  for (const c of CAUSES) out[c.key] = [];
  for (let i = 0; i < samples; i++) {
    let named = 0;
    for (const c of CAUSES) {
      if (c.counter === null) continue;
      const v = at(c.counter, i);
      named += v;
      (out[c.key] as number[]).push(v);
    }
    (out.other as number[]).push(Math.max(0, at('irq_tlb_count', i) - named));
  }
  return out;
}

/** The stack of `causeSeries`: per cause, per sample, [bottom, top]. */
export function stackCauses(series: Readonly<Record<string, readonly number[]>>, samples: number): Record<string, [number, number][]> {
  const out: Record<string, [number, number][]> = {};
  const base = new Array<number>(samples).fill(0);
  for (const c of CAUSES) {
    out[c.key] = base.map((b, i) => {
      const top = b + (series[c.key]?.[i] ?? 0);
      base[i] = top;
      return [b, top];
    });
  }
  return out;
}

/** The outcome of a hint fault in a few words. */
export function outcomeText(f: Pick<HintFaultView, 'outcome' | 'target' | 'failReason' | 'pageNid' | 'inFunction'>): string {
  switch (f.outcome) {
    case 'migrated':
      return `migrated to node ${f.target ?? '?'}`;
    case 'stay':
      return `stays on node ${f.pageNid} (the filter waits)`;
    case 'local':
      return `stays: already on node ${f.pageNid}, the faulting CPU's node`;
    case 'failed':
      return `migration failed: ${f.failReason}`;
    default:
      return f.target !== null ? `migrating to node ${f.target}${f.inFunction ? ` (in ${f.inFunction})` : ''}` : 'deciding';
  }
}

/** The decision of `should_numa_migrate_memory` in a few words. */
export function decisionText(f: Pick<HintFaultView, 'rule' | 'filterMigrate' | 'target' | 'pageNid' | 'cpuNid'>): string {
  if (f.rule === '') return 'not decided yet';
  if (!f.filterMigrate) return 'do not migrate (yet)';
  if (f.pageNid === f.cpuNid) return 'migrate, but the page is already local: nothing to do';
  return `migrate to node ${f.target ?? f.cpuNid}`;
}

/** A label for a filter branch. */
export const RULE_LABEL: Readonly<Record<string, string>> = {
  early: 'early-lifetime shortcut',
  'two-stage': 'first stage: two-stage filter waits',
  private: 'second stage: private fault',
  shared: 'second stage: shared fault, no numa_group',
  'group-busier': "second stage: shared fault, the numa_group's CPUs are mostly on this node",
  'group-hysteresis': 'second stage: shared fault, numa_group CPU vs memory faults (3/4 hysteresis)',
};

/** The shootdown cause label used in the fan-out box. */
export const CAUSE_LABEL: Readonly<Record<string, string>> = {
  scan: "the scanner's own range flush (change_prot_numa)",
  mapped: 'a migration unmapping the PTE do_numa_page made present (v5.12 flow)',
  race: 'a migration unmapping a PTE another thread made present meanwhile (the race)',
  pending: 'a migration unmapping a PROT_NONE PTE while a scan flush is pending',
  migrate: 'a migration unmap',
  other: 'not NUMA balancing',
};

/** "in 1.2 ms" / "1.2 ms ago" / "not set" for the next scan time relative to now (ns). */
export function nextScanText(nextNs: number, nowNs: number): string {
  if (nextNs === 0) return 'not set yet';
  const ms = (nextNs - nowNs) / 1e6;
  const abs = Math.abs(ms);
  const s = abs >= 100 ? abs.toFixed(0) : abs >= 10 ? abs.toFixed(1) : abs.toFixed(2);
  return ms >= 0 ? `in ${s} ms` : `due (${s} ms ago)`;
}

/** At most `max` CPUs of a fan-out, the sender and the IPI targets first (each group in CPU order), and how many of each role are left out. */
export function capFanout(cpus: readonly FanoutCpu[], max: number): { shown: FanoutCpu[]; hidden: Partial<Record<FanoutRole, number>> } {
  const rank: Record<FanoutRole, number> = { sender: 0, ipi: 1, lazy: 2, running: 3 };
  const ordered = [...cpus].sort((a, b) => rank[a.role] - rank[b.role] || a.cpu - b.cpu);
  const kept = new Set(ordered.slice(0, Math.max(0, max)).map((c) => c.cpu));
  const hidden: Partial<Record<FanoutRole, number>> = {};
  for (const c of ordered.slice(Math.max(0, max))) hidden[c.role] = (hidden[c.role] ?? 0) + 1;
  return { shown: cpus.filter((c) => kept.has(c.cpu)), hidden };
}
