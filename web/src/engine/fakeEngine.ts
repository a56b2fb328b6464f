// A tiny, deterministic, hand-written stand-in for the wasm engine, for unit
// tests and for UI development before the wasm package exists (dev only, via
// `?engine=fake`; the app labels it "FAKE ENGINE"). It is NOT the simulator:
// the numbers it produces are made up to exercise the UI.
import { bulkFromViews, type FrameView, type PteView, type TlbEntryView } from './bulk';
import { cancelledBy, type BuiltinScenario, type CreateOptions, type SimEngine, type SimHandle } from './engine';
import type { Chapter, CounterSeries, CpuView, Frame, IpiView, PatchInfo, ScenarioSummary, SimEvent, ToggleValue, Touched } from './types';

const PID = 100;
const START_VPN = 0x40;
const FRAMES_PER_NODE = 8;
const TLB_ENTRIES = 4;

/** Counter names the fake produces, in display order. */
export const FAKE_COUNTERS = [
  'numa_pte_updates',
  'numa_hint_faults',
  'numa_pages_migrated',
  'pgmigrate_success',
  'nr_tlb_remote_flush',
  'nr_tlb_remote_flush_received',
  'nr_tlb_local_flush_all',
] as const;

/** The fake patch registry: one bool patch, with listings of do_numa_page. */
export const FAKE_PATCHES: PatchInfo[] = [
  {
    id: 'numa_delay_map',
    kind: 'bool',
    title: 'NUMA balancing: reduce TLB flush via delaying mapping on hint page fault',
    author: 'Huang Ying',
    date: '2021-06-30',
    commit: 'b99a342d4f11',
    version: 'v5.14',
    link: 'https://git.kernel.org/torvalds/c/b99a342d4f11',
    explanation:
      'Fake-engine copy of the patch card. With the patch, do_numa_page() no longer restores the PTE before trying to migrate, so the migration does not have to unmap it again and flush remote TLBs.',
    functions: ['do_numa_page'],
    values: [false, true],
    default: false,
    valueLabels: ['off', 'on'],
    listings: [
      {
        before: {
          function: 'do_numa_page',
          follows: 'v5.13 mm/memory.c (fake)',
          lines: [
            { id: 'entry', text: 'vm_fault_t do_numa_page(struct vm_fault *vmf)' },
            { id: 'fault', text: '  page = vm_normal_page(vma, vmf->address, pte);' },
            { id: 'target', text: '  target_nid = numa_migrate_prep(page, vma, ...);' },
            { id: 'restore', text: '  set_pte_at(mm, addr, ptep, pte_mkyoung(pte));' },
            { id: 'migrate', text: '  migrated = migrate_misplaced_page(page, vma, target_nid);' },
            { id: 'out', text: '  return 0;' },
          ],
        },
        after: {
          function: 'do_numa_page',
          follows: 'v5.14 mm/memory.c (fake)',
          lines: [
            { id: 'entry', text: 'vm_fault_t do_numa_page(struct vm_fault *vmf)' },
            { id: 'fault', text: '  page = vm_normal_page(vma, vmf->address, pte);' },
            { id: 'target', text: '  target_nid = numa_migrate_prep(page, vma, ...);' },
            { id: 'migrate', text: '  if (migrate_misplaced_page(page, vma, target_nid))' },
            { id: 'migrated', text: '    return 0;  /* no PTE restored, no flush */' },
            { id: 'map', text: '  set_pte_at(mm, addr, ptep, pte_mkyoung(pte));' },
            { id: 'out', text: '  return 0;' },
          ],
        },
      },
    ],
  },
];

/** Scenario texts of the fake (a tiny `key = value` format, not the engine's TOML). */
export const FAKE_SCENARIOS: BuiltinScenario[] = [
  {
    id: 'fake-101',
    title: 'Fake: three hint faults (test engine)',
    text: '# fake-engine scenario\nid = "fake-101"\ntitle = "Fake: three hint faults (test engine)"\npages = 3\n',
  },
  {
    id: 'fake-one',
    title: 'Fake: one hint fault (test engine)',
    text: '# fake-engine scenario\nid = "fake-one"\ntitle = "Fake: one hint fault (test engine)"\npages = 1\n',
  },
];

