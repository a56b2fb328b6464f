// Shape of the app store: the engine's catalogue, the runs on screen as lanes under one
// cursor, playback, and the UI. Panels read their run through their lane
// (`useRun(selector)`, context.tsx), never the store's top level, so the same panel draws
// lane A or lane B.
import type { AbAxis } from '../base/abAxis';
import type { BuiltinScenario, SimEngine, SimHandle } from '../engine/engine';
import type { Progress } from '../engine/protocol';
import type { CounterSeries, Divergence, Frame, MechanismInfo, PatchInfo, ScenarioSummary, SimEvent, ToggleValue, VmstatDelta } from '../engine/types';
import type { AbChoice, LectureMode, PlotLayout, ScenarioRef, Selection, ShareState, StepRange } from '../share/url';
import type { KernelInfo } from '../base/kernels';
import type { WindowRequest } from './bulkWindow';
import type { RunFinding } from '../base/findings';

/** A lane: A is the run on screen; B is the second run of an A/B comparison. */
export type LaneId = 'a' | 'b';

/** What to open: a scenario with toggle/param overrides at a step, alone or as an A/B comparison. */
export interface OpenRequest {
  scenario: ScenarioRef;
  toggles: Record<string, ToggleValue>;
  params: Record<string, number>;
  /** A's step. */
  step: number;
  /** The scenario's text when it is not the built-in's current one (a link to an older version of it). */
  text?: string;
  selection?: Selection | null;
  /** The A/B comparison to open, and B's step in it (with A at `step`). */
  ab?: AbChoice | null;
  bStep?: number | null;
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
  /** How far the engine says it is (both runs together in an A/B load), or null while it reports nothing. */
  progress: Progress | null;
  /** Steps the same run(s) had when last prepared in this session, for a determinate bar; null when unknown. */
  expectedTotal: number | null;
}

/** One prepared run on screen, and what of it is shown. */
export interface RunState {
  sim: SimHandle | null;
  summary: ScenarioSummary | null;
  /** The events of `eventsWindow`: every event of the run, or for long runs those around the current step. */
  events: SimEvent[];
  /** Steps [from, to) that `events` covers. */
  eventsWindow: { from: number; to: number };
  /** True when `events` holds every event of the run. */
  eventsComplete: boolean;
  /** Every counter sampled over the whole run (read once when it was installed), or null before. */
  series: CounterSeries | null;
  frame: Frame | null;
  /** The window of PTEs and frames every frame is asked for with (bulkWindow.ts). */
  bulkWindow: WindowRequest;
  /** Step of `frame` (they always change together). */
  step: number;
  /** Step asked for last; `step` catches up when its frame arrives. */
  targetStep: number;
  /** Where the run's workload got further ([position, ops, ...], `SimHandle.progressMarks`), or null before. */
  marks: Float64Array | null;
  /**
   * The engine's message when the scenario's schedule (a link's `sched=`) could not be followed
   * in this run, which then runs in the default order; null when it was followed or there is none.
   */
  scheduleProblem: string | null;
  /** The run's findings (a lost write, a stale-TLB store), derived from its own events (base/findings.ts). */
  findings: RunFinding[];
}

/** Where the search for the first divergence of an A/B pair is. */
export type DivergenceState =
  | { state: 'searching'; compared: number }
  | { state: 'found'; result: Divergence }
  | { state: 'failed'; message: string };

/** An A/B comparison on screen: what differs, the two runs lined up, the cursor. */
export interface AbState {
  choice: AbChoice;
  /** The runs lined up on their workload (base/abAxis.ts). */
  axis: AbAxis;
  /** The axis position whose frames both lanes show. */
  position: number;
  /** The position asked for last; `position` catches up when both frames arrive. */
  target: number;
  /** Toggles whose values differ between A and B, [id, A's value, B's value], in registry order. */
  differing: [string, ToggleValue, ToggleValue][];
  divergence: DivergenceState;
}

/** How a move of the step came about: one a person made by jumping (a Why? hop, a chapter, a plot) leaves a history entry so that Back returns. */
export interface MoveOptions {
  history?: boolean;
}

