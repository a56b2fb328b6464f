//! Transparent huge pages (v4.17 `mm/huge_memory.c`): a first touch maps a 2 MiB page with
//! one PMD, on the faulting CPU's node only; the NUMA scanner marks the whole PMD; one hint
//! fault stands for its 512 pages and migrates them together; fork splits the PMD.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::engine::Sim;
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::scenario;
use mmviz_engine::testkit::{counter, step_checked_until, TestScenario};

fn sim_of(text: &str) -> Sim {
    let s = scenario::parse(text, &[]).unwrap();
    Sim::new(&s, &ToggleSet::default(), false)
}

/// Runs to the end, checking the invariants after every step.
fn run_checked(text: &str) -> Sim {
    let mut sim = sim_of(text);
    while sim.step().is_some() {
        mmviz_engine::invariants::check(&sim).unwrap();
    }
    sim
}

/// The run of `text` at the first step where `done` holds (invariants checked each step).
fn step_until(text: &str, done: impl Fn(&Sim) -> bool) -> Sim {
    let mut sim = sim_of(text);
    step_checked_until(&mut sim, done);
    sim
}

/// Whether every page of mm 0's first VMA is mapped.
fn heap_mapped(sim: &Sim) -> bool {
    let heap = &sim.st.mms[0].vmas[0];
    (heap.start..heap.end()).all(|v| sim.st.mms[0].pte(v).hw_present())
}

/// Huge PMDs mapped by mm `mm`.
fn huge_pmds(sim: &Sim, mm: usize) -> usize {
    sim.st.mms[mm].pgtable.huge_pmds()
}

/// A process with a 1,024-page heap (two aligned 2 MiB ranges) on a two-node machine:
/// `first` runs on CPU 0 (node 0), `second` on CPU 1 (node 1).
fn two_threads(thp: bool, node0: &str, first: &str, second: &str) -> String {
    TestScenario::new()
        .seed(5)
        .knob("thp_enabled", thp)
        .two_nodes(node0, "cpus = [1]\nmem_pages = 2048")
        .heap_process(1024, &[(0, first), (1, second)])
        .text()
}

const WRITE_HEAP: &str = r#"[{ op = "touch", vma = "heap", write = true }, { op = "compute", ns = 1000000 }]"#;
const IDLE: &str = r#"[{ op = "compute", ns = 1000 }]"#;
const SAMPLE_HEAP: &str = r#"[{ op = "random", vma = "heap", count = 100000, write_percent = 30, bulk = true }, { op = "loop" }]"#;

#[test]
fn a_first_touch_maps_2_mib_with_one_pmd_on_the_local_node() {
    let sim = step_until(&two_threads(true, "cpus = [0]\nmem_pages = 2048", WRITE_HEAP, IDLE), heap_mapped);
    assert_eq!(counter(&sim, "thp_fault_alloc"), 2);
    assert_eq!(counter(&sim, "anon_faults"), 2, "one fault per 2 MiB");
    assert_eq!(huge_pmds(&sim, 0), 2);
    assert_eq!(sim.st.mms[0].rss(), 1024);
    let heap = &sim.st.mms[0].vmas[0];
    for vpn in heap.start..heap.end() {
        let pte = sim.st.mms[0].pte(vpn);
        assert!(pte.hw_present() && pte.write(), "{vpn:#x}: {pte:?}");
        assert_eq!(sim.cfg.topo.pfn_to_nid(pte.pfn()), 0, "{vpn:#x} is not on node 0");
    }
    // The 512 pages of a huge PMD are consecutive frames.
    let first = sim.st.mms[0].pte(heap.start).pfn();
    assert_eq!(sim.st.mms[0].pte(heap.start + 511).pfn(), first + 511);

    // With THP off the same run takes one fault per page.
    let sim = step_until(&two_threads(false, "cpus = [0]\nmem_pages = 2048", WRITE_HEAP, IDLE), heap_mapped);
    assert_eq!((counter(&sim, "thp_fault_alloc"), counter(&sim, "anon_faults")), (0, 1024));
    assert_eq!(huge_pmds(&sim, 0), 0);
    // At exit every page goes back (zap_huge_pmd for the huge ones).
    for thp in [true, false] {
        let sim = run_checked(&two_threads(thp, "cpus = [0]\nmem_pages = 2048", WRITE_HEAP, IDLE));
        assert_eq!(
            sim.cfg.topo.nodes.iter().map(|n| sim.st.page_alloc.free_pages(n.id)).sum::<u32>(),
            4096,
            "thp {thp}"
        );
    }
}

