//! A simulation to step back and forth in, with three recording modes:
//! - **counters**: [`Sim::step`] alone, no event built, no allocation per step;
//! - **series**: while the run is prepared, counters are sampled over the whole run
//!   (a bounded number of points) and checkpoints are kept;
//! - **detail**: events with narration, and the state of any step, are regenerated on
//!   demand by replaying from the nearest checkpoint, so nothing per step is stored and
//!   there is no record limit.
//!
//! Checkpoints are thinned as the run grows (every other one dropped, the interval
//! doubled), so their number stays below [`MAX_CHECKPOINTS`]; each shares the
//! copy-on-write chunks (frames, PTE tables) that did not change since the previous one.

use crate::counters::Counters;
use crate::engine::{RunError, Sim, State};
use crate::mech::core::WORKLOAD_OPS;
use crate::patches::ToggleSet;
use crate::scenario::{ChapterAnchor, Scenario};
use crate::trace::Event;
use crate::view::{frame_view, ChapterView, FrameBulk, FrameHeader, FrameWindow, SummaryView};
use std::fmt;

/// Checkpoints kept at most (the interval doubles when the run outgrows them).
pub const MAX_CHECKPOINTS: usize = 256;
/// Initial steps between checkpoints.
pub const FIRST_INTERVAL: u64 = 128;
/// Series points kept at most (thinned like checkpoints).
pub const MAX_SERIES: usize = 2048;
/// Events one `events` call returns at most.
pub const MAX_WINDOW: u64 = 50_000;
/// Progress marks kept at most (thinned like checkpoints: every other one dropped).
pub const MAX_MARKS: usize = 1 << 20;

/// Any error the engine reports to a caller.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// Bad scenario text or bad values given to it.
    Scenario(crate::scenario::ScenarioError),
    /// A bad toggle.
    Toggle(String),
    /// The run could not finish.
    Run(RunError),
    /// A step outside the run, or a call before the run is prepared.
    Step(String),
    /// A frame view's window outside the machine.
    Window(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Scenario(e) => write!(f, "{e}"),
            Error::Toggle(e) | Error::Step(e) | Error::Window(e) => f.write_str(e),
            Error::Run(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::scenario::ScenarioError> for Error {
    fn from(e: crate::scenario::ScenarioError) -> Self {
        Error::Scenario(e)
    }
}

/// One sample of the counters over simulated time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Step.
    pub step: u64,
    /// Simulated time, ns.
    pub time_ns: u64,
    /// Counters after the step.
    pub counters: Counters,
}

/// Keeps every other element, starting with the first: the caller doubles its interval.
fn thin<T>(v: &mut Vec<T>) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        i % 2 == 1
    });
}

/// A simulation with a cursor.
#[derive(Debug)]
pub struct Simulation {
    scenario: Scenario,
    /// The run being prepared (runs ahead; `None` once prepared).
    runner: Option<Sim>,
    /// The state at the cursor.
    sim: Sim,
    /// The event of the step that produced the cursor's state.
    last_event: Option<Event>,
    checkpoints: Vec<State>,
    interval: u64,
    series: Vec<Sample>,
    series_every: u64,
    chapters: Vec<Option<u64>>,
    total: Option<u64>,
    final_counters: Counters,
    /// Every kernel function the run's events name, in the order first met (filled while
    /// preparing).
    functions: Vec<&'static str>,
    /// Where the workload got further: `(step, workload_ops)` for each step after which
    /// `workload_ops` (user accesses and calls finished) grew, in step order; thinned to
    /// at most [`MAX_MARKS`] (see [`Simulation::progress_marks`]).
    marks: Vec<(u64, u64)>,
}

impl Simulation {
    /// Parses `text`, applies `toggles` (id, value text) and `params`, and prepares the
    /// whole run.
    pub fn new(text: &str, toggles: &[(String, String)], params: &[(String, i64)]) -> Result<Self, Error> {
        let mut s = Self::load(text, toggles, params)?;
        s.prepare(u64::MAX)?;
        Ok(s)
    }

