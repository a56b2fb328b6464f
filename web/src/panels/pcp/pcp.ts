// The PCP panel's logic, apart from drawing: paging a big machine's CPUs, the stacked
// segments of a pageset's lists, the history of high/count over the steps visited (the
// sparklines) and what this step's event did to which pageset.
import type { PcpCpuView } from '../../engine/generated/PcpCpuView';
import type { PcpListInfo } from '../../engine/generated/PcpListInfo';
import type { PcpView } from '../../engine/generated/PcpView';
import type { EventView } from '../../engine/generated/EventView';

/** CPUs drawn per page. */
export const CPUS_PER_PAGE = 8;

/** Colour of each order's lists (the theme's Okabe–Ito tokens); the THP list (order 9) last. */
export const ORDER_COLORS: Readonly<Record<number, string>> = {
  0: 'var(--oi-skyblue)',
  1: 'var(--oi-green)',
  2: 'var(--oi-orange)',
  3: 'var(--oi-purple)',
  9: 'var(--oi-vermillion)',
};
/** Colour of an order no entry above names. */
export const OTHER_ORDER_COLOR = 'var(--neutral-mark)';

/** Opacity of each migratetype's share of an order's colour. */
export const MT_OPACITY: Readonly<Record<string, number>> = { Movable: 1, Unmovable: 0.65, Reclaimable: 0.35 };

/** The pages of CPUs listed in the view: [first, last] CPU of page `page`, and how many pages there are. */
export function cpuPage(cpusListed: number, page: number, perPage = CPUS_PER_PAGE): { first: number; last: number; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(cpusListed / perPage));
  const p = Math.min(Math.max(0, Math.trunc(page)), pages - 1);
  return { first: p * perPage, last: Math.min(cpusListed, (p + 1) * perPage) - 1, page: p, pages };
}

/** The page holding `cpu` (or null when the CPU is not listed). */
export function pageOfCpu(cpu: number, cpusListed: number, perPage = CPUS_PER_PAGE): number | null {
  return cpu >= 0 && cpu < cpusListed ? Math.floor(cpu / perPage) : null;
}

/** One stacked segment of a pageset's bar: pages [from, from + pages) of list `pindex`. */
export interface Segment {
  pindex: number;
  order: number;
  migratetype: string;
  from: number;
  pages: number;
}

/** The non-empty lists of a pageset as segments stacked from 0, by pindex (order, then migratetype). */
export function segments(lists: readonly number[], info: readonly PcpListInfo[]): Segment[] {
  const out: Segment[] = [];
  let from = 0;
  lists.forEach((pages, pindex) => {
    if (pages <= 0) return;
    const i = info[pindex];
    out.push({ pindex, order: i?.order ?? 0, migratetype: i?.migratetype ?? 'Movable', from, pages });
    from += pages;
  });
  return out;
}

/** The right end of the bars' common scale: the largest count, high or batch drawn (high_max only when it is near: within 4× the rest). */
export function scaleMax(rows: readonly PcpCpuView[], autotune: boolean): number {
  let m = 1;
  for (const r of rows) m = Math.max(m, r.count, r.high, r.batch);
  if (autotune) {
    const hmax = Math.max(0, ...rows.map((r) => r.highMax));
    if (hmax <= 4 * m) m = Math.max(m, hmax);
  }
  return m;
}

/** A pageset's values at one step. */
export interface Sample {
  step: number;
  high: number;
  count: number;
}

/**
 * high and count of each listed pageset at the steps whose frames were shown, keyed by
 * step (a step seen twice is stored once: the engine's frame at a step is always the same).
 * Bounded: the oldest-recorded steps go first beyond `cap`.
 */
export class PcpHistory {
  private readonly byStep = new Map<number, Map<string, [number, number]>>();
  constructor(readonly cap = 4000) {}

