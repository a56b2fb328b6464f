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
        link: "https://git.kernel.org/torvalds/c/5d1904204c99 ; https://lore.kernel.org/r/20180605171319.uc5jxdkxopio6kg3@techsingularity.net ; https://git.kernel.org/torvalds/c/eb66ae030829 (CVE-2018-18281)",
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
    /// `mremap_pmd_extents`: `move_page_tables` extents bounded by PMD boundaries only
    /// (v4.18, LATENCY_LIMIT removed); off = capped at 64 pages (≤ v4.17). It replaces the
    /// released `mremap_latency_limit`, whose `on` meant before the patch (`patches::RENAMED`).
    MREMAP_PMD_EXTENTS = Patch {
        id: "mremap_pmd_extents",
        kind: ToggleKind::Bool,
        title: "mremap: Remove LATENCY_LIMIT from mremap to reduce the number of TLB shootdowns",
        author: "Mel Gorman (acked by Vlastimil Babka and Michal Hocko)",
        date: "2018-06-07",
        commit: "37a4094e828f",
        version: "v4.18",
        link: "https://git.kernel.org/torvalds/c/37a4094e828f",
        explanation: "move_page_tables used to cap each move_ptes call at LATENCY_LIMIT (64 pages) to bound \
            the PTE-lock hold time. It cost nothing while mremap flushed once at the end (v4.8), but after \
            5d1904204c99 every extent holding a dirty PTE flushes under the PTL, so a dirty 2 MiB region meant \
            8 full flushes with IPIs. v4.18 bounds extents by PMD boundaries only: up to 8 times fewer \
            shootdowns in the ideal case (Mel's mremap benchmark recovered most, not all, of the loss). \
            On = the patch applied (v4.18+); this toggle was `mremap_latency_limit`, whose on meant \
            before the patch: links and scenarios with the old id still open, its value inverted.",
        functions: &["get_extent"],
        history: &[],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v4.17 and earlier: 64-page extents (LATENCY_LIMIT)", "v4.18+: PMD-bounded extents"],
        listings: &[ListingPair {
            before: l::GET_EXTENT_V4_17,
            after: l::GET_EXTENT_V4_18,
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
    /// Model only: `tlb_finish_mmu` flushes of `move_vma`'s `do_munmap` of the old range,
    /// for the PTE table `free_pgtables` freed (counted in `mremap_flush_ops` too).
    model MREMAP_FLUSH_FREE_PGTABLES => "mremap_flush_free_pgtables",
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
        doc: "mremap(MREMAP_MAYMOVE|MREMAP_FIXED) of a whole VMA: to `to` if given, else back where it was before its last mremap (so repeated calls go back and forth), else to the lowest free PMD-aligned range (plus `offset` pages).",
        args: &[
            ArgDef::required("vma", ArgKind::Vma, "Name of a VMA of this process."),
            ArgDef::optional(
                "to",
                ArgKind::Int { min: 0, max: 1 << 28 },
                -1,
                "New start, in pages above the first VMA's start (vpn 0x7f000); must not overlap a mapped VMA. Default: back and forth.",
            ),
            ArgDef::optional(
                "offset",
                ArgKind::Int { min: 0, max: 511 },
                0,
                "Without `to`, when the VMA goes to a free range: start it this many pages past a PMD boundary (0: PMD-aligned, the ideal case; the kernel places mappings page-aligned).",
            ),
        ],
        run: OpRun::Call {
            start: |a| {
                let to = if a[1] > u64::from(u32::MAX) { crate::mm::mremap::NO_TO } else { a[1] as u32 };
                crate::mm::mremap::SysMremap::frame(a[0] as u16, to, a[2] as u16)
            },
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
            variants: &[l::GET_EXTENT_V4_17, l::GET_EXTENT_V4_18],
            select: |t| usize::from(t.on(MREMAP_PMD_EXTENTS)),
        },
        FunctionListings::single(&[l::SYS_MREMAP]),
        FunctionListings::single(&[l::MOVE_VMA]),
        FunctionListings::single(&[l::DO_MUNMAP]),
        FunctionListings::single(&[l::DO_MMAP]),
    ],
    functions: FRAME_FUNCTIONS,
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
    views: &[ViewDef {
        id: "mremap",
        title: "mremap",
        // Its own counters only: a view naming core counters would take over the plots of
        // every scenario in which they move (the lab prefers the last-registered view).
        plots: &[
            "mremap_calls",
            "mremap_flush_ops",
            "mremap_flush_ptl",
            "mremap_flush_deferred",
            "mremap_flush_free_pgtables",
        ],
        state: Some(view_state),
    }],
    ..Mechanism::EMPTY
};

/// Moves the panel draws at most (the others are counted in `hidden`).
pub const VIEW_MAX_MOVES: usize = 4;
/// PTE cells per range at most: a longer range is drawn with several pages per cell.
pub const VIEW_MAX_CELLS: u32 = 64;
/// CPUs named per cell, per lock's waiters, at most (the rest are counted).
pub const VIEW_MAX_NAMES: usize = 8;

/// What the mremap panel draws at the current step (`ViewDef::state`): the mremaps under
/// way, or the last one of each moved VMA, with both ranges' PTEs, the locks, the flush in
/// progress and the CPUs whose TLB still holds an old translation. Built from the
/// [`Sim`] alone, so it is right at any step the lab seeks to.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MremapView {
    /// The `mremap_flush` regime in effect.
    pub regime: String,
    /// Whether `LATENCY_LIMIT` caps extents at 64 pages.
    pub latency_limit: bool,
    /// The moves drawn: calls under way first, then VMAs an earlier call moved.
    pub moves: Vec<MremapMoveView>,
    /// Moves left out (more than [`VIEW_MAX_MOVES`]).
    pub hidden: u32,
    /// CPUs holding at least one stale translation of a drawn move's old range.
    pub stale_cpus: Vec<MremapStaleCpuView>,
}

