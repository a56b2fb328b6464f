//! Our own pseudo-code of every kernel function the engine steps through, one listing
//! per (function, variant). Each follows the named kernel function at the named version,
//! simplified; the line ids are what events point to, and a test checks that every
//! (function, line) an event carries exists in the listing its run's toggles select.

use crate::patches::{CodeLine, Listing};

macro_rules! lines {
    ($( $id:literal => $text:literal ),* $(,)?) => {
        &[ $( CodeLine { id: $id, text: $text } ),* ]
    };
}

/// `do_numa_page` up to v5.12: the PTE is made present before migrating.
pub const DO_NUMA_PAGE_V5_12: Listing = Listing {
    function: "do_numa_page",
    follows: "Linux v5.12 mm/memory.c (before b99a342d4f11)",
    lines: lines![
        "O1" => "take the PTE lock; if the PTE is no longer orig_pte: unlock, return",
        "O2" => "pte = orig_pte made accessible again (present, young, writable if it was)",
        "O3" => "write pte to the page table  -- every CPU of this mm may now cache it",
        "O4" => "page = vm_normal_page(pte); if none or a THP: unlock, return",
        "O5" => "flags: NO_GROUP if !pte_write(pte), SHARED if mapped by several",
        "O6" => "page_nid = page_to_nid(page); last_cpupid = page_cpupid_last(page)",
        "O7" => "target_nid = numa_migrate_prep(page, vma, addr, page_nid, &flags)",
        "O8" => "release the PTE lock",
        "O9" => "if target_nid == NUMA_NO_NODE: put_page(page), goto out",
        "O10" => "migrated = migrate_misplaced_page(page, vma, target_nid)",
        "O11" => "if migrated: page_nid = target_nid, flags |= MIGRATED  else flags |= MIGRATE_FAIL",
        "O12" => "out: if page_nid is valid: task_numa_fault(last_cpupid, page_nid, 1, flags)",
        "O13" => "return 0",
    ],
};

/// `do_numa_page` from v5.13 (b99a342d4f11): the PTE stays PROT_NONE until migration is decided.
pub const DO_NUMA_PAGE_V5_13: Listing = Listing {
    function: "do_numa_page",
    follows: "Linux v5.13 mm/memory.c (b99a342d4f11)",
    lines: lines![
        "N1" => "take the PTE lock; if the PTE is no longer orig_pte: unlock, return",
        "N2" => "pte = pte_modify(orig_pte, vma->vm_page_prot)   -- computed only, PTE stays PROT_NONE",
        "N3" => "page = vm_normal_page(pte); if none or a THP: goto out_map",
        "N4" => "flags: NO_GROUP if !was_writable, SHARED if mapped by several",
        "N5" => "page_nid = page_to_nid(page); last_cpupid = page_cpupid_last(page)",
        "N6" => "target_nid = numa_migrate_prep(page, vma, addr, page_nid, &flags)",
        "N7" => "if target_nid == NUMA_NO_NODE: put_page(page), goto out_map",
        "N8" => "release the PTE lock",
        "N9" => "if migrate_misplaced_page(page, vma, target_nid): task_numa_fault(last_cpupid, target_nid, 1, flags|MIGRATED), return",
        "N10" => "flags |= MIGRATE_FAIL; retake the PTE lock; if the PTE changed: unlock, return",
        "N11" => "out_map: write orig_pte made accessible (present, young, writable if it was)",
        "N12" => "release the PTE lock",
        "N13" => "task_numa_fault(last_cpupid, page_nid, 1, flags)",
        "N14" => "return 0",
    ],
};

/// `change_pte_range` (prot_numa path) before 09a913a7.
pub const CHANGE_PTE_RANGE_V4_16: Listing = Listing {
    function: "change_pte_range",
    follows: "Linux v4.16 mm/mprotect.c (before 09a913a7)",
    lines: lines![
        "C1" => "lock the PTE table; flush_tlb_batched_pending(mm)",
        "C2" => "for each PTE in [addr, end):",
        "C3" => "  skip if not present, already PROT_NONE, no normal page, or shared COW",
        "C4" => "  skip a private page already on this node of a single-threaded mm",
        "C6" => "  ptent = ptep_modify_prot_start(); pte_modify(ptent, PAGE_NONE) keeping the write bit; commit",
        "C7" => "  pages++",
        "C8" => "unlock; return pages",
    ],
};

/// `change_pte_range` (prot_numa path) from v4.17 (09a913a7).
pub const CHANGE_PTE_RANGE_V4_17: Listing = Listing {
    function: "change_pte_range",
    follows: "Linux v4.17 mm/mprotect.c (09a913a7)",
    lines: lines![
        "C1" => "lock the PTE table; flush_tlb_batched_pending(mm)",
        "C2" => "for each PTE in [addr, end):",
        "C3" => "  skip if not present, already PROT_NONE, no normal page, or shared COW",
        "C4" => "  skip a private page already on this node of a single-threaded mm",
        "C5" => "  skip if the page is file-backed and dirty   -- migration may fail on it",
        "C6" => "  ptent = ptep_modify_prot_start(); pte_modify(ptent, PAGE_NONE) keeping the write bit; commit",
        "C7" => "  pages++",
        "C8" => "unlock; return pages",
    ],
};

/// `migrate_misplaced_page` before 09a913a7 (its v4.16-v4.18 rate-limit call is the
/// `numamigrate_update_ratelimit` listing).
pub const MIGRATE_MISPLACED_PAGE_V4_16: Listing = Listing {
    function: "migrate_misplaced_page",
    follows: "Linux v4.16 mm/migrate.c (before 09a913a7)",
    lines: lines![
        "M1" => "if the page is a shared executable file page: goto out",
        "M3" => "isolated = numamigrate_isolate_page(pgdat, page)   -- watermark + isolate_lru_page",
        "M4" => "if !isolated: goto out",
        "M5" => "nr_remaining = migrate_pages(list, alloc_misplaced_dst_page, node, MIGRATE_ASYNC)",
        "M6" => "if nr_remaining: putback, isolated = 0  else count NUMA_PAGE_MIGRATE",
        "M7" => "return isolated",
        "M8" => "out: put_page(page); return 0",
    ],
};

/// `migrate_misplaced_page` from v4.17 (09a913a7), unchanged in v5.12/v5.13 (up to
/// v4.18 it first calls `numamigrate_update_ratelimit`, listed apart).
pub const MIGRATE_MISPLACED_PAGE_V4_17: Listing = Listing {
    function: "migrate_misplaced_page",
    follows: "Linux v4.17-v5.13 mm/migrate.c",
    lines: lines![
        "M1" => "if the page is a shared executable file page: goto out",
        "M2" => "if the page is file-backed and dirty: goto out   -- async migration may not move it",
        "M3" => "isolated = numamigrate_isolate_page(pgdat, page)   -- watermark + isolate_lru_page",
        "M4" => "if !isolated: goto out",
        "M5" => "nr_remaining = migrate_pages(list, alloc_misplaced_dst_page, node, MIGRATE_ASYNC)",
        "M6" => "if nr_remaining: putback, isolated = 0  else count NUMA_PAGE_MIGRATE",
        "M7" => "return isolated",
        "M8" => "out: put_page(page); return 0",
    ],
};

/// `numamigrate_update_ratelimit`, called first by `migrate_misplaced_page` up to v4.18.
pub const NUMAMIGRATE_UPDATE_RATELIMIT_V4_18: Listing = Listing {
    function: "numamigrate_update_ratelimit",
    follows: "Linux v4.17 mm/migrate.c (called at the top of migrate_misplaced_page, before isolation)",
    lines: lines![
        "RL1" => "if jiffies > pgdat->numabalancing_migrate_next_window: nr_pages = 0, next_window = jiffies + 100 ms",
        "RL2" => "if pgdat->numabalancing_migrate_nr_pages > ratelimit_pages (128 MB): return true   -- migrate_misplaced_page: goto out",
        "RL3" => "pgdat->numabalancing_migrate_nr_pages += nr_pages; return false",
    ],
};

/// The rate limit's absence from v4.19 (efaffc5e40ae).
pub const NUMAMIGRATE_UPDATE_RATELIMIT_V4_19: Listing = Listing {
    function: "numamigrate_update_ratelimit",
    follows: "Linux v4.19 mm/migrate.c (efaffc5e40ae removed the function)",
    lines: lines![
        "RL0" => "removed: migrate_misplaced_page goes straight to numamigrate_isolate_page",
    ],
};

/// Workload operations in user mode (loads, stores, computation).
pub const USER_CODE: Listing = Listing {
    function: "user code",
    follows: "the scenario's operations for this thread",
    lines: lines![
        "E3" => "a system-call operation (scan, fork, ...): call its kernel entry (task_numa_work, kernel_clone, ...)",
        "E4" => "compute operation: run user code for a while, touching no modelled memory",
        "E5" => "the computation is over: next operation",
        "E6" => "load or store: look the address up in this CPU's TLB; a miss makes the MMU walk",
        "E7" => "yield operation: sched_yield() -> schedule(); back on the run queue",
        "E8" => "loop operation: back to the first operation (a benchmark's main loop)",
        "E9" => "bulk random accesses: the ones whose PTE is usable as it is, up to the next tick or the next slow one, in one go; then the slow one through the TLB (E6)",
    ],
};

/// A kernel thread's main loop.
pub const KTHREAD: Listing = Listing {
    function: "kthread",
    follows: "Linux v5.12 kernel/kthread.c kthread() and the threads' own loops (kswapd(), worker_thread()), simplified",
    lines: lines![
        "KT1" => "work to do (its mechanism says what: balance_pgdat, wb_workfn, vmstat_update...): call it",
        "KT2" => "the work returned: look for more",
        "KT3" => "nothing to do: set_current_state(TASK_INTERRUPTIBLE); schedule()   -- until wake_up_process()",
    ],
};

