//! fork() with copy-on-write, the COW fault (copy versus reuse), and the scheduler's
//! placement and load balancing under `cpus_allowed`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin;
use mmviz_engine::engine::{Sim, VMA_BASE_VPN};
use mmviz_engine::machine::{pg, TaskState};
use mmviz_engine::mech::core::{NR_MIGRATIONS, RMAP_UNMAPS};
use mmviz_engine::mech::fork::{COW_COPIES, PGREUSE, PROCESSES};
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::scenario;
use mmviz_engine::testkit::step_checked_until;

/// A parent with three written pages forks; the child sleeps, the parent computes.
const QUIET_FORK: &str = r#"
format = 1
id = "quiet-fork"
title = "A fork and nothing else"

[machine]
tlb_entries = 8
[[machine.node]]
cpus = [0, 1]
mem_pages = 64

[[process]]
name = "parent"
[[process.vma]]
name = "heap"
pages = 3
[[process.vma]]
name = "data"
kind = "file"
file = "d.bin"
pages = 2
node = 0
[[process.thread]]
cpu = 0
ops = [
  { op = "touch", vma = "heap", write = true },
  { op = "fork", child = "child" },
  { op = "compute", ns = 100000 },
]

[[process]]
name = "child"
forked = true
[[process.thread]]
cpu = 1
ops = [ { op = "sleep", ns = 200000 } ]
"#;

fn sim_of(text: &str) -> Sim {
    let s = scenario::parse(text, &[]).unwrap();
    Sim::new(&s, &ToggleSet::default(), false)
}

fn child_started(sim: &Sim) -> bool {
    sim.st
        .tasks
        .iter()
        .any(|t| t.mm() == Some(1) && t.state != TaskState::Sleeping(None))
}

#[test]
fn after_fork_both_mms_map_each_anon_page_read_only_and_file_pages_are_left_to_fault() {
    let mut sim = sim_of(QUIET_FORK);
    step_checked_until(&mut sim, child_started);
    assert_eq!(sim.st.counters.get(PROCESSES), 1);
    let (parent, child) = (&sim.st.mms[0], &sim.st.mms[1]);
    assert_eq!(child.vmas.len(), 2);
    for vpn in VMA_BASE_VPN..VMA_BASE_VPN + 3 {
        let (p, c) = (parent.pte(vpn), child.pte(vpn));
        assert!(p.hw_present() && c.hw_present());
        assert_eq!(p.pfn(), c.pfn(), "the child maps the parent's page");
        assert!(!p.write() && !c.write(), "a COW page is read-only in both");
        let page = sim.st.frames.get(p.pfn());
        assert_eq!((page.mapcount, page.refcount), (2, 2));
    }
    // The shared file mapping is not copied: the child faults it in (v5.12 copy_page_range).
    let file = parent.vmas[1].start;
    // (A clean page of a shared file mapping is mapped read-only: write-notify.)
    assert!(parent.pte(file).hw_present() && !parent.pte(file).write());
    assert!(child.pte(file).is_none());
    // Both heap VMAs hang from the parent's anon_vma, which the shared pages point to; the
    // child's VMA has an anon_vma of its own for the pages it will fault in or copy
    // (anon_vma_fork), linked to the child alone.
    let root = parent.vmas[0].rmap_root;
    assert!(sim.st.roots[root as usize].vmas.contains(&(0, 0)));
    assert!(sim.st.roots[root as usize].vmas.contains(&(1, 0)));
    let own = child.vmas[0].rmap_root;
    assert_ne!(own, root);
    assert_eq!(sim.st.roots[own as usize].vmas, vec![(1, 0)]);
    assert_eq!(sim.st.frames.get(parent.pte(VMA_BASE_VPN).pfn()).mapping, root);
}

#[test]
fn a_page_the_child_copies_points_to_the_childs_own_anon_vma() {
    // fork-cow-101: the child stores to heap page 0, which the parent still maps.
    let b = builtin::find("fork-cow-101").unwrap();
    let mut sim = sim_of(b.text);
    step_checked_until(&mut sim, |s| s.st.mms[1].pte(VMA_BASE_VPN).write());
    let child = &sim.st.mms[1];
    let page = sim.st.frames.get(child.pte(VMA_BASE_VPN).pfn());
    let own = child.vmas[0].rmap_root;
    assert_eq!(page.mapping, own, "wp_page_copy's new page belongs to the child's anon_vma");
    assert_eq!(
        sim.st.roots[own as usize].vmas,
        vec![(1, 0)],
        "whose rmap walk visits the child alone"
    );
    let parents = sim.st.mms[0].vmas[0].rmap_root;
    assert_ne!(
        sim.st.frames.get(sim.st.mms[0].pte(VMA_BASE_VPN).pfn()).mapping,
        own,
        "the parent's page stays in the parent's anon_vma"
    );
    assert_ne!(parents, own);
}

