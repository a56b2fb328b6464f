//! Where two runs of one scenario first part: the lab's "jump to first divergence" and
//! `mmviz diverge`.
//!
//! Two runs of the same scenario, seed and parameters under different toggles take the
//! same steps until a toggle changes what some step does. Both runs are stepped side by
//! side from the start and each pair of steps is compared by what a reader of the trace
//! sees: the CPU and task that acted, the event kind, the kernel function, the *text* of
//! the pseudo-code line it ran (each toggle value has its own listing with its own line
//! ids, so `O1` of v5.12's `do_numa_page` and `N1` of v5.13's are the same line when their
//! text is the same), and the PTE and frames it touched. Simulated time is not compared:
//! a step that costs more shows in the next step's placement anyway, and a difference in
//! time alone would point at a pair of steps that read the same.
//!
//! The search runs in slices ([`DivergenceSearch::advance`]) so the lab can report
//! progress and stop it, as it does when preparing a run.

use crate::engine::Sim;
use crate::patches::{Listing, ToggleSet};
use crate::registry;
use crate::scenario::Scenario;
use crate::topology::CpuId;
use crate::trace::EventKind;
use serde::Serialize;

/// What a step did, as far as the comparison goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Signature {
    cpu: CpuId,
    task: u16,
    kind: EventKind,
    function: &'static str,
    /// The listing line's text, or its id when the function has no listing.
    line: &'static str,
    pte: Option<(u16, u32)>,
    pfns: [Option<u32>; 2],
}

/// The outcome of a finished search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    /// Index of the first step whose events differ (the frame at `step + 1` shows it in
    /// both runs), or `None` when the runs are the same to the end.
    pub step: Option<u64>,
    /// Steps compared (the shorter run's length when one ends first).
    pub compared: u64,
    /// Why the step differs, for people: which parts of the two events differ.
    pub reason: Option<String>,
}

/// Two runs stepped side by side until they first differ.
#[derive(Debug)]
pub struct DivergenceSearch {
    a: Sim,
    b: Sim,
    /// Listing of each function met, per run (looked up once: a step names a string literal).
    lines_a: Vec<(&'static str, Option<&'static Listing>)>,
    lines_b: Vec<(&'static str, Option<&'static Listing>)>,
    outcome: Option<Divergence>,
}

impl DivergenceSearch {
    /// Sets up both runs of `scenario` (nothing is stepped yet).
    pub fn new(scenario: &Scenario, a: &ToggleSet, b: &ToggleSet) -> Self {
        DivergenceSearch {
            a: Sim::new(scenario, a, false),
            b: Sim::new(scenario, b, false),
            lines_a: Vec::new(),
            lines_b: Vec::new(),
            outcome: None,
        }
    }

    /// Steps compared so far.
    pub fn compared(&self) -> u64 {
        self.a.st.step.min(self.b.st.step)
    }

    /// The outcome, once the search is over.
    pub fn outcome(&self) -> Option<&Divergence> {
        self.outcome.as_ref()
    }

    /// Compares up to `budget` more pairs of steps; returns the outcome once found (then
    /// at once on every later call).
    pub fn advance(&mut self, budget: u64) -> Option<&Divergence> {
        for _ in 0..budget {
            if self.outcome.is_some() {
                break;
            }
            let step = self.a.st.step;
            let sa = signature(&mut self.a, &mut self.lines_a);
            let sb = signature(&mut self.b, &mut self.lines_b);
            self.outcome = match (sa, sb) {
                (None, None) => Some(Divergence {
                    step: None,
                    compared: step,
                    reason: None,
                }),
                (Some(_), None) | (None, Some(_)) => Some(Divergence {
                    step: Some(step),
                    compared: step,
                    reason: Some(format!(
                        "run {} ends here while the other goes on",
                        if sa.is_none() { "A" } else { "B" }
                    )),
                }),
                (Some(x), Some(y)) if x != y => Some(Divergence {
                    step: Some(step),
                    compared: step,
                    reason: Some(differences(&x, &y)),
                }),
                _ => None,
            };
        }
        self.outcome.as_ref()
    }

    /// Runs the search to its end (for the CLI and tests).
    pub fn run(mut self) -> Divergence {
        loop {
            if let Some(d) = self.advance(1 << 16) {
                return d.clone();
            }
        }
    }
}

/// Steps `sim` once and reads what the step did.
fn signature(sim: &mut Sim, cache: &mut Vec<(&'static str, Option<&'static Listing>)>) -> Option<Signature> {
    let (info, t) = sim.step_touched()?;
    let listing = match cache.iter().find(|(f, _)| std::ptr::eq(*f, t.function) || *f == t.function) {
        Some((_, l)) => *l,
        None => {
            let l = registry::listing(t.function, &sim.cfg.toggles);
            cache.push((t.function, l));
            l
        }
    };
    let line = listing
        .and_then(|l| l.lines.iter().find(|c| c.id == t.line))
        .map_or(t.line, |c| c.text);
    Some(Signature {
        cpu: info.cpu,
        task: info.task,
        kind: info.kind,
        function: t.function,
        line,
        pte: t.pte,
        pfns: t.pfns,
    })
}

/// "the CPU (2 / 3), the code line" — the parts of two signatures that differ.
fn differences(a: &Signature, b: &Signature) -> String {
    let mut parts = Vec::new();
    if a.cpu != b.cpu {
        parts.push(format!("the CPU ({} / {})", a.cpu, b.cpu));
    }
    if a.task != b.task {
        parts.push(format!("the task ({} / {})", a.task, b.task));
    }
    if a.kind != b.kind {
        parts.push(format!("the event ({} / {})", a.kind.name(), b.kind.name()));
    }
    if a.function != b.function {
        parts.push(format!("the function ({} / {})", a.function, b.function));
    } else if a.line != b.line {
        parts.push(format!("the line of {} (\"{}\" / \"{}\")", a.function, a.line, b.line));
    }
    if a.pte != b.pte {
        parts.push("the PTE touched".to_string());
    }
    if a.pfns != b.pfns {
        parts.push("the frames touched".to_string());
    }
    format!("A and B differ in {}", parts.join(", "))
}