/// What the MMU does on a TLB miss (hardware, not kernel code).
pub const MMU_WALK: Listing = Listing {
    function: "mmu_walk",
    follows: "x86-64 hardware page walk (Intel SDM vol. 3, 4.5), simplified to the PTE level",
    lines: lines![
        "MW1" => "PTE present and allowing the access: set Accessed (and Dirty on a store), cache it in the TLB",
        "MW2" => "otherwise (empty, PROT_NONE, a migration entry, read-only on a store): raise a page fault",
    ],
};

/// The way back to user space.
pub const EXIT_TO_USER_MODE: Listing = Listing {
    function: "exit_to_user_mode",
    follows: "Linux v5.12 kernel/entry/common.c exit_to_user_mode_loop",
    lines: lines![
        "E0" => "a move to another CPU is pending (migrate_task_to, or migrate_swap: both tasks at once, this CPU's stopper waiting for the partner's if that one runs kernel code): the migration stopper moves the task there",
        "E0b" => "(model) owed time of weighted hint faults passes, interrupts on   -- each modelled fault stood for numa_mem_scale real ones",
        "E1" => "TIF_NOTIFY_RESUME: task_work_run()   -- e.g. task_numa_work queued by task_tick_numa",
        "E2" => "TIF_NEED_RESCHED: schedule()   -- the slice is over and another task is runnable",
    ],
};

/// A thread's exit.
pub const DO_EXIT: Listing = Listing {
    function: "do_exit",
    follows: "Linux v5.12 kernel/exit.c",
    lines: lines![
        "X1" => "exit_mm(): mmput (the last user: exit_mmap unmaps every page, page_remove_rmap + put_page); the CPU keeps the mm loaded lazily; do_task_dead() -> __schedule()",
    ],
};

/// The scheduler's switch.
pub const SCHEDULE: Listing = Listing {
    function: "__schedule",
    follows: "Linux v5.12 kernel/sched/core.c",
    lines: lines![
        "K1" => "prev leaves the CPU: dequeued if it sleeps or exits, else back on the run queue",
        "K2" => "next = pick_next_task(rq)   -- the first runnable task, else newidle_balance() pulls one, else the idle task",
        "K3" => "context_switch: next has no mm (kernel thread, idle) -> enter_lazy_tlb; else switch_mm_irqs_off",
    ],
};

/// The tick that ends a slice.
pub const SCHEDULER_TICK: Listing = Listing {
    function: "scheduler_tick",
    follows: "Linux v5.12 kernel/sched/core.c (CFS task_tick_fair -> check_preempt_tick, simplified to a fixed slice)",
    lines: lines![
        "TK1" => "the running task's slice is over and another is runnable: resched_curr(); the interrupt returns to user mode -> schedule()",
    ],
};

/// The end of a sleep while another task runs.
pub const HRTIMER_WAKEUP: Listing = Listing {
    function: "hrtimer_wakeup",
    follows: "Linux v5.12 kernel/time/hrtimer.c",
    lines: lines![
        "T1" => "timer interrupt: the sleeper's time is up -> wake_up_process(): Runnable, on its CPU's run queue",
    ],
};

/// x86's mm switch, including lazy TLB.
pub const SWITCH_MM_IRQS_OFF: Listing = Listing {
    function: "switch_mm_irqs_off",
    follows: "Linux v5.12 arch/x86/mm/tlb.c",
    lines: lines![
        "W1" => "enter_lazy_tlb: a kernel thread or idle runs; keep the old mm loaded and stay in mm_cpumask (is_lazy = true)",
        "W2" => "back to the same mm: is_lazy = false; if tlb_gen moved while lazy, flush now (no IPI was needed)",
        "W3" => "another mm: leave prev's mm_cpumask, join next's, load CR3 (stale entries of next are dropped)",
    ],
};

/// The shootdown initiator, v5.12: local flush first, then the others.
pub const FLUSH_TLB_MM_RANGE_V5_12: Listing = Listing {
    function: "flush_tlb_mm_range",
    follows: "Linux v4.14-v5.12 arch/x86/mm/tlb.c flush_tlb_mm_range (v4.8: the same steps before the tlb_gen rework)",
    lines: lines![
        "F1" => "if (end - start) >> PAGE_SHIFT > tlb_single_page_flush_ceiling (33): flush everything",
        "F2" => "new_tlb_gen = inc_mm_tlb_gen(mm)",
        "F3" => "if this CPU has mm loaded: flush_tlb_func_local() -- by generation: nothing, INVLPG per page, or CR3 reload",
        "F4" => "if another CPU is in mm_cpumask(mm): flush_tlb_others(mm_cpumask(mm), info) -> native_flush_tlb_others",
        "F5" => "wait until every IPI'd CPU has run its flush",
    ],
};

/// `native_flush_tlb_others` up to v4.13: every other CPU of the mask, lazy ones too.
pub const NATIVE_FLUSH_TLB_OTHERS_V4_13: Listing = Listing {
    function: "native_flush_tlb_others",
    follows: "Linux v4.8 arch/x86/mm/tlb.c native_flush_tlb_others (flush_tlb_func: a TLBSTATE_LAZY CPU calls leave_mm)",
    lines: lines![
        "NF1" => "count NR_TLB_REMOTE_FLUSH; smp_call_function_many(mm_cpumask(mm), flush_tlb_func): IPI every other CPU of the mask, lazy ones too (they leave_mm); the calling CPU is skipped",
    ],
};

/// `native_flush_tlb_others` v4.14–v4.19: the same send; a CPU with PCID is never lazy in a mask.
pub const NATIVE_FLUSH_TLB_OTHERS_V4_19: Listing = Listing {
    function: "native_flush_tlb_others",
    follows: "Linux v4.18/v4.19 arch/x86/mm/tlb.c native_flush_tlb_others and enter_lazy_tlb (tlb_defer_switch_to_init_mm)",
    lines: lines![
        "NF1" => "count NR_TLB_REMOTE_FLUSH; smp_call_function_many(mm_cpumask(mm), flush_tlb_func_remote): IPI every other CPU of the mask, lazy ones too (they switch to init_mm); with PCID a CPU switched to init_mm when it went idle, so it is not in the mask; the calling CPU is skipped",
    ],
};

/// `native_flush_tlb_others` v4.20–v5.12: lazy CPUs skipped unless page tables are freed.
pub const NATIVE_FLUSH_TLB_OTHERS_V4_20: Listing = Listing {
    function: "native_flush_tlb_others",
    follows: "Linux v4.20 arch/x86/mm/tlb.c native_flush_tlb_others (145f573b89a6, 016c4d92cd16); v5.12 the same; kernel/smp.c on_each_cpu_cond_mask",
    lines: lines![
        "NF1" => "count NR_TLB_REMOTE_FLUSH; if info->freed_tables: smp_call_function_many(mm_cpumask) -- lazy CPUs too; else on_each_cpu_cond_mask(tlb_is_not_lazy, flush_tlb_func_remote): IPI each other non-lazy CPU, and run it here too",
    ],
};

/// The shootdown initiator, v5.13+: IPIs first, the local flush while they fly.
pub const FLUSH_TLB_MM_RANGE_V5_13: Listing = Listing {
    function: "flush_tlb_mm_range",
    follows: "Linux v5.13 arch/x86/mm/tlb.c flush_tlb_mm_range, native_flush_tlb_multi (4ce94eabac16)",
    lines: lines![
        "F1" => "if (end - start) >> PAGE_SHIFT > tlb_single_page_flush_ceiling (33): flush everything",
        "F2" => "new_tlb_gen = inc_mm_tlb_gen(mm)",
        "F3" => "if no other CPU is in mm_cpumask(mm): flush_tlb_func() here if mm is loaded, and return",
        "F4" => "flush_tlb_multi(): count NR_TLB_REMOTE_FLUSH; IPI each other non-lazy CPU of the mask (every one if page tables were freed), then flush locally while they run",
        "F5" => "wait until every IPI'd CPU has run its flush",
    ],
};

/// The shootdown handler, v5.12.
pub const FLUSH_TLB_FUNC_REMOTE_V5_12: Listing = Listing {
    function: "flush_tlb_func_remote",
    follows: "Linux v5.12 arch/x86/mm/tlb.c flush_tlb_func_remote, flush_tlb_func_common",
    lines: lines![
        "R1" => "inc_irq_stat(irq_tlb_count)   -- the \"TLB shootdowns\" row of /proc/interrupts",
        "R2" => "if this CPU's loaded_mm != mm: return",
        "R3" => "count NR_TLB_REMOTE_FLUSH_RECEIVED; lazy: switch to init_mm; tlb_gen current: nothing; one behind and ranged: INVLPG; else full flush; acknowledge",
    ],
};

/// The shootdown handler, v5.13+ (the unified `flush_tlb_func` on a remote CPU).
pub const FLUSH_TLB_FUNC_REMOTE_V5_13: Listing = Listing {
    function: "flush_tlb_func_remote",
    follows: "Linux v5.13 arch/x86/mm/tlb.c flush_tlb_func (not the initiating CPU)",
    lines: lines![
        "R1" => "inc_irq_stat(irq_tlb_count); count NR_TLB_REMOTE_FLUSH_RECEIVED",
        "R2" => "if this CPU's loaded_mm != mm: return",
        "R3" => "lazy: switch to init_mm; tlb_gen current: nothing; one behind and ranged: INVLPG; else full flush; acknowledge",
    ],
};

/// The fault dispatcher.
pub const HANDLE_PTE_FAULT: Listing = Listing {
    function: "handle_pte_fault",
    follows: "Linux v5.12 mm/memory.c (with __handle_mm_fault's huge PMD cases)",
    lines: lines![
        "H0" => "do_user_addr_fault: mmap_read_lock(mm)   -- sleeps while a writer (mremap, munmap, fork) holds it",
        "H8" => "__handle_mm_fault: if pmd_none(*pmd) && the VMA may take THP: ret = create_huge_pmd(vmf); unless VM_FAULT_FALLBACK: return ret",
        "H7" => "__handle_mm_fault: if pmd_trans_huge(orig_pmd) && pmd_protnone(orig_pmd): return do_huge_pmd_numa_page(vmf, orig_pmd)",
        "H1" => "orig_pte = *pte; if it is usable now (another CPU fixed it): spurious fault, return",
        "H2" => "if pte_none(orig_pte): return do_anonymous_page(vmf)",
        "H3" => "if !pte_present(orig_pte): return do_swap_page(vmf)   -- migration entry: wait for the page",
        "H4" => "if pte_protnone(orig_pte) && vma_is_accessible(vma): return do_numa_page(vmf)",
        "H6" => "lock; if a write fault and !pte_write(orig_pte): return do_wp_page(vmf)",
        "H5" => "return to user space; the access is retried",
    ],
};

