//! NUMA balancing as Linux v5.12 has it, one rule per test on a small scenario: the scan
//! period's feedback, the thread pid in `last_cpupid`, the two-stage filter, node
//! headroom, v4.17's rate limit, and the sweep showing that a v5.12 migration's IPIs
//! follow the number of CPUs running the process.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::engine::Sim;
use mmviz_engine::machine::{TaskKind, TaskState};
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::scenario;
use mmviz_engine::testkit::{counter, TestScenario};

/// The nodes of most two-node test machines: one CPU and 64 pages each.
const NODE0_64: &str = "cpus = [0]\nmem_pages = 64";
const NODE1_64: &str = "cpus = [1]\nmem_pages = 64";

/// Runs `text` to the end with `toggles` (id, value) and returns the simulation.
fn run(text: &str, toggles: &[(&str, &str)]) -> Sim {
    run_with(text, &[], toggles)
}

/// [`run`] with `params` (name, value) overridden.
fn run_with(text: &str, params: &[(&str, i64)], toggles: &[(&str, &str)]) -> Sim {
    let params: Vec<(String, i64)> = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let s = scenario::parse(text, &params).unwrap();
    let mut t = ToggleSet::default();
    for (id, v) in toggles {
        t.set_text(id, v).unwrap();
    }
    let mut sim = Sim::new(&s, &t, false);
    while sim.step().is_some() {}
    sim
}

/// The first user thread of the first process.
fn first_thread(sim: &Sim) -> usize {
    sim.st
        .tasks
        .iter()
        .position(|t| matches!(t.kind, TaskKind::User { mm: 0, tid: 0 }))
        .unwrap()
}