/// One mremap: the old and new ranges of a VMA.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MremapMoveView {
    /// Pid of the process.
    pub pid: u16,
    /// Index of the VMA in the process (the summary names it).
    pub vma: u16,
    /// Anonymous (false) or file-backed.
    pub file: bool,
    /// The call is under way (else: the VMA's last move, done).
    pub active: bool,
    /// Thread making the call ("pid/tid"), when under way.
    pub caller: Option<String>,
    /// Its CPU, when under way.
    pub cpu: Option<u16>,
    /// Where the call is: "mmap_lock" (waiting for it), "locked" (arguments checked),
    /// "copy_vma", "move_page_tables", "move_ptes", "flush", "do_munmap", "return", or
    /// "done" (an earlier call).
    pub phase: String,
    /// Old range's first vpn.
    pub old_start: u32,
    /// New range's first vpn (None while `sys_mremap` waits for mmap_lock).
    pub new_start: Option<u32>,
    /// Pages.
    pub pages: u32,
    /// Pages `move_page_tables` is done with (extents finished, plus the current extent's
    /// PTEs looked at so far).
    pub moved: u32,
    /// The extent `move_ptes` is moving, when it runs.
    pub extent: Option<MremapExtentView>,
    /// `need_flush`: the deferred flush of the whole old range is pending.
    pub need_flush: bool,
    /// A `flush_tlb_range` of this call under way: "ptl" (forced in `move_ptes`) or
    /// "deferred" (`move_page_tables`' final flush).
    pub flushing: Option<String>,
    /// `mmap_lock` of the mm.
    pub mmap_lock: MremapLockView,
    /// The old PTE table's lock (of the current extent, else of the old start).
    pub old_ptl: MremapLockView,
    /// The new PTE table's lock (None until the new range is known).
    pub new_ptl: Option<MremapLockView>,
    /// Pages per cell in `old_cells` and `new_cells` (1 unless the range is longer than
    /// [`VIEW_MAX_CELLS`] pages).
    pub pages_per_cell: u32,
    /// The old range's PTEs, cell by cell.
    pub old_cells: Vec<MremapCellView>,
    /// The new range's PTEs, cell by cell (empty until the new range is known).
    pub new_cells: Vec<MremapCellView>,
}