/** The engine and what it offers, read once when it is attached. */
export interface CatalogSlice {
  engine: SimEngine | null;
  patches: PatchInfo[];
  scenarios: BuiltinScenario[];
  /** The engine's mechanisms, in its order (read once when the engine is attached). */
  mechanisms: MechanismInfo[];
  /** The engine's kernel versions (each changes some toggle), oldest first. */
  kernelVersions: string[];
  /** The kernels the picker offers with the toggles each determines, oldest first (`SimEngine.kernels()`). */
  kernels: KernelInfo[];
  attachEngine: (engine: SimEngine) => void;
}

/** The simulation slice: the scenario, its runs as lanes, the cursor over them. */
export interface SimSlice {
  /** The runs on screen: `a` always; `b` only in an A/B comparison (else empty). */
  runs: Record<LaneId, RunState>;
  scenario: ScenarioRef | null;
  scenarioText: string;
  /** Toggle values of the scenario without overrides. */
  baselineToggles: Record<string, ToggleValue>;
  /** A's toggle overrides (B has A's with the A/B choice on top). */
  toggleOverrides: Record<string, ToggleValue>;
  paramOverrides: Record<string, number>;
  /** The A/B comparison on screen, or null for one run. */
  ab: AbState | null;
  comparison: CounterComparison | null;
  /** The load in progress, or null. The scenario above stays usable while it runs. */
  loading: LoadingState | null;
  /** Set by a move that should leave a history entry; the URL sync pushes the next URL and clears it. */
  historyMark: number;
  /** A link that could not be read, kept in the address bar beside its message until the person does something (the URL sync leaves it alone meanwhile). */
  urlHold: string | null;
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
  /** Starts, changes or (null) ends the A/B comparison; resolves to false when it could not be shown (reported). */
  setAb: (choice: AbChoice | null) => Promise<boolean>;
  /** Moves the cursor to the first step where A and B differ (searching first if needed). */
  goDivergence: () => Promise<void>;
  /** The cursor: A's step alone, the A/B axis position in a comparison. Asks for a position; resolves once its frames are shown. */
  seek: (position: number, options?: MoveOptions) => Promise<void>;
  /** Moves the cursor so that lane `lane` shows `step` (a Why? hop, a chapter, a plot of that lane). */
  seekLane: (lane: LaneId, step: number, options?: MoveOptions) => Promise<void>;
  stepBy: (delta: number) => Promise<void>;
  goFirst: () => Promise<void>;
  goLast: () => Promise<void>;
  /** The next or previous chapter (of A), as a history entry. */
  goChapter: (direction: 1 | -1) => Promise<void>;
  /** Asks for the lane's current frame again with window `w` (clamped to the run); resolves once the latest asked-for frame is shown. */
  setBulkWindow: (lane: LaneId, w: WindowRequest) => Promise<void>;
  /** Moves the lane's window (if needed) so that the frame holds the PTE (pid, vpn); false when no VMA holds it. */
  showPte: (lane: LaneId, pid: number, vpn: number) => Promise<boolean>;
  /** Moves the lane's window (if needed) so that the frame holds frame `pfn`; false when the machine has no such frame. */
  showPfn: (lane: LaneId, pfn: number) => Promise<boolean>;
}

/** The playback slice: play/pause and speed (steps per second). */
export interface PlaybackSlice {
  playing: boolean;
  speed: number;
  play: () => void;
  pause: () => void;
  togglePlay: () => void;
  setSpeed: (stepsPerSecond: number) => void;
  /** Advances one position while playing (once the last one's frames are shown); stops at the end. */
  tick: () => void;
}

/** Something a person can do about a message: a button beside it. */
export interface MessageAction {
  label: string;
  run: () => void;
}

/** A message shown in the error banner. */
export interface AppMessage {
  id: number;
  message: string;
  /** 'info' is a plain notice about something the user did (e.g. a cancelled load), announced politely. */
  severity: 'error' | 'warning' | 'info';
  action?: MessageAction;
}

/** A box of pasted machine output (see uiSlice PASTE_BOXES). */
export type PasteBox = 'lscpu' | 'zoneinfo' | 'vmstatBefore' | 'vmstatAfter' | 'vmstatInterval';

