//! The one list that registers every mechanism: its frames (one variant per modelled
//! kernel function, dispatched here), its toggles, and the listings of its functions,
//! keyed by (function, variant) where the variant follows from the toggles.
//!
//! Adding a mechanism touches this file in two places: its frame variants in
//! `frames!` and its entry in [`MECHANISMS`].

use crate::core::{Flow, Ret};
use crate::engine::Sim;
use crate::patches::{Listing, ToggleSet};
use crate::topology::CpuId;
use crate::trace::Ev;

macro_rules! frames {
    ($( $(#[doc = $doc:literal])* $v:ident($t:ty) => $func:literal, )*) => {
        /// A modelled kernel function in progress: its locals and its program counter.
        #[derive(Clone, Debug)]
        pub enum Frame {
            /// The bottom of an idle task's or a kernel thread's stack: nothing to run.
            Idle,
            $( $(#[doc = $doc])* $v($t), )*
        }

        impl Frame {
            /// The kernel function this frame runs.
            pub fn function(&self) -> &'static str {
                match self {
                    Frame::Idle => "do_idle",
                    $( Frame::$v(_) => $func, )*
                }
            }

            /// Runs one line.
            pub fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
                match self {
                    Frame::Idle => (Ev::default(), Flow::Continue),
                    $( Frame::$v(f) => f.step(sim, cpu), )*
                }
            }
        }

        /// Every function a frame can run, for the listing-coverage test.
        pub const FRAME_FUNCTIONS: &[&str] = &[$($func,)*];
    };
}

frames! {
    /// A user thread in user mode (the base of its stack).
    User(crate::kernel::entry::UserMode) => "user code",
    /// `handle_pte_fault`.
    HandleMmFault(crate::mm::memory::HandleMmFault) => "handle_pte_fault",
    /// `do_anonymous_page`.
    DoAnonymousPage(crate::mm::memory::DoAnonymousPage) => "do_anonymous_page",
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
    /// `unmap_and_move`.
    UnmapAndMove(crate::mm::migrate::UnmapAndMove) => "unmap_and_move",
    /// `remove_migration_ptes`.
    RemoveMigrationPtes(crate::mm::migrate::RemoveMigrationPtes) => "remove_migration_ptes",
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

impl Frame {
    /// Whether the frame is an interrupt handler (pushed between two steps of whatever
    /// the CPU was running, not called by it).
    pub fn is_interrupt(&self) -> bool {
        matches!(self, Frame::FlushTlbFunc(_))
    }

    /// A callee returned `r` (or, for a user thread, it was woken).
    pub fn resume(&mut self, sim: &mut Sim, task: u16, r: Ret) {
        match self {
            Frame::User(f) => f.resume(sim, task, r),
            Frame::HandleMmFault(f) => f.resume(r),
            Frame::DoNumaPage(f) => f.resume(sim, r),
            Frame::NumaMigratePrep(f) => f.resume(r),
            Frame::ChangeProtNuma(f) => f.resume(r),
            Frame::MigrateMisplacedPage(f) => f.resume(sim, r),
            Frame::TryToUnmap(f) => f.resume(r),
            Frame::TryToUnmapOne(f) => f.resume(r),
            // These call nothing whose value they keep: the callee's return only lets
            // them run their next line.
            Frame::Idle
            | Frame::DoAnonymousPage(_)
            | Frame::MpolMisplaced(_)
            | Frame::TaskNumaFault(_)
            | Frame::TaskNumaWork(_)
            | Frame::ChangePteRange(_)
            | Frame::UnmapAndMove(_)
            | Frame::RemoveMigrationPtes(_)
            | Frame::PtepClearFlush(_)
            | Frame::FlushTlbMmRange(_)
            | Frame::FlushTlbFunc(_)
            | Frame::KernelClone(_)
            | Frame::CopyProcess(_)
            | Frame::DupMm(_)
            | Frame::DupMmap(_)
            | Frame::CopyPageRange(_)
            | Frame::CopyPteRange(_)
            | Frame::DoWpPage(_)
            | Frame::WpPageReuse(_)
            | Frame::WpPageCopy(_) => {}
        }
    }
}

/// The listings of one function: one per variant, and how toggles pick the variant.
#[derive(Clone, Copy, Debug)]
pub struct FunctionListings {
    /// Kernel function (as events name it).
    pub function: &'static str,
    /// Listings, one per variant.
    pub variants: &'static [Listing],
    /// Which variant a toggle set selects (an index into `variants`).
    pub select: fn(&ToggleSet) -> usize,
}

/// The only variant.
fn single(_: &ToggleSet) -> usize {
    0
}

/// A mechanism: what it brings to the engine, in one place.
#[derive(Clone, Copy, Debug)]
pub struct Mechanism {
    /// Id (web panels register under it).
    pub id: &'static str,
    /// What it models.
    pub title: &'static str,
    /// Its toggles (registry ids).
    pub toggles: &'static [&'static str],
    /// Its functions' listings.
    pub listings: &'static [FunctionListings],
}

use crate::listings as l;

/// Every mechanism.
pub const MECHANISMS: &[Mechanism] = &[
    Mechanism {
        id: "core",
        title: "User mode, the scheduler and x86 TLB shootdowns",
        toggles: &[],
        listings: &[
            FunctionListings {
                function: "user code",
                variants: &[l::USER_CODE],
                select: single,
            },
            FunctionListings {
                function: "mmu_walk",
                variants: &[l::MMU_WALK],
                select: single,
            },
            FunctionListings {
                function: "exit_to_user_mode",
                variants: &[l::EXIT_TO_USER_MODE],
                select: single,
            },
            FunctionListings {
                function: "do_exit",
                variants: &[l::DO_EXIT],
                select: single,
            },
            FunctionListings {
                function: "__schedule",
                variants: &[l::SCHEDULE],
                select: single,
            },
            FunctionListings {
                function: "scheduler_tick",
                variants: &[l::SCHEDULER_TICK],
                select: single,
            },
            FunctionListings {
                function: "hrtimer_wakeup",
                variants: &[l::HRTIMER_WAKEUP],
                select: single,
            },
            FunctionListings {
                function: "switch_mm_irqs_off",
                variants: &[l::SWITCH_MM_IRQS_OFF],
                select: single,
            },
            FunctionListings {
                function: "flush_tlb_mm_range",
                variants: &[l::FLUSH_TLB_MM_RANGE],
                select: single,
            },
            FunctionListings {
                function: "flush_tlb_func_remote",
                variants: &[l::FLUSH_TLB_FUNC_REMOTE],
                select: single,
            },
            FunctionListings {
                function: "handle_pte_fault",
                variants: &[l::HANDLE_PTE_FAULT],
                select: single,
            },
            FunctionListings {
                function: "do_anonymous_page",
                variants: &[l::DO_ANONYMOUS_PAGE],
                select: single,
            },
            FunctionListings {
                function: "try_to_unmap",
                variants: &[l::TRY_TO_UNMAP],
                select: single,
            },
            FunctionListings {
                function: "try_to_unmap_one",
                variants: &[l::TRY_TO_UNMAP_ONE],
                select: single,
            },
            FunctionListings {
                function: "ptep_clear_flush",
                variants: &[l::PTEP_CLEAR_FLUSH],
                select: single,
            },
            FunctionListings {
                function: "unmap_and_move",
                variants: &[l::UNMAP_AND_MOVE],
                select: single,
            },
            FunctionListings {
                function: "remove_migration_ptes",
                variants: &[l::REMOVE_MIGRATION_PTES],
                select: single,
            },
            FunctionListings {
                function: "load_balance",
                variants: &[l::LOAD_BALANCE],
                select: single,
            },
        ],
    },
    Mechanism {
        id: "fork",
        title: "fork() and copy-on-write: dup_mmap write-protects, the write fault copies or reuses",
        toggles: &[],
        listings: &[
            FunctionListings {
                function: "kernel_clone",
                variants: &[l::KERNEL_CLONE],
                select: single,
            },
            FunctionListings {
                function: "copy_process",
                variants: &[l::COPY_PROCESS],
                select: single,
            },
            FunctionListings {
                function: "dup_mm",
                variants: &[l::DUP_MM],
                select: single,
            },
            FunctionListings {
                function: "dup_mmap",
                variants: &[l::DUP_MMAP],
                select: single,
            },
            FunctionListings {
                function: "copy_page_range",
                variants: &[l::COPY_PAGE_RANGE],
                select: single,
            },
            FunctionListings {
                function: "copy_pte_range",
                variants: &[l::COPY_PTE_RANGE],
                select: single,
            },
            FunctionListings {
                function: "do_wp_page",
                variants: &[l::DO_WP_PAGE],
                select: single,
            },
            FunctionListings {
                function: "wp_page_reuse",
                variants: &[l::WP_PAGE_REUSE],
                select: single,
            },
            FunctionListings {
                function: "wp_page_copy",
                variants: &[l::WP_PAGE_COPY],
                select: single,
            },
        ],
    },
    Mechanism {
        id: "numa",
        title: "NUMA balancing: the scanner, hint faults and misplaced-page migration",
        toggles: &["numa_delay_map", "numa_skip_dirty_file"],
        listings: &[
            FunctionListings {
                function: "do_numa_page",
                variants: &[l::DO_NUMA_PAGE_V5_12, l::DO_NUMA_PAGE_V5_13],
                select: |t| usize::from(t.on(crate::patches::NUMA_DELAY_MAP)),
            },
            FunctionListings {
                function: "change_pte_range",
                variants: &[l::CHANGE_PTE_RANGE_V4_16, l::CHANGE_PTE_RANGE_V4_17],
                select: |t| usize::from(t.on(crate::patches::NUMA_SKIP_DIRTY_FILE)),
            },
            FunctionListings {
                function: "migrate_misplaced_page",
                variants: &[l::MIGRATE_MISPLACED_PAGE_V4_16, l::MIGRATE_MISPLACED_PAGE_V4_17],
                select: |t| usize::from(t.on(crate::patches::NUMA_SKIP_DIRTY_FILE)),
            },
            FunctionListings {
                function: "numa_migrate_prep",
                variants: &[l::NUMA_MIGRATE_PREP],
                select: single,
            },
            FunctionListings {
                function: "should_numa_migrate_memory",
                variants: &[l::SHOULD_NUMA_MIGRATE_MEMORY],
                select: single,
            },
            FunctionListings {
                function: "task_numa_fault",
                variants: &[l::TASK_NUMA_FAULT],
                select: single,
            },
            FunctionListings {
                function: "task_numa_work",
                variants: &[l::TASK_NUMA_WORK],
                select: single,
            },
            FunctionListings {
                function: "change_prot_numa",
                variants: &[l::CHANGE_PROT_NUMA],
                select: single,
            },
        ],
    },
];

/// Every function's listings, across mechanisms.
pub fn function_listings() -> impl Iterator<Item = &'static FunctionListings> {
    MECHANISMS.iter().flat_map(|m| m.listings.iter())
}

/// The listing of `function` that `toggles` select.
pub fn listing(function: &str, toggles: &ToggleSet) -> Option<&'static Listing> {
    function_listings()
        .find(|f| f.function == function)
        .and_then(|f| f.variants.get((f.select)(toggles)).or(f.variants.first()))
}

/// Every listing `toggles` select, one per function.
pub fn active_listings(toggles: &ToggleSet) -> Vec<&'static Listing> {
    function_listings().filter_map(|f| f.variants.get((f.select)(toggles))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_frame_function_has_a_listing() {
        for f in FRAME_FUNCTIONS {
            assert!(function_listings().any(|l| l.function == *f), "no listing for {f}");
        }
    }

    #[test]
    fn every_listing_is_named_after_its_function() {
        for f in function_listings() {
            for v in f.variants {
                assert_eq!(v.function, f.function);
            }
        }
    }

    #[test]
    fn the_frame_stays_small() {
        assert!(std::mem::size_of::<Frame>() <= 48, "{} bytes", std::mem::size_of::<Frame>());
    }
}
