//! The interleaving explorer (`explore.rs`): independent CPUs are not interleaved both
//! ways, dependent ones are, the first schedule explored is the default run, and a bad
//! outcome's schedule replays to the same finding.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin;
use mmviz_engine::counters::Counter;
use mmviz_engine::engine::Sim;
use mmviz_engine::explore::{explore, Budget};
use mmviz_engine::patches::{ToggleSet, ToggleValue};
use mmviz_engine::scenario::{self, Scenario};
use mmviz_engine::testkit::TestScenario;

fn parse(text: &str) -> Scenario {
    scenario::parse(text, &[]).unwrap()
}

const SMALL: Budget = Budget {
    states: 20_000,
    depth: 2_000,
    delays: None,
};

#[test]
fn two_processes_that_share_nothing_are_one_schedule() {
    // Two processes, each a store to its own page (populated at start) on its own CPU:
    // every order of their steps reaches the same state, so sleep sets leave one schedule.
    // (Without `node`, the first touch would allocate, and which process gets which free
    // page depends on the order: that is shared state.)
    let s = parse(
        &TestScenario::new()
            .node("cpus = [0, 1]\nmem_pages = 32")
            .then(
                r#"
[[process]]
name = "a"
[[process.vma]]
name = "heap"
pages = 1
node = 0
[[process.thread]]
cpu = 0
ops = [ { op = "access", vma = "heap", page = 0, write = true } ]
[[process]]
name = "b"
[[process.vma]]
name = "heap"
pages = 1
node = 0
[[process.thread]]
cpu = 1
ops = [ { op = "access", vma = "heap", page = 0, write = true } ]
"#,
            )
            .text(),
    );
    let x = explore(&s, &ToggleSet::default(), SMALL, true);
    assert!(x.exhaustive, "{:?}", x.cut);
    assert_eq!(x.runs, 1, "{x:?}");
    assert_eq!(x.outcomes.len(), 1);
    assert!(x.commuting_checks > 0, "the pairs were checked, and found to commute");
}