/** What two pasted /proc/vmstat snapshots of a real machine measured. */
export interface Reality {
  delta: VmstatDelta;
  /** Seconds between the snapshots, when the user gave them. */
  intervalS: number | null;
}

/** The UI slice: messages, selection, hover. */
export interface UiSlice {
  messages: AppMessage[];
  selection: Selection | null;
  hoverPfn: number | null;
  report: (message: string, severity?: AppMessage['severity'], action?: MessageAction) => void;
  dismiss: (id: number) => void;
  dismissAll: () => void;
  select: (selection: Selection | null) => void;
  setHoverPfn: (pfn: number | null) => void;
  /** The text in the "Machine from numactl --hardware" box (kept in sessionStorage, so nothing typed is lost on a reload). */
  numactlText: string;
  setNumactlText: (text: string) => void;
  /** The other boxes of pasted machine output (lscpu, zoneinfo, two vmstat snapshots and their interval), kept like numactlText. */
  pastes: Record<PasteBox, string>;
  setPaste: (box: PasteBox, text: string) => void;
  /** Two vmstat snapshots of a real machine shown beside the counters ("model vs reality"), or null. */
  reality: Reality | null;
  setReality: (reality: Reality | null) => void;
  /** What the Plots panel shows (a link carries it). */
  plots: PlotLayout;
  setPlots: (plots: PlotLayout) => void;
}

/** How the lab is shown: the full lab, lecture mode (a room), or embedded in another page. */
export type ViewMode = 'lab' | 'lecture' | 'embed';

/** What the room did with one question: its guess, and whether the answer is shown or the question was skipped. */
export interface QuestionState {
  /** The guess typed or picked (a number, CPU ids, or choice indices), or null. */
  guess: number | number[] | null;
  revealed: boolean;
  /** The step the answer was revealed at (its card stays there and at the step that shows the answer), or null. */
  revealedAt: number | null;
  skipped: boolean;
}

/** The lecture and embed slice: the view mode, lecture mode's slide and notes, an embed's steps, the questions' state. */
export interface LectureSlice {
  mode: ViewMode;
  /** Lecture mode shows its first slide (the scenario's description and parameters) instead of a step. */
  lectureIntro: boolean;
  /** The speaker notes (each chapter's narration) are open in lecture mode. */
  notesOpen: boolean;
  /** The steps an embed shows, inclusive (A's steps): the cursor stays within them; null for the whole run. */
  range: StepRange | null;
  /** Question index -> what the room did with it, for the run on screen (cleared when another run is shown). */
  questionStates: Record<number, QuestionState>;
  /** The page was opened with `?embed` in its query: it stays embedded whatever its fragment says. */
  embedQuery: boolean;
  /** Enters lecture mode (on its first slide with `intro`). */
  enterLecture: (intro?: boolean) => void;
  /** Leaves lecture mode's first slide for the steps (lecture mode stays on). */
  leaveIntro: () => void;
  /** Leaves lecture mode for the full lab, at the same step. */
  exitLecture: () => void;
  setNotesOpen: (open: boolean) => void;
  /** Sets the view from a link: lecture mode, embed mode and the steps it shows. */
  setView: (lecture: LectureMode | null, embed: boolean, range: StepRange | null) => void;
  /** Marks the page as opened with `?embed` (from the query, read once at start). */
  setEmbedQuery: (embed: boolean) => void;
  setGuess: (index: number, guess: QuestionState['guess']) => void;
  reveal: (index: number) => void;
  skipQuestion: (index: number) => void;
  /** Forgets every question's state (a new run is shown). */
  resetQuestions: () => void;
  /** "Next" of a clicker: reveals the question asked at the current step if it waits, else goes to the next chapter (from the first slide: to the first). */
  lectureNext: () => Promise<void>;
  /** "Previous" of a clicker: the previous chapter, or from the first chapter back to the first slide. */
  lecturePrev: () => Promise<void>;
}

/** The whole store. */
export type AppState = CatalogSlice & SimSlice & PlaybackSlice & UiSlice & LectureSlice;
