//! The page allocator and its per-CPU page lists (PCP): zones, buddy lists, watermarks,
//! `rmqueue_pcplist` / `free_unref_page_commit` and the vmstat worker's decay, with Huang
//! Ying's 2023 "mm: PCP high auto-tuning" series as toggles (v2 patch numbering, seed 004;
//! merged as v3 for v6.7). The functions live in `mm/page_alloc.rs`, the workload shapes
//! (short-lived processes, socket pairs) in `mm/pcp_workload.rs`.

use crate::engine::Sim;
use crate::kernel::kthread::KthreadDef;
use crate::knobs::KnobKind;
use crate::listings as l;
use crate::machine::KthreadKind;
use crate::patches::PresetDef;
use crate::patches::{ListingPair, Patch, ToggleKind};
use crate::registry::{FunctionListings, Invariant, Mechanism, MetricDef, ViewDef};

crate::frames! { PageAlloc;
    /// `__alloc_pages` → `get_page_from_freelist` → `rmqueue_pcplist`.
    AllocPages(crate::mm::page_alloc::AllocPages) => "alloc_pages",
    /// `rmqueue_bulk`.
    RmqueueBulk(crate::mm::page_alloc::RmqueueBulk) => "rmqueue_bulk",
    /// `rmqueue_buddy`.
    RmqueueBuddy(crate::mm::page_alloc::RmqueueBuddy) => "rmqueue_buddy",
    /// `free_unref_page` → `free_unref_page_commit`.
    FreeUnrefPage(crate::mm::page_alloc::FreeUnrefPage) => "free_unref_page_commit",
    /// `free_one_page`.
    FreeOnePage(crate::mm::page_alloc::FreeOnePage) => "free_one_page",
    /// `free_pcppages_bulk`.
    FreePcppagesBulk(crate::mm::page_alloc::FreePcppagesBulk) => "free_pcppages_bulk",
    /// `drain_all_pages`.
    DrainAllPages(crate::mm::page_alloc::DrainAllPages) => "drain_all_pages",
    /// `vmstat_update` → `decay_pcp_high`.
    VmstatUpdate(crate::mm::page_alloc::VmstatUpdate) => "decay_pcp_high",
    /// A short-lived process's page traffic (workload shape).
    ProcessCycle(crate::mm::pcp_workload::ProcessCycle) => "process_cycle",
    /// One side of a socket pair (workload shape).
    SockPair(crate::mm::pcp_workload::SockPair) => "sock_pair",
}

const SERIES: &str = "https://lore.kernel.org/all/20230926060911.266511-1-ying.huang@intel.com/";

