//! The core mechanism: user mode and its workload operations, page faults, the
//! scheduler, locks, the reverse map and x86 TLB shootdowns. Every other mechanism
//! builds on it.

use crate::engine::Sim;
use crate::knobs::KnobKind;
use crate::listings as l;
use crate::patches::{ListingPair, Patch, ToggleKind};
use crate::registry::{FunctionListings, Mechanism, MetricDef};

crate::frames! { Core;
    /// A user thread in user mode (the base of its stack).
    User(crate::kernel::entry::UserMode) => "user code",
    /// `handle_pte_fault`.
    HandleMmFault(crate::mm::memory::HandleMmFault) => "handle_pte_fault",
    /// `do_anonymous_page`.
    DoAnonymousPage(crate::mm::memory::DoAnonymousPage) => "do_anonymous_page",
    /// `try_to_unmap`.
    TryToUnmap(crate::mm::rmap::TryToUnmap) => "try_to_unmap",
    /// `try_to_unmap_one`.
    TryToUnmapOne(crate::mm::rmap::TryToUnmapOne) => "try_to_unmap_one",
    /// `ptep_clear_flush`.
    PtepClearFlush(crate::mm::pgtable_generic::PtepClearFlush) => "ptep_clear_flush",
    /// `flush_tlb_mm_range`.
    FlushTlbMmRange(crate::arch::x86::mm::tlb::FlushTlbMmRange) => "flush_tlb_mm_range",
    /// `flush_tlb_func_remote` (the IPI handler).
    FlushTlbFunc(crate::arch::x86::mm::tlb::FlushTlbFunc) => "flush_tlb_func_remote",
    /// A kernel thread's main loop (the base of its stack).
    Kthread(crate::kernel::kthread::Kthread) => "kthread",
}

