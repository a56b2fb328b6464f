//! Serialisable views for the UI (camelCase). With the feature `ts` they derive ts-rs's `TS`:
//! `tests/ts_types.rs` generates `web/src/engine/generated/` from them (`web/src/engine/types.ts`
//! names them for the UI).

use crate::counters::Counter;
use crate::engine::{Sim, State};
use crate::machine::{TaskKind, TaskState, Wait};
use crate::mech::core::ev as core_ev;
use crate::patches::{Listing, Patch, ToggleValue};
use crate::registry::Frame;
use crate::scenario::{Scenario, VmaKind};
use crate::trace::{Event, NO_CAUSE};
use serde::Serialize;
use std::collections::BTreeMap;

mod bulk;
pub use bulk::*;

/// A named number of a scenario (`[params]`), overridable from the CLI and the UI.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ParamView {
    /// Name.
    pub name: String,
    /// In effect.
    pub value: i64,
    /// Default.
    pub default: i64,
    /// Minimum.
    pub min: i64,
    /// Maximum.
    pub max: i64,
    /// Meaning.
    pub description: String,
}

/// A lecture chapter: a named point in the run, resolved to a step.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChapterView {
    /// First step of the chapter.
    pub step: u64,
    /// Heading.
    pub title: String,
    /// Narration.
    pub narration: String,
}

/// A question asked at a chapter (`[[question]]`), with its answer as this run gives it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct QuestionView {
    /// Index among the file's `[[question]]`s.
    pub index: u32,
    /// Line of its prompt in the scenario file.
    pub line: u32,
    /// Title of the chapter it is asked at (resolved).
    pub chapter: String,
    /// Where it is asked: the chapter's first step (before the steps that answer it).
    pub step: u64,
    /// Where its steps end: the answer is about events `step..end`.
    pub end: u64,
    /// The question (placeholders resolved at `step`).
    pub prompt: String,
    /// The run's answer.
    pub answer: AnswerView,
    /// The frame that shows the whole answer: after the last event that counts toward it
    /// (`end` when none does).
    pub reveal_step: u64,
    /// Steps of the events that count toward the answer, in order (at most 32).
    pub evidence: Vec<u64>,
}

/// A question's answer, computed from the run.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum AnswerView {
    /// How much a counter changed over the question's steps.
    #[serde(rename_all = "camelCase")]
    Count {
        /// Counter.
        counter: &'static str,
        /// Its change (`to - from`).
        value: i64,
        /// At the question's start.
        from: u64,
        /// At its end.
        to: u64,
    },
    /// Which CPUs had an event of a kind.
    #[serde(rename_all = "camelCase")]
    Cpus {
        /// Event kind.
        event: &'static str,
        /// The CPUs that had one, ascending.
        cpus: Vec<u16>,
        /// Every CPU of the machine (what the room picks from).
        options: Vec<u16>,
    },
    /// Which statements hold.
    #[serde(rename_all = "camelCase")]
    Choice {
        /// The statements in file order.
        choices: Vec<ChoiceView>,
    },
}

/// One statement of a choice question, judged on the run.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ChoiceView {
    /// The statement (resolved).
    pub text: String,
    /// Whether it holds on this run.
    pub correct: bool,
    /// What it measures (a counter, or an event kind whose events are counted).
    pub measure: &'static str,
    /// The measure over the question's steps.
    pub value: i64,
}

/// A node.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NodeView {
    /// Id.
    pub id: u8,
    /// CPUs.
    pub cpus: Vec<u16>,
    /// Number of 4 KiB frames the node owns in the model.
    pub mem_pages: u32,
    /// First pfn of the node; the node owns `[firstPfn, firstPfn + memPages)`.
    pub first_pfn: u32,
}

/// The machine.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TopologyView {
    /// Nodes.
    pub nodes: Vec<NodeView>,
    /// NUMA distances, `distance[from][to]` (10: local).
    pub distance: Vec<Vec<u32>>,
    /// TLB entries per CPU.
    pub tlb_entries: u32,
}

/// A thread.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ThreadView {
    /// Index in the process.
    pub tid: u16,
    /// CPU.
    pub cpu: u16,
}

