//! Automatic NUMA balancing: the scanner (`task_numa_work` → `change_prot_numa`) makes
//! PTEs PROT_NONE, the hint fault (`do_numa_page`) records where the page is used and
//! migrates a misplaced page (`migrate_misplaced_page`). Its toggles are the 2018
//! dirty-file-page skip and the 2021 delayed mapping.

use crate::knobs::KnobKind;
use crate::listings as l;
use crate::patches::{ListingPair, Patch, ToggleKind};
use crate::registry::{FunctionListings, Mechanism, ViewDef};

crate::frames! { Numa;
    /// `do_numa_page`.
    DoNumaPage(crate::mm::memory::DoNumaPage) => "do_numa_page",
    /// `numa_migrate_prep`.
    NumaMigratePrep(crate::mm::memory::NumaMigratePrep) => "numa_migrate_prep",
    /// `mpol_misplaced` (its decision is `should_numa_migrate_memory`).
    MpolMisplaced(crate::mm::mempolicy::MpolMisplaced) => "should_numa_migrate_memory",
    /// `task_numa_fault`.
    TaskNumaFault(crate::kernel::sched::numa::TaskNumaFault) => "task_numa_fault",
    /// `task_numa_work`.
    TaskNumaWork(crate::kernel::sched::numa::TaskNumaWork) => "task_numa_work",
    /// `change_prot_numa`.
    ChangeProtNuma(crate::mm::mprotect::ChangeProtNuma) => "change_prot_numa",
    /// `change_pte_range`.
    ChangePteRange(crate::mm::mprotect::ChangePteRange) => "change_pte_range",
    /// `migrate_misplaced_page`.
    MigrateMisplacedPage(crate::mm::migrate::MigrateMisplacedPage) => "migrate_misplaced_page",
}

