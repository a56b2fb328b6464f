//! The page allocator and its per-CPU lists: the invariants at every step of the PCP
//! scenarios, the sizing formulas against the spec's worked example, the decisions of
//! each patch, and bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin;
use mmviz_engine::engine::Sim;
use mmviz_engine::mech::page_alloc::{EXITS, PCP_FREE_HIGH, PCP_HIGH_PEAK, PCP_REFILLS, ZONE_LOCK_ACQUIRED};
use mmviz_engine::mm::page_alloc::{
    decay_pcp_high, drain_blocks, free_high_decision, nr_pcp_free, order_to_pindex, pageset_batch, pindex_to_order, zone_batchsize,
    zone_highsize, Pcp, Rules,
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
    // A zone under 8,192 pages: zone_batchsize is 0, the pagesets get max(1, 0) = 1 (the
    // real 5.x sample's 3,840-page DMA zone prints batch 1; the 4.x sample's 3,974-page one
    // prints batch 1 with high 6 * 0 = 0).
    assert_eq!((zone_batchsize(3_840), pageset_batch(3_840)), (0, 1));
    assert_eq!((zone_batchsize(8_191), pageset_batch(8_191)), (0, 1));
    assert_eq!(pageset_batch(8_192), 1);
    assert_eq!(pageset_batch(16_384), 3);
    assert_eq!(pageset_batch(1 << 20), 63);
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

/// One run of `pcp-exit-drain` on v6.6 with patch 1 `on` or off: (free_high per exit,
/// zone-lock acquisitions, refills).
fn exit_drain(pages: i64, pti: i64, patch1: bool) -> (f64, u64, u64) {
    let b = builtin::find("pcp-exit-drain").unwrap();
    let params = [
        ("pages".to_string(), pages),
        ("pti".to_string(), pti),
        ("processes".to_string(), 20),
    ];
    let s = scenario::parse(b.text, &params).unwrap();
    let mut t = ToggleSet::default();
    t.set_kernel(mmviz_engine::patches::Kernel::parse("v6.6").unwrap());
    t.set_text("pcp_prev_free_high_order", if patch1 { "on" } else { "off" }).unwrap();
    let r = run::run(&s, &t).unwrap();
    let exits = r.counters.get(EXITS);
    assert_eq!(exits, 20, "pages {pages} pti {pti}");
    (
        r.counters.get(PCP_FREE_HIGH) as f64 / exits as f64,
        r.counters.get(ZONE_LOCK_ACQUIRED),
        r.counters.get(PCP_REFILLS),
    )
}

#[test]
fn exit_drain_sweep_over_pages_and_pti_moves_as_the_kernel_would() {
    // Spec A.7 / S-A1: with PTI the PGD is order 1. v6.6: the exit's order-0 frees raise
    // free_factor whenever the PCP reaches high (367), so the PGD free is free_high at every
    // exit, whatever the process size; patch 1 never. Without PTI the PGD is order 0: no
    // free_high either way, and patch 1 has nothing to change.
    let mut lock_off = Vec::new();
    for pages in [500, 2000, 8000] {
        let (fh_off, lock_v66, refills_v66) = exit_drain(pages, 1, false);
        let (fh_on, lock_p1, refills_p1) = exit_drain(pages, 1, true);
        assert!((0.9..=1.0).contains(&fh_off), "pages {pages}: v6.6 free_high per exit {fh_off}");
        assert_eq!(fh_on, 0.0, "pages {pages}: patch 1 free_high per exit");
        // The PCP survives the exit with patch 1: the next process refills less.
        assert!(
            lock_p1 < lock_v66,
            "pages {pages}: zone lock {lock_p1} (patch 1) vs {lock_v66} (v6.6)"
        );
        assert!(refills_p1 < refills_v66, "pages {pages}: refills {refills_p1} vs {refills_v66}");
        // What patch 1 saves per exit is the refills of what the PCP held when the PGD was
        // freed (the exit's drains leave count between batch and high: 1 to 367 / 63 = 5.8
        // refills), whatever the process size.
        let saved = (refills_v66 - refills_p1) as f64 / 20.0;
        assert!((1.0..=5.9).contains(&saved), "pages {pages}: {saved} refills saved per exit");
        let (fh_nopti_off, lock_nopti_off, _) = exit_drain(pages, 0, false);
        let (fh_nopti_on, lock_nopti_on, _) = exit_drain(pages, 0, true);
        assert_eq!(fh_nopti_off, 0.0, "pages {pages}: an order-0 PGD never drains");
        assert_eq!(fh_nopti_on, 0.0);
        assert_eq!(
            lock_nopti_off, lock_nopti_on,
            "pages {pages}: without PTI the toggle changes nothing"
        );
        // Without PTI the PCP survives every exit, as with patch 1.
        assert!(lock_nopti_off < lock_v66, "pages {pages}: {lock_nopti_off} vs {lock_v66}");
        lock_off.push(lock_v66);
    }
    // Zone-lock acquisitions grow with the pages each process faults and frees.
    assert!(lock_off.windows(2).all(|w| w[0] < w[1]), "{lock_off:?}");
}

#[test]
fn a_drain_holds_the_zone_lock_per_block_not_per_page() {
    // free_pcppages_bulk calls __free_one_page once per block: 8 order-3 pages are 8 blocks
    // (64 pages); a walk from pindex takes the lists round-robin.
    let mut p = pcp(0, 367);
    for pfn in 0..8 {
        p.lists[order_to_pindex(1, 3)].push_front(pfn * 8);
    }
    for pfn in 0..10 {
        p.lists[order_to_pindex(1, 0)].push_front(1000 + pfn);
    }
    p.count = 64 + 10;
    assert_eq!(drain_blocks(&p, 64, order_to_pindex(1, 3)), 8);
    assert_eq!(drain_blocks(&p, 74, order_to_pindex(1, 3)), 18);
    // From the order-0 list: 10 pages, then ceil(54 / 8) = 7 order-3 blocks.
    assert_eq!(drain_blocks(&p, 64, order_to_pindex(1, 0)), 17);
    assert_eq!(drain_blocks(&p, 1000, 0), 18);
}

/// `pcp-101` with `from` replaced by `to` in its text.
fn pcp101_with(from: &str, to: &str) -> Result<scenario::Scenario, String> {
    let b = builtin::find("pcp-101").unwrap();
    assert!(b.text.contains(from), "{from}");
    scenario::parse(&b.text.replace(from, to), &[]).map_err(|e| e.to_string())
}

#[test]
fn high_overrides_out_of_range_are_refused_with_the_field_named() {
    for bad in ["pcp_high_min = -1", "pcp_high_min = 99999999", "pcp_high_min = \"many\""] {
        let err = pcp101_with("pcp_high_min = 32", bad).unwrap_err();
        assert!(err.contains("pcp_high_min"), "{bad}: {err}");
    }
    let err = pcp101_with("pcp_high_min = 32", "pcp_high_min = 32\npcp_high_max = -5").unwrap_err();
    assert!(err.contains("pcp_high_max"), "{err}");
    let err = pcp101_with("pcp_batch = 8", "pcp_batch = 1024").unwrap_err();
    assert!(err.contains("pcp_batch"), "{err}");
}

#[test]
fn odd_but_legal_sizes_behave_sensibly() {
    let steps = |s: &scenario::Scenario, t: &ToggleSet| {
        let mut sim = Sim::new(s, t, false);
        while sim.step().is_some() {
            invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.st.step));
        }
    };
    let v67 = ToggleSet::default();
    // high_max below high_min: v6.7 keeps both (zone_set_pageset_high_and_batch takes no
    // max), and nr_pcp_high's clamp(high, high_min, high_max) lets high_max win.
    let s = pcp101_with("pcp_high_min = 32", "pcp_high_min = 32\npcp_high_max = 10").unwrap();
    let r = run::run(&s, &v67).unwrap();
    assert_eq!(r.counters.get(EXITS), 2);
    assert_eq!(r.counters.get(PCP_HIGH_PEAK), 32, "high starts at high_min");
    steps(&s, &v67);
    // high 0: the PCP is effectively off (every free drains at once); the run finishes.
    let s = pcp101_with("pcp_high_min = 32", "pcp_high_min = 0").unwrap();
    for t in [ToggleSet::default(), {
        let mut t = ToggleSet::default();
        t.set_kernel(mmviz_engine::patches::Kernel::parse("v6.6").unwrap());
        t
    }] {
        let r = run::run(&s, &t).unwrap();
        assert_eq!(r.counters.get(EXITS), 2);
        steps(&s, &t);
    }
    // percpu_pagelist_high_fraction 1-7 is below the sysctl's minimum: taken as 8.
    let s = pcp101_with("pcp_high_min = 32", "percpu_pagelist_high_fraction = 3").unwrap();
    let r = run::run(&s, &v67).unwrap();
    assert_eq!(r.counters.get(EXITS), 2);
    // batch 1: one page per refill and per drain.
    let s = pcp101_with("pcp_batch = 8", "pcp_batch = 1").unwrap();
    let r = run::run(&s, &v67).unwrap();
    assert_eq!(r.counters.get(EXITS), 2);
    steps(&s, &v67);
}