#[test]
fn a_nohugepage_vma_takes_4_kib_pages_whatever_its_size() {
    // The same 1,024-page heap with madvise(MADV_NOHUGEPAGE): VM_NOHUGEPAGE makes v4.17's
    // transparent_hugepage_enabled() false, so each page faults on its own.
    let text =
        two_threads(true, "cpus = [0]\nmem_pages = 2048", WRITE_HEAP, IDLE).replace("pages = 1024\n", "pages = 1024\nnohugepage = true\n");
    assert!(text.contains("nohugepage = true"));
    let sim = step_until(&text, heap_mapped);
    assert_eq!((counter(&sim, "thp_fault_alloc"), counter(&sim, "anon_faults")), (0, 1024));
    assert_eq!(huge_pmds(&sim, 0), 0);
    // A file VMA cannot carry it: the message names the field.
    let bad = TestScenario::new()
        .two_nodes("cpus = [0]\nmem_pages = 64", "cpus = [1]\nmem_pages = 64")
        .then("[[process]]\nname = \"p\"\n[[process.vma]]\nname = \"f\"\nkind = \"file\"\npages = 4\nnohugepage = true\n[[process.thread]]\ncpu = 0\nops = [{ op = \"compute\", ns = 1 }]\n")
        .text();
    let e = scenario::parse(&bad, &[]).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("process[0].vma[0].nohugepage"), "{e}");
}

#[test]
fn without_a_free_2_mib_block_on_the_node_the_fault_falls_back_to_4_kib_pages() {
    // 384 pages: the largest free block on node 0 is 256 pages (order 8), and the default
    // policy allows no other node for a huge page (__GFP_THISNODE).
    let sim = run_checked(&two_threads(true, "cpus = [0]\nmem_pages = 384", WRITE_HEAP, IDLE));
    assert_eq!(counter(&sim, "thp_fault_alloc"), 0);
    // The first touch of each 2 MiB tries; its fallback leaves a PTE table in the PMD, so
    // the other pages of that 2 MiB take 4 KiB pages at once.
    assert_eq!(counter(&sim, "thp_fault_fallback"), 2);
    assert_eq!(counter(&sim, "anon_faults"), 1024);
}

#[test]
fn the_scanner_marks_a_huge_pmd_whole_and_one_hint_fault_moves_its_512_pages() {
    // CPU 0 writes the heap (two huge pages on node 0); later CPU 1 scans and reads it.
    let second = r#"[{ op = "compute", ns = 600000 }, { op = "scan" }, { op = "touch", vma = "heap" }, { op = "compute", ns = 1000000 }]"#;
    let text = two_threads(true, "cpus = [0]\nmem_pages = 2048", WRITE_HEAP, second);
    // Until the second fault's task_numa_fault has run.
    let task_migrated = |s: &Sim| {
        let t = s.st.tasks.iter().position(|t| t.cpu == 1 && t.mm() == Some(0)).unwrap();
        s.st.tasks[t].numa.pages_migrated
    };
    let sim = step_until(&text, |s| {
        counter(s, "numa_hint_faults") == 2 && heap_mapped(s) && task_migrated(s) == 1024
    });
    assert_eq!(counter(&sim, "numa_huge_pte_updates"), 2);
    assert_eq!(counter(&sim, "numa_pte_updates"), 1024, "a huge PMD counts 512 base pages");
    assert_eq!(counter(&sim, "numa_hint_faults"), 2, "one hint fault per huge PMD");
    assert_eq!(counter(&sim, "numa_hint_faults_local"), 0);
    let migrated = counter(&sim, "numa_pages_migrated");
    assert!(migrated > 0 && migrated % 512 == 0, "migrated {migrated}");
    assert_eq!(counter(&sim, "pgmigrate_success"), migrated);
    // What moved is still mapped by a huge PMD, now on node 1.
    assert_eq!(huge_pmds(&sim, 0), 2);
    let heap = &sim.st.mms[0].vmas[0];
    let on_node1 = (heap.start..heap.end())
        .filter(|&v| sim.cfg.topo.pfn_to_nid(sim.st.mms[0].pte(v).pfn()) == 1)
        .count() as u64;
    assert_eq!(on_node1, migrated);
    // Both were first faults (no last_cpupid yet), so both moved; task_numa_fault weighed
    // each by HPAGE_PMD_NR (the task's numa_pages_migrated reached 1,024 in two faults).
    assert_eq!(migrated, 1024);
    // The scanner flushed each huge PMD (pmdp_invalidate) and the migration the old one.
    assert!(counter(&sim, "tlb_ipi_numa_huge") >= 2);
}

