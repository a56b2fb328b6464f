// The contract between the UI and the simulation engine.
//
// These shapes are what the Rust engine serialises (camelCase) through the wasm
// bindings (`wasm-core/wasm`). Most are generated from the Rust views with ts-rs into
// `generated/` (checked in; `cargo test -p mmviz-engine --test ts_types` fails when they
// drift, `MMVIZ_BLESS=1 cargo test -p mmviz-engine --test ts_types` regenerates them) and
// only renamed here to the UI's names. Still written by hand below: the per-step frame
// views (Frame, CpuView, PteView, FrameView, TlbEntryView), which are being reshaped.
//
// The UI never talks to the wasm package directly: it uses a `SimEngine` (see
// `engine.ts`), which has a wasm implementation and a fixture one for tests.
import type { ChapterView } from './generated/ChapterView';
import type { CodeLine as GeneratedCodeLine } from './generated/CodeLine';
import type { CodeView } from './generated/CodeView';
import type { EventView } from './generated/EventView';
import type { IpiView as GeneratedIpiView } from './generated/IpiView';
import type { Listing } from './generated/Listing';
import type { NodeView } from './generated/NodeView';
import type { ParamView } from './generated/ParamView';
import type { PatchView } from './generated/PatchView';
import type { ProcessView } from './generated/ProcessView';
import type { SeriesView } from './generated/SeriesView';
import type { SummaryView } from './generated/SummaryView';
import type { ThreadView } from './generated/ThreadView';
import type { ToggleValue as GeneratedToggleValue } from './generated/ToggleValue';
import type { TouchedView } from './generated/TouchedView';
import type { VmaView } from './generated/VmaView';

import type { BulkWindow, FrameBulk } from './bulk';

export type { BulkWindow, FrameBulk, FrameState, FrameView, PteKind, PteView, TlbEntryView } from './bulk';

/** A toggle value: a bool patch switch or the name of an enum variant. */
export type ToggleValue = GeneratedToggleValue;

/** One line of a pseudo-code listing; `id` is what events point to. */
export type CodeLine = GeneratedCodeLine;

/** Our own pseudo-code of one kernel function, following one kernel version. */
export type CodeListing = Listing;

/** One entry of the patch registry (`patches.rs`), with its values and default. */
export type PatchInfo = PatchView;

/** A named number of a scenario (`[params]`), overridable from CLI/UI. */
export type ParamInfo = ParamView;

/** A lecture chapter: a named point in the run. */
export type Chapter = ChapterView;

/** A NUMA node: its CPUs and the frames [firstPfn, firstPfn + memPages) it owns. */
export type NodeInfo = NodeView;

export type ThreadInfo = ThreadView;

export type VmaInfo = VmaView;

export type ProcessInfo = ProcessView;

/** Static facts about a loaded scenario (does not change while stepping). */
export type ScenarioSummary = SummaryView;

/** Objects an event touched, for highlighting. */
export type Touched = TouchedView;

/** One micro-step: one kernel action on one CPU. */
export type SimEvent = EventView;

/** An IPI in flight or delivered in this step, for animation. */
export type IpiView = GeneratedIpiView;

/** Every counter sampled over the whole prepared run (the first sample is after step 1). */
export type CounterSeries = SeriesView;

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
  code: CodeView | null;
  /** PTEs, frames and every CPU's TLB as typed arrays (see bulk.ts); CPU c's TLB is `tlbRange(bulk, c)`. */
  bulk: FrameBulk;
  /** Which PTEs `bulk` holds: a view of a large machine is windowed and says so. */
  pteWindow: BulkWindow;
  /** Which frames `bulk` holds (`offset` is the first pfn). */
  frameWindow: BulkWindow;
}