/// The extent `move_ptes` is moving.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MremapExtentView {
    /// Offset of its first page in the range.
    pub offset: u32,
    /// Pages.
    pub pages: u32,
    /// PTEs looked at so far.
    pub done: u32,
    /// `force_flush`: a PTE of it forced a flush under the PTL.
    pub force: bool,
}

/// A lock: who holds it and who waits.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MremapLockView {
    /// Holder ("pid/tid" or kernel thread) and its CPU.
    pub holder: Option<String>,
    /// Holder's CPU.
    pub holder_cpu: Option<u16>,
    /// Waiters (sleeping tasks, then spinning CPUs as "CPU n"), at most [`VIEW_MAX_NAMES`].
    pub waiters: Vec<String>,
    /// All waiters.
    pub nr_waiters: u32,
}

/// One cell: one PTE, or several when the range is long.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MremapCellView {
    /// First vpn.
    pub vpn: u32,
    /// Pages in the cell.
    pub pages: u32,
    /// Present PTEs.
    pub present: u32,
    /// Dirty PTEs.
    pub dirty: u32,
    /// The pfn when the cell is one present PTE.
    pub pfn: Option<u32>,
    /// Old side: CPUs whose TLB still maps a page of the cell to a frame the PTE no
    /// longer gives (at most [`VIEW_MAX_NAMES`]).
    pub stale: Vec<u16>,
    /// Old side: all such CPUs.
    pub nr_stale: u32,
    /// New side: `move_ptes`' decision for the cell's PTEs moved in the current extent
    /// (re-derived from the PTE as it is now; the strongest of the cell): see
    /// [`crate::mm::mremap::Decision`]; None outside the current extent.
    pub decision: Option<String>,
}

/// A CPU whose TLB still holds old translations.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MremapStaleCpuView {
    /// CPU.
    pub cpu: u16,
    /// Stale entries (of the drawn moves' old ranges).
    pub entries: u32,
    /// Among them, writable and dirty ones: a store through them modifies the page
    /// without a fault.
    pub dirty: u32,
    /// Shootdown IPIs waiting in its inbox.
    pub ipis_pending: u32,
}

/// The panel's name for a decision.
fn decision_id(d: crate::mm::mremap::Decision) -> &'static str {
    use crate::mm::mremap::Decision as D;
    match d {
        D::Deferred => "deferred",
        D::NotDirty => "not-dirty",
        D::NotPresent => "not-present",
        D::ForceDirty => "force-dirty",
        D::ForcePresent => "force-present",
        D::ForceFile => "force-file",
        D::ForceLocked => "force-locked",
        D::ForceSwapcache => "force-swapcache",
        D::AnonNotSwapcache => "anon-not-swapcache",
    }
}

/// Who holds lock `id` and who waits for it.
fn lock_view(sim: &crate::engine::Sim, id: crate::core::LockId) -> MremapLockView {
    let st = &sim.st;
    let holder_cpu = st.locks.holder(id);
    let mut waiters: Vec<String> = st.locks.queue(id).map(|t| crate::view::task_label(st, t)).collect();
    waiters.extend(
        st.cpus
            .iter()
            .filter(|c| c.wait == crate::machine::Wait::Lock(id))
            .map(|c| format!("CPU {}", c.id)),
    );
    let nr_waiters = waiters.len() as u32;
    waiters.truncate(VIEW_MAX_NAMES);
    MremapLockView {
        holder: holder_cpu.map(|c| crate::view::task_label(st, st.cpus[c as usize].curr)),
        holder_cpu,
        waiters,
        nr_waiters,
    }
}