interface ParsedScenario {
  id: string;
  title: string;
  pages: number;
}

/** Parses the fake scenario format; throws Error with a line number on bad input. */
export function parseFakeScenario(text: string): ParsedScenario {
  const out: Partial<ParsedScenario> = {};
  text.split('\n').forEach((rawLine, i) => {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^([a-z_]+)\s*=\s*(.+)$/.exec(line);
    if (!m) throw new Error(`scenario line ${i + 1}: expected key = value`);
    const key = m[1] as string;
    const value = (m[2] as string).trim();
    if (key === 'id' || key === 'title') {
      const s = /^"(.*)"$/.exec(value);
      if (!s) throw new Error(`scenario line ${i + 1}, field "${key}": expected a quoted string`);
      out[key] = s[1] as string;
    } else if (key === 'pages') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 6) throw new Error(`scenario line ${i + 1}, field "pages": expected an integer 1-6`);
      out.pages = n;
    } else {
      throw new Error(`scenario line ${i + 1}: unknown field "${key}"`);
    }
  });
  if (!out.id) throw new Error('scenario: missing field "id"');
  return { id: out.id, title: out.title ?? out.id, pages: out.pages ?? 3 };
}

/** A CPU of the fake's state, with its TLB as objects (a frame carries it in the bulk arrays). */
type FakeCpu = CpuView & { tlb: TlbEntryView[] };

interface FakeState {
  timeNs: number;
  cpus: FakeCpu[];
  ptes: PteView[];
  frames: FrameView[];
  counters: Record<string, number>;
}

interface Action {
  /** Index (in the action list) of the action that caused this one, or null. */
  cause: number | null;
  cpu: number;
  kind: string;
  function: string;
  line: string;
  narration: string;
  costNs: number;
  touched: Partial<Touched>;
  deltas: Record<string, number>;
  ipis: IpiView[];
  apply: (s: FakeState) => void;
}

function initialState(pages: number): FakeState {
  const cpu = (id: number, task: string | null, lazy: boolean): FakeCpu => ({
    id,
    node: id < 2 ? 0 : 1,
    task,
    loadedMm: task || lazy ? PID : null,
    lazy,
    tlb: [],
    inFunction: '',
    stack: [],
    state: task ? 'running' : 'idle',
  });
  const cpus = [cpu(0, `${PID}/102`, false), cpu(1, null, true), cpu(2, `${PID}/101`, false), cpu(3, null, false)];
  const ptes: PteView[] = [];
  const frames: FrameView[] = [];
  for (let pfn = 0; pfn < 2 * FRAMES_PER_NODE; pfn++) {
    frames.push({ pfn, node: pfn < FRAMES_PER_NODE ? 0 : 1, state: 'free', mappedBy: null, locked: false, dirty: false });
  }
  for (let i = 0; i < pages; i++) {
    const vpn = START_VPN + i;
    ptes.push({ pid: PID, vpn, kind: 'present', pfn: i, write: true, dirty: i === 0, accessed: true });
    const f = frames[i] as FrameView;
    f.state = 'mapped';
    f.mappedBy = [PID, vpn];
    f.dirty = i === 0;
    if (i < TLB_ENTRIES) (cpus[0] as FakeCpu).tlb.push({ pid: PID, vpn, pfn: i, write: true, dirty: i === 0 });
  }
  const counters = Object.fromEntries(FAKE_COUNTERS.map((c) => [c, 0]));
  return { timeNs: 0, cpus, ptes, frames, counters };
}

