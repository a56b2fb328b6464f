//! What a lecture reads from a run: questions answered from the run's steps (one test per
//! kind: a counter to guess, which CPUs, statements to pick), answers that follow the
//! toggles, and narration whose CPUs and nodes come from the machine the run has.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin::BUILTINS;
use mmviz_engine::view::{AnswerView, QuestionView};
use mmviz_engine::Simulation;
use std::path::PathBuf;

const HINT_FAULT: &str = "numa-hint-fault-101";

fn builtin(id: &str) -> &'static str {
    BUILTINS.iter().find(|b| b.id == id).unwrap().text
}

fn run(text: &str, delay_map: bool) -> Simulation {
    Simulation::new(text, &[("numa_delay_map".into(), delay_map.to_string())], &[]).unwrap()
}

/// `numa-hint-fault-101` with its own chapters and these questions instead of its own.
fn hint_fault_with(questions: &str) -> String {
    let text = builtin(HINT_FAULT);
    let cut = text.find("[[question]]").unwrap_or(text.len());
    let (head, rest) = text.split_at(cut);
    // Keep what follows the questions (the expectations).
    let tail = rest.find("[[expect]]").map_or("", |i| &rest[i..]);
    format!("{head}{questions}\n{tail}")
}

/// The events of `sim` in `from..to` of `kind`.
fn events_of(sim: &Simulation, from: u64, to: u64, kind: &str) -> Vec<mmviz_engine::trace::Event> {
    sim.events(from, to).into_iter().filter(|e| e.kind.name() == kind).collect()
}

fn question(sim: &Simulation, index: usize) -> QuestionView {
    sim.questions().into_iter().find(|q| q.index as usize == index).unwrap()
}

const COUNT: &str = r#"
[[question]]
chapter = "Hint faults and migration"
prompt = "How many remote TLB flushes do the migrations send?"
until = "end"
counter = "nr_tlb_remote_flush"
"#;

#[test]
fn a_counter_question_is_answered_by_the_counters_change_and_follows_the_toggle() {
    let text = hint_fault_with(COUNT);
    let mut answers = Vec::new();
    for delay in [false, true] {
        let sim = run(&text, delay);
        let q = question(&sim, 0);
        let chapter = sim.chapters().into_iter().find(|c| c.title == "Hint faults and migration").unwrap();
        assert_eq!(q.step, chapter.step, "asked at its chapter's start");
        assert_eq!(q.end, sim.total_steps(), "until = \"end\"");
        let AnswerView::Count { counter, value, from, to } = q.answer.clone() else {
            panic!("{q:?}")
        };
        assert_eq!(counter, "nr_tlb_remote_flush");
        // The counter's own change between the two frames.
        let at = |step: u64| -> u64 {
            let mut s = run(&text, delay);
            s.seek(step).unwrap();
            s.counters().get(mmviz_engine::counters::Counter::from_name(counter).unwrap())
        };
        assert_eq!((from, to), (at(q.step), at(q.end)));
        assert_eq!(value, (to - from) as i64);
        // Evidence: the steps after which the counter moved; the reveal is the frame after the last.
        assert_eq!(q.evidence.len() as i64, value);
        for &s in &q.evidence {
            assert_eq!(at(s + 1), at(s) + 1, "step {s} sends a remote flush");
        }
        assert_eq!(q.reveal_step, q.evidence.last().map_or(q.end, |s| s + 1));
        answers.push(value);
    }
    // v5.12 flushes every migrated page's PTE remotely; v5.13 keeps it PROT_NONE and sends none.
    let pages = 4;
    assert_eq!(
        answers,
        vec![pages, 0],
        "the answer comes from the run, so it follows numa_delay_map"
    );
}

#[test]
fn a_cpus_question_names_the_cpus_with_that_event() {
    let text = hint_fault_with(
        r#"
[[question]]
chapter = "The scanner marks PROT_NONE"
prompt = "Which CPUs receive the flush?"
cpus_with = "ipi_recv"
"#,
    );
    for delay in [false, true] {
        let sim = run(&text, delay);
        let q = question(&sim, 0);
        let AnswerView::Cpus { event, cpus, options } = q.answer.clone() else {
            panic!("{q:?}")
        };
        assert_eq!(event, "ipi_recv");
        assert_eq!(options, vec![0, 1, 2, 3], "the room picks among the machine's CPUs");
        // The scan's flush goes to the other CPU that runs the process: thread 1's, CPU 3.
        assert_eq!(cpus, vec![3]);
        let recv = events_of(&sim, q.step, q.end, "ipi_recv");
        assert_eq!(q.evidence, recv.iter().map(|e| e.step).collect::<Vec<_>>());
        // Its steps end where the next chapter starts.
        let next = sim.chapters().into_iter().map(|c| c.step).filter(|&s| s > q.step).min().unwrap();
        assert_eq!(q.end, next);
    }
}

