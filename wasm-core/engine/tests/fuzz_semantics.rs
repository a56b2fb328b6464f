//! Scenario semantics under fuzzing: generated valid scenarios (1-3 nodes of 1-2 CPUs, tens
//! of pages, 1-2 processes with VMAs of both kinds and random operations of every kind the
//! format has: access, touch, random, scan, compute, sleep, yield, exit, loop, fork, mremap,
//! munmap, mmap, wakeup_flusher, fadvise_dontneed, process_cycle) each run to its end under a
//! random toggle set, with the invariants checked after every step and a step budget: no panic,
//! no invariant broken, no run that does not end.
//!
//! The same 1,000 cases run every time (a fixed seed); `MMVIZ_SEMANTICS_CASES=10000
//! MMVIZ_SEMANTICS_SEED=N` searches further. Searches of 10,000 cases at seeds 1-8 found five
//! engine defects in the page allocator, fault and migration paths, each kept below as an
//! ignored test with its input (`--include-ignored` runs them): F1 (mremap, fork, COW copy),
//! F2 (a file page mapped again while it migrates), F3 (rmqueue_buddy's block left flagged
//! free), F4 (munmap frees a page under migration), F5 (a migration misses a forked child's
//! mapping). Until they are fixed the generator steers around F1-F4 (each place says which);
//! F5 is not avoided (the fixed seed's cases do not meet it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::engine::Sim;
use mmviz_engine::patches::{registry, ToggleSet};
use mmviz_engine::{invariants, scenario};
use proptest::prelude::*;

/// Steps a generated run may take; every one here ends within a few thousand.
const BUDGET: u64 = 200_000;

#[derive(Clone, Debug)]
enum Op {
    Access {
        vma: usize,
        page: u32,
        write: bool,
        repeat: u32,
    },
    Touch {
        vma: usize,
        write: bool,
    },
    Random {
        vma: usize,
        count: u32,
        write_percent: u8,
        bulk: bool,
    },
    Scan {
        vma: Option<usize>,
    },
    Compute(u32),
    Sleep(u32),
    Yield,
    Exit,
    Loop(u32),
    Fork,
    Mremap {
        vma: usize,
        offset: u32,
    },
    Munmap(usize),
    Mmap(usize),
    WakeupFlusher,
    FadviseDontneed(usize),
    ProcessCycle {
        pages: u32,
        rounds: u32,
    },
}

#[derive(Clone, Debug)]
struct Vma {
    file: bool,
    pages: u32,
    node: Option<usize>,
    dirty: bool,
}

#[derive(Clone, Debug)]
struct Thread {
    /// 0: any CPU, 1: pinned to a CPU, 2: a node's CPUs.
    place: (u8, usize),
    ops: Vec<Op>,
}

#[derive(Clone, Debug)]
struct Gen {
    seed: u64,
    /// CPUs and pages per node.
    nodes: Vec<(u32, u32)>,
    vmas: Vec<Vec<Vma>>,
    threads: Vec<Vec<Thread>>,
    scan_period_ms: Option<u32>,
    numa_balancing: bool,
    sequential_launch: bool,
    toggles: Vec<usize>,
}

fn op() -> impl Strategy<Value = Op> {
    let v = 0usize..4;
    prop_oneof![
        4 => (v.clone(), 0u32..16, any::<bool>(), 1u32..4).prop_map(|(vma, page, write, repeat)| Op::Access { vma, page, write, repeat }),
        3 => (v.clone(), any::<bool>()).prop_map(|(vma, write)| Op::Touch { vma, write }),
        3 => (v.clone(), 1u32..200, 0u8..=100, any::<bool>()).prop_map(|(vma, count, write_percent, bulk)| Op::Random { vma, count, write_percent, bulk }),
        2 => proptest::option::of(v.clone()).prop_map(|vma| Op::Scan { vma }),
        2 => (0u32..50_000).prop_map(Op::Compute),
        2 => (0u32..50_000).prop_map(Op::Sleep),
        1 => Just(Op::Yield),
        1 => Just(Op::Exit),
        1 => (1u32..3).prop_map(Op::Loop),
        1 => Just(Op::Fork),
        1 => (v.clone(), 0u32..4).prop_map(|(vma, offset)| Op::Mremap { vma, offset }),
        1 => v.clone().prop_map(Op::Munmap),
        1 => v.clone().prop_map(Op::Mmap),
        1 => Just(Op::WakeupFlusher),
        1 => v.prop_map(Op::FadviseDontneed),
        1 => (0u32..4, 1u32..3).prop_map(|(pages, rounds)| Op::ProcessCycle { pages, rounds }),
    ]
}