function actions(pages: number, delayMap: boolean): Action[] {
  const pte = (s: FakeState, vpn: number): PteView => s.ptes.find((p) => p.vpn === vpn) as PteView;
  const frame = (s: FakeState, pfn: number): FrameView => s.frames[pfn] as FrameView;
  const cpu = (s: FakeState, id: number): FakeCpu => s.cpus[id] as FakeCpu;
  const base = { touched: {}, deltas: {}, ipis: [], line: '', cause: null };
  const list: Action[] = [
    {
      ...base,
      cpu: 2,
      kind: 'numa_scan',
      function: 'task_numa_work',
      narration: `The NUMA scanner marks ${pages} PTEs PROT_NONE so the next access faults.`,
      costNs: 800,
      touched: { ptes: Array.from({ length: pages }, (_, i) => [PID, START_VPN + i] as [number, number]) },
      deltas: { numa_pte_updates: pages },
      apply: (s) => s.ptes.forEach((p) => (p.kind = 'protnone')),
    },
    {
      ...base,
      cpu: 2,
      kind: 'ipi_send',
      function: 'flush_tlb_mm_range',
      cause: 0,
      narration: 'CPU 2 flushes its own TLB and sends a flush IPI to CPU 0.',
      costNs: 1200,
      touched: { cpus: [0] },
      deltas: { nr_tlb_remote_flush: 1, nr_tlb_local_flush_all: 1 },
      ipis: [{ from: 2, to: 0, phase: 'sent' }],
      apply: (s) => {
        cpu(s, 2).tlb = [];
        cpu(s, 2).state = 'waiting for IPI acks';
      },
    },
    {
      ...base,
      cpu: 0,
      kind: 'ipi_recv',
      function: 'flush_tlb_func',
      cause: 1,
      narration: 'CPU 0 handles the IPI and drops its TLB entries.',
      costNs: 900,
      touched: { cpus: [2] },
      deltas: { nr_tlb_remote_flush_received: 1 },
      ipis: [{ from: 2, to: 0, phase: 'received' }],
      apply: (s) => {
        cpu(s, 0).tlb = [];
        cpu(s, 2).state = 'running';
      },
    },
  ];
  for (let i = 0; i < pages; i++) {
    const vpn = START_VPN + i;
    const oldPfn = i;
    const newPfn = FRAMES_PER_NODE + i;
    const t = { ptes: [[PID, vpn]] as [number, number][] };
    // Causes: the miss starts the fault, the fault everything it does, a send its receive.
    const miss = list.length;
    const fault = miss + 1;
    const byFault = { ...base, cause: fault };
    list.push(
      {
        ...base,
        cpu: 2,
        kind: 'tlb_miss',
        function: 'handle_mm_fault',
        narration: `CPU 2 touches page ${vpn.toString(16)}: TLB miss, the PTE is PROT_NONE.`,
        costNs: 100,
        touched: t,
        apply: () => {},
      },
      {
        ...base,
        cpu: 2,
        kind: 'hint_fault',
        cause: miss,
        function: 'do_numa_page',
        line: 'fault',
        narration: `NUMA hint fault on vpn ${vpn.toString(16)}: the page lives on node 0, the task runs on node 1.`,
        costNs: 500,
        touched: { ...t, pfns: [oldPfn] },
        deltas: { numa_hint_faults: 1 },
        apply: (s) => {
          cpu(s, 2).inFunction = 'do_numa_page';
        },
      },
    );
    if (!delayMap) {
      list.push(
        {
          ...byFault,
          cpu: 2,
          kind: 'pte_restore',
          function: 'do_numa_page',
          line: 'restore',
          narration: 'Before migrating, the PTE is made present again.',
          costNs: 200,
          touched: t,
          apply: (s) => {
            pte(s, vpn).kind = 'present';
          },
        },
        {
          ...byFault,
          cpu: 2,
          kind: 'isolate',
          function: 'migrate_misplaced_page',
          narration: `Frame ${oldPfn} is isolated from the LRU for migration.`,
          costNs: 300,
          touched: { pfns: [oldPfn] },
          apply: (s) => {
            frame(s, oldPfn).state = 'isolated';
          },
        },
        {
          ...byFault,
          cpu: 2,
          kind: 'ipi_send',
          function: 'flush_tlb_mm_range',
          narration: 'Unmapping the just-restored PTE needs a TLB flush: IPI to CPU 0.',
          costNs: 1200,
          touched: { ...t, cpus: [0] },
          deltas: { nr_tlb_remote_flush: 1 },
          ipis: [{ from: 2, to: 0, phase: 'sent' }],
          apply: (s) => {
            pte(s, vpn).kind = 'migration';
            cpu(s, 2).state = 'waiting for IPI acks';
          },
        },
        {
          ...base,
          cause: list.length + 2,
          cpu: 0,
          kind: 'ipi_recv',
          function: 'flush_tlb_func',
          narration: 'CPU 0 handles another flush IPI.',
          costNs: 900,
          touched: { cpus: [2] },
          deltas: { nr_tlb_remote_flush_received: 1 },
          ipis: [{ from: 2, to: 0, phase: 'received' }],
          apply: (s) => {
            cpu(s, 2).state = 'running';
          },
        },
      );
    } else {
      list.push({
        ...byFault,
        cpu: 2,
        kind: 'isolate',
        function: 'do_numa_page',
        line: 'migrate',
        narration: `The PTE stays PROT_NONE; frame ${oldPfn} is isolated for migration, no flush needed.`,
        costNs: 300,
        touched: { ...t, pfns: [oldPfn] },
        apply: (s) => {
          frame(s, oldPfn).state = 'isolated';
          pte(s, vpn).kind = 'migration';
        },
      });
    }
    list.push(
      {
        ...byFault,
        cpu: 2,
        kind: 'migrate_copy',
        function: 'migrate_pages',
        narration: `Copying frame ${oldPfn} (node 0) to frame ${newPfn} (node 1).`,
        costNs: 2000,
        touched: { pfns: [oldPfn, newPfn] },
        apply: (s) => {
          frame(s, oldPfn).state = 'migrating';
          frame(s, newPfn).state = 'migrating';
        },
      },
      {
        ...byFault,
        cpu: 2,
        kind: 'migrate_done',
        function: delayMap ? 'do_numa_page' : 'remove_migration_ptes',
        line: delayMap ? 'migrated' : '',
        narration: `The PTE now points at frame ${newPfn} on node 1; frame ${oldPfn} is freed.`,
        costNs: 400,
        touched: { ...t, pfns: [oldPfn, newPfn] },
        deltas: { numa_pages_migrated: 1, pgmigrate_success: 1 },
        apply: (s) => {
          const p = pte(s, vpn);
          p.kind = 'present';
          p.pfn = newPfn;
          Object.assign(frame(s, newPfn), { state: 'mapped', mappedBy: [PID, vpn] });
          Object.assign(frame(s, oldPfn), { state: 'free', mappedBy: null, dirty: false });
          const c2 = cpu(s, 2);
          c2.inFunction = '';
          c2.tlb = [...c2.tlb, { pid: PID, vpn, pfn: newPfn, write: true, dirty: false }].slice(-TLB_ENTRIES);
        },
      },
    );
  }
  return list;
}

