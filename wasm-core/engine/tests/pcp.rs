//! The page allocator and its per-CPU lists: the invariants at every step of the PCP
//! scenarios, the sizing formulas against the spec's worked example, the decisions of
//! each patch, and bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin;
use mmviz_engine::engine::Sim;
use mmviz_engine::mech::page_alloc::{EXITS, PCP_FREE_HIGH};
use mmviz_engine::mm::page_alloc::{
    decay_pcp_high, free_high_decision, nr_pcp_free, order_to_pindex, pindex_to_order, zone_batchsize, zone_highsize, Pcp, Rules,
};
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::{invariants, run, scenario};

fn steps_with_invariants(text: &str, params: &[(String, i64)], toggles: &ToggleSet, limit: u64) {
    let s = scenario::parse(text, params).unwrap();
    let mut sim = Sim::new(&s, toggles, false);
    let mut n = 0;
    while sim.step().is_some() && n < limit {
        invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.st.step));
        n += 1;
    }
}

#[test]
fn invariants_hold_at_every_step_of_the_teaching_scenario_either_way() {
    let b = builtin::find("pcp-101").unwrap();
    for p1 in [false, true] {
        let mut t = ToggleSet::default();
        t.set_text("pcp_prev_free_high_order", if p1 { "on" } else { "off" }).unwrap();
        steps_with_invariants(b.text, &[], &t, u64::MAX);
    }
}

#[test]
fn invariants_hold_with_auto_tuning_and_socket_pairs() {
    let t = ToggleSet::default();
    let b = builtin::find("pcp-exit-drain").unwrap();
    steps_with_invariants(b.text, &[("processes".into(), 2), ("pages".into(), 450)], &t, u64::MAX);
    let b = builtin::find("pcp-unix-pairs").unwrap();
    steps_with_invariants(b.text, &[], &t, 4_000);
}

#[test]
fn without_pti_the_pgd_is_order_0_and_no_exit_drains() {
    let b = builtin::find("pcp-exit-drain").unwrap();
    let s = scenario::parse(b.text, &[("pti".into(), 0), ("processes".into(), 10)]).unwrap();
    let mut t = ToggleSet::default();
    t.set_kernel(mmviz_engine::patches::Kernel::parse("v6.6").unwrap());
    let r = run::run(&s, &t).unwrap();
    assert_eq!(r.counters.get(EXITS), 10);
    assert_eq!(r.counters.get(PCP_FREE_HIGH), 0);
}

#[test]
fn sizing_follows_the_spec_worked_example() {
    // A zone of 1 GiB or more: batch 63.
    assert_eq!(zone_batchsize(1 << 20), 63);
    assert_eq!(zone_batchsize(33_000_000), 63);
    // Low watermark 41,130 split over 112 CPUs: 367; managed/8 over 112 CPUs: about 36,800.
    assert_eq!(zone_highsize(33_000_000, 41_130, 63, 112, 0, 0), 367);
    assert_eq!(zone_highsize(33_000_000, 41_130, 63, 112, 0, 8), 36_830);
    // A CPU-less node splits over every online CPU; never below 4 * batch.
    assert_eq!(zone_highsize(1 << 20, 4000, 63, 0, 8, 0), 500);
    assert_eq!(zone_highsize(1 << 20, 100, 63, 4, 0, 0), 252);
    // Indexing: 3 * order + mt, and the THP list.
    assert_eq!(order_to_pindex(1, 0), 1);
    assert_eq!(order_to_pindex(0, 3), 9);
    assert_eq!(order_to_pindex(1, 9), 12);
    assert_eq!(pindex_to_order(12), 9);
    assert_eq!(pindex_to_order(7), 2);
}

fn pcp(count: u32, high: u32) -> Pcp {
    Pcp {
        count,
        high,
        high_min: high,
        high_max: high,
        batch: 63,
        ..Pcp::default()
    }
}