fn thread() -> impl Strategy<Value = Thread> {
    ((0u8..3, 0usize..8), proptest::collection::vec(op(), 1..13)).prop_map(|(place, ops)| Thread { place, ops })
}

fn vma() -> impl Strategy<Value = Vma> {
    (any::<bool>(), 1u32..13, proptest::option::of(0usize..3), any::<bool>()).prop_map(|(file, pages, node, dirty)| Vma {
        file,
        pages,
        node,
        dirty,
    })
}

fn gen() -> impl Strategy<Value = Gen> {
    (
        any::<u64>(),
        proptest::collection::vec((1u32..3, 0u32..48), 1..4),
        proptest::collection::vec(
            (proptest::collection::vec(vma(), 1..4), proptest::collection::vec(thread(), 1..4)),
            1..3,
        ),
        (proptest::option::of(1u32..4), any::<bool>(), any::<bool>()),
        proptest::collection::vec(any::<usize>(), registry().len()),
    )
        .prop_map(
            |(seed, nodes, procs, (scan_period_ms, numa_balancing, sequential_launch), toggles)| {
                let (vmas, threads) = procs.into_iter().unzip();
                Gen {
                    seed,
                    nodes,
                    vmas,
                    threads,
                    scan_period_ms,
                    numa_balancing,
                    sequential_launch,
                    toggles,
                }
            },
        )
}

impl Gen {
    /// The scenario text: indices are taken modulo what exists, so every reference is valid;
    /// a process's first `fork` (outside a thread that loops) forks a child declared after
    /// the parents, and later ones become `compute`.
    fn text(&self) -> String {
        let mut nodes = self.nodes.clone();
        // Some node must have memory.
        nodes[0].1 = nodes[0].1.max(8);
        let with_mem: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].1 > 0).collect();
        let nr_cpus: u32 = nodes.iter().map(|n| n.0).sum();
        let mut t = format!(
            "format = 1\nid = \"gen\"\ntitle = \"generated\"\nseed = {}\n\n[knobs]\nmax_steps = {BUDGET}\nnuma_balancing = {}\nsequential_launch = {}\n",
            self.seed % 1000,
            self.numa_balancing,
            self.sequential_launch
        );
        // Finding F2 (see `a_file_page_under_migration_is_not_mapped_again` below): a file
        // page can be mapped again while it migrates, so a scenario with file VMAs does not
        // scan (no NUMA migration) here until it is fixed.
        let files = self.vmas.iter().flatten().any(|v| v.file);
        // Finding F3 (see `a_block_from_rmqueue_buddy_is_not_left_free` below): the PCP
        // allocator's slow path hands a buddy block over a step boundary still flagged free,
        // which only a free by another CPU during the wait makes reachable, so
        // `process_cycle` runs only in a scenario of one thread here until it is fixed.
        let alone = self.threads.len() == 1 && self.threads[0].len() == 1;
        // Finding F4 (see `munmap_during_a_migration_frees_the_page_once` below): munmap frees
        // a page that a migration on another CPU holds, so a scenario that scans (migrates)
        // does not munmap here until it is fixed.
        let scans = self.scan_period_ms.is_some()
            || self
                .threads
                .iter()
                .flatten()
                .flat_map(|t| &t.ops)
                .any(|o| matches!(o, Op::Scan { .. }));
        if let Some(p) = self.scan_period_ms.filter(|_| !files) {
            t += &format!("scan_period_ms = {p}\n");
        }
        t += "\n[machine]\ntlb_entries = 4\n";
        let mut cpu = 0;
        for (cpus, pages) in &nodes {
            let list: Vec<String> = (cpu..cpu + cpus).map(|c| c.to_string()).collect();
            cpu += cpus;
            t += &format!("[[machine.node]]\ncpus = [{}]\nmem_pages = {pages}\n", list.join(", "));
        }
        let mut children = Vec::new();
        for (p, (vmas, threads)) in self.vmas.iter().zip(&self.threads).enumerate() {
            t += &format!("\n[[process]]\nname = \"p{p}\"\n");
            for (i, v) in vmas.iter().enumerate() {
                t += &format!("[[process.vma]]\nname = \"v{i}\"\npages = {}\n", v.pages);
                if v.file {
                    t += &format!("kind = \"file\"\nfile = \"f{}\"\ndirty = {}\n", i % 2, v.dirty);
                }
                if let Some(n) = v.node {
                    t += &format!("node = {}\n", with_mem[n % with_mem.len()]);
                }
            }
            let mut forked = false;
            for th in threads {
                t += "[[process.thread]]\n";
                match th.place.0 {
                    1 => t += &format!("cpu = {}\n", th.place.1 as u32 % nr_cpus),
                    2 => t += &format!("node = {}\n", th.place.1 % nodes.len()),
                    _ => {}
                }
                let loops = th.ops.iter().any(|o| matches!(o, Op::Loop(_)));
                // Finding F1 (see `mremap_then_fork_then_a_cow_write_keeps_the_rmap` below): a
                // copy-on-write copy of a page of a moved VMA takes the wrong index, so a process
                // that remaps does not fork here until it is fixed.
                let remaps = threads.iter().any(|t| t.ops.iter().any(|o| matches!(o, Op::Mremap { .. })));
                let ops: Vec<String> = th
                    .ops
                    .iter()
                    .map(|o| {
                        if matches!(o, Op::Fork) {
                            if forked || loops || remaps {
                                return "{ op = \"compute\", ns = 1000 }".to_string();
                            }
                            forked = true;
                            children.push(p);
                        }
                        if !alone && matches!(o, Op::ProcessCycle { .. }) {
                            return "{ op = \"compute\", ns = 900 }".to_string();
                        }
                        if scans && matches!(o, Op::Munmap(_)) {
                            return "{ op = \"compute\", ns = 800 }".to_string();
                        }
                        if files && matches!(o, Op::Scan { .. }) {
                            return "{ op = \"compute\", ns = 700 }".to_string();
                        }
                        op_text(o, vmas)
                    })
                    .collect();
                t += &format!("ops = [\n  {},\n]\n", ops.join(",\n  "));
            }
        }
        for p in children {
            t += &format!(
                "\n[[process]]\nname = \"kid{p}\"\nforked = true\n[[process.thread]]\nops = [\n  {{ op = \"touch\", vma = \"v0\", write = true }},\n  {{ op = \"compute\", ns = 3000 }},\n]\n"
            );
        }
        t
    }

    fn toggle_set(&self) -> ToggleSet {
        let mut set = ToggleSet::default();
        for (p, &i) in registry().iter().zip(&self.toggles) {
            let values = p.values();
            set.set(p.id, values[i % values.len()].clone()).unwrap();
        }
        set
    }
}