/// First touch.
pub const DO_ANONYMOUS_PAGE: Listing = Listing {
    function: "do_anonymous_page",
    follows: "Linux v5.12 mm/memory.c (file VMAs: do_read_fault/filemap_fault, simplified to a page-cache lookup)",
    lines: lines![
        "A1" => "page = alloc_zeroed_user_highpage_movable()   -- local node first, then by distance",
        "A2" => "take the PTE lock; set_pte_at(present, writable, young, dirty if write); unlock",
        "A3" => "if the lock had to be waited for, or !pte_none(*pte) under it: another thread won, release and retry",
        "A4" => "file VMA: the page is in the page cache already (another mapping read it): map it, mapcount++",
        "A5" => "no VMA covers the address: SIGSEGV (bad_area in the arch fault handler)",
    ],
};

/// `numa_migrate_prep`.
pub const NUMA_MIGRATE_PREP: Listing = Listing {
    function: "numa_migrate_prep",
    follows: "Linux v5.12 mm/memory.c",
    lines: lines![
        "P1" => "get_page(page); count_vm_numa_event(NUMA_HINT_FAULTS)",
        "P2" => "if page_nid == numa_node_id(): count NUMA_HINT_FAULTS_LOCAL, flags |= TNF_FAULT_LOCAL",
        "P3" => "return mpol_misplaced(page, vma, addr)   -- MPOL_F_MORON: this CPU's node, if should_numa_migrate_memory()",
    ],
};

/// The two-stage filter before the early-lifetime shortcut (v4.18 and earlier).
pub const SHOULD_NUMA_MIGRATE_MEMORY_V4_18: Listing = Listing {
    function: "should_numa_migrate_memory",
    follows: "Linux v4.17 kernel/sched/fair.c (called from mpol_misplaced)",
    lines: lines![
        "S1" => "this_cpupid = cpu_pid_to_cpupid(dst_cpu, current->pid)   -- the thread's pid, 8 bits of it",
        "S1b" => "last_cpupid = page_cpupid_xchg_last(page, this_cpupid)",
        "S3" => "if last_cpupid is set and its node != this node: return false   -- two-stage filter, from the first fault on",
        "S4" => "if the last pid is ours (private fault): return true",
        "S5" => "no numa_group (shared fault): return true",
        "S6" => "if group_faults_cpu(dst) > 3 x group_faults_cpu(src): return true   -- the group runs mostly on this node",
        "S7" => "return faults_cpu(dst) x faults_mem(src) x 3 > faults_cpu(src) x faults_mem(dst) x 4   -- 3/4 hysteresis",
    ],
};

/// The two-stage filter with the early-lifetime shortcut (v4.19, 37355bdc5a12).
pub const SHOULD_NUMA_MIGRATE_MEMORY: Listing = Listing {
    function: "should_numa_migrate_memory",
    follows: "Linux v5.12 kernel/sched/fair.c (called from mpol_misplaced)",
    lines: lines![
        "S1" => "this_cpupid = cpu_pid_to_cpupid(dst_cpu, current->pid)   -- the thread's pid, 8 bits of it",
        "S1b" => "last_cpupid = page_cpupid_xchg_last(page, this_cpupid)",
        "S2" => "if (no preferred node or task numa_scan_seq <= 4) and (last pid unset or ours): return true   -- early lifetime",
        "S3" => "if last_cpupid is set and its node != this node: return false   -- two-stage filter",
        "S4" => "if the last pid is ours (private fault): return true",
        "S5" => "no numa_group (shared fault): return true",
        "S6" => "if group_faults_cpu(dst) > 3 x group_faults_cpu(src): return true   -- the group runs mostly on this node",
        "S7" => "return faults_cpu(dst) x faults_mem(src) x 3 > faults_cpu(src) x faults_mem(dst) x 4   -- 3/4 hysteresis",
    ],
};

/// `task_numa_fault` before v4.19: `task_numa_migrate` restarts the scan period of a task
/// it moves (3f9672baaa0d moved that to `update_scan_period`).
pub const TASK_NUMA_FAULT_V4_18: Listing = Listing {
    function: "task_numa_fault",
    follows: "Linux v4.17 kernel/sched/fair.c",
    lines: lines![
        "Q1" => "priv = last_cpupid unset or its pid is ours; if !priv and !TNF_NO_GROUP: task_numa_group(p, last_cpupid, flags, &priv)   -- join the last faulter's bigger group if same mm or TNF_SHARED",
        "Q2" => "task_numa_placement(p): once per numa_scan_seq the preferred node and update_task_scan_period, and if the task is off that node, numa_migrate_preferred(p) at once; then if jiffies > numa_migrate_retry: numa_migrate_preferred(p)   -- (v4.19 put the placement behind the retry timer too: numa_placement_v4_19) away from the preferred node, task_numa_migrate looks for an idle CPU or a swap there, and if it finds one, numa_scan_period = task_scan_start(p) before the move (the swap partner keeps its period)",
        "Q3" => "if MIGRATE_FAIL: numa_faults_locality[2]++; numa_faults[membuf, mem_node, priv]++; numa_faults[cpubuf, cpu_node, priv]++; numa_faults_locality[local]++   -- [0] remote, [1] local; a shared fault between two active nodes of the group counts as local",
    ],
};

/// `task_numa_fault`.
pub const TASK_NUMA_FAULT: Listing = Listing {
    function: "task_numa_fault",
    follows: "Linux v5.12 kernel/sched/fair.c",
    lines: lines![
        "Q1" => "priv = last_cpupid unset or its pid is ours; if !priv and !TNF_NO_GROUP: task_numa_group(p, last_cpupid, flags, &priv)   -- join the last faulter's bigger group if same mm or TNF_SHARED",
        "Q2" => "if jiffies > numa_migrate_retry: task_numa_placement(p); numa_migrate_preferred(p)   -- preferred node once per numa_scan_seq, update_task_scan_period; away from that node, task_numa_migrate looks for an idle CPU or a swap there (the move itself, like any move across nodes, goes through update_scan_period: numa_scan_period = task_scan_start(p) unless the task moves to its preferred node, or left another node after its first scan pass)",
        "Q3" => "if MIGRATE_FAIL: numa_faults_locality[2]++; numa_faults[membuf, mem_node, priv]++; numa_faults[cpubuf, cpu_node, priv]++; numa_faults_locality[local]++   -- [0] remote, [1] local; a shared fault between two active nodes of the group counts as local",
    ],
};

/// `task_numa_migrate` up to v4.18: the search gated by `numa_has_capacity`.
pub const TASK_NUMA_MIGRATE_V4_18: Listing = Listing {
    function: "task_numa_migrate",
    follows: "Linux v4.17 kernel/sched/fair.c",
    lines: lines![
        "M1" => "imbalance_pct = 100 + (sd_numa->imbalance_pct - 100) / 2   -- 112: sd_init gives a NUMA domain 125",
        "M2" => "update_numa_stats(src), (dst = preferred node): nr_running, load = sum of weighted_cpuload, compute_capacity; has_free_capacity = nr_running < task_capacity (the CPUs)",
        "M3" => "if numa_has_capacity(env): task_numa_find_cpu   -- not from a node with a free CPU to one without; src load x 112 > dst load x 100, capacity for capacity",
        "M4" => "task_numa_compare(each CPU of dst): swap with its task for any gain if both CPUs run one task; else move to an idle CPU or swap unless load_too_imbalanced",
        "M5" => "if nothing found or the group spans nodes: the same for every other node where the task or its group would be better off",
        "M6" => "if numa_group spans nodes and env.dst_nid (the last node looked at) is active: sched_setnuma(p, env.dst_nid)",
        "M7" => "if best_cpu: numa_scan_period = task_scan_start(p); migrate_task_to(p, best_cpu) or migrate_swap(p, best_task)",
    ],
};

/// `task_numa_migrate` as v5.12 has it (v4.19 series, v5.7 spare-capacity rules).
pub const TASK_NUMA_MIGRATE: Listing = Listing {
    function: "task_numa_migrate",
    follows: "Linux v5.12 kernel/sched/fair.c",
    lines: lines![
        "M1" => "imbalance_pct = 100 + (sd_numa->imbalance_pct - 100) / 2   -- 108: sd_init gives 117",
        "M2" => "update_numa_stats(src), (dst = preferred node): load, runnable, util, nr_running, an idle CPU not taken by another NUMA move (numa_migrate_on); numa_classify: has spare, fully busy or overloaded",
        "M3" => "task_numa_find_cpu: a node with spare capacity takes the task on an idle CPU if adjust_numa_imbalance allows; otherwise maymove = !load_too_imbalanced",
        "M4" => "task_numa_compare(each CPU of dst): a swap must gain at least SMALLIMP (30), and none within a group while dst has spare capacity; a move wins if it gains more",
        "M5" => "if nothing found or the group spans nodes: the same for every other node where the task or its group would be better off",
        "M6" => "if numa_group: sched_setnuma(p, node of best_cpu, or the source node)",
        "M7" => "if best_cpu: migrate_task_to(p, best_cpu) or migrate_swap(p, best_task)   -- the move restarts the scan period in update_scan_period",
    ],
};

/// `task_tick_numa`: the runtime-driven trigger of the scan.
pub const TASK_TICK_NUMA: Listing = Listing {
    function: "task_tick_numa",
    follows: "Linux v5.12 kernel/sched/fair.c (checked at each return to user space instead of each tick)",
    lines: lines![
        "TT1" => "if a kthread, exiting or numa_work already queued: return",
        "TT2" => "now = se.sum_exec_runtime; if now > node_stamp + numa_scan_period: (first time: numa_scan_period = task_scan_start) node_stamp += period",
        "TT3" => "if jiffies >= mm->numa_next_scan: task_work_add(task_numa_work)",
    ],
};

