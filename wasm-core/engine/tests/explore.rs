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
    let x = explore(&s, &t, Budget { states: 300, depth: 2_000 }, true);
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