fn op_text(o: &Op, vmas: &[Vma]) -> String {
    let name = |i: usize| format!("v{}", i % vmas.len());
    let pages = |i: usize| vmas[i % vmas.len()].pages;
    match o {
        Op::Access { vma, page, write, repeat } => format!(
            "{{ op = \"access\", vma = \"{}\", page = {}, write = {write}, repeat = {repeat} }}",
            name(*vma),
            page % pages(*vma)
        ),
        Op::Touch { vma, write } => format!("{{ op = \"touch\", vma = \"{}\", write = {write} }}", name(*vma)),
        Op::Random {
            vma,
            count,
            write_percent,
            bulk,
        } => format!(
            "{{ op = \"random\", vma = \"{}\", count = {count}, write_percent = {write_percent}, bulk = {bulk} }}",
            name(*vma)
        ),
        Op::Scan { vma: Some(v) } => format!("{{ op = \"scan\", vma = \"{}\" }}", name(*v)),
        Op::Scan { vma: None } => "{ op = \"scan\" }".to_string(),
        Op::Compute(ns) => format!("{{ op = \"compute\", ns = {ns} }}"),
        Op::Sleep(ns) => format!("{{ op = \"sleep\", ns = {ns} }}"),
        Op::Yield => "{ op = \"yield\" }".to_string(),
        Op::Exit => "{ op = \"exit\" }".to_string(),
        Op::Loop(times) => format!("{{ op = \"loop\", times = {times} }}"),
        Op::Fork => "{ op = \"fork\", child = \"CHILD\" }".to_string(),
        Op::Mremap { vma, offset } => format!("{{ op = \"mremap\", vma = \"{}\", offset = {offset} }}", name(*vma)),
        Op::Munmap(v) => format!("{{ op = \"munmap\", vma = \"{}\" }}", name(*v)),
        Op::Mmap(v) => format!("{{ op = \"mmap\", vma = \"{}\" }}", name(*v)),
        Op::WakeupFlusher => "{ op = \"wakeup_flusher\" }".to_string(),
        Op::FadviseDontneed(v) => {
            // Only a file VMA has a file; an anonymous one gets a compute instead.
            match (0..vmas.len()).map(|k| (v + k) % vmas.len()).find(|&i| vmas[i].file) {
                Some(i) => format!("{{ op = \"fadvise_dontneed\", vma = \"v{i}\" }}"),
                None => "{ op = \"compute\", ns = 500 }".to_string(),
            }
        }
        Op::ProcessCycle { pages, rounds } => format!("{{ op = \"process_cycle\", pages = {pages}, rounds = {rounds} }}"),
    }
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn label(t: &ToggleSet) -> String {
    t.iter().map(|(id, v)| format!("{id}={v:?}")).collect::<Vec<_>>().join(" ")
}

fn fill_children(text: String) -> String {
    // The fork op names its child by the parent's index, known only once the text is built.
    let mut out = String::new();
    let mut parent = None;
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("name = \"p").and_then(|r| r.strip_suffix('"')) {
            parent = Some(p.to_string());
        }
        match &parent {
            Some(p) => out += &line.replace("CHILD", &format!("kid{p}")),
            None => out += line,
        }
        out.push('\n');
    }
    out
}