/// The scanner's pass.
pub const TASK_NUMA_WORK: Listing = Listing {
    function: "task_numa_work",
    follows: "Linux v5.12 kernel/sched/fair.c",
    lines: lines![
        "TN0" => "if jiffies < mm->numa_next_scan: return; cmpxchg(numa_next_scan, now + numa_scan_period) or return; node_stamp += 2 ticks",
        "TN1" => "start = mm->numa_scan_offset; pages = scan_size (MB in pages); virtpages = pages * 8",
        "TN2" => "for each VMA from start: end = ALIGN(start + pages, 2 MiB) capped at vm_end; nr = change_prot_numa(vma, start, end)",
        "TN3" => "if nr: pages -= end - start; virtpages -= end - start; stop when either is <= 0",
        "TN4" => "out: numa_scan_offset = start, or at the end reset_ptenuma_scan (offset 0, numa_scan_seq++); node_stamp += 32 x scan time",
    ],
};

/// `change_prot_numa` / `change_protection_range`.
pub const CHANGE_PROT_NUMA: Listing = Listing {
    function: "change_prot_numa",
    follows: "Linux v5.12 mm/mempolicy.c + mm/mprotect.c change_protection_range",
    lines: lines![
        "P10" => "inc_tlb_flush_pending(mm)",
        "P11" => "for each PTE table in [start, end): pages += change_pte_range(vma, pmd, addr, next, PAGE_NONE, prot_numa)",
        "P12" => "if pages: flush_tlb_range(vma, start, end)",
        "P13" => "dec_tlb_flush_pending(mm); count_vm_numa_events(NUMA_PTE_UPDATES, pages)",
    ],
};

/// The rmap walk for unmapping.
pub const TRY_TO_UNMAP: Listing = Listing {
    function: "try_to_unmap",
    follows: "Linux v5.12 mm/rmap.c (rmap_walk_anon / rmap_walk_file)",
    lines: lines![
        "TU1" => "root = page_anon_vma(page) or page->mapping's i_mmap",
        "TU2" => "for each VMA linked to root where the page falls: try_to_unmap_one(page, vma, address)",
        "TU3" => "return !page_mapcount(page)",
    ],
};

/// Unmapping one mapping for migration.
pub const TRY_TO_UNMAP_ONE: Listing = Listing {
    function: "try_to_unmap_one",
    follows: "Linux v5.12 mm/rmap.c",
    lines: lines![
        "T1" => "page_vma_mapped_walk: take the PTE lock; does this PTE map the page? if not, return",
        "T2" => "pteval = ptep_clear_flush(vma, addr, pte)   -- flushes only if pte_accessible(mm, pteval)",
        "T3" => "if pte_dirty(pteval): set_page_dirty(page)",
        "T4" => "set_pte_at(migration entry for page, writable if pte_write(pteval)); page_remove_rmap(page); release the PTE lock",
    ],
};

/// Clearing a PTE and flushing if some TLB may hold it.
pub const PTEP_CLEAR_FLUSH: Listing = Listing {
    function: "ptep_clear_flush",
    follows: "Linux v5.12 mm/pgtable-generic.c + arch/x86 pte_accessible",
    lines: lines![
        "PC1" => "pte = ptep_get_and_clear(mm, address, ptep)",
        "PC2" => "if pte_accessible(mm, pte): flush_tlb_page(vma, address)   -- present, or PROT_NONE with a flush pending",
        "PC3" => "return pte",
    ],
};

/// Migrating one page, MIGRATE_ASYNC.
pub const UNMAP_AND_MOVE: Listing = Listing {
    function: "unmap_and_move",
    follows: "Linux v5.12 mm/migrate.c (__unmap_and_move, MIGRATE_ASYNC)",
    lines: lines![
        "U1" => "newpage = alloc_misplaced_dst_page(target node)   -- __GFP_THISNODE, no reclaim",
        "U2" => "if !trylock_page(page): return -EAGAIN",
        "U3" => "if PageWriteback(page): return -EBUSY",
        "U4" => "try_to_unmap(page, TTU_MIGRATION)   -- each mapping: try_to_unmap_one",
        "U5" => "rc = move_to_new_page(newpage, page)   -- copy data, flags, last_cpupid",
        "U6" => "remove_migration_ptes(page, rc == 0 ? newpage : page)",
        "U7" => "unlock_page(page); newpage to the LRU; free the old page (or put it back on failure)",
    ],
};

/// Restoring the mappings after a migration.
pub const REMOVE_MIGRATION_PTES: Listing = Listing {
    function: "remove_migration_ptes",
    follows: "Linux v5.12 mm/migrate.c (rmap_walk with remove_migration_pte)",
    lines: lines![
        "RM1" => "rmap walk of the old page: each VMA where it falls",
        "RM2" => "  if the PTE is a migration entry for it: lock; set_pte_at(present PTE to new, writable if the entry was); page_add_rmap; unlock",
        "RM3" => "done",
    ],
};

/// `fork()`'s entry.
pub const KERNEL_CLONE: Listing = Listing {
    function: "kernel_clone",
    follows: "Linux v5.12 kernel/fork.c",
    lines: lines![
        "KC1" => "p = copy_process(NULL, trace, NUMA_NO_NODE, args)",
        "KC2" => "wake_up_new_task(p)   -- select_task_rq(p, WF_FORK), over the nodes within RECLAIM_DISTANCE (30) of the parent's: the parent's node while under a quarter of the CPUs are busy there, else the idlest node; its least loaded allowed CPU; return the child's pid",
    ],
};

/// The new task.
pub const COPY_PROCESS: Listing = Listing {
    function: "copy_process",
    follows: "Linux v5.12 kernel/fork.c",
    lines: lines![
        "CP1" => "p = dup_task_struct(current); copy files, fs, signals; copy_mm(clone_flags, p): no CLONE_VM -> dup_mm",
        "CP3" => "return p",
    ],
};

/// The new address space.
pub const DUP_MM: Listing = Listing {
    function: "dup_mm",
    follows: "Linux v5.12 kernel/fork.c",
    lines: lines![
        "DM1" => "mm = allocate_mm(); memcpy(mm, oldmm); mm_init(mm, tsk): new page tables; err = dup_mmap(mm, oldmm)",
        "DM3" => "return mm",
    ],
};

/// Copying the mappings.
pub const DUP_MMAP: Listing = Listing {
    function: "dup_mmap",
    follows: "Linux v5.12 kernel/fork.c",
    lines: lines![
        "DP1" => "mmap_write_lock_killable(oldmm)",
        "DP2" => "for each mpnt of oldmm: tmp = vm_area_dup(mpnt); anon_vma_fork(tmp, mpnt) or insert tmp in the file's i_mmap; copy_page_range(tmp, mpnt)",
        "DP4" => "flush_tlb_mm(oldmm)   -- the parent's PTEs were write-protected",
        "DP5" => "mmap_write_unlock(oldmm); return",
    ],
};

/// Copying one VMA's page tables.
pub const COPY_PAGE_RANGE: Listing = Listing {
    function: "copy_page_range",
    follows: "Linux v5.12 mm/memory.c",
    lines: lines![
        "CR1" => "if !src_vma->anon_vma (and not hugetlb/pfnmap): return 0   -- don't copy PTEs a page fault will fill",
        "CR2" => "is_cow = is_cow_mapping(src_vma->vm_flags); if is_cow: raw_write_seqcount_begin(&src_mm->write_protect_seq)",
        "CR3" => "for each PMD of the range that is not empty: copy_pte_range(dst_vma, src_vma, dst_pmd, src_pmd, addr, next)",
        "CR4" => "return 0",
    ],
};

/// Copying one PTE table.
pub const COPY_PTE_RANGE: Listing = Listing {
    function: "copy_pte_range",
    follows: "Linux v5.12 mm/memory.c (copy_present_pte, copy_nonpresent_pte)",
    lines: lines![
        "CT1" => "dst_pte = pte_alloc_map_lock(dst_mm, dst_pmd, addr, &dst_ptl); spin_lock_nested(src_ptl)",
        "CT2" => "present: if is_cow_mapping && pte_write(pte): ptep_set_wrprotect(src), pte = pte_wrprotect(pte); get_page(page); page_dup_rmap(page); set_pte_at(dst, pte_mkold(pte))",
        "CT3" => "not present (migration entry): if a write entry in a COW mapping: make it a read entry in src and dst; set_pte_at(dst)",
        "CT5" => "spin_unlock(src_ptl); pte_unmap_unlock(dst_pte, dst_ptl)",
    ],
};

/// The write-protect fault.
pub const DO_WP_PAGE: Listing = Listing {
    function: "do_wp_page",
    follows: "Linux v5.12 mm/memory.c",
    lines: lines![
        "WP1" => "(handle_pte_fault) take the PTE lock; if !pte_same(*pte, orig_pte): unlock, return",
        "WP2" => "page = vm_normal_page(vma, addr, orig_pte)",
        "WP3" => "if PageAnon(page) && page_count(page) == 1 && trylock_page && page_mapcount(page) == 1: wp_page_reuse(vmf), return",
        "WP4" => "copy: get_page(page); pte_unmap_unlock(pte, ptl); return wp_page_copy(vmf)",
        "WP5" => "return",
    ],
};

/// Reusing the page in place.
pub const WP_PAGE_REUSE: Listing = Listing {
    function: "wp_page_reuse",
    follows: "Linux v5.12 mm/memory.c",
    lines: lines![
        "WR1" => "entry = maybe_mkwrite(pte_mkdirty(pte_mkyoung(orig_pte))); ptep_set_access_flags(); pte_unmap_unlock(); count_vm_event(PGREUSE)",
    ],
};