#[test]
fn two_threads_faulting_on_one_page_are_explored_in_both_orders() {
    // Two threads of one process store to the same (not yet present) page: who faults
    // first, and whether the other finds the PTE present, depends on the order.
    let s = parse(
        &TestScenario::new()
            .node("cpus = [0, 1]\nmem_pages = 32")
            .heap_process(
                1,
                &[
                    (0, r#"[ { op = "access", vma = "heap", page = 0, write = true } ]"#),
                    (1, r#"[ { op = "access", vma = "heap", page = 0, write = true } ]"#),
                ],
            )
            .text(),
    );
    let x = explore(&s, &ToggleSet::default(), SMALL, true);
    assert!(x.exhaustive, "{:?}", x.cut);
    assert!(x.runs > 1, "{x:?}");
    assert!(x.outcomes.iter().all(|o| !o.bad), "{:?}", x.outcomes);
    // Whichever thread comes first, one page is allocated and faulted in.
    let faults = Counter::from_name("anon_faults").unwrap();
    let total: Vec<u64> = x.outcomes.iter().map(|o| o.counters.get(faults)).collect();
    assert!(total.iter().all(|&f| (1..=2).contains(&f)), "{total:?}");
}

#[test]
fn the_lost_write_is_found_in_the_first_schedules_and_its_schedule_replays() {
    let mut s = parse(builtin::find("mremap-race-101").unwrap().text);
    let mut t = ToggleSet::default();
    t.set("mremap_flush", ToggleValue::Enum("deferred".into())).unwrap();
    let x = explore(
        &s,
        &t,
        Budget {
            states: 300,
            depth: 2_000,
            delays: None,
        },
        true,
    );
    let lost = x
        .outcomes
        .iter()
        .find(|o| o.bad && o.findings.iter().any(|f| f.kind == "lost_write"))
        .expect("the scenario's own run loses a write under `deferred`");
    assert!(!x.exhaustive);
    // The schedule replays to the same lost write, at the step the finding names.
    s.schedule = lost.schedule.clone();
    let mut sim = Sim::new(&s, &t, false);
    sim.run_to_end().unwrap();
    let lost_writes = Counter::from_name("lost_writes").unwrap();
    assert_eq!(sim.st.counters.get(lost_writes), 1);
    assert_eq!(sim.st.step, lost.steps);
    assert_eq!(sim.st.counters, lost.counters);
}

#[test]
fn an_explore_table_names_its_toggle_and_budget_and_a_bad_one_is_refused_with_its_line() {
    let race = builtin::find("mremap-race-101").unwrap();
    let s = parse(race.text);
    let e = s.explore.expect("mremap-race-101 is marked explorable");
    assert_eq!(e.toggle.as_deref(), Some("mremap_flush"));
    assert_eq!(e.budget, scenario::EXPLORE_BUDGET);
    let bad_toggle = race.text.replace("toggle = \"mremap_flush\"", "toggle = \"no_such_rule\"");
    let err = scenario::parse(&bad_toggle, &[]).unwrap_err().to_string();
    assert!(
        err.contains("explore.toggle") && err.contains("no_such_rule") && err.contains("line"),
        "{err}"
    );
    let bad_budget = race
        .text
        .replace("toggle = \"mremap_flush\"", "toggle = \"mremap_flush\"\nbudget = 0");
    let err = scenario::parse(&bad_budget, &[]).unwrap_err().to_string();
    assert!(err.contains("explore.budget"), "{err}");
    let unknown = race
        .text
        .replace("toggle = \"mremap_flush\"", "toggle = \"mremap_flush\"\nbudgett = 5");
    let err = scenario::parse(&unknown, &[]).unwrap_err().to_string();
    assert!(err.contains("budgett"), "{err}");
}

fn bounded(states: u64, delays: u32) -> Budget {
    Budget {
        states,
        depth: 2_000,
        delays: Some(delays),
    }
}

fn with(id: &str, value: &str) -> ToggleSet {
    let mut t = ToggleSet::default();
    t.set_text(id, value).unwrap();
    t
}

#[test]
fn a_delay_bound_of_zero_is_the_default_run_and_each_larger_bound_covers_what_the_smaller_did() {
    let s = parse(builtin::find("numa-thread-race-101").unwrap().text);
    let t = with("numa_delay_map", "on");
    let zero = explore(&s, &t, bounded(100_000, 0), true);
    assert!(zero.exhaustive);
    assert_eq!(zero.runs, 1);
    assert_eq!(zero.outcomes.len(), 1);
    assert!(
        zero.outcomes[0].schedule.picks().is_empty(),
        "the one schedule is the default order"
    );
    let mut before = zero;
    for d in 1..=3 {
        let x = explore(&s, &t, bounded(100_000, d), true);
        assert!(x.exhaustive && x.delays == Some(d));
        for o in &before.outcomes {
            assert!(
                x.outcomes.iter().any(|p| p.counters == o.counters || p.schedule == o.schedule),
                "bound {d} lost an outcome bound {} reached: {}",
                d - 1,
                o.schedule
            );
        }
        assert!(x.outcomes.len() >= before.outcomes.len() && x.states > before.states);
        before = x;
    }
}

#[test]
fn numa_thread_race_outcomes_differ_as_the_changelog_says_and_none_is_bad() {
    // b99a342d4f11: with the delayed mapping the second thread hint-faults too and its
    // isolation fails (the first fault holds the page off the LRU); without it the second
    // thread uses the PTE the first fault made present.
    let s = parse(builtin::find("numa-thread-race-101").unwrap().text);
    let faults = |x: &mmviz_engine::explore::Exploration, hint: u64, isolate_fail: u64| {
        x.outcomes.iter().any(|o| {
            o.counters.get(Counter::from_name("numa_hint_faults").unwrap()) == hint
                && o.counters.get(Counter::from_name("migrate_isolate_fail").unwrap()) >= isolate_fail
        })
    };
    let on = explore(&s, &with("numa_delay_map", "on"), bounded(100_000, 2), true);
    let off = explore(&s, &with("numa_delay_map", "off"), bounded(100_000, 2), true);
    assert!(on.exhaustive && off.exhaustive);
    assert!(
        faults(&on, 2, 1),
        "with the patch some schedule has two hint faults and a failed isolation"
    );
    assert!(!faults(&off, 2, 1), "without it none has");
    let isolate_fail = Counter::from_name("migrate_isolate_fail").unwrap();
    assert!(off.outcomes.iter().all(|o| o.counters.get(isolate_fail) == 0));
    assert!(on.outcomes.iter().chain(&off.outcomes).all(|o| !o.bad));
}

#[test]
fn within_one_deviation_only_the_deferred_flush_loses_a_write() {
    // Seed 001's argument: a stale writable entry left past the PTL lets a store land in a
    // page writeback has cleaned; every rule that flushes under the PTL closes the window.
    let s = parse(builtin::find("mremap-race-101").unwrap().text);
    for (rule, loses) in [
        ("deferred", true),
        ("dirty", false),
        ("present", false),
        ("dirty_file_or_swapcache", false),
    ] {
        let x = explore(&s, &with("mremap_flush", rule), bounded(100_000, 1), true);
        assert!(x.exhaustive, "{rule}");
        let lost = x.outcomes.iter().any(|o| o.findings.iter().any(|f| f.kind == "lost_write"));
        assert_eq!(lost, loses, "{rule}");
        assert!(
            x.outcomes
                .iter()
                .all(|o| o.bad == o.findings.iter().any(|f| f.kind == "lost_write")),
            "{rule}"
        );
    }
}

/// A file page, a writer that wakes the flusher, and an mremap, on three CPUs: the
/// explorer found the last thread's exit tearing the page tables down while the flusher's
/// `page_mkclean_one` held one of their PTE locks (an invariant broke), which the kernel's
/// `zap_pte_range` cannot do (it takes the lock).
const EXIT_RACE: &str = r#"
format = 1
id = "exit-race"
title = "exit during an rmap walk"
seed = 1
[toggles]
mremap_flush = "deferred"
[machine]
tlb_entries = 4
distance = [[10]]
[[machine.node]]
cpus = [0, 1, 2]
mem_pages = 8
[[process]]
name = "file"
[[process.vma]]
name = "shared"
kind = "file"
file = "data.bin"
pages = 1
node = 0
[[process.thread]]
cpu = 0
ops = [
  { op = "access", vma = "shared", page = 0, write = true },
  { op = "wakeup_flusher" },
  { op = "access_old", vma = "shared", page = 0, write = true },
]
[[process.thread]]
cpu = 1
ops = [{ op = "mremap", vma = "shared" }]
"#;

#[test]
fn the_last_exit_waits_for_a_pte_lock_an_rmap_walk_holds() {
    let s = parse(EXIT_RACE);
    for rule in ["deferred", "dirty"] {
        let x = explore(&s, &with("mremap_flush", rule), bounded(200_000, 4), true);
        assert!(x.exhaustive, "{rule}");
        let bad: Vec<_> = x
            .outcomes
            .iter()
            .filter(|o| o.bad)
            .map(|o| (&o.findings, o.schedule.to_string()))
            .collect();
        assert!(bad.is_empty(), "{rule}: {bad:?}");
    }
}

#[test]
fn the_scenario_made_for_the_explorer_is_exhaustive_within_its_bound_and_only_deferred_loses_data() {
    let s = parse(builtin::find("mremap-race-explore").unwrap().text);
    let e = s.explore.clone().unwrap();
    let budget = Budget {
        states: e.budget,
        depth: 2_000,
        delays: e.delays,
    };
    assert_eq!(e.delays, Some(3));
    for (rule, loses) in [
        ("deferred", true),
        ("dirty", false),
        ("present", false),
        ("dirty_file_or_swapcache", false),
    ] {
        let x = explore(&s, &with("mremap_flush", rule), budget, true);
        assert!(x.exhaustive, "{rule}: {:?}", x.cut);
        let lost: Vec<_> = x
            .outcomes
            .iter()
            .filter(|o| o.findings.iter().any(|f| f.kind == "lost_write"))
            .collect();
        assert_eq!(!lost.is_empty(), loses, "{rule}");
        assert!(
            x.outcomes
                .iter()
                .all(|o| o.bad == o.findings.iter().any(|f| f.kind == "lost_write")),
            "{rule}"
        );
        // The store through the stale entry names its steps: the walk that cached the
        // entry, the mremap step that moved the PTE on the other CPU, and the store.
        for o in &lost {
            let stale = o.findings.iter().find(|f| f.kind == "stale_tlb_store");
            if let Some(f) = stale {
                assert_eq!(f.steps.len() % 3, 0, "{rule}: {:?}", f.steps);
                let mut r = s.clone();
                r.schedule = o.schedule.clone();
                let mut sim = Sim::new(&r, &with("mremap_flush", rule), false);
                let mut kinds = Vec::new();
                while let Some(info) = sim.step() {
                    if f.steps.contains(&info.step) {
                        kinds.push((info.kind.name(), info.cpu));
                    }
                }
                assert_eq!(kinds.len(), 3, "{rule}: {kinds:?}");
                assert_eq!(kinds[0].0, "page_walk", "{rule}: {kinds:?}");
                assert_eq!(kinds[2].0, "access", "{rule}: {kinds:?}");
                assert_eq!(kinds[0].1, kinds[2].1, "the walk and the store are one CPU's");
                assert_ne!(kinds[1].1, kinds[2].1, "the PTE moved on another CPU");
            }
        }
        // A latent lost write replays: the shortest schedule ends with the clean page
        // holding what the file never got.
        if let Some(o) = lost.first() {
            let mut r = s.clone();
            r.schedule = o.schedule.clone();
            let mut sim = Sim::new(&r, &with("mremap_flush", rule), false);
            sim.run_to_end().unwrap();
            let latent = mmviz_engine::explore::latent_lost_writes(&sim);
            assert!(!latent.is_empty(), "{rule}: {}", o.schedule);
            // Counted at the run's last step, so the lab marks it on a reopened run.
            assert_eq!(
                sim.st.counters.get(mmviz_engine::mech::writeback::LATENT_LOST_WRITES),
                latent.len() as u64
            );
        }
    }
}