#[test]
fn a_machine_without_memory_is_refused_with_a_message() {
    let err = pcp101_with("mem_pages = 1024", "mem_pages = 0").unwrap_err();
    assert!(err.contains("mem_pages"), "{err}");
}

#[test]
fn a_cpu_less_node_s_zone_splits_high_over_every_online_cpu() {
    let text = r#"
format = 1
id = "cpuless"
title = "t"
kernel = "v6.6"
[machine]
distance = [[10, 21], [21, 10]]
[[machine.node]]
cpus = [0, 1]
mem_pages = 65536
[[machine.node]]
cpus = []
mem_pages = 65536
[[process]]
name = "p"
[[process.thread]]
cpu = 0
ops = [{ op = "process_cycle", pages = 300, rounds = 3 }]
"#;
    let s = scenario::parse(text, &[]).unwrap();
    let sim = Sim::new(&s, &ToggleSet::default(), false);
    let pa = &sim.st.page_alloc;
    assert_eq!(pa.zones.len(), 2);
    // Node 0's zone splits its low watermark over its 2 CPUs, the CPU-less node's over
    // both online CPUs (zone_highsize: nr_split_cpus 0 -> num_online_cpus()).
    for z in &pa.zones {
        let want = zone_highsize(z.managed, z.wmark[1], z.batch, 2, 2, 0);
        assert_eq!(z.high_min, want, "zone of node {}", z.nid);
    }
    let r = run::run(&s, &ToggleSet::default()).unwrap();
    assert_eq!(r.counters.get(EXITS), 3);
}