proptest! {
    // The same 1,000 cases every run (a fixed seed: CI is not a lottery), about a second in
    // debug; MMVIZ_SEMANTICS_CASES and MMVIZ_SEMANTICS_SEED run a longer or another search.
    #![proptest_config(ProptestConfig {
        cases: env_number("MMVIZ_SEMANTICS_CASES").unwrap_or(1000) as u32,
        rng_seed: proptest::test_runner::RngSeed::Fixed(env_number("MMVIZ_SEMANTICS_SEED").unwrap_or(20_261_128)),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn generated_scenarios_run_to_their_end_with_the_invariants_held(g in gen()) {
        let text = fill_children(g.text());
        let s = match scenario::parse(&text, &[]) {
            Ok(s) => s,
            Err(e) => return Err(TestCaseError::fail(format!("the generator wrote a scenario the parser refuses: {e}\n{text}"))),
        };
        let toggles = g.toggle_set();
        let mut sim = Sim::new(&s, &toggles, false);
        while sim.step().is_some() {
            if let Err(e) = invariants::check(&sim) {
                return Err(TestCaseError::fail(format!("step {}: {e}\nunder {}\n{text}", sim.st.step, label(&toggles))));
            }
            prop_assert!(sim.st.step <= BUDGET, "no end within {BUDGET} steps under {}\n{text}", label(&toggles));
        }
    }
}

/// Finding F1 of the semantics fuzzing (2026-11-28): after `mremap` moves a VMA (its
/// `pgoff` stays, as the kernel keeps `vm_pgoff`) and a `fork` shares its page, the parent's
/// store copies the page (`wp_page_copy`, mm/memory.rs), which sets the copy's `index` to the
/// faulting vpn instead of the VMA's linear page index (`linear_page_index(vma, addr)`, as
/// v5.12's `page_add_new_anon_rmap` -> `__page_set_anon_rmap` does), so the rmap walk no longer
/// finds the mapping: "mm 1 vpn 0x7f800 maps pfn 17, but the page's rmap (root 1, index
/// 0x7f800) does not lead back to it" after step 49. Left to the page-fault rework.
#[test]
#[ignore = "finding F1: wp_page_copy sets page.index = vpn on a moved VMA (mm/memory.rs)"]
fn mremap_then_fork_then_a_cow_write_keeps_the_rmap() {
    let text = "format = 1\nid = \"f1\"\ntitle = \"F1\"\n[machine]\n[[machine.node]]\ncpus = [0]\nmem_pages = 20\n\
        [[process]]\nname = \"p0\"\n[[process.vma]]\nname = \"v0\"\npages = 1\n[[process.vma]]\nname = \"v1\"\npages = 1\nnode = 0\n\
        [[process.thread]]\nops = [\n  { op = \"mremap\", vma = \"v1\" },\n  { op = \"fork\", child = \"kid\" },\n  { op = \"access\", vma = \"v1\", page = 0, write = true },\n]\n\
        [[process]]\nname = \"kid\"\nforked = true\n[[process.thread]]\nops = [{ op = \"compute\", ns = 3000 }]\n";
    let s = scenario::parse(text, &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), false);
    while sim.step().is_some() {
        if let Err(e) = invariants::check(&sim) {
            panic!("step {}: {e}", sim.st.step);
        }
    }
}