#[test]
fn try_to_unmap_of_a_shared_cow_page_unmaps_it_from_both_processes() {
    let mut sim = sim_of(QUIET_FORK);
    step_checked_until(&mut sim, child_started);
    // The parent computes (CPU 0 is busy in user code): run try_to_unmap on top of it.
    let parent_task = sim.st.cpus[0].curr;
    assert_eq!(sim.st.tasks[parent_task as usize].mm(), Some(0));
    let pfn = sim.st.mms[0].pte(VMA_BASE_VPN + 1).pfn();
    sim.st.stacks[parent_task as usize].push(mmviz_engine::mm::rmap::TryToUnmap::frame(pfn), 0);
    step_checked_until(&mut sim, |s| s.st.counters.get(RMAP_UNMAPS) == 2);
    for mm in 0..2 {
        let pte = sim.st.mms[mm].pte(VMA_BASE_VPN + 1);
        assert!(pte.is_migration() && pte.pfn() == pfn, "mm {mm}: {pte:?}");
    }
    assert_eq!(sim.st.frames.get(pfn).mapcount, 0);
}

#[test]
fn fork_cow_101_copies_shared_pages_and_reuses_an_unshared_one() {
    let b = builtin::find("fork-cow-101").unwrap();
    let mut sim = sim_of(b.text);
    let heap = VMA_BASE_VPN;
    let mut before: Vec<u32> = Vec::new();
    step_checked_until(&mut sim, child_started);
    for i in 0..4 {
        before.push(sim.st.mms[0].pte(heap + i).pfn());
    }
    step_checked_until(&mut sim, |s| s.st.counters.get(PGREUSE) == 1);
    let c = &sim.st.counters;
    assert_eq!(c.get(COW_COPIES), 2);
    let parent = &sim.st.mms[0];
    // Page 1 was copied by the parent, page 2 reused in place, pages 0 and 3 untouched.
    assert_ne!(parent.pte(heap + 1).pfn(), before[1]);
    assert_eq!(parent.pte(heap + 2).pfn(), before[2]);
    assert!(parent.pte(heap + 1).write() && parent.pte(heap + 2).write());
    assert_eq!(parent.pte(heap).pfn(), before[0]);
    // After the child's exit every page of the parent is mapped once.
    for i in 0..4 {
        let page = sim.st.frames.get(parent.pte(heap + i).pfn());
        assert_eq!((page.mapcount, page.refcount), (1, 1), "page {i}");
    }
    // The child's copy of page 0 and the old page 1 were freed at its exit.
    assert!(sim.st.frames.get(before[1]).has(pg::FREE));
    assert!(sim.st.mms[1].vmas.is_empty());
    while sim.step().is_some() {
        mmviz_engine::invariants::check(&sim).unwrap();
    }
    sim.check_stuck().unwrap();
    // When app exits too, every page it had is freed.
    assert_eq!(
        sim.cfg.topo.nodes.iter().map(|n| sim.st.page_alloc.free_pages(n.id)).sum::<u32>(),
        64
    );
}

#[test]
fn without_the_write_protect_the_invariant_catches_a_writable_shared_page() {
    let mut sim = sim_of(QUIET_FORK);
    step_checked_until(&mut sim, child_started);
    let vpn = VMA_BASE_VPN;
    let pte = sim.st.mms[1].pte(vpn);
    let writable = mmviz_engine::machine::Pte::present(pte.pfn(), true, true, true);
    sim.st.mms[1].set_pte(vpn, writable);
    let e = mmviz_engine::invariants::check(&sim).unwrap_err();
    assert!(e.contains("COW page must be write-protected"), "{e}");
}

/// Thread a (pinned to CPU 0) and b (pinned to CPU 1) run first; c may run on both
/// and starts queued on CPU 0 (both CPUs have one task; lowest id wins). When b
/// exits, CPU 1 pulls c.
const BALANCE: &str = r#"
format = 1
id = "balance"
title = "Load balance"

[machine]
[[machine.node]]
cpus = [0, 1, 2]
mem_pages = 64