    /// Parses and sets up without running: call [`Simulation::prepare`] until it is done.
    pub fn load(text: &str, toggles: &[(String, String)], params: &[(String, i64)]) -> Result<Self, Error> {
        let scenario = crate::scenario::parse(text, params)?;
        let mut set = ToggleSet::default();
        for (id, v) in toggles {
            set.set_text(id, v).map_err(Error::Toggle)?;
        }
        Ok(Self::unprepared(scenario, &set))
    }

    /// Sets up an already parsed scenario (e.g. at another seed) without running: call
    /// [`Simulation::prepare`] until it is done.
    pub fn load_scenario(scenario: Scenario, toggles: &ToggleSet) -> Self {
        Self::unprepared(scenario, toggles)
    }

    /// Prepares the whole run of an already parsed scenario.
    pub fn from_scenario(scenario: Scenario, toggles: &ToggleSet) -> Result<Self, Error> {
        let mut s = Self::unprepared(scenario, toggles);
        s.prepare(u64::MAX)?;
        Ok(s)
    }

    fn unprepared(scenario: Scenario, toggles: &ToggleSet) -> Self {
        let runner = Sim::new(&scenario, toggles, false);
        let mut sim = runner.clone();
        sim.recording = true;
        let chapters = vec![None; scenario.chapters.len()];
        Simulation {
            scenario,
            checkpoints: vec![runner.st.clone()],
            runner: Some(runner),
            sim,
            last_event: None,
            interval: FIRST_INTERVAL,
            series: Vec::new(),
            series_every: 1,
            chapters,
            total: None,
            final_counters: Counters::default(),
            functions: Vec::new(),
            marks: Vec::new(),
        }
    }

    /// Runs up to `budget` more steps of the preparation pass; returns the steps
    /// prepared so far. [`Simulation::is_prepared`] tells when it is done.
    pub fn prepare(&mut self, budget: u64) -> Result<u64, Error> {
        let Some(mut runner) = self.runner.take() else {
            return Ok(self.total.unwrap_or(0));
        };
        let max = runner.cfg.knobs.value(crate::mech::core::MAX_STEPS);
        let tasks_per_process: Vec<usize> = self.scenario.processes.iter().map(|p| p.threads.len()).collect();
        // Operation anchors: (chapter, task index, op) still unresolved, and each one's
        // task position before the step (a buffer reused across steps).
        let mut anchors: Vec<(usize, usize, usize)> = self
            .scenario
            .chapters
            .iter()
            .enumerate()
            .filter(|(i, _)| self.chapters[*i].is_none())
            .filter_map(|(i, c)| match c.anchor {
                ChapterAnchor::Op { process, thread, op } => Some((i, tasks_per_process[..process].iter().sum::<usize>() + thread, op)),
                _ => None,
            })
            .collect();
        let mut before: Vec<Option<u16>> = Vec::with_capacity(anchors.len());
        let mut left = budget;
        while left > 0 {
            left -= 1;
            before.clear();
            before.extend(anchors.iter().map(|&(_, ti, _)| crate::view::op_index(&runner, ti)));
            let Some((info, function, _, _)) = runner.step_located() else {
                runner.check_stuck().map_err(Error::Run)?;
                let total = runner.st.step;
                self.total = Some(total);
                self.final_counters = runner.st.counters;
                self.push_sample(&runner, true);
                self.sim.st = self.checkpoints[0].clone();
                self.last_event = None;
                return Ok(total);
            };
            note_function(&mut self.functions, function);
            for (i, c) in self.scenario.chapters.iter().enumerate() {
                if self.chapters[i].is_some() {
                    continue;
                }
                self.chapters[i] = match &c.anchor {
                    ChapterAnchor::Start => Some(0),
                    ChapterAnchor::Event(kind) => (info.kind.name() == kind).then_some(info.step),
                    ChapterAnchor::Op { .. } => None,
                };
            }
            for (k, &(i, ti, op)) in anchors.iter().enumerate() {
                if usize::from(info.task) == ti && before[k].is_some_and(|o| usize::from(o) >= op) {
                    self.chapters[i].get_or_insert(info.step);
                }
            }
            if !anchors.is_empty() {
                anchors.retain(|&(i, _, _)| self.chapters[i].is_none());
            }
            let ops = runner.st.counters.get(WORKLOAD_OPS);
            if ops != self.marks.last().map_or(0, |m| m.1) {
                self.marks.push((runner.st.step, ops));
                if self.marks.len() > MAX_MARKS {
                    thin(&mut self.marks);
                }
            }
            if runner.st.step % self.interval == 0 {
                self.checkpoints.push(runner.st.clone());
                if self.checkpoints.len() > MAX_CHECKPOINTS {
                    // Step 0 stays.
                    thin(&mut self.checkpoints);
                    self.interval *= 2;
                }
            }
            if runner.st.step % self.series_every == 0 {
                self.push_sample(&runner, false);
            }
            if runner.st.step > max {
                return Err(Error::Run(RunError::TooManySteps(max)));
            }
        }
        let done = runner.st.step;
        self.runner = Some(runner);
        Ok(done)
    }