/// Breaking the sharing with a copy.
pub const WP_PAGE_COPY: Listing = Listing {
    function: "wp_page_copy",
    follows: "Linux v5.12 mm/memory.c",
    lines: lines![
        "WC1" => "new_page = alloc_page_vma(GFP_HIGHUSER_MOVABLE, vma, addr); cow_user_page(new_page, old_page)   -- no lock held",
        "WC2" => "vmf->pte = pte_offset_map_lock(); if !pte_same(*pte, orig_pte): unlock, put the pages, return",
        "WC3" => "entry = maybe_mkwrite(pte_mkdirty(mk_pte(new_page))); ptep_clear_flush_notify(vma, addr, pte)",
        "WC4" => "page_add_new_anon_rmap(new_page); set_pte_at_notify(entry); page_remove_rmap(old_page); unlock; put_page(old_page) twice",
    ],
};

/// Moving queued tasks between CPUs.
pub const LOAD_BALANCE: Listing = Listing {
    function: "load_balance",
    follows: "Linux v5.12 kernel/sched/fair.c (newidle_balance, nohz idle balance, rebalance_domains -> load_balance), simplified",
    lines: lines![
        "LB1" => "newidle_balance: this CPU is about to idle: find the busiest run queue with a queued task allowed here",
        "LB2" => "scheduler_tick on a busy CPU with queued tasks: kick an idle allowed CPU (nohz_balancer_kick)",
        "LB3" => "detach_task(p) from the busiest queue (a queued task, never the running one); set_task_cpu(p, this_cpu); attach_task(p)",
        "LB4" => "rebalance_domains on a busy CPU at next_balance: busiest CPU of the node; imbalance = min(busiest - avg, avg - this); move a queued task if load >> nr_balance_failed <= imbalance, else nr_balance_failed++",
        "LB5" => "nohz idle balance, NUMA level (CPU_IDLE): busiest node; balanced if it is not overloaded and has at most one idle CPU fewer than this node; imbalance = (busiest - local) / 2 tasks, 0 if at most 2 while the busiest runs few (adjust_numa_imbalance)",
        "LB6" => "nothing queued to detach: nr_balance_failed++; past cache_nice_tries + 2 failures, active balance: the migration stopper pushes the busiest CPU's running task here",
    ],
};

/// `wb_workfn` → `write_cache_pages` (background writeback).
pub const WB_WORKFN: Listing = Listing {
    function: "wb_workfn",
    follows: "Linux v4.9 fs/fs-writeback.c wb_workfn → wb_writeback (wb_check_old_data_flush for the periodic pass) → writeback_sb_inodes, and mm/page-writeback.c write_cache_pages, simplified (files in order, no inode lists)",
    lines: lines![
        "WB0" => "periodic: wb_wakeup_delayed queued the work dirty_writeback_interval after the first dirtying, and re-queues it while anything is dirty; the pass (for_kupdate) takes only the files dirty for dirty_expire_interval or longer (inode->dirtied_when)",
        "WB1" => "for each dirty page of each file taken: lock_page (background: skip a page someone holds); if !clear_page_dirty_for_io(page): unlock, continue   -- a file left with no dirty page is clean; one dirtied again keeps its dirtied_when",
        "WB3" => "set_page_writeback(page); unlock_page(page); submit the write: the I/O copies the page to the file",
        "WB4" => "I/O completion: end_page_writeback(page)  -- nr_written",
        "WB5" => "no dirty page left in the files taken: return",
    ],
};

/// `clear_page_dirty_for_io`.
pub const CLEAR_PAGE_DIRTY_FOR_IO: Listing = Listing {
    function: "clear_page_dirty_for_io",
    follows: "Linux v4.9 mm/page-writeback.c",
    lines: lines![
        "CD1" => "if page_mkclean(page): set_page_dirty(page)   -- a dirty PTE's bit moves to the page",
        "CD2" => "return TestClearPageDirty(page)",
    ],
};

/// `page_mkclean`: an rmap walk over the file's mappings.
pub const PAGE_MKCLEAN: Listing = Listing {
    function: "page_mkclean",
    follows: "Linux v4.9 mm/rmap.c page_mkclean → rmap_walk_file",
    lines: lines![
        "MK1" => "for each VMA in mapping->i_mmap that covers page->index: page_mkclean_one(page, vma, address)",
        "MK2" => "return the number of PTEs cleaned  -- translations at addresses the walk cannot see are not touched",
    ],
};

/// `page_mkclean_one`.
pub const PAGE_MKCLEAN_ONE: Listing = Listing {
    function: "page_mkclean_one",
    follows: "Linux v4.9 mm/rmap.c",
    lines: lines![
        "MC1" => "pte = page_check_address(page, mm, address, &ptl)   -- takes the PTE lock; none: return",
        "MC2" => "if pte_dirty(*pte) || pte_write(*pte): entry = ptep_clear_flush(vma, address, pte)",
        "MC3" => "entry = pte_mkclean(pte_wrprotect(entry)); set_pte_at(mm, address, pte, entry); pte_unmap_unlock",
    ],
};

/// `wakeup_flusher_threads`.
pub const WAKEUP_FLUSHER_THREADS: Listing = Listing {
    function: "wakeup_flusher_threads",
    follows: "Linux v4.9 fs/fs-writeback.c (what sync(2) calls first)",
    lines: lines!["WF1" => "for each bdi: wb_start_writeback(wb, WB_REASON_SYNC)  -- wakes the flusher"],
};

/// `invalidate_mapping_pages` (`posix_fadvise(POSIX_FADV_DONTNEED)`).
pub const INVALIDATE_MAPPING_PAGES: Listing = Listing {
    function: "invalidate_mapping_pages",
    follows: "Linux v4.9 mm/truncate.c, called from mm/fadvise.c POSIX_FADV_DONTNEED",
    lines: lines![
        "IV1" => "for each cached page: if !trylock_page, or PageDirty, PageWriteback or page_mapped: leave it",
        "IV2" => "invalidate_inode_page(page): remove it from the page cache and free it",
        "IV3" => "[model] the page is clean, yet holds what the file does not: a lost write, detected here",
        "IV4" => "return the number of pages dropped",
    ],
};

/// `sys_mremap` for a whole-VMA move.
pub const SYS_MREMAP: Listing = Listing {
    function: "sys_mremap",
    follows: "Linux v4.9 mm/mremap.c SYSCALL_DEFINE5(mremap) → mremap_to, simplified to MREMAP_MAYMOVE|MREMAP_FIXED of a whole VMA",
    lines: lines![
        "SM1" => "down_write(&mm->mmap_sem); vma_to_resize / checks: the new range must not overlap a mapping (else EINVAL)",
        "SM2" => "ret = move_vma(vma, addr, old_len, new_len, new_addr)",
        "SM3" => "up_write(&mm->mmap_sem); return ret",
    ],
};

/// `move_vma`.
pub const MOVE_VMA: Listing = Listing {
    function: "move_vma",
    follows: "Linux v4.9 mm/mremap.c",
    lines: lines![
        "MV1" => "new_vma = copy_vma(&vma, new_addr, new_len, new_pgoff, &need_rmap_locks)",
        "MV2" => "moved_len = move_page_tables(vma, old_addr, new_vma, new_addr, old_len, need_rmap_locks)",
        "MV3" => "do_munmap(mm, old_addr, old_len) -> unmap_region: no PTE left to zap; free_pgtables frees the emptied PTE table (pte_free_tlb); tlb_finish_mmu: flush_tlb_mm_range of its first page, freed_tables",
        "MV4" => "the old VMA is detached and freed; return new_addr",
    ],
};

/// `move_page_tables`' extent computation, up to v4.17 (LATENCY_LIMIT).
pub const GET_EXTENT_V4_17: Listing = Listing {
    function: "get_extent",
    follows: "Linux v4.17 mm/mremap.c move_page_tables' extent lines (named after v5.11's get_extent)",
    lines: lines![
        "GE1" => "extent = next PMD boundary of old_addr - old_addr (at most what is left); old_pmd = get_old_pmd(): none: continue",
        "GE2" => "new_pmd = alloc_new_pmd(); extent = min(extent, next PMD boundary of new_addr - new_addr, LATENCY_LIMIT = 64 pages); move_ptes(...)",
    ],
};

/// `move_page_tables`' extent computation from v4.18 (37a4094e828f).
pub const GET_EXTENT_V4_18: Listing = Listing {
    function: "get_extent",
    follows: "Linux v4.18 mm/mremap.c move_page_tables' extent lines (37a4094e828f; named after v5.11's get_extent)",
    lines: lines![
        "GE1" => "extent = next PMD boundary of old_addr - old_addr (at most what is left); old_pmd = get_old_pmd(): none: continue",
        "GE2" => "new_pmd = alloc_new_pmd(); extent = min(extent, next PMD boundary of new_addr - new_addr); move_ptes(...)",
    ],
};

/// `move_page_tables` up to v4.8.
pub const MOVE_PAGE_TABLES_V4_8: Listing = Listing {
    function: "move_page_tables",
    follows: "Linux v4.8 mm/mremap.c",
    lines: lines![
        "MP1" => "flush_cache_range(); mmu_notifier_invalidate_range_start(old range)",
        "MP2" => "for each extent: (get_extent) move_ptes(...); need_flush = true",
        "MP3" => "move_ptes returned, both PTLs dropped",
        "MP4" => "if need_flush: flush_tlb_range(vma, old_end - len, old_addr)   -- the one flush, after every lock",
        "MP5" => "mmu_notifier_invalidate_range_end(); return len moved",
    ],
};

/// `move_page_tables` v4.9–v4.18.
pub const MOVE_PAGE_TABLES_V4_9: Listing = Listing {
    function: "move_page_tables",
    follows: "Linux v4.9 mm/mremap.c (5d1904204c99)",
    lines: lines![
        "MP1" => "flush_cache_range(); mmu_notifier_invalidate_range_start(old range)",
        "MP2" => "for each extent: (get_extent) move_ptes(..., &need_flush)",
        "MP3" => "move_ptes returned, both PTLs dropped (extents with a dirty PTE were flushed inside)",
        "MP4" => "if need_flush: flush_tlb_range(vma, old_end - len, old_addr)   -- for the extents that did not flush",
        "MP5" => "mmu_notifier_invalidate_range_end(); return len moved",
    ],
};