class FakeSim implements SimHandle {
  private readonly log: FakeEngineLog;
  private readonly seekDelayMs: number;
  private readonly frames: Frame[];
  private readonly allEvents: SimEvent[];
  private readonly info: ScenarioSummary;
  private cur = 0;
  private freed = false;

  constructor(text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, log: FakeEngineLog, seekDelayMs: number) {
    this.log = log;
    this.seekDelayMs = seekDelayMs;
    const parsed = parseFakeScenario(text);
    for (const [k, v] of Object.entries(toggles)) {
      if (k !== 'numa_delay_map') throw new Error(`unknown toggle "${k}" (known: numa_delay_map)`);
      if (typeof v !== 'boolean') throw new Error(`toggle "${k}" takes true or false, not "${String(v)}"`);
    }
    for (const [k, v] of Object.entries(params)) {
      if (k !== 'pages') throw new Error(`unknown param "${k}" (known: pages)`);
      if (!Number.isInteger(v) || v < 1 || v > 6) throw new Error(`param "pages" = ${v} is out of range 1..6`);
    }
    const delayMap = toggles.numa_delay_map === true;
    const pages = params.pages ?? parsed.pages;
    const acts = actions(pages, delayMap);
    const state = initialState(pages);
    const snapshot = (step: number, event: SimEvent | null, ipis: IpiView[]): Frame => {
      const copy = JSON.parse(JSON.stringify(state)) as FakeState;
      return {
        step,
        timeNs: copy.timeNs,
        event,
        cpus: copy.cpus.map(({ tlb: _tlb, ...c }) => c),
        mmCpumask: { [PID]: [0, 1, 2] },
        ipis,
        counters: copy.counters,
        code: event ? { function: event.function, line: event.line } : null,
        bulk: bulkFromViews(
          copy.ptes,
          copy.frames,
          copy.cpus.map((c) => c.tlb),
        ),
        pteWindow: { total: copy.ptes.length, offset: 0, count: copy.ptes.length },
        frameWindow: { total: copy.frames.length, offset: 0, count: copy.frames.length },
      };
    };
    this.frames = [snapshot(0, null, [])];
    this.allEvents = [];
    const chapters: Chapter[] = [{ step: 0, title: 'NUMA scan', narration: 'The scanner makes PTEs PROT_NONE.' }];
    acts.forEach((a, i) => {
      if (a.kind === 'tlb_miss') {
        chapters.push({ step: i, title: `Hint fault ${chapters.length}`, narration: `Page ${chapters.length} faults.` });
      }
      for (const c of state.cpus) if (c.id !== 2) c.inFunction = '';
      a.apply(state);
      if (a.cpu !== 2) (state.cpus[a.cpu] as FakeCpu).inFunction = a.function;
      for (const c of state.cpus) c.stack = c.inFunction ? [...(c.task ? ['user code'] : []), c.inFunction] : [];
      state.timeNs += a.costNs;
      for (const [k, d] of Object.entries(a.deltas)) state.counters[k] = (state.counters[k] ?? 0) + d;
      const event: SimEvent = {
        step: i,
        timeNs: state.timeNs,
        cpu: a.cpu,
        kind: a.kind,
        function: a.function,
        line: a.line,
        cause: a.cause,
        task: a.cpu === 0 ? `${PID}/102` : `${PID}/101`,
        narration: a.narration,
        touched: { ptes: a.touched.ptes ?? [], pfns: a.touched.pfns ?? [], cpus: a.touched.cpus ?? [] },
        counterDeltas: a.deltas,
      };
      this.allEvents.push(event);
      this.frames.push(snapshot(i + 1, event, a.ipis));
    });
    this.info = {
      id: parsed.id,
      title: parsed.title,
      description: 'Fake engine: a hand-written model for tests, not the simulator.',
      seed: 0,
      toggles: { numa_delay_map: delayMap },
      params: [{ name: 'pages', value: pages, default: parsed.pages, min: 1, max: 6, description: 'Pages the thread touches' }],
      chapters,
      totalSteps: acts.length,
      topology: {
        nodes: [
          { id: 0, cpus: [0, 1], memPages: FRAMES_PER_NODE, firstPfn: 0 },
          { id: 1, cpus: [2, 3], memPages: FRAMES_PER_NODE, firstPfn: FRAMES_PER_NODE },
        ],
        distance: [
          [10, 20],
          [20, 10],
        ],
        tlbEntries: TLB_ENTRIES,
      },
      processes: [
        {
          pid: PID,
          name: 'fake',
          threads: [
            { tid: 101, cpu: 2 },
            { tid: 102, cpu: 0 },
          ],
          vmas: [{ startVpn: START_VPN, pages, kind: 'anon', name: '[heap]' }],
        },
      ],
      counterNames: [...FAKE_COUNTERS],
      listings: FAKE_PATCHES.flatMap((p) => p.listings.map((pair) => (delayMap ? pair.after : pair.before))),
    };
  }

