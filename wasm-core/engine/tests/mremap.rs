//! mremap's four flush regimes and LATENCY_LIMIT (spec C.3), the writeback race
//! (C.4: a lost write detected under `deferred` only), invariants at every step, and bad
//! input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin;
use mmviz_engine::engine::Sim;
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::{run, scenario};

const REGIMES: [&str; 4] = ["deferred", "dirty", "dirty_file_or_swapcache", "present"];

fn toggles(flush: &str, limit: bool) -> ToggleSet {
    let mut t = ToggleSet::default();
    t.set_text("mremap_flush", flush).unwrap();
    t.set_text("mremap_latency_limit", if limit { "on" } else { "off" }).unwrap();
    t
}

/// Runs built-in `id` with `params` under the regime, LATENCY_LIMIT as given.
fn run_of(id: &str, params: &[(&str, i64)], flush: &str, limit: bool) -> run::RunResult {
    let params: Vec<(String, i64)> = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let mut s = scenario::parse(builtin::find(id).unwrap().text, &params).unwrap();
    s.toggles.retain(|(k, _)| k != "mremap_flush" && k != "mremap_latency_limit");
    run::run(&s, &toggles(flush, limit)).unwrap()
}

fn ratio(r: &run::RunResult, a: &str, b: &str) -> f64 {
    r.value(a).unwrap() / r.value(b).unwrap()
}

/// C.3: flushes per call = extents with a forcing PTE (+ one deferred flush if any extent
/// did not force), per regime, for several region sizes and dirty shares.
#[test]
fn flushes_per_call_follow_c3_for_every_regime_size_and_dirty_share() {
    for pages in [64i64, 100, 512] {
        for dirty_pct in [0i64, 10, 100] {
            for limit in [true, false] {
                let extent = if limit { 64 } else { 512 };
                let extents = (pages as u32).div_ceil(extent);
                let dirty_pages = ((pages * dirty_pct + 99) / 100) as u32;
                let dirty_extents = dirty_pages.div_ceil(extent);
                for flush in REGIMES {
                    let want = match flush {
                        "deferred" | "dirty_file_or_swapcache" => 1,
                        "present" => extents,
                        _ => dirty_extents + u32::from(dirty_extents < extents),
                    };
                    let r = run_of(
                        "mremap-2mb",
                        &[("pages", pages), ("dirty_pct", dirty_pct), ("loops", 2)],
                        flush,
                        limit,
                    );
                    assert_eq!(
                        ratio(&r, "mremap_flush_ops", "mremap_calls"),
                        f64::from(want),
                        "pages={pages} dirty_pct={dirty_pct} limit={limit} {flush}"
                    );
                }
            }
        }
    }
}

/// The acceptance's throughput: `dirty` 30-60 % below `deferred` at 4 threads, LATENCY_LIMIT
/// on (mremap calls per simulated second; the run's length is the same work in both).
#[test]
fn dirty_costs_thirty_to_sixty_percent_of_deferred_throughput() {
    let rate = |flush| {
        let r = run_of("mremap-2mb", &[], flush, true);
        r.value("mremap_calls").unwrap() / r.value("sim_time_ns").unwrap()
    };
    let drop = 1.0 - rate("dirty") / rate("deferred");
    assert!((0.30..=0.60).contains(&drop), "dirty is {:.1} % below deferred", drop * 100.0);
}

/// The drop is the IPIs: it follows how many other CPUs run the mm, not a constant. One
/// thread has no one to interrupt (the flush is local), and each thread added puts one more
/// CPU in the mask of every flush, so `dirty` falls further behind `deferred`.
#[test]
fn the_throughput_drop_grows_with_the_threads_sharing_the_mm() {
    let drop = |threads: i64| {
        let rate = |flush| {
            let r = run_of("mremap-2mb", &[("threads", threads), ("loops", 9)], flush, true);
            r.value("mremap_calls").unwrap() / r.value("sim_time_ns").unwrap()
        };
        1.0 - rate("dirty") / rate("deferred")
    };
    let drops: Vec<f64> = [1, 2, 4, 8].into_iter().map(drop).collect();
    assert!(drops[0] < 0.05, "one thread, local flushes only: {drops:?}");
    assert!(drops.windows(2).all(|w| w[1] > w[0] + 0.05), "each doubling costs more: {drops:?}");
    // Remote flushes: none with one thread; with T threads one per flush op.
    let r = run_of("mremap-2mb", &[("threads", 1), ("loops", 2)], "dirty", true);
    assert_eq!(r.value("nr_tlb_remote_flush"), Some(0.0));
    let r = run_of("mremap-2mb", &[("threads", 8), ("loops", 2)], "dirty", true);
    assert_eq!(r.value("nr_tlb_remote_flush"), r.value("mremap_flush_ops"));
}