/// A VMA.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct VmaView {
    /// First virtual page number.
    pub start_vpn: u32,
    /// Pages.
    pub pages: u32,
    /// Anonymous or file-backed.
    pub kind: VmaKindView,
    /// Name.
    pub name: String,
}

/// Kind of a VMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum VmaKindView {
    /// Anonymous memory.
    Anon,
    /// A file mapping.
    File,
}

/// A process.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ProcessView {
    /// Pid.
    pub pid: u16,
    /// Name.
    pub name: String,
    /// Threads.
    pub threads: Vec<ThreadView>,
    /// VMAs.
    pub vmas: Vec<VmaView>,
}

/// Static facts of a loaded scenario (they do not change while stepping).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SummaryView {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Description, with the CPUs and nodes it names resolved from the run at step 0.
    pub description: String,
    /// Seed.
    pub seed: u64,
    /// Every registry toggle with the value in effect for this simulation.
    pub toggles: BTreeMap<String, ToggleValue>,
    /// Parameters.
    pub params: Vec<ParamView>,
    /// Chapters.
    pub chapters: Vec<ChapterView>,
    /// Questions asked at chapters, with the run's answers, in file order (none before
    /// the run is prepared, and none for a chapter the run never reaches).
    pub questions: Vec<QuestionView>,
    /// Number of steps of the whole run; valid steps are `0..=totalSteps` (0 from `describe`, which does not run).
    pub total_steps: u64,
    /// Machine.
    pub topology: TopologyView,
    /// Processes.
    pub processes: Vec<ProcessView>,
    /// Counter names in display order (kernel vmstat names first).
    pub counter_names: Vec<&'static str>,
    /// The listing of every modelled function, as the run's toggles select them.
    pub listings: Vec<&'static Listing>,
    /// What the reader must know before trusting the whole run's numbers
    /// ([`crate::run::warnings`] of the final counters; none before the run is prepared).
    pub warnings: Vec<String>,
    /// Every kernel function the whole run's events name, sorted (empty before the run is
    /// prepared): which patches change code this run goes through.
    pub functions: Vec<&'static str>,
    /// `[explore]`: the scenario is made for the Explore view (its toggle and budget).
    pub explore: Option<crate::scenario::ExploreDef>,
}

/// Objects an event touched, for highlighting.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TouchedView {
    /// `[pid, vpn]` pairs.
    pub ptes: Vec<(u16, u32)>,
    /// Frames.
    pub pfns: Vec<u32>,
    /// Other CPUs involved (e.g. IPI receivers).
    pub cpus: Vec<u16>,
}

/// One micro-step: one kernel action on one CPU.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EventView {
    /// Index of the step; the frame after this event is frame `step + 1`.
    pub step: u64,
    /// Simulated time of the step, in ns.
    pub time_ns: u64,
    /// The CPU that acted.
    pub cpu: u16,
    /// Machine-readable kind, e.g. "tlb_miss", "hint_fault", "ipi_send", "ipi_recv", "flush_local", "migrate_copy".
    pub kind: &'static str,
    /// Kernel function the step belongs to.
    pub function: &'static str,
    /// Line id in that function's listing for the active toggle set, or "" when none.
    pub line: &'static str,
    /// Step of the event that started this event's frame (null: none).
    pub cause: Option<u64>,
    /// The acting task, as "pid/tid", a kernel thread's name, or "swapper/N".
    pub task: String,
    /// Narration.
    pub narration: String,
    /// Touched objects.
    pub touched: TouchedView,
    /// Counter name -> change caused by this step (only non-zero entries).
    pub counter_deltas: BTreeMap<&'static str, i64>,
}

impl EventView {
    /// The view of `e`, naming its task from `st`.
    pub fn new(e: &Event, st: &State) -> Self {
        EventView {
            step: e.step,
            time_ns: e.time_ns,
            cpu: e.cpu,
            kind: e.kind.name(),
            function: e.function,
            line: e.line,
            cause: (e.cause != NO_CAUSE).then_some(e.cause),
            task: task_label(st, e.task),
            narration: e.narration.clone(),
            touched: TouchedView {
                ptes: e.ptes.clone(),
                pfns: e.pfns.clone(),
                cpus: e.cpus.clone(),
            },
            counter_deltas: e.deltas.iter().map(|(c, d)| (c.name(), *d)).collect(),
        }
    }
}