#[test]
fn free_high_needs_two_consecutive_high_order_frees_with_patch_1() {
    let v66 = Rules::default();
    let p1 = Rules {
        prev_free_high_order: true,
        ..Rules::default()
    };
    let mut a = pcp(100, 367);
    a.free_factor = 3;
    // v6.6: one order-1 free after freeing drains.
    assert!(free_high_decision(&mut a.clone(), 1, &v66));
    // Patch 1: after an order-0 free, the first order-1 free does not; a second one does.
    free_high_decision(&mut a, 0, &p1);
    assert!(!free_high_decision(&mut a, 1, &p1));
    assert!(free_high_decision(&mut a, 1, &p1));
    // THP (order 9) clears the flag like order 0.
    free_high_decision(&mut a, 9, &p1);
    assert!(!free_high_decision(&mut a, 1, &p1));
}

#[test]
fn exit_drains_grow_free_factor_as_the_spec_says() {
    // high 367, batch 63: drains of 63, 126, 252, then 304 pages (spec A.7).
    let r = Rules::default();
    let mut p = pcp(367, 367);
    let got: Vec<u32> = (0..4).map(|_| nr_pcp_free(&mut p, 367, false, &r)).collect();
    assert_eq!(got, vec![63, 126, 252, 304]);
    assert_eq!(p.free_factor, 3);
    // free_high drains everything in v6.6.
    assert_eq!(nr_pcp_free(&mut p, 0, true, &r), 367);
}

#[test]
fn decay_cuts_an_eighth_and_at_most_batch_shifted_by_5_below_count() {
    let mut p = Pcp {
        count: 36_800,
        high: 36_800,
        high_min: 367,
        high_max: 36_800,
        batch: 63,
        ..Pcp::default()
    };
    let (drain, todo) = decay_pcp_high(&mut p);
    assert_eq!(p.high, 36_800 - 2016);
    assert_eq!(drain, 2016);
    assert!(todo);
    p.count = 0;
    p.high = 1000;
    decay_pcp_high(&mut p);
    assert_eq!(p.high, 875);
}

#[test]
fn bad_sizes_are_refused_or_handled() {
    let b = builtin::find("pcp-101").unwrap();
    // batch out of range: the knob's range names the field.
    let err = scenario::parse(&b.text.replace("pcp_batch = 8", "pcp_batch = 5000"), &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("pcp_batch"), "{err}");
    let err = scenario::parse(&b.text.replace("pcp_batch = 8", "pcp_batch = 0"), &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("pcp_batch"), "{err}");
    // high below batch: the PCP refills one page at a time and drains at once; the run finishes.
    let s = scenario::parse(&b.text.replace("pcp_high_min = 32", "pcp_high_min = 2"), &[]).unwrap();
    let r = run::run(&s, &ToggleSet::default()).unwrap();
    assert_eq!(r.counters.get(EXITS), 2);
}

#[test]
fn a_node_without_memory_or_without_cpus_is_fine() {
    let text = r#"
format = 1
id = "odd-nodes"
title = "t"
kernel = "v6.6"
[machine]
distance = [[10, 21, 21], [21, 10, 21], [21, 21, 10]]
[[machine.node]]
cpus = [0]
mem_pages = 0
[[machine.node]]
cpus = []
mem_pages = 4096
[[machine.node]]
cpus = [1]
mem_pages = 4096
[[process]]
name = "p"
[[process.thread]]
cpu = 0
ops = [{ op = "process_cycle", pages = 300, rounds = 3 }]
"#;
    match scenario::parse(text, &[]) {
        // A memoryless node allocates from the nearest node with memory.
        Ok(s) => {
            let r = run::run(&s, &ToggleSet::default()).unwrap();
            assert_eq!(r.counters.get(EXITS), 3);
            steps_with_invariants(text, &[], &ToggleSet::default(), u64::MAX);
        }
        // Or the scenario format refuses such a node, with a message.
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}
