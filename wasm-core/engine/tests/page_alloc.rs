//! Physical memory has one owner (`mm/page_alloc.rs`): one ledger of free frames checked by
//! the core invariant, and one entry that takes pages by `gfp_t`, whose `__GFP_THISNODE`
//! decides whether a request may leave its node.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::engine::Sim;
use mmviz_engine::invariants;
use mmviz_engine::machine::pg;
use mmviz_engine::mm::gfp::{__GFP_THISNODE, GFP_HIGHUSER_MOVABLE, GFP_TRANSHUGE_LIGHT};
use mmviz_engine::mm::page_alloc::{alloc_pages_now, free_page_now, rmqueue_now};
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::scenario;
use mmviz_engine::testkit::TestScenario;

/// Two nodes of `pages` pages each, one CPU each; one process that only computes, with a
/// heap of `heap` pages populated on node 0 at time 0 (none when 0).
fn machine(pages: u32, heap: u32) -> Sim {
    let populated = if heap > 0 { "node = 0\n" } else { "" };
    let text = TestScenario::new()
        .two_nodes(&format!("cpus = [0]\nmem_pages = {pages}"), &format!("cpus = [1]\nmem_pages = {pages}"))
        .then(&format!(
            "[[process]]\nname = \"app\"\n[[process.vma]]\nname = \"heap\"\npages = {}\n{populated}[[process.thread]]\ncpu = 0\nops = [{{ op = \"compute\", ns = 1000 }}]\n",
            heap.max(1)
        ))
        .text();
    Sim::new(&scenario::parse(&text, &[]).unwrap(), &ToggleSet::default(), false)
}

fn free_on(sim: &Sim, nid: u8) -> u32 {
    sim.st.page_alloc.free_pages(nid)
}

#[test]
fn the_pages_a_scenario_starts_with_come_off_the_same_free_lists() {
    let sim = machine(1024, 100);
    invariants::check(&sim).unwrap();
    assert_eq!(free_on(&sim, 0), 1024 - 100);
    assert_eq!(free_on(&sim, 1), 1024);
    assert_eq!(sim.st.page_alloc.nr_free(0), 1024 - 100, "NR_FREE_PAGES is the buddy's count");
}

#[test]
fn a_page_taken_off_the_free_lists_but_still_flagged_free_breaks_the_ledger() {
    let mut sim = machine(1024, 0);
    // Behind the allocator's back: the buddy hands out a page, the frame is not told.
    let pfn = rmqueue_now(&mut sim.st.page_alloc, &sim.cfg.topo, GFP_HIGHUSER_MOVABLE, 0, 0).unwrap();
    let e = invariants::check(&sim).unwrap_err();
    assert!(
        e.contains(&format!("pfn {pfn} is flagged free but is on no buddy or PCP list")),
        "{e}"
    );
}

#[test]
fn a_free_page_whose_frame_claims_to_be_in_use_breaks_the_ledger() {
    let mut sim = machine(1024, 0);
    let pfn = alloc_pages_now(&mut sim, GFP_HIGHUSER_MOVABLE, 0, 0).unwrap();
    invariants::check(&sim).unwrap();
    free_page_now(&mut sim, pfn);
    invariants::check(&sim).unwrap();
    // The frame claims to be in use while its page is on the buddy lists.
    sim.st.frames.get_mut(pfn).flags &= !pg::FREE;
    let e = invariants::check(&sim).unwrap_err();
    assert!(e.contains(&format!("pfn {pfn} is on a free list but is not flagged free")), "{e}");
}

#[test]
fn a_request_falls_back_to_the_next_node_unless_it_says_thisnode() {
    let mut sim = machine(64, 64);
    assert_eq!(free_on(&sim, 0), 0, "the heap fills node 0");
    let pfn = alloc_pages_now(&mut sim, GFP_HIGHUSER_MOVABLE, 0, 0).expect("node 1 has room");
    assert_eq!(sim.cfg.topo.pfn_to_nid(pfn), 1);
    assert_eq!(alloc_pages_now(&mut sim, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE, 0, 0), None);
    invariants::check(&sim).unwrap();
}

#[test]
fn a_huge_page_is_one_aligned_block_of_its_node_and_comes_back_page_by_page() {
    let mut sim = machine(2048, 0);
    let head = alloc_pages_now(&mut sim, GFP_TRANSHUGE_LIGHT | __GFP_THISNODE, 9, 1).unwrap();
    assert_eq!(head % 512, 0);
    assert_eq!(sim.cfg.topo.pfn_to_nid(head), 1);
    assert_eq!(free_on(&sim, 1), 2048 - 512);
    invariants::check(&sim).unwrap();
    for p in head..head + 512 {
        free_page_now(&mut sim, p);
    }
    assert_eq!(free_on(&sim, 1), 2048);
    // The buddy merged them again: another order-9 block comes from the same place.
    assert_eq!(alloc_pages_now(&mut sim, GFP_TRANSHUGE_LIGHT | __GFP_THISNODE, 9, 1), Some(head));
    invariants::check(&sim).unwrap();
}
