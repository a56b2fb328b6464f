//! mremap and its TLB flushes: `sys_mremap` → `move_vma` → `move_page_tables` →
//! `move_ptes` under four flush regimes (v4.8 deferred, 5d1904204c99's dirty rule, Mel
//! Gorman's unmerged 2018 swap-cache rule, eb66ae030829's present rule) and
//! `LATENCY_LIMIT`, with `munmap`/`mmap` for benchmark loops and `access_old` for a
//! thread that still uses the old address (the stale-TLB race writeback exposes).

use crate::knobs::KnobKind;
use crate::listings as l;
use crate::patches::{ListingPair, Patch, ToggleKind};
use crate::registry::{FunctionListings, Mechanism, ViewDef};
use crate::scenario::{ArgDef, ArgKind, Op, OpDef, OpRun};

crate::frames! { Mremap;
    /// `sys_mremap`.
    SysMremap(crate::mm::mremap::SysMremap) => "sys_mremap",
    /// `move_vma`.
    MoveVma(crate::mm::mremap::MoveVma) => "move_vma",
    /// `move_page_tables`.
    MovePageTables(crate::mm::mremap::MovePageTables) => "move_page_tables",
    /// `move_ptes`.
    MovePtes(crate::mm::mremap::MovePtes) => "move_ptes",
    /// `do_munmap`.
    DoMunmap(crate::mm::mmap::DoMunmap) => "do_munmap",
    /// `do_mmap`.
    DoMmap(crate::mm::mmap::DoMmap) => "do_mmap",
}

crate::toggles! { Mremap;
    /// `mremap_flush`: when `move_ptes` flushes the old translations.
    MREMAP_FLUSH = Patch {
        id: "mremap_flush",
        kind: ToggleKind::Enum,
        title: "mremap: when move_ptes flushes the TLB (v4.8 deferred; 5d1904204c99 dirty; Mel Gorman's 2018 should_force_flush; eb66ae030829 present)",
        author: "Aaron Lu (5d1904204c99, found by Dave Hansen); Mel Gorman (2018 proposal, reviewed by Dave Hansen and Nadav Amit); Linus Torvalds (eb66ae030829, reported by Jann Horn)",
        date: "2016-11-10 / 2018-06-05 / 2018-10-12",
        commit: "5d1904204c99 (v4.9), not merged (2018), eb66ae030829 (v4.19)",
        version: "v4.9 / unmerged / v4.19",
        link: "https://git.kernel.org/torvalds/c/5d1904204c99 ; https://lore.kernel.org/lkml/20180605093419.ibelu5f3ixpavp3k@techsingularity.net/ ; https://git.kernel.org/torvalds/c/eb66ae030829 (CVE-2018-18281)",
        explanation: "mremap moves PTEs from the old address to the new one under the two PTE locks. \
            Up to v4.8 it flushed the old range once, after dropping every lock: in between, another CPU \
            could still store through a stale writable, dirty TLB entry for the old address while writeback's \
            page_mkclean, which only finds the new PTE, cleaned the page and wrote it out: the store was lost \
            (Aaron Lu's raceremap, fixed by 5d1904204c99 in v4.9: a present and dirty PTE forces a flush of the \
            extent before the old PTE lock is dropped). With LATENCY_LIMIT capping extents at 64 pages, a dirty \
            2 MiB region then costs 8 flushes instead of 1; a customer saw 30-50% less throughput. Mel Gorman's \
            2018 proposal exempted dirty anonymous pages that are not in the swap cache (no writeback can clean \
            them; a stale store lands in the same page); it was not merged (removing LATENCY_LIMIT in v4.18 \
            helped more), and v4.19's eb66ae030829 (CVE-2018-18281) flushes for every present PTE, before either \
            lock is dropped, because mremap does not own the page's lifetime: truncation or migration can free \
            a page found at the new address while the old translation survives.",
        functions: &["move_ptes", "move_page_tables"],
        history: &[("", "deferred"), ("v4.9", "dirty"), ("v4.19", "present")],
        enum_values: &["deferred", "dirty", "dirty_file_or_swapcache", "present"],
        default_index: 3,
        value_labels: &[
            "v4.8: one flush after all locks drop",
            "v4.9-v4.18: flush under the old PTL per extent with a dirty PTE",
            "2018 proposal (unmerged): only dirty file, locked or swap-cache pages",
            "v4.19+: flush before both PTLs drop for any present PTE",
        ],
        listings: &[
            ListingPair {
                before: l::MOVE_PTES_V4_8,
                after: l::MOVE_PTES_V4_19,
            },
            ListingPair {
                before: l::MOVE_PAGE_TABLES_V4_8,
                after: l::MOVE_PAGE_TABLES_V4_19,
            },
        ],
    },
    /// `mremap_latency_limit`: `move_ptes` extents capped at 64 pages (≤ v4.17).
    MREMAP_LATENCY_LIMIT = Patch {
        id: "mremap_latency_limit",
        kind: ToggleKind::Bool,
        title: "mremap: Remove LATENCY_LIMIT from mremap to reduce the number of TLB shootdowns (on = before it)",
        author: "Mel Gorman (acked by Vlastimil Babka and Michal Hocko)",
        date: "2018-06-07",
        commit: "37a4094e828f",
        version: "v4.18 removed it (on = v4.17 and earlier)",
        link: "https://git.kernel.org/torvalds/c/37a4094e828f",
        explanation: "move_page_tables used to cap each move_ptes call at LATENCY_LIMIT (64 pages) to bound \
            the PTE-lock hold time. It cost nothing while mremap flushed once at the end (v4.8), but after \
            5d1904204c99 every extent holding a dirty PTE flushes under the PTL, so a dirty 2 MiB region meant \
            8 full flushes with IPIs. v4.18 bounds extents by PMD boundaries only: up to 8 times fewer \
            shootdowns in the ideal case (Mel's mremap benchmark recovered most, not all, of the loss).",
        functions: &["get_extent"],
        history: &[("", "on"), ("v4.18", "off")],
        enum_values: &[],
        default_index: 0,
        value_labels: &["v4.18+: PMD-bounded extents", "v4.17 and earlier: 64-page extents"],
        listings: &[ListingPair {
            before: l::GET_EXTENT_V4_18,
            after: l::GET_EXTENT_V4_17,
        }],
    },
}

