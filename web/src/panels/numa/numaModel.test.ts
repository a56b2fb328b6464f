import { describe, expect, it } from 'vitest';
import type { HintFaultView } from '../../engine/generated/HintFaultView';
import type { ScanVmaView } from '../../engine/generated/ScanVmaView';
import { barCells, capFanout, causeSeries, decisionText, fanout, nextScanText, outcomeText, sentBySender, spanFraction, stackCauses, vpnToFraction } from './numaModel';

const VMA: ScanVmaView = { index: 0, startVpn: 0x100, pages: 10, file: false, binPages: 4, protnone: [2, 0, 1], present: [1, 4, 0], migrating: [1, 0, 0] };

function fault(over: Partial<HintFaultView>): HintFaultView {
  return {
    task: '1/1', pid: 1, inProgress: true, inFunction: 'migrate_misplaced_page', step: 10, cpu: 1, vpn: 0x100, pfn: 3, pageNid: 0, cpuNid: 1,
    lastCpupid: 'unset', lastNid: null, rule: 'early', filterMigrate: true, reason: 'r', target: 1, outcome: 'pending', failReason: '', unmapIpis: 0, unmapCause: '',
    ...over,
  };
}

describe('VMA bar cells', () => {
  it('one cell per bin, the last one shorter, the rest of each cell empty', () => {
    expect(barCells(VMA)).toEqual([
      { vpn: 0x100, pages: 4, protnone: 2, present: 1, migrating: 1, empty: 0 },
      { vpn: 0x104, pages: 4, protnone: 0, present: 4, migrating: 0, empty: 0 },
      { vpn: 0x108, pages: 2, protnone: 1, present: 0, migrating: 0, empty: 1 },
    ]);
  });
  it('places pages and spans as fractions of the VMA, null outside it', () => {
    expect(vpnToFraction(VMA, 0x105)).toBeCloseTo(0.5);
    expect(vpnToFraction(VMA, 0x10a)).toBeNull();
    expect(vpnToFraction(VMA, 0xff)).toBeNull();
    expect(spanFraction(VMA, 0xfe, 4)).toEqual([0, 0.2]);
    expect(spanFraction(VMA, 0x108, 100)).toEqual([0.8, 1]);
    expect(spanFraction(VMA, 0x200, 4)).toBeNull();
  });
});

describe('IPI fan-out', () => {
  const cpus = [0, 1, 2, 3, 4].map((id) => ({ id, lazy: id === 3 }));
  it('marks the sender, the IPI targets, lazy CPUs that get none and CPUs already done', () => {
    expect(fanout(1, [2], [1, 2, 3, 4], cpus)).toEqual([
      { cpu: 1, role: 'sender' },
      { cpu: 2, role: 'ipi' },
      { cpu: 3, role: 'lazy' },
      { cpu: 4, role: 'running' },
    ]);
  });
  it('groups the IPIs sent at this step by sender and ignores received ones', () => {
    const m = sentBySender([
      { from: 1, to: 2, phase: 'sent' },
      { from: 1, to: 4, phase: 'sent' },
      { from: 2, to: 1, phase: 'received' },
    ]);
    expect([...m.entries()]).toEqual([[1, [2, 4]]]);
  });
});

describe('shootdown causes over time', () => {
  const counters = {
    irq_tlb_count: [0, 10, 30],
    tlb_ipi_numa_scan: [0, 2, 4],
    tlb_ipi_numa_mapped: [0, 5, 20],
    tlb_ipi_numa_race: [0, 1, 1],
  };
  it('other is irq_tlb_count less the named causes, never below 0; a missing counter is 0', () => {
    const s = causeSeries(counters, 3);
    expect(s.scan).toEqual([0, 2, 4]);
    expect(s.pending).toEqual([0, 0, 0]);
    expect(s.other).toEqual([0, 2, 5]);
    expect(causeSeries({ irq_tlb_count: [1], tlb_ipi_numa_scan: [5] }, 1).other).toEqual([0]);
  });
  it('stacks the causes bottom to top, the top of the last one equal to irq_tlb_count', () => {
    const st = stackCauses(causeSeries(counters, 3), 3);
    expect(st.scan?.[2]).toEqual([0, 4]);
    expect(st.mapped?.[2]).toEqual([4, 24]);
    expect(st.other?.map((p) => p[1])).toEqual([0, 10, 30]);
  });
});

describe('hint fault words', () => {
  it('says the decision and the outcome', () => {
    expect(decisionText(fault({}))).toBe('migrate to node 1');
    expect(decisionText(fault({ rule: 'two-stage', filterMigrate: false, target: null }))).toBe('do not migrate (yet)');
    expect(decisionText(fault({ pageNid: 1, target: null }))).toMatch(/already local/);
    expect(outcomeText(fault({}))).toBe('migrating to node 1 (in migrate_misplaced_page)');
    expect(outcomeText(fault({ outcome: 'migrated' }))).toBe('migrated to node 1');
    expect(outcomeText(fault({ outcome: 'failed', failReason: 'btrfs' }))).toBe('migration failed: btrfs');
    expect(outcomeText(fault({ outcome: 'stay', target: null }))).toMatch(/stays on node 0/);
  });
  it('says when the next scan is due', () => {
    expect(nextScanText(0, 5)).toBe('not set yet');
    expect(nextScanText(3_500_000, 1_000_000)).toBe('in 2.50 ms');
    expect(nextScanText(1_000_000, 3_000_000)).toBe('due (2.00 ms ago)');
  });
});

describe('a big fan-out', () => {
  it('keeps the sender and the IPI targets first and counts the rest by role', () => {
    const cpus = [
      { cpu: 0, role: 'lazy' as const },
      { cpu: 1, role: 'ipi' as const },
      { cpu: 2, role: 'running' as const },
      { cpu: 3, role: 'sender' as const },
      { cpu: 4, role: 'ipi' as const },
    ];
    expect(capFanout(cpus, 3)).toEqual({ shown: [cpus[1], cpus[3], cpus[4]], hidden: { lazy: 1, running: 1 } });
    expect(capFanout(cpus, 10).hidden).toEqual({});
  });
});