/// A CPU (its TLB is in the frame's bulk arrays).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CpuView {
    /// Id (the CPU's index in the frame's `cpus`).
    pub id: u16,
    /// NUMA node.
    pub node: u8,
    /// "pid/tid" of the running thread, or null when idle / in a kernel thread.
    pub task: Option<String>,
    /// Pid of the mm whose page tables are loaded, or null.
    pub loaded_mm: Option<u16>,
    /// Lazy TLB mode.
    pub lazy: bool,
    /// Kernel function on top of this CPU's call stack, or "" when in user mode or idle.
    pub in_function: &'static str,
    /// Function names on the running task's stack, bottom first (an IPI handler on top
    /// shows what it interrupted).
    pub stack: Vec<&'static str>,
    /// What it is doing, e.g. "running", "idle", "waiting for IPI acks", "spinning on PTL".
    pub state: String,
}

/// An IPI in flight or delivered in this step, for animation.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IpiView {
    /// Sender.
    pub from: u16,
    /// Receiver.
    pub to: u16,
    /// Sent: on its way this step; received: handled this step.
    pub phase: IpiPhase,
}

/// Where an IPI is in its flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum IpiPhase {
    /// On its way this step.
    Sent,
    /// Handled this step.
    Received,
}

/// Where the event's CPU is in the code pane.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CodeView {
    /// Function.
    pub function: &'static str,
    /// Line id.
    pub line: &'static str,
}

/// Everything the panels draw for one step except the bulk arrays ([`FrameBulk`]):
/// the small, serde part of a frame. (The UI's `Frame` is this plus `bulk`, the typed
/// arrays the wasm layer adds: `web/src/engine/bulk.ts`.)
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FrameHeader {
    /// Step (0 before the first event).
    pub step: u64,
    /// Simulated time, in ns.
    pub time_ns: u64,
    /// The event that produced this frame (step - 1), or null at step 0.
    pub event: Option<EventView>,
    /// CPUs (their TLBs are in the bulk arrays).
    pub cpus: Vec<CpuView>,
    /// pid -> mm_cpumask as a list of CPU ids.
    pub mm_cpumask: BTreeMap<String, Vec<u16>>,
    /// IPIs in flight or delivered in this step.
    pub ipis: Vec<IpiView>,
    /// Counter name -> value.
    pub counters: BTreeMap<&'static str, u64>,
    /// Where the event's CPU is in the code pane, or null.
    pub code: Option<CodeView>,
    /// Which PTEs the bulk arrays hold: a view of a large machine is windowed and says so.
    pub pte_window: BulkWindow,
    /// Which frames the bulk arrays hold (`offset` is the first pfn).
    pub frame_window: BulkWindow,
    /// View id -> the state its panel draws at this step (`ViewDef::state`; the panel
    /// knows the shape, declared beside the mechanism and typed by ts-rs). Only views
    /// with something to show are present.
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub views: BTreeMap<&'static str, serde_json::Value>,
}

/// What a summary says for people, resolved from the run: the description, the chapters
/// and the questions with their answers.
#[derive(Clone, Debug, Default)]
pub struct LectureText {
    /// Description (at step 0).
    pub description: String,
    /// Chapters reached.
    pub chapters: Vec<ChapterView>,
    /// Questions of chapters reached.
    pub questions: Vec<QuestionView>,
}