/// Finding F2 of the semantics fuzzing (2026-11-28): while a file page migrates (NUMA hint
/// fault -> `migrate_pages`, its PTEs already migration entries), another process faulting on
/// the same file offset finds the old page in the page cache and maps it (mm/memory.rs, "The
/// file page at .. is already in the page cache"); the migration then frees it, and the new
/// mapping names a free frame: "mm 3 vpn 0x7f001 maps pfn 40, which is free" at step 447. In
/// v5.12 the fault finds the page locked (`filemap_fault` -> `lock_page_maybe_drop_mmap`) and
/// waits, then sees the page cache slot moved to the new page (`migrate_page_move_mapping`).
/// Left to the page-fault rework.
#[test]
#[ignore = "finding F2: a file page under migration is mapped again from the page cache (mm/memory.rs)"]
fn a_file_page_under_migration_is_not_mapped_again() {
    let text = r#"format = 1
id = "gen"
title = "generated"
seed = 741
[knobs]
max_steps = 200000
numa_balancing = false
sequential_launch = false
[machine]
tlb_entries = 4
[[machine.node]]
cpus = [0]
mem_pages = 8
[[machine.node]]
cpus = [1]
mem_pages = 20
[[machine.node]]
cpus = [2]
mem_pages = 15
[[process]]
name = "p0"
[[process.vma]]
name = "v0"
pages = 5
kind = "file"
file = "f0"
dirty = false
node = 2
[[process.vma]]
name = "v1"
pages = 9
node = 1
[[process.thread]]
cpu = 1
ops = [
  { op = "compute", ns = 46642 },
  { op = "scan" },
  { op = "access", vma = "v0", page = 0, write = true, repeat = 1 },
  { op = "touch", vma = "v1", write = false },
  { op = "fork", child = "kid0" },
]
[[process.thread]]
ops = [
  { op = "process_cycle", pages = 1, rounds = 1 },
  { op = "sleep", ns = 20594 },
  { op = "access", vma = "v0", page = 1, write = false, repeat = 1 },
]
[[process]]
name = "p1"
[[process.vma]]
name = "v0"
pages = 12
[[process.thread]]
cpu = 0
ops = [
  { op = "touch", vma = "v0", write = false },
  { op = "touch", vma = "v0", write = false },
]
[[process]]
name = "kid0"
forked = true
[[process.thread]]
ops = [
  { op = "touch", vma = "v0", write = true },
]"#;
    let s = scenario::parse(text, &[]).unwrap();
    let mut t = ToggleSet::default();
    t.set_text("tlb_lazy", "init_mm_with_pcid").unwrap();
    let mut sim = Sim::new(&s, &t, false);
    while sim.step().is_some() {
        if let Err(e) = invariants::check(&sim) {
            panic!("step {}: {e}", sim.st.step);
        }
    }
}

