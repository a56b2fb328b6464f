//! A recorded simulation for stepping back and forth: the whole run is recorded once,
//! with checkpoints of the state every [`CHECKPOINT_EVERY`] steps, so `seek` to any step
//! restores the nearest checkpoint and replays at most that many steps.

use crate::engine::{RunError, Sim, State};
use crate::patches::ToggleSet;
use crate::scenario::{ChapterAnchor, Scenario};
use crate::trace::Event;
use crate::view::{frame_view, ChapterView, FrameStateView, SummaryView};
use std::fmt;

/// Steps between checkpoints.
pub const CHECKPOINT_EVERY: u64 = 128;
/// Recorded runs longer than this are refused (use the CLI's counter-only runs).
pub const RECORD_LIMIT: u64 = 250_000;

/// Any error the engine reports to a caller.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// Bad scenario text or bad values given to it.
    Scenario(crate::scenario::ScenarioError),
    /// A bad toggle.
    Toggle(String),
    /// The run could not finish.
    Run(RunError),
    /// A step outside the run.
    Step(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Scenario(e) => write!(f, "{e}"),
            Error::Toggle(e) | Error::Step(e) => f.write_str(e),
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

/// A recorded run with a cursor.
#[derive(Debug)]
pub struct Simulation {
    scenario: Scenario,
    sim: Sim,
    events: Vec<Event>,
    checkpoints: Vec<State>,
    chapters: Vec<ChapterView>,
}

impl Simulation {
    /// Parses `text`, applies `toggles` (id, value text) and `params`, and records the run.
    pub fn new(text: &str, toggles: &[(String, String)], params: &[(String, i64)]) -> Result<Self, Error> {
        let scenario = crate::scenario::parse(text, params)?;
        let mut set = ToggleSet::default();
        for (id, v) in toggles {
            set.set_text(id, v).map_err(Error::Toggle)?;
        }
        Self::from_scenario(scenario, &set)
    }

    /// Records the run of an already parsed scenario.
    pub fn from_scenario(scenario: Scenario, toggles: &ToggleSet) -> Result<Self, Error> {
        let mut sim = Sim::new(&scenario, toggles, true);
        let initial = sim.st.clone();
        let mut checkpoints = Vec::new();
        let mut events = Vec::new();
        let limit = scenario.knobs.max_steps.min(RECORD_LIMIT);
        // Chapter anchors on workload operations resolve to the first step of that op's thread.
        let mut pending: Vec<(usize, usize, ChapterAnchor)> = scenario
            .chapters
            .iter()
            .enumerate()
            .map(|(i, c)| (i, 0, c.anchor.clone()))
            .collect();
        let mut chapter_steps: Vec<Option<u64>> = vec![None; scenario.chapters.len()];
        let task_index = |p: usize, t: usize| -> usize { scenario.processes[..p].iter().map(|x| x.threads.len()).sum::<usize>() + t };
        loop {
            if sim.st.step % CHECKPOINT_EVERY == 0 {
                checkpoints.push(sim.st.clone());
            }
            let cursors: Vec<usize> = if pending.is_empty() {
                Vec::new()
            } else {
                sim.st.tasks.iter().map(|t| t.cursor.op).collect()
            };
            let Some(ev) = sim.step() else { break };
            pending.retain(|(i, _, anchor)| {
                let hit = match anchor {
                    ChapterAnchor::Start => true,
                    ChapterAnchor::Event(kind) => ev.kind.name() == kind,
                    ChapterAnchor::Op { process, thread, op } => {
                        let ti = task_index(*process, *thread);
                        sim.st.tasks.get(ti).is_some_and(|t| t.cpu == ev.cpu) && cursors.get(ti).is_some_and(|c| c >= op)
                    }
                };
                if hit {
                    chapter_steps[*i] = Some(if matches!(anchor, ChapterAnchor::Start) { 0 } else { ev.step });
                }
                !hit
            });
            events.push(ev);
            if sim.st.step > limit {
                return Err(if limit == RECORD_LIMIT {
                    Error::Step(format!(
                        "this scenario runs longer than the {RECORD_LIMIT} steps the lab records for stepping; run it headless with `mmviz run {}` instead",
                        scenario.id
                    ))
                } else {
                    Error::Run(RunError::TooManySteps(limit))
                });
            }
        }
        sim.check_stuck().map_err(Error::Run)?;
        let chapters = scenario
            .chapters
            .iter()
            .zip(&chapter_steps)
            .filter_map(|(c, s)| {
                s.map(|step| ChapterView {
                    step,
                    title: c.title.clone(),
                    narration: c.narration.clone(),
                })
            })
            .collect::<Vec<_>>();
        sim.st = initial;
        Ok(Simulation {
            scenario,
            sim,
            events,
            checkpoints,
            chapters,
        })
    }

    /// Number of steps in the run; valid positions are `0..=total_steps()`.
    pub fn total_steps(&self) -> u64 {
        self.events.len() as u64
    }

    /// Current position.
    pub fn current_step(&self) -> u64 {
        self.sim.st.step
    }

    /// Moves to step `step` (0 = initial state), forwards or backwards.
    pub fn seek(&mut self, step: u64) -> Result<(), Error> {
        let total = self.total_steps();
        if step > total {
            return Err(Error::Step(format!("step {step} is beyond the end of this run ({total} steps)")));
        }
        let cur = self.sim.st.step;
        if step < cur || step - cur > CHECKPOINT_EVERY {
            let idx = (step / CHECKPOINT_EVERY) as usize;
            if let Some(cp) = self.checkpoints.get(idx) {
                self.sim.st = cp.clone();
            }
        }
        self.sim.recording = false;
        while self.sim.st.step < step {
            if self.sim.step().is_none() {
                break;
            }
        }
        self.sim.recording = true;
        Ok(())
    }

    /// Advances `n` steps (clamped at the end); returns the new position.
    pub fn step(&mut self, n: u64) -> u64 {
        let target = self.current_step().saturating_add(n).min(self.total_steps());
        // In range by construction.
        let _ = self.seek(target);
        self.current_step()
    }

    /// Events with step in `[from, to)`.
    pub fn events(&self, from: u64, to: u64) -> &[Event] {
        let len = self.events.len() as u64;
        let (a, b) = (from.min(len), to.min(len).max(from.min(len)));
        &self.events[a as usize..b as usize]
    }

    /// The view of the current step.
    pub fn frame(&self) -> FrameStateView {
        let s = self.current_step();
        let ev = s.checked_sub(1).and_then(|i| self.events.get(i as usize));
        frame_view(&self.sim, ev)
    }

    /// Static facts.
    pub fn summary(&self) -> SummaryView {
        SummaryView::new(&self.scenario, &self.sim, self.chapters.clone(), self.total_steps())
    }

    /// Counters at the current step.
    pub fn counters(&self) -> crate::counters::Counters {
        self.sim.st.counters
    }

    /// The engine state (for tests and invariants).
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// Resolved chapters.
    pub fn chapters(&self) -> &[ChapterView] {
        &self.chapters
    }
}
