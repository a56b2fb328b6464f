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

/** A question asked at a chapter (predict, then reveal), with its answer as the run gives it. */
export type { QuestionView } from './generated/QuestionView';

/** A question's answer, computed from the run: a counter's change, the CPUs with an event, or which statements hold. */
export type { AnswerView } from './generated/AnswerView';
/** One `NUMA nodeN CPU(s):` line of pasted `lscpu` text. */
export interface LscpuNode {
  id: number;
  /** CPU numbers, ascending (empty for a CPU-less node). */
  cpus: number[];
  /** The 1-based line of the pasted text. */
  line: number;
}

/** One cache of pasted `lscpu` text. */
export interface LscpuCache {
  /** `L1d`, `L1i`, `L2`, `L3`. */
  level: string;
  bytes: number;
  instances: number | null;
  /** Whether `bytes` is the sum over all instances (else one instance). */
  total: boolean;
}

/** What pasted `lscpu` text says (`mmviz topology --lscpu FILE --json`). */
export interface Lscpu {
  cpus: number | null;
  sockets: number | null;
  cores_per_socket: number | null;
  threads_per_core: number | null;
  model_name: string | null;
  numa_nodes: number | null;
  nodes: LscpuNode[];
  caches: LscpuCache[];
  /** The last-level cache per CPU in KiB (the knob `llc_slice_kb`), when derivable. */
  llc_slice_kb: number | null;
  /** How `llc_slice_kb` was derived. */
  llc_note: string | null;
}

/** One CPU's pageset of a zone in pasted `/proc/zoneinfo`. */
export interface ZonePageset {
  cpu: number;
  count: number;
  high: number;
  batch: number;
  high_min: number | null;
  high_max: number | null;
}

/** One node's zone in pasted `/proc/zoneinfo`. */
export interface ZoneInfoZone {
  node: number;
  name: string;
  line: number;
  free: number | null;
  min: number;
  low: number;
  high: number;
  spanned: number | null;
  present: number | null;
  managed: number | null;
  pagesets: ZonePageset[];
  /** What the model derives for a lowmem zone of `managed` pages; null for zones it has no counterpart of. */
  model: { wmarks: [number, number, number]; batch: number } | null;
}

/** What pasted `/proc/zoneinfo` says (`mmviz zoneinfo FILE --json`). */
export interface ZoneInfo {
  zones: ZoneInfoZone[];
  /** Lines read but not used by the model, each once. */
  unused: string[];
  lowmem_managed: number;
}

/** What a run on a pasted machine takes from its `/proc/zoneinfo` for one node (the engine's `nodeZones`, `mmviz zoneinfo FILE --numactl FILE --json`). */
export interface NodeZone {
  /** Node id as the texts print it. */
  node: number;
  /** The populated zones merged into the model's one zone of the node. */
  zones: string[];
  /** Their managed pages (real). */
  managed: number;
  /** Their min/low/high watermarks summed (real pages). */
  wmarks: [number, number, number];
  /** `managed / mem_scale`: the run's pages of the node. */
  sim_managed: number;
  /** `wmarks / mem_scale`: the run's watermarks. */
  sim_wmarks: [number, number, number];
  /** The zone whose pagesets are used (the largest), null when none are printed. */
  pageset_zone: string | null;
  /** Pageset sizes as printed (per CPU, not scaled); null: not printed, the model derives it. */
  batch: number | null;
  high_min: number | null;
  /** Printed (`high_max_pasted`) or derived from the real zone; null: the model derives it. */
  high_max: number | null;
  high_max_pasted: boolean;
  /** CPUs × high_min per hundred simulated pages of the node. */
  pcp_share: number;
}

/** The difference of two pasted `/proc/vmstat` snapshots (`mmviz vmstat BEFORE AFTER --json`). */
export interface VmstatDelta {
  /** Counters both have, after - before. */
  changes: { name: string; before: number; after: number; delta: number }[];
  only_before: string[];
  only_after: string[];
}

/** What the engine reads from pasted text, by kind, with the texts each kind takes. */
export interface PasteKinds {
  /** `lscpu` text. */
  lscpu: { texts: [lscpu: string]; result: Lscpu };
  /** `numactl --hardware` text with the same machine's `lscpu` text merged in. */
  machine: { texts: [numactl: string, lscpu: string]; result: NumaHardware };
  /** `/proc/zoneinfo` text. */
  zoneinfo: { texts: [zoneinfo: string]; result: ZoneInfo };
  /** Two `/proc/vmstat` snapshots. */
  vmstat: { texts: [before: string, after: string]; result: VmstatDelta };
  /** What a run on the machine of numactl (+ lscpu, may be blank) takes from its zoneinfo at a memory scale (a whole number as text). */
  zones: { texts: [numactl: string, lscpu: string, zoneinfo: string, memScale: string]; result: NodeZone[] };
}

/** A kind of pasted text the engine reads. */
export type PasteKind = keyof PasteKinds;

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
