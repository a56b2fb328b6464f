import { describe, expect, it } from 'vitest';
import type { EventView } from '../../engine/generated/EventView';
import type { PcpCpuView } from '../../engine/generated/PcpCpuView';
import type { PcpView } from '../../engine/generated/PcpView';
import { activityOf, cpuPage, PcpHistory, pageOfCpu, ranges, scaleMax, segments, sparkPath } from './pcp';

const LISTS = [
  ...[0, 1, 2, 3].flatMap((order) => ['Unmovable', 'Movable', 'Reclaimable'].map((migratetype) => ({ order, migratetype }))),
  { order: 9, migratetype: 'Movable' },
];

function row(cpu: number, zone: number, count: number, high: number, over: Partial<PcpCpuView> = {}): PcpCpuView {
  return {
    cpu,
    zone,
    count,
    high,
    highMin: high,
    highMax: high,
    batch: 63,
    flags: [],
    freeFactor: 0,
    expire: 0,
    freeCount: 0,
    allocFactor: 0,
    lists: Array.from({ length: 13 }, (_, i) => (i === 1 ? count : 0)),
    inFunction: '',
    spinning: false,
    ...over,
  };
}

function view(pcps: PcpCpuView[]): PcpView {
  return { lists: LISTS, zones: [], pcps, nrCpus: 2, cpusListed: 2, totals: [], autotune: false };
}

describe('PCP panel logic', () => {
  it('pages a big machine CPUs and finds the page of a CPU', () => {
    expect(cpuPage(32, 0)).toEqual({ first: 0, last: 7, page: 0, pages: 4 });
    expect(cpuPage(32, 3)).toEqual({ first: 24, last: 31, page: 3, pages: 4 });
    expect(cpuPage(32, 9).page).toBe(3);
    expect(cpuPage(1, 0)).toEqual({ first: 0, last: 0, page: 0, pages: 1 });
    expect(cpuPage(10, 1)).toEqual({ first: 8, last: 9, page: 1, pages: 2 });
    expect(pageOfCpu(17, 32)).toBe(2);
    expect(pageOfCpu(70, 64)).toBeNull();
  });

  it('stacks the non-empty lists in pindex order', () => {
    const lists = Array.from({ length: 13 }, () => 0);
    lists[1] = 5; // order 0 Movable
    lists[10] = 16; // order 3 Movable: two blocks
    lists[3] = 2; // order 1 Unmovable
    expect(segments(lists, LISTS)).toEqual([
      { pindex: 1, order: 0, migratetype: 'Movable', from: 0, pages: 5 },
      { pindex: 3, order: 1, migratetype: 'Unmovable', from: 5, pages: 2 },
      { pindex: 10, order: 3, migratetype: 'Movable', from: 7, pages: 16 },
    ]);
  });

  it('scales bars to what is drawn, high_max only when near', () => {
    expect(scaleMax([row(0, 0, 10, 367)], false)).toBe(367);
    expect(scaleMax([row(0, 0, 10, 367, { highMax: 1000 })], true)).toBe(1000);
    expect(scaleMax([row(0, 0, 10, 367, { highMax: 36_800 })], true)).toBe(367);
  });

  it('keeps high and count by step, each step once, bounded', () => {
    const h = new PcpHistory(3);
    h.record(5, view([row(0, 0, 10, 100), row(1, 0, 0, 100)]));
    h.record(2, view([row(0, 0, 4, 90)]));
    h.record(5, view([row(0, 0, 999, 999)])); // the same step again: kept as first seen
    expect(h.samples(0, 0)).toEqual([
      { step: 2, high: 90, count: 4 },
      { step: 5, high: 100, count: 10 },
    ]);
    expect(h.samples(1, 0)).toEqual([{ step: 5, high: 100, count: 0 }]);
    expect(h.span()).toEqual([2, 5]);
    h.record(7, view([row(0, 0, 1, 1)]));
    h.record(9, view([row(0, 0, 1, 1)]));
    expect(h.size).toBe(3);
    expect(h.span()).toEqual([2, 9]);
    expect(h.samples(0, 0).map((s) => s.step)).toEqual([2, 7, 9]);
  });

  it('draws sparklines by step', () => {
    const s = [
      { step: 0, high: 100, count: 0 },
      { step: 10, high: 200, count: 50 },
    ];
    expect(sparkPath(s, (x) => x.high, [0, 10], 200, 100, 20)).toBe('0,10 100,0');
    expect(sparkPath(s, (x) => x.count, [0, 10], 200, 100, 20)).toBe('0,20 100,15');
    expect(sparkPath(s.slice(0, 1), (x) => x.high, [0, 0], 200, 100, 20)).toBe('50,10');
  });

  it('reads what the step did from its event', () => {
    const ev = (kind: string, cpu: number): EventView => ({
      step: 1,
      timeNs: 0,
      cpu,
      kind,
      function: '',
      line: '',
      cause: null,
      task: '',
      narration: '',
      touched: { ptes: [], pfns: [], cpus: [] },
      counterDeltas: {},
    });
    expect(activityOf(ev('pcp_refill', 3))).toEqual({ cpu: 3, activity: 'refill' });
    expect(activityOf(ev('pcp_drain', 0))).toEqual({ cpu: 0, activity: 'drain' });
    expect(activityOf(ev('free_high', 1))?.activity).toBe('free_high');
    expect(activityOf(ev('tlb_miss', 1))).toBeNull();
    expect(activityOf(null)).toBeNull();
  });

  it('writes CPU ranges', () => {
    expect(ranges([0, 1, 2, 5, 7, 8])).toBe('0-2,5,7-8');
    expect(ranges([])).toBe('');
  });
});
