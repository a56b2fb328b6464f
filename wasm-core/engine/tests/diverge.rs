//! Two runs of one scenario under different toggles: where they first part
//! (`diverge.rs`), and the progress marks that line them up on the workload for the lab's
//! A/B lock-step (`Simulation::progress_marks`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin;
use mmviz_engine::diverge::DivergenceSearch;
use mmviz_engine::engine::Sim;
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::scenario::{self, Scenario};
use mmviz_engine::Simulation;

fn parse(id: &str) -> Scenario {
    let b = builtin::find(id).unwrap();
    scenario::parse(b.text, &b.quick_params()).unwrap()
}

fn with(id: &str, v: &str) -> ToggleSet {
    let mut t = ToggleSet::default();
    t.set_text(id, v).unwrap();
    t
}

/// The event at `step` of a run, narrated.
fn event_at(s: &Scenario, t: &ToggleSet, step: u64) -> mmviz_engine::trace::Event {
    let mut sim = Sim::new(s, t, false);
    while sim.st.step < step {
        sim.step().unwrap();
    }
    sim.recording = true;
    sim.step_event().unwrap()
}

#[test]
fn the_delay_map_runs_first_part_where_v5_12_writes_the_pte_and_v5_13_only_computes_it() {
    let s = parse("numa-hint-fault-101");
    let (off, on) = (with("numa_delay_map", "off"), with("numa_delay_map", "on"));
    let d = DivergenceSearch::new(&s, &off, &on).run();
    let step = d.step.expect("the two kernels differ");
    let (a, b) = (event_at(&s, &off, step), event_at(&s, &on, step));
    assert_eq!((a.function, b.function), ("do_numa_page", "do_numa_page"));
    // v5.12's listing line O3 writes the accessible PTE; v5.13's N2 only computes it.
    assert_eq!((a.line, b.line), ("O3", "N2"));
    assert_eq!(a.cpu, b.cpu);
    // Every step before it is the same in both runs, down to the code line's text.
    let (e, f) = (event_at(&s, &off, step - 1), event_at(&s, &on, step - 1));
    assert_eq!(
        (e.kind, e.cpu, e.function, e.narration.as_str()),
        (f.kind, f.cpu, f.function, f.narration.as_str())
    );
    assert!(d.reason.unwrap().contains("the line of do_numa_page"));
}

#[test]
fn the_same_toggles_never_part_and_every_step_is_compared() {
    let s = parse("numa-hint-fault-101");
    let t = with("numa_delay_map", "on");
    let d = DivergenceSearch::new(&s, &t, &t).run();
    assert_eq!(d.step, None);
    let total = Simulation::from_scenario(s, &t).unwrap().total_steps();
    assert_eq!(d.compared, total);
}

#[test]
fn a_search_in_slices_finds_what_one_call_finds() {
    let s = parse("mremap-2mb");
    let (a, b) = (with("mremap_flush", "deferred"), with("mremap_flush", "present"));
    let whole = DivergenceSearch::new(&s, &a, &b).run();
    // Slices a quarter of the way to the divergence (step 22: the first move_ptes, where
    // v4.19 calls flush_tlb_batched_pending and v4.8 moves the PTE), so it takes several.
    let slice = (whole.step.unwrap() / 4).max(1);
    let mut sliced = DivergenceSearch::new(&s, &a, &b);
    let mut calls = 0;
    let found = loop {
        calls += 1;
        if let Some(d) = sliced.advance(slice) {
            break d.clone();
        }
        assert!(sliced.compared() <= whole.step.unwrap());
    };
    assert_eq!(found, whole);
    assert!(calls > 1);
}

#[test]
fn progress_marks_grow_with_the_workload_and_agree_between_toggle_values() {
    let s = parse("numa-hint-fault-101");
    let runs: Vec<Simulation> = ["off", "on"]
        .iter()
        .map(|v| Simulation::from_scenario(s.clone(), &with("numa_delay_map", v)).unwrap())
        .collect();
    for r in &runs {
        let marks = r.progress_marks();
        assert!(!marks.is_empty());
        assert!(
            marks.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1),
            "marks are in order: {marks:?}"
        );
        let &(last_step, last_ops) = marks.last().unwrap();
        assert!(last_step <= r.total_steps());
        assert_eq!(last_ops, r.final_counters().get(mmviz_engine::mech::core::WORKLOAD_OPS));
    }
    // Same workload: the same values in the same order, at other steps once the runs part.
    let values = |r: &Simulation| r.progress_marks().iter().map(|m| m.1).collect::<Vec<_>>();
    assert_eq!(values(&runs[0]), values(&runs[1]));
    assert_ne!(runs[0].progress_marks(), runs[1].progress_marks());
}