/// `move_page_tables` with Mel Gorman's 2018 proposal.
pub const MOVE_PAGE_TABLES_2018: Listing = Listing {
    function: "move_page_tables",
    follows:
        "Linux v4.17 mm/mremap.c + \"mremap: Avoid TLB flushing anonymous pages that are not in swap cache\" (Mel Gorman, 2018, not merged)",
    lines: lines![
        "MP1" => "flush_cache_range(); mmu_notifier_invalidate_range_start(old range)",
        "MP2" => "for each extent: (get_extent) move_ptes(..., &need_flush)",
        "MP3" => "move_ptes returned, both PTLs dropped",
        "MP4" => "if need_flush: flush_tlb_range(vma, old_end - len, old_addr)   -- dirty anon pages outside the swap cache wait for this",
        "MP5" => "mmu_notifier_invalidate_range_end(); return len moved",
    ],
};

/// `move_page_tables` from v4.19 (eb66ae030829).
pub const MOVE_PAGE_TABLES_V4_19: Listing = Listing {
    function: "move_page_tables",
    follows: "Linux v4.19 mm/mremap.c (eb66ae030829: need_flush and the final flush are gone)",
    lines: lines![
        "MP1" => "flush_cache_range(); mmu_notifier_invalidate_range_start(old range)",
        "MP2" => "for each extent: (get_extent) move_ptes(...)",
        "MP3" => "move_ptes returned, both PTLs dropped, every present PTE already flushed",
        "MP5" => "mmu_notifier_invalidate_range_end(); return len moved",
    ],
};

/// `move_ptes` up to v4.8: never flushes.
pub const MOVE_PTES_V4_8: Listing = Listing {
    function: "move_ptes",
    follows: "Linux v4.8 mm/mremap.c",
    lines: lines![
        "MT1" => "(need_rmap_locks: i_mmap / anon_vma locks) old_pte = pte_offset_map_lock(old_pmd)   -- the old PTL",
        "MT2" => "new_ptl = pte_lockptr(new_pmd); if new_ptl != old_ptl: spin_lock_nested(new_ptl)",
        "MT4" => "for each old PTE not none: pte = ptep_get_and_clear(old); pte = move_soft_dirty_pte(move_pte(pte)); set_pte_at(new, pte)",
        "MT6" => "arch_leave_lazy_mmu_mode(); unlock new_ptl",
        "MT7" => "pte_unmap_unlock(old_pte - 1, old_ptl)   -- no flush: move_page_tables flushes once at the end",
    ],
};

/// `move_ptes` v4.9–v4.18 (5d1904204c99 + check after clear).
pub const MOVE_PTES_V4_9: Listing = Listing {
    function: "move_ptes",
    follows: "Linux v4.9 mm/mremap.c (5d1904204c99 and \"mremap: move_ptes: check pte dirty after its removal\")",
    lines: lines![
        "MT1" => "(need_rmap_locks: i_mmap / anon_vma locks) old_pte = pte_offset_map_lock(old_pmd)   -- the old PTL",
        "MT2" => "new_ptl = pte_lockptr(new_pmd); if new_ptl != old_ptl: spin_lock_nested(new_ptl)",
        "MT3" => "flush_tlb_batched_pending(vma->vm_mm)   -- v4.13 (3ea277194daa), also in 4.9 stable",
        "MT4" => "for each old PTE not none: pte = ptep_get_and_clear(old); if pte_present(pte) && pte_dirty(pte): force_flush = true; set_pte_at(new, ...)",
        "MT6" => "arch_leave_lazy_mmu_mode(); unlock new_ptl",
        "MT5" => "if force_flush: flush_tlb_range(vma, old_end - len, old_end)   -- still under the old PTL",
        "MT7" => "else *need_flush = true; pte_unmap_unlock(old_pte - 1, old_ptl)",
    ],
};

/// `move_ptes` with Mel Gorman's 2018 `should_force_flush`.
pub const MOVE_PTES_2018: Listing = Listing {
    function: "move_ptes",
    follows: "Linux v4.17 mm/mremap.c + should_force_flush (Mel Gorman, 2018-06-05, not merged)",
    lines: lines![
        "MT1" => "(need_rmap_locks: i_mmap / anon_vma locks) old_pte = pte_offset_map_lock(old_pmd)   -- the old PTL",
        "MT2" => "new_ptl = pte_lockptr(new_pmd); if new_ptl != old_ptl: spin_lock_nested(new_ptl)",
        "MT3" => "flush_tlb_batched_pending(vma->vm_mm)",
        "MT4" => "for each old PTE not none: pte = ptep_get_and_clear(old); if should_force_flush(pte) [present && dirty && (file page || !trylock_page || PageSwapCache)]: force_flush = true; set_pte_at(new, ...)",
        "MT6" => "arch_leave_lazy_mmu_mode(); unlock new_ptl",
        "MT5" => "if force_flush: flush_tlb_range(vma, old_end - len, old_end)   -- still under the old PTL",
        "MT7" => "else *need_flush = true; pte_unmap_unlock(old_pte - 1, old_ptl)",
    ],
};

/// `move_ptes` from v4.19 (eb66ae030829, CVE-2018-18281).
pub const MOVE_PTES_V4_19: Listing = Listing {
    function: "move_ptes",
    follows: "Linux v4.19 mm/mremap.c (eb66ae030829)",
    lines: lines![
        "MT1" => "(need_rmap_locks: i_mmap / anon_vma locks) old_pte = pte_offset_map_lock(old_pmd)   -- the old PTL",
        "MT2" => "new_ptl = pte_lockptr(new_pmd); if new_ptl != old_ptl: spin_lock_nested(new_ptl)",
        "MT3" => "flush_tlb_batched_pending(vma->vm_mm)",
        "MT4" => "for each old PTE not none: pte = ptep_get_and_clear(old); if pte_present(pte): force_flush = true; set_pte_at(new, ...)",
        "MT5" => "if force_flush: flush_tlb_range(vma, old_end - len, old_end)   -- before either PTL is dropped",
        "MT6" => "arch_leave_lazy_mmu_mode(); unlock new_ptl",
        "MT7" => "pte_unmap_unlock(old_pte - 1, old_ptl)   -- no need_flush any more",
    ],
};

/// `do_munmap` of a whole VMA.
pub const DO_MUNMAP: Listing = Listing {
    function: "do_munmap",
    follows: "Linux v4.9 mm/mmap.c do_munmap → unmap_region (mm/memory.c free_pgtables)",
    lines: lines![
        "UM1" => "down_write(&mm->mmap_sem); detach the VMA; tlb_gather_mmu(&tlb, mm, start, end)",
        "UM2" => "unmap_vmas → zap_pte_range under each PTL: ptep_get_and_clear_full; dirty file PTE: set_page_dirty; page_remove_rmap; pages gathered",
        "UM3" => "free_pgtables: free each PTE table no other VMA shares (pte_free_tlb: range + its first page, freed_tables); tlb_finish_mmu: flush_tlb_mm_range(mm, start, end) if anything was unmapped or freed",
        "UM4" => "free the gathered pages; up_write(&mm->mmap_sem)",
    ],
};

/// `do_mmap` of an anonymous or file range at a free address.
pub const DO_MMAP: Listing = Listing {
    function: "do_mmap",
    follows: "Linux v4.9 mm/mmap.c do_mmap, simplified",
    lines: lines!["MM1" => "down_write(mmap_sem); addr = get_unmapped_area(len); mmap_region: a new VMA, no PTE; up_write"],
};

// ---- page allocator and per-CPU page lists (mech/page_alloc.rs), Linux v6.6 / v6.7 ----

/// `__alloc_pages` → `rmqueue` → `rmqueue_pcplist` → `__rmqueue_pcplist`.
pub const ALLOC_PAGES: Listing = Listing {
    function: "alloc_pages",
    follows: "Linux v6.6/v6.7 mm/page_alloc.c (__alloc_pages, rmqueue, rmqueue_pcplist, __rmqueue_pcplist)",
    lines: lines![
        "AP1" => "rmqueue: if !pcp_allowed_order(order): page = rmqueue_buddy(zone, order)  -- zone lock, one block",
        "AP2" => "rmqueue_pcplist: pcp = this CPU's pageset, trylock; v6.6: free_factor >>= 1; v6.7: free_count >>= 1",
        "AP3" => "list = pcp->lists[order_to_pindex(mt, order)]; if list not empty: page = head of list, count -= 1 << order",
        "AP4" => "list empty: n = nr_pcp_alloc(pcp, zone, order); rmqueue_bulk(zone, order, n, list); if still empty: rmqueue_buddy",
        "AP9" => "unlock; count PGALLOC (pgalloc_normal += 1 << order); return page",
    ],
};

/// `get_page_from_freelist` before patch 8.
pub const GET_PAGE_FROM_FREELIST_V6_6: Listing = Listing {
    function: "get_page_from_freelist",
    follows: "Linux v6.6 mm/page_alloc.c",
    lines: lines![
        "G1" => "for each zone of the zonelist (preferred node first):",
        "G2" => "  if !zone_watermark_fast(zone, order, low watermark): next zone; else page = rmqueue(zone, order)",
        "G3" => "no zone passes: slow path; __alloc_pages_direct_reclaim: drain_all_pages(NULL) after a failed attempt",
        "G5" => "retry get_page_from_freelist",
        "G4" => "still nothing: the allocation fails",
    ],
};

/// `get_page_from_freelist` with patch 8's `ZONE_BELOW_HIGH`.
pub const GET_PAGE_FROM_FREELIST_P8: Listing = Listing {
    function: "get_page_from_freelist",
    follows: "Linux v6.7 mm/page_alloc.c (57c0419c5f0e, patch 8 of the PCP series)",
    lines: lines![
        "G1" => "for each zone: if !ZONE_BELOW_HIGH and zone_watermark_fast(zone, order, HIGH watermark): take this zone",
        "G2" => "  else: set ZONE_BELOW_HIGH (high stops growing); check the LOW watermark as before; page = rmqueue(zone, order)",
        "G3" => "no zone passes: slow path; __alloc_pages_direct_reclaim: drain_all_pages(NULL) after a failed attempt",
        "G5" => "retry get_page_from_freelist",
        "G4" => "still nothing: the allocation fails",
    ],
};