/// Whether CPU `c` may still use its TLB entries of mm `mm`: it has `mm` loaded, and is
/// not a lazy CPU that missed a flush (it flushes when it switches back: `tlb_gen`). A
/// CPU that switched to another mm drops `mm`'s entries when it loads `mm` again.
fn uses_tlb_of(sim: &crate::engine::Sim, c: &crate::machine::Cpu, mm: u16) -> bool {
    c.loaded_mm == Some(mm) && !(c.lazy && c.seen_gen < sim.st.mms[mm as usize].tlb_gen)
}

/// The cells of `[start, start + pages)` of mm `mm`. Old side (`old`): stale CPUs;
/// new side: decisions for offsets in `decide` (relative to `start`).
fn cells(sim: &crate::engine::Sim, mm: u16, start: u32, pages: u32, old: bool, decide: Option<(u32, u32)>) -> (u32, Vec<MremapCellView>) {
    use crate::mm::mremap::{Decision, Regime};
    let st = &sim.st;
    let m = &st.mms[mm as usize];
    let per = pages.div_ceil(VIEW_MAX_CELLS).max(1);
    let regime = Regime::of(sim);
    let mut out = Vec::with_capacity(pages.div_ceil(per) as usize);
    let mut first = 0;
    while first < pages {
        let n = per.min(pages - first);
        let vpn = start + first;
        let (mut present, mut dirty, mut pfn) = (0, 0, None);
        let mut decision: Option<Decision> = None;
        for off in first..first + n {
            let pte = m.pte(start + off);
            if pte.is_none() {
                continue;
            }
            if pte.hw_present() {
                present += 1;
                pfn = Some(pte.pfn());
            }
            dirty += u32::from(pte.dirty());
            if decide.is_some_and(|(a, b)| off >= a && off < b) {
                let d = Decision::of(regime, pte, st.frames.get(pte.pfn()));
                // The strongest: a forcing decision over a deferring one.
                if decision.is_none_or(|e| d.force() && !e.force()) {
                    decision = Some(d);
                }
            }
        }
        let mut stale = Vec::new();
        if old {
            for c in st.cpus.iter().filter(|c| uses_tlb_of(sim, c, mm)) {
                let holds = c.tlb.entries().any(|e| {
                    e.mm == mm && e.vpn >= vpn && e.vpn < vpn + n && {
                        let pte = m.pte(e.vpn);
                        !(pte.hw_present() && pte.pfn() == e.pfn)
                    }
                });
                if holds {
                    stale.push(c.id);
                }
            }
        }
        let nr_stale = stale.len() as u32;
        stale.truncate(VIEW_MAX_NAMES);
        out.push(MremapCellView {
            vpn,
            pages: n,
            present,
            dirty,
            pfn: pfn.filter(|_| n == 1),
            stale,
            nr_stale,
            decision: decision.map(|d| decision_id(d).to_string()),
        });
        first += n;
    }
    (per, out)
}

/// The mremap panel's state at `sim`'s current step (see [`MremapView`]); None when no
/// mremap is under way and no VMA has moved.
pub fn view_state(sim: &crate::engine::Sim) -> Option<serde_json::Value> {
    serde_json::to_value(mremap_view(sim)?).ok()
}

