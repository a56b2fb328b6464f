// The contract between the UI and the simulation engine.
//
// These shapes are what the Rust engine serialises (camelCase) through the wasm
// bindings (`wasm-core/wasm`). Most are generated from the Rust views with ts-rs into
// `generated/` (checked in; `cargo test -p mmviz-engine --test ts_types` fails when they
// drift, `MMVIZ_BLESS=1 cargo test -p mmviz-engine --test ts_types` regenerates them) and
// only renamed here to the UI's names. Written by hand: a frame's bulk arrays (`FrameBulk`
// in bulk.ts, typed arrays the wasm layer adds to the generated header) and the small
// PteView / FrameView / TlbEntryView objects bulk.ts makes from them.
//
// The UI never talks to the wasm package directly: it uses a `SimEngine` (see
// `engine.ts`), which has a wasm implementation and a fixture one for tests.
import type { ChapterView } from './generated/ChapterView';
import type { CodeLine as GeneratedCodeLine } from './generated/CodeLine';
import type { CpuView as GeneratedCpuView } from './generated/CpuView';
import type { EventView } from './generated/EventView';
import type { FrameHeader } from './generated/FrameHeader';
import type { IpiView as GeneratedIpiView } from './generated/IpiView';
import type { Listing } from './generated/Listing';
import type { MechanismView } from './generated/MechanismView';
import type { NodeView } from './generated/NodeView';
import type { ParamView } from './generated/ParamView';
import type { PatchView } from './generated/PatchView';
import type { ProcessView } from './generated/ProcessView';
import type { SeriesView } from './generated/SeriesView';
import type { SummaryView } from './generated/SummaryView';
import type { SweepPlan } from './generated/SweepPlan';
import type { SweepProblem } from './generated/SweepProblem';
import type { SweepReport } from './generated/SweepReport';
import type { ThreadView } from './generated/ThreadView';
import type { ToggleValue as GeneratedToggleValue } from './generated/ToggleValue';
import type { TouchedView } from './generated/TouchedView';
import type { VmaView } from './generated/VmaView';

import type { FrameBulk } from './bulk';

export type { BulkWindow, FrameBulk, FrameState, FrameView, FrameWindowRequest, PteKind, PteView, TlbEntryView } from './bulk';

/** A toggle value: a bool patch switch or the name of an enum variant. */
export type ToggleValue = GeneratedToggleValue;

/** One line of a pseudo-code listing; `id` is what events point to. */
export type CodeLine = GeneratedCodeLine;

/** Our own pseudo-code of one kernel function, following one kernel version. */
export type CodeListing = Listing;

/** One entry of the patch registry (`patches.rs`), with its values and default. */
export type PatchInfo = PatchView;

/** A mechanism (core, migrate, numa, ...): the toggles, counters, event kinds, ops and views it declares. */
export type MechanismInfo = MechanismView;

export type { CounterInfoView as CounterInfo } from './generated/CounterInfoView';
export type { EventCategory } from './generated/EventCategory';
export type { EventKindInfoView as EventKindInfo } from './generated/EventKindInfoView';
export type { ViewInfoView as MechanismViewInfo } from './generated/ViewInfoView';

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

/** A CPU: what runs on it and where in the kernel (its TLB is in `Frame.bulk`: `tlbRange(bulk, id)`). */
export type CpuView = GeneratedCpuView;

/** The serde part of a frame: everything the panels draw for one step but the bulk arrays. */
export type FrameHeaderView = FrameHeader;

/** Everything the panels draw for one step: the engine's header plus `bulk`, PTEs, frames and every CPU's TLB as typed arrays on one buffer (see bulk.ts; `pteWindow` / `frameWindow` say which part of the whole they hold). */
export type Frame = FrameHeader & { bulk: FrameBulk };

/** A mechanism's named preset (`--preset NAME`): the toggles it sets, kernel's first. */
export type { PresetView as PresetInfo } from './generated/PresetView';

/** Where two runs first differ (`firstDivergence`; `mmviz diverge`). */
export type { Divergence } from './generated/Divergence';

/** One node of pasted `numactl --hardware` text, as the engine's `parseNumactl` reads it (serde, snake_case). */
export interface NumaHardwareNode {
  id: number;
  /** CPU numbers, ascending; empty for a CPU-less node. */
  cpus: number[];
  /** `node N size:` in MB (0 for a memory-less node). */
  size_mb: number;
  /** `node N free:` in MB, or null when the line is missing. */
  free_mb: number | null;
}

/** What `numactl --hardware` text says about a machine (`mmviz topology --numactl FILE --json`). */
export interface NumaHardware {
  /** Nodes in id order. */
  nodes: NumaHardwareNode[];
  /** `distances[i][j]`: from `nodes[i]` to `nodes[j]`; null without a distance table. */
  distances: number[][] | null;
}

export type { SweepRequest } from './generated/SweepRequest';
export type { SweepPlan, SweepProblem, SweepReport };
export type { SweepField } from './generated/SweepField';
export type { SweepChange } from './generated/SweepChange';
export type { SweepLevel } from './generated/SweepLevel';
export type { SweepCell } from './generated/SweepCell';

/** A sweep's plan, or what is wrong with its request (the engine's `sweepPlan`). */
export type SweepPlanOutcome = { plan: SweepPlan } | { problem: SweepProblem };

/** A sweep's report (`mmviz sweep --json`) with its plain-text table (`mmviz sweep`), or what is wrong with its request. */
export type SweepReportOutcome = { report: SweepReport; table: string } | { problem: SweepProblem };

/** One counters-only run (the engine's `sweepRun`): every counter, `steps` and every metric by name, and the run's warnings. */
export interface RunValues {
  values: Record<string, number>;
  steps: number;
  warnings: string[];
}

/** One run of a sweep with its numbers, as `sweepReport` takes it. */
export interface SweepRunValues {
  /** The varied parameter's value (null without one). */
  value: number | null;
  seed: number;
  toggleValue: ToggleValue;
  values: Record<string, number>;
}