/// v6.6's refill count (inline in `__rmqueue_pcplist`).
pub const NR_PCP_ALLOC_V6_6: Listing = Listing {
    function: "nr_pcp_alloc",
    follows: "Linux v6.6 mm/page_alloc.c (__rmqueue_pcplist, before nr_pcp_alloc existed)",
    lines: lines![
        "NA1" => "batch = READ_ONCE(pcp->batch); n = batch; if batch > 1: n = max(batch >> order, 2)",
        "NA2" => "(v6.6 with patch 7 alone: high grows by n on each refill, see decay_pcp_high)",
    ],
};

/// `nr_pcp_alloc` with patch 5's `alloc_factor` (and patch 7/8's growth of `high`).
pub const NR_PCP_ALLOC_P5: Listing = Listing {
    function: "nr_pcp_alloc",
    follows: "Linux v6.7 mm/page_alloc.c nr_pcp_alloc (c0a242394cb9, patch 5; growth from patches 7-8)",
    lines: lines![
        "NA1" => "high = pcp->high = clamp(pcp->high, high_min, high_max); if high < batch: return 1",
        "NA2" => "b = order ? batch : batch << alloc_factor; if tuning and !ZONE_BELOW_HIGH: high = pcp->high = min(high + b, high_max)",
        "NA3" => "order 0: max_nr = max(high - count - batch, batch); if b <= max_nr and alloc_factor < SCALE_MAX: alloc_factor++; b = min(b, max_nr)",
        "NA4" => "if b > 1: b = max(b >> order, 2); return b",
    ],
};

/// `rmqueue_bulk`.
pub const RMQUEUE_BULK: Listing = Listing {
    function: "rmqueue_bulk",
    follows: "Linux v6.6 mm/page_alloc.c",
    lines: lines![
        "RB1" => "spin_lock_irqsave(&zone->lock)  -- other CPUs refilling or draining this zone spin here",
        "RB2" => "repeat count times: page = __rmqueue(zone, order, mt) (smallest fitting block, split down); list_add_tail(page, list)",
        "RB3" => "NR_FREE_PAGES -= i << order; spin_unlock_irqrestore(&zone->lock); return i",
    ],
};

/// `rmqueue_buddy`.
pub const RMQUEUE_BUDDY: Listing = Listing {
    function: "rmqueue_buddy",
    follows: "Linux v6.6 mm/page_alloc.c",
    lines: lines![
        "RD1" => "spin_lock_irqsave(&zone->lock)",
        "RD2" => "page = __rmqueue(zone, order, mt); spin_unlock_irqrestore(&zone->lock); return page",
    ],
};

/// `free_unref_page`.
pub const FREE_UNREF_PAGE: Listing = Listing {
    function: "free_unref_page",
    follows: "Linux v6.6 mm/page_alloc.c (free_the_page, free_unref_page)",
    lines: lines![
        "FU1" => "if !pcp_allowed_order(order) or isolated: free_one_page(zone, page, order)  -- zone lock",
        "FU2" => "pcp_spin_trylock(zone->per_cpu_pageset); free_unref_page_commit(zone, pcp, page, mt, order)",
    ],
};

/// `free_unref_page_commit` in v6.6 (f26b3fa04611's free_high).
pub const FREE_UNREF_PAGE_COMMIT_V6_6: Listing = Listing {
    function: "free_unref_page_commit",
    follows: "Linux v6.6 mm/page_alloc.c (free_high from f26b3fa04611)",
    lines: lines![
        "FC1" => "count PGFREE; list_add(page, &pcp->lists[pindex]) at the head; pcp->count += 1 << order",
        "FC2" => "free_high = free_factor > 0 && 1 <= order <= PAGE_ALLOC_COSTLY_ORDER",
        "FC4" => "high = nr_pcp_high(pcp, zone, free_high)  (0 when free_high); if count < high: return",
        "FC3" => "free_high: free_pcppages_bulk(zone, nr_pcp_free(..) = count, pcp, pindex)  -- the whole PCP",
        "FC5" => "count >= high: free_pcppages_bulk(zone, nr_pcp_free(pcp, high, false), pcp, pindex)",
        "FC9" => "return",
    ],
};

/// `free_unref_page_commit` with patch 1 (and the later patches' changes to the decision).
pub const FREE_UNREF_PAGE_COMMIT_P1: Listing = Listing {
    function: "free_unref_page_commit",
    follows: "Linux v6.7 mm/page_alloc.c (ca71fe1ad922, patch 1; patches 3, 5, 8 and the last patch noted)",
    lines: lines![
        "FC1" => "[p5] alloc_factor >>= 1; count PGFREE; list_add at the head of lists[pindex]; count += 1 << order",
        "FC2" => "if 1 <= order <= 3: free_high = recent && (flags & PREV_FREE_HIGH_ORDER); flags |= PREV  else: flags &= ~PREV  \
                  (recent: free_factor > 0, or [last patch] free_count >= batch; [p3] && (!FREE_HIGH_BATCH || count >= batch))",
        "FC4" => "[last patch] free_count += 1 << order (capped); high = nr_pcp_high(pcp, zone, batch, free_high); if count < high: return",
        "FC3" => "free_high: free_pcppages_bulk(zone, nr_pcp_free(..), pcp, pindex)  -- all, or [p7] at most batch << 5",
        "FC5" => "count >= high: free_pcppages_bulk(zone, nr_pcp_free(pcp, batch, high, false), pcp, pindex)",
        "FC9" => "[p8] if ZONE_BELOW_HIGH and zone_watermark_ok(zone, 0, high watermark): clear ZONE_BELOW_HIGH",
    ],
};

/// `nr_pcp_free` before the last patch (v6.6, with patch 4's cap and patch 7's changes).
pub const NR_PCP_FREE_V6_6: Listing = Listing {
    function: "nr_pcp_free",
    follows: "Linux v6.6 mm/page_alloc.c (patch 4 and patch 7 noted)",
    lines: lines![
        "NF1" => "if free_high: return count  ([p7] min(count, batch << SCALE_MAX))",
        "NF2" => "if high < batch: return 1",
        "NF3" => "b = batch << free_factor; if b < high - batch ([p7] <=) [p4] and free_factor < SCALE_MAX: free_factor++",
        "NF4" => "return clamp(b, batch, high - batch)",
    ],
};

/// `nr_pcp_free` with the last patch's `free_count`.
pub const NR_PCP_FREE_P10: Listing = Listing {
    function: "nr_pcp_free",
    follows: "Linux v6.7 mm/page_alloc.c (6ccdcb6d3a74, the last patch of the series)",
    lines: lines![
        "NF1" => "if free_high: return min(count, batch << SCALE_MAX)",
        "NF2" => "if high < batch: return 1",
        "NF3" => "(free_factor is gone: free_count counts the pages freed since the last allocations)",
        "NF4" => "return clamp(free_count, batch, high - batch)",
    ],
};

/// `zone_pcp_update_cacheinfo` absent.
pub const ZONE_PCP_UPDATE_CACHEINFO_OFF: Listing = Listing {
    function: "zone_pcp_update_cacheinfo",
    follows: "Linux v6.6 (the function does not exist yet)",
    lines: lines![
        "ZC1" => "(v6.6: no PCPF_FREE_HIGH_BATCH; free_high drains as soon as it is decided)",
    ],
};

/// `zone_pcp_update_cacheinfo` (patch 3).
pub const ZONE_PCP_UPDATE_CACHEINFO_ON: Listing = Listing {
    function: "zone_pcp_update_cacheinfo",
    follows: "Linux v6.7 mm/page_alloc.c (362d37a106dd, patch 3; cacheinfo from patch 2)",
    lines: lines![
        "ZC1" => "for each CPU: if (per_cpu_data_slice_size(cpu) >> PAGE_SHIFT) > 3 * pcp->batch: flags |= PCPF_FREE_HIGH_BATCH else clear it",
    ],
};

/// `free_one_page`.
pub const FREE_ONE_PAGE: Listing = Listing {
    function: "free_one_page",
    follows: "Linux v6.6 mm/page_alloc.c",
    lines: lines![
        "FO1" => "spin_lock_irqsave(&zone->lock)",
        "FO2" => "__free_one_page(page, pfn, zone, order, mt)  -- merge with free buddies; spin_unlock_irqrestore",
    ],
};

/// `free_pcppages_bulk`.
pub const FREE_PCPPAGES_BULK: Listing = Listing {
    function: "free_pcppages_bulk",
    follows: "Linux v6.6 mm/page_alloc.c",
    lines: lines![
        "FB1" => "count = min(pcp->count, count); spin_lock_irqsave(&zone->lock)",
        "FB2" => "from lists[pindex] round-robin: while the list has pages and count > 0: page = list tail (coldest); pcp->count -= 1 << order",
        "FB3" => "  __free_one_page(page, order) merges it into the buddy lists; spin_unlock_irqrestore(&zone->lock)",
    ],
};

/// `drain_all_pages`.
pub const DRAIN_ALL_PAGES: Listing = Listing {
    function: "drain_all_pages",
    follows: "Linux v6.6 mm/page_alloc.c (__drain_all_pages, drain_pages_zone; simplified: the caller drains each CPU)",
    lines: lines![
        "DA1" => "for each CPU whose pcp->count != 0: drain_pages_zone(cpu, zone) -> free_pcppages_bulk(zone, count, pcp, 0)",
        "DA2" => "return",
    ],
};

