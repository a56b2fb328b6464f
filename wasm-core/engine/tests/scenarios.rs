//! Scenario-level behaviour: every scenario file's `[[expect]]`, determinism,
//! time travel, and the invariants after every step.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin::{is_teaching, Builtin, BUILTINS};
use mmviz_engine::engine::Sim;
use mmviz_engine::mech::core::{IRQ_TLB_COUNT, LAZY_TLB_SKIPS, NR_TLB_REMOTE_FLUSH, NR_TLB_REMOTE_FLUSH_RECEIVED};
use mmviz_engine::mech::numa::{NUMA_HINT_FAULTS, NUMA_PAGES_MIGRATED};
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::{invariants, run, scenario, Simulation};
use proptest::prelude::*;
use std::path::PathBuf;

fn scenario_files() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("scenarios/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).expect("readable")))
        .collect();
    out.sort();
    out
}

/// The scenarios small enough to record and check after every step.
fn teaching() -> impl Iterator<Item = &'static Builtin> {
    BUILTINS.iter().filter(|b| is_teaching(b.id))
}

fn toggles(delay: bool) -> ToggleSet {
    let mut t = ToggleSet::default();
    t.set_text("numa_delay_map", if delay { "on" } else { "off" })
        .expect("known toggle");
    t
}

/// Every file is a built-in with expectations; the teaching ones' expectations hold. The
/// reproduction scenarios' expectations (runs of up to a minute each) are checked by
/// `mmviz check scenarios/` in the test command (scripts/test-all.sh), in parallel, rather than
/// twice.
#[test]
fn every_scenario_file_is_built_in_and_the_teaching_ones_pass_their_expectations() {
    let files = scenario_files();
    assert!(!files.is_empty());
    for (path, text) in &files {
        let b = BUILTINS.iter().find(|b| b.text == text);
        assert!(b.is_some(), "{path} is not in builtin::BUILTINS (or differs from it)");
        let s = scenario::parse(text, &[]).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(!s.expects.is_empty(), "{path} has no [[expect]]");
        if !b.is_some_and(|b| is_teaching(b.id)) {
            continue;
        }
        for o in run::check(&s).unwrap_or_else(|e| panic!("{path}: {e}")) {
            assert!(o.ok, "{path}:{} {} = {}", o.expect.line, o.expect.name, o.value);
        }
    }
}

#[test]
fn a_batch_of_runs_gives_each_run_alone() {
    let b = BUILTINS.iter().find(|b| b.id == "numa-thread-race-101").unwrap();
    let s = scenario::parse(b.text, &[]).unwrap();
    let sets = [toggles(false), toggles(true), toggles(false)];
    let batch = run::run_many(&s, &sets).unwrap();
    assert_eq!(batch.len(), 3);
    for (t, r) in sets.iter().zip(&batch) {
        let alone = run::run(&s, t).unwrap();
        assert_eq!(r.counters, alone.counters);
        assert_eq!(r.steps, alone.steps);
    }
    assert_ne!(batch[0].counters, batch[1].counters, "the toggle changes the run");
}

#[test]
fn the_same_input_gives_the_same_event_stream() {
    for b in teaching() {
        for delay in [false, true] {
            let a = Simulation::from_scenario(scenario::parse(b.text, &[]).unwrap(), &toggles(delay)).unwrap();
            let c = Simulation::from_scenario(scenario::parse(b.text, &[]).unwrap(), &toggles(delay)).unwrap();
            assert_eq!(a.events(0, u64::MAX), c.events(0, u64::MAX), "{}", b.id);
        }
    }
}

#[test]
fn seek_then_replay_equals_a_straight_run() {
    for b in teaching() {
        let mut sim = Simulation::from_scenario(scenario::parse(b.text, &[]).unwrap(), &toggles(false)).unwrap();
        let total = sim.total_steps();
        let mut straight = Vec::new();
        for s in 0..=total {
            sim.seek(s).unwrap();
            straight.push(digest(sim.sim()));
        }
        for s in (0..=total).rev().step_by(3) {
            sim.seek(s).unwrap();
            assert_eq!(digest(sim.sim()), straight[s as usize], "{} step {s}", b.id);
        }
        assert!(sim.seek(total + 1).is_err());
    }
}

#[test]
fn recorded_and_counter_only_runs_agree() {
    for b in teaching() {
        let s = scenario::parse(b.text, &[]).unwrap();
        for delay in [false, true] {
            let r = run::run(&s, &toggles(delay)).unwrap();
            let mut rec = Simulation::from_scenario(s.clone(), &toggles(delay)).unwrap();
            rec.seek(rec.total_steps()).unwrap();
            assert_eq!(rec.counters(), r.counters);
            assert_eq!(rec.total_steps(), r.steps);
        }
    }
}

