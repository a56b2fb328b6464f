// Shape of the app store: three slices (simulation, playback, ui).
import type { BuiltinScenario, SimEngine, SimHandle } from '../engine/engine';
import type { Frame, PatchInfo, ScenarioSummary, SimEvent, ToggleValue } from '../engine/types';
import type { ScenarioRef, Selection, ShareState } from '../share/url';

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

/** The simulation slice: engine, loaded scenario, current frame. */
export interface SimSlice {
  engine: SimEngine | null;
  patches: PatchInfo[];
  scenarios: BuiltinScenario[];
  sim: SimHandle | null;
  scenario: ScenarioRef | null;
  scenarioText: string;
  /** Toggle values of the scenario without overrides. */
  baselineToggles: Record<string, ToggleValue>;
  toggleOverrides: Record<string, ToggleValue>;
  paramOverrides: Record<string, number>;
  summary: ScenarioSummary | null;
  /** Every event of the run (for the scrubber marks), or [] for runs too long to fetch. */
  events: SimEvent[];
  /** False when `events` was not fetched because the run is too long. */
  eventsComplete: boolean;
  frame: Frame | null;
  step: number;
  comparison: CounterComparison | null;
  attachEngine: (engine: SimEngine) => void;
  boot: (engine: SimEngine, fragment: string) => void;
  applyFragment: (fragment: string) => void;
  applyShareState: (state: ShareState) => void;
  open: (req: OpenRequest) => boolean;
  openDefault: () => void;
  openBuiltin: (id: string) => void;
  setToggle: (id: string, value: ToggleValue) => void;
  setParam: (name: string, value: number) => boolean;
  seek: (step: number) => void;
  stepBy: (delta: number) => void;
  goFirst: () => void;
  goLast: () => void;
  goChapter: (direction: 1 | -1) => void;
}

/** The playback slice: play/pause and speed (steps per second). */
export interface PlaybackSlice {
  playing: boolean;
  speed: number;
  play: () => void;
  pause: () => void;
  togglePlay: () => void;
  setSpeed: (stepsPerSecond: number) => void;
  /** Advances one step while playing; stops at the end. */
  tick: () => void;
}

/** A message shown in the error banner. */
export interface AppMessage {
  id: number;
  message: string;
  severity: 'error' | 'warning';
}

/** The UI slice: messages, selection, hover. */
export interface UiSlice {
  messages: AppMessage[];
  selection: Selection | null;
  hoverPfn: number | null;
  report: (message: string, severity?: 'error' | 'warning') => void;
  dismiss: (id: number) => void;
  dismissAll: () => void;
  select: (selection: Selection | null) => void;
  setHoverPfn: (pfn: number | null) => void;
}

/** The whole store. */
export type AppState = SimSlice & PlaybackSlice & UiSlice;
