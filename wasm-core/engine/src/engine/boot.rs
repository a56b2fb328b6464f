//! Boot: the machine and the scenario's starting state, built once before the first step
//! (what the kernel's early boot and the scenario's launcher would have left: zones and
//! their free lists, each process's VMAs and pages at time 0, the kernel threads, the idle
//! tasks, the CPUs, and the first thread on each CPU).

use super::{Config, Next, Sim, State, NO_PAGE, VMA_BASE_VPN};
use crate::core::{Locks, ReadyQueue, Stack};
use crate::counters::Counters;
use crate::machine::mm::fresh_page_flags;
use crate::machine::{
    pg, Cpu, CpuMask, Frames, KthreadKind, Mm, Page, RmapKind, RmapRoot, Task, TaskKind, TaskState, Tlb, Vma, Wait, CPUPID_UNSET,
};
use crate::mech::core::{DRAM_LOCAL_NS, DRAM_REMOTE_NS};
use crate::mm::gfp::GFP_HIGHUSER_MOVABLE;
use crate::mm::page_alloc::PageAlloc;
use crate::patches::ToggleSet;
use crate::registry::Frame;
use crate::scenario::{Op, Scenario, VmaKind};
use crate::topology::{CpuId, Topology};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::rc::Rc;

/// The address spaces and user threads of a scenario at time 0.
struct Processes {
    mms: Vec<Mm>,
    roots: Vec<RmapRoot>,
    page_cache: Vec<Vec<u32>>,
    tasks: Vec<Task>,
    ops: Vec<Vec<Op>>,
}

