// Shape of the app store: three slices (simulation, playback, ui).
import type { BuiltinScenario, SimEngine, SimHandle } from '../engine/engine';
import type { Progress } from '../engine/protocol';
import type { CounterSeries, Frame, MechanismInfo, PatchInfo, ScenarioSummary, SimEvent, ToggleValue } from '../engine/types';
import type { ScenarioRef, Selection, ShareState } from '../share/url';
import type { KernelInfo } from '../base/kernels';
import type { WindowRequest } from './bulkWindow';

/** What to open: a scenario with toggle/param overrides at a step. */
export interface OpenRequest {
  scenario: ScenarioRef;
  toggles: Record<string, ToggleValue>;
  params: Record<string, number>;
  step: number;
  selection?: Selection | null;
}

/** Counters of the simulation before the last toggle/param change, to show what changed. */
export interface CounterComparison {
  reason: string;
  /** Step of the new simulation the comparison belongs to. */
  step: number;
  /** Step the old counters were read at (differs when the step had to be clamped). */
  fromStep: number;
  counters: Record<string, number>;
}

/** A load (open a scenario, or rebuild it for a toggle or param) that has not finished. */
export interface LoadingState {
  /** Generation of the load; a newer load supersedes an older one. */
  id: number;
  /** What is being run, for people, e.g. "numa-delay-map-scale (accesses 6000)". */
  label: string;
  /** When it started (Date.now()). */
  startedAtMs: number;
  /** How far the engine says it is, or null while it reports nothing. */
  progress: Progress | null;
  /** Steps the same run (scenario, toggles, params) had when it was last prepared in this session, for a determinate bar; null when unknown. */
  expectedTotal: number | null;
}

/** The simulation slice: engine, loaded scenario, current frame. */
export interface SimSlice {
  engine: SimEngine | null;
  patches: PatchInfo[];
  scenarios: BuiltinScenario[];
  /** The engine's mechanisms, in its order (read once when the engine is attached). */
  mechanisms: MechanismInfo[];
  /** The engine's kernel versions (each changes some toggle), oldest first. */
  kernelVersions: string[];
  /** The kernels the picker offers with the toggles each determines, oldest first (`SimEngine.kernels()`). */
  kernels: KernelInfo[];
  sim: SimHandle | null;
  scenario: ScenarioRef | null;
  scenarioText: string;
  /** Toggle values of the scenario without overrides. */
  baselineToggles: Record<string, ToggleValue>;
  toggleOverrides: Record<string, ToggleValue>;
  paramOverrides: Record<string, number>;
  summary: ScenarioSummary | null;
  /** The events of `eventsWindow`: every event of the run, or for long runs those around the current step. */
  events: SimEvent[];
  /** Steps [from, to) that `events` covers. */
  eventsWindow: { from: number; to: number };
  /** True when `events` holds every event of the run. */
  eventsComplete: boolean;
  /** Every counter sampled over the whole run of `sim` (read once when it was installed), or null before. */
  series: CounterSeries | null;
  frame: Frame | null;
  /** The window of PTEs and frames every frame is asked for with (bulkWindow.ts): the engine's default until the view pages, goes to a PTE or frame, or a step touches one outside it. */
  bulkWindow: WindowRequest;
  /** Step of `frame` (they always change together). */
  step: number;
  /** Step asked for last; `step` catches up when its frame arrives. Relative moves start from here. */
  targetStep: number;
  comparison: CounterComparison | null;
  /** The load in progress, or null. The scenario above stays usable while it runs. */
  loading: LoadingState | null;
  attachEngine: (engine: SimEngine) => void;
  /** Attaches the engine and opens what the URL fragment says; resolves when it is shown. */
  boot: (engine: SimEngine, fragment: string) => Promise<void>;
  applyFragment: (fragment: string) => Promise<void>;
  applyShareState: (state: ShareState) => Promise<void>;
  /** Loads a scenario; resolves to false when it failed (reported) or was cancelled or superseded. */
  open: (req: OpenRequest) => Promise<boolean>;
  openDefault: () => Promise<void>;
  openBuiltin: (id: string) => Promise<void>;
  /** Stops the running load, keeping the scenario shown (or opening the default when there is none). */
  cancelLoad: () => void;
  setToggle: (id: string, value: ToggleValue) => Promise<void>;
  /** Sets several toggles in one rebuild (a kernel version, a preset); `label` names them for people ("kernel v5.12"). */
  setToggles: (toggles: Record<string, ToggleValue>, label: string) => Promise<void>;
  /** Rebuilds with a param; false at once when the value is refused, else when the rebuild failed or was superseded. */
  setParam: (name: string, value: number) => Promise<boolean>;
  /** Asks for a step; resolves once the latest asked-for frame is shown. */
  seek: (step: number) => Promise<void>;
  stepBy: (delta: number) => Promise<void>;
  goFirst: () => Promise<void>;
  goLast: () => Promise<void>;
  goChapter: (direction: 1 | -1) => Promise<void>;
  /** Asks for the current step's frame again with window `w` (clamped to the run); resolves once the latest asked-for frame is shown. */
  setBulkWindow: (w: WindowRequest) => Promise<void>;
  /** Moves the window (if needed) so that the frame holds the PTE (pid, vpn); false when no VMA holds it. */
  showPte: (pid: number, vpn: number) => Promise<boolean>;
  /** Moves the window (if needed) so that the frame holds frame `pfn`; false when the machine has no such frame. */
  showPfn: (pfn: number) => Promise<boolean>;
}

/** The playback slice: play/pause and speed (steps per second). */
export interface PlaybackSlice {
  playing: boolean;
  speed: number;
  play: () => void;
  pause: () => void;
  togglePlay: () => void;
  setSpeed: (stepsPerSecond: number) => void;
  /** Advances one step while playing (once the last step's frame is shown); stops at the end. */
  tick: () => void;
}

/** A message shown in the error banner. */
export interface AppMessage {
  id: number;
  message: string;
  /** 'info' is a plain notice about something the user did (e.g. a cancelled load), announced politely. */
  severity: 'error' | 'warning' | 'info';
}

/** The UI slice: messages, selection, hover. */
export interface UiSlice {
  messages: AppMessage[];
  selection: Selection | null;
  hoverPfn: number | null;
  report: (message: string, severity?: AppMessage['severity']) => void;
  dismiss: (id: number) => void;
  dismissAll: () => void;
  select: (selection: Selection | null) => void;
  setHoverPfn: (pfn: number | null) => void;
  /** The text in the "Machine from numactl --hardware" box (kept in sessionStorage, so nothing typed is lost on a reload). */
  numactlText: string;
  setNumactlText: (text: string) => void;
}

/** The whole store. */
export type AppState = SimSlice & PlaybackSlice & UiSlice;