/// `pcp-unix-pairs` for `ms` simulated ms with writes of `bytes`, under a preset: free_high
/// drains per write and throughput.
fn unix_pairs(bytes: i64, preset: &str, ms: u32) -> (f64, f64) {
    let b = builtin::find("pcp-unix-pairs").unwrap();
    let text = b.text.replace("window_ms = 30", &format!("window_ms = {ms}"));
    let s = scenario::parse(&text, &[("bytes".to_string(), bytes)]).unwrap();
    let mut t = ToggleSet::default();
    t.apply_preset(mmviz_engine::patches::find_preset(preset).unwrap()).unwrap();
    let r = run::run(&s, &t).unwrap();
    let ops = r.counters.get(mmviz_engine::mech::core::WORKLOAD_OPS) as f64;
    assert!(ops > 100.0, "{bytes} {preset}: {ops} writes");
    (r.counters.get(PCP_FREE_HIGH) as f64 / ops, ops)
}

#[test]
fn patch_1_spares_a_write_s_drains_as_far_as_its_pages_have_an_order_0_one() {
    use mmviz_engine::mm::pcp_workload::message_page_order;
    for bytes in [61_440, 65_536, 131_072] {
        // What the free order says: in the base kernel every order 1-3 free drains (once
        // free_factor is up); with patch 1 only one that follows another order 1-3 free
        // (the last page of the previous write included).
        let orders: Vec<u8> = (0..).map_while(|i| message_page_order(bytes, false, i)).collect();
        let high = |o: u8| (1..=3).contains(&o);
        let base = orders.iter().filter(|&&o| high(o)).count() as f64;
        let p1 = (0..orders.len())
            .filter(|&i| high(orders[i]) && high(orders[(i + orders.len() - 1) % orders.len()]))
            .count() as f64;
        let (fb, ob) = unix_pairs(i64::from(bytes), "base", 6);
        let (f1, o1) = unix_pairs(i64::from(bytes), "patch1", 6);
        let want = p1 / base;
        assert!(
            (f1 / fb - want).abs() < 0.06,
            "{bytes} bytes {orders:?}: drains per write {f1:.3} / {fb:.3}, want {want:.3}"
        );
        // Fewer drains, more writes; none spared, the same.
        if want < 0.99 {
            assert!(o1 > ob * 1.05, "{bytes}: {o1} writes with patch 1, {ob} without");
        } else {
            assert!((o1 / ob - 1.0).abs() < 0.01, "{bytes}: {o1} writes with patch 1, {ob} without");
        }
    }
}