impl SummaryView {
    /// Builds the summary.
    pub fn new(
        s: &Scenario,
        sim: &Sim,
        lecture: LectureText,
        total_steps: u64,
        warnings: Vec<String>,
        functions: Vec<&'static str>,
    ) -> Self {
        SummaryView {
            id: s.id.clone(),
            title: s.title.clone(),
            description: lecture.description,
            seed: s.seed,
            toggles: sim.cfg.toggles.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            params: s
                .params
                .iter()
                .map(|p| ParamView {
                    name: p.name.clone(),
                    value: p.value,
                    default: p.default,
                    min: p.min,
                    max: p.max,
                    description: p.description.clone(),
                })
                .collect(),
            explore: s.explore.clone(),
            chapters: lecture.chapters,
            questions: lecture.questions,
            total_steps,
            topology: TopologyView {
                nodes: s
                    .topology
                    .nodes
                    .iter()
                    .map(|n| NodeView {
                        id: n.id,
                        cpus: n.cpus.clone(),
                        mem_pages: n.mem_pages,
                        first_pfn: n.first_pfn,
                    })
                    .collect(),
                distance: s.topology.distance.clone(),
                tlb_entries: s.topology.tlb_entries,
            },
            processes: s
                .processes
                .iter()
                .enumerate()
                .map(|(pi, p)| ProcessView {
                    pid: pi as u16 + 1,
                    name: p.name.clone(),
                    threads: p
                        .threads
                        .iter()
                        .enumerate()
                        .map(|(ti, t)| ThreadView {
                            tid: ti as u16,
                            cpu: t.cpu,
                        })
                        .collect(),
                    vmas: p
                        .vmas
                        .iter()
                        .zip(&sim.st.mms[pi].vmas)
                        .map(|(d, v)| VmaView {
                            start_vpn: v.start,
                            // Live: 0 once munmap removed it.
                            pages: v.pages,
                            kind: if d.kind == VmaKind::File {
                                VmaKindView::File
                            } else {
                                VmaKindView::Anon
                            },
                            name: d.name.clone(),
                        })
                        .collect(),
                })
                .collect(),
            counter_names: Counter::all().iter().map(|c| c.name()).collect(),
            listings: crate::registry::active_listings(&sim.cfg.toggles),
            warnings,
            functions,
        }
    }
}

/// "pid/tid" of a user thread, a kernel thread's name, or "swapper/N".
pub fn task_label(st: &State, task: u16) -> String {
    match st.tasks.get(task as usize).map(|t| (t.kind, t.home)) {
        Some((TaskKind::User { mm, tid }, _)) => format!("{}/{}", st.mms[mm as usize].pid, tid),
        Some((TaskKind::Kernel(k), home)) => format!("{}/{home}", k.name()),
        Some((TaskKind::Idle, home)) => format!("swapper/{home}"),
        None => String::new(),
    }
}

/// The operation index a user thread is at (the locals of its base frame).
pub fn op_index(sim: &Sim, task: usize) -> Option<u16> {
    sim.st.stacks.get(task)?.iter().next()?.user_mode().map(|u| u.op_index())
}

/// Bytes of `st` not shared with `prev` (frames, PTE tables and the page allocator's
/// per-page arrays are copy-on-write chunks; everything else is counted whole). An
/// estimate for the memory benchmark.
pub fn state_bytes(st: &State, prev: Option<&State>) -> usize {
    use std::mem::size_of;
    let frames = match prev {
        Some(p) => st.frames.unshared_chunks(&p.frames),
        None => (st.frames.len() as usize).div_ceil(crate::machine::page::CHUNK),
    } * crate::machine::page::CHUNK
        * size_of::<crate::machine::Page>();
    let tables: usize = st
        .mms
        .iter()
        .enumerate()
        .map(|(i, m)| match prev.and_then(|p| p.mms.get(i)) {
            Some(pm) => m.pgtable.unshared_tables(&pm.pgtable),
            None => m.pgtable.pmds().count(),
        })
        .sum::<usize>()
        * size_of::<crate::machine::pgtable::PteTable>();
    let cpus: usize = st
        .cpus
        .iter()
        .map(|c| {
            size_of::<crate::machine::Cpu>()
                + c.tlb.capacity() * size_of::<crate::machine::TlbEntry>()
                + c.inbox.len() * size_of::<crate::machine::Ipi>()
        })
        .sum();
    let stacks: usize = st.stacks.iter().map(|s| s.len() * (size_of::<Frame>() + 8) + 24).sum();
    let tasks = st.tasks.len() * size_of::<crate::machine::Task>();
    let mms: usize = st
        .mms
        .iter()
        .map(|m| size_of::<crate::machine::Mm>() + m.vmas.len() * size_of::<crate::machine::Vma>() + m.pgtable.pmds().count() * 16)
        .sum();
    let page_alloc = st.page_alloc.unshared_bytes(prev.map(|p| &p.page_alloc));
    frames + tables + cpus + stacks + tasks + mms + page_alloc + (st.frames.len() as usize).div_ceil(8) + size_of::<State>()
}