/// One thread on node 1 hammering a heap on node 0, with automatic scanning of the
/// whole heap each pass; `node1_high` is node 1's high watermark (16 pages of memory).
fn scanning_one_thread(node1_high: u32) -> String {
    TestScenario::new()
        .seed(3)
        .knob("scan_period_ms", 1)
        .knob("scan_size_pages", 64)
        .two_nodes(
            "cpus = [0]\nmem_pages = 256",
            &format!("cpus = [1]\nmem_pages = 128\nhigh_wmark_pages = {node1_high}"),
        )
        .then(
            r#"
[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = 64
node = 0
[[process.thread]]
cpu = 1
ops = [{ op = "random", vma = "heap", count = 600000 }]
"#,
        )
        .text()
}

#[test]
fn failed_migrations_double_the_scan_period_each_pass() {
    // Node 1 has no headroom: every misplaced page fails migrate_balanced_pgdat.
    let full = run(&scanning_one_thread(128), &[]);
    assert_eq!(counter(&full, "numa_pages_migrated"), 0);
    assert!(counter(&full, "migrate_isolate_fail") > 0);
    let n = &full.st.tasks[first_thread(&full)].numa;
    // task_scan_min is 1 ms here (1 ms over one 64-page window, no MAX_SCAN_WINDOW floor
    // worth a millisecond); v5.12 never clears the failed slot, so each pass doubles it.
    let passes = full.st.mms[0].numa_scan_seq;
    assert!(passes >= 3, "only {passes} scan passes");
    assert!(n.locality[2] > 0);
    assert!(
        n.scan_period_ms.is_power_of_two() && n.scan_period_ms >= 4,
        "period {} ms",
        n.scan_period_ms
    );
    // With room on node 1 the pages move and no migration fails.
    let room = run(&scanning_one_thread(1), &[]);
    assert_eq!(counter(&room, "numa_pages_migrated"), 64);
    assert_eq!(room.st.tasks[first_thread(&room)].numa.locality[2], 0);
}

/// Two threads of one process: thread 0 on node 0 (CPU 0) touches the heap first, then
/// thread 1 on node 1 (CPU 1) scans and touches it `rounds` times.
fn two_nodes_two_threads(pages: u32, rounds: u32) -> String {
    let mut ops1 = String::from(r#"{ op = "sleep", ns = 2000000 }"#);
    for _ in 0..rounds {
        ops1.push_str(r#", { op = "scan", vma = "heap" }, { op = "touch", vma = "heap" }"#);
    }
    TestScenario::new()
        .seed(1)
        .two_nodes(NODE0_64, NODE1_64)
        .then(&format!(
            r#"
[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = {pages}
node = 0
[[process.thread]]
cpu = 0
ops = [{{ op = "scan", vma = "heap" }}, {{ op = "touch", vma = "heap" }}, {{ op = "sleep", ns = 50000000 }}]
[[process.thread]]
cpu = 1
ops = [{ops1}]
"#
        ))
        .text()
}

#[test]
fn last_cpupid_holds_the_faulting_threads_pid_and_cpu() {
    let s = scenario::parse(&two_nodes_two_threads(4, 1), &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), false);
    let i1 = sim
        .st
        .tasks
        .iter()
        .position(|t| matches!(t.kind, TaskKind::User { tid: 1, .. }))
        .unwrap();
    // Look while thread 0 still sleeps (the mm is torn down when both have exited).
    while sim.st.tasks[i1].state != TaskState::Dead && sim.step().is_some() {}
    let t1 = &sim.st.tasks[i1];
    let heap = &sim.st.mms[0].vmas[0];
    for vpn in heap.start..heap.end() {
        let pte = sim.st.mms[0].pte(vpn);
        let cpupid = sim.st.frames.get(pte.pfn()).last_cpupid;
        // cpu_pid_to_cpupid(cpu 1, thread 1's pid): the thread's pid, not the process's (1).
        assert_eq!(cpupid & 0xff, u32::from(t1.pid) & 0xff, "vpn {vpn:#x}");
        assert_eq!(cpupid >> 8, 1, "vpn {vpn:#x}");
        assert_ne!(u32::from(t1.pid) & 0xff, u32::from(sim.st.mms[0].pid));
    }
}

#[test]
fn the_two_stage_filter_rejects_the_first_fault_from_a_new_node() {
    // Round 1: thread 1's faults find thread 0's cpupid (node 0): not migrated.
    let one = run(&two_nodes_two_threads(4, 1), &[]);
    assert_eq!(counter(&one, "numa_hint_faults"), 8);
    assert_eq!(counter(&one, "numa_pages_migrated"), 0);
    // Round 2: its own cpupid from round 1 is there: the early-lifetime shortcut moves them.
    let two = run(&two_nodes_two_threads(4, 2), &[]);
    assert_eq!(counter(&two, "numa_hint_faults"), 12);
    assert_eq!(counter(&two, "numa_pages_migrated"), 4);
}

/// One thread on node 1 migrating an 8-page heap from node 0 once, with node 1's high
/// watermark `high` (16 pages).
fn migrate_once(high: u32) -> String {
    TestScenario::new()
        .seed(1)
        .two_nodes(NODE0_64, &format!("cpus = [1]\nmem_pages = 16\nhigh_wmark_pages = {high}"))
        .then(
            r#"
[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = 8
node = 0
[[process.thread]]
cpu = 1
ops = [{ op = "scan", vma = "heap" }, { op = "touch", vma = "heap" }]
"#,
        )
        .text()
}

#[test]
fn migration_stops_at_the_target_nodes_high_watermark() {
    // migrate_balanced_pgdat: free > high + 1. Node 1 starts with 16 free, high = 10:
    // 16, 15, 14, 13 and 12 free allow a migration, 11 does not.
    let sim = run(&migrate_once(10), &[]);
    assert_eq!(counter(&sim, "numa_pages_migrated"), 5);
    assert_eq!(counter(&sim, "migrate_isolate_fail"), 3);
    let roomy = run(&migrate_once(1), &[]);
    assert_eq!(counter(&roomy, "numa_pages_migrated"), 8);
}

/// Eight threads on node 1 (CPUs 0-7) each hint-faulting one page of an 8-page heap on
/// node 0 at the same moment, after a thread on node 0 (CPU 8) marked it, with memory
/// scale 32768: the v4.17 rate limit (128 MB per 100 ms) is one modelled page. A modelled
/// hint fault then stands for 32768 real ones and takes their time, so one thread alone
/// never reaches the limit within a window; eight at once do.
fn migrate_at_once() -> String {
    TestScenario::new()
        .seed(1)
        .knob("numa_mem_scale", 32768)
        .two_nodes("cpus = [8]\nmem_pages = 64", "cpus = [0, 1, 2, 3, 4, 5, 6, 7]\nmem_pages = 64")
        .then(
            r#"
[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = 8
node = 0
[[process.thread]]
cpu = 8
ops = [{ op = "scan", vma = "heap" }]
[[process.thread]]
count = 8
cpu = "{i}"
ops = [{ op = "sleep", ns = 200000 }, { op = "access", vma = "heap", page = "{i}" }]
"#,
        )
        .text()
}

#[test]
fn v4_17_rate_limits_migrations_per_node_and_window() {
    // The window takes pages while its count is not above the limit of one page: two
    // pages, then refusals.
    let limited = run(&migrate_at_once(), &[("numa_ratelimit_removed", "off")]);
    assert_eq!(counter(&limited, "numa_pages_migrated"), 2);
    assert_eq!(counter(&limited, "numa_migrate_ratelimited"), 6);
    let current = run(&migrate_at_once(), &[]);
    assert_eq!(counter(&current, "numa_pages_migrated"), 8);
    assert_eq!(counter(&current, "numa_migrate_ratelimited"), 0);
}

/// `threads` threads pinned on node-1 CPUs 8.. hammering a 1024-page heap on node 0,
/// with automatic scanning of the whole heap per pass.
fn pinned_threads(threads: usize) -> String {
    let mut s = TestScenario::new()
        .seed(7)
        .knob("scan_period_ms", 1)
        .knob("scan_size_pages", 1024)
        .two_nodes(
            "cpus = [0, 1, 2, 3, 4, 5, 6, 7]\nmem_pages = 8192",
            "cpus = [8, 9, 10, 11, 12, 13, 14, 15]\nmem_pages = 8192",
        )
        .then(
            r#"
[[process]]
name = "bench"
[[process.vma]]
name = "heap"
pages = 1024
node = 0
"#,
        )
        .text();
    for i in 0..threads {
        s.push_str(&format!(
            "[[process.thread]]\ncpu = {}\nops = [{{ op = \"random\", vma = \"heap\", count = {}, write_percent = 20 }}]\n",
            8 + i,
            300_000
        ));
    }
    s
}

#[test]
fn v5_12_ipis_per_migrated_page_follow_the_cpus_running_the_process() {
    for (threads, want) in [(1usize, 0.0f64), (2, 1.0), (4, 3.0), (6, 5.0)] {
        let sim = run(&pinned_threads(threads), &[("numa_delay_map", "off")]);
        let migrated = counter(&sim, "numa_pages_migrated");
        assert!(migrated > 900, "{threads} thread(s): only {migrated} pages migrated");
        let ipis = counter(&sim, "irq_tlb_count") as f64 / migrated as f64;
        assert!(
            (ipis - want).abs() <= 0.25,
            "{threads} thread(s): {ipis:.3} IPIs per migrated page, want about {want}"
        );
        // Almost all of them are the migration's own unmap of the PTE do_numa_page mapped.
        let mapped = counter(&sim, "tlb_ipi_numa_mapped") as f64 / migrated as f64;
        assert!(
            (mapped - want).abs() <= 0.25,
            "{threads} thread(s): {mapped:.3} from the v5.12 flow"
        );
        // With the patch only the residual is left.
        let on = run(&pinned_threads(threads), &[]);
        let on_ipis = counter(&on, "irq_tlb_count") as f64 / counter(&on, "numa_pages_migrated").max(1) as f64;
        assert!(on_ipis <= 0.1 * want + 0.05, "{threads} thread(s), numa_delay_map on: {on_ipis:.3}");
    }
}

#[test]
fn a_v4_17_kernel_has_the_rate_limit_and_v4_19_not() {
    use mmviz_engine::mech::numa::NUMA_RATELIMIT_REMOVED;
    use mmviz_engine::patches::Kernel;
    let mut t = ToggleSet::default();
    t.set_kernel(Kernel::parse("v4.17").unwrap());
    assert!(!t.on(NUMA_RATELIMIT_REMOVED));
    t.set_kernel(Kernel::parse("v4.18").unwrap());
    assert!(!t.on(NUMA_RATELIMIT_REMOVED));
    t.set_kernel(Kernel::parse("v4.19").unwrap());
    assert!(t.on(NUMA_RATELIMIT_REMOVED));
    // The v4.17 kernel's run of the rate-limit scenario refuses as the toggle does.
    let s = scenario::parse(&migrate_at_once(), &[]).unwrap();
    let mut k = ToggleSet::default();
    k.set_kernel(Kernel::parse("v4.17").unwrap());
    let mut sim = Sim::new(&s, &k, false);
    while sim.step().is_some() {}
    assert_eq!(counter(&sim, "numa_pages_migrated"), 2);
}

/// Spec A.8, swept: thread 1's touch slides across thread 0's migration. Under the new flow
/// (v5.13) it meets, in time order: a present PTE (before the scan), the PROT_NONE PTE while
/// thread 0 has not unmapped yet (race (b): it maps the page, the unmap IPIs CPU 3), the
/// migration entry (race (a): it waits, no IPI), and the migrated PTE. Under the old flow
/// thread 0 maps the page at once, so thread 1 never hint-faults and every unmap IPIs.
#[test]
fn the_thread_race_windows_follow_the_migration_steps() {
    let text = mmviz_engine::builtin::find("numa-thread-race-101").unwrap().text;
    let at = |kernel: &str, offset: i64| {
        let mut s = scenario::parse(text, &[("offset_ns".into(), offset)]).unwrap();
        s.kernel = Some(mmviz_engine::patches::Kernel::parse(kernel).unwrap());
        let mut sim = Sim::new(&s, &ToggleSet::default(), false);
        sim.run_to_end().unwrap();
        (
            counter(&sim, "numa_hint_faults"),
            counter(&sim, "tlb_ipi_numa_race"),
            counter(&sim, "migrate_isolate_fail"),
            counter(&sim, "tlb_ipi_numa_mapped"),
        )
    };
    let mut outcomes: Vec<&str> = Vec::new();
    for offset in (0..=8000).step_by(100) {
        let outcome = match at("v5.13", offset) {
            (1, 0, 0, 0) => "no race",
            (2, 1, 1, 0) => "maps it: IPI",
            (2, 0, 1, 0) => "waits: no IPI",
            other => panic!("offset {offset}: unexpected counters {other:?}"),
        };
        if outcomes.last() != Some(&outcome) {
            outcomes.push(outcome);
        }
        let (faults, race, _, mapped) = at("v5.12", offset);
        assert_eq!((faults, race, mapped), (1, 0, 1), "old flow at offset {offset}");
    }
    assert_eq!(outcomes, ["no race", "maps it: IPI", "waits: no IPI", "no race"]);
}

/// Two processes of four threads on node 1's eight CPUs hammer heaps on node 0 (v5.12,
/// scanning every millisecond), for 40 ms; `bulk` draws the accesses in runs.
fn hammering(bulk: bool) -> String {
    TestScenario::new()
        .seed(7)
        .kernel("v5.12")
        .knob("scan_period_ms", 1)
        .knob("scan_size_pages", 2048)
        .knob("window_ms", 40)
        .two_nodes(
            "cpus = [0, 1, 2, 3, 4, 5, 6, 7]\nmem_pages = 32768",
            "cpus = [8, 9, 10, 11, 12, 13, 14, 15]\nmem_pages = 32768",
        )
        .then(&format!(
            r#"
[[process]]
name = "bench{{p}}"
count = 2
[[process.vma]]
name = "heap"
pages = 2048
node = 0
[[process.thread]]
count = 4
node = 1
ops = [{{ op = "random", vma = "heap", count = 10000000, write_percent = 20, bulk = {bulk} }}]
"#
        ))
        .text()
}

/// Drawing accesses in runs changes how many steps a run takes, not what the kernel
/// sees: the same pages migrate, with the same IPIs per migration, about as many hint
/// faults per scan and about as many accesses in the window, in a tenth of the steps.
/// (How many scans fit in the 40 ms, 9 to 13, depends on which thread's tick reaches
/// task_numa_work first, so the hint faults in all differ by up to a quarter.)
#[test]
fn accesses_drawn_in_runs_make_the_faults_and_flushes_single_accesses_make() {
    for delay in ["false", "true"] {
        let one = run(&hammering(false), &[("numa_delay_map", delay)]);
        let runs = run(&hammering(true), &[("numa_delay_map", delay)]);
        let c = |s: &Sim, n| counter(s, n) as f64;
        assert_eq!(c(&one, "numa_pages_migrated"), 4096.0);
        assert_eq!(c(&runs, "numa_pages_migrated"), 4096.0);
        let ipis = |s: &Sim| c(s, "irq_tlb_count") / c(s, "numa_pages_migrated");
        let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * a.max(b);
        if delay == "false" {
            assert!(close(ipis(&one), ipis(&runs), 0.02), "{} vs {}", ipis(&one), ipis(&runs));
        } else {
            assert!(ipis(&runs) < 0.1 && ipis(&one) < 0.1, "{} vs {}", ipis(&one), ipis(&runs));
        }
        let per_scan = |s: &Sim| c(s, "numa_hint_faults") / c(s, "numa_scans");
        assert!(
            close(per_scan(&one), per_scan(&runs), 0.1),
            "hint faults per scan: {} vs {}",
            per_scan(&one),
            per_scan(&runs)
        );
        assert!(
            close(c(&one, "accesses"), c(&runs, "accesses"), 0.2),
            "accesses: {} vs {}",
            c(&one, "accesses"),
            c(&runs, "accesses")
        );
        assert!(runs.st.step * 5 < one.st.step, "{} vs {} steps", runs.st.step, one.st.step);
    }
}

/// A run over pages the MMU can use as they are needs no fault and no walk that changes
/// a PTE: the first access to each page sets its accessed bit (slow), the rest are drawn
/// in runs of up to a tick. A weight of 3 makes each access take three accesses' time
/// and count as three workload operations. The index agrees with the page table at
/// every step.
#[test]
fn a_weighted_run_over_mapped_pages_takes_its_accesses_time_and_counts_their_weight() {
    let text = TestScenario::new()
        .tlb_entries(16)
        .node("cpus = [0]\nmem_pages = 256")
        .then(
            r#"
[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 64
node = 0
[[process.thread]]
cpu = 0
ops = [{ op = "random", vma = "heap", count = 200000, bulk = true, weight = 3 }]
"#,
        )
        .text();
    let s = scenario::parse(&text, &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), false);
    while sim.step().is_some() {
        mmviz_engine::invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.st.step));
    }
    assert_eq!(counter(&sim, "accesses"), 200_000);
    assert_eq!(counter(&sim, "workload_ops"), 600_000);
    // A page's first store makes the walk set D too; the first access sets A. Every other
    // access is in a run: 48 of 64 pages miss a 16-entry TLB.
    let misses = counter(&sim, "tlb_misses");
    assert!((149_000..151_000).contains(&misses), "{misses}");
    assert!(sim.st.step < 2000, "{} steps", sim.st.step);
    // 90 ns of DRAM per access, plus 3/4 of a 31 ns walk, times 3.
    let ns = sim.now() as f64;
    let want = 200_000.0 * 3.0 * (90.0 + 0.75 * 31.0);
    assert!((ns - want).abs() < 0.01 * want, "{ns} vs {want}");
}

/// `numa-pmbench` with `params`, its IPIs per migrated page (v5.12), and its run.
fn pmbench(params: &[(&str, i64)], toggles: &[(&str, &str)]) -> (f64, Sim) {
    let sim = run_with(mmviz_engine::builtin::find("numa-pmbench").unwrap().text, params, toggles);
    let migrated = counter(&sim, "numa_pages_migrated");
    assert!(migrated > 0, "{params:?}: nothing migrated");
    (counter(&sim, "irq_tlb_count") as f64 / migrated as f64, sim)
}

/// The published run's 5.1 IPIs per migrated page is a property of how many CPUs run each
/// process: it moves with the threads per process the way `mm_cpumask` does. One thread per
/// process sends none (acceptance: under 0.2); with a CPU per thread it is exactly the
/// threads (v5.12 counts the sender). (With 64 threads time-sharing fewer CPUs, see
/// `pmbench_ipis_per_migrated_page_follow_the_cpus_the_threads_share`.) 20 s runs: the
/// ratio does not depend on the run's length.
#[test]
fn pmbench_ipis_per_migrated_page_follow_the_threads_each_process_has() {
    let (one, _) = pmbench(&[("threads", 1), ("seconds", 20)], &[]);
    assert!(one < 0.2, "{one}");
    for threads in [2, 4] {
        let (ipis, _) = pmbench(&[("threads", threads), ("seconds", 20)], &[]);
        assert!((ipis - threads as f64).abs() < 0.15, "{threads} threads: {ipis}");
    }
}

/// With the patch, what is left is mostly the scanner's own flush, once per scan window
/// whatever the window holds; a modelled page stands for 256 / `scale` real ones, so the
/// residual per migrated page shrinks as `scale` grows, and the migrations' own unmaps
/// flush (almost) never.
#[test]
fn pmbench_residual_ipis_are_the_scanners_and_shrink_with_scale() {
    let (mut last, mut last_scan) = (f64::MAX, f64::MAX);
    for scale in [1, 2, 4] {
        let (ipis, sim) = pmbench(&[("scale", scale)], &[("numa_delay_map", "true")]);
        let migrated = counter(&sim, "numa_pages_migrated") as f64;
        let scan = counter(&sim, "tlb_ipi_numa_scan") as f64 / migrated;
        assert!(scan > 0.5 * ipis, "scale {scale}: {scan} of {ipis} from the scanner");
        assert!(counter(&sim, "tlb_ipi_numa_mapped") == 0, "scale {scale}");
        // Twice the pages per scan window, fewer of the scanner's IPIs per page (1/256 of them
        // at the published size, 256 times the pages).
        assert!(scan < 0.8 * last_scan, "scale {scale}: {scan} after {last_scan}");
        assert!(ipis < 0.85 * last, "scale {scale}: {ipis} after {last}");
        (last, last_scan) = (ipis, scan);
    }
}

/// v4.17..v5.12 `change_pte_range`: the "already on this node" shortcut of a
/// single-threaded mm is for private VMAs (`!(vma->vm_flags & VM_SHARED)`): the scan
/// skips the local anonymous pages but marks the local shared file pages.
#[test]
fn the_single_threaded_shortcut_skips_private_pages_only() {
    let text = TestScenario::new()
        .node(NODE0_64)
        .node(NODE1_64)
        .then(
            r#"
[[process]]
name = "p"
[[process.vma]]
name = "anon"
pages = 4
node = 0
[[process.vma]]
name = "file"
kind = "file"
pages = 3
node = 0
[[process.thread]]
cpu = 0
ops = [
  { op = "touch", vma = "anon" },
  { op = "touch", vma = "file" },
  { op = "scan" },
]
"#,
        )
        .text();
    let sim = run(&text, &[]);
    assert_eq!(counter(&sim, "numa_pte_updates"), 3, "only the file pages are marked");
}

/// Two tasks on nodes 0 and 1 that keep writing the same 8 pages (a heap of one process,
/// or a file both processes map), scanning before each round.
/// With `auto`, the periodic scanner (every 20 ms, for 2 s) marks instead of `scan`
/// operations, so `task_numa_placement` runs.
fn two_writers(processes: bool, write: bool, auto: bool) -> String {
    let (vma, procs) = if processes {
        (
            format!(
                r#"[[process.vma]]
name = "shm"
kind = "file"
file = "shm"
pages = 8
node = 0
dirty = {write}"#
            ),
            2,
        )
    } else {
        (
            r#"[[process.vma]]
name = "shm"
pages = 8
node = 0"#
                .to_string(),
            1,
        )
    };
    let thread = |cpu: u32| {
        let ops = if auto {
            format!(r#"{{ op = "touch", vma = "shm", write = {write} }}, {{ op = "compute", ns = 1000000 }}, {{ op = "loop" }}"#)
        } else {
            format!(
                r#"{{ op = "touch", vma = "shm", write = {write} }}, {{ op = "scan", vma = "shm" }},
  {{ op = "touch", vma = "shm", write = {write} }}, {{ op = "compute", ns = 300000 }}, {{ op = "loop", times = 6 }}"#
            )
        };
        format!("[[process.thread]]\ncpu = {cpu}\nops = [\n  {ops},\n]")
    };
    let mut scenario = TestScenario::new();
    if auto {
        scenario = scenario
            .knob("window_ms", 2000)
            .knob("scan_period_ms", 20)
            .knob("numa_balancing_scan_delay_ms", 20);
    }
    let mut text = scenario.two_nodes(NODE0_64, NODE1_64).text();
    if procs == 1 {
        text.push_str(&format!("[[process]]\nname = \"app\"\n{vma}\n{}\n{}\n", thread(0), thread(1)));
    } else {
        for cpu in 0..2 {
            text.push_str(&format!("[[process]]\nname = \"rank{cpu}\"\n{vma}\n{}\n", thread(cpu)));
        }
    }
    text
}

/// The groups with members after the run, as (nr_tasks, members' pids).
fn groups(sim: &Sim) -> Vec<(u32, Vec<u16>)> {
    sim.st
        .numa_groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.nr_tasks > 0)
        .map(|(i, g)| {
            let pids = sim
                .st
                .tasks
                .iter()
                .filter(|t| t.numa.group == Some(i as u16))
                .map(|t| t.pid)
                .collect();
            (g.nr_tasks, pids)
        })
        .collect()
}

/// v5.12 `task_numa_group`: threads of one process that fault on each other's pages
/// form one group, and so do processes writing the same `MAP_SHARED` file
/// (`TNF_SHARED`); processes only reading it do not (`TNF_NO_GROUP`: the PTE was
/// read-only). Groups are read before exit (`task_numa_free` empties them). The scan
/// marks dirty file pages here (as before 09a913a7).
#[test]
fn tasks_sharing_written_pages_form_one_numa_group() {
    // The simulation as of the step before the first thread exits.
    let until_exit = |text: &str| {
        let s = scenario::parse(text, &[]).unwrap();
        // Dirty file pages are not skipped by the scan (before 09a913a7).
        let mut t = ToggleSet::default();
        t.set_text("numa_skip_dirty_file", "off").unwrap();
        let mut sim = Sim::new(&s, &t, false);
        let live = |sim: &Sim| {
            sim.st
                .tasks
                .iter()
                .filter(|t| t.mm().is_some() && t.state != TaskState::Dead)
                .count()
        };
        let mut before = sim.clone();
        while live(&sim) == 2 {
            before = sim.clone();
            if sim.step().is_none() {
                break;
            }
        }
        before
    };
    let threads = until_exit(&two_writers(false, true, false));
    assert_eq!(groups(&threads).len(), 1, "{:?}", groups(&threads));
    assert_eq!(groups(&threads)[0].0, 2);
    let procs = until_exit(&two_writers(true, true, false));
    assert_eq!(groups(&procs).len(), 1, "{:?}", groups(&procs));
    assert_eq!(groups(&procs)[0].0, 2);
    assert_eq!(procs.st.mms.len(), 2);
    let readers = until_exit(&two_writers(true, false, false));
    assert!(groups(&readers).is_empty(), "{:?}", groups(&readers));
    assert!(counter(&readers, "numa_hint_faults") > 0);
    // With the periodic scanner, task_numa_placement feeds the group: both nodes' CPUs
    // fault, so the group is active on both. task_numa_placement gives every member the
    // group's busiest node, but these tasks are pinned: task_numa_migrate finds no CPU
    // there and, the group spanning two nodes, makes each prefer the node it runs on.
    let auto = until_exit(&two_writers(true, true, true));
    assert_eq!(groups(&auto).len(), 1, "{:?}", groups(&auto));
    let g = &auto.st.numa_groups[auto.st.tasks.iter().find_map(|t| t.numa.group).unwrap() as usize];
    assert!(g.faults_cpu(0) > 0 && g.faults_cpu(1) > 0, "both nodes fault: {g:?}");
    assert_eq!(g.active_nodes, 2, "{g:?}");
    let prefs: Vec<_> = auto
        .st
        .tasks
        .iter()
        .filter(|t| t.numa.group.is_some())
        .map(|t| (t.numa.preferred_nid, auto.cfg.topo.cpu_node[t.cpu as usize]))
        .collect();
    assert_eq!(prefs.len(), 2);
    assert!(prefs.iter().all(|&(p, n)| p == Some(n)), "{prefs:?}");
}

/// A thread started on node 0 whose memory is on node 1 and cannot move (node 0 is
/// full): with `allowed` all CPUs, `task_numa_migrate` moves it to node 1's idle CPU.
fn away_from_its_memory(allowed: &str) -> String {
    TestScenario::new()
        .knob("window_ms", 400)
        .knob("scan_period_ms", 10)
        .knob("numa_balancing_scan_delay_ms", 10)
        .two_nodes(
            "cpus = [0, 1]\nmem_pages = 8\nhigh_wmark_pages = 8",
            "cpus = [2, 3]\nmem_pages = 256",
        )
        .then(&format!(
            r#"
[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = 64
node = 1
[[process.thread]]
{allowed}
ops = [{{ op = "touch", vma = "heap", write = true }}, {{ op = "compute", ns = 1000000 }}, {{ op = "loop" }}]
"#
        ))
        .text()
}

/// v5.12 `numa_migrate_preferred` → `task_numa_migrate`: a task away from its preferred
/// node moves to an idle CPU there when that keeps the nodes balanced; a pinned one stays.
#[test]
fn a_task_away_from_its_memory_moves_to_an_idle_cpu_of_its_preferred_node() {
    let s = scenario::parse(&away_from_its_memory("cpus = [0, 1, 2, 3]"), &[]).unwrap();
    let mut free = Sim::new(&s, &ToggleSet::default(), false);
    while free.step().is_some() {
        mmviz_engine::invariants::check(&free).unwrap();
    }
    let t = first_thread(&free);
    assert_eq!(free.st.tasks[t].numa.preferred_nid, Some(1));
    assert!(
        matches!(free.st.tasks[t].cpu, 2 | 3),
        "runs on node 1: CPU {}",
        free.st.tasks[t].cpu
    );
    assert_eq!(counter(&free, "numa_task_migrated"), 1);
    assert_eq!(counter(&free, "numa_pages_migrated"), 0, "node 0 has no room");
    let pinned = run(&away_from_its_memory("cpu = 0"), &[]);
    let t = first_thread(&pinned);
    assert_eq!(pinned.st.tasks[t].cpu, 0);
    assert_eq!(counter(&pinned, "numa_task_migrated"), 0);
}

/// The machine's size as the published IPIs measure it: without the patch every migration
/// flushes one page on the CPUs running another thread of the process, so with 64 threads
/// time-sharing C CPUs the IPIs per migrated page are about 1 + 7 x C/64 (each of the 7 other
/// threads running a C/64 share of the time, and the flush counted on its sender too). That
/// holds only while CFS mixes the threads at random: the slices end at ticks, but wake-ups
/// (the vmstat workers once a second, threads woken from migration waits) shift each CPU's
/// turns on its own, and the processes start one after another (`sequential_launch`).
/// `mmviz sweep numa-pmbench --toggle numa_delay_map --vary node1_cpus=16,24,32,48,64
/// --seeds 4` in 20 s runs (the ratio is the same at every length: 6.22 to 6.24 at 48 CPUs
/// from 20 to 50 s, seeds 1-8) and the unpatched run only, to keep the test short: each
/// seed mean within 15 %, and rising with C.
#[test]
fn pmbench_ipis_per_migrated_page_follow_the_cpus_the_threads_share() {
    use mmviz_engine::run::{run_jobs, Job};
    let text = mmviz_engine::builtin::find("numa-pmbench").unwrap().text;
    let mut off = ToggleSet::default();
    off.set_text("numa_delay_map", "false").unwrap();
    let cpus = [16i64, 24, 32, 48, 64];
    let mut jobs = Vec::new();
    for &c in &cpus {
        for seed in 1..=4 {
            let s = scenario::parse(text, &[("node1_cpus".to_string(), c), ("seconds".to_string(), 20)]).unwrap();
            jobs.push(Job {
                scenario: scenario::Scenario { seed, ..s },
                toggles: off.clone(),
                windows: Vec::new(),
            });
        }
    }
    let results = run_jobs(&jobs).unwrap();
    let mut means = Vec::new();
    for (i, &c) in cpus.iter().enumerate() {
        let per_page: Vec<f64> = results[4 * i..4 * i + 4]
            .iter()
            .map(|r| r.value("irq_tlb_count").unwrap() / r.value("numa_pages_migrated").unwrap())
            .collect();
        let mean = per_page.iter().sum::<f64>() / 4.0;
        let want = 1.0 + 7.0 * c as f64 / 64.0;
        assert!(
            (mean / want - 1.0).abs() <= 0.15,
            "{c} CPUs: {mean:.2} IPIs a page ({per_page:?}), want {want:.2} within 15 %"
        );
        means.push(mean);
    }
    assert!(means.windows(2).all(|w| w[0] < w[1]), "rising with the CPUs: {means:?}");
}

/// numa-pmbench's kernel time stays close across `scale`: a modelled hint fault stands
/// for 256 / scale real ones and its CPU time counts that many times, so `try_to_unmap`'s
/// share (within 20 %) and the throughput gain of the patch (within 2 points) hold as `scale`
/// doubles, and the share's fall stays in the published range (6.02 % -> 0.47 %, 13-fold).
/// Seed means over seeds 1-4: in the 35 s run one seed's gain spreads over +1.2 ... +5.6 %
/// at scale 1 (`mmviz sweep numa-pmbench --toggle numa_delay_map --vary scale=1,2 --seeds 4`:
/// means +3.4 % and +4.2 %), wider than the 2 points asked of the scales.
#[test]
fn pmbench_kernel_shares_and_throughput_gain_stay_close_across_scales() {
    use mmviz_engine::run::{run_jobs, Job};
    let text = mmviz_engine::builtin::find("numa-pmbench").unwrap().text;
    let seeds = 1..=4u64;
    let mut jobs = Vec::new();
    for scale in [1i64, 2] {
        for seed in seeds.clone() {
            for on in [false, true] {
                let s = scenario::parse(text, &[("scale".to_string(), scale)]).unwrap();
                let mut t = ToggleSet::default();
                t.set_text("numa_delay_map", if on { "true" } else { "false" }).unwrap();
                jobs.push(Job {
                    scenario: scenario::Scenario { seed, ..s },
                    toggles: t,
                    windows: Vec::new(),
                });
            }
        }
    }
    let results = run_jobs(&jobs).unwrap();
    let n = seeds.count();
    let mut seen = Vec::new();
    for (k, scale) in [1, 2].iter().enumerate() {
        let (mut share, mut gain) = (0.0, 0.0);
        for pair in results[2 * n * k..2 * n * (k + 1)].chunks(2) {
            let (off, on) = (&pair[0], &pair[1]);
            let fall = off.value("try_to_unmap_pct").unwrap() / on.value("try_to_unmap_pct").unwrap();
            assert!((8.0..=20.0).contains(&fall), "scale {scale}: try_to_unmap falls {fall}-fold");
            share += off.value("try_to_unmap_pct").unwrap() / n as f64;
            gain += on.value("throughput").unwrap() / off.value("throughput").unwrap() / n as f64;
        }
        assert!(gain > 1.01, "scale {scale}: throughput x{gain} (seed mean)");
        seen.push((share, gain));
    }
    let (a, b) = (seen[0], seen[1]);
    assert!((a.0 / b.0 - 1.0).abs() < 0.2, "try_to_unmap share {} vs {} (seed means)", a.0, b.0);
    assert!((a.1 - b.1).abs() < 0.02, "throughput gain {} vs {} (seed means)", a.1, b.1);
}

/// Two single-threaded processes, each running on the node that holds the other's memory,
/// on a machine with one CPU per node and no room to migrate pages: neither may move to
/// an idle CPU (there is none), so `task_numa_migrate` swaps them (v5.12
/// `task_numa_compare`: both gain, `SMALLIMP` is passed).
#[test]
fn two_tasks_on_each_others_memory_swap_nodes() {
    let text = TestScenario::new()
        .knob("window_ms", 400)
        .knob("scan_period_ms", 10)
        .knob("numa_balancing_scan_delay_ms", 10)
        .two_nodes(
            "cpus = [0]\nmem_pages = 72\nhigh_wmark_pages = 72",
            "cpus = [1]\nmem_pages = 72\nhigh_wmark_pages = 72",
        )
        .then(
            r#"
[[process]]
name = "a"
[[process.vma]]
name = "heap"
pages = 64
node = 1
[[process.thread]]
cpus = [0, 1]
ops = [{ op = "touch", vma = "heap", write = true }, { op = "compute", ns = 1000000 }, { op = "loop" }]
[[process]]
name = "b"
[[process.vma]]
name = "heap"
pages = 64
node = 0
[[process.thread]]
cpus = [0, 1]
ops = [{ op = "touch", vma = "heap", write = true }, { op = "compute", ns = 1000000 }, { op = "loop" }]
"#,
        )
        .text();
    let s = scenario::parse(&text, &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), false);
    let (a, b) = (first_thread(&sim), first_thread(&sim) + 1);
    assert_eq!(
        (sim.st.tasks[a].cpu, sim.st.tasks[b].cpu),
        (0, 1),
        "each starts on the other's memory"
    );
    while sim.step().is_some() {
        mmviz_engine::invariants::check(&sim).unwrap();
    }
    assert_eq!(counter(&sim, "numa_pages_migrated"), 0, "no room on either node");
    assert!(counter(&sim, "numa_task_swapped") >= 1);
    assert_eq!((sim.st.tasks[a].cpu, sim.st.tasks[b].cpu), (1, 0), "each runs where its memory is");
    assert_eq!(counter(&sim, "numa_task_migrated"), 0, "no idle CPU to move to");
}

/// `migrate_swap` moves both tasks at once (`stop_two_cpus` → `migrate_swap_stop` →
/// `__migrate_swap_task` for each, kernel/sched/core.c in v4.17 and v5.12 alike): in the
/// swap of `two_tasks_on_each_others_memory_swap_nodes`, under either era's placement, the
/// two threads change CPUs in one step, and never share a CPU (the task that asked does
/// not wait queued behind its partner, nor the partner's CPU idle for it).
#[test]
fn a_swap_moves_both_tasks_in_one_step() {
    for v4_19 in ["on", "off"] {
        let text = TestScenario::new()
            .knob("window_ms", 400)
            .knob("scan_period_ms", 10)
            .knob("numa_balancing_scan_delay_ms", 10)
            .two_nodes(
                "cpus = [0]\nmem_pages = 72\nhigh_wmark_pages = 72",
                "cpus = [1]\nmem_pages = 72\nhigh_wmark_pages = 72",
            )
            .then(
                r#"
[[process]]
name = "a"
[[process.vma]]
name = "heap"
pages = 64
node = 1
[[process.thread]]
cpus = [0, 1]
ops = [{ op = "touch", vma = "heap", write = true }, { op = "compute", ns = 1000000 }, { op = "loop" }]
[[process]]
name = "b"
[[process.vma]]
name = "heap"
pages = 64
node = 0
[[process.thread]]
cpus = [0, 1]
ops = [{ op = "touch", vma = "heap", write = true }, { op = "compute", ns = 1000000 }, { op = "loop" }]
"#,
            )
            .text();
        let s = scenario::parse(&text, &[]).unwrap();
        let mut toggles = ToggleSet::default();
        toggles.set_text("numa_placement_v4_19", v4_19).unwrap();
        let mut sim = Sim::new(&s, &toggles, false);
        let (a, b) = (first_thread(&sim), first_thread(&sim) + 1);
        let mut moves = 0;
        let mut was = (sim.st.tasks[a].cpu, sim.st.tasks[b].cpu);
        while sim.step().is_some() {
            let now = (sim.st.tasks[a].cpu, sim.st.tasks[b].cpu);
            assert_ne!(
                now.0, now.1,
                "placement v4.19 {v4_19}: both threads on CPU {} at step {}",
                now.0, sim.st.step
            );
            if now != was {
                assert!(
                    now.0 != was.0 && now.1 != was.1,
                    "placement v4.19 {v4_19}: one thread moved alone at step {}",
                    sim.st.step
                );
                moves += 1;
            }
            was = now;
        }
        assert!(counter(&sim, "numa_task_swapped") >= 1, "placement v4.19 {v4_19}: no swap");
        assert!(moves >= 1, "placement v4.19 {v4_19}: the swap moved no one");
        assert_eq!(
            (sim.st.tasks[a].cpu, sim.st.tasks[b].cpu),
            (1, 0),
            "placement v4.19 {v4_19}: each runs where its memory is"
        );
    }
}

/// While a swap partner runs kernel code, the stopper of the CPU that asked waits for it
/// (`multi_cpu_stop`: a `PREEMPT_NONE` / voluntary kernel preempts kernel code only where
/// it leaves it), and the two then change places at once: in a small `numa-npb-btrfs`
/// under v4.17's placement, every CPU whose stopper waits runs a task whose partner runs on
/// the CPU it names, and (nearly) every wait ends in the swap.
#[test]
fn a_stopper_waits_for_a_swap_partner_in_kernel_code() {
    use mmviz_engine::machine::Wait;
    let text = mmviz_engine::builtin::find("numa-npb-btrfs").unwrap().text;
    let params = [
        ("cpus_per_node", 8),
        ("ranks_per_node", 6),
        ("private_pages", 1024),
        ("private_4k_pages", 32),
        ("seconds", 10),
    ];
    let params: Vec<(String, i64)> = params.iter().map(|&(k, v)| (k.to_string(), v)).collect();
    let s = scenario::parse(text, &params).unwrap();
    let mut toggles = ToggleSet::default();
    toggles.set_text("numa_placement_v4_19", "off").unwrap();
    toggles.set_text("numa_skip_dirty_file", "off").unwrap();
    let mut sim = Sim::new(&scenario::Scenario { seed: 1, ..s }, &toggles, false);
    let (mut waits, mut swaps) = (0, 0);
    let mut waiting: Vec<Option<(usize, usize)>> = vec![None; sim.st.cpus.len()];
    while sim.step().is_some() {
        for (c, was) in waiting.iter_mut().enumerate() {
            let now = match sim.st.cpus[c].wait {
                Wait::Stop(o) => {
                    let p = sim.st.cpus[c].curr as usize;
                    let t = sim.st.tasks[p].swap_with.expect("a waiting stopper's task has a partner") as usize;
                    assert_eq!(sim.st.tasks[t].cpu, o, "the partner is on the CPU the stopper waits for");
                    assert_eq!(sim.st.cpus[o as usize].curr as usize, t, "the partner runs there");
                    Some((p, t))
                }
                _ => None,
            };
            if let (Some((p, t)), None) = (*was, now) {
                // The wait ended: in the swap (the two changed CPUs) or a cancelled one.
                if sim.st.tasks[p].cpu != c as u16 {
                    assert_eq!(sim.st.tasks[t].cpu, c as u16, "the partner took the CPU of the task that waited");
                    swaps += 1;
                }
            }
            if now.is_some() && was.is_none() {
                waits += 1;
            }
            *was = now;
        }
    }
    assert!(
        waits > 0,
        "no stopper waited ({} swaps asked for)",
        counter(&sim, "numa_task_swapped")
    );
    assert!(swaps * 10 >= waits * 9, "{swaps} of {waits} waits ended in the swap");
}

/// A thread on CPU 1 (node 1) scanning and touching a 4-page heap on node 0 whose pages
/// last hint-faulted from CPU 0 (node 0) under the thread's own pid: the thread ran on
/// node 0 before and has moved.
fn own_faults_from_another_node(early: &str) -> Sim {
    let text = TestScenario::new()
        .seed(1)
        .two_nodes(NODE0_64, NODE1_64)
        .then(
            r#"
[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = 4
node = 0
[[process.thread]]
cpu = 1
ops = [{ op = "scan", vma = "heap" }, { op = "touch", vma = "heap" }]
"#,
        )
        .text();
    let s = scenario::parse(&text, &[]).unwrap();
    let mut t = ToggleSet::default();
    t.set_text("numa_early_migrate", early).unwrap();
    let mut sim = Sim::new(&s, &t, false);
    let pid = sim.st.tasks[first_thread(&sim)].pid;
    let heap = sim.st.mms[0].vmas[0].clone();
    for vpn in heap.start..heap.end() {
        let pfn = sim.st.mms[0].pte(vpn).pfn();
        sim.st.frames.get_mut(pfn).last_cpupid = mmviz_engine::kernel::sched::numa::cpu_pid_to_cpupid(0, pid);
    }
    while sim.step().is_some() {}
    sim
}

#[test]
fn before_v4_19_a_moved_tasks_own_pages_wait_for_the_two_stage_filter() {
    // v4.19 (37355bdc5a12): early in the task's life its own last fault lets the page
    // migrate at once, wherever that fault came from.
    let v419 = own_faults_from_another_node("on");
    assert_eq!(counter(&v419, "numa_hint_faults"), 4);
    assert_eq!(counter(&v419, "numa_pages_migrated"), 4);
    // v4.18: the last fault came from node 0, not node 1: wait for a second one.
    let v418 = own_faults_from_another_node("off");
    assert_eq!(counter(&v418, "numa_hint_faults"), 4);
    assert_eq!(counter(&v418, "numa_pages_migrated"), 0);
}

#[test]
fn a_v4_17_kernel_has_no_early_lifetime_shortcut() {
    use mmviz_engine::mech::numa::NUMA_EARLY_MIGRATE;
    use mmviz_engine::patches::Kernel;
    let mut t = ToggleSet::default();
    assert!(t.on(NUMA_EARLY_MIGRATE));
    for (k, on) in [("v4.17", false), ("v4.18", false), ("v4.19", true), ("v5.12", true)] {
        t.set_kernel(Kernel::parse(k).unwrap());
        assert_eq!(t.on(NUMA_EARLY_MIGRATE), on, "{k}");
    }
}

/// A process on node 0 mapping a file of `pages` pages that start dirty, sleeping `ms`
/// milliseconds, with periodic writeback every `centisecs` (none: off) and the files
/// written once dirty for `expire` centisecs (none: the default, 3000).
fn dirty_file_sleeper(centisecs: Option<u32>, expire: Option<u32>, ms: u64) -> String {
    // A flusher that kept re-arming with nothing dirty would run forever: cap the steps.
    let mut scenario = TestScenario::new().seed(1).knob("max_steps", 100_000);
    if let Some(c) = centisecs {
        scenario = scenario.knob("dirty_writeback_centisecs", c);
    }
    if let Some(e) = expire {
        scenario = scenario.knob("dirty_expire_centisecs", e);
    }
    scenario
        .node("cpus = [0, 1]\nmem_pages = 64")
        .then(&format!(
            r#"
[[process]]
name = "app"
[[process.vma]]
name = "log"
kind = "file"
pages = 3
node = 0
dirty = true
[[process.thread]]
cpu = 0
ops = [{{ op = "sleep", ns = {ns} }}]
"#,
            ns = ms * 1_000_000
        ))
        .text()
}

#[test]
fn pages_dirty_at_start_are_written_back_at_the_first_pass_after_they_expire() {
    // They were dirtied before the run (dirtied_when 0), so the flusher's delayed work is
    // already queued. With dirty_expire_centisecs 10, the pass 100 ms (10 centisecs) in
    // finds the file expired and writes all three (page_mkclean: one flush each).
    let after = run(&dirty_file_sleeper(Some(10), Some(10), 150), &[]);
    assert_eq!(counter(&after, "nr_written"), 3);
    assert_eq!(counter(&after, "nr_tlb_remote_flush"), 3);
    assert_eq!(
        after.st.roots.iter().filter(|r| r.dirtied_when.is_some()).count(),
        0,
        "the file is clean"
    );
    // With nothing dirty left the flusher sleeps until a dirtying wakes it (wb_workfn
    // re-arms only while wb_has_dirty_io), so the run ends with the sleeper.
    assert!(after.st.step < 1000, "{} steps", after.st.step);
    assert_eq!(after.now(), 150_000_700);
    // Expiring at 120 ms: the 100 ms pass leaves the file alone and re-arms (the file is
    // still dirty), so the run goes on past the sleeper to the 200 ms pass, which writes it.
    let later = run(&dirty_file_sleeper(Some(10), Some(12), 150), &[]);
    assert_eq!(counter(&later, "nr_written"), 3);
    assert!((200_000_000..201_000_000).contains(&later.now()), "{}", later.now());
    // The kernel's default, 30 s: the 300th pass writes them.
    let default = run(&dirty_file_sleeper(Some(10), None, 150), &[]);
    assert_eq!(counter(&default, "nr_written"), 3);
    assert!((30_000_000_000..30_001_000_000).contains(&default.now()), "{}", default.now());
    let off = run(&dirty_file_sleeper(None, None, 150), &[]);
    assert_eq!(counter(&off, "nr_written"), 0);
}

/// 3f9672baaa0d (v4.19): before it, `task_numa_migrate` restarted the scan period of the
/// task it moved (v4.14.117: `numa_scan_period = task_scan_start(p)` once a better CPU is
/// found); after it, the move itself does (`update_scan_period`), except a move to the
/// task's preferred node after its first scan pass, which this one is.
#[test]
fn task_numa_migrate_restarts_the_scan_period_before_v4_19_and_not_when_moving_home_after() {
    let text = away_from_its_memory("cpus = [0, 1, 2, 3]");
    let s = scenario::parse(&text, &[]).unwrap();
    let period_after_the_decision = |v4_19: bool| {
        let mut t = ToggleSet::default();
        t.set_text("numa_scan_reset_on_move", if v4_19 { "true" } else { "false" }).unwrap();
        let mut sim = Sim::new(&s, &t, false);
        let task = first_thread(&sim);
        let mut before = 0;
        while counter(&sim, "numa_task_migrated") == 0 {
            before = sim.st.tasks[task].numa.scan_period_ms;
            sim.step().unwrap();
        }
        let decided = sim.st.tasks[task].numa.scan_period_ms;
        // Run until the move is done (the task runs on node 1).
        while sim.st.tasks[task].cpu < 2 {
            sim.step().unwrap();
        }
        let mm = sim.st.tasks[task].mm().unwrap();
        let start = mmviz_engine::kernel::sched::numa::task_scan_start(&sim, task, mm);
        (before, decided, sim.st.tasks[task].numa.scan_period_ms, start)
    };
    let (before, decided, moved, start) = period_after_the_decision(false);
    assert_eq!(
        u64::from(decided),
        start,
        "v4.18: task_scan_start at the decision (was {before} ms)"
    );
    assert_eq!(moved, decided, "v4.18: the move itself changes nothing");
    let (_, decided, moved, start) = period_after_the_decision(true);
    assert_ne!(u64::from(decided), start, "v4.19: the decision does not restart the period");
    assert_eq!(moved, decided, "v4.19: moving to the preferred node keeps it too");
}
