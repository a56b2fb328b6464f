//! What a lecture reads from a run: text that names CPUs and nodes, resolved from the
//! run's own placement (so a chapter says "node 0" when a pasted machine puts the threads
//! there), and the answers to a scenario's questions, computed from the run's steps (so the
//! same question has another answer under another kernel).

use crate::counters::Counter;
use crate::engine::Sim;
use crate::scenario::{Measure, QuestionDef, QuestionKind, Scenario, Text, TextPart, Until};
use crate::trace::EventKind;
use crate::view::{AnswerView, ChoiceView, QuestionView};

/// Events kept as a question's evidence at most.
pub const MAX_EVIDENCE: usize = 32;

/// "4", "2 and 3", "0, 1 and 5": a list of numbers for a sentence.
pub fn and_list(items: &[u16]) -> String {
    match items {
        [] => "none".into(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.iter().map(u16::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// The node holding most of the mapped pages of VMA `vma` of process `process` in `sim`'s
/// state (the lowest such node on a tie), or the VMA's own `node` when it maps none yet.
fn vma_node(sim: &Sim, scenario: &Scenario, process: usize, vma: usize) -> Option<u8> {
    let mm = sim.st.mms.get(process)?;
    let v = mm.vmas.get(vma)?;
    let mut per_node = vec![0u32; sim.cfg.topo.nodes.iter().map(|n| usize::from(n.id) + 1).max().unwrap_or(1)];
    for vpn in v.start..v.start + v.pages {
        let pte = mm.pgtable.pte(vpn);
        if pte.hw_present() || pte.protnone() || pte.is_migration() {
            let nid = usize::from(sim.cfg.topo.pfn_to_nid(pte.pfn()));
            if let Some(n) = per_node.get_mut(nid) {
                *n += 1;
            }
        }
    }
    let best = per_node.iter().enumerate().max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i)));
    match best {
        Some((nid, n)) if *n > 0 => Some(nid as u8),
        _ => scenario.processes.get(process)?.vmas.get(vma)?.node,
    }
}

/// `text` with its placeholders replaced by what `sim`'s state says: where each thread is
/// (`{cpu app/0}`, `{node app/0}`, `{cpus app}`) and where a VMA's pages are
/// (`{node app.heap}`).
pub fn resolve(text: &Text, sim: &Sim, scenario: &Scenario) -> String {
    let cpu_of = |task: usize| sim.st.tasks.get(task).map(|t| t.cpu);
    let node_of = |cpu: u16| sim.cfg.topo.cpu_node.get(usize::from(cpu)).copied();
    text.0
        .iter()
        .map(|p| match p {
            TextPart::Lit(s) => s.clone(),
            TextPart::Cpu { task, .. } => cpu_of(*task).map_or_else(|| "?".into(), |c| c.to_string()),
            TextPart::Node { task, .. } => cpu_of(*task).and_then(node_of).map_or_else(|| "?".into(), |n| n.to_string()),
            TextPart::VmaNode { process, vma, .. } => {
                vma_node(sim, scenario, *process, *vma).map_or_else(|| "(none yet: no page is mapped)".into(), |n| n.to_string())
            }
            TextPart::Cpus { process, .. } => {
                let first: usize = scenario.processes[..*process].iter().map(|p| p.threads.len()).sum();
                let n = scenario.processes.get(*process).map_or(0, |p| p.threads.len());
                let mut cpus: Vec<u16> = (first..first + n).filter_map(cpu_of).collect();
                cpus.sort_unstable();
                cpus.dedup();
                and_list(&cpus)
            }
        })
        .collect()
}

/// Where a question's steps are: frames `start..=end` (events `start..end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The chapter's start.
    pub start: u64,
    /// Where the steps end.
    pub end: u64,
}

/// The steps of `q` given the chapters' starts (`None`: never reached) and the run's
/// length, or `None` when its chapter is never reached.
pub fn span(q: &QuestionDef, starts: &[Option<u64>], total: u64) -> Option<Span> {
    let start = (*starts.get(q.chapter)?)?;
    let end = match q.until {
        Until::End => total,
        // A later chapter's start, or the end when that chapter comes no later (or never).
        Until::Chapter(c) => starts.get(c).copied().flatten().filter(|&s| s > start).unwrap_or(total),
        Until::NextChapter => starts.iter().flatten().copied().filter(|&s| s > start).min().unwrap_or(total),
    };
    Some(Span { start, end })
}

/// What one pass over a question's steps saw.
#[derive(Clone, Debug, Default)]
struct Seen {
    /// Counters at the start.
    before: Option<crate::counters::Counters>,
    /// Counters at the end.
    after: Option<crate::counters::Counters>,
    /// Events: (step, cpu, kind, counters changed by it that the question looks at).
    events: Vec<(u64, u16, EventKind, bool)>,
}