/// Builds the frame view of `sim`'s current state (`event` produced it): fills `bulk`
/// with the PTEs and frames of `window` and every TLB, and returns the header. A bad
/// window is an error (and `bulk` is left empty).
pub fn frame_view(sim: &Sim, event: Option<&Event>, window: &FrameWindow, bulk: &mut FrameBulk) -> Result<FrameHeader, String> {
    let (pte_window, frame_window) = bulk.fill(sim, window)?;
    let st = &sim.st;
    let cpus = st
        .cpus
        .iter()
        .map(|c| {
            let stack: Vec<&'static str> = st.stacks[c.curr as usize]
                .iter()
                .filter(|f| !matches!(f, Frame::Idle))
                .map(Frame::function)
                .collect();
            let in_function = stack.last().copied().filter(|f| *f != "user code").unwrap_or("");
            let task = &st.tasks[c.curr as usize];
            let state = match c.wait {
                Wait::Acks => format!("waiting for {} IPI ack(s)", c.acks_pending),
                Wait::Lock(id) => format!("spinning on a {} lock", id.class.name()),
                Wait::Busy(_) => "running user code".into(),
                Wait::Stop(other) => format!("its stopper waits for CPU {other}'s (migrate_swap)"),
                Wait::None => match task.kind {
                    TaskKind::Idle if c.loaded_mm.is_some() => "idle (lazy TLB)".into(),
                    TaskKind::Idle => "idle".into(),
                    TaskKind::Kernel(k) => format!("running {}", k.name()),
                    TaskKind::User { .. } if stack.len() > 1 => format!("in {}", stack.last().copied().unwrap_or("the kernel")),
                    TaskKind::User { .. } => "running".into(),
                },
            };
            CpuView {
                id: c.id,
                node: c.node,
                task: (task.kind != TaskKind::Idle && task.state == TaskState::Running).then(|| task_label(st, c.curr)),
                loaded_mm: c.loaded_mm.map(|m| st.mms[m as usize].pid),
                lazy: c.lazy,
                in_function,
                stack,
                state,
            }
        })
        .collect();
    let ipis = match event {
        Some(e) if e.kind == core_ev::IPI_SEND => e
            .cpus
            .iter()
            .map(|&to| IpiView {
                from: e.cpu,
                to,
                phase: IpiPhase::Sent,
            })
            .collect(),
        Some(e) if e.kind == core_ev::IPI_RECV => e
            .cpus
            .iter()
            .map(|&from| IpiView {
                from,
                to: e.cpu,
                phase: IpiPhase::Received,
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(FrameHeader {
        step: st.step,
        time_ns: event.map_or(0, |e| e.time_ns),
        event: event.map(|e| EventView::new(e, st)),
        cpus,
        mm_cpumask: st.mms.iter().map(|m| (m.pid.to_string(), m.cpumask.iter().collect())).collect(),
        ipis,
        counters: st.counters.iter().map(|(c, v)| (c.name(), v)).collect(),
        code: event.filter(|e| !e.function.is_empty()).map(|e| CodeView {
            function: e.function,
            line: e.line,
        }),
        pte_window,
        frame_window,
        views: view_states(sim),
    })
}

/// Every mechanism view's state snapshot at `sim`'s current step (see `ViewDef::state`).
pub fn view_states(sim: &Sim) -> BTreeMap<&'static str, serde_json::Value> {
    crate::registry::MECHANISMS
        .iter()
        .flat_map(|m| m.views)
        .filter_map(|v| Some((v.id, (v.state?)(sim)?)))
        .collect()
}

/// One entry of the patch registry as the UI sees it, with its values and default.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PatchView {
    /// Entry.
    #[serde(flatten)]
    pub patch: &'static Patch,
    /// For enums: the values in declaration order; for bools: `[false, true]`.
    pub values: Vec<ToggleValue>,
    /// The registry's default value.
    pub default: ToggleValue,
}

/// Every registry entry.
pub fn patch_views() -> Vec<PatchView> {
    crate::patches::registry()
        .iter()
        .map(|p| PatchView {
            patch: p,
            values: p.values(),
            default: p.default_value(),
        })
        .collect()
}

/// Every counter sampled over a whole prepared run: at most about 2 000 samples, evenly
/// spaced in steps, the last one at the end of the run.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SeriesView {
    /// Step of each sample, increasing.
    pub steps: Vec<f64>,
    /// Simulated time of each sample, in ns (non-decreasing).
    pub time_ns: Vec<f64>,
    /// Counter name -> its cumulative value at each sample (same length as `steps`).
    pub counters: BTreeMap<&'static str, Vec<f64>>,
}

