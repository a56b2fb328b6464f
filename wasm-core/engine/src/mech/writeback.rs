//! Writeback: the flusher kernel thread cleans dirty file pages (`page_mkclean`) and
//! writes them to the file, the first user of the engine's kernel threads. Pages carry a
//! content version that user stores bump, and files a backing store, so a store that
//! never reaches the file is detected (`lost_writes`) when its page is dropped.
//! mremap's race (5d1904204c99) and NUMA's dirty-file skip build on it.

use crate::kernel::kthread::KthreadDef;
use crate::knobs::KnobKind;
use crate::listings as l;
use crate::machine::KthreadKind;
use crate::registry::{FunctionListings, Mechanism, ViewDef};

crate::frames! { Writeback;
    /// `wb_workfn` → `write_cache_pages`.
    WbWorkfn(crate::mm::page_writeback::WbWorkfn) => "wb_workfn",
    /// `clear_page_dirty_for_io`.
    ClearPageDirtyForIo(crate::mm::page_writeback::ClearPageDirtyForIo) => "clear_page_dirty_for_io",
    /// `page_mkclean`.
    PageMkclean(crate::mm::page_writeback::PageMkclean) => "page_mkclean",
    /// `page_mkclean_one`.
    PageMkcleanOne(crate::mm::page_writeback::PageMkcleanOne) => "page_mkclean_one",
    /// `wakeup_flusher_threads`.
    WakeupFlusherThreads(crate::mm::page_writeback::WakeupFlusherThreads) => "wakeup_flusher_threads",
    /// `invalidate_mapping_pages`.
    InvalidateMappingPages(crate::mm::truncate::InvalidateMappingPages) => "invalidate_mapping_pages",
}

crate::counters! { Writeback;
    /// `nr_dirtied`: file pages that became dirty (`account_page_dirtied`), from a store
    /// through a page walk (pages that start dirty are not counted).
    kernel NR_DIRTIED => "nr_dirtied",
    /// `nr_written`: pages whose write-out completed (`test_clear_page_writeback`).
    kernel NR_WRITTEN => "nr_written",
    /// Model only: PTEs `page_mkclean_one` write-protected and cleaned.
    model PAGES_CLEANED => "mkclean_ptes",
    /// Model only: clean pages `invalidate_mapping_pages` dropped from the page cache.
    model PAGES_INVALIDATED => "pages_invalidated",
    /// Model only: user accesses through a TLB entry the page table no longer has (the
    /// PTE is gone or maps another frame): a stale-TLB window a regime allows, a finding.
    model STALE_TLB_ACCESSES => "stale_tlb_accesses",
    /// Model only: the stores among `stale_tlb_accesses`.
    model STALE_TLB_STORES => "stale_tlb_stores",
    /// Model only: clean pages dropped while holding content the file never got: a store
    /// after `page_mkclean` that did not dirty the page (detected, not asserted).
    model LOST_WRITES => "lost_writes",
    /// Model only: file pages the run ends with that hold data the file never got and that
    /// nothing will write (clean, unmapped, not under writeback): lost writes that reclaim
    /// or `FADV_DONTNEED` would make, counted at the run's last step.
    model LATENT_LOST_WRITES => "latent_lost_writes",
}

crate::costs! { Writeback;
    /// Submitting one page's write I/O (the flusher's CPU time; the I/O completes at once).
    WRITEOUT_NS => "writeout_ns" = 2000,
}

crate::knobs! { Writeback;
    /// `vm.dirty_writeback_centisecs`: periodic writeback. When set, the first dirtying of
    /// a file page wakes the flusher, which then wakes this often while anything is dirty
    /// and writes back the files dirty for `dirty_expire_centisecs` or longer. Default:
    /// unset (only `wakeup_flusher` operations wake it, and write every file; the kernel's
    /// default is 500).
    // Kept in ns (scale 10,000,000).
    DIRTY_WRITEBACK_NS => "dirty_writeback_centisecs", KnobKind::Int { min: 1, max: 360_000, scale: 10_000_000 }, None,
    /// `vm.dirty_expire_centisecs` (default 3000, the kernel's): a periodic pass
    /// (`wb_check_old_data_flush`, `for_kupdate`) writes only the files that became dirty at
    /// least this long ago (`inode->dirtied_when`); a file still dirty after its pass keeps
    /// its time and is written again at the next pass. Writeback woken by
    /// `wakeup_flusher` writes every file.
    // Kept in ns (scale 10,000,000).
    DIRTY_EXPIRE_NS => "dirty_expire_centisecs", KnobKind::Int { min: 0, max: 360_000, scale: 10_000_000 }, Some(3000),
}

/// Event kinds.
pub mod ev {
    crate::events! { Writeback;
        /// The flusher picks, cleans or finishes a page.
        WRITEBACK => "writeback", Other,
        /// A page's content is written to the file.
        WRITEOUT => "writeout", Other,
        /// `page_mkclean_one` write-protected and cleaned a PTE.
        MKCLEAN => "mkclean", Flush,
        /// `invalidate_mapping_pages` looked at a page.
        INVALIDATE => "invalidate", Alloc,
        /// A lost write was detected (a finding).
        LOST_WRITE => "lost_write", Other,
    }
}

/// Writeback's declaration.
pub const MECHANISM: Mechanism = Mechanism {
    id: "writeback",
    title: "Writeback: the flusher cleans dirty file pages (page_mkclean) and writes them to the file",
    counters: COUNTERS,
    costs: COSTS,
    knobs: KNOBS,
    events: ev::EVENTS,
    ops: crate::mm::page_writeback::OPS,
    listings: &[
        FunctionListings::single(&[l::WB_WORKFN]),
        FunctionListings::single(&[l::CLEAR_PAGE_DIRTY_FOR_IO]),
        FunctionListings::single(&[l::PAGE_MKCLEAN]),
        FunctionListings::single(&[l::PAGE_MKCLEAN_ONE]),
        FunctionListings::single(&[l::WAKEUP_FLUSHER_THREADS]),
        FunctionListings::single(&[l::INVALIDATE_MAPPING_PAGES]),
    ],
    functions: FRAME_FUNCTIONS,
    setup: Some(crate::mm::page_writeback::dirty_at_start),
    kthreads: &[KthreadDef {
        kind: KthreadKind::Flusher,
        work: crate::mm::page_writeback::flusher_work,
    }],
    views: &[ViewDef {
        id: "writeback",
        title: "Writeback",
        plots: &["nr_dirtied", "nr_written", "mkclean_ptes", "lost_writes"],
        state: None,
    }],
    ..Mechanism::EMPTY
};