/// A socket pair whose receiver runs on the other node: it frees the sender's pages into
/// its pageset of a remote zone. Returns, per pageset of `cpu 1` for zone 0 (node 0's),
/// its count when the workload ended and at the end of the run, and the simulated time
/// between the two.
fn remote_pageset(receiver_node: u8, batch: u32) -> (u32, u32, u64) {
    let cpu1_node = if receiver_node == 0 { "cpus = [0, 1]" } else { "cpus = [0]" };
    let other = if receiver_node == 0 { "cpus = [2]" } else { "cpus = [1]" };
    let text = format!(
        r#"
format = 1
id = "remote-pageset"
title = "t"
kernel = "v6.7"
[knobs]
sock_head_page = false
pcp_batch = {batch}
[machine]
distance = [[10, 21], [21, 10]]
[[machine.node]]
{cpu1_node}
mem_pages = 65536
[[machine.node]]
{other}
mem_pages = 65536
[[process]]
name = "pair"
[[process.thread]]
cpu = 0
ops = [{{ op = "sock_pair", pair = 0, msgs = 40, role = 0 }}]
[[process.thread]]
cpu = 1
ops = [{{ op = "sock_pair", pair = 0, msgs = 40, role = 1 }}]
"#
    );
    let s = scenario::parse(&text, &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), false);
    let pi = sim.st.page_alloc.pcp_index(1, 0);
    let mut at_end = None;
    let mut emptied = None;
    while sim.step().is_some() {
        invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.st.step));
        let count = sim.st.page_alloc.pcp[pi].count;
        // The pair is done within a millisecond; the vmstat workers run once a second.
        if sim.now() < 1_000_000 {
            at_end = Some((count, sim.now()));
        } else if emptied.is_none() && count == 0 {
            emptied = Some(sim.now());
        }
        assert!(sim.now() < 60_000_000_000, "the run does not end");
    }
    let (count, t) = at_end.unwrap();
    assert!(sim.st.counters.get(mmviz_engine::mech::core::WORKLOAD_OPS) >= 40);
    (count, sim.st.page_alloc.pcp[pi].count, emptied.unwrap_or(0).saturating_sub(t))
}