impl Sim {
    /// Builds the initial state of `scenario` under `toggles`.
    pub fn new(scenario: &Scenario, toggles: &ToggleSet, recording: bool) -> Sim {
        let topo = scenario.topology.clone();
        let nr_nodes = topo.nodes.len();
        let nr_nodes_ids = topo.nodes.iter().map(|n| n.id as usize + 1).max().unwrap_or(1);
        let nr_cpus = topo.nr_cpus();
        let total = topo.total_pages();
        let mut frames = Frames::new(total);
        let mut page_alloc = crate::mm::page_alloc::PageAlloc::new(
            &topo,
            &crate::mm::page_alloc::Rules::from_toggles(toggles),
            &crate::mech::page_alloc::overrides(&scenario.knobs),
        );
        let Processes {
            mut mms,
            roots,
            page_cache,
            mut tasks,
            ops,
        } = processes(scenario, &mut page_alloc, &mut frames);
        let first_idle = kernel_threads_and_idle(&topo, &mut tasks);
        let stacks = tasks
            .iter()
            .map(|t| {
                Stack::new(match t.kind {
                    TaskKind::User { .. } => Frame::from(crate::kernel::entry::UserMode::default()),
                    TaskKind::Kernel(kind) => Frame::from(crate::kernel::kthread::Kthread::new(kind)),
                    TaskKind::Idle => Frame::Idle,
                })
            })
            .collect();
        let mut cpus = boot_cpus(&topo, first_idle);
        place_first_threads(scenario, &topo, &mut cpus, &mut tasks, &mut mms);
        // The scenario's own kernel, then its own toggles, apply to every toggle the
        // caller did not choose explicitly (`--set`, `--kernel`, a preset, a compare).
        let mut toggles = toggles.clone();
        if let Some(k) = scenario.kernel {
            toggles.default_kernel(k);
        }
        for (id, v) in &scenario.toggles {
            // The parser checked both.
            let _ = toggles.default_to(id, v.clone());
        }
        let nodes = topo.nodes.len();
        let dram = (0..nodes * nodes)
            .map(|i| {
                let d = u64::from(topo.distance[i / nodes][i % nodes]);
                let (l, r) = (scenario.costs[DRAM_LOCAL_NS], scenario.costs[DRAM_REMOTE_NS]);
                // distance 10 = local, 21 = one hop (r); linear in between and beyond.
                l + (r.saturating_sub(l)) * d.saturating_sub(10) / 11
            })
            .collect();
        let cfg = Config {
            topo,
            knobs: scenario.knobs.clone(),
            costs: scenario.costs.clone(),
            ops,
            toggles,
            sched: crate::kernel::sched::fair::Tunables::new(&scenario.knobs, nr_cpus),
            mem_scale: scenario.knobs.value(crate::mech::numa::MEM_SCALE).max(1),
            jiffies0: crate::mm::vmstat::jiffies_at_start(scenario.seed),
            dram,
            window_end: scenario.knobs.get(crate::mech::core::WINDOW_NS).unwrap_or(u64::MAX),
            schedule: scenario.schedule.clone(),
        };
        let nr_tasks = tasks.len();
        // The vmstat worker of each CPU, and what each task holds (mm/page_alloc.rs).
        page_alloc.vmstat_task = (0..nr_cpus)
            .map(|c| {
                tasks
                    .iter()
                    .position(|t| t.kind == TaskKind::Kernel(KthreadKind::Vmstat) && usize::from(t.home) == c)
                    .map_or(u16::MAX, |i| i as u16)
            })
            .collect();
        page_alloc.held = vec![Vec::new(); nr_tasks];
        // Each CPU's vmstat worker sleeps until its first whole-second slot (mm/vmstat.rs).
        for (c, &task) in page_alloc.vmstat_task.iter().enumerate() {
            if let Some(t) = tasks.get_mut(task as usize) {
                let at = crate::mm::vmstat::first_update(cfg.jiffies0, c as CpuId);
                t.state = TaskState::Sleeping(Some(at));
                cpus[c].timers.push((at, task));
            }
        }
        let mut sim = Sim {
            cfg: Rc::new(cfg),
            st: State {
                cpus,
                tasks,
                stacks,
                mms,
                roots,
                page_cache,
                frames,
                backing: Vec::new(),
                numa_pgdat: vec![Default::default(); nr_nodes],
                page_alloc,
                // Each CPU holds a handful of locks at most (PTL, page lock, rmap locks).
                locks: Locks::with_capacity(8 * nr_cpus + 8, nr_tasks),
                counters: Counters::default(),
                prof: crate::profile::Profile::new(nr_cpus),
                step: 0,
                rng: ChaCha8Rng::seed_from_u64(scenario.seed),
                readyq: ReadyQueue::new(nr_cpus),
                acting: 0,
                woken: Vec::with_capacity(nr_tasks),
                touched: CpuMask::first(nr_cpus),
                ready_next: vec![Next::Work; nr_cpus],
                cpu_queued: vec![false; nr_cpus],
                node_queued: vec![0; nr_nodes_ids],
                nohz_next_balance: nr_cpus as u64 * 1_000_000,
                sched_pos: 0,
                sched_error: None,
                numa_groups: vec![crate::kernel::sched::numa_group::NumaGroup::empty(nr_nodes_ids); nr_tasks],
            },
            recording,
            profiling: false,
        };
        // What the scenario's starting state set off before the run (each mechanism's
        // `setup`, in registry order).
        for m in crate::registry::MECHANISMS {
            if let Some(setup) = m.setup {
                setup(&mut sim);
            }
        }
        // Each CPU's running thread starts its slice now.
        for c in 0..nr_cpus as CpuId {
            crate::kernel::sched::fair::refresh_slice(&mut sim, c);
        }
        sim.refresh_ready();
        sim
    }
}

