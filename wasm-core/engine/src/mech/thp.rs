//! Transparent huge pages of private anonymous memory: the huge page fault, and how NUMA
//! balancing marks, faults on and migrates a huge PMD (`mm/huge_memory.rs`,
//! `migrate_misplaced_transhuge_page` in `mm/migrate.rs`). Off unless a scenario sets
//! the knob `thp_enabled`.

use crate::knobs::KnobKind;
use crate::listings as l;
use crate::registry::{FunctionListings, Mechanism};

crate::frames! { Thp;
    /// `do_huge_pmd_anonymous_page`.
    DoHugePmdAnonymousPage(crate::mm::huge_memory::DoHugePmdAnonymousPage) => "do_huge_pmd_anonymous_page",
    /// `change_huge_pmd`.
    ChangeHugePmd(crate::mm::huge_memory::ChangeHugePmd) => "change_huge_pmd",
    /// `do_huge_pmd_numa_page`.
    DoHugePmdNumaPage(crate::mm::huge_memory::DoHugePmdNumaPage) => "do_huge_pmd_numa_page",
    /// `migrate_misplaced_transhuge_page`.
    MigrateMisplacedTranshugePage(crate::mm::migrate::MigrateMisplacedTranshugePage) => "migrate_misplaced_transhuge_page",
}

crate::counters! { Thp;
    /// `thp_fault_alloc`: first touches mapped with a huge page.
    kernel THP_FAULT_ALLOC => "thp_fault_alloc",
    /// `thp_fault_fallback`: first touches that wanted a huge page and found no free 2 MiB
    /// block on the node (they take 4 KiB pages).
    kernel THP_FAULT_FALLBACK => "thp_fault_fallback",
    /// `thp_split_pmd`: huge PMDs split into PTE tables (by fork or a partial scan range in
    /// the model; other paths split without counting, see `mm/huge_memory.rs`).
    kernel THP_SPLIT_PMD => "thp_split_pmd",
    /// `numa_huge_pte_updates`: huge PMDs the NUMA scanner marked (each also counts 512 in
    /// `numa_pte_updates`).
    kernel NUMA_HUGE_PTE_UPDATES => "numa_huge_pte_updates",
    /// Model only: shootdown IPIs of huge PMD flushes, the scanner's `pmdp_invalidate` and
    /// the migration's `pmdp_huge_clear_flush_notify` (the non-lazy other CPUs of
    /// `mm_cpumask` at the flush).
    model TLB_IPI_NUMA_HUGE => "tlb_ipi_numa_huge",
}

crate::knobs! { Thp;
    /// `/sys/kernel/mm/transparent_hugepage/enabled`: on is `always` (a first touch of a
    /// private anonymous VMA maps a 2 MiB page when its aligned 2 MiB lies inside the VMA),
    /// off is `never`. Off by default in the model, so scenarios that do not name it keep
    /// 4 KiB pages (the kernel's Kconfig default is `always`). `madvise` is not modelled yet;
    /// if it comes, on and off keep these meanings.
    THP_ENABLED => "thp_enabled", KnobKind::Bool, Some(0),
}

/// Transparent huge pages' declaration.
pub const MECHANISM: Mechanism = Mechanism {
    id: "thp",
    title: "Transparent huge pages: huge page faults, and NUMA balancing of huge PMDs",
    counters: COUNTERS,
    knobs: KNOBS,
    listings: &[
        FunctionListings::single(&[l::DO_HUGE_PMD_ANONYMOUS_PAGE]),
        FunctionListings::single(&[l::CHANGE_HUGE_PMD]),
        FunctionListings::single(&[l::DO_HUGE_PMD_NUMA_PAGE]),
        FunctionListings {
            function: "migrate_misplaced_transhuge_page",
            variants: &[l::MIGRATE_MISPLACED_TRANSHUGE_PAGE_V4_18, l::MIGRATE_MISPLACED_TRANSHUGE_PAGE_V4_19],
            select: |t| usize::from(t.on(crate::mech::numa::NUMA_RATELIMIT_REMOVED)),
        },
    ],
    functions: FRAME_FUNCTIONS,
    ..Mechanism::EMPTY
};