    fn push_sample(&mut self, sim: &Sim, last: bool) {
        if last && self.series.last().is_some_and(|s| s.step == sim.st.step) {
            return;
        }
        self.series.push(Sample {
            step: sim.st.step,
            time_ns: sim.now(),
            counters: sim.st.counters,
        });
        if self.series.len() > MAX_SERIES {
            thin(&mut self.series);
            self.series_every *= 2;
        }
    }

    /// Whether the whole run has been prepared.
    pub fn is_prepared(&self) -> bool {
        self.total.is_some()
    }

    fn total_or_err(&self) -> Result<u64, Error> {
        self.total.ok_or_else(|| Error::Step("the run is still being prepared".into()))
    }

    /// Number of steps in the run (0 until prepared); positions are `0..=total_steps()`.
    pub fn total_steps(&self) -> u64 {
        self.total.unwrap_or(0)
    }

    /// Current position.
    pub fn current_step(&self) -> u64 {
        self.sim.st.step
    }

    /// The checkpoint at or before `step`, as a simulation ready to replay (narration off).
    fn replay_from(&self, step: u64) -> Sim {
        let idx = ((step / self.interval) as usize).min(self.checkpoints.len().saturating_sub(1));
        let mut sim = self.sim.clone();
        sim.st = self.checkpoints[idx].clone();
        sim.recording = false;
        sim
    }

    /// Moves to step `step` (0 = initial state), forwards or backwards.
    pub fn seek(&mut self, step: u64) -> Result<(), Error> {
        let total = self.total_or_err()?;
        if step > total {
            return Err(Error::Step(format!("step {step} is beyond the end of this run ({total} steps)")));
        }
        if step == self.sim.st.step && (step == 0 || self.last_event.is_some()) {
            return Ok(());
        }
        let cur = self.sim.st.step;
        let mut sim = if step > cur && step - cur <= self.interval {
            let mut s = self.sim.clone();
            s.recording = false;
            s
        } else {
            self.replay_from(step.saturating_sub(1))
        };
        while sim.st.step + 1 < step {
            if sim.step().is_none() {
                break;
            }
        }
        self.last_event = None;
        if step > 0 {
            sim.recording = true;
            self.last_event = sim.step_event();
        }
        sim.recording = true;
        self.sim = sim;
        Ok(())
    }

    /// Advances `n` steps (clamped at the end); returns the new position.
    pub fn step(&mut self, n: u64) -> u64 {
        let target = self.current_step().saturating_add(n).min(self.total_steps());
        // In range by construction.
        let _ = self.seek(target);
        self.current_step()
    }

    /// Events with step in `[from, to)` (at most [`MAX_WINDOW`]), regenerated with
    /// narration by replaying from the nearest checkpoint.
    pub fn events(&self, from: u64, to: u64) -> Vec<Event> {
        let total = self.total_steps();
        let (from, to) = (from.min(total), to.min(total).min(from.saturating_add(MAX_WINDOW)));
        if from >= to {
            return Vec::new();
        }
        let mut sim = self.replay_from(from);
        while sim.st.step < from {
            if sim.step().is_none() {
                return Vec::new();
            }
        }
        sim.recording = true;
        let mut out = Vec::with_capacity((to - from) as usize);
        while sim.st.step < to {
            match sim.step_event() {
                Some(e) => out.push(e),
                None => break,
            }
        }
        out
    }

