//! fork() and copy-on-write (v5.12): `kernel_clone` → `copy_process` → `dup_mm` →
//! `dup_mmap` → `copy_page_range` write-protects private pages in both mms; a later
//! store faults into `do_wp_page`, which reuses the page or copies it.

use crate::listings as l;
use crate::registry::{FunctionListings, Mechanism, ViewDef};

crate::frames! { Fork;
    /// `kernel_clone`.
    KernelClone(crate::kernel::fork::KernelClone) => "kernel_clone",
    /// `copy_process`.
    CopyProcess(crate::kernel::fork::CopyProcess) => "copy_process",
    /// `dup_mm`.
    DupMm(crate::kernel::fork::DupMm) => "dup_mm",
    /// `dup_mmap`.
    DupMmap(crate::kernel::fork::DupMmap) => "dup_mmap",
    /// `copy_page_range`.
    CopyPageRange(crate::mm::memory::CopyPageRange) => "copy_page_range",
    /// `copy_pte_range`.
    CopyPteRange(crate::mm::memory::CopyPteRange) => "copy_pte_range",
    /// `do_wp_page`.
    DoWpPage(crate::mm::memory::DoWpPage) => "do_wp_page",
    /// `wp_page_reuse`.
    WpPageReuse(crate::mm::memory::WpPageReuse) => "wp_page_reuse",
    /// `wp_page_copy`.
    WpPageCopy(crate::mm::memory::WpPageCopy) => "wp_page_copy",
}

crate::counters! { Fork;
    /// `pgreuse` (v5.10+): write faults on a COW page that `wp_page_reuse` made writable in place.
    kernel PGREUSE => "pgreuse",
    /// `/proc/stat` `processes` (`total_forks`): processes created by `fork`.
    kernel PROCESSES => "processes",
    /// Model only: write faults `wp_page_copy` resolved with a new page (v5.12 has no
    /// vmstat for them; `pgfault` counts every fault).
    model COW_COPIES => "cow_copies",
}

crate::costs! { Fork;
    /// `copy_process` apart from the address space: the task struct, files, signals.
    FORK_NS => "fork_ns" = 20000,
}

/// Event kinds.
pub mod ev {
    crate::events! { Fork;
        /// `fork`: a VMA is duplicated, or the child is placed on a CPU.
        FORK => "fork", Sched,
        /// `copy_pte_range` copies a PTE into the child (write-protecting a COW page).
        PTE_COPY => "pte_copy", Other,
        /// `wp_page_copy`: a write to a shared COW page gets its own copy.
        COW_COPY => "cow_copy", Fault,
        /// `wp_page_reuse`: a write to a COW page nobody else maps reuses it in place.
        COW_REUSE => "cow_reuse", Fault,
    }
}

/// fork's declaration.
pub const MECHANISM: Mechanism = Mechanism {
    id: "fork",
    title: "fork() and copy-on-write: dup_mmap write-protects, the write fault copies or reuses",
    counters: COUNTERS,
    costs: COSTS,
    events: ev::EVENTS,
    ops: crate::kernel::fork::OPS,
    listings: &[
        FunctionListings::single(&[l::KERNEL_CLONE]),
        FunctionListings::single(&[l::COPY_PROCESS]),
        FunctionListings::single(&[l::DUP_MM]),
        FunctionListings::single(&[l::DUP_MMAP]),
        FunctionListings::single(&[l::COPY_PAGE_RANGE]),
        FunctionListings::single(&[l::COPY_PTE_RANGE]),
        FunctionListings::single(&[l::DO_WP_PAGE]),
        FunctionListings::single(&[l::WP_PAGE_REUSE]),
        FunctionListings::single(&[l::WP_PAGE_COPY]),
    ],
    functions: FRAME_FUNCTIONS,
    views: &[ViewDef {
        id: "fork",
        title: "fork and copy-on-write",
        plots: &["cow_copies", "pgreuse"],
        state: None,
    }],
    ..Mechanism::EMPTY
};