crate::toggles! { PageAlloc;
    /// Patch 1: free_high needs two consecutive high-order frees.
    PCP_PREV_FREE_HIGH_ORDER = Patch {
        id: "pcp_prev_free_high_order",
        kind: ToggleKind::Bool,
        title: "mm, pcp: avoid to drain PCP when process exit",
        author: "Huang Ying (reviewed by Mel Gorman)",
        date: "2023-09-26",
        commit: "ca71fe1ad922",
        version: "v6.7",
        link: SERIES,
        explanation: "Since f26b3fa04611 (v5.18) a high-order free on a CPU whose free_factor is above 0 drains the \
            whole PCP (free_high), so that a producer CPU can reuse a consumer's cache-hot pages through the buddy \
            allocator. A process exit hits it by accident: exit_mmap frees thousands of order-0 pages (free_factor \
            rises), then __mmdrop frees the PGD, an order-1 page with page-table isolation, and the PCP is drained \
            at every exit. The patch adds PCPF_PREV_FREE_HIGH_ORDER: free_high needs two consecutive order 1-3 \
            frees. Published (kbuild, 224 CPUs): free_high -80.8%, zone-lock contention 13.5% to 10.6%; lmbench3 \
            AF_UNIX +17.1%.",
        functions: &["free_unref_page_commit"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v6.6: any high-order free after freeing drains", "patch 1: two consecutive high-order frees"],
        listings: &[ListingPair { before: l::FREE_UNREF_PAGE_COMMIT_V6_6, after: l::FREE_UNREF_PAGE_COMMIT_P1 }],
        history: &[],
    },
    /// Patches 2-3: keep up to `batch` pages before a free_high drain.
    PCP_FREE_HIGH_BATCH = Patch {
        id: "pcp_free_high_batch",
        kind: ToggleKind::Bool,
        title: "mm, pcp: reduce lock contention for draining high-order pages (with cacheinfo: calculate size of per-CPU data cache slice)",
        author: "Huang Ying",
        date: "2023-09-26",
        commit: "362d37a106dd",
        version: "v6.7",
        link: SERIES,
        explanation: "Draining at every consecutive high-order free means one zone-lock round trip per order-3 page \
            (32 KiB) the consumer frees, while the producer takes the same lock to refill. When the CPU's share of \
            the LLC is larger than 3 * batch pages, the pages kept on the PCP still fit in the cache, so the patch \
            sets PCPF_FREE_HIGH_BATCH and free_high waits until count >= batch: about 8 times fewer lock \
            acquisitions. Published (lmbench3 AF_UNIX): +70.5% on top of patch 1, zone lock 46.1% to 21.3%.",
        functions: &["zone_pcp_update_cacheinfo"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["off: drain at once", "on: keep up to batch pages when the LLC slice is large"],
        listings: &[ListingPair { before: l::ZONE_PCP_UPDATE_CACHEINFO_OFF, after: l::ZONE_PCP_UPDATE_CACHEINFO_ON }],
        history: &[],
    },
    /// Patches 4-5: cap the free scaling, scale refills with `alloc_factor`.
    PCP_ALLOC_FACTOR = Patch {
        id: "pcp_alloc_factor",
        kind: ToggleKind::Bool,
        title: "mm: restrict the pcp batch scale factor to avoid too long latency; mm, page_alloc: scale the number of pages that are batch allocated",
        author: "Huang Ying",
        date: "2023-09-26",
        commit: "52166607ecc9",
        version: "v6.7",
        link: SERIES,
        explanation: "Patch 4 caps free_factor at CONFIG_PCP_BATCH_SCALE_MAX (5) so one drain holds the zone lock for \
            at most about 100 us. Patch 5 adds the allocation-side twin, alloc_factor: each refill that fits below \
            high doubles the next one (up to batch << 5) and each free halves it, so a CPU that only allocates \
            takes the zone lock less often. Published (kbuild): zone lock 11.7% to 10.0%.",
        functions: &["nr_pcp_alloc"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v6.6: refill batch pages", "patch 5: refill batch << alloc_factor"],
        listings: &[ListingPair { before: l::NR_PCP_ALLOC_V6_6, after: l::NR_PCP_ALLOC_P5 }],
        history: &[],
    },
    /// Patches 6-7: `high` tuned between `high_min` and `high_max`.
    PCP_HIGH_AUTOTUNE = Patch {
        id: "pcp_high_autotune",
        kind: ToggleKind::Bool,
        title: "mm: add framework for PCP high auto-tuning; mm: tune PCP high automatically",
        author: "Huang Ying",
        date: "2023-09-26",
        commit: "51a755c56dc0",
        version: "v6.7",
        link: SERIES,
        explanation: "v6.6 sizes high once, from the zone's low watermark split over the node's CPUs (367 pages on \
            the 224-CPU test box). The series gives it a range: high_min (that old value) to high_max (managed/8 \
            over the CPUs, about 36,800 pages). A refill grows high by the refill size; a drain that finds count \
            >= high grows it to what was freed recently plus batch; the vmstat worker decays it by 1/8 per second \
            (1/5 in v1/v2) and drains the excess. A CPU that allocates a lot keeps its pages instead of bouncing \
            them through the zone. Published (kbuild): build time -5.1%, zone lock 10.0% to 0.7%, pages from the \
            zone -81%, memory in use +21% on average during the build.",
        functions: &["decay_pcp_high"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v6.6: high fixed", "patch 7: high tuned in [high_min, high_max]"],
        listings: &[ListingPair { before: l::DECAY_PCP_HIGH_OFF, after: l::DECAY_PCP_HIGH_P7 }],
        history: &[],
    },
    /// Patch 8: ZONE_BELOW_HIGH.
    PCP_BELOW_HIGH = Patch {
        id: "pcp_below_high",
        kind: ToggleKind::Bool,
        title: "mm, pcp: decrease PCP high if free pages < high watermark",
        author: "Huang Ying",
        date: "2023-09-26",
        commit: "57c0419c5f0e",
        version: "v6.7",
        link: SERIES,
        explanation: "Auto-tuning can park a lot of memory on the PCPs. Patch 8 sets ZONE_BELOW_HIGH when an \
            allocation finds the zone under its high watermark; while it is set, high stops growing and shrinks on \
            each drain, and it is cleared once frees bring the zone back above the watermark.",
        functions: &["get_page_from_freelist"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["off: only ZONE_RECLAIM_ACTIVE limits high", "patch 8: ZONE_BELOW_HIGH"],
        listings: &[ListingPair { before: l::GET_PAGE_FROM_FREELIST_V6_6, after: l::GET_PAGE_FROM_FREELIST_P8 }],
        history: &[],
    },
    /// Last patch (v2 patch 10, v3 patch 9): `free_count`.
    PCP_FREE_COUNT = Patch {
        id: "pcp_free_count",
        kind: ToggleKind::Bool,
        title: "mm, pcp: reduce detecting time of consecutive high order page freeing",
        author: "Huang Ying",
        date: "2023-09-26",
        commit: "6ccdcb6d3a74",
        version: "v6.7",
        link: SERIES,
        explanation: "With auto-tuning a CPU's high can be very large, so free_factor > 0 (which needs a drain, i.e. \
            count >= high) comes late and a consumer's freed pages sit on its PCP until they are cold: the cache \
            miss rate rose to 2.9% (lmbench) and 7.6% (netperf). The last patch replaces free_factor with \
            free_count, the pages freed since the last allocations: free_high when free_count >= batch. It also \
            sizes ordinary drains by free_count. Published (netperf SCTP): miss rate back to 1.2%, score +3.4%.",
        functions: &["nr_pcp_free"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["free_factor", "free_count"],
        listings: &[ListingPair { before: l::NR_PCP_FREE_V6_6, after: l::NR_PCP_FREE_P10 }],
        history: &[],
    },
}

crate::counters! { PageAlloc;
    /// `pgalloc_normal`: pages allocated from Normal zones (an order-k block counts `1 << k`).
    kernel PGALLOC_NORMAL => "pgalloc_normal",
    /// `pgfree`: pages freed.
    kernel PGFREE => "pgfree",
    /// Model only: `free_unref_page_commit` calls that decided free_high (Huang's tracepoint).
    model PCP_FREE_HIGH => "pcp_free_high",
    /// Model only: zone-lock acquisitions (`rmqueue_bulk`, `rmqueue_buddy`, `free_pcppages_bulk`, `free_one_page`).
    model ZONE_LOCK_ACQUIRED => "zone_lock_acquired",
    /// Model only: time CPUs spun on a zone lock, ns, from the first failed attempt to the
    /// acquisition, the zone-lock contention metric's numerator. The core's
    /// `lock_zone_lock_wait_ns` cuts a wait differently (at each release that wakes the
    /// spinner, a lost retry starting a new one); the two differed by 0.13 % in
    /// `pcp-unix-pairs` (`mmviz run pcp-unix-pairs --preset base`, 2026-11-23).
    model ZONE_LOCK_WAIT_NS => "zone_lock_wait_ns",
    /// Model only: pages taken from the buddy lists (`alloc_zone` in the series' tables).
    model PCP_ALLOC_ZONE_PAGES => "pcp_alloc_zone_pages",
    /// Model only: `rmqueue_bulk` refills.
    model PCP_REFILLS => "pcp_refills",
    /// Model only: `free_pcppages_bulk` drains (free_high, high, decay and reclaim drains).
    model PCP_DRAINS => "pcp_drains",
    /// Model only: PCP-eligible allocations.
    model PCP_ALLOCS => "pcp_allocs",
    /// Model only: PCP allocations served from the lists without a refill.
    model PCP_ALLOC_HITS => "pcp_alloc_hits",
    /// Model only: the most pages ever parked on all PCPs at once.
    model PCP_PAGES_PEAK => "pcp_pages_peak",
    /// Model only: the highest `high` any PCP reached.
    model PCP_HIGH_PEAK => "pcp_high_peak",
    /// Model only: first touches of a new page that found it cache hot (same LLC, < 2 ms).
    model PAGE_TOUCH_HOT => "page_touch_hot",
    /// Model only: first touches of a new page that found it cold.
    model PAGE_TOUCH_COLD => "page_touch_cold",
    /// Model only: short-lived processes that exited (`process_cycle`).
    model EXITS => "exits",
    /// Model only: simulated time when the last workload operation completed, ns.
    model PCP_WORKLOAD_NS => "pcp_workload_ns",
}

crate::costs! { PageAlloc;
    /// A PCP list operation (`rmqueue_pcplist` hit, `free_unref_page_commit` without a drain).
    PCP_HIT_NS => "pcp_hit_ns" = 80,
    /// Zone lock held: the fixed part of one section (spec A.10.4: about 0.2 us).
    ZONE_LOCK_NS => "zone_lock_ns" = 200,
    /// Zone lock held: per block moved, one `__rmqueue` or `__free_one_page` whatever the
    /// block's order (spec A.10.4: 30-40 ns, measured with order-0 pages).
    ZONE_LOCK_PAGE_NS => "zone_lock_page_ns" = 35,
    /// First store to a cache-hot page.
    PAGE_HOT_NS => "page_hot_ns" = 400,
    /// First store to a cold page.
    PAGE_COLD_NS => "page_cold_ns" = 1200,
    /// An anonymous fault apart from the allocation and the store (`process_cycle`).
    PAGE_FAULT_NS => "page_fault_ns" = 1000,
    /// A process's fork/exec and exit apart from its pages (`process_cycle`).
    PROCESS_NS => "process_ns" = 20000,
    /// Protocol work per message and side (`sock_pair`).
    SOCK_MSG_NS => "sock_msg_ns" = 500,
}

crate::knobs! { PageAlloc;
    /// `batch` of every pageset, overriding `zone_batchsize` (1-1023).
    PCP_BATCH => "pcp_batch", KnobKind::Int { min: 1, max: 1023, scale: 1 }, None,
    /// `high_min` (v6.6: `high`) of every pageset, overriding `zone_highsize`.
    PCP_HIGH_MIN => "pcp_high_min", KnobKind::Int { min: 0, max: 1 << 24, scale: 1 }, None,
    /// `high_max` of every pageset, overriding `zone_highsize(.., 8)`.
    PCP_HIGH_MAX => "pcp_high_max", KnobKind::Int { min: 0, max: 1 << 24, scale: 1 }, None,
    /// `vm.percpu_pagelist_high_fraction`: 0 (default) or 8 and more; nonzero fixes high (no auto-tuning).
    HIGH_FRACTION => "percpu_pagelist_high_fraction", KnobKind::Int { min: 0, max: 1 << 20, scale: 1 }, Some(0),
    /// Per-CPU share of the LLC in KiB (patch 3 sets PCPF_FREE_HIGH_BATCH above 3 * batch pages).
    LLC_SLICE_KB => "llc_slice_kb", KnobKind::Int { min: 0, max: 1 << 20, scale: 1 }, Some(1920),
    /// `vm.stat_interval` in ms (default 1000).
    // Kept in ns (scale 1,000,000).
    VMSTAT_INTERVAL_NS => "vmstat_interval_ms", KnobKind::Int { min: 1, max: 100_000, scale: 1_000_000 }, Some(1000),
    /// `process_cycle`: chance in percent that a slab free is followed by a second one.
    SLAB_PAIR_PERCENT => "slab_pair_percent", KnobKind::Int { min: 0, max: 100, scale: 1 }, Some(25),
    /// `process_cycle`: when set above `pages`, each process faults a number of pages drawn
    /// uniformly from `pages` to this (kbuild's compilers vary in size).
    PROCESS_PAGES_MAX => "process_pages_max", KnobKind::Int { min: 0, max: 1 << 24, scale: 1 }, None,
    /// `sock_pair`: the receiver's skb head is an order-0 page allocation and free per message
    /// (the spec's recipe; default on); off: it comes from a slab cache and the page
    /// allocator never sees it (kmalloc'd heads, as AF_UNIX's large writes have).
    SOCK_HEAD_PAGE => "sock_head_page", KnobKind::Bool, Some(1),
    /// `sock_pair`: messages between role swaps (unless `sock_phase_ms` is set).
    SOCK_PHASE_MSGS => "sock_phase_msgs", KnobKind::Int { min: 1, max: 1 << 30, scale: 1 }, Some(2000),
    /// `sock_pair`: when set, the two sides swap roles every this many ms of simulated time
    /// (the spec's S-A3: every 10 ms, a context switch's worth), instead of by messages.
    // Kept in ns (scale 1,000,000).
    SOCK_PHASE_NS => "sock_phase_ms", KnobKind::Int { min: 1, max: 100_000, scale: 1_000_000 }, None,
}

/// Event kinds.
pub mod ev {
    crate::events! { PageAlloc;
        /// A PCP allocation step.
        PCP_ALLOC => "pcp_alloc", Alloc,
        /// A PCP refill (`rmqueue_bulk`).
        PCP_REFILL => "pcp_refill", Alloc,
        /// A free to the PCP.
        PCP_FREE => "pcp_free", Alloc,
        /// `free_unref_page_commit` decided free_high: the PCP is drained.
        FREE_HIGH => "free_high", Alloc,
        /// A PCP drain (`free_pcppages_bulk`, `drain_all_pages`).
        PCP_DRAIN => "pcp_drain", Alloc,
        /// The zone lock was taken.
        ZONE_LOCK => "zone_lock", Lock,
        /// `decay_pcp_high`.
        PCP_DECAY => "pcp_decay", Other,
        /// A workload step (fork, fault, exit, message).
        PCP_WORKLOAD => "pcp_workload", Other,
    }
}

/// The sizes a scenario's knobs override.
pub fn overrides(k: &crate::knobs::Knobs) -> crate::mm::page_alloc::Overrides {
    let fraction = k.value(HIGH_FRACTION) as u32;
    crate::mm::page_alloc::Overrides {
        batch: k.get(PCP_BATCH).map(|v| v as u32),
        high_min: k.get(PCP_HIGH_MIN).map(|v| v as u32),
        high_max: k.get(PCP_HIGH_MAX).map(|v| v as u32),
        // The sysctl refuses 1-7 (MIN_PERCPU_PAGELIST_HIGH_FRACTION); such a value is raised to 8.
        fraction: if fraction == 0 { 0 } else { fraction.max(8) },
        llc_slice_kb: k.value(LLC_SLICE_KB) as u32,
    }
}

fn pcp_count_matches_lists(sim: &crate::engine::Sim) -> Result<(), String> {
    for (i, p) in sim.st.page_alloc.pcp.iter().enumerate() {
        if p.count != p.listed() {
            return Err(format!("PCP {i}: count {} but {} pages on its lists", p.count, p.listed()));
        }
    }
    Ok(())
}

fn pct(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| 100.0 * a as f64 / b as f64)
}

/// The workload's time: the window when one closed the run, else when its last operation
/// completed (the vmstat worker may go on decaying `high` long after).
fn workload_ns(sim: &Sim) -> u64 {
    let run = crate::mech::core::run_time_ns(sim);
    match sim.st.counters.get(PCP_WORKLOAD_NS) {
        0 => run,
        w => w.min(run),
    }
}

/// CPUs that run user threads.
fn user_cpus(sim: &Sim) -> u64 {
    let mut m = crate::machine::CpuMask::EMPTY;
    for t in sim.st.tasks.iter().filter(|t| t.mm().is_some()) {
        m.set(t.cpu);
    }
    m.iter().count() as u64
}

/// The metrics of the PCP series' tables.
const METRICS: &[MetricDef] = &[
    MetricDef {
        name: "zone_lock_contention_pct",
        doc: "Time CPUs spun on a zone lock, as a percentage of the CPU time of the CPUs running user threads               over the workload (the tables' spin-lock contention cycles%).",
        value: |sim| pct(sim.st.counters.get(ZONE_LOCK_WAIT_NS), workload_ns(sim) * user_cpus(sim)),
    },
    MetricDef {
        name: "pcp_high_final",
        doc: "The highest `high` of any PCP when the run ends (auto-tuning: back at high_min once decayed).",
        value: |sim| sim.st.page_alloc.pcp.iter().map(|p| p.high).max().map(f64::from),
    },
    MetricDef {
        name: "pcp_high_min",
        doc: "The lowest `high_min` of any PCP.",
        value: |sim| sim.st.page_alloc.pcp.iter().map(|p| p.high_min).min().map(f64::from),
    },
    MetricDef {
        name: "pcp_decay_ms",
        doc: "Simulated time from the workload's last operation to the end of the run (the vmstat worker \
              decaying `high` and draining), ms.",
        value: |sim| {
            let end = crate::mech::core::run_time_ns(sim);
            Some(end.saturating_sub(sim.st.counters.get(PCP_WORKLOAD_NS)) as f64 / 1e6)
        },
    },
    MetricDef {
        name: "pcp_hit_pct",
        doc: "PCP-eligible allocations served from the lists without a refill, %.",
        value: |sim| pct(sim.st.counters.get(PCP_ALLOC_HITS), sim.st.counters.get(PCP_ALLOCS)),
    },
    MetricDef {
        name: "cache_miss_pct",
        doc: "First touches of a new page that found it cold (not touched within 2 ms on the same LLC), %:               the proxy for the tables' cache miss rate.",
        value: |sim| {
            let cold = sim.st.counters.get(PAGE_TOUCH_COLD);
            pct(cold, cold + sim.st.counters.get(PAGE_TOUCH_HOT))
        },
    },
];

/// The rows of the series' v2 tables (seed 004): `base` is v6.6, each row adds patches.
const PRESETS: &[PresetDef] = &[
    PresetDef {
        name: "base",
        doc: "v6.6, before the PCP series (the tables' base row)",
        kernel: Some("v6.6"),
        set: &[],
    },
    PresetDef {
        name: "patch1",
        doc: "base + patch 1 (PCPF_PREV_FREE_HIGH_ORDER)",
        kernel: Some("v6.6"),
        set: &[("pcp_prev_free_high_order", "on")],
    },
    PresetDef {
        name: "patch3",
        doc: "patch1 + patches 2-3 (PCPF_FREE_HIGH_BATCH)",
        kernel: Some("v6.6"),
        set: &[("pcp_prev_free_high_order", "on"), ("pcp_free_high_batch", "on")],
    },
    PresetDef {
        name: "patch5",
        doc: "patch3 + patches 4-5 (SCALE_MAX, alloc_factor)",
        kernel: Some("v6.6"),
        set: &[
            ("pcp_prev_free_high_order", "on"),
            ("pcp_free_high_batch", "on"),
            ("pcp_alloc_factor", "on"),
        ],
    },
    PresetDef {
        name: "patch7",
        doc: "patch5 + patches 6-7 (high auto-tuning); high decays by 1/8 a vmstat tick as merged (v3), where the v2 series the table is from decayed by 1/5",
        kernel: Some("v6.6"),
        set: &[
            ("pcp_prev_free_high_order", "on"),
            ("pcp_free_high_batch", "on"),
            ("pcp_alloc_factor", "on"),
            ("pcp_high_autotune", "on"),
        ],
    },
    PresetDef {
        name: "patch9",
        doc: "patch7 + patch 8 (ZONE_BELOW_HIGH); v2's patch 9 (count_min, dropped in v3) is not modelled; decay by 1/8 (v3), not v2's 1/5",
        kernel: Some("v6.6"),
        set: &[
            ("pcp_prev_free_high_order", "on"),
            ("pcp_free_high_batch", "on"),
            ("pcp_alloc_factor", "on"),
            ("pcp_high_autotune", "on"),
            ("pcp_below_high", "on"),
        ],
    },
    PresetDef {
        name: "patch10",
        doc: "the whole v2 series (free_count): what v6.7 merged, with v3's decay by 1/8 (v2 decayed by 1/5)",
        kernel: Some("v6.6"),
        set: &[
            ("pcp_prev_free_high_order", "on"),
            ("pcp_free_high_batch", "on"),
            ("pcp_alloc_factor", "on"),
            ("pcp_high_autotune", "on"),
            ("pcp_below_high", "on"),
            ("pcp_free_count", "on"),
        ],
    },
];

/// The page allocator's declaration.
pub const MECHANISM: Mechanism = Mechanism {
    id: "page_alloc",
    title: "Page allocator: zones, buddy lists and per-CPU page lists (the 2023 PCP auto-tuning series)",
    toggles: TOGGLES,
    counters: COUNTERS,
    costs: COSTS,
    knobs: KNOBS,
    events: ev::EVENTS,
    ops: crate::mm::pcp_workload::OPS,
    listings: &[
        FunctionListings {
            function: "free_unref_page_commit",
            variants: &[l::FREE_UNREF_PAGE_COMMIT_V6_6, l::FREE_UNREF_PAGE_COMMIT_P1],
            select: |t| usize::from(t.on(PCP_PREV_FREE_HIGH_ORDER)),
        },
        FunctionListings {
            function: "zone_pcp_update_cacheinfo",
            variants: &[l::ZONE_PCP_UPDATE_CACHEINFO_OFF, l::ZONE_PCP_UPDATE_CACHEINFO_ON],
            select: |t| usize::from(t.on(PCP_FREE_HIGH_BATCH)),
        },
        FunctionListings {
            function: "nr_pcp_alloc",
            variants: &[l::NR_PCP_ALLOC_V6_6, l::NR_PCP_ALLOC_P5],
            select: |t| usize::from(t.on(PCP_ALLOC_FACTOR)),
        },
        FunctionListings {
            function: "decay_pcp_high",
            variants: &[l::DECAY_PCP_HIGH_OFF, l::DECAY_PCP_HIGH_P7],
            select: |t| usize::from(t.on(PCP_HIGH_AUTOTUNE)),
        },
        FunctionListings {
            function: "get_page_from_freelist",
            variants: &[l::GET_PAGE_FROM_FREELIST_V6_6, l::GET_PAGE_FROM_FREELIST_P8],
            select: |t| usize::from(t.on(PCP_BELOW_HIGH)),
        },
        FunctionListings {
            function: "nr_pcp_free",
            variants: &[l::NR_PCP_FREE_V6_6, l::NR_PCP_FREE_P10],
            select: |t| usize::from(t.on(PCP_FREE_COUNT)),
        },
        FunctionListings::single(&[l::ALLOC_PAGES]),
        FunctionListings::single(&[l::RMQUEUE_BULK]),
        FunctionListings::single(&[l::RMQUEUE_BUDDY]),
        FunctionListings::single(&[l::FREE_UNREF_PAGE]),
        FunctionListings::single(&[l::FREE_ONE_PAGE]),
        FunctionListings::single(&[l::FREE_PCPPAGES_BULK]),
        FunctionListings::single(&[l::DRAIN_ALL_PAGES]),
        FunctionListings::single(&[l::PROCESS_CYCLE]),
        FunctionListings::single(&[l::SOCK_PAIR]),
    ],
    functions: FRAME_FUNCTIONS,
    kthreads: &[KthreadDef {
        kind: KthreadKind::Vmstat,
        work: crate::mm::page_alloc::vmstat_work,
    }],
    presets: PRESETS,
    metrics: METRICS,
    invariants: &[Invariant {
        name: "PCP count equals the pages on its lists",
        check: pcp_count_matches_lists,
    }],
    views: &[ViewDef {
        id: "pcp",
        title: "Per-CPU page lists and the zone lock",
        plots: &["pcp_free_high", "zone_lock_acquired", "pcp_alloc_zone_pages", "pcp_pages_peak"],
        state: Some(crate::mech::page_alloc_view::state),
    }],
    ..Mechanism::EMPTY
};