/// Each process's VMAs, rmap roots, page cache and pages at time 0 (taken from the page
/// allocator's free lists like any other page: `mm::page_alloc::rmqueue_now`), and its
/// threads.
fn processes(scenario: &Scenario, page_alloc: &mut PageAlloc, frames: &mut Frames) -> Processes {
    let mut mms = Vec::new();
    let mut roots: Vec<RmapRoot> = Vec::new();
    let mut page_cache: Vec<Vec<u32>> = Vec::new();
    let mut files: Vec<(String, u16)> = Vec::new();
    let mut tasks = Vec::new();
    let mut ops = Vec::new();
    for (pi, p) in scenario.processes.iter().enumerate() {
        let mut vmas = Vec::new();
        let mut pgtable = crate::machine::pgtable::PageTable::default();
        let mut next = VMA_BASE_VPN;
        // A forked process's mm stays empty until its parent's fork copies into it.
        let forked = p.forked_by.is_some();
        for (vi, v) in p.vmas.iter().enumerate().filter(|_| !forked) {
            // A named file is one rmap root and one page cache, whoever maps it.
            let shared = v.file.as_ref().and_then(|f| files.iter().find(|(n, _)| n == f).map(|&(_, r)| r));
            let root = match shared {
                Some(r) => {
                    roots[r as usize].vmas.push((pi as u16, vi as u16));
                    r
                }
                None => {
                    let r = roots.len() as u16;
                    let file = v.kind == VmaKind::File;
                    roots.push(RmapRoot {
                        kind: if file { RmapKind::File } else { RmapKind::Anon },
                        vmas: vec![(pi as u16, vi as u16)],
                        dirtied_when: None,
                    });
                    page_cache.push(Vec::new());
                    if let (true, Some(name)) = (file, &v.file) {
                        files.push((name.clone(), r));
                    }
                    r
                }
            };
            // Anon VMAs count page offsets in address space (vm_pgoff = start); a
            // file VMA maps its file from offset 0.
            let pgoff = if v.kind == VmaKind::File { 0 } else { next };
            if v.kind == VmaKind::File {
                let cache = &mut page_cache[root as usize];
                if cache.len() < v.pages as usize {
                    cache.resize(v.pages as usize, NO_PAGE);
                }
            }
            if let Some(node) = v.node {
                let dirty_pages = (u64::from(v.pages) * u64::from(v.dirty_pct)).div_ceil(100);
                for i in 0..v.pages {
                    let vpn = next + i;
                    let stored = u64::from(i) < dirty_pages;
                    let cached = page_cache[root as usize].get(i as usize).copied().filter(|&p| p != NO_PAGE);
                    let pfn = match cached {
                        Some(pfn) => {
                            frames.get_mut(pfn).mapcount += 1;
                            pfn
                        }
                        None => {
                            // Populate on the requested node, falling back by distance when full.
                            let Some(pfn) = crate::mm::page_alloc::rmqueue_now(page_alloc, GFP_HIGHUSER_MOVABLE, 0, node) else {
                                break;
                            };
                            *frames.get_mut(pfn) = Page {
                                flags: fresh_page_flags(v.kind, stored),
                                mapcount: 1,
                                refcount: 1,
                                mapping: root,
                                index: pgoff + i,
                                last_cpupid: CPUPID_UNSET,
                            };
                            if let Some(slot) = page_cache[root as usize].get_mut(i as usize) {
                                *slot = pfn;
                            }
                            pfn
                        }
                    };
                    let dirty = stored || frames.get(pfn).has(pg::DIRTY);
                    // A shared file mapping tracks dirtying (write-notify): a clean page
                    // is mapped read-only, so the first store faults and dirties it.
                    let write = v.kind != VmaKind::File || dirty;
                    pgtable.set_pte(vpn, crate::machine::Pte::present(pfn, write, dirty, false));
                }
            }
            vmas.push(Vma {
                start: next,
                pages: v.pages,
                kind: v.kind,
                fs: v.fs,
                pgoff,
                rmap_root: root,
                prev: (next, v.pages),
                nohugepage: v.nohugepage,
            });
            next = (next + v.pages).div_ceil(512) * 512 + 512;
        }
        mms.push(Mm {
            pid: pi as u16 + 1,
            cpumask: CpuMask::EMPTY,
            tlb_gen: 0,
            flush_pending: 0,
            vmas,
            pgtable,
            users: if forked { 0 } else { p.threads.len() as u16 },
            threads: p.threads.len() as u16,
            numa_next_scan: scenario.knobs.value(crate::mech::numa::SCAN_PERIOD_NS),
            scan_offset: (0, 0),
            numa_scan_seq: 0,
            access: Vec::new(),
        });
        for (ti, t) in p.threads.iter().enumerate() {
            let mut allowed = CpuMask::EMPTY;
            for &c in &t.allowed {
                allowed.set(c);
            }
            tasks.push(Task {
                pid: 0,
                kind: TaskKind::User {
                    mm: pi as u16,
                    tid: ti as u16,
                },
                home: 0,
                // A forked child's threads wait for the fork (wake_up_new_task).
                state: if forked { TaskState::Sleeping(None) } else { TaskState::Runnable },
                cpus_allowed: allowed,
                cpu: t.cpu,
                move_to: None,
                swap_with: None,
                ops: ops.len() as u16,
                op_seq: 0,
                numa: Default::default(),
                se: Default::default(),
            });
            ops.push(t.ops.clone());
        }
    }
    Processes {
        mms,
        roots,
        page_cache,
        tasks,
        ops,
    }
}