#[test]
fn invariants_hold_after_every_step_of_every_scenario() {
    for b in teaching() {
        let s = scenario::parse(b.text, &[]).unwrap();
        for delay in [false, true] {
            let mut sim = Sim::new(&s, &toggles(delay), true);
            while let Some(ev) = sim.step_event() {
                if let Err(e) = invariants::check(&sim) {
                    panic!("{} delay={delay} after step {} ({}): {e}", b.id, ev.step, ev.narration);
                }
            }
        }
    }
}

#[test]
fn with_delay_map_the_migration_unmap_sends_no_ipi_and_without_it_one_per_page() {
    let s = scenario::parse(BUILTINS[0].text, &[]).unwrap();
    let off = run::run(&s, &toggles(false)).unwrap();
    let on = run::run(&s, &toggles(true)).unwrap();
    let migrated = off.counters.get(NUMA_PAGES_MIGRATED);
    assert!(migrated > 0);
    assert_eq!(migrated, on.counters.get(NUMA_PAGES_MIGRATED));
    // The scan flush is the same in both; migrations add one remote flush each without the patch.
    let scan_flushes = on.counters.get(NR_TLB_REMOTE_FLUSH);
    assert_eq!(off.counters.get(NR_TLB_REMOTE_FLUSH), scan_flushes + migrated);
    assert!(on.counters.get(NR_TLB_REMOTE_FLUSH_RECEIVED) < off.counters.get(NR_TLB_REMOTE_FLUSH_RECEIVED));
}

#[test]
fn a_lazy_cpu_gets_no_ipi() {
    // Thread 1 sleeps (lazy TLB) instead of computing: the old flow then sends no migration IPI.
    let text = BUILTINS[0].text.replace(
        "{ op = \"compute\", ns = \"$compute_ns\" }",
        "{ op = \"sleep\", ns = \"$compute_ns\" }",
    );
    let s = scenario::parse(&text, &[]).unwrap();
    for (kernel, sender_counts) in [("v5.12", 1), ("v5.13", 0)] {
        let mut t = toggles(false);
        t.set_text("tlb_flush_multi", if kernel == "v5.13" { "on" } else { "off" }).unwrap();
        let off = run::run(&s, &t).unwrap();
        let migrated = off.counters.get(NUMA_PAGES_MIGRATED);
        assert!(migrated > 0);
        // CPU 1 is lazy but in mm_cpumask: each unmap's flush still counts as remote
        // (scan flushes, if any, too), yet no CPU is interrupted...
        let remote = off.counters.get(NR_TLB_REMOTE_FLUSH);
        assert!(remote >= migrated, "{kernel}: {remote} < {migrated}");
        assert_eq!(off.counters.get(LAZY_TLB_SKIPS), remote, "{kernel}: every one skips lazy CPU 1");
        // ...except that v5.12 runs flush_tlb_func_remote on the sender too.
        assert_eq!(off.counters.get(IRQ_TLB_COUNT), sender_counts * remote, "{kernel}");
        assert_eq!(off.counters.get(NR_TLB_REMOTE_FLUSH_RECEIVED), sender_counts * remote, "{kernel}");
    }
}

#[test]
fn chapters_resolve_to_increasing_steps() {
    for b in teaching() {
        let sim = Simulation::from_scenario(scenario::parse(b.text, &[]).unwrap(), &ToggleSet::default()).unwrap();
        let ch = sim.chapters();
        assert_eq!(
            ch.len(),
            scenario::parse(b.text, &[]).unwrap().chapters.len(),
            "{}: every chapter resolves",
            b.id
        );
        assert!(ch.windows(2).all(|w| w[0].step <= w[1].step), "{}: {ch:?}", b.id);
    }
}

/// The digest after every step of a straight run of each teaching scenario.
fn straight_digests() -> &'static Vec<(String, Vec<String>)> {
    static D: std::sync::OnceLock<Vec<(String, Vec<String>)>> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        teaching()
            .map(|b| {
                let s = scenario::parse(b.text, &[]).unwrap();
                let mut sim = Sim::new(&s, &toggles(false), false);
                let mut v = vec![digest(&sim)];
                while sim.step().is_some() {
                    v.push(digest(&sim));
                }
                (b.text.to_string(), v)
            })
            .collect()
    })
}

/// A move through a recorded run.
#[derive(Clone, Debug)]
enum Move {
    /// Seek to this fraction (per mille) of the run.
    Seek(u64),
    /// Step forward this many steps.
    Step(u64),
}