#[test]
fn fork_splits_a_huge_pmd_and_shares_its_pages_read_only() {
    let first = r#"[{ op = "touch", vma = "heap", write = true }, { op = "fork", child = "child" }, { op = "compute", ns = 1000000 }]"#;
    let text = two_threads(true, "cpus = [0]\nmem_pages = 2048", first, IDLE)
        + r#"
[[process]]
name = "child"
forked = true
[[process.thread]]
cpu = 1
ops = [{ op = "compute", ns = 1000 }]
"#;
    let sim = step_until(&text, |s| s.st.mms.len() > 1 && heap_mapped(s) && counter(s, "thp_split_pmd") == 2);
    assert_eq!(huge_pmds(&sim, 0), 0);
    let heap = &sim.st.mms[0].vmas[0];
    let (p, c) = (sim.st.mms[0].pte(heap.start + 3), sim.st.mms[1].pte(heap.start + 3));
    assert_eq!(p.pfn(), c.pfn());
    assert!(!p.write() && !c.write());
    assert_eq!(sim.st.frames.get(p.pfn()).mapcount, 2);
}

#[test]
fn bulk_accesses_see_huge_pmds_change_through_faults_marking_and_migration() {
    // Two threads on two nodes sample a heap of two huge pages in bulk runs for 2.5 s: the
    // automatic scanner marks the PMDs, hint faults migrate them. The access sampler's index
    // must follow every PMD change (the invariants rebuild it after each step).
    let text = TestScenario::new()
        .seed(1)
        .knob("thp_enabled", true)
        .knob("window_ms", 2500)
        .two_nodes("cpus = [0]\nmem_pages = 4096", "cpus = [1]\nmem_pages = 4096")
        .heap_process(1024, &[(0, SAMPLE_HEAP), (1, SAMPLE_HEAP)])
        .text();
    let sim = run_checked(&text);
    assert_eq!(counter(&sim, "thp_fault_alloc"), 2);
    assert!(counter(&sim, "numa_huge_pte_updates") >= 2);
    assert!(counter(&sim, "numa_hint_faults") >= 2);
    assert_eq!(counter(&sim, "numa_pages_migrated") % 512, 0);
}

/// System and busy (user + system) time of a run where one thread writes a 512-page heap
/// once, with THP on or off and `numa_mem_scale` = `scale`.
fn first_touch_ns(thp: bool, scale: u64) -> (f64, f64) {
    let text = TestScenario::new()
        .seed(1)
        .knob("thp_enabled", thp)
        .knob("numa_mem_scale", scale)
        .two_nodes("cpus = [0]\nmem_pages = 2048", "cpus = [1]\nmem_pages = 2048")
        .heap_process(512, &[(0, r#"[{ op = "touch", vma = "heap", write = true }]"#)])
        .text();
    let s = scenario::parse(&text, &[]).unwrap();
    let r = mmviz_engine::run::run(&s, &ToggleSet::default()).unwrap();
    let sys = r.value("sys_time_ns").unwrap();
    (sys, sys + r.value("user_time_ns").unwrap())
}

#[test]
fn a_first_touch_zeroes_its_pages_and_counts_numa_mem_scale_times() {
    // Default costs: fault entry 600, alloc_page 250, clear_page 300, PTE/PMD write 10 ns.
    // The profile counts the exception entry with the user code that faulted, so it is in
    // the busy time and not in the system time.
    let (entry, alloc, clear, write) = (600.0, 250.0, 300.0, 10.0);
    // One huge fault: one order-9 allocation, clear_huge_page's 512 clears, one PMD write.
    let huge = alloc + 512.0 * clear + write;
    let ((sys1, busy1), (sys4, busy4)) = (first_touch_ns(true, 1), first_touch_ns(true, 4));
    assert_eq!(sys4 - sys1, 3.0 * huge, "three more real huge faults per modelled one");
    assert_eq!(busy4 - busy1, 3.0 * (entry + huge), "and three more exception entries");
    assert!(sys1 >= huge);
    // 512 4 KiB faults, each with its own allocation and clear.
    let small = alloc + clear + write;
    let ((sys1, busy1), (sys4, busy4)) = (first_touch_ns(false, 1), first_touch_ns(false, 4));
    assert_eq!(sys4 - sys1, 3.0 * 512.0 * small, "three more real faults per modelled page");
    assert_eq!(busy4 - busy1, 3.0 * 512.0 * (entry + small));
}