/// Finding F3 of the semantics fuzzing (2026-11-28): `process_cycle`'s fault allocates through
/// the PCP slow path on an exhausted zone (`rmqueue_bulk` found nothing, `rmqueue_buddy` waits
/// for the zone lock); meanwhile another CPU's thread stops and its pages go back to the buddy
/// lists; `RmqueueBuddy` (mm/page_alloc.rs) then takes such a block off the free list and
/// returns it to its caller across a step boundary with the frame still flagged free: "free
/// memory adds up: pfn 16 is flagged free but is on no buddy or PCP list" after step 114. In
/// v6.6 `__rmqueue` -> `del_page_from_free_list` clears PageBuddy inside the same zone-lock
/// section that takes the block. Left to the allocator rework.
#[test]
#[ignore = "finding F3: rmqueue_buddy returns a block still flagged free (mm/page_alloc.rs)"]
fn a_block_from_rmqueue_buddy_is_not_left_free() {
    let text = r#"format = 1
id = "gen"
title = "generated"
seed = 0
[knobs]
max_steps = 200000
numa_balancing = false
sequential_launch = true
[machine]
tlb_entries = 4
[[machine.node]]
cpus = [0]
mem_pages = 9
[[machine.node]]
cpus = [1]
mem_pages = 10
[[process]]
name = "p0"
[[process.vma]]
name = "v0"
pages = 1
[[process.thread]]
ops = [
  { op = "compute", ns = 40632 },
  { op = "munmap", vma = "v0" },
  { op = "access", vma = "v0", page = 0, write = false, repeat = 1 },
]
[[process.thread]]
ops = [
  { op = "access", vma = "v0", page = 0, write = false, repeat = 1 },
]
[[process.thread]]
ops = [
  { op = "process_cycle", pages = 3, rounds = 1 },
]
[[process]]
name = "p1"
[[process.vma]]
name = "v0"
pages = 2
[[process.vma]]
name = "v1"
pages = 9
node = 0
[[process.vma]]
name = "v2"
pages = 5
node = 0
[[process.thread]]
cpu = 0
ops = [
  { op = "wakeup_flusher" },
  { op = "access", vma = "v2", page = 0, write = false, repeat = 3 },
  { op = "touch", vma = "v1", write = false },
  { op = "touch", vma = "v0", write = false },
]"#;
    let s = scenario::parse(text, &[]).unwrap();
    let mut t = ToggleSet::default();
    for kv in "tlb_flush_multi=false tlb_lazy=skip numa_delay_map=false numa_skip_dirty_file=false numa_ratelimit_removed=false numa_scan_reset_on_move=false numa_early_migrate=false numa_placement_v4_19=false mremap_flush=deferred mremap_pmd_extents=false pcp_prev_free_high_order=false pcp_free_high_batch=false pcp_alloc_factor=false pcp_high_autotune=false pcp_below_high=false pcp_free_count=false".split_whitespace() {
        let (k, v) = kv.split_once('=').unwrap();
        t.set_text(k, v).unwrap();
    }
    let mut sim = Sim::new(&s, &t, false);
    while sim.step().is_some() {
        if let Err(e) = invariants::check(&sim) {
            panic!("step {}: {e}", sim.st.step);
        }
    }
}

/// Finding F4 of the semantics fuzzing (2026-11-28): a NUMA hint fault on CPU 2 migrates pfn 0
/// (its PTE already a migration entry, `move_to_new_page` done) while the owner munmaps the VMA
/// on CPU 0: `tlb_finish_mmu` frees the page (mm/mmap.rs), and the migration's end frees it
/// again: "buddy lists of node 0: pfn 0 is free twice" at step 58. In v5.12 the isolated page
/// holds a reference of its own (`isolate_lru_page` -> `get_page`), so the zap only drops the
/// mapping's and `migrate_pages` puts the last one. The same missing reference lets a page a
/// forked child shares be freed by the parent's munmap mid-migration and the child map a free
/// frame ("mm 2 vpn 0x7f000 maps pfn 8, which is free", seed 5). Left to the migration rework.
#[test]
#[ignore = "finding F4: munmap frees a page under migration (mm/mmap.rs, mm/migrate.rs)"]
fn munmap_during_a_migration_frees_the_page_once() {
    let text = r#"format = 1
id = "gen"
title = "generated"
seed = 173
[knobs]
max_steps = 200000
numa_balancing = false
sequential_launch = false
[machine]
tlb_entries = 4
[[machine.node]]
cpus = [0]
mem_pages = 8
[[machine.node]]
cpus = [1]
mem_pages = 1
[[machine.node]]
cpus = [2, 3]
mem_pages = 3
[[process]]
name = "p0"
[[process.vma]]
name = "v0"
pages = 1
node = 0
[[process.thread]]
cpu = 2
ops = [
  { op = "sleep", ns = 19133 },
  { op = "sleep", ns = 25839 },
  { op = "scan" },
  { op = "access", vma = "v0", page = 0, write = false, repeat = 1 },
]
[[process.thread]]
cpu = 0
ops = [
  { op = "compute", ns = 49193 },
  { op = "munmap", vma = "v0" },
]"#;
    let s = scenario::parse(text, &[]).unwrap();
    let mut t = ToggleSet::default();
    for kv in "tlb_flush_multi=true tlb_lazy=skip numa_delay_map=false numa_skip_dirty_file=false numa_ratelimit_removed=false numa_scan_reset_on_move=false numa_early_migrate=false numa_placement_v4_19=false mremap_flush=deferred mremap_pmd_extents=false pcp_prev_free_high_order=false pcp_free_high_batch=false pcp_alloc_factor=false pcp_high_autotune=false pcp_below_high=false pcp_free_count=false".split_whitespace() {
        let (k, v) = kv.split_once('=').unwrap();
        t.set_text(k, v).unwrap();
    }
    let mut sim = Sim::new(&s, &t, false);
    while sim.step().is_some() {
        if let Err(e) = invariants::check(&sim) {
            panic!("step {}: {e}", sim.st.step);
        }
    }
}