  private alive(): void {
    if (this.freed) throw new Error('simulation used after free()');
  }
  summary(): ScenarioSummary {
    return this.info;
  }
  async step(n: number): Promise<number> {
    await this.latency();
    this.alive();
    this.cur = Math.max(0, Math.min(this.info.totalSteps, this.cur + Math.max(0, Math.trunc(n))));
    return this.cur;
  }
  async seek(step: number): Promise<void> {
    await this.latency();
    this.seekNow(step);
  }
  async frameAt(step: number): Promise<Frame> {
    await this.latency();
    this.seekNow(step);
    this.log.framesFetched.push(step);
    return this.frames[this.cur] as Frame;
  }
  async currentStep(): Promise<number> {
    await this.latency();
    return this.cur;
  }
  async frame(): Promise<Frame> {
    await this.latency();
    this.alive();
    return this.frames[this.cur] as Frame;
  }
  async events(from: number, to: number): Promise<SimEvent[]> {
    await this.latency();
    this.alive();
    return this.allEvents.filter((e) => e.step >= from && e.step < to);
  }
  async counters(): Promise<Record<string, number>> {
    return { ...(await this.frame()).counters };
  }
  async series(): Promise<CounterSeries> {
    await this.latency();
    this.alive();
    // The fake's runs are short, so every step is a sample (the engine samples at most about 2 000).
    return {
      steps: this.frames.map((f) => f.step),
      timeNs: this.frames.map((f) => f.timeNs),
      counters: Object.fromEntries(FAKE_COUNTERS.map((name) => [name, this.frames.map((f) => f.counters[name] ?? 0)])),
    };
  }
  async causeChain(step: number): Promise<SimEvent[]> {
    await this.latency();
    this.alive();
    const chain: SimEvent[] = [];
    for (let e = this.allEvents[step]; e; e = e.cause === null ? undefined : this.allEvents[e.cause]) chain.push(e);
    return chain;
  }
  free(): void {
    this.freed = true;
  }