/// Builds [`MremapView`].
pub fn mremap_view(sim: &crate::engine::Sim) -> Option<MremapView> {
    use crate::mm::mremap::{mmap_lock, Regime};
    use crate::registry::Frame;
    let st = &sim.st;
    let mut moves = Vec::new();
    let mut hidden = 0u32;
    // (mm, VMA, new start) of each call under way.
    let mut busy: Vec<(u16, u16, Option<u32>)> = Vec::new();
    // (mm, old start, pages) of each drawn move.
    let mut olds: Vec<(u16, u32, u32)> = Vec::new();
    // Calls under way: a `sys_mremap` frame on a user thread's stack.
    for (t, stack) in st.stacks.iter().enumerate() {
        let Some(mm) = st.tasks[t].mm() else { continue };
        let mut call = None;
        let (mut mpt, mut mpte, mut flush, mut phase) = (None, None, false, "mmap_lock");
        for f in stack.iter() {
            match f {
                Frame::Mremap(Frames::SysMremap(s)) => {
                    call = Some(*s);
                    phase = if s.new_start().is_some() { "locked" } else { "mmap_lock" };
                }
                Frame::Mremap(Frames::MoveVma(m)) if call.is_some() => phase = m.next(),
                Frame::Mremap(Frames::MovePageTables(p)) if call.is_some() => {
                    mpt = Some(p.progress());
                    phase = "move_page_tables";
                }
                Frame::Mremap(Frames::MovePtes(p)) if call.is_some() => {
                    mpte = Some(p.progress());
                    phase = "move_ptes";
                }
                f if call.is_some() && f.function() == "flush_tlb_mm_range" => flush = true,
                _ => {}
            }
        }
        let Some(call) = call else { continue };
        let vi = call.vma();
        busy.push((mm, vi, call.new_start()));
        if moves.len() >= VIEW_MAX_MOVES {
            hidden += 1;
            continue;
        }
        let v = &st.mms[mm as usize].vmas[vi as usize];
        let new_start = call.new_start();
        // After move_vma's do_munmap the VMA sits at the new address and `prev` is the old.
        let unmapped = new_start.is_some_and(|n| v.start == n);
        let (old_start, pages) = if unmapped { (v.prev.0, v.prev.1) } else { (v.start, v.pages) };
        if phase == "locked" && unmapped {
            phase = "return";
        }
        let (moved, need_flush) = match mpt {
            Some((_, _, _, done, nf)) => (done, nf),
            None if unmapped || phase == "do_munmap" => (pages, false),
            None => (0, false),
        };
        let extent = mpte.map(|(o, _, n, i, force)| MremapExtentView {
            offset: o - old_start,
            pages: n,
            done: i,
            force,
        });
        let moved = match &extent {
            Some(e) => moved - e.pages + e.done,
            None => moved,
        };
        let flushing = flush.then(|| if mpte.is_some() { "ptl" } else { "deferred" }.to_string());
        if flush {
            phase = "flush";
        }
        let (ptl_old, ptl_new) = match &extent {
            Some(e) => (old_start + e.offset, new_start.map(|n| n + e.offset)),
            None => (old_start, new_start),
        };
        let decide = extent.as_ref().map(|e| (e.offset, e.offset + e.done));
        olds.push((mm, old_start, pages));
        let (per, old_cells) = cells(sim, mm, old_start, pages, true, None);
        let new_cells = new_start.map_or_else(Vec::new, |n| cells(sim, mm, n, pages, false, decide).1);
        moves.push(MremapMoveView {
            pid: st.mms[mm as usize].pid,
            vma: vi,
            file: v.kind == crate::scenario::VmaKind::File,
            active: true,
            caller: Some(crate::view::task_label(st, t as u16)),
            cpu: Some(st.tasks[t].cpu),
            phase: phase.to_string(),
            old_start,
            new_start,
            pages,
            moved,
            extent,
            need_flush,
            flushing,
            mmap_lock: lock_view(sim, mmap_lock(mm)),
            old_ptl: lock_view(sim, crate::core::LockId::ptl(mm, ptl_old)),
            new_ptl: ptl_new.map(|n| lock_view(sim, crate::core::LockId::ptl(mm, n))),
            pages_per_cell: per,
            old_cells,
            new_cells,
        });
    }
    // VMAs an earlier call moved (and still mapped, at the same length; munmap and mmap
    // also leave `prev` behind, so a run without an mremap call has none).
    let any_call = st.counters.get(MREMAP_CALLS) > 0;
    for (mm, m) in st.mms.iter().enumerate().filter(|_| any_call) {
        let mm = mm as u16;
        for (vi, v) in m.vmas.iter().enumerate() {
            let vi = vi as u16;
            // Not moved, or under way, or the copy copy_vma made for a call under way.
            if v.pages == 0
                || v.prev.0 == v.start
                || v.prev.1 != v.pages
                || busy.iter().any(|&(bm, bv, new)| bm == mm && (bv == vi || new == Some(v.start)))
            {
                continue;
            }
            if moves.len() >= VIEW_MAX_MOVES {
                hidden += 1;
                continue;
            }
            let (per, old_cells) = cells(sim, mm, v.prev.0, v.pages, true, None);
            olds.push((mm, v.prev.0, v.pages));
            moves.push(MremapMoveView {
                pid: m.pid,
                vma: vi,
                file: v.kind == crate::scenario::VmaKind::File,
                active: false,
                caller: None,
                cpu: None,
                phase: "done".into(),
                old_start: v.prev.0,
                new_start: Some(v.start),
                pages: v.pages,
                moved: v.pages,
                extent: None,
                need_flush: false,
                flushing: None,
                mmap_lock: lock_view(sim, mmap_lock(mm)),
                old_ptl: lock_view(sim, crate::core::LockId::ptl(mm, v.prev.0)),
                new_ptl: Some(lock_view(sim, crate::core::LockId::ptl(mm, v.start))),
                pages_per_cell: per,
                old_cells,
                new_cells: cells(sim, mm, v.start, v.pages, false, None).1,
            });
        }
    }
    if moves.is_empty() {
        return None;
    }
    let mut stale_cpus = Vec::new();
    for c in &st.cpus {
        let (mut entries, mut dirty) = (0, 0);
        for e in c.tlb.entries() {
            if !olds
                .iter()
                .any(|&(mm, old, pages)| e.mm == mm && e.vpn >= old && e.vpn < old + pages)
                || !uses_tlb_of(sim, c, e.mm)
            {
                continue;
            }
            let pte = st.mms[e.mm as usize].pte(e.vpn);
            if !(pte.hw_present() && pte.pfn() == e.pfn) {
                entries += 1;
                dirty += u32::from(e.write && e.dirty);
            }
        }
        if entries > 0 {
            stale_cpus.push(MremapStaleCpuView {
                cpu: c.id,
                entries,
                dirty,
                ipis_pending: c.inbox.len() as u32,
            });
        }
    }
    Some(MremapView {
        regime: match Regime::of(sim) {
            Regime::Deferred => "deferred",
            Regime::Dirty => "dirty",
            Regime::DirtyFileOrSwapcache => "dirty_file_or_swapcache",
            Regime::Present => "present",
        }
        .to_string(),
        latency_limit: !sim.cfg.toggles.on(MREMAP_PMD_EXTENTS),
        moves,
        hidden,
        stale_cpus,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulation::Simulation;

    fn at(id: &str, toggles: &[(&str, &str)], step: u64) -> Simulation {
        let b = crate::builtin::find(id).unwrap();
        let t: Vec<(String, String)> = toggles.iter().map(|&(a, b)| (a.into(), b.into())).collect();
        let mut sim = Simulation::new(b.text, &t, &[]).unwrap();
        sim.seek(step).unwrap();
        sim
    }

    #[test]
    fn mid_move_of_mremap_101_shows_both_ptls_held_and_the_forced_decisions() {
        // Step 20 (v4.19): two of the four PTEs are moved, under both PTLs, no flush yet.
        let sim = at("mremap-101", &[], 20);
        let v = mremap_view(sim.sim()).unwrap();
        assert_eq!((v.regime.as_str(), v.latency_limit, v.hidden), ("present", false, 0));
        let m = &v.moves[0];
        assert_eq!((m.pid, m.vma, m.file, m.active, m.phase.as_str()), (1, 0, false, true, "move_ptes"));
        assert_eq!((m.old_start, m.new_start, m.pages, m.moved), (0x7f000, Some(0x7f400), 4, 2));
        let e = m.extent.as_ref().unwrap();
        assert_eq!((e.offset, e.pages, e.done, e.force), (0, 4, 2, true));
        for l in [&m.mmap_lock, &m.old_ptl, m.new_ptl.as_ref().unwrap()] {
            assert_eq!((l.holder.as_deref(), l.holder_cpu, l.nr_waiters), (Some("1/0"), Some(0), 0));
        }
        let present: Vec<u32> = m.old_cells.iter().map(|c| c.present).collect();
        assert_eq!(present, [0, 0, 1, 1]);
        let decisions: Vec<Option<&str>> = m.new_cells.iter().map(|c| c.decision.as_deref()).collect();
        assert_eq!(decisions, [Some("force-present"), Some("force-present"), None, None]);
        // CPU 0 stored to every page: it still caches the two moved PTEs' old translations.
        assert_eq!(
            m.old_cells.iter().map(|c| c.stale.clone()).collect::<Vec<_>>(),
            [vec![0], vec![0], vec![], vec![]]
        );
        assert_eq!(
            v.stale_cpus.iter().map(|c| (c.cpu, c.entries, c.dirty)).collect::<Vec<_>>(),
            [(0, 2, 2)]
        );
        // Before the first mremap there is nothing to draw.
        assert!(mremap_view(at("mremap-101", &[], 5).sim()).is_none());
    }

    /// Every step's view of a run.
    fn views(id: &str, regime: &str) -> Vec<Option<MremapView>> {
        let mut sim = at(id, &[("mremap_flush", regime)], 0);
        (0..=sim.total_steps())
            .map(|s| {
                sim.seek(s).unwrap();
                mremap_view(sim.sim())
            })
            .collect()
    }

    #[test]
    fn the_race_shows_the_stale_window_and_each_regime_decision() {
        // v4.8: the mover defers; CPU 0 keeps a writable, dirty translation of the old address.
        let deferred = views("mremap-race-101", "deferred");
        assert!(deferred
            .iter()
            .flatten()
            .any(|v| v.stale_cpus.iter().any(|c| c.cpu == 0 && c.dirty == 1)));
        assert!(deferred
            .iter()
            .flatten()
            .any(|v| v.moves.iter().any(|m| m.flushing.as_deref() == Some("deferred"))));
        // The 2018 rule: the file page forces a flush, the anonymous page is deferred.
        let proposal = views("mremap-race-101", "dirty_file_or_swapcache");
        let seen = |pid: u16| -> Vec<String> {
            let mut d: Vec<String> = proposal
                .iter()
                .flatten()
                .flat_map(|v| v.moves.iter().filter(|m| m.pid == pid))
                .flat_map(|m| m.new_cells.iter().filter_map(|c| c.decision.clone()))
                .collect();
            d.dedup();
            d
        };
        assert_eq!(seen(1), ["force-file"]);
        assert_eq!(seen(2), ["anon-not-swapcache"]);
        // v4.19: the flush happens under the PTLs, and no CPU is ever left with a stale entry
        // once the PTLs are dropped.
        let present = views("mremap-race-101", "present");
        assert!(present
            .iter()
            .flatten()
            .any(|v| v.moves.iter().any(|m| m.flushing.as_deref() == Some("ptl"))));
        assert!(present
            .iter()
            .flatten()
            .filter(|v| v.moves.iter().all(|m| m.extent.is_none()))
            .all(|v| v.stale_cpus.is_empty()));
    }

    #[test]
    fn a_long_region_is_drawn_in_at_most_64_cells() {
        let mut sim = at("mremap-2mb", &[], 0);
        let total = sim.total_steps();
        sim.seek(total / 2).unwrap();
        let v = mremap_view(sim.sim()).unwrap();
        for m in &v.moves {
            assert_eq!(m.pages_per_cell, m.pages.div_ceil(VIEW_MAX_CELLS));
            assert!(m.old_cells.len() <= VIEW_MAX_CELLS as usize);
            assert_eq!(m.old_cells.iter().map(|c| c.pages).sum::<u32>(), m.pages);
        }
        assert!(v.moves.len() <= VIEW_MAX_MOVES);
    }
}