    /// The event at `step`, if the run has one.
    pub fn event(&self, step: u64) -> Option<Event> {
        self.events(step, step + 1).pop()
    }

    /// The chain of causes of the event at `step`: that event, the event that started
    /// its frame, and so on up to an event with no cause.
    pub fn cause_chain(&self, step: u64) -> Vec<Event> {
        let mut out = Vec::new();
        let mut next = Some(step);
        while let Some(s) = next {
            let Some(e) = self.event(s) else { break };
            next = (e.cause != crate::trace::NO_CAUSE && e.cause < s).then_some(e.cause);
            out.push(e);
            if out.len() > 64 {
                break;
            }
        }
        out
    }

    /// The view of the current step: fills `bulk` (reused from call to call) with the
    /// PTEs and frames of `window` and every TLB, and returns the header.
    pub fn frame(&self, window: &FrameWindow, bulk: &mut FrameBulk) -> Result<FrameHeader, Error> {
        frame_view(&self.sim, self.last_event.as_ref(), window, bulk).map_err(Error::Window)
    }

    /// Static facts.
    pub fn summary(&self) -> SummaryView {
        SummaryView::new(
            &self.scenario,
            &self.sim,
            self.chapters(),
            self.total_steps(),
            crate::run::warnings(&self.final_counters),
            self.functions(),
        )
    }

    /// Counters at the current step.
    pub fn counters(&self) -> Counters {
        self.sim.st.counters
    }

    /// Every kernel function the run's events name, sorted; empty until the run is
    /// prepared.
    pub fn functions(&self) -> Vec<&'static str> {
        if self.total.is_none() {
            return Vec::new();
        }
        let mut f = self.functions.clone();
        f.sort_unstable();
        f
    }

    /// Counters at the end of the run.
    pub fn final_counters(&self) -> Counters {
        self.final_counters
    }

    /// Counters sampled over the run.
    pub fn series(&self) -> &[Sample] {
        &self.series
    }

    /// How far the workload had got at each step: `(step, workload_ops)` for the steps
    /// after which `workload_ops` grew (position `step` is the first to show the new
    /// value), in step order; empty until the run is prepared. Two runs of one scenario
    /// under different toggles make the same accesses in the same order per thread, so
    /// these marks line them up on the workload rather than on raw steps, which differ (the
    /// lab's A/B lock-step). A run with more than [`MAX_MARKS`] keeps every 2^k-th mark: the
    /// alignment is coarser there, still in order.
    pub fn progress_marks(&self) -> &[(u64, u64)] {
        if self.total.is_none() {
            return &[];
        }
        &self.marks
    }

    /// The engine state at the cursor (for tests and invariants).
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// Resolved chapters.
    pub fn chapters(&self) -> Vec<ChapterView> {
        self.scenario
            .chapters
            .iter()
            .zip(&self.chapters)
            .filter_map(|(c, s)| {
                s.map(|step| ChapterView {
                    step,
                    title: c.title.clone(),
                    narration: c.narration.clone(),
                })
            })
            .collect()
    }

    /// Checkpoints kept, and the bytes they hold beyond what they share with the state
    /// before them (frames and PTE tables in copy-on-write chunks), an estimate for the
    /// memory benchmark.
    pub fn checkpoint_bytes(&self) -> (usize, usize) {
        let mut bytes = 0;
        for (i, cp) in self.checkpoints.iter().enumerate() {
            bytes += crate::view::state_bytes(cp, i.checked_sub(1).map(|j| &self.checkpoints[j]));
        }
        (self.checkpoints.len(), bytes)
    }
}

/// Adds `function` to `seen` unless it is there. A step names a string literal, so the
/// pointer comparison finds it at once; the text comparison catches the same name from
/// another literal.
fn note_function(seen: &mut Vec<&'static str>, function: &'static str) {
    if seen.iter().any(|f| std::ptr::eq(*f, function)) || seen.contains(&function) {
        return;
    }
    seen.push(function);
}