crate::counters! { Mremap;
    /// Model only: `mremap` system calls (each one, failed ones included).
    model MREMAP_CALLS => "mremap_calls",
    /// Model only: every `flush_tlb_range` mremap issues, whether or not an IPI was needed.
    model MREMAP_FLUSH_OPS => "mremap_flush_ops",
    /// Model only: flushes `move_ptes` forced under a PTL.
    model MREMAP_FLUSH_PTL => "mremap_flush_ptl",
    /// Model only: `move_page_tables`' final flush (`need_flush`).
    model MREMAP_FLUSH_DEFERRED => "mremap_flush_deferred",
    /// Model only: flushes `flush_tlb_batched_pending` did (reclaim's batched flushes; the
    /// model has no reclaim yet, so none).
    model MREMAP_FLUSH_BATCHED => "mremap_flush_batched",
    /// Model only: `tlb_finish_mmu` flushes of `munmap`.
    model MUNMAP_FLUSH_OPS => "munmap_flush_ops",
    /// Model only: PTEs `move_ptes` moved.
    model MREMAP_PTES_MOVED => "mremap_ptes_moved",
    /// Model only: `move_ptes` calls (extents).
    model MREMAP_EXTENTS => "mremap_extents",
    /// Model only: `mremap` calls that failed (EINVAL, EFAULT, ENOMEM).
    model MREMAP_EINVAL => "mremap_errors",
}

crate::costs! { Mremap;
    /// VMA work of an mremap, munmap or mmap apart from PTEs (`copy_vma`, `vma_to_resize`,
    /// VMA tree updates), per call.
    MREMAP_VMA_NS => "mremap_vma_ns" = 1500,
}

crate::knobs! { Mremap;
    /// Model only: a delay after each `move_ptes`, with the PTLs dropped and mmap_lock
    /// held, as Aaron Lu's race test injected (it used 2 s) to hold the window open.
    /// Default: none.
    // Kept in ns (scale 1000).
    MREMAP_DELAY_NS => "mremap_delay_us", KnobKind::Int { min: 1, max: 10_000_000, scale: 1_000 }, None,
}

/// Event kinds.
pub mod ev {
    crate::events! { Mremap;
        /// mremap, munmap or mmap VMA work (locks, copy_vma, do_munmap, zap).
        MREMAP => "mremap", Other,
        /// `move_page_tables` computed an extent.
        EXTENT => "mremap_extent", Other,
        /// `move_ptes` moved one PTE (with its flush decision).
        PTE_MOVE => "pte_move", Other,
        /// mremap or munmap issues a `flush_tlb_range`.
        MREMAP_FLUSH => "mremap_flush", Flush,
    }
}