/// `decay_pcp_high` absent (v6.6: `high` is fixed).
pub const DECAY_PCP_HIGH_OFF: Listing = Listing {
    function: "decay_pcp_high",
    follows: "Linux v6.6 mm/vmstat.c vmstat_update -> refresh_cpu_vm_stats (no decay; the remote-pageset expire drain)",
    lines: lines![
        "DH0" => "vmstat_update every sysctl_stat_interval: refresh_cpu_vm_stats(true)",
        "DH1" => "(v6.6: high is fixed, nothing to decay)",
        "DH2" => "(no decay, so no drain of the excess)",
        "DX1" => "per zone: this CPU changed its statistics: expire = 3; a pageset of another node's zone with pages: expire -= 1 (a change)",
        "DX2" => "  expire reached 0: drain_zone_pages(zone, pcp): free_pcppages_bulk(zone, min(count, batch))",
        "DH3" => "re-arm only if something changed",
    ],
};

/// `decay_pcp_high` (patch 7, v3's ×7/8).
pub const DECAY_PCP_HIGH_P7: Listing = Listing {
    function: "decay_pcp_high",
    follows: "Linux v6.7 mm/page_alloc.c decay_pcp_high, called from mm/vmstat.c refresh_cpu_vm_stats (51a755c56dc0; v1/v2 decayed by 1/5), then the remote-pageset expire drain",
    lines: lines![
        "DH0" => "vmstat_update every sysctl_stat_interval: refresh_cpu_vm_stats(true) -> for each zone: decay_pcp_high(zone, pcp)",
        "DH1" => "if high > high_min: high = max3(count - (batch << SCALE_MAX), high - high / 8, high_min); todo++ while high > high_min",
        "DH2" => "if count > high: pcp_spin_lock; free_pcppages_bulk(zone, count - high, pcp, 0); todo++",
        "DX1" => "per zone: this CPU changed its statistics: expire = 3; a pageset of another node's zone with pages: expire -= 1 (a change)",
        "DX2" => "  expire reached 0: drain_zone_pages(zone, pcp): free_pcppages_bulk(zone, min(count, batch))",
        "DH3" => "return todo: vmstat_update re-arms itself while there is more to decay or expire",
    ],
};

/// The short-lived process workload shape.
pub const PROCESS_CYCLE: Listing = Listing {
    function: "process_cycle",
    follows: "mmviz workload shape: the calls of fork, faults and exit (Linux v6.6 call stacks from the patch-1 changelog)",
    lines: lines![
        "PC1" => "copy_process -> mm_init -> mm_alloc_pgd -> pgd_alloc: __get_free_pages(PGD_ALLOCATION_ORDER)  (order 1 with PTI)",
        "PC2" => "per page: handle_mm_fault -> do_anonymous_page -> alloc_page_vma(GFP_HIGHUSER_MOVABLE)",
        "PC3" => "  map it, the store touches it (cache hot or cold)",
        "PC4" => "  sometimes: a slab cache allocates an order 1-3 page, and frees old slab pages (one, or two in a row)",
        "PC5" => "do_exit -> exit_mm -> mmput -> exit_mmap -> unmap_vmas; tlb_finish_mmu -> release_pages -> free_unref_page_list",
        "PC6" => "  free_unref_page_commit(order 0) for each page, no allocation in between",
        "PC7" => "__mmdrop -> mm_free_pgd -> free_pages(pgd, PGD_ALLOCATION_ORDER)",
        "PC8" => "the process is gone",
        "PC9" => "next process on this CPU, or return",
    ],
};

/// The socket pair workload shape.
pub const SOCK_PAIR: Listing = Listing {
    function: "sock_pair",
    follows: "mmviz workload shape: unix_stream_sendmsg -> sock_alloc_send_pskb -> alloc_skb_with_frags, unix_stream_read_generic -> consume_skb (Linux v6.6)",
    lines: lines![
        "SP1" => "sender: the socket's send buffer is full: wait",
        "SP2" => "sender: per skb of the write (SKB_MAX_HEAD(0) + 32 KiB at most): alloc_pages for its paged part, order 3 down to what the rest still fills",
        "SP3" => "sender: copy_from_user into the page; queue the skb; wake the receiver",
        "SP4" => "receiver: nothing queued: wait",
        "SP5" => "receiver: dequeue the skbs of one write (with sock_head_page: an order-0 head allocation)",
        "SP6" => "receiver: consume_skb frees the head",
        "SP7" => "receiver: copy_to_user from each frag; consume_skb -> skb_release_data: free_unref_page(order) of each frag page on the receiver's CPU",
        "SP8" => "message done; every sock_phase_msgs messages (or sock_phase_ms of time) the two sides swap roles",
        "SP9" => "return",
    ],
};

/// `do_huge_pmd_anonymous_page`: a first touch mapped with a 2 MiB page.
pub const DO_HUGE_PMD_ANONYMOUS_PAGE: Listing = Listing {
    function: "do_huge_pmd_anonymous_page",
    follows: "Linux v4.17 mm/huge_memory.c (with alloc_hugepage_vma in mm/mempolicy.c)",
    lines: lines![
        "HA1" => "page = alloc_hugepage_vma(gfp | __GFP_THISNODE, order 9, local node); if none: count THP_FAULT_FALLBACK, return VM_FAULT_FALLBACK",
        "HA2" => "take the PMD lock",
        "HA3" => "clear_huge_page(page); entry = mk_huge_pmd(page) writable; set_pmd_at(haddr); count THP_FAULT_ALLOC; unlock",
        "HA4" => "if the PMD is no longer none: unlock, free the page, return  -- another thread mapped it",
    ],
};

/// `change_huge_pmd` under `prot_numa`: the scanner marks a whole huge PMD.
pub const CHANGE_HUGE_PMD: Listing = Listing {
    function: "change_huge_pmd",
    follows: "Linux v4.17 mm/huge_memory.c (called by change_pmd_range in mm/mprotect.c)",
    lines: lines![
        "G1" => "take the PMD lock (__pmd_trans_huge_lock); if the PMD is not huge: return 0",
        "G2" => "prot_numa: if the huge zero page or already pmd_protnone: unlock, return 1   -- nothing counted",
        "G3" => "entry = pmdp_invalidate(vma, addr, pmd)   -- not present, then flush_pmd_tlb_range over 2 MiB",
        "G4" => "entry = pmd_modify(entry, PAGE_NONE) keeping the write bit (pmd_mk_savedwrite); set_pmd_at",
        "G5" => "unlock; return HPAGE_PMD_NR   -- change_pmd_range: pages += 512, nr_huge_updates += 1",
    ],
};

/// `do_huge_pmd_numa_page`: a NUMA hint fault on a huge PMD.
pub const DO_HUGE_PMD_NUMA_PAGE: Listing = Listing {
    function: "do_huge_pmd_numa_page",
    follows: "Linux v4.17 mm/huge_memory.c",
    lines: lines![
        "T1" => "take the PMD lock; if the PMD is no longer orig_pmd: unlock, return",
        "T2" => "if pmd_trans_migrating (the page is locked): unlock, wait_on_page_locked, return",
        "T3" => "page_nid, last_cpupid = page_cpupid_last(page); count NUMA_HINT_FAULTS (and _LOCAL: flags |= FAULT_LOCAL); NO_GROUP if !pmd_savedwrite",
        "T4" => "target_nid = mpol_misplaced(page, vma, haddr); if NUMA_NO_NODE: goto clear_pmdnuma",
        "T5" => "if mm_tlb_flush_pending(mm): flush_tlb_range(vma, haddr, haddr + HPAGE_PMD_SIZE)",
        "T6" => "unlock; migrated = migrate_misplaced_transhuge_page(..., target_nid); flags |= MIGRATED or MIGRATE_FAIL",
        "T7" => "clear_pmdnuma: pmd = pmd_mkyoung(pmd_modify(pmd, vma->vm_page_prot)), writable if it was; set_pmd_at; unlock",
        "T8" => "out: task_numa_fault(last_cpupid, page_nid, HPAGE_PMD_NR, flags)",
        "T9" => "return 0",
    ],
};

/// `migrate_misplaced_transhuge_page` up to v4.18: rate-limited by 512 pages.
pub const MIGRATE_MISPLACED_TRANSHUGE_PAGE_V4_18: Listing = Listing {
    function: "migrate_misplaced_transhuge_page",
    follows: "Linux v4.17 mm/migrate.c",
    lines: lines![
        "H1" => "if numamigrate_update_ratelimit(pgdat, HPAGE_PMD_NR): goto out_dropref",
        "H2" => "new_page = alloc_pages_node(node, GFP_TRANSHUGE_LIGHT | __GFP_THISNODE, order 9); if none: goto out_fail",
        "H3" => "if !numamigrate_isolate_page(pgdat, page)   -- migrate_balanced_pgdat(pgdat, 512), isolate_lru_page: free new_page, goto out_fail",
        "H4" => "migrate_page_copy(new_page, page)   -- 512 pages, the flags, last_cpupid",
        "H5" => "take the PMD lock; if the PMD changed: unlock, free new_page, put the page back, return 0",
        "H6" => "page_add_anon_rmap(new_page); pmdp_huge_clear_flush_notify(vma, haddr, pmd)   -- flushes the 2 MiB",
        "H7" => "set_pmd_at(mk_huge_pmd(new_page) dirty, writable); page_remove_rmap(page); unlock; count PGMIGRATE_SUCCESS, NUMA_PAGE_MIGRATE += 512; return 1",
        "H8" => "out_fail: count PGMIGRATE_FAIL += 512",
        "H9" => "out_dropref: if the PMD is unchanged: set_pmd_at(pmd_modify(entry, vma->vm_page_prot)); unlock_page; return 0",
    ],
};

/// `migrate_misplaced_transhuge_page` from v4.19 (efaffc5e40ae removed the rate limit).
/// The rest is modelled as v4.17 has it (v5.12 sets the new PMD without the clear and
/// flush; no v5.x scenario maps huge pages).
pub const MIGRATE_MISPLACED_TRANSHUGE_PAGE_V4_19: Listing = Listing {
    function: "migrate_misplaced_transhuge_page",
    follows: "Linux v4.19 mm/migrate.c (v4.17 without the rate limit)",
    // v4.17's lines after H1, the rate limit.
    lines: MIGRATE_MISPLACED_TRANSHUGE_PAGE_V4_18.lines.split_at(1).1,
};