impl SeriesView {
    /// The series of `samples` (steps and times as JS numbers).
    pub fn new(samples: &[crate::simulation::Sample]) -> Self {
        SeriesView {
            steps: samples.iter().map(|s| s.step as f64).collect(),
            time_ns: samples.iter().map(|s| s.time_ns as f64).collect(),
            counters: Counter::all()
                .iter()
                .map(|c| (c.name(), samples.iter().map(|s| s.counters.get(*c) as f64).collect()))
                .collect(),
        }
    }
}

/// A built-in scenario for the picker.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BuiltinView {
    /// Id (the file stem).
    pub id: &'static str,
    /// Title (the id when the scenario does not parse).
    pub title: String,
    /// The TOML text.
    pub text: &'static str,
    /// Parameters that make it a short run with the same mechanisms at work, for tests
    /// (empty when it is short already).
    #[cfg_attr(feature = "ts", ts(type = "Record<string, number>"))]
    pub quick: std::collections::BTreeMap<&'static str, i64>,
    /// `[explore]`, when it is made for the Explore view.
    pub explore: Option<crate::scenario::ExploreDef>,
}

/// Every built-in scenario, teaching ones first.
pub fn builtin_views() -> Vec<BuiltinView> {
    crate::builtin::BUILTINS
        .iter()
        .map(|b| {
            let parsed = crate::scenario::parse(b.text, &[]).ok();
            BuiltinView {
                id: b.id,
                title: parsed.as_ref().map_or_else(|| b.id.to_string(), |s| s.title.clone()),
                text: b.text,
                quick: b.quick.iter().copied().collect(),
                explore: parsed.and_then(|s| s.explore),
            }
        })
        .collect()
}

/// A counter as a mechanism declares it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CounterInfoView {
    /// Name (the kernel's, where it has one).
    pub name: &'static str,
    /// What it counts.
    pub doc: String,
    /// Whether the kernel has it (vmstat, /proc/stat, /proc/interrupts) or only the model.
    pub kernel: bool,
}

/// An event kind as a mechanism declares it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EventKindInfoView {
    /// Name (events carry it as `kind`).
    pub name: &'static str,
    /// What happened.
    pub doc: String,
    /// Its family (timeline colour).
    pub category: crate::trace::EventCategory,
}

/// One argument of a workload operation.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OpArgView {
    /// Field name.
    pub name: &'static str,
    /// What it means.
    pub doc: &'static str,
    /// Whether it must be given.
    pub required: bool,
}

/// A workload operation as a mechanism declares it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OpInfoView {
    /// `op = "name"`.
    pub name: &'static str,
    /// What it does.
    pub doc: &'static str,
    /// Its arguments.
    pub args: Vec<OpArgView>,
}

/// A `[costs]` or `[knobs]` entry a mechanism declares.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SettingView {
    /// Name in the scenario table.
    pub name: &'static str,
    /// What it sets.
    pub doc: String,
    /// Default as written in a scenario (`None`: unset).
    pub default: Option<i64>,
}

/// A view a mechanism brings: the web panel `id` draws it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ViewInfoView {
    /// Panel id.
    pub id: &'static str,
    /// Heading.
    pub title: &'static str,
    /// Counters plotted by default when the mechanism runs.
    pub plots: Vec<&'static str>,
}

/// A mechanism and everything it declares, for the lab and `mmviz mechanisms`.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MechanismView {
    /// Id.
    pub id: &'static str,
    /// What it models.
    pub title: &'static str,
    /// Its toggle ids.
    pub toggles: Vec<&'static str>,
    /// Its counters.
    pub counters: Vec<CounterInfoView>,
    /// Its event kinds.
    pub events: Vec<EventKindInfoView>,
    /// Its workload operations.
    pub ops: Vec<OpInfoView>,
    /// Its `[costs]` entries (ns).
    pub costs: Vec<SettingView>,
    /// Its `[knobs]` entries.
    pub knobs: Vec<SettingView>,
    /// Its views.
    pub views: Vec<ViewInfoView>,
    /// Its named presets, each with the toggles it sets (kernel first, then its own).
    pub presets: Vec<PresetView>,
    /// Its metrics (name and meaning).
    pub metrics: Vec<MetricInfoView>,
}