[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 4
[[process.thread]]
cpu = 0
ops = [ { op = "compute", ns = 200000 } ]
[[process.thread]]
cpu = 1
ops = [ { op = "compute", ns = 5000 } ]
[[process.thread]]
cpus = [0, 1]
ops = [ { op = "touch", vma = "heap", write = true }, { op = "compute", ns = 5000 } ]
"#;

#[test]
fn placement_picks_the_least_loaded_allowed_cpu_and_stays_in_the_mask() {
    let mut sim = sim_of(BALANCE);
    // c is queued on CPU 0, never on CPU 2 (not allowed) although CPU 2 is idle.
    let c = sim
        .st
        .tasks
        .iter()
        .position(|t| t.mm() == Some(0) && t.cpus_allowed.weight() == 2)
        .unwrap();
    assert_eq!(sim.st.tasks[c].cpu, 0);
    assert!(sim.st.cpus[0].rq.contains(&(c as u16)));
    let mut ran_on = Vec::new();
    while sim.step().is_some() {
        for (i, t) in sim.st.tasks.iter().enumerate() {
            assert!(t.cpus_allowed.test(t.cpu), "task {i} on CPU {} outside its mask", t.cpu);
        }
        for cpu in &sim.st.cpus {
            if cpu.curr as usize == c && !ran_on.contains(&cpu.id) {
                ran_on.push(cpu.id);
            }
        }
    }
    sim.check_stuck().unwrap();
    // b's exit left CPU 1 idle: newidle_balance pulled c from CPU 0's queue.
    assert_eq!(ran_on, vec![1]);
    assert_eq!(sim.st.counters.get(NR_MIGRATIONS), 1);
}

#[test]
fn pinned_threads_never_move() {
    let text = BALANCE.replace("cpus = [0, 1]", "cpu = 0");
    let mut sim = sim_of(&text);
    sim.run_to_end().unwrap();
    assert_eq!(sim.st.counters.get(NR_MIGRATIONS), 0);
}

#[test]
fn the_fork_flush_is_the_only_frame_that_allows_stale_writable_entries() {
    // While dup_mmap runs, CPU 1's TLB may cache the parent's write-protected PTEs as
    // writable; the invariant accepts that only while a DupMmap of that mm is on a stack.
    let b = builtin::find("fork-cow-101").unwrap();
    let mut sim = sim_of(b.text);
    let mut saw_dup = false;
    while sim.step().is_some() {
        saw_dup |= sim.st.stacks.iter().any(|s| s.iter().any(|f| f.function() == "dup_mmap"));
        mmviz_engine::invariants::check(&sim).unwrap();
    }
    assert!(saw_dup);
}

#[test]
fn at_the_tick_an_idle_allowed_cpu_takes_a_queued_thread() {
    let mut sim = sim_of(BALANCE);
    let c = sim
        .st
        .tasks
        .iter()
        .position(|t| t.mm() == Some(0) && t.cpus_allowed.weight() == 2)
        .unwrap();
    // Let c run on CPU 2 too (idle from the start), and end CPU 0's slice now.
    sim.st.tasks[c].cpus_allowed.set(2);
    sim.st.cpus[0].slice_end = 0;
    let s = scenario::parse(BALANCE, &[]).unwrap();
    let mut rec = Sim::new(&s, &ToggleSet::default(), true);
    rec.st = sim.st.clone();
    let e = rec.step_event().unwrap();
    assert_eq!((e.cpu, e.kind.name(), e.function), (0, "task_migrate", "load_balance"));
    assert_eq!(rec.st.tasks[c].cpu, 2);
    assert!(rec.st.cpus[2].rq.contains(&(c as u16)) && rec.st.cpus[0].rq.is_empty());
    assert_eq!(rec.st.counters.get(NR_MIGRATIONS), 1);
    // c runs on CPU 2 and the run ends normally.
    rec.run_to_end().unwrap();
}

/// A woken thread queued behind a computation while an allowed CPU of another node idles
/// (its wake-up looked for an idle CPU in its own node only, `select_idle_sibling`): at
/// the slice end the tick lets the idle CPU take it, and the computation is not preempted.
const TICK_BALANCE: &str = r#"
format = 1
id = "tick-balance"
title = "t"
[knobs]
sched_slice_us = 20
[machine]
distance = [[10, 21], [21, 10]]
[[machine.node]]
cpus = [0, 1]
mem_pages = 16
[[machine.node]]
cpus = [2]
mem_pages = 16
[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 2
[[process.thread]]
cpus = [0, 2]
ops = [ { op = "sleep", ns = 5000 }, { op = "compute", ns = 10000 } ]
[[process.thread]]
cpu = 0
ops = [ { op = "compute", ns = 200000 } ]
"#;

#[test]
fn the_tick_hands_a_woken_thread_to_an_idle_cpu_and_the_computation_goes_on() {
    let s = scenario::parse(TICK_BALANCE, &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), true);
    let mut moved_at_tick = false;
    let mut preempted = false;
    while let Some(e) = sim.step_event() {
        if e.function == "load_balance" && e.cpu == 0 {
            moved_at_tick = true;
            assert!(e.narration.contains("the computation goes on"), "{}", e.narration);
        }
        preempted |= e.function == "scheduler_tick" && e.cpu == 0;
        mmviz_engine::invariants::check(&sim).unwrap();
    }
    assert!(moved_at_tick, "the idle CPU 2 took the woken thread at CPU 0's tick");
    assert!(!preempted, "nothing else waited on CPU 0, so its computation was not preempted");
    assert_eq!(sim.st.counters.get(NR_MIGRATIONS), 1);
}

#[test]
fn the_step_that_leaves_a_cpu_idle_says_what_newidle_balance_pulled() {
    // affinity-101: web/1 finishes on CPU 1 while batch waits on CPU 0's run queue.
    let b = builtin::find("affinity-101").unwrap();
    let s = scenario::parse(b.text, &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), true);
    let mut pulls = Vec::new();
    while let Some(e) = sim.step_event() {
        if e.narration.contains("newidle_balance pulls") {
            pulls.push((e.cpu, e.cpus.clone(), e.deltas.iter().any(|(c, d)| *c == NR_MIGRATIONS && *d == 1)));
        }
    }
    assert_eq!(
        pulls,
        vec![(1, vec![0], true)],
        "one pull, by CPU 1 from CPU 0, counted in nr_migrations"
    );
}