#[test]
fn a_choice_question_judges_each_statement_on_the_run() {
    let text = hint_fault_with(
        r#"
[[question]]
chapter = "First shootdown decision"
prompt = "Does clearing this PTE need an IPI to CPU {cpu app/1}?"
until = "end"
[[question.choice]]
text = "Yes: CPU {cpu app/1} may still hold the page in its TLB"
event = "ipi_send"
min = 1
[[question.choice]]
text = "No: no TLB can hold a PROT_NONE PTE"
event = "ipi_send"
eq = 0
"#,
    );
    for (delay, yes) in [(false, true), (true, false)] {
        let sim = run(&text, delay);
        let q = question(&sim, 0);
        assert_eq!(q.prompt, "Does clearing this PTE need an IPI to CPU 3?");
        let AnswerView::Choice { choices } = q.answer.clone() else {
            panic!("{q:?}")
        };
        assert_eq!(choices[0].text, "Yes: CPU 3 may still hold the page in its TLB");
        let sends = events_of(&sim, q.step, q.end, "ipi_send").len() as i64;
        assert_eq!(choices[0].value, sends);
        assert_eq!(
            (choices[0].correct, choices[1].correct),
            (yes, !yes),
            "numa_delay_map = {delay}: {sends} IPIs sent"
        );
        assert_eq!(choices[0].measure, "ipi_send");
    }
}

#[test]
fn a_question_at_a_chapter_the_run_never_reaches_is_left_out() {
    // A chapter at an event kind this run never has (mremap moving a PTE).
    let text = hint_fault_with(COUNT).replace(
        "[[question]]",
        "[[chapter]]\ntitle = \"Never\"\nevent = \"pte_move\"\n\n[[question]]\nchapter = \"Never\"\nprompt = \"?\"\ncounter = \"pgmigrate_fail\"\n\n[[question]]",
    );
    let sim = run(&text, true);
    let qs = sim.questions();
    assert_eq!(
        qs.iter().map(|q| q.index).collect::<Vec<_>>(),
        vec![1],
        "only the question whose chapter is reached"
    );
}

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/numactl").join(name);
    std::fs::read_to_string(p).unwrap()
}

/// `text` with its `[machine]` section (up to the next top-level table) replaced by `numactl`
/// output, as the lab's "Machine…" dialog does.
fn with_numactl(text: &str, numactl: &str, scale: u32) -> String {
    let start = text.find("[machine]").unwrap();
    let end = text[start..].find("[toggles]").map(|i| start + i).unwrap();
    format!(
        "{}[machine]\nmem_scale = {scale}\nnumactl = '''\n{numactl}'''\n\n{}",
        &text[..start],
        &text[end..]
    )
}

#[test]
fn narration_names_the_cpus_and_nodes_the_run_has() {
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let own = Simulation::new(builtin(HINT_FAULT), &[], &[]).unwrap();
    let s = own.summary();
    let d = words(&s.description);
    assert!(d.contains("run on node 1 (CPUs 2 and 3); their heap is on node 0"), "{d}");
    assert!(own.chapters()[0].narration.contains("node 1"), "{}", own.chapters()[0].narration);
    // The same scenario on a pasted two-socket machine whose CPUs 2 and 3 are on node 0.
    let text = with_numactl(builtin(HINT_FAULT), &fixture("aws-c5n-18xlarge-2s-intel-72cpu.txt"), 1 << 14);
    let pasted = Simulation::new(&text, &[], &[]).unwrap();
    let d = words(&pasted.summary().description);
    assert!(d.contains("run on node 0 (CPUs 2 and 3); their heap is on node 0"), "{d}");
    assert!(
        !pasted.chapters()[0].narration.contains("node 1"),
        "{}",
        pasted.chapters()[0].narration
    );
    assert!(!d.contains('{'), "every placeholder is resolved: {d}");
}

#[test]
fn every_teaching_scenario_asks_a_question_the_run_answers() {
    for b in BUILTINS.iter().filter(|b| b.id.ends_with("-101")) {
        let sim = Simulation::new(b.text, &[], &[]).unwrap();
        let qs = sim.questions();
        assert!(!qs.is_empty(), "{} asks no question its run reaches", b.id);
        for q in &qs {
            assert!(!q.prompt.contains("{cpu") && !q.prompt.contains("{node"), "{}: {}", b.id, q.prompt);
            assert!(q.step <= q.reveal_step && q.reveal_step <= q.end.max(q.step), "{}: {q:?}", b.id);
            if let AnswerView::Choice { choices } = &q.answer {
                assert!(choices.iter().any(|c| c.correct), "{}: no statement holds on the run: {q:?}", b.id);
            }
        }
        for c in sim.chapters() {
            assert!(
                !c.narration.contains("{cpu ") && !c.narration.contains("{node "),
                "{}: {}",
                b.id,
                c.narration
            );
        }
    }
}
