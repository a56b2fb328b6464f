// The contract between the UI and the simulation engine.
//
// These shapes are what the Rust engine serialises (camelCase) through the wasm
// bindings (`wasm-core/wasm`). The UI never talks to the wasm package directly:
// it uses a `SimEngine` (see `engine.ts`), which has a wasm implementation and a
// fake for tests.

import type { BulkWindow, FrameBulk } from './bulk';

export type { BulkWindow, FrameBulk, FrameState, FrameView, PteKind, PteView, TlbEntryView } from './bulk';

/** A toggle value: a bool patch switch or the name of an enum variant. */
export type ToggleValue = boolean | string;

/** One line of a pseudo-code listing; `id` is what events point to. */
export interface CodeLine {
  id: string;
  text: string;
}

/** Our own pseudo-code of one kernel function, following one kernel version. */
export interface CodeListing {
  /** Kernel function name, e.g. "do_numa_page". */
  function: string;
  /** Which kernel behaviour it follows, e.g. "v5.12 mm/memory.c". */
  follows: string;
  lines: CodeLine[];
}

/** One entry of the patch registry (`patches.rs`). */
export interface PatchInfo {
  id: string;
  kind: 'bool' | 'enum';
  title: string;
  author: string;
  date: string;
  commit: string;
  version: string;
  link: string;
  explanation: string;
  /** Kernel functions the patch changes. */
  functions: string[];
  /** For enums: the values in declaration order; for bools: [false, true]. */
  values: ToggleValue[];
  default: ToggleValue;
  /** Short label per value, same order as `values`. */
  valueLabels: string[];
  /** Listings of changed functions: `before` is the toggle off / first value. */
  listings: { before: CodeListing; after: CodeListing }[];
}

/** A named number of a scenario (`[params]`), overridable from CLI/UI. */
export interface ParamInfo {
  name: string;
  value: number;
  default: number;
  min: number;
  max: number;
  description: string;
}

/** A lecture chapter: a named point in the run. */
export interface Chapter {
  /** First step of the chapter. */
  step: number;
  title: string;
  narration: string;
}

export interface NodeInfo {
  id: number;
  cpus: number[];
  /** Number of 4 KiB frames the node owns in the model. */
  memPages: number;
  /** First pfn of the node; the node owns [firstPfn, firstPfn + memPages). */
  firstPfn: number;
}

export interface ThreadInfo {
  tid: number;
  cpu: number;
}

export interface VmaInfo {
  /** First virtual page number. */
  startVpn: number;
  pages: number;
  kind: 'anon' | 'file';
  name: string;
}

export interface ProcessInfo {
  pid: number;
  name: string;
  threads: ThreadInfo[];
  vmas: VmaInfo[];
}

/** Static facts about a loaded scenario (does not change while stepping). */
export interface ScenarioSummary {
  id: string;
  title: string;
  description: string;
  seed: number;
  /** Every registry toggle with the value in effect for this simulation. */
  toggles: Record<string, ToggleValue>;
  params: ParamInfo[];
  chapters: Chapter[];
  /** Number of steps of the whole run; valid steps are 0..=totalSteps. */
  totalSteps: number;
  topology: { nodes: NodeInfo[]; distance: number[][]; tlbEntries: number };
  processes: ProcessInfo[];
  /** Counter names in display order (kernel vmstat names first). */
  counterNames: string[];
  /** The listing of every modelled function as this run's toggles select it. */
  listings: CodeListing[];
}

/** Objects an event touched, for highlighting. */
export interface Touched {
  /** [pid, vpn] pairs. */
  ptes: [number, number][];
  pfns: number[];
  /** Other CPUs involved (e.g. IPI receivers). */
  cpus: number[];
}

/** One micro-step: one kernel action on one CPU. */
export interface SimEvent {
  /** Index of the step; the frame after this event is frame `step + 1`. */
  step: number;
  timeNs: number;
  cpu: number;
  /** Machine-readable kind, e.g. "tlb_miss", "hint_fault", "ipi_send", "ipi_recv", "flush_local", "migrate_copy". */
  kind: string;
  /** Kernel function the step belongs to. */
  function: string;
  /** Line id in that function's listing for the active toggle set, or "" when none. */
  line: string;
  /** Step of the event that started this event's frame (its caller), or null for a root. */
  cause: number | null;
  /** Who ran it: "pid/tid", "kswapd/0", "swapper/3". */
  task: string;
  narration: string;
  touched: Touched;
  /** Counter name -> change caused by this step (only non-zero entries). */
  counterDeltas: Record<string, number>;
}

export interface CpuView {
  id: number;
  node: number;
  /** "pid/tid" of the running thread, or null when idle / in a kernel thread. */
  task: string | null;
  /** pid of the mm whose page tables are loaded, or null. */
  loadedMm: number | null;
  lazy: boolean;
  /** Kernel function on top of this CPU's call stack, or "" when in user mode or idle. */
  inFunction: string;
  /** Function names on the running task's stack, bottom first (an IPI handler on top shows what it interrupted). */
  stack: string[];
  /** e.g. "running", "idle", "waiting for IPI acks", "spinning on PTL". */
  state: string;
}

/** An IPI in flight or delivered in this step, for animation. */
export interface IpiView {
  from: number;
  to: number;
  /** "sent": on its way this step; "received": handled this step. */
  phase: 'sent' | 'received';
}

/** Every counter sampled over the whole prepared run: at most about 2 000 samples, evenly spaced in steps, the last one at the end of the run. */
export interface CounterSeries {
  /** Step of each sample, increasing. */
  steps: number[];
  /** Simulated time of each sample, in ns (non-decreasing). */
  timeNs: number[];
  /** Counter name -> its cumulative value at each sample (same length as `steps`). */
  counters: Record<string, number[]>;
}

/** Everything the panels draw for one step. */
export interface Frame {
  step: number;
  timeNs: number;
  /** The event that produced this frame (step - 1), or null at step 0. */
  event: SimEvent | null;
  cpus: CpuView[];
  /** pid -> mm_cpumask as a list of CPU ids. */
  mmCpumask: Record<string, number[]>;
  ipis: IpiView[];
  counters: Record<string, number>;
  /** Where the event's CPU is in the code pane, or null. */
  code: { function: string; line: string } | null;
  /** PTEs, frames and every CPU's TLB as typed arrays (see bulk.ts); CPU c's TLB is `tlbRange(bulk, c)`. */
  bulk: FrameBulk;
  /** Which PTEs `bulk` holds: a view of a large machine is windowed and says so. */
  pteWindow: BulkWindow;
  /** Which frames `bulk` holds (`offset` is the first pfn). */
  frameWindow: BulkWindow;
}