fn moves() -> impl Strategy<Value = Vec<Move>> {
    prop::collection::vec(
        prop_oneof![(0u64..=1000).prop_map(Move::Seek), (0u64..40).prop_map(Move::Step)],
        1..12,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_of_seeks_and_steps_lands_on_the_straight_runs_state(which in 0usize..16, path in moves()) {
        let all = straight_digests();
        let (text, straight) = &all[which % all.len()];
        let mut sim = Simulation::from_scenario(scenario::parse(text, &[]).unwrap(), &toggles(false)).unwrap();
        let total = sim.total_steps();
        prop_assert_eq!(total as usize + 1, straight.len());
        for m in path {
            match m {
                Move::Seek(f) => sim.seek(total * f / 1000).unwrap(),
                Move::Step(n) => { sim.step(n); }
            }
            let at = sim.current_step();
            prop_assert!(at <= total);
            prop_assert_eq!(&digest(sim.sim()), &straight[at as usize], "step {}", at);
        }
    }

    #[test]
    fn pages_are_conserved_and_invariants_hold_for_any_parameters(pages in 1i64..=32, compute in 0i64..200_000, delay: bool) {
        let s = scenario::parse(BUILTINS[0].text, &[("pages".into(), pages), ("compute_ns".into(), compute)]).unwrap();
        let mut sim = Sim::new(&s, &toggles(delay), false);
        let total = s.topology.total_pages() as usize;
        while sim.step().is_some() {
            prop_assert!(invariants::check(&sim).is_ok(), "{:?}", invariants::check(&sim));
        }
        let free: usize = sim.cfg.topo.nodes.iter().map(|n| sim.st.page_alloc.free_pages(n.id) as usize).sum();
        let used = sim.st.frames.iter().filter(|(_, p)| !p.has(mmviz_engine::machine::pg::FREE)).count();
        prop_assert_eq!(free + used, total);
        // Every thread has exited, and the last one's exit_mmap freed the process's pages.
        prop_assert_eq!(used, 0);
        let c = sim.st.counters;
        // Heap pages beyond node 0's 16 land on node 1; once thread 1 has exited
        // (mm_users == 1) the scan skips those already on the scanning CPU's node.
        let hint = c.get(NUMA_HINT_FAULTS);
        prop_assert!(hint <= pages as u64 && hint + (pages as u64).saturating_sub(16) >= pages as u64, "{hint} hint faults for {pages} pages");
    }

    #[test]
    fn stepping_a_then_b_equals_stepping_a_plus_b(a in 0u64..80, b in 0u64..80) {
        let s = scenario::parse(BUILTINS[0].text, &[]).unwrap();
        let mut x = Simulation::from_scenario(s.clone(), &ToggleSet::default()).unwrap();
        let mut y = Simulation::from_scenario(s, &ToggleSet::default()).unwrap();
        x.step(a);
        x.step(b);
        y.step(a + b);
        prop_assert_eq!(x.current_step(), y.current_step());
        prop_assert_eq!(digest(x.sim()), digest(y.sim()));
    }
}

#[test]
fn the_reproduction_scenario_opens_and_any_step_of_it_can_be_reached() {
    let big = BUILTINS.iter().find(|b| !is_teaching(b.id)).expect("a reproduction scenario");
    let s = scenario::parse(big.text, &[]).unwrap();
    let mut sim = Simulation::from_scenario(s.clone(), &ToggleSet::default()).unwrap();
    let r = run::run(&s, &ToggleSet::default()).unwrap();
    assert_eq!(sim.total_steps(), r.steps);
    assert_eq!(sim.final_counters(), r.counters);
    let (checkpoints, bytes) = sim.checkpoint_bytes();
    assert!(checkpoints <= mmviz_engine::simulation::MAX_CHECKPOINTS, "{checkpoints}");
    assert!(bytes < 64 << 20, "{bytes} bytes of checkpoints");
    for step in [r.steps, r.steps / 2, 1, r.steps / 3 + 7] {
        sim.seek(step).unwrap();
        assert_eq!(sim.current_step(), step);
    }
    sim.seek(r.steps).unwrap();
    assert_eq!(sim.counters(), r.counters);
    assert!(sim.series().len() > 100 && sim.series().len() <= mmviz_engine::simulation::MAX_SERIES);
    assert!(sim
        .series()
        .windows(2)
        .all(|w| w[0].step < w[1].step && w[0].time_ns <= w[1].time_ns));
}

/// The state as far as behaviour goes: everything but the ready queue's internal heap
/// layout (which depends on how the state was reached, not on what it is).
fn digest(sim: &Sim) -> String {
    let st = &sim.st;
    format!(
        "{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}",
        st.cpus,
        st.tasks,
        st.stacks,
        st.mms,
        st.frames.iter().collect::<Vec<_>>(),
        st.page_alloc,
        st.locks,
        st.counters,
        st.step,
        st.rng,
        st.cpus.iter().map(|c| st.readyq.due(c.id)).collect::<Vec<_>>()
    )
}