/// The counters and event kinds question `q` looks at.
fn looks_at(q: &QuestionDef) -> (Vec<Counter>, Vec<EventKind>) {
    match &q.kind {
        QuestionKind::Counter(c) => (vec![*c], vec![]),
        QuestionKind::CpusWith(k) => (vec![], vec![*k]),
        QuestionKind::Choice(choices) => {
            let mut counters = Vec::new();
            let mut kinds = Vec::new();
            for c in choices {
                match c.measure {
                    Measure::Counter(x) => counters.push(x),
                    Measure::Events(k) => kinds.push(k),
                }
            }
            (counters, kinds)
        }
    }
}

/// Answers question `q` over `span` of the run that starts at `from` (the run's state at step
/// `span.start` or before it; replayed without narration). `prompt` and the choices' texts
/// are resolved at the question's start.
pub fn answer(index: usize, q: &QuestionDef, span: Span, mut from: Sim, scenario: &Scenario, chapter_title: String) -> QuestionView {
    from.recording = false;
    while from.st.step < span.start {
        if from.step().is_none() {
            break;
        }
    }
    let prompt = resolve(&q.prompt, &from, scenario);
    let choice_texts: Vec<String> = match &q.kind {
        QuestionKind::Choice(cs) => cs.iter().map(|c| resolve(&c.text, &from, scenario)).collect(),
        _ => Vec::new(),
    };
    let (counters, kinds) = looks_at(q);
    let mut seen = Seen {
        before: Some(from.st.counters),
        ..Seen::default()
    };
    let mut sim = from;
    while sim.st.step < span.end {
        let before: Vec<u64> = counters.iter().map(|c| sim.st.counters.get(*c)).collect();
        let Some(info) = sim.step() else { break };
        let moved = counters.iter().zip(&before).any(|(c, b)| sim.st.counters.get(*c) != *b);
        if moved || kinds.contains(&info.kind) {
            seen.events.push((info.step, info.cpu, info.kind, moved));
        }
    }
    seen.after = Some(sim.st.counters);
    let delta = |c: Counter| -> i64 {
        let (b, a) = (
            seen.before.as_ref().map_or(0, |x| x.get(c)),
            seen.after.as_ref().map_or(0, |x| x.get(c)),
        );
        a as i64 - b as i64
    };
    let (answer, evidence): (AnswerView, Vec<u64>) = match &q.kind {
        QuestionKind::Counter(c) => {
            let steps = seen.events.iter().filter(|e| e.3).map(|e| e.0).collect();
            let b = seen.before.as_ref().map_or(0, |x| x.get(*c));
            let a = seen.after.as_ref().map_or(0, |x| x.get(*c));
            (
                AnswerView::Count {
                    counter: c.name(),
                    value: delta(*c),
                    from: b,
                    to: a,
                },
                steps,
            )
        }
        QuestionKind::CpusWith(k) => {
            let hits: Vec<&(u64, u16, EventKind, bool)> = seen.events.iter().filter(|e| e.2 == *k).collect();
            let mut cpus: Vec<u16> = hits.iter().map(|e| e.1).collect();
            cpus.sort_unstable();
            cpus.dedup();
            let mut options: Vec<u16> = (0..sim.cfg.topo.nr_cpus() as u16).collect();
            options.sort_unstable();
            (
                AnswerView::Cpus {
                    event: k.name(),
                    cpus,
                    options,
                },
                hits.iter().map(|e| e.0).collect(),
            )
        }
        QuestionKind::Choice(cs) => {
            let mut steps = Vec::new();
            let choices = cs
                .iter()
                .zip(choice_texts)
                .map(|(c, text)| {
                    let value = match c.measure {
                        Measure::Counter(x) => delta(x),
                        Measure::Events(k) => seen.events.iter().filter(|e| e.2 == k).count() as i64,
                    };
                    ChoiceView {
                        text,
                        correct: c.holds(value),
                        value,
                        measure: match c.measure {
                            Measure::Counter(x) => x.name(),
                            Measure::Events(k) => k.name(),
                        },
                    }
                })
                .collect();
            steps.extend(seen.events.iter().map(|e| e.0));
            (AnswerView::Choice { choices }, steps)
        }
    };
    // The frame after the last event that counts, which shows the whole answer.
    let reveal_step = evidence.last().map_or(span.end, |s| s + 1);
    let mut evidence = evidence;
    evidence.truncate(MAX_EVIDENCE);
    QuestionView {
        index: index as u32,
        line: q.line as u32,
        chapter: chapter_title,
        step: span.start,
        end: span.end,
        prompt,
        answer,
        reveal_step,
        evidence,
    }
}