/// mremap's workload operations.
pub const OPS: &[OpDef] = &[
    OpDef {
        name: "mremap",
        doc: "mremap(MREMAP_MAYMOVE|MREMAP_FIXED) of a whole VMA: to `to` if given, else back where it was before its last mremap (so repeated calls go back and forth), else to the lowest free PMD-aligned range.",
        args: &[
            ArgDef::required("vma", ArgKind::Vma, "Name of a VMA of this process."),
            ArgDef::optional(
                "to",
                ArgKind::Int { min: 0, max: 1 << 28 },
                -1,
                "New start, in pages above the first VMA's start (vpn 0x7f000); must not overlap a mapped VMA. Default: back and forth.",
            ),
        ],
        run: OpRun::Call {
            start: |a| crate::mm::mremap::SysMremap::frame(a[0] as u16, if a[1] > u64::from(u32::MAX) { crate::mm::mremap::NO_TO } else { a[1] as u32 }),
            says: "calls mremap()",
        },
    },
    OpDef {
        name: "munmap",
        doc: "munmap() of a whole VMA: its PTEs are zapped, the range flushed once, its anonymous pages freed.",
        args: &[ArgDef::required("vma", ArgKind::Vma, "Name of a VMA of this process.")],
        run: OpRun::Call {
            start: |a| crate::mm::mmap::DoMunmap::frame(a[0] as u16),
            says: "calls munmap()",
        },
    },
    OpDef {
        name: "mmap",
        doc: "mmap() a VMA that munmap removed again, empty, at the lowest free PMD-aligned range.",
        args: &[ArgDef::required("vma", ArgKind::Vma, "Name of a VMA of this process.")],
        run: OpRun::Call {
            start: |a| crate::mm::mmap::DoMmap::frame(a[0] as u16),
            says: "calls mmap()",
        },
    },
    OpDef {
        name: "access_old",
        doc: "Load or store one page at the address its VMA had before its last mremap: a thread still using the old pointer. It hits a stale TLB entry if one survives, else faults (SIGSEGV if nothing is mapped there).",
        args: &[
            ArgDef::required("vma", ArgKind::Vma, "Name of a VMA of this process."),
            ArgDef::required("page", ArgKind::Page, "Page index inside the VMA."),
            ArgDef::optional("write", ArgKind::Bool, 0, "Store instead of load."),
            ArgDef::optional("repeat", ArgKind::Int { min: 1, max: 1 << 32 }, 1, "How many times."),
        ],
        run: OpRun::User(|a| Op::Access {
            vma: a[0] as u16,
            page: a[1] as u32,
            write: a[2] != 0,
            repeat: a[3] as u32,
            old: true,
        }),
    },
];

/// mremap's declaration.
pub const MECHANISM: Mechanism = Mechanism {
    id: "mremap",
    title: "mremap: moving PTEs under two PTLs, and when the old translations are flushed",
    toggles: TOGGLES,
    counters: COUNTERS,
    costs: COSTS,
    knobs: KNOBS,
    events: ev::EVENTS,
    ops: OPS,
    listings: &[
        FunctionListings {
            function: "move_ptes",
            variants: &[l::MOVE_PTES_V4_8, l::MOVE_PTES_V4_9, l::MOVE_PTES_2018, l::MOVE_PTES_V4_19],
            select: |t| t.index(MREMAP_FLUSH),
        },
        FunctionListings {
            function: "move_page_tables",
            variants: &[
                l::MOVE_PAGE_TABLES_V4_8,
                l::MOVE_PAGE_TABLES_V4_9,
                l::MOVE_PAGE_TABLES_2018,
                l::MOVE_PAGE_TABLES_V4_19,
            ],
            select: |t| t.index(MREMAP_FLUSH),
        },
        FunctionListings {
            function: "get_extent",
            variants: &[l::GET_EXTENT_V4_18, l::GET_EXTENT_V4_17],
            select: |t| usize::from(t.on(MREMAP_LATENCY_LIMIT)),
        },
        FunctionListings::single(&[l::SYS_MREMAP]),
        FunctionListings::single(&[l::MOVE_VMA]),
        FunctionListings::single(&[l::DO_MUNMAP]),
        FunctionListings::single(&[l::DO_MMAP]),
    ],
    functions: FRAME_FUNCTIONS,
    task_work: None,
    kthreads: &[],
    presets: &[crate::patches::PresetDef {
        name: "mremap_2018",
        doc: "v4.17 with Mel Gorman's unmerged \"mremap: Avoid TLB flushing anonymous pages that are not in swap cache\" (June 2018)",
        kernel: Some("v4.17"),
        set: &[("mremap_flush", "dirty_file_or_swapcache")],
    }],
    metrics: &[crate::registry::MetricDef {
        name: "mremap_calls_per_s",
        doc: "mremap calls per simulated second (over the window when `window_ms` is set).",
        value: |sim| {
            let t = crate::mech::core::run_time_ns(sim);
            (t > 0).then(|| sim.st.counters.get(MREMAP_CALLS) as f64 * 1e9 / t as f64)
        },
    }],
    invariants: &[],
    views: &[ViewDef {
        id: "mremap",
        title: "mremap",
        // Its own counters only: a view naming core counters would take over the plots of
        // every scenario in which they move (the lab prefers the last-registered view).
        plots: &["mremap_calls", "mremap_flush_ops", "mremap_flush_ptl", "mremap_flush_deferred"],
        state: None,
    }],
};