  private seekNow(step: number): void {
    this.alive();
    if (!Number.isInteger(step) || step < 0 || step > this.info.totalSteps) {
      throw new Error(`step ${step} is beyond the end of this scenario (${this.info.totalSteps} steps)`);
    }
    this.cur = step;
  }

  /** Every call answers asynchronously, like a worker; after `seekDelayMs` when set. */
  private latency(): Promise<void> {
    return this.seekDelayMs > 0 ? sleep(this.seekDelayMs) : Promise.resolve();
  }
}

/** How the fake behaves in time (all zero by default: every call resolves on the next microtask). */
export interface FakeEngineOptions {
  /** How long each create takes, in (possibly fake) timer milliseconds. */
  createDelayMs?: number;
  /** Progress reports during a create, evenly spread over createDelayMs (needs createDelayMs > 0); like the engine's, only the last knows the total. */
  progressReports?: number;
  /** How long each call on a simulation takes. */
  seekDelayMs?: number;
}

/** What the fake was asked to do, for tests. */
export interface FakeEngineLog {
  /** Number of simulations created (including failed and cancelled ones). */
  creates: number;
  /** Steps of every frameAt call, in order. */
  framesFetched: number[];
}

/** The fake engine with its call log. */
export type FakeEngine = SimEngine & { readonly log: FakeEngineLog };

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelledBy(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelledBy(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Creates the fake engine (tests and `?engine=fake` dev mode only). */
export function createFakeEngine(options: FakeEngineOptions = {}): FakeEngine {
  const { createDelayMs = 0, progressReports = 0, seekDelayMs = 0 } = options;
  const log: FakeEngineLog = { creates: 0, framesFetched: [] };
  const create = async (text: string, toggles: Record<string, ToggleValue>, params: Record<string, number>, opts: CreateOptions = {}): Promise<SimHandle> => {
    const { signal, onProgress } = opts;
    log.creates++;
    if (signal?.aborted) throw cancelledBy(signal);
    // Build first so that bad input fails at once, as the engine's parser does.
    const sim = new FakeSim(text, toggles, params, log, seekDelayMs);
    const total = sim.summary().totalSteps;
    const reports = createDelayMs > 0 ? Math.max(0, Math.trunc(progressReports)) : 0;
    if (reports > 0) {
      for (let i = 1; i <= reports; i++) {
        await sleep(createDelayMs / reports, signal);
        onProgress?.({ done: Math.round((total * i) / reports), total: i === reports ? total : null });
      }
    } else if (createDelayMs > 0) {
      await sleep(createDelayMs, signal);
    } else {
      await Promise.resolve();
      if (signal?.aborted) throw cancelledBy(signal);
    }
    return sim;
  };
  return {
    kind: 'fake',
    log,
    patches: () => FAKE_PATCHES,
    builtinScenarios: () => FAKE_SCENARIOS,
    describe: async (text, params) => {
      await Promise.resolve();
      return new FakeSim(text, {}, params, { creates: 0, framesFetched: [] }, 0).summary();
    },
    create,
  };
}