/// Kernel threads (per node kswapd and kcompactd, khugepaged, the flusher, per CPU the
/// vmstat worker) and one idle task per CPU, appended to `tasks`; thread ids given out.
/// Returns the index of the first idle task.
fn kernel_threads_and_idle(topo: &Topology, tasks: &mut Vec<Task>) -> usize {
    let nr_cpus = topo.nr_cpus();
    // Kernel threads exist from boot and sleep until something wakes them.
    let all = CpuMask::first(nr_cpus);
    let kthread = |kind: KthreadKind, home: u16, allowed: CpuMask, cpu: CpuId| Task {
        pid: 0,
        kind: TaskKind::Kernel(kind),
        home,
        state: TaskState::Sleeping(None),
        cpus_allowed: allowed,
        cpu,
        move_to: None,
        swap_with: None,
        ops: 0,
        op_seq: 0,
        numa: Default::default(),
        se: Default::default(),
    };
    let mut kthreads = Vec::new();
    for n in &topo.nodes {
        let mut mask = CpuMask::EMPTY;
        for &c in &n.cpus {
            mask.set(c);
        }
        let first = n.cpus.first().copied().unwrap_or(0);
        kthreads.push(kthread(KthreadKind::Kswapd, u16::from(n.id), mask, first));
        kthreads.push(kthread(KthreadKind::Kcompactd, u16::from(n.id), mask, first));
    }
    kthreads.push(kthread(KthreadKind::Khugepaged, 0, all, 0));
    kthreads.push(kthread(KthreadKind::Flusher, 0, all, 0));
    for c in 0..nr_cpus {
        let mut one = CpuMask::EMPTY;
        one.set(c as CpuId);
        kthreads.push(kthread(KthreadKind::Vmstat, c as u16, one, c as CpuId));
    }
    tasks.extend(kthreads);
    let first_idle = tasks.len();
    for c in 0..nr_cpus {
        let mut one = CpuMask::EMPTY;
        one.set(c as CpuId);
        tasks.push(Task {
            pid: 0,
            kind: TaskKind::Idle,
            home: c as u16,
            state: TaskState::Running,
            cpus_allowed: one,
            cpu: c as CpuId,
            move_to: None,
            swap_with: None,
            ops: 0,
            op_seq: 0,
            numa: Default::default(),
            se: Default::default(),
        });
    }
    // Thread ids: user threads from 1000 up, kernel threads below; idle tasks are pid 0.
    let mut next_pid = 2;
    for t in tasks.iter_mut() {
        match t.kind {
            TaskKind::Kernel(_) => {
                t.pid = next_pid;
                next_pid += 1;
            }
            TaskKind::User { .. } | TaskKind::Idle => {}
        }
    }
    for (upid, t) in (1000..).zip(tasks.iter_mut().filter(|t| t.mm().is_some())) {
        t.pid = upid;
    }
    first_idle
}

