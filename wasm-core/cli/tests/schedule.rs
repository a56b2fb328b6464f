//! `--schedule` on `mmviz run`, `trace` and `compare`, and `mmviz explore` that prints them: a pick changes which CPU acts at its
//! step, and a schedule that does not fit is a one-line message naming the pick (exit 2).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

mod common;
use common::{json, mmviz};

/// The CPU column of `mmviz trace` lines.
fn trace_cpus(extra: &[&str]) -> Vec<String> {
    let mut args = vec!["trace", "mremap-race-101", "--limit", "8"];
    args.extend_from_slice(extra);
    let (code, out, err) = mmviz(&args);
    assert_eq!(code, 0, "{err}");
    out.lines().map(|l| l.split_whitespace().nth(2).unwrap().to_string()).collect()
}

#[test]
fn a_pick_moves_its_cpu_to_its_step_and_the_run_still_finishes() {
    assert_eq!(trace_cpus(&[])[4], "cpu0");
    assert_eq!(trace_cpus(&["--schedule", "4:1"])[4], "cpu1");
    let v = json(&["run", "mremap-race-101", "--schedule", "4:1", "--json"]);
    assert!(v["steps"].as_u64().unwrap() > 0);
    let runs = json(&[
        "compare",
        "mremap-race-101",
        "--toggle",
        "mremap_flush",
        "--schedule",
        "4:1",
        "--json",
    ]);
    assert!(runs["runs"].as_array().unwrap().len() >= 2);
}

#[test]
fn a_schedule_that_does_not_fit_names_the_pick() {
    for (schedule, says) in [
        ("4:2", "pick 1 (`4:2`): CPU 2 has nothing to do at step 4"),
        ("4:1,999999:0", "pick 2 (`999999:0`): the run ended at step "),
        ("4:9", "pick 1 (`4:9`): this machine has CPUs 0 to 4"),
        ("4:1,x", "pick 2 (`x`): expected STEP:CPU"),
        ("7:1,3:0", "pick 2 (`3:0`) is not after pick 1 (`7:1`)"),
    ] {
        let (code, out, err) = mmviz(&["run", "mremap-race-101", "--schedule", schedule]);
        assert_eq!(code, 2, "{schedule}: {out}");
        assert!(err.contains(says), "{schedule}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let (code, _, err) = mmviz(&["sweep", "mremap-race-101", "--toggle", "mremap_flush", "--schedule", "4:1"]);
    assert_eq!(code, 2);
    assert!(err.contains("a sweep makes many"), "{err}");
}

#[test]
fn explore_reports_the_lost_write_with_a_schedule_that_replays_it() {
    let (code, out, err) = mmviz(&[
        "explore",
        "mremap-race-101",
        "--set",
        "mremap_flush=deferred",
        "--budget",
        "300",
        "--delays",
        "any",
    ]);
    assert_eq!(code, 0, "{err}");
    // Cut short by the budget, and says so.
    assert!(out.contains("NOT exhaustive: 300 states visited"), "{out}");
    let bad = out
        .lines()
        .position(|l| l.trim_start().starts_with("BAD") && l.contains("lost_write"))
        .expect(&out);
    let replay = out.lines().nth(bad + 1).unwrap();
    let schedule = replay.split("--schedule ").nth(1).unwrap().trim();
    let v = json(&[
        "run",
        "mremap-race-101",
        "--set",
        "mremap_flush=deferred",
        "--schedule",
        schedule,
        "--json",
    ]);
    assert_eq!(v["counters"]["lost_writes"], 1, "{v}");
    let (code, _, err) = mmviz(&["explore", "mremap-race-101", "--schedule", "1:1"]);
    assert_eq!(code, 2);
    assert!(err.contains("explore tries every schedule"), "{err}");
    let (code, _, err) = mmviz(&["explore", "mremap-race-101", "--toggle", "no_such"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown toggle `no_such`"), "{err}");
}

#[test]
fn explore_takes_the_scenarios_delay_bound_and_says_what_it_covered() {
    // numa-thread-race-101's [explore] names the toggle and a bound; --delays overrides it.
    let (code, out, err) = mmviz(&["explore", "numa-thread-race-101", "--delays", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("at most 1 deviation(s) from the default order"), "{out}");
    assert!(out.contains("numa_delay_map=off: exhaustive within 1 deviation(s)"), "{out}");
    assert!(out.contains("numa_delay_map=on: exhaustive within 1 deviation(s)"), "{out}");
    let v = json(&["explore", "numa-thread-race-101", "--delays", "0", "--json"]);
    assert_eq!(v["delays"], 0, "{v}");
    for value in v["values"].as_array().unwrap() {
        assert_eq!(value["schedules"], 1, "bound 0 is the default run alone: {value}");
        assert_eq!(value["outcomes"][0]["schedule"], "", "{value}");
    }
    let (code, _, err) = mmviz(&["explore", "numa-thread-race-101", "--delays", "many"]);
    assert_eq!(code, 2);
    assert!(err.contains("`many` is neither a whole number from 0 to 1000 nor `any`"), "{err}");
}

#[test]
fn link_carries_the_schedule_as_sched() {
    let base = ["--link", "--base", "https://lab.example/"];
    let mut args = vec![
        "run",
        "mremap-race-101",
        "--set",
        "mremap_flush=deferred",
        "--schedule",
        " 4:1, 9:3 ",
    ];
    args.extend_from_slice(&base);
    let (code, out, err) = mmviz(&args);
    assert_eq!(code, 0, "{err}");
    let link = out.lines().find_map(|l| l.strip_prefix("link: ")).expect(&out);
    assert!(link.starts_with("https://lab.example/#v=2&sc=mremap-race-101&h="), "{link}");
    // The canonical text, after the toggles and before the step, as the lab writes it.
    assert!(link.ends_with("&t.mremap_flush=deferred&sched=4:1,9:3&step=0"), "{link}");
    // A comparison: one schedule for both runs.
    let mut args = vec!["compare", "mremap-race-101", "--toggle", "mremap_flush", "--schedule", "4:1"];
    args.extend_from_slice(&base);
    let (code, out, err) = mmviz(&args);
    assert_eq!(code, 0, "{err}");
    let first = out.lines().find_map(|l| l.strip_prefix("link: ")).expect(&out);
    assert!(first.contains("&sched=4:1&step=0&ab=t.mremap_flush:"), "{first}");
    // A schedule that does not fit is refused before any link is made.
    let mut args = vec!["run", "mremap-race-101", "--schedule", "4:2"];
    args.extend_from_slice(&base);
    let (code, out, err) = mmviz(&args);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("pick 1 (`4:2`)"), "{err}");
    assert!(!out.contains("link:"), "{out}");
}
