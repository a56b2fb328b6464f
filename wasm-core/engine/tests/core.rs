//! Engine core v2 contracts: every (function, line) an event carries is in the listing
//! the run's toggles select, and the cause chain of a shootdown IPI leads back, hop by
//! hop, to the access that faulted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin::BUILTINS;
use mmviz_engine::engine::Sim;
use mmviz_engine::mech::core::ev as core_ev;
use mmviz_engine::patches::{self, ToggleSet};
use mmviz_engine::registry;
use mmviz_engine::testkit::TestScenario;
use mmviz_engine::{scenario, Simulation};
use std::collections::BTreeSet;

/// Every toggle set worth checking: the defaults, and each value of each toggle alone.
fn toggle_sets() -> Vec<ToggleSet> {
    let mut out = vec![ToggleSet::default()];
    for p in patches::registry() {
        for v in p.values() {
            let mut t = ToggleSet::default();
            t.set(p.id, v).unwrap();
            out.push(t);
        }
    }
    out
}

#[test]
fn every_event_line_exists_in_the_listing_its_toggles_select() {
    // One thread per built-in (the machine's cores share them); a failure in any fails the test.
    std::thread::scope(|scope| {
        let runs: Vec<_> = BUILTINS
            .iter()
            .map(|b| scope.spawn(move || every_event_line_of_one_scenario_is_in_its_listing(b)))
            .collect();
        for r in runs {
            if let Err(e) = r.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
}

fn every_event_line_of_one_scenario_is_in_its_listing(b: &mmviz_engine::builtin::Builtin) {
    for t in toggle_sets() {
        let mut s = scenario::parse(b.text, &b.quick_params()).unwrap();
        // Explicit toggles must win over the scenario's own defaults (and kernel) here.
        s.toggles.clear();
        s.kernel = None;
        let mut sim = Sim::new(&s, &t, false);
        let mut seen = BTreeSet::new();
        while let Some(e) = sim.step_event() {
            if seen.insert((e.function, e.line)) {
                let listing = registry::listing(e.function, &t).unwrap_or_else(|| {
                    panic!(
                        "{}: step {} ({}) names `{}`, which has no listing",
                        b.id,
                        e.step,
                        e.kind.name(),
                        e.function
                    )
                });
                assert!(
                    listing.lines.iter().any(|l| l.id == e.line),
                    "{}: step {} ({}) is at {}:{}, a line the active listing ({}) does not have",
                    b.id,
                    e.step,
                    e.kind.name(),
                    e.function,
                    e.line,
                    listing.follows
                );
            }
        }
    }
}

#[test]
fn an_ipi_receipt_leads_back_to_the_faulting_access() {
    let b = BUILTINS.iter().find(|b| b.id == "numa-hint-fault-101").unwrap();
    let mut t = ToggleSet::default();
    t.set_text("numa_delay_map", "off").unwrap();
    let mut s = scenario::parse(b.text, &[]).unwrap();
    s.toggles.clear();
    let sim = Simulation::from_scenario(s, &t).unwrap();
    let events = sim.events(0, sim.total_steps());
    // The migration's IPI, not the scan's: the last receipt of the run.
    let recv = events
        .iter()
        .rev()
        .find(|e| e.kind == core_ev::IPI_RECV)
        .expect("an IPI is received");
    let chain = sim.cause_chain(recv.step);
    let hops: Vec<(&str, &str)> = chain.iter().map(|e| (e.function, e.kind.name())).collect();
    let want = [
        ("flush_tlb_func_remote", "ipi_recv"),
        ("flush_tlb_mm_range", "ipi_send"),
        ("ptep_clear_flush", "pte_clear"),
        ("try_to_unmap_one", "call"),
        ("migrate_misplaced_page", "isolate"),
        ("do_numa_page", "ptl_unlock"),
        ("handle_pte_fault", "fault_entry"),
        ("mmu_walk", "fault_entry"),
    ];
    let mut it = hops.iter();
    for w in want {
        assert!(it.any(|h| *h == w), "the chain {hops:?} lacks {w:?} in order");
    }
    // Each hop is an earlier step than the one it caused, and the chain ends in user mode.
    assert!(chain.windows(2).all(|w| w[1].step < w[0].step));
    assert_eq!(chain.last().map(|e| e.function), Some("mmu_walk"));
}

#[test]
fn the_event_hash_is_a_function_of_scenario_and_toggles() {
    let b = BUILTINS.iter().find(|b| b.id == "sched-101").unwrap();
    let s = scenario::parse(b.text, &[]).unwrap();
    let on = ToggleSet::default();
    let mut off = ToggleSet::default();
    off.set_text("numa_delay_map", "off").unwrap();
    let h = mmviz_engine::run::event_hash(&s, &on).unwrap();
    assert_eq!(h, mmviz_engine::run::event_hash(&s, &on).unwrap());
    assert_ne!(h, mmviz_engine::run::event_hash(&s, &off).unwrap());
}

#[test]
fn an_explicit_scan_with_numa_balancing_off_still_faults_into_do_numa_page() {
    // v1 livelocked here: handle_pte_fault retried a PROT_NONE PTE forever when the sysctl
    // was off. v5.12 routes it to do_numa_page whatever the sysctl says.
    let b = BUILTINS.iter().find(|b| b.id == "numa-hint-fault-101").unwrap();
    let text = b.text.replace("[machine]", "[knobs]\nnuma_balancing = false\n\n[machine]");
    let s = scenario::parse(&text, &[]).unwrap();
    assert!(!s.knobs.on(mmviz_engine::mech::numa::NUMA_BALANCING));
    let r = mmviz_engine::run::run(&s, &ToggleSet::default()).unwrap();
    let pages = r.value("numa_hint_faults").unwrap();
    assert!(pages > 0.0, "{:?}", r.counters);
    assert!(r.steps < 10_000, "{} steps", r.steps);
}

/// Two threads share CPU 0: `a` sleeps 10 µs, `b` computes 200 µs, slices are 20 µs.
const SLEEPER_AND_HOG: &str = r#"
format = 1
id = "sleeper"
title = "t"
description = "t"
seed = 1
[knobs]
sched_slice_us = 20
[machine]
[[machine.node]]
cpus = [0]
mem_pages = 16
[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 2
node = 0
[[process.thread]]
cpu = 0
ops = [{ op = "sleep", ns = 10000 }, { op = "touch", vma = "heap" }]
[[process.thread]]
cpu = 0
ops = [{ op = "compute", ns = 200000 }]
"#;

#[test]
fn a_sleeper_is_woken_by_its_timer_while_another_task_runs_and_runs_at_the_slice_end() {
    let s = scenario::parse(SLEEPER_AND_HOG, &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), true);
    let mut wake = None;
    let mut first_access = None;
    while let Some(e) = sim.step_event() {
        if e.function == "hrtimer_wakeup" {
            assert!(wake.is_none(), "one timer interrupt");
            wake = Some(e.time_ns);
        }
        if e.kind == core_ev::TLB_MISS && first_access.is_none() {
            first_access = Some(e.time_ns);
        }
    }
    let wake = wake.expect("the sleeper's timer fires while the hog computes");
    let first_access = first_access.expect("the sleeper touches its heap");
    assert!(
        (10_000..20_000).contains(&wake),
        "the timer fires at the end of the 10 µs sleep, not when CPU 0 idles: {wake}"
    );
    assert!(
        first_access < 100_000,
        "the woken sleeper runs when the hog's slice ends, long before its 200 µs compute is over: {first_access}"
    );
}

/// Two pinned threads compute on two CPUs; the writeback flusher is woken with nothing to do.
const KTHREAD_WAKE: &str = r#"
format = 1
id = "kthread-wake"
title = "t"
[knobs]
sched_slice_us = 20
[machine]
[[machine.node]]
cpus = [0, 1]
mem_pages = 16
[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 2
[[process.thread]]
cpu = 0
ops = [ { op = "access", vma = "heap", page = 0, write = true }, { op = "compute", ns = 100000 } ]
[[process.thread]]
cpu = 1
ops = [ { op = "access", vma = "heap", page = 1, write = true }, { op = "compute", ns = 100000 } ]
"#;

#[test]
fn a_woken_kernel_thread_runs_in_lazy_tlb_mode_and_sleeps_again() {
    use mmviz_engine::machine::{KthreadKind, TaskKind, TaskState};
    let s = scenario::parse(KTHREAD_WAKE, &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), true);
    let flusher = sim
        .st
        .tasks
        .iter()
        .position(|t| t.kind == TaskKind::Kernel(KthreadKind::Flusher))
        .unwrap() as u16;
    assert_eq!(sim.st.tasks[flusher as usize].state, TaskState::Sleeping(None));
    assert!(mmviz_engine::kernel::sched::core::wake_up_process(&mut sim, 0, flusher));
    assert!(
        !mmviz_engine::kernel::sched::core::wake_up_process(&mut sim, 0, flusher),
        "already awake"
    );
    let mut ran_lazily = false;
    let mut slept = None;
    while let Some(e) = sim.step_event() {
        if let Some(c) = sim.st.cpus.iter().find(|c| c.curr == flusher) {
            // Switched to the flusher: the CPU keeps the user mm loaded (and stays in its
            // mm_cpumask) but is lazy.
            ran_lazily |= c.lazy && c.loaded_mm == Some(0) && sim.st.mms[0].cpumask.test(c.id);
        }
        if e.function == "kthread" {
            assert_eq!(e.line, "KT3", "no mechanism gives the flusher work yet");
            slept = Some(e.step);
        }
    }
    assert!(ran_lazily, "the flusher ran on a lazy CPU");
    assert!(slept.is_some());
    assert_eq!(
        sim.st.tasks[flusher as usize].state,
        TaskState::Sleeping(None),
        "asleep again, until woken"
    );
    // Both threads finished their computation after all.
    assert!(sim.st.tasks.iter().filter(|t| t.mm().is_some()).all(|t| t.state == TaskState::Dead));
}

#[test]
fn a_thread_with_no_free_page_anywhere_stops_and_the_summary_says_so() {
    // One thread touching a 64-page heap on a node of `mem` pages: with 16 the model (no
    // reclaim) stops the thread at the first fault it cannot serve, counts it in
    // `oom_stops` and the summary carries a warning; with 256 nothing is said.
    let text = |mem: u32| {
        TestScenario::new()
            .node(&format!("cpus = [0]\nmem_pages = {mem}"))
            .heap_process(64, &[(0, r#"[{ op = "touch", vma = "heap" }]"#)])
            .text()
    };
    let mut small = Simulation::load(&text(16), &[], &[]).unwrap();
    assert!(small.summary().warnings.is_empty(), "nothing is known before the run");
    small.prepare(u64::MAX).unwrap();
    assert_eq!(small.final_counters().get(mmviz_engine::mech::core::OOM_STOPS), 1);
    let w = small.summary().warnings;
    assert_eq!(w.len(), 1);
    assert!(w[0].starts_with("1 thread stopped: no node had a free page"), "{w:?}");
    let room = Simulation::new(&text(256), &[], &[]).unwrap();
    assert_eq!(room.final_counters().get(mmviz_engine::mech::core::OOM_STOPS), 0);
    assert!(room.summary().warnings.is_empty());
}