crate::toggles! { Core;
    /// `tlb_flush_multi` (v5.13, 4ce94eabac16): the sender flushes locally while its IPIs
    /// fly, and only remote CPUs count the shootdown interrupt.
    TLB_FLUSH_MULTI = Patch {
        id: "tlb_flush_multi",
        kind: ToggleKind::Bool,
        title: "x86/mm/tlb: Flush remote and local TLBs concurrently",
        author: "Nadav Amit (with Peter Zijlstra, Andy Lutomirski)",
        date: "2021-02-20",
        commit: "4ce94eabac16",
        version: "v5.13",
        link: "https://git.kernel.org/torvalds/c/4ce94eabac16",
        explanation: "Up to v5.12 flush_tlb_mm_range flushed the local TLB first and then called \
            flush_tlb_others, whose on_each_cpu_cond_mask IPIs every other non-lazy CPU in \
            mm_cpumask and also runs flush_tlb_func_remote on the sending CPU: so each remote flush \
            adds one to the sender's irq_tlb_count (the 'TLB shootdowns' row of /proc/interrupts) and \
            nr_tlb_remote_flush_received although its TLB is already current. The series unified the \
            local and remote flush functions: flush_tlb_multi sends the IPIs first and flushes locally \
            while they are handled, and only remote CPUs count the interrupt. A flush that reaches a \
            lazy CPU, before and after, makes it switch to init_mm. Counting matters when reading \
            published shootdown figures: a v5.12 run's irq_tlb_count per flush is one more than the \
            number of IPIs.",
        functions: &["flush_tlb_mm_range", "flush_tlb_func_remote"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v5.12: local flush, then IPIs (the sender counts too)", "v5.13: IPIs, local flush meanwhile"],
        listings: &[
            ListingPair {
                before: l::FLUSH_TLB_MM_RANGE_V5_12,
                after: l::FLUSH_TLB_MM_RANGE_V5_13,
            },
            ListingPair {
                before: l::FLUSH_TLB_FUNC_REMOTE_V5_12,
                after: l::FLUSH_TLB_FUNC_REMOTE_V5_13,
            },
        ],
        history: &[],
    },
    /// `tlb_lazy`: what a CPU in lazy TLB mode is to a shootdown, by era (v4.14 with PCID:
    /// not in the mask at all; v4.20, 145f573b89a6: skipped unless page tables are freed).
    TLB_LAZY = Patch {
        id: "tlb_lazy",
        kind: ToggleKind::Enum,
        title: "x86 lazy TLB mode and shootdowns: every CPU of the mask (v4.13), init_mm at once with PCID (v4.14), lazy CPUs skipped (v4.20, Make lazy TLB mode lazier)",
        author: "Andy Lutomirski (v4.14 PCID rework); Rik van Riel (v4.20, reviewed by Andy Lutomirski, Dave Hansen, Peter Zijlstra)",
        date: "2017-10-14 / 2018-09-25",
        commit: "v4.14 lazy-TLB rework (tlb_defer_switch_to_init_mm) / 145f573b89a6 with 016c4d92cd16 and 97807813fe70 (freed_tables)",
        version: "v4.14 / v4.20",
        link: "https://git.kernel.org/torvalds/c/145f573b89a6",
        explanation: "A CPU that switches from a thread to a kernel thread or to idle may keep the old mm loaded \
            (lazy TLB mode) and stay in its mm_cpumask. Up to v4.13 it did (TLBSTATE_LAZY), and \
            native_flush_tlb_others sent every flush to every other CPU of the mask with \
            smp_call_function_many: a lazy CPU took the interrupt only to leave the mm (leave_mm). From v4.14 \
            a CPU with PCID switched to init_mm as soon as it went lazy (tlb_defer_switch_to_init_mm is \
            !PCID), leaving the mask, so it took no shootdown but paid a CR3 switch back; without PCID it \
            stayed lazy and took them as before. Rik van Riel's series, first merged for v4.19-rc1 and taken \
            back out before v4.19 by Peter Zijlstra's revert (August 2018), landed in v4.20: every CPU stays \
            lazy in the mask, and on_each_cpu_cond_mask(tlb_is_not_lazy, ...) skips it; it catches up on its \
            next switch back by comparing tlb_gen, except when page tables are freed (freed_tables): a lazy \
            CPU could still walk the freed tables speculatively, so those flushes reach it. \
            on_each_cpu_cond_mask also runs the flush function on the sending CPU, so from v4.20 to v5.12 \
            the sender counts an irq_tlb_count per remote flush; smp_call_function_many never ran it there.",
        functions: &["native_flush_tlb_others"],
        history: &[("", "ipi"), ("v4.14", "init_mm_with_pcid"), ("v4.20", "skip")],
        enum_values: &["ipi", "init_mm_with_pcid", "skip"],
        default_index: 2,
        value_labels: &[
            "up to v4.13: lazy CPUs stay in mm_cpumask and take every flush",
            "v4.14-v4.19: with PCID a CPU going lazy switches to init_mm at once; else as before",
            "v4.20+: lazy CPUs stay in mm_cpumask, skipped unless page tables are freed",
        ],
        listings: &[ListingPair {
            before: l::NATIVE_FLUSH_TLB_OTHERS_V4_19,
            after: l::NATIVE_FLUSH_TLB_OTHERS_V4_20,
        }],
    },
}

crate::counters! { Core;
    /// `nr_tlb_remote_flush`: flush operations that sent IPIs (sender side, once per op).
    kernel NR_TLB_REMOTE_FLUSH => "nr_tlb_remote_flush",
    /// `nr_tlb_remote_flush_received`: IPIs handled by a CPU that had the mm loaded.
    kernel NR_TLB_REMOTE_FLUSH_RECEIVED => "nr_tlb_remote_flush_received",
    /// `nr_tlb_local_flush_one`: pages flushed one by one (INVLPG) on the sender.
    kernel NR_TLB_LOCAL_FLUSH_ONE => "nr_tlb_local_flush_one",
    /// `nr_tlb_local_flush_all`: full local flushes (CR3 reload) on the sender.
    kernel NR_TLB_LOCAL_FLUSH_ALL => "nr_tlb_local_flush_all",
    /// `/proc/stat` `ctxt` (`nr_context_switches`): switches from one task to another.
    kernel CTXT => "ctxt",
    /// `/proc/interrupts` "TLB shootdowns" (`irq_tlb_count`): every IPI received.
    kernel IRQ_TLB_COUNT => "irq_tlb_count",
    /// Model only: user memory accesses completed.
    model ACCESSES => "accesses",
    /// Model only: accesses that missed the TLB and walked the page table.
    model TLB_MISSES => "tlb_misses",
    /// Model only: first-touch faults served by `do_anonymous_page`.
    model ANON_FAULTS => "anon_faults",
    /// Model only: mappings `try_to_unmap_one` replaced, across every mm the rmap walk visited.
    model RMAP_UNMAPS => "rmap_unmaps",
    /// Model only: CPUs in `mm_cpumask` a shootdown skipped because they were in lazy TLB mode.
    model LAZY_TLB_SKIPS => "lazy_tlb_skips",
    /// Model only: shootdown IPIs a CPU in lazy TLB mode received (it switches to
    /// `init_mm`): every flush of its mm up to v4.19, only page-table frees from v4.20.
    model LAZY_TLB_IPIS => "lazy_tlb_ipis",
    /// Model only: tasks load balancing moved to another CPU (the sum of the tasks'
    /// `se.nr_migrations` in `/proc/PID/sched`, placement at fork excluded).
    model NR_MIGRATIONS => "nr_migrations",
    /// Model only: workload operations completed (each access of `access`, `touch` and
    /// `random`, each system-call operation such as `mremap` or `fork`); `throughput`
    /// divides it by the simulated time.
    model WORKLOAD_OPS => "workload_ops",
    /// Model only: simulated time when the last workload operation completed, ns (the end
    /// of the benchmark: kernel threads' work after it, such as vmstat's decay of PCP high,
    /// is not the benchmark's time).
    model WORKLOAD_END_NS => "workload_end_ns",
    /// Model only: threads stopped because no node had a free page for their fault (the
    /// model has no reclaim and no OOM killer; the kernel would reclaim, or kill a process
    /// and count `oom_kill`). A run with any is smaller than its scenario meant: the
    /// machine's memory does not hold the working sets.
    model OOM_STOPS => "oom_stops",
    /// Model only: loads and stores through a TLB entry whose frame was freed after the
    /// entry was cached (free now, or another page's): a use after free, a finding.
    model TLB_USE_AFTER_FREE => "tlb_use_after_free",
    /// Model only: stores through a TLB entry to a frame the page table has since replaced
    /// (the PTE maps another frame): the data never reaches the page, a lost write.
    model TLB_OLD_FRAME_STORES => "tlb_old_frame_stores",
    /// Model only: loads through a TLB entry to a frame the page table has since replaced,
    /// which hold other data than the page's frame now: a stale read.
    model TLB_STALE_READS => "tlb_stale_reads",
    /// Model only: stores through a TLB entry into a page under migration (isolated and
    /// unmapped by `try_to_unmap`): the copy may miss them, a finding.
    model MIGRATION_STALE_STORES => "migration_stale_stores",
    /// Model only: TLB entries still cached after a flush that covered them returned
    /// (counted then on a CPU running the mm, or at their first use on a lazy CPU): the
    /// flush's promise broken, a finding.
    model TLB_FLUSH_OUTLIVED => "tlb_flush_outlived",
}

crate::costs! { Core;
    /// DRAM access on the local node.
    DRAM_LOCAL_NS => "dram_local_ns" = 90,
    /// DRAM access one hop away (distance 21); scaled linearly with distance.
    DRAM_REMOTE_NS => "dram_remote_ns" = 150,
    /// TLB miss: hardware page walk.
    PAGE_WALK_NS => "page_walk_ns" = 30,
    /// Exception entry and exit of a page fault.
    FAULT_ENTRY_NS => "fault_entry_ns" = 600,
    /// Taking or releasing a PTE lock.
    PTL_NS => "ptl_ns" = 20,
    /// Writing one PTE.
    PTE_WRITE_NS => "pte_write_ns" = 10,
    /// Allocating the destination page.
    ALLOC_PAGE_NS => "alloc_page_ns" = 250,
    /// Zeroing one 4 KiB page the kernel hands to a process (`clear_page`, in every
    /// first-touch fault; 512 of them in `clear_huge_page`): 4 KiB at 13.7 GB/s, the rate
    /// for 4 KiB chunks measured on AMD Milan in the x86 "introduce clear_pages()" commit
    /// (cb431accb36e).
    CLEAR_PAGE_NS => "clear_page_ns" = 300,
    /// INVLPG of one page.
    INVLPG_NS => "invlpg_ns" = 100,
    /// Full local flush (CR3 reload).
    FULL_FLUSH_NS => "full_flush_ns" = 200,
    /// Sender-side cost of issuing IPIs.
    IPI_SEND_NS => "ipi_send_ns" = 1200,
    /// Delivery latency of an IPI.
    IPI_LATENCY_NS => "ipi_latency_ns" = 800,
    /// Receiver-side cost of one flush IPI.
    IPI_HANDLER_NS => "ipi_handler_ns" = 1000,
    /// Context switch / mm switch.
    SWITCH_NS => "switch_ns" = 500,
    /// `trylock_page` on the page to migrate.
    TRYLOCK_PAGE_NS => "trylock_page_ns" = 20,
    /// Computing a PTE value without writing it (`pte_modify` in a register).
    PTE_COMPUTE_NS => "pte_compute_ns" = 5,
    /// One load-balancing pull of a queued task to another CPU (`load_balance`).
    LOAD_BALANCE_NS => "load_balance_ns" = 1000,
    /// One VMA an rmap walk visits, apart from the PTE lock and write: the anon_vma or
    /// i_mmap lock, the interval tree, `page_vma_mapped_walk` down to the PTE
    /// (`try_to_unmap`, `remove_migration_ptes`, `page_mkclean`). The one calibrated cost:
    /// it is `try_to_unmap`'s own work beside the flush, and 250 ns gives numa-pmbench the
    /// published fall of `try_to_unmap`'s share with numa_delay_map (6.02 % -> 0.47 %, about
    /// 13-fold; BENCHMARKS.md, session 15, at the published size). Frozen since.
    RMAP_WALK_NS => "rmap_walk_ns" = 250,
}

crate::knobs! { Core;
    /// The CPUs have PCID (process-context identifiers; every x86-64 server CPU since
    /// Westmere, 2010). It matters in v4.14-v4.19 only (`tlb_lazy`): a CPU going lazy then
    /// switches to init_mm at once (`tlb_defer_switch_to_init_mm` is !PCID).
    PCID => "pcid", KnobKind::Bool, Some(1),
    /// x86 `tlb_single_page_flush_ceiling` (default 33): flushes of more pages become full
    /// flushes.
    TLB_SINGLE_PAGE_FLUSH_CEILING => "tlb_single_page_flush_ceiling", KnobKind::Int { min: 0, max: 1 << 20, scale: 1 }, Some(33),
    /// Safety net: the run stops with an error after this many steps (default 5,000,000).
    MAX_STEPS => "max_steps", KnobKind::Int { min: 1, max: crate::limits::MAX_STEPS as i64, scale: 1 }, Some(5_000_000),
    /// A fixed time slice in µs in place of CFS's `sched_slice`, for teaching scenarios whose
    /// steps are microseconds apart: the running thread gives the CPU up at its next return
    /// to user space after the slice, counted from when it was picked, not at the next
    /// scheduler tick. Unset (the default): CFS, `sched_latency_us` shared by the runnable
    /// tasks and checked at every tick (`check_preempt_tick`, kernel/sched/fair.c v5.10).
    // Kept in ns (scale 1000).
    SCHED_SLICE_NS => "sched_slice_us", KnobKind::Int { min: 1, max: 10_000_000, scale: 1_000 }, None,
    /// CFS's `sched_latency` in µs (sysctl `kernel.sched_latency_ns`, v5.12): the period the
    /// runnable tasks of a CPU share. Unset: 6000 × (1 + ilog2(min(CPUs, 8))), as
    /// `sched_init_granularity` scales it (`SCHED_TUNABLESCALING_LOG`): 24 ms from 8 CPUs.
    // Kept in ns (scale 1000).
    SCHED_LATENCY_NS => "sched_latency_us", KnobKind::Int { min: 1, max: 10_000_000, scale: 1_000 }, None,
    /// CFS's `sched_min_granularity` in µs: the shortest slice, and past `sched_latency /
    /// sched_min_granularity` runnable tasks the period grows by this much per task. Unset:
    /// 750 × (1 + ilog2(min(CPUs, 8))).
    // Kept in ns (scale 1000).
    SCHED_MIN_GRANULARITY_NS => "sched_min_granularity_us", KnobKind::Int { min: 1, max: 10_000_000, scale: 1_000 }, None,
    /// CFS's `sched_wakeup_granularity` in µs: a woken task preempts the running one when
    /// its vruntime is more than this behind (`wakeup_preempt_entity`). Unset: 1000 × (1 +
    /// ilog2(min(CPUs, 8))).
    // Kept in ns (scale 1000).
    SCHED_WAKEUP_GRANULARITY_NS => "sched_wakeup_granularity_us", KnobKind::Int { min: 1, max: 10_000_000, scale: 1_000 }, None,
    /// Start the scenario's processes one after another, as a shell loop (`cmd &`) starts
    /// them: the launcher forks the processes in file order, one `fork_ns` (copy_process)
    /// apart, and each process's first thread creates its other threads one after another
    /// (`pthread_create` → clone), `fork_ns` apart; each thread is placed as a new task
    /// when it is created (`wake_up_new_task`: fork balancing, `place_entity`'s
    /// `START_DEBIT`). The creators' own CPU time is not charged. Off (the default): every
    /// thread exists at time 0, the CPUs' first threads already running.
    SEQUENTIAL_LAUNCH => "sequential_launch", KnobKind::Bool, Some(0),
    /// A fixed simulated window in ms, the same for every run compared: the run stops when
    /// simulated time reaches it (threads still working are simply cut off), and
    /// `throughput` counts the work done inside it, as a benchmark that runs for a fixed
    /// time measures. Unset: the run ends when every thread has finished.
    // Kept in ns (scale 1,000,000).
    WINDOW_NS => "window_ms", KnobKind::Int { min: 1, max: 1_000_000, scale: 1_000_000 }, None,
}

/// `n` workload operations completed on `cpu` now: counted in `workload_ops`, and
/// `workload_end_ns` moves to this time.
pub(crate) fn ops_done(sim: &mut Sim, cpu: crate::topology::CpuId, n: u64) {
    sim.st.counters.add(WORKLOAD_OPS, n);
    let now = sim.clock(cpu);
    let end = sim.st.counters.get(WORKLOAD_END_NS);
    if now > end {
        sim.st.counters.add(WORKLOAD_END_NS, now - end);
    }
}

/// The benchmark's time in ns: the window when one is set, else up to the last workload
/// operation (`workload_end_ns`), else the run's time.
pub fn workload_time_ns(sim: &Sim) -> u64 {
    let end = sim.st.counters.get(WORKLOAD_END_NS);
    if sim.cfg.knobs.get(WINDOW_NS).is_none() && end > 0 {
        end
    } else {
        run_time_ns(sim)
    }
}

/// Simulated time of a run in ns: the window when one is set and the run reached it,
/// else the latest CPU clock.
pub fn run_time_ns(sim: &Sim) -> u64 {
    match sim.cfg.knobs.get(WINDOW_NS) {
        Some(w) if sim.window_closed() => w,
        _ => sim.now(),
    }
}

/// The core's metrics.
const METRICS: &[MetricDef] = &[
    MetricDef {
        name: "sys_time_ns",
        doc: "CPU time user threads spent in the kernel (system time, as `time` reports it): \
              kernel code, spinning on locks, waiting for flush acknowledgements, IPI handlers \
              that interrupted them; not the wait for a page under migration, which the kernel \
              sleeps through (iowait_time_ns). Needs a profiled run (`mmviz run`, `[[expect]]`).",
        value: |sim| sim.profiling.then_some(sim.st.prof.sys_ns as f64),
    },
    MetricDef {
        name: "user_time_ns",
        doc: "CPU time user threads spent in user code.",
        value: |sim| sim.profiling.then_some(sim.st.prof.user_ns as f64),
    },
    MetricDef {
        name: "iowait_time_ns",
        doc: "Time user threads slept waiting for a page under migration (migration_entry_wait \
              sleeps in io_schedule): not CPU time (their CPUs run other tasks or idle meanwhile, \
              which /proc/stat counts as iowait), and neither user nor system time.",
        value: |sim| sim.profiling.then_some(sim.st.prof.iowait_ns as f64),
    },
    MetricDef {
        name: "kthread_time_ns",
        doc: "CPU time of kernel threads (the flusher, vmstat workers, ...).",
        value: |sim| sim.profiling.then_some(sim.st.prof.kthread_ns as f64),
    },
    MetricDef {
        name: "sim_time_ns",
        doc: "Simulated time of the run (the window when `window_ms` is set), ns.",
        value: |sim| Some(run_time_ns(sim) as f64),
    },
    MetricDef {
        name: "accesses_per_ms",
        doc: "User memory accesses completed per simulated ms.",
        value: |sim| {
            let t = run_time_ns(sim);
            Some(if t == 0 {
                0.0
            } else {
                sim.st.counters.get(ACCESSES) as f64 / (t as f64 / 1e6)
            })
        },
    },
    MetricDef {
        name: "throughput",
        doc: "Workload operations completed per simulated second (`workload_ops` over the run \
              time up to the last operation, `workload_end_ns`: kernel threads' work after the \
              benchmark ends is not its time; with `window_ms`, over that fixed window, so runs \
              compare like a benchmark's fixed-duration score).",
        value: |sim| {
            let t = workload_time_ns(sim);
            (t > 0).then(|| sim.st.counters.get(WORKLOAD_OPS) as f64 / (t as f64 / 1e9))
        },
    },
];

/// Event kinds.
pub mod ev {
    crate::events! { Core;
        /// A thread starts its next workload operation.
        OP_START => "op_start", Other,
        /// A user access hit the TLB.
        ACCESS => "access", Other,
        /// A user access missed the TLB.
        TLB_MISS => "tlb_miss", Fault,
        /// The MMU walked the page table.
        PAGE_WALK => "page_walk", Fault,
        /// A page fault entered the kernel.
        FAULT_ENTRY => "fault_entry", Fault,
        /// First-touch allocation.
        ANON_FAULT => "anon_fault", Fault,
        /// A file page already in the page cache is mapped.
        FILE_FAULT => "file_fault", Fault,
        /// A PTE lock was taken.
        PTL_LOCK => "ptl_lock", Lock,
        /// A PTE lock was released.
        PTL_UNLOCK => "ptl_unlock", Lock,
        /// A CPU found a lock held and waits.
        LOCK_WAIT => "lock_wait", Lock,
        /// Page lock taken.
        PAGE_LOCK => "page_lock", Lock,
        /// A PTE was written.
        PTE_UPDATE => "pte_update", Other,
        /// A page was allocated.
        ALLOC_PAGE => "alloc_page", Alloc,
        /// A PTE was cleared for unmapping, with the flush decision.
        PTE_CLEAR => "pte_clear", Flush,
        /// The initiating CPU flushed its own TLB.
        FLUSH_LOCAL => "flush_local", Flush,
        /// Shootdown IPIs were sent.
        IPI_SEND => "ipi_send", Ipi,
        /// A CPU handled a shootdown IPI.
        IPI_RECV => "ipi_recv", Ipi,
        /// The initiator saw every acknowledgement.
        IPI_ACKED => "ipi_acked", Ipi,
        /// A thread went to sleep (lazy TLB).
        SLEEP => "sleep", Sched,
        /// A thread woke up.
        WAKE => "wake", Sched,
        /// A thread finished its operations.
        EXIT => "exit", Sched,
        /// The scheduler switches tasks on a CPU.
        SWITCH => "context_switch", Sched,
        /// Load balancing moves a queued task to another CPU.
        TASK_MIGRATE => "task_migrate", Sched,
        /// Periodic load balancing that moves nothing (balanced, or not yet: nr_balance_failed).
        LOAD_BALANCE => "load_balance", Sched,
        /// A line that calls another modelled function.
        CALL => "call", Other,
        /// A function returns to its caller.
        RETURN => "return", Other,
        /// `task_work` runs on the way back to user space.
        TASK_WORK => "task_work", Other,
        /// A user thread finishes computing.
        COMPUTE_DONE => "compute_done", Other,
    }
}

/// The core's declaration.
pub const MECHANISM: Mechanism = Mechanism {
    id: "core",
    title: "User mode, page faults, the scheduler, locks, rmap and x86 TLB shootdowns",
    toggles: TOGGLES,
    counters: COUNTERS,
    costs: COSTS,
    knobs: KNOBS,
    events: ev::EVENTS,
    ops: crate::kernel::entry::OPS,
    listings: &[
        FunctionListings::single(&[l::USER_CODE]),
        FunctionListings::single(&[l::KTHREAD]),
        FunctionListings::single(&[l::MMU_WALK]),
        FunctionListings::single(&[l::EXIT_TO_USER_MODE]),
        FunctionListings::single(&[l::DO_EXIT]),
        FunctionListings::single(&[l::SCHEDULE]),
        FunctionListings::single(&[l::SCHEDULER_TICK]),
        FunctionListings::single(&[l::HRTIMER_WAKEUP]),
        FunctionListings::single(&[l::SWITCH_MM_IRQS_OFF]),
        FunctionListings::single(&[l::LOAD_BALANCE]),
        FunctionListings {
            function: "flush_tlb_mm_range",
            variants: &[l::FLUSH_TLB_MM_RANGE_V5_12, l::FLUSH_TLB_MM_RANGE_V5_13],
            select: |t| usize::from(t.on(TLB_FLUSH_MULTI)),
        },
        FunctionListings {
            function: "native_flush_tlb_others",
            variants: &[
                l::NATIVE_FLUSH_TLB_OTHERS_V4_13,
                l::NATIVE_FLUSH_TLB_OTHERS_V4_19,
                l::NATIVE_FLUSH_TLB_OTHERS_V4_20,
            ],
            select: |t| t.index(TLB_LAZY),
        },
        FunctionListings {
            function: "flush_tlb_func_remote",
            variants: &[l::FLUSH_TLB_FUNC_REMOTE_V5_12, l::FLUSH_TLB_FUNC_REMOTE_V5_13],
            select: |t| usize::from(t.on(TLB_FLUSH_MULTI)),
        },
        FunctionListings::single(&[l::HANDLE_PTE_FAULT]),
        FunctionListings::single(&[l::DO_ANONYMOUS_PAGE]),
        FunctionListings::single(&[l::TRY_TO_UNMAP]),
        FunctionListings::single(&[l::TRY_TO_UNMAP_ONE]),
        FunctionListings::single(&[l::PTEP_CLEAR_FLUSH]),
    ],
    functions: FRAME_FUNCTIONS,
    metrics: METRICS,
    invariants: crate::invariants::CORE,
    // The lab's own panels (machine, page table, code, counters) draw the core.
    ..Mechanism::EMPTY
};