#[test]
fn the_race_loses_a_write_under_deferred_only() {
    for flush in REGIMES {
        let r = run_of("mremap-race-101", &[], flush, false);
        let lost = r.value("lost_writes").unwrap();
        assert_eq!(lost > 0.0, flush == "deferred", "{flush}: lost_writes = {lost}");
    }
    // The anonymous page's stale store under the 2018 proposal: it happens, nothing is lost.
    let r = run_of("mremap-race-101", &[], "dirty_file_or_swapcache", false);
    assert!(r.value("stale_tlb_stores").unwrap() > 0.0);
}

#[test]
fn mixed_remote_flushes_fall_by_fifteen_to_sixty_percent_with_the_2018_proposal() {
    let dirty = run_of("mremap-mixed", &[], "dirty", true).value("nr_tlb_remote_flush").unwrap();
    let mel = run_of("mremap-mixed", &[], "dirty_file_or_swapcache", true)
        .value("nr_tlb_remote_flush")
        .unwrap();
    let drop = 1.0 - mel / dirty;
    assert!((0.15..=0.60).contains(&drop), "nr_tlb_remote_flush falls by {:.1} %", drop * 100.0);
}

/// Every invariant holds after every step of every mremap scenario under every regime
/// (the stale windows a regime allows are flushes under way, not failures).
#[test]
fn invariants_hold_at_every_step_under_every_regime() {
    for id in ["mremap-101", "mremap-race-101", "mremap-mixed"] {
        for flush in REGIMES {
            for limit in [false, true] {
                let params: Vec<(String, i64)> = if id == "mremap-mixed" {
                    vec![("loops".into(), 1), ("compute_ns".into(), 400_000)]
                } else {
                    vec![]
                };
                let mut s = scenario::parse(builtin::find(id).unwrap().text, &params).unwrap();
                s.toggles.clear();
                let mut sim = Sim::new(&s, &toggles(flush, limit), false);
                while sim.step().is_some() {
                    if let Err(e) = mmviz_engine::invariants::check(&sim) {
                        panic!("{id} {flush} limit={limit} step {}: {e}", sim.st.step);
                    }
                }
            }
        }
    }
}

/// A scenario whose mremap goes to `to`, with the VMA sizes given.
fn with_to(to: i64) -> String {
    format!(
        r#"
format = 1
id = "bad"
title = "bad"
[machine]
tlb_entries = 8
[[machine.node]]
cpus = [0]
mem_pages = 64
[[process]]
name = "p"
[[process.vma]]
name = "a"
pages = 4
[[process.vma]]
name = "b"
pages = 4
[[process.thread]]
cpu = 0
ops = [ {{ op = "mremap", vma = "a", to = {to} }} ]
"#
    )
}

#[test]
fn an_overlapping_destination_fails_with_einval_not_a_panic() {
    // b sits two PMDs above a (one PMD of gap): to = 1024 lands on it.
    let s = scenario::parse(&with_to(1024), &[]).unwrap();
    let r = run::run(&s, &ToggleSet::default()).unwrap();
    assert_eq!(r.value("mremap_errors"), Some(1.0));
    // Onto itself too.
    let s = scenario::parse(&with_to(2), &[]).unwrap();
    let r = run::run(&s, &ToggleSet::default()).unwrap();
    assert_eq!(r.value("mremap_errors"), Some(1.0));
    // A free range is fine.
    let s = scenario::parse(&with_to(4096), &[]).unwrap();
    let r = run::run(&s, &ToggleSet::default()).unwrap();
    assert_eq!(r.value("mremap_errors"), Some(0.0));
}

#[test]
fn bad_input_names_the_field() {
    let cases: &[(&str, &str)] = &[
        // A negative destination.
        ("to = 4096", "to = -5"),
        // A VMA of size 0.
        ("name = \"b\"\npages = 4", "name = \"b\"\npages = 0"),
        // An unknown VMA.
        ("vma = \"a\", to", "vma = \"zz\", to"),
    ];
    for (from, to) in cases {
        let text = with_to(4096).replacen(from, to, 1);
        let e = scenario::parse(&text, &[]).unwrap_err().to_string();
        assert!(e.contains("process[0]"), "{to}: {e}");
    }
    // A huge region or dirty share in the 2 MiB scenario's parameters.
    for (p, v) in [
        ("pages", 1 << 40),
        ("dirty_pct", 101),
        ("pages", 0),
        ("loops", -1),
        ("threads", 0),
        ("threads", 9),
    ] {
        let e = scenario::parse(builtin::find("mremap-2mb").unwrap().text, &[(p.into(), v)])
            .unwrap_err()
            .to_string();
        assert!(e.contains(p), "{p}={v}: {e}");
    }
    // dirty_pct out of range on a VMA.
    let text = with_to(4096).replacen("pages = 4", "pages = 4\nnode = 0\ndirty_pct = 150", 1);
    let e = scenario::parse(&text, &[]).unwrap_err().to_string();
    assert!(e.contains("dirty_pct"), "{e}");
}