crate::toggles! { Numa;
    /// `numa_delay_map` (v5.13, b99a342d4f11): keep the hint PTE PROT_NONE until migration is decided.
    NUMA_DELAY_MAP = Patch {
        id: "numa_delay_map",
        kind: ToggleKind::Bool,
        title: "NUMA balancing: reduce TLB flush via delaying mapping on hint page fault",
        author: "Huang Ying (reviewed by Mel Gorman)",
        date: "2021-04-08",
        commit: "b99a342d4f11",
        version: "v5.13",
        link: "https://git.kernel.org/torvalds/c/b99a342d4f11",
        explanation: "Before this patch do_numa_page made the PROT_NONE hint PTE present again before \
            trying to migrate the page. From that moment any CPU running the process could cache the \
            translation, so when migration unmapped the page, ptep_clear_flush saw an accessible PTE and \
            had to flush the TLB: a local INVLPG plus an IPI to every other non-lazy CPU in the process's \
            mm_cpumask. With the patch the PTE stays PROT_NONE until migration is decided; \
            pte_accessible() is then false, so unmapping needs no flush and sends no IPI. The PTE is made \
            present only if the page is not migrated. Published: TLB shootdown interrupts -98% \
            (4.7e7 to 9.7e5) for 9.2e6 migrated pages, throughput +5.5%.",
        functions: &["do_numa_page"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v5.12: map, then migrate", "v5.13: migrate, map only on failure"],
        listings: &[ListingPair {
            before: l::DO_NUMA_PAGE_V5_12,
            after: l::DO_NUMA_PAGE_V5_13,
        }],
        history: &[],
    },
    /// `numa_skip_dirty_file` (v4.17, 09a913a7): leave dirty file pages alone in the NUMA scan.
    NUMA_SKIP_DIRTY_FILE = Patch {
        id: "numa_skip_dirty_file",
        kind: ToggleKind::Bool,
        title: "sched/numa: avoid trapping faults and attempting migration of file-backed dirty pages",
        author: "Mel Gorman (reviewed by Rik van Riel)",
        date: "2018-03-26",
        commit: "09a913a7",
        version: "v4.17",
        link: "https://git.kernel.org/torvalds/c/09a913a7",
        explanation: "The NUMA scanner used to mark dirty file-backed pages PROT_NONE like any other, \
            although asynchronous migration cannot move a dirty page on some filesystems (btrfs before \
            v5.8 has no migratepage callback and fails with -EBUSY after the page was already unmapped). \
            The patch makes change_pte_range leave such PTEs alone and migrate_misplaced_page bail out on \
            them, so no hint fault is taken and no unmap/remap cycle is wasted. Published (NPB, btrfs): \
            hint faults -13.5%, local hint faults 70% to 91%, system CPU -25%.",
        functions: &["change_pte_range", "migrate_misplaced_page"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v4.16: scan and migrate dirty file pages", "v4.17: skip dirty file pages"],
        listings: &[
            ListingPair {
                before: l::CHANGE_PTE_RANGE_V4_16,
                after: l::CHANGE_PTE_RANGE_V4_17,
            },
            ListingPair {
                before: l::MIGRATE_MISPLACED_PAGE_V4_16,
                after: l::MIGRATE_MISPLACED_PAGE_V4_17,
            },
        ],
        history: &[],
    },
    /// `numa_ratelimit_removed` (v4.19, efaffc5e40ae): no per-node rate limit on
    /// NUMA-balancing migrations.
    NUMA_RATELIMIT_REMOVED = Patch {
        id: "numa_ratelimit_removed",
        kind: ToggleKind::Bool,
        title: "mm, sched/numa: Remove rate-limiting of automatic NUMA balancing migration",
        author: "Mel Gorman",
        date: "2018-10-01",
        commit: "efaffc5e40ae",
        version: "v4.19",
        link: "https://git.kernel.org/torvalds/c/efaffc5e40ae",
        explanation: "Up to v4.18, migrate_misplaced_page first asked numamigrate_update_ratelimit \
            whether the target node had already received ratelimit_pages (128 MB) of NUMA-balancing \
            migrations in the current 100 ms window (pgdat->numabalancing_migrate_nr_pages, reset when \
            numabalancing_migrate_next_window passes); if so the page was not migrated. The limit was a \
            safety net against ping-ponging pages; once the two-stage filter and the scan-period \
            adaptation were good enough it only slowed convergence (Jirka Hladky's STREAM regression in \
            4.17), and this commit removed it. Off = v4.18 and earlier.",
        functions: &["numamigrate_update_ratelimit"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v4.18: at most 128 MB per 100 ms per node", "v4.19: no rate limit"],
        listings: &[ListingPair {
            before: l::NUMAMIGRATE_UPDATE_RATELIMIT_V4_18,
            after: l::NUMAMIGRATE_UPDATE_RATELIMIT_V4_19,
        }],
        history: &[],
    },
    /// `numa_scan_reset_on_move` (v4.19, 3f9672baaa0d): any move across nodes restarts the
    /// task's scan period, not only task_numa_migrate's.
    NUMA_SCAN_RESET_ON_MOVE = Patch {
        id: "numa_scan_reset_on_move",
        kind: ToggleKind::Bool,
        title: "sched/numa: Reset scan rate whenever task moves across nodes",
        author: "Srikar Dronamraju",
        date: "2018",
        commit: "3f9672baaa0d",
        version: "v4.19",
        link: "https://git.kernel.org/torvalds/c/3f9672baaa0d",
        explanation: "Up to v4.18 only task_numa_migrate restarted a task's scan period: when it found \
            a better CPU for the task on another node it set numa_scan_period to task_scan_start \
            before moving it (a swap partner kept its period), so the task's faults would soon show \
            whether the move paid off. A move by the load balancer left the period alone. Part of \
            Srikar Dronamraju's NUMA balancing series for v4.19, this commit moves the restart to \
            migrate_task_rq_fair, which every move across nodes passes: update_scan_period restarts \
            the period of a task that has NUMA faults, unless it is moving to its preferred node or, \
            after its first scan pass, was not on its preferred node before. task_scan_start is \
            task_scan_min, scaled up for a task in a NUMA group by the group's tasks and its share \
            of shared faults. Off = v4.18 and earlier.",
        functions: &["task_numa_fault"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v4.18: task_numa_migrate restarts the scan", "v4.19: every move across nodes does"],
        listings: &[ListingPair {
            before: l::TASK_NUMA_FAULT_V4_18,
            after: l::TASK_NUMA_FAULT,
        }],
        history: &[],
    },
    /// `numa_early_migrate` (v4.19, 37355bdc5a12): early in a task's life a first or private
    /// hint fault migrates without waiting for the two-stage filter.
    NUMA_EARLY_MIGRATE = Patch {
        id: "numa_early_migrate",
        kind: ToggleKind::Bool,
        title: "sched/numa: Migrate pages to local nodes quicker early in the lifetime of a task",
        author: "Mel Gorman (reviewed by Rik van Riel)",
        date: "2018-10-01",
        commit: "37355bdc5a12",
        version: "v4.19",
        link: "https://git.kernel.org/torvalds/c/37355bdc5a12",
        explanation: "Up to v4.18 every hint fault went through the two-stage filter of \
            should_numa_migrate_memory: a page migrated only when the previous hint fault on it had come \
            from the same node. This commit (part 2 of the series that also removed the migration rate \
            limit, merged for v4.19 through sched/urgent) lets a fault migrate at once while the task has \
            no preferred node or has seen at most four scan sequences, provided no task faulted on the \
            page before or the last fault was the task's own. Private memory of a new or freshly moved \
            task then follows it after one fault instead of two. Off = v4.18 and earlier.",
        functions: &["should_numa_migrate_memory"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v4.18: two-stage filter from the first fault", "v4.19: early-lifetime shortcut"],
        listings: &[ListingPair {
            before: l::SHOULD_NUMA_MIGRATE_MEMORY_V4_18,
            after: l::SHOULD_NUMA_MIGRATE_MEMORY,
        }],
        history: &[],
    },
    /// `numa_placement_v4_19` (v4.19, Srikar Dronamraju's task placement series): the
    /// search of `task_numa_migrate` and when `task_numa_fault` runs it.
    NUMA_PLACEMENT_V4_19 = Patch {
        id: "numa_placement_v4_19",
        kind: ToggleKind::Bool,
        title: "sched/numa: Remove numa_has_capacity(), Avoid task migration for small NUMA improvement, Set preferred_node based on best_cpu, Move task_numa_placement() closer to numa_migrate_preferred() (and the rest of the series)",
        author: "Srikar Dronamraju",
        date: "2018",
        commit: "Srikar Dronamraju's v4.19 sched/numa series (several commits)",
        version: "v4.19",
        link: "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/log/kernel/sched/fair.c?h=v4.19",
        explanation: "Up to v4.18, task_numa_migrate looked for a CPU on a node only when \
            numa_has_capacity said so: the source node's load (the sum of its CPUs' weighted_cpuload) had to \
            exceed the destination's by imbalance_pct (112: half of the NUMA domain's 125 above 100), \
            capacity for capacity, and a node without a free CPU was never chosen from one with one. So \
            between equally busy nodes no task moved and none swapped. task_numa_compare then swapped with \
            any task for any gain when both CPUs ran one task each, and moved to an idle CPU when \
            load_too_imbalanced allowed it. A task in a multi-node group took as its preferred node \
            env.dst_nid, the last node the search looked at, found or not. And task_numa_fault ran \
            task_numa_placement at every fault (once per scan sequence), calling numa_migrate_preferred \
            at once when the task was off its preferred node. The v4.19 series removed \
            numa_has_capacity (swaps no longer wait for an imbalance), added SMALLIMP and numa_migrate_on, \
            set the preferred node from best_cpu and moved task_numa_placement behind the \
            numa_migrate_retry timer; v5.7 (Mel Gorman) then judged moves by spare capacity as the load \
            balancer does. On = the search as v5.12 has it (the model does not separate v4.19 from v5.7); \
            off = v4.18 and earlier.",
        functions: &["task_numa_migrate"],
        enum_values: &[],
        default_index: 1,
        value_labels: &[
            "v4.18: numa_has_capacity, swaps for any gain, placement at every fault",
            "v4.19+: no capacity gate, SMALLIMP, placement behind the retry timer (as v5.12)",
        ],
        listings: &[ListingPair {
            before: l::TASK_NUMA_MIGRATE_V4_18,
            after: l::TASK_NUMA_MIGRATE,
        }],
        history: &[],
    },
}

crate::counters! { Numa;
    /// `numa_pte_updates`: PTEs turned PROT_NONE by `change_prot_numa` (base pages).
    kernel NUMA_PTE_UPDATES => "numa_pte_updates",
    /// `numa_hint_faults`: hint faults counted in `numa_migrate_prep`.
    kernel NUMA_HINT_FAULTS => "numa_hint_faults",
    /// `numa_hint_faults_local`: hint faults on a page already on the faulting CPU's node.
    kernel NUMA_HINT_FAULTS_LOCAL => "numa_hint_faults_local",
    /// `numa_pages_migrated`: pages moved by `migrate_misplaced_page`.
    kernel NUMA_PAGES_MIGRATED => "numa_pages_migrated",
    /// Model only: PTEs `change_pte_range` left alone because the file page was dirty.
    model SCAN_SKIP_DIRTY_FILE => "scan_skip_dirty_file",
    /// Model only: `migrate_misplaced_page` bailed out on a dirty file page.
    model MISPLACED_BAIL_DIRTY_FILE => "misplaced_bail_dirty_file",
    /// Model only: `task_numa_work` passes that won `numa_next_scan` and scanned.
    model NUMA_SCANS => "numa_scans",
    /// Model only: `task_numa_migrate` moved a task to an idle CPU of a better node (v5.12
    /// has only the `sched_move_numa` tracepoint).
    model NUMA_TASK_MIGRATED => "numa_task_migrated",
    /// Model only: `task_numa_migrate` swapped a task with one running on a better node
    /// (the `sched_swap_numa` tracepoint).
    model NUMA_TASK_SWAPPED => "numa_task_swapped",
    /// Model only: `migrate_misplaced_page` refused by the v4.17 per-node rate limit
    /// (`numamigrate_update_ratelimit`; the kernel has only a tracepoint).
    model NUMA_MIGRATE_RATELIMITED => "numa_migrate_ratelimited",
    /// Model only: shootdown IPIs of the scanner's own range flushes (`change_prot_numa`),
    /// the non-lazy other CPUs of `mm_cpumask` at the flush.
    model TLB_IPI_NUMA_SCAN => "tlb_ipi_numa_scan",
    /// Model only: shootdown IPIs of migration unmaps of a PTE `do_numa_page` itself made
    /// present before migrating (the v5.12 flow).
    model TLB_IPI_NUMA_MAPPED => "tlb_ipi_numa_mapped",
    /// Model only: shootdown IPIs of migration unmaps of a PTE another thread made present
    /// meanwhile (the racing thread of b99a342d4f11's changelog).
    model TLB_IPI_NUMA_RACE => "tlb_ipi_numa_race",
    /// Model only: shootdown IPIs of migration unmaps of a PROT_NONE PTE while a scan's
    /// flush was pending on the mm (`pte_accessible` true through `mm_tlb_flush_pending`).
    model TLB_IPI_NUMA_PENDING => "tlb_ipi_numa_pending",
}

crate::costs! { Numa;
    /// Hint-fault bookkeeping (`numa_migrate_prep`, `task_numa_fault`).
    NUMA_ACCOUNT_NS => "numa_account_ns" = 100,
    /// Per PTE examined by `change_pte_range`.
    SCAN_PTE_NS => "scan_pte_ns" = 20,
    /// Starting a `task_numa_work` pass (window and VMA bookkeeping).
    NUMA_WORK_NS => "numa_work_ns" = 50,
}

crate::knobs! { Numa;
    /// `kernel.numa_balancing` (default on when the machine has more than one node, as
    /// `check_numabalancing_enable` decides at boot; off on one node unless set): off stops
    /// the automatic scanner. A PROT_NONE PTE (from an explicit `scan` operation) still
    /// faults into `do_numa_page`, as in v5.12.
    NUMA_BALANCING => "numa_balancing", KnobKind::Bool, Some(1),
    /// Legacy name, kept for scenarios: when set, both `numa_balancing_scan_delay_ms` and
    /// `numa_balancing_scan_period_min_ms` take this value (the scanner starts at this period
    /// and `task_scan_min` derives its floor from it). Unset by default: the sysctls rule.
    // Kept in ns (scale 1,000,000).
    SCAN_PERIOD_NS => "scan_period_ms", KnobKind::Int { min: 1, max: 3_600_000, scale: 1_000_000 }, None,
    /// Legacy name, kept for scenarios: `numa_balancing_scan_size_mb` given in 4 KiB pages
    /// (so below 1 MiB too), not divided by `numa_mem_scale`. Unset by default.
    SCAN_SIZE_PAGES => "scan_size_pages", KnobKind::Int { min: 1, max: 1 << 28, scale: 1 }, None,
    /// `kernel.numa_balancing_scan_delay_ms` (v5.12 default 1000): a new task's first
    /// scan period (`init_numa_balancing`) and a new mm's `numa_next_scan` delay.
    SCAN_DELAY_MS => "numa_balancing_scan_delay_ms", KnobKind::Int { min: 0, max: 3_600_000, scale: 1 }, Some(1000),
    /// `kernel.numa_balancing_scan_period_min_ms` (default 1000): `task_scan_min` is this
    /// divided by the task's RSS in scan windows, floored at 1000 / (2560 MB / scan size).
    SCAN_PERIOD_MIN_MS => "numa_balancing_scan_period_min_ms", KnobKind::Int { min: 0, max: 3_600_000, scale: 1 }, Some(1000),
    /// `kernel.numa_balancing_scan_period_max_ms` (default 60000): `task_scan_max` is this
    /// divided by the RSS in scan windows (at least `task_scan_min`).
    SCAN_PERIOD_MAX_MS => "numa_balancing_scan_period_max_ms", KnobKind::Int { min: 0, max: 3_600_000, scale: 1 }, Some(60000),
    /// `kernel.numa_balancing_scan_size_mb` (default 256): PTEs `task_numa_work` marks per
    /// pass (counted in whole 2 MiB-aligned chunks that changed a PTE), divided by
    /// `numa_mem_scale`.
    SCAN_SIZE_MB => "numa_balancing_scan_size_mb", KnobKind::Int { min: 1, max: 1 << 20, scale: 1 }, Some(256),
    /// Memory scale divisor N (default 1): a scenario that models 1/N of the real
    /// machine's memory sets N. The scanner's byte sizes (`scan_size_mb`, the 2560 MB
    /// `MAX_SCAN_WINDOW`) and the v4.17 migration rate limit (128 MB per 100 ms) are divided
    /// by N, so scan windows per RSS, `task_scan_min`/`task_scan_max` and the share of the
    /// heap marked or migrated per second are those of the full-size run. Kernel work done
    /// per page counts N times, as each modelled page stands for N real ones: a page
    /// fault's entry, a first touch (allocating and zeroing), a hint fault with the
    /// migration it starts, the scanner's PTE updates. Other times are not scaled.
    MEM_SCALE => "numa_mem_scale", KnobKind::Int { min: 1, max: 1 << 20, scale: 1 }, Some(1),
}

/// Event kinds.
pub mod ev {
    crate::events! { Numa;
        /// A NUMA hint fault was counted.
        HINT_FAULT => "hint_fault", Fault,
        /// The migrate/no-migrate decision.
        MIGRATE_DECISION => "migrate_decision", Migration,
        /// `task_numa_fault` bookkeeping.
        NUMA_FAULT_ACCOUNT => "numa_fault_account", Other,
        /// A NUMA scan started.
        SCAN_START => "scan_start", Other,
        /// The scanner turned a PTE PROT_NONE.
        SCAN_PTE => "scan_pte", Other,
        /// The scanner skipped a PTE.
        SCAN_SKIP => "scan_skip", Other,
        /// A NUMA scan finished.
        SCAN_END => "scan_end", Other,
    }
}

/// NUMA balancing's metrics.
const METRICS: &[crate::registry::MetricDef] = &[
    crate::registry::MetricDef {
        name: "local_hint_fault_pct",
        doc: "Share of NUMA hint faults on a page already on the faulting CPU's node \
              (numa_hint_faults_local / numa_hint_faults), %.",
        value: |sim| {
            let all = sim.st.counters.get(NUMA_HINT_FAULTS);
            (all > 0).then(|| 100.0 * sim.st.counters.get(NUMA_HINT_FAULTS_LOCAL) as f64 / all as f64)
        },
    },
    crate::registry::MetricDef {
        name: "remote_hint_faults",
        doc: "NUMA hint faults on a page on another node than the faulting CPU's \
              (numa_hint_faults - numa_hint_faults_local).",
        value: |sim| {
            let all = sim.st.counters.get(NUMA_HINT_FAULTS);
            Some(all.saturating_sub(sim.st.counters.get(NUMA_HINT_FAULTS_LOCAL)) as f64)
        },
    },
    crate::registry::MetricDef {
        name: "ipis_per_migrated_page",
        doc: "TLB-shootdown interrupts (irq_tlb_count) per page NUMA balancing migrated: the \
              published ratio (about 5.1 before b99a342d4f11, 0.1 after).",
        value: |sim| {
            let m = sim.st.counters.get(NUMA_PAGES_MIGRATED);
            (m > 0).then(|| sim.st.counters.get(crate::mech::core::IRQ_TLB_COUNT) as f64 / m as f64)
        },
    },
    crate::registry::MetricDef {
        name: "try_to_unmap_pct",
        doc: "Share of busy CPU time spent in try_to_unmap and its callees (the migration's unmap \
              and, before b99a342d4f11, its flush and the wait for the acknowledgements), %: \
              the published perf figure (6.02 % before, 0.47 % after). Needs a profiled run.",
        value: |sim| {
            if sim.profiling {
                sim.st.prof.share_pct("try_to_unmap")
            } else {
                None
            }
        },
    },
    crate::registry::MetricDef {
        name: "sys_time_per_hint_fault_ns",
        doc: "System time per NUMA hint fault the kernel would count (sys_time_ns over \
              numa_hint_faults x numa_mem_scale), ns: all of the run's kernel time set against its \
              hint faults, as the published NPB figures allow (11,078.96 s over 4,300,924 faults, \
              2.6 ms, for 09a913a7's btrfs run). Needs a profiled run.",
        value: |sim| {
            let faults = sim.st.counters.get(NUMA_HINT_FAULTS) * sim.cfg.mem_scale;
            (sim.profiling && faults > 0).then(|| sim.st.prof.sys_ns as f64 / faults as f64)
        },
    },
    crate::registry::MetricDef {
        name: "tlb_ipi_other",
        doc: "Shootdown IPIs no NUMA cause counter claims: irq_tlb_count minus tlb_ipi_numa_scan, \
              _mapped, _race, _pending and _huge (fork, munmap, exit, reclaim... and the gap between the \
              fan-out a cause counter predicts and the one the flush sends), at least 0.",
        value: |sim| {
            let c = &sim.st.counters;
            let named = c.get(TLB_IPI_NUMA_SCAN)
                + c.get(TLB_IPI_NUMA_MAPPED)
                + c.get(TLB_IPI_NUMA_RACE)
                + c.get(TLB_IPI_NUMA_PENDING)
                + c.get(crate::mech::thp::TLB_IPI_NUMA_HUGE);
            Some(c.get(crate::mech::core::IRQ_TLB_COUNT).saturating_sub(named) as f64)
        },
    },
];

/// NUMA balancing's declaration.
pub const MECHANISM: Mechanism = Mechanism {
    id: "numa",
    title: "NUMA balancing: the scanner, hint faults and misplaced-page migration",
    toggles: TOGGLES,
    counters: COUNTERS,
    costs: COSTS,
    knobs: KNOBS,
    events: ev::EVENTS,
    ops: crate::kernel::sched::numa::OPS,
    listings: &[
        FunctionListings {
            function: "do_numa_page",
            variants: &[l::DO_NUMA_PAGE_V5_12, l::DO_NUMA_PAGE_V5_13],
            select: |t| usize::from(t.on(NUMA_DELAY_MAP)),
        },
        FunctionListings {
            function: "change_pte_range",
            variants: &[l::CHANGE_PTE_RANGE_V4_16, l::CHANGE_PTE_RANGE_V4_17],
            select: |t| usize::from(t.on(NUMA_SKIP_DIRTY_FILE)),
        },
        FunctionListings {
            function: "migrate_misplaced_page",
            variants: &[l::MIGRATE_MISPLACED_PAGE_V4_16, l::MIGRATE_MISPLACED_PAGE_V4_17],
            select: |t| usize::from(t.on(NUMA_SKIP_DIRTY_FILE)),
        },
        FunctionListings {
            function: "numamigrate_update_ratelimit",
            variants: &[l::NUMAMIGRATE_UPDATE_RATELIMIT_V4_18, l::NUMAMIGRATE_UPDATE_RATELIMIT_V4_19],
            select: |t| usize::from(t.on(NUMA_RATELIMIT_REMOVED)),
        },
        FunctionListings::single(&[l::NUMA_MIGRATE_PREP]),
        FunctionListings {
            function: "should_numa_migrate_memory",
            variants: &[l::SHOULD_NUMA_MIGRATE_MEMORY_V4_18, l::SHOULD_NUMA_MIGRATE_MEMORY],
            select: |t| usize::from(t.on(NUMA_EARLY_MIGRATE)),
        },
        FunctionListings {
            function: "task_numa_fault",
            variants: &[l::TASK_NUMA_FAULT_V4_18, l::TASK_NUMA_FAULT],
            select: |t| usize::from(t.on(NUMA_SCAN_RESET_ON_MOVE)),
        },
        FunctionListings {
            function: "task_numa_migrate",
            variants: &[l::TASK_NUMA_MIGRATE_V4_18, l::TASK_NUMA_MIGRATE],
            select: |t| usize::from(t.on(NUMA_PLACEMENT_V4_19)),
        },
        FunctionListings::single(&[l::TASK_NUMA_WORK]),
        FunctionListings::single(&[l::TASK_TICK_NUMA]),
        FunctionListings::single(&[l::CHANGE_PROT_NUMA]),
    ],
    functions: FRAME_FUNCTIONS,
    task_work: Some(crate::kernel::sched::numa::task_work),
    task_moved: Some(crate::kernel::sched::numa::update_scan_period),
    metrics: METRICS,
    views: &[ViewDef {
        id: "numa",
        title: "NUMA balancing",
        plots: &[
            "numa_pages_migrated",
            "nr_tlb_remote_flush",
            "irq_tlb_count",
            "numa_hint_faults",
            "tlb_ipi_numa_scan",
            "tlb_ipi_numa_race",
            "tlb_ipi_numa_pending",
        ],
        state: Some(crate::mech::numa_view::state),
    }],
    ..Mechanism::EMPTY
};