#[test]
fn a_pageset_of_a_remote_zone_drains_a_batch_after_three_idle_vmstat_intervals() {
    // The receiver (CPU 1) on node 1 keeps node 0's pages on its pageset for node 0's
    // zone; nothing local drains it once the pair stops, but refresh_cpu_vm_stats counts
    // `expire` down from 3 and drains a batch at 0, again and again until it is empty.
    let (left, end, waited) = remote_pageset(1, 63);
    assert!(left > 0, "the receiver's remote pageset holds pages when the pair stops");
    assert_eq!(end, 0, "{left} pages left after the workload, {end} at the end");
    // The worker folds the last drain's diff at its next interval (expire 3), then counts
    // down at the two after it and drains at the third: 3 to 4 intervals of 1 s.
    assert!(
        (2_000_000_000..=4_000_000_000).contains(&waited),
        "drained {waited} ns after the pair stopped"
    );
    // The countdown itself: local zones never expire; a remote one counts 3, 2, 1 and
    // drains at 0; an empty pageset has nothing to expire.
    let mut p = pcp(10, 367);
    p.expire = 3;
    assert_eq!(mmviz_engine::mm::page_alloc::expire_remote_pcp(&mut p.clone(), true), None);
    assert_eq!(mmviz_engine::mm::page_alloc::expire_remote_pcp(&mut p, false), Some(false));
    assert_eq!(mmviz_engine::mm::page_alloc::expire_remote_pcp(&mut p, false), Some(false));
    assert_eq!(mmviz_engine::mm::page_alloc::expire_remote_pcp(&mut p, false), Some(true));
    assert_eq!(mmviz_engine::mm::page_alloc::expire_remote_pcp(&mut p, false), None);
    p.expire = 3;
    p.count = 0;
    assert_eq!(mmviz_engine::mm::page_alloc::expire_remote_pcp(&mut p, false), None);
    // On the same node the pageset is local: it keeps its pages.
    let (left, end, _) = remote_pageset(0, 63);
    assert!(left > 0);
    assert_eq!(end, left, "a local pageset is never expired");
}

/// `pcp-kbuild` with `cpus_per_node`, `groups` and `workers` over 120 ms (at 60 ms a CPU sees
/// 4-8 compilers, too few for the 25 % band below): (free_high, exits,
/// context switches).
fn kbuild(cpus: i64, groups: i64, workers: i64, preset: &str) -> (u64, u64, u64) {
    let b = builtin::find("pcp-kbuild").unwrap();
    let params = [
        ("cpus_per_node".to_string(), cpus),
        ("groups".to_string(), groups),
        ("workers".to_string(), workers),
        ("window_ms".to_string(), 120),
    ];
    let s = scenario::parse(b.text, &params).unwrap();
    let mut t = ToggleSet::default();
    t.apply_preset(mmviz_engine::patches::find_preset(preset).unwrap()).unwrap();
    let r = run::run(&s, &t).unwrap();
    (
        r.counters.get(PCP_FREE_HIGH),
        r.counters.get(EXITS),
        r.counters.get(mmviz_engine::mech::core::CTXT),
    )
}

#[test]
fn kbuild_shapes_keep_patch_1_s_effect_and_share_cpus_between_workers() {
    for (cpus, groups, workers) in [(2, 1, 4), (4, 2, 4), (2, 2, 4)] {
        let (fb, eb, _) = kbuild(cpus, groups, workers, "base");
        let (f1, _, _) = kbuild(cpus, groups, workers, "patch1");
        assert!(eb > 0 && fb > 0, "{cpus}/{groups}/{workers}: {eb} exits, {fb} free_high");
        assert!(
            f1 as f64 <= 0.3 * fb as f64,
            "{cpus}/{groups}/{workers}: free_high {f1} with patch 1, {fb} without"
        );
    }
    // Twice the workers on the same CPUs: they take turns at each compiler's exit, so the
    // CPUs get through about as many compilers as before, with context switches.
    let (_, one, ctxt1) = kbuild(2, 1, 4, "base");
    let (_, two, ctxt2) = kbuild(2, 2, 4, "base");
    assert_eq!(ctxt1, 0, "one worker per CPU never switches");
    assert!(ctxt2 > 0, "two workers per CPU switch");
    assert!(
        (two as f64) >= 0.75 * one as f64 && (two as f64) <= 1.25 * one as f64,
        "{one} exits alone, {two} shared"
    );
}