/// A named preset, resolved to the toggle values it sets.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PresetView {
    /// Name (`--preset NAME`).
    pub name: &'static str,
    /// What it reproduces.
    pub doc: &'static str,
    /// The kernel it starts from, if any.
    pub kernel: Option<&'static str>,
    /// Every toggle it sets explicitly, `(id, value)`, in registry order.
    pub toggles: Vec<(&'static str, ToggleValue)>,
}

/// A metric a mechanism declares.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MetricInfoView {
    /// Name.
    pub name: &'static str,
    /// What it measures.
    pub doc: String,
}

/// The toggles a preset sets, or the ones a kernel version sets, `(id, value)`.
fn explicit(t: &crate::patches::ToggleSet) -> Vec<(&'static str, ToggleValue)> {
    t.iter()
        .filter(|(id, _)| t.is_explicit(id))
        .map(|(id, v)| (id, v.clone()))
        .collect()
}

/// Every toggle a mainline kernel version sets, `(id, value)` (`--kernel`, the lab's
/// kernel picker).
pub fn kernel_toggles(version: &str) -> Result<Vec<(&'static str, ToggleValue)>, String> {
    let mut t = crate::patches::ToggleSet::default();
    t.set_kernel(crate::patches::Kernel::parse(version)?);
    Ok(explicit(&t))
}

/// A declaration's doc comment as one line, without the "`name`: " or "Model only: "
/// it starts with (the view says both).
fn doc_line(name: &str, doc: &str) -> String {
    let text = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = text.strip_prefix(&format!("`{name}`: ")).unwrap_or(&text);
    text.strip_prefix("Model only: ").unwrap_or(text).to_string()
}

/// Every mechanism, in registry order.
pub fn mechanism_views() -> Vec<MechanismView> {
    crate::registry::MECHANISMS
        .iter()
        .map(|m| MechanismView {
            id: m.id,
            title: m.title,
            toggles: m.toggles.iter().map(|t| t.id).collect(),
            counters: m
                .counters
                .iter()
                .map(|c| CounterInfoView {
                    name: c.name,
                    doc: doc_line(c.name, c.doc),
                    kernel: c.kernel,
                })
                .collect(),
            events: m
                .events
                .iter()
                .map(|e| EventKindInfoView {
                    name: e.name,
                    doc: doc_line(e.name, e.doc),
                    category: e.category,
                })
                .collect(),
            ops: m
                .ops
                .iter()
                .map(|o| OpInfoView {
                    name: o.name,
                    doc: o.doc,
                    args: o
                        .args
                        .iter()
                        .map(|a| OpArgView {
                            name: a.name,
                            doc: a.doc,
                            required: a.required,
                        })
                        .collect(),
                })
                .collect(),
            costs: m
                .costs
                .iter()
                .map(|c| SettingView {
                    name: c.name,
                    doc: doc_line(c.name, c.doc),
                    default: Some(c.default as i64),
                })
                .collect(),
            knobs: m
                .knobs
                .iter()
                .map(|k| SettingView {
                    name: k.name,
                    doc: doc_line(k.name, k.doc),
                    default: k.default,
                })
                .collect(),
            views: m
                .views
                .iter()
                .map(|v| ViewInfoView {
                    id: v.id,
                    title: v.title,
                    plots: v.plots.to_vec(),
                })
                .collect(),
            presets: m
                .presets
                .iter()
                .map(|p| {
                    let mut t = crate::patches::ToggleSet::default();
                    // A registry test applies every preset; a broken one lists nothing.
                    let toggles = if t.apply_preset(p).is_ok() { explicit(&t) } else { Vec::new() };
                    PresetView {
                        name: p.name,
                        doc: p.doc,
                        kernel: p.kernel,
                        toggles,
                    }
                })
                .collect(),
            metrics: m
                .metrics
                .iter()
                .map(|x| MetricInfoView {
                    name: x.name,
                    doc: doc_line(x.name, x.doc),
                })
                .collect(),
        })
        .collect()
}