/// Finding F5 of the semantics fuzzing (2026-11-28): a process forks (`dup_mmap`, the child's
/// VMA joins the parent's anon_vma) and the child later takes a NUMA hint fault on a page the
/// two share; the migration's rmap walk (`try_to_unmap`) visits only the parent's mapping
/// ("rmap walk: pfn 18 may be mapped by mm 2"), so the child's PTE is neither replaced by a
/// migration entry nor moved, and the old page is freed under it: "mm 3 vpn 0x7f002 maps pfn
/// 18, which is free" at step 613 (seed 8 of the long search). Left to the migration rework.
#[test]
#[ignore = "finding F5: the migration's rmap walk misses a forked child's mapping (mm/migrate.rs, kernel/fork.rs)"]
fn a_migration_unmaps_every_process_sharing_the_page() {
    let text = r#"format = 1
id = "gen"
title = "generated"
seed = 115
[knobs]
max_steps = 200000
numa_balancing = false
sequential_launch = true
[machine]
tlb_entries = 4
[[machine.node]]
cpus = [0]
mem_pages = 20
[[machine.node]]
cpus = [1]
mem_pages = 8
[[process]]
name = "p0"
[[process.vma]]
name = "v0"
pages = 9
[[process.thread]]
ops = [
  { op = "yield" },
  { op = "access", vma = "v0", page = 5, write = true, repeat = 2 },
  { op = "scan" },
  { op = "loop", times = 2 },
  { op = "access", vma = "v0", page = 1, write = false, repeat = 1 },
  { op = "scan" },
  { op = "access", vma = "v0", page = 1, write = false, repeat = 2 },
  { op = "wakeup_flusher" },
  { op = "random", vma = "v0", count = 25, write_percent = 44, bulk = true },
  { op = "mremap", vma = "v0", offset = 0 },
]
[[process.thread]]
ops = [
  { op = "random", vma = "v0", count = 1, write_percent = 0, bulk = false },
]
[[process]]
name = "p1"
[[process.vma]]
name = "v0"
pages = 11
node = 0
[[process.vma]]
name = "v1"
pages = 1
[[process.vma]]
name = "v2"
pages = 6
[[process.thread]]
cpu = 0
ops = [
  { op = "access", vma = "v1", page = 0, write = false, repeat = 1 },
  { op = "scan" },
  { op = "random", vma = "v1", count = 46, write_percent = 0, bulk = false },
  { op = "touch", vma = "v2", write = false },
  { op = "sleep", ns = 9111 },
  { op = "compute", ns = 1937 },
]
[[process.thread]]
cpu = 1
ops = [
  { op = "compute", ns = 7466 },
  { op = "access", vma = "v1", page = 0, write = false, repeat = 3 },
  { op = "compute", ns = 7213 },
  { op = "fork", child = "kid1" },
  { op = "compute", ns = 26984 },
]
[[process.thread]]
ops = [
  { op = "compute", ns = 20239 },
  { op = "loop", times = 2 },
]
[[process]]
name = "kid1"
forked = true
[[process.thread]]
ops = [
  { op = "touch", vma = "v0", write = true },
]"#;
    let s = scenario::parse(text, &[]).unwrap();
    let mut t = ToggleSet::default();
    for kv in "tlb_flush_multi=false tlb_lazy=skip numa_delay_map=false numa_skip_dirty_file=false numa_ratelimit_removed=false numa_scan_reset_on_move=false numa_early_migrate=false numa_placement_v4_19=false mremap_flush=deferred mremap_pmd_extents=false pcp_prev_free_high_order=false pcp_free_high_batch=false pcp_alloc_factor=false pcp_high_autotune=false pcp_below_high=false pcp_free_count=false".split_whitespace() {
        let (k, v) = kv.split_once('=').unwrap();
        t.set_text(k, v).unwrap();
    }
    let mut sim = Sim::new(&s, &t, false);
    while sim.step().is_some() {
        if let Err(e) = invariants::check(&sim) {
            panic!("step {}: {e}", sim.st.step);
        }
    }
}