/// The CPUs at time 0, each running its idle task.
fn boot_cpus(topo: &Topology, first_idle: usize) -> Vec<Cpu> {
    let nr_cpus = topo.nr_cpus();
    (0..nr_cpus)
        .map(|c| Cpu {
            id: c as CpuId,
            node: topo.cpu_node[c],
            clock: 0,
            curr: (first_idle + c) as u16,
            idle: (first_idle + c) as u16,
            rq: VecDeque::with_capacity(8),
            slice_end: u64::MAX,
            min_vruntime: 0,
            need_resched: false,
            skip: None,
            timers: Vec::with_capacity(4),
            loaded_mm: None,
            lazy: false,
            seen_gen: 0,
            tlb: Tlb::new(topo.tlb_entries),
            wait: Wait::None,
            inbox: VecDeque::with_capacity(nr_cpus),
            acks_pending: 0,
            acks_last: 0,
            extra: 0,
            sd: {
                // sd_init: balance_interval = the domain's CPUs (ms); the first
                // periodic balance one busy interval (× busy_factor 16) into the run.
                let ms = topo
                    .nodes
                    .iter()
                    .find(|n| n.id == topo.cpu_node[c])
                    .map_or(1, |n| n.cpus.len().max(1) as u32);
                crate::machine::cpu::SdState {
                    next_balance: u64::from(ms * crate::kernel::sched::core::BUSY_FACTOR) * 1_000_000,
                    balance_interval_ms: ms,
                    nr_balance_failed: 0,
                }
            },
            // sd_init of the NUMA level: balance_interval = every CPU of the machine
            // (ms); an idle CPU balances at that interval, without busy_factor.
            sd_numa: crate::machine::cpu::SdState {
                next_balance: nr_cpus as u64 * 1_000_000,
                balance_interval_ms: nr_cpus as u32,
                nr_balance_failed: 0,
            },
        })
        .collect()
}

/// Places the scenario's user threads on their CPUs at time 0 (or as timers, for a
/// sequential launch) and lets each CPU run the first one placed on it.
fn place_first_threads(scenario: &Scenario, topo: &Topology, cpus: &mut [Cpu], tasks: &mut [Task], mms: &mut [Mm]) {
    // At time 0 each CPU already runs the first user thread placed on it. A thread
    // that may run on several CPUs is placed as a fork places it (select_task_rq_fork),
    // in file order: a process's first thread as forked by a launcher on CPU 0 (a shell,
    // mpirun), its other threads as created by that first thread from its CPU.
    //
    // With `sequential_launch`, the launcher forks the processes one after another and
    // each process's first thread creates its others one after another (`fork_ns`
    // apart), so each thread exists from then on: it waits as a timer on the
    // launcher's CPU (`kernel/time/hrtimer.rs` creates it).
    let sequential = scenario.knobs.on(crate::mech::core::SEQUENTIAL_LAUNCH);
    let fork_ns = scenario.costs[crate::mech::fork::FORK_NS];
    let mut first_cpu: Vec<Option<CpuId>> = vec![None; mms.len()];
    let mut first_task: Vec<Option<u16>> = vec![None; mms.len()];
    let mut forked = 0u64;
    for (i, t) in tasks.iter_mut().enumerate() {
        let (TaskKind::User { mm, tid }, TaskState::Runnable) = (t.kind, t.state) else {
            continue;
        };
        // A launcher bound to other CPUs (numactl --cpunodebind) moves itself to the
        // first of them (sched_setaffinity) before it forks.
        let launcher = if t.cpus_allowed.test(0) {
            0
        } else {
            t.cpus_allowed.iter().next().unwrap_or(0)
        };
        if sequential {
            let creator = match first_task[mm as usize] {
                None => {
                    forked += 1;
                    first_task[mm as usize] = Some(i as u16);
                    crate::machine::Launch::Launcher(launcher)
                }
                Some(first) => crate::machine::Launch::Thread(first),
            };
            let at = (forked + u64::from(tid)) * fork_ns;
            t.state = TaskState::Sleeping(Some(at));
            t.se.launch = Some(creator);
            t.cpu = launcher;
            let timers = &mut cpus[launcher as usize].timers;
            let pos = timers.partition_point(|&(x, _)| x <= at);
            timers.insert(pos, (at, i as u16));
            continue;
        }
        let parent = first_cpu[mm as usize].unwrap_or(launcher);
        t.cpu = crate::kernel::sched::core::select_task_rq_fork(cpus, &topo.distance, t.cpus_allowed, parent);
        first_cpu[mm as usize].get_or_insert(t.cpu);
        cpus[t.cpu as usize].rq.push_back(i as u16);
    }
    // Each CPU runs the first thread placed on it; the others queue behind it.
    for c in cpus.iter_mut() {
        let Some(first) = c.rq.pop_front() else { continue };
        let t = &mut tasks[first as usize];
        if let TaskKind::User { mm, .. } = t.kind {
            c.curr = first;
            c.loaded_mm = Some(mm);
            t.state = TaskState::Running;
            mms[mm as usize].cpumask.set(c.id);
        }
    }
}