  /** Records the view of frame `step`. */
  record(step: number, view: PcpView): void {
    if (this.byStep.has(step)) return;
    const m = new Map<string, [number, number]>();
    for (const p of view.pcps) m.set(key(p.cpu, p.zone), [p.high, p.count]);
    this.byStep.set(step, m);
    while (this.byStep.size > this.cap) {
      const first = this.byStep.keys().next();
      if (first.done) break;
      this.byStep.delete(first.value);
    }
  }

  /** Steps recorded. */
  get size(): number {
    return this.byStep.size;
  }

  /** The samples of pageset (cpu, zone), by step. */
  samples(cpu: number, zone: number): Sample[] {
    const k = key(cpu, zone);
    const out: Sample[] = [];
    for (const [step, m] of this.byStep) {
      const v = m.get(k);
      if (v) out.push({ step, high: v[0], count: v[1] });
    }
    return out.sort((a, b) => a.step - b.step);
  }

  /** [first, last] step recorded, or null. */
  span(): [number, number] | null {
    if (this.byStep.size === 0) return null;
    const steps = [...this.byStep.keys()];
    return [Math.min(...steps), Math.max(...steps)];
  }
}

const histories = new WeakMap<object, PcpHistory>();
const NO_RUN = {};

/** The history of run `run` (the store's sim handle: a new run, a new history). Recording into it is idempotent, so a render may do it. */
export function historyFor(run: object | null): PcpHistory {
  const k = run ?? NO_RUN;
  let h = histories.get(k);
  if (!h) {
    h = new PcpHistory();
    histories.set(k, h);
  }
  return h;
}

function key(cpu: number, zone: number): string {
  return `${cpu}/${zone}`;
}

/** SVG polyline points of `values` over steps in `span` into a w×h box (value 0 at the bottom, `max` at the top). */
export function sparkPath(samples: readonly Sample[], pick: (s: Sample) => number, span: [number, number], max: number, w: number, h: number): string {
  const [a, b] = span;
  const dx = b > a ? w / (b - a) : 0;
  const top = Math.max(1, max);
  return samples
    .map((s) => {
      const x = b > a ? (s.step - a) * dx : w / 2;
      const y = h - (Math.min(pick(s), top) / top) * h;
      return `${round(x)},${round(y)}`;
    })
    .join(' ');
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}

/** What this step's event did to the pagesets: a refill, a drain, a free_high drain, a zone-lock step, or nothing. */
export type Activity = 'refill' | 'drain' | 'free_high' | 'zone_lock' | 'alloc' | 'free' | 'decay';

/** The activity of `event` (null when it is not a page-allocator event). */
export function activityOf(event: EventView | null | undefined): { cpu: number; activity: Activity } | null {
  if (!event) return null;
  const byKind: Record<string, Activity> = {
    pcp_refill: 'refill',
    pcp_drain: 'drain',
    free_high: 'free_high',
    zone_lock: 'zone_lock',
    pcp_alloc: 'alloc',
    pcp_free: 'free',
    pcp_decay: 'decay',
  };
  const activity = byKind[event.kind];
  return activity ? { cpu: event.cpu, activity } : null;
}

/** Words for an activity, as the row's badge says them. */
export const ACTIVITY_LABEL: Readonly<Record<Activity, string>> = {
  refill: 'refill (rmqueue_bulk)',
  drain: 'drain (free_pcppages_bulk)',
  free_high: 'free_high',
  zone_lock: 'zone lock',
  alloc: 'alloc',
  free: 'free',
  decay: 'decay_pcp_high',
};

/** "0-7" style ranges of a sorted list of numbers. */
export function ranges(ns: readonly number[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < ns.length) {
    let j = i;
    while (j + 1 < ns.length && ns[j + 1] === (ns[j] as number) + 1) j++;
    out.push(i === j ? `${ns[i]}` : `${ns[i]}-${ns[j]}`);
    i = j + 1;
  }
  return out.join(',');
}
