//! `mm/page_alloc.c`: zones, the buddy allocator and the per-CPU page lists (PCP), as
//! Linux v6.6 had them and as Huang Ying's "mm: PCP high auto-tuning" series (v2, Sept
//! 2023; merged as v3 for v6.7) changed them, one toggle per patch group
//! (`mech/page_alloc.rs`).
//!
//! State ([`PageAlloc`]): one Normal zone per node with memory (`managed` pages, min/low/high
//! watermarks from `__setup_per_zone_wmarks` or a pasted `/proc/zoneinfo`, flags `ZONE_BELOW_HIGH` and
//! `ZONE_RECLAIM_ACTIVE`), its buddy free lists by order and migratetype (blocks merge with
//! their buddy on free, `__free_one_page`), and one [`Pcp`] per (CPU, zone) with the 13 lists
//! of `struct per_cpu_pages` (order 0-3 × UNMOVABLE/MOVABLE/RECLAIMABLE, plus the THP list).
//! The sizing rules (`zone_batchsize`, `zone_highsize`) and the decisions of each patch are
//! plain functions ([`nr_pcp_alloc`], [`free_high_decision`], [`nr_pcp_high`], [`nr_pcp_free`],
//! [`decay_pcp_high`]) that the frames below call, so tests can check them alone.
//!
//! Frames (each names the kernel function it follows): [`AllocPages`]
//! (`get_page_from_freelist` → `rmqueue` → `rmqueue_pcplist`), [`RmqueueBulk`] and
//! [`RmqueueBuddy`] (under `zone->lock`), [`FreeUnrefPage`] (`free_unref_page` →
//! `free_unref_page_commit`), [`FreePcppagesBulk`] and [`FreeOnePage`] (under the zone lock),
//! [`DrainAllPages`] (direct reclaim's drain) and [`VmstatUpdate`] (the vmstat worker's
//! `refresh_cpu_vm_stats` → `decay_pcp_high`, and the remote-zone `expire` drain). The zone
//! lock is a contended spinlock whose hold time is `zone_lock_ns + zone_lock_page_ns ×
//! blocks moved` (spec A.10.4: about 0.2 µs + 35 ns per page, measured with order-0 pages).
//! The work under the lock is per *block*, whatever its order: `rmqueue_bulk` calls
//! `__rmqueue` once per block and `free_pcppages_bulk` calls `__free_one_page` once per
//! block (v6.6/v6.7 `mm/page_alloc.c`), so an order-3 page costs what an order-0 page
//! costs, not eight times it.
//!
//! Left out: DMA32 and Movable zones, CMA and HIGHATOMIC, pageblock migratetype ownership
//! (a block stolen by another migratetype is simply taken), compaction, kswapd (so
//! `ZONE_RECLAIM_ACTIVE` is never set by the model), `pcp->lock` trylock failures (a PCP
//! operation is atomic within one step), zone statistics other than the free-page count
//! (which alone re-arms a pageset's `expire`), and the v2-only `count_min` (patch 9 of v2,
//! dropped in v3).

use crate::core::{ChunkedVec, Flow, LockClass, LockId, Ret, Until};
use crate::engine::{say, Sim, NO_PAGE};
use crate::mech::core::ev as core_ev;
use crate::mech::page_alloc as m;
use crate::mech::page_alloc::ev;
use crate::mm::gfp::{Gfp, __GFP_THISNODE};
use crate::registry::{Frame, Function};
use crate::topology::{CpuId, NodeId, Topology};
use crate::trace::Ev;
use std::collections::VecDeque;

/// `NR_PAGE_ORDERS` (orders 0..=10).
pub const NR_ORDERS: usize = 11;
/// `PAGE_ALLOC_COSTLY_ORDER`.
pub const COSTLY_ORDER: u8 = 3;
/// `pageblock_order` (2 MiB).
pub const PAGEBLOCK_ORDER: u8 = 9;
/// `MIGRATE_PCPTYPES`.
pub const MIGRATE_PCPTYPES: usize = 3;
/// `MIGRATE_UNMOVABLE`.
pub const MT_UNMOVABLE: u8 = 0;
/// `MIGRATE_MOVABLE`.
pub const MT_MOVABLE: u8 = 1;
/// `MIGRATE_RECLAIMABLE`.
pub const MT_RECLAIMABLE: u8 = 2;
/// `NR_PCP_LISTS`: 12 low-order lists and the THP list.
pub const NR_PCP_LISTS: usize = 13;
/// `CONFIG_PCP_BATCH_SCALE_MAX` (v3 patch 4; a plain define in v2).
pub const SCALE_MAX: u8 = 5;
/// `PCPF_PREV_FREE_HIGH_ORDER` (patch 1).
pub const PCPF_PREV_FREE_HIGH_ORDER: u8 = 1;
/// `PCPF_FREE_HIGH_BATCH` (patch 3).
pub const PCPF_FREE_HIGH_BATCH: u8 = 2;
/// A page is "cache hot" for the miss-rate proxy when its last touch was this recent, on
/// the same LLC (spec A.11: 2 ms).
pub const HOT_NS: u64 = 2_000_000;

/// `order_to_pindex`.
pub fn order_to_pindex(mt: u8, order: u8) -> usize {
    if order > COSTLY_ORDER {
        NR_PCP_LISTS - 1
    } else {
        MIGRATE_PCPTYPES * order as usize + (mt as usize).min(MIGRATE_PCPTYPES - 1)
    }
}

/// `pindex_to_order`.
pub fn pindex_to_order(p: usize) -> u8 {
    if p == NR_PCP_LISTS - 1 {
        PAGEBLOCK_ORDER
    } else {
        (p / MIGRATE_PCPTYPES) as u8
    }
}

/// `pcp_allowed_order`.
pub fn pcp_allowed_order(order: u8) -> bool {
    order <= COSTLY_ORDER || order == PAGEBLOCK_ORDER
}

/// The toggles of the series, resolved once per call from the run's toggle set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    /// Patch 1: free_high needs two consecutive high-order frees.
    pub prev_free_high_order: bool,
    /// Patches 2-3: keep up to `batch` pages before a free_high drain (large LLC slice).
    pub free_high_batch: bool,
    /// Patches 4-5: `SCALE_MAX` on `free_factor`, `alloc_factor` refill scaling.
    pub alloc_factor: bool,
    /// Patches 6-7: `high` moves between `high_min` and `high_max`, decays each tick.
    pub autotune: bool,
    /// Patch 8: `ZONE_BELOW_HIGH`.
    pub below_high: bool,
    /// Last patch: `free_count` replaces `free_factor`.
    pub free_count: bool,
}

impl Rules {
    /// The rules `sim`'s toggles select.
    pub fn of(sim: &Sim) -> Rules {
        Rules::from_toggles(&sim.cfg.toggles)
    }

    /// The rules a toggle set selects.
    pub fn from_toggles(t: &crate::patches::ToggleSet) -> Rules {
        Rules {
            prev_free_high_order: t.on(m::PCP_PREV_FREE_HIGH_ORDER),
            free_high_batch: t.on(m::PCP_FREE_HIGH_BATCH),
            alloc_factor: t.on(m::PCP_ALLOC_FACTOR),
            autotune: t.on(m::PCP_HIGH_AUTOTUNE),
            below_high: t.on(m::PCP_BELOW_HIGH),
            free_count: t.on(m::PCP_FREE_COUNT),
        }
    }
}

/// No page (the end of a free list).
const NIL: u32 = u32::MAX;

/// The buddy free area of one zone: free blocks by order and migratetype, each list a
/// doubly linked list threaded through per-page arrays as the kernel threads `page->lru`
/// (no allocation while stepping). A freed block goes to the head of its list and
/// `__rmqueue_smallest` takes the head; at boot the lowest blocks are at the heads.
#[derive(Clone, Debug, Default)]
pub struct Buddy {
    /// `free_area[order].free_list[mt]`: the first block's pfn, or `NIL`.
    heads: Vec<[u32; MIGRATE_PCPTYPES]>,
    /// Blocks per list.
    lens: Vec<[u32; MIGRATE_PCPTYPES]>,
    /// Per page of the zone: 0, or 1 + the order of the free block starting there, and
    /// its migratetype in the high nibble.
    head: ChunkedVec<u8>,
    next: ChunkedVec<u32>,
    prev: ChunkedVec<u32>,
    start: u32,
    end: u32,
    /// Free pages in the buddy lists (`NR_FREE_PAGES`).
    pub nr_free: u32,
}

impl Buddy {
    fn new(start: u32, pages: u32) -> Buddy {
        let n = pages as usize;
        let mut b = Buddy {
            heads: vec![[NIL; MIGRATE_PCPTYPES]; NR_ORDERS],
            lens: vec![[0; MIGRATE_PCPTYPES]; NR_ORDERS],
            head: ChunkedVec::new(n, 0),
            next: ChunkedVec::new(n, NIL),
            prev: ChunkedVec::new(n, NIL),
            start,
            end: start + pages,
            nr_free: 0,
        };
        let mut blocks = Vec::new();
        let mut pfn = start;
        while pfn < b.end {
            let mut o = NR_ORDERS - 1;
            while o > 0 && (pfn % (1 << o) != 0 || pfn + (1 << o) > b.end) {
                o -= 1;
            }
            blocks.push((pfn, o as u8));
            pfn += 1 << o;
        }
        // Highest first, so that each list's head is its lowest block.
        for &(pfn, o) in blocks.iter().rev() {
            b.insert(pfn, o, MT_MOVABLE);
        }
        b
    }

    fn idx(&self, pfn: u32) -> usize {
        (pfn - self.start) as usize
    }

    fn insert(&mut self, pfn: u32, order: u8, mt: u8) {
        let (o, t) = (order as usize, mt as usize);
        let i = self.idx(pfn);
        let old = self.heads[o][t];
        self.next[i] = old;
        self.prev[i] = NIL;
        if old != NIL {
            let j = self.idx(old);
            self.prev[j] = pfn;
        }
        self.heads[o][t] = pfn;
        self.lens[o][t] += 1;
        self.head[i] = (order + 1) | (mt << 4);
        self.nr_free += 1 << order;
    }

    fn remove(&mut self, pfn: u32) -> Option<(u8, u8)> {
        let i = (pfn.checked_sub(self.start)?) as usize;
        let h = *self.head.get(i)?;
        if h == 0 {
            return None;
        }
        let (order, mt) = ((h & 0xf) - 1, h >> 4);
        let (o, t) = (order as usize, mt as usize);
        let (p, n) = (self.prev[i], self.next[i]);
        if p == NIL {
            self.heads[o][t] = n;
        } else {
            let j = self.idx(p);
            self.next[j] = n;
        }
        if n != NIL {
            let j = self.idx(n);
            self.prev[j] = p;
        }
        self.lens[o][t] -= 1;
        self.head[i] = 0;
        self.nr_free -= 1 << order;
        Some((order, mt))
    }

    /// `__rmqueue`: the smallest fitting block of `mt` (else of another migratetype,
    /// `__rmqueue_fallback`), split down to `order` (`expand`).
    pub fn take(&mut self, order: u8, mt: u8) -> Option<u32> {
        let mt = mt.min(MIGRATE_PCPTYPES as u8 - 1);
        let found = (order as usize..NR_ORDERS)
            .find_map(|o| Some(self.heads[o][mt as usize]).filter(|&p| p != NIL).map(|p| (p, o)))
            .or_else(|| {
                (order as usize..NR_ORDERS)
                    .find_map(|o| (0..MIGRATE_PCPTYPES).find_map(|t| Some(self.heads[o][t]).filter(|&p| p != NIL).map(|p| (p, o))))
            });
        let (pfn, mut o) = found?;
        self.remove(pfn);
        while o > order as usize {
            o -= 1;
            self.insert(pfn + (1 << o), o as u8, mt);
        }
        Some(pfn)
    }

    /// `__free_one_page`: merges with free buddies while it can.
    pub fn free(&mut self, mut pfn: u32, mut order: u8, mt: u8) {
        let mt = mt.min(MIGRATE_PCPTYPES as u8 - 1);
        while (order as usize) < NR_ORDERS - 1 {
            let buddy = pfn ^ (1 << order);
            if buddy < self.start || buddy + (1 << order) > self.end {
                break;
            }
            let h = self.head[self.idx(buddy)];
            if h == 0 || (h & 0xf) - 1 != order {
                break;
            }
            self.remove(buddy);
            pfn = pfn.min(buddy);
            order += 1;
        }
        self.insert(pfn, order, mt);
    }

    /// Every block on the free lists as (pfn, order, migratetype), by walking the lists
    /// (for the invariants: allocates).
    pub fn blocks_listed(&self) -> Vec<(u32, u8, u8)> {
        let mut out = Vec::new();
        for (o, heads) in self.heads.iter().enumerate() {
            for (t, &first) in heads.iter().enumerate() {
                let mut pfn = first;
                while pfn != NIL && out.len() <= (self.end - self.start) as usize {
                    out.push((pfn, o as u8, t as u8));
                    pfn = self.next[self.idx(pfn)];
                }
            }
        }
        out
    }

    /// Free blocks of `order` (for the views).
    pub fn blocks(&self, order: usize) -> usize {
        self.lens.get(order).map_or(0, |l| l.iter().map(|&n| n as usize).sum())
    }
}

/// One zone (the Normal zone of a node).
#[derive(Clone, Debug)]
pub struct Zone {
    /// Its node.
    pub nid: NodeId,
    /// `managed_pages`.
    pub managed: u32,
    /// `_watermark[WMARK_MIN, WMARK_LOW, WMARK_HIGH]`.
    pub wmark: [u32; 3],
    /// `ZONE_BELOW_HIGH` (patch 8).
    pub below_high: bool,
    /// `ZONE_RECLAIM_ACTIVE` (kswapd scanning; never set by this model).
    pub reclaim_active: bool,
    /// `pageset_batch`.
    pub batch: u32,
    /// `pageset_high_min` (v6.6: `pageset_high`).
    pub high_min: u32,
    /// `pageset_high_max`.
    pub high_max: u32,
    /// Its buddy free area.
    pub buddy: Buddy,
}

/// `struct per_cpu_pages` (v6.7 fields; `free_factor` is v6.6's).
#[derive(Clone, Debug, Default)]
pub struct Pcp {
    /// Pages on the lists (an order-k page counts `1 << k`).
    pub count: u32,
    /// Drain threshold.
    pub high: u32,
    /// Tuning range (patch 6).
    pub high_min: u32,
    /// Tuning range (patch 6).
    pub high_max: u32,
    /// Refill/drain unit.
    pub batch: u32,
    /// `PCPF_PREV_FREE_HIGH_ORDER`, `PCPF_FREE_HIGH_BATCH`.
    pub flags: u8,
    /// v6.6 batch-free scaling exponent.
    pub free_factor: u8,
    /// Pages freed recently (last patch), capped at `batch << SCALE_MAX`.
    pub free_count: u32,
    /// Refill scaling exponent (patch 5).
    pub alloc_factor: u8,
    /// `expire`: vmstat intervals left before a remote zone's pageset drains a batch
    /// (`refresh_cpu_vm_stats` sets 3 when this CPU changed the zone's statistics).
    pub expire: u8,
    /// This CPU changed the zone's free-page count since its last `refresh_cpu_vm_stats`
    /// (a nonzero `vm_stat_diff`).
    pub stat_diff: bool,
    /// Page heads per list: the hottest at the front.
    pub lists: [VecDeque<u32>; NR_PCP_LISTS],
}

impl Pcp {
    /// Pages on the lists, counted from the lists (the invariant compares it to `count`).
    pub fn listed(&self) -> u32 {
        self.lists
            .iter()
            .enumerate()
            .map(|(p, l)| (l.len() as u32) << pindex_to_order(p))
            .sum()
    }
}

/// Every zone, buddy list and PCP, plus the workload state the PCP scenarios use.
#[derive(Clone, Debug, Default)]
pub struct PageAlloc {
    /// Zones (one per node with memory).
    pub zones: Vec<Zone>,
    /// The zone of each node, if it has memory.
    pub zone_of_node: Vec<Option<u16>>,
    /// PCPs at `cpu * zones.len() + zone`.
    pub pcp: Vec<Pcp>,
    /// Per page: (last touch in ns / 1024 + 1, or 0 if never; the node, our LLC).
    touch: ChunkedVec<(u32, u8)>,
    /// Pages allocated as order-k blocks: the order of each head page.
    pub order: ChunkedVec<u8>,
    /// The vmstat worker of each CPU (task index) and whether its work is queued.
    pub vmstat_task: Vec<u16>,
    /// `vmstat_update` queued on the CPU.
    pub vmstat_armed: Vec<bool>,
    /// Pages each task holds (a process's faulted pages until exit).
    pub held: Vec<Vec<u32>>,
    /// Socket queues of the producer/consumer pairs: (head pfn, order) per message.
    pub pipes: Vec<VecDeque<(u32, u8)>>,
    /// Slab pages of each CPU (kbuild's order 1-3 kernel allocations).
    pub slab: Vec<Vec<(u32, u8)>>,
    /// Σ count over every PCP, and its peak.
    pub pcp_pages: u32,
    /// Workload operations completed and the time of the last one (throughput).
    pub ops_done: u64,
    /// See `ops_done`.
    pub ops_end_ns: u64,
}

/// The sizing of one zone's pagesets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizing {
    /// `batch`.
    pub batch: u32,
    /// `high_min`.
    pub high_min: u32,
    /// `high_max`.
    pub high_max: u32,
}

/// `zone_batchsize` (CONFIG_MMU, v6.6/v6.7): `min(managed >> 10, 256) / 4`, at least 1,
/// then `rounddown_pow_of_two(b + b / 2) - 1` (kernels that capped it at half a megabyte,
/// 128 pages, give 31 where this gives 63: the 4.x sample's Normal zones). A zone under 8,192 pages (the
/// DMA zone's 3,840-3,974 in the real samples) gets 0 here, as in the kernel; the pageset
/// takes [`pageset_batch`].
pub fn zone_batchsize(managed: u32) -> u32 {
    let mut b = (managed >> 10).min(256);
    b /= 4;
    b = b.max(1);
    let x = b + b / 2;
    // rounddown_pow_of_two(x) - 1
    (1u32 << (31 - x.leading_zeros())) - 1
}

/// The `batch` a zone's pagesets get, as `/proc/zoneinfo` prints it: `max(1,
/// zone_batchsize)` (`zone_set_pageset_high_and_batch`, v5.14 to v6.7: `new_batch = max(1,
/// zone_batchsize(zone))`; before v5.14 `pageset_set_batch` passed `max(1UL, 1 * batch)`
/// to `pageset_update`). Never 0 for a zone with pages.
pub fn pageset_batch(managed: u32) -> u32 {
    zone_batchsize(managed).max(1)
}

/// `zone_highsize`: the zone's low watermark (or `managed / fraction`) split over the CPUs
/// of its node (all online CPUs when the node has none), at least `4 * batch`.
pub fn zone_highsize(managed: u32, low_wmark: u32, batch: u32, node_cpus: u32, online: u32, fraction: u32) -> u32 {
    let total = managed.checked_div(fraction).unwrap_or(low_wmark);
    let split = if node_cpus == 0 { online.max(1) } else { node_cpus };
    (total / split).max(4 * batch)
}

/// `__setup_per_zone_wmarks` with one zone per node: `min_free_kbytes =
/// int_sqrt(lowmem_kbytes * 16)` clamped to [128, 262144], each zone's share of it by
/// managed pages; `tmp = max(min / 4, managed * 10 / 10000)`; low = min + tmp, high = low + tmp.
pub fn watermarks(managed: u32, total_managed: u64) -> [u32; 3] {
    let lowmem_kb = total_managed * 4;
    let min_free_kb = isqrt(lowmem_kb * 16).clamp(128, 262_144);
    let min_pages_total = min_free_kb / 4;
    let min = (min_pages_total * u64::from(managed) / total_managed.max(1)) as u32;
    let tmp = (min / 4).max((u64::from(managed) * 10 / 10_000) as u32);
    [min, min + tmp, min + 2 * tmp]
}

fn isqrt(n: u64) -> u64 {
    let mut x = (n as f64).sqrt() as u64;
    while x * x > n {
        x -= 1;
    }
    while (x + 1) * (x + 1) <= n {
        x += 1;
    }
    x
}

/// What sizes a scenario's knobs override.
#[derive(Clone, Copy, Debug, Default)]
pub struct Overrides {
    /// `batch`.
    pub batch: Option<u32>,
    /// `high_min` (v6.6 `high`).
    pub high_min: Option<u32>,
    /// `high_max`.
    pub high_max: Option<u32>,
    /// `vm.percpu_pagelist_high_fraction` (0: default).
    pub fraction: u32,
    /// Per-CPU share of the LLC, KiB (patch 3's `per_cpu_data_slice_size`).
    pub llc_slice_kb: u32,
}

/// `zone_set_pageset_high_and_batch` (v6.7; v6.6 when auto-tuning is off: high_max = high_min).
pub fn sizing(z_managed: u32, low: u32, node_cpus: u32, online: u32, autotune: bool, o: &Overrides) -> Sizing {
    let batch = o.batch.unwrap_or_else(|| pageset_batch(z_managed)).max(1);
    let (mut high_min, mut high_max) = if o.fraction != 0 {
        let h = zone_highsize(z_managed, low, batch, node_cpus, online, o.fraction);
        (h, h)
    } else {
        (
            zone_highsize(z_managed, low, batch, node_cpus, online, 0),
            zone_highsize(z_managed, low, batch, node_cpus, online, 8),
        )
    };
    if let Some(h) = o.high_min {
        high_min = h;
    }
    if let Some(h) = o.high_max {
        high_max = h;
    }
    if !autotune || o.fraction != 0 {
        high_max = high_min;
    }
    // No max(): v6.7 keeps both as computed (a tiny zone's high_max may be the smaller),
    // and the kernel's clamp() then lets high_max win; see [`kclamp`].
    Sizing { batch, high_min, high_max }
}

/// The kernel's `clamp(val, lo, hi)`: `min(max(val, lo), hi)`, so with `hi < lo` the
/// result is `hi` (Rust's `clamp` would panic).
pub fn kclamp(v: u32, lo: u32, hi: u32) -> u32 {
    v.max(lo).min(hi)
}

impl PageAlloc {
    /// Zones for the topology's nodes with memory and one PCP per (CPU, zone).
    pub fn new(topo: &Topology, rules: &Rules, o: &Overrides) -> PageAlloc {
        let total: u64 = topo.nodes.iter().map(|n| u64::from(n.mem_pages)).sum();
        let online = topo.nr_cpus() as u32;
        let mut zones = Vec::new();
        let mut zone_of_node = vec![None; topo.nodes.len()];
        for n in &topo.nodes {
            if n.mem_pages == 0 {
                continue;
            }
            // A pasted /proc/zoneinfo sets the watermarks and the pageset sizes it prints;
            // the scenario's knobs still win over the pasted pageset sizes.
            let (wmark, o) = match &n.zone {
                Some(z) => (
                    z.wmark,
                    Overrides {
                        batch: o.batch.or(z.batch),
                        high_min: o.high_min.or(z.high_min),
                        high_max: o.high_max.or(z.high_max),
                        ..*o
                    },
                ),
                None => (watermarks(n.mem_pages, total), *o),
            };
            let s = sizing(n.mem_pages, wmark[1], n.cpus.len() as u32, online, rules.autotune, &o);
            zone_of_node[n.id as usize] = Some(zones.len() as u16);
            zones.push(Zone {
                nid: n.id,
                managed: n.mem_pages,
                wmark,
                below_high: false,
                reclaim_active: false,
                batch: s.batch,
                high_min: s.high_min,
                high_max: s.high_max,
                buddy: Buddy::new(n.first_pfn, n.mem_pages),
            });
        }
        let mut pcp = Vec::new();
        for _cpu in 0..topo.nr_cpus() {
            for z in &zones {
                // setup_pcp_cacheinfo: PCPF_FREE_HIGH_BATCH when the CPU's LLC slice is
                // larger than 3 * batch pages (patch 3).
                let fhb = rules.free_high_batch && (o.llc_slice_kb / 4) > 3 * z.batch;
                pcp.push(Pcp {
                    high: z.high_min,
                    high_min: z.high_min,
                    high_max: z.high_max,
                    batch: z.batch,
                    flags: if fhb { PCPF_FREE_HIGH_BATCH } else { 0 },
                    ..Pcp::default()
                });
            }
        }
        let pages = topo.total_pages() as usize;
        PageAlloc {
            zones,
            zone_of_node,
            pcp,
            touch: ChunkedVec::new(pages, (0, 0)),
            order: ChunkedVec::new(pages, 0),
            vmstat_armed: vec![false; topo.nr_cpus()],
            slab: vec![Vec::new(); topo.nr_cpus()],
            ..PageAlloc::default()
        }
    }

    /// The PCP of `cpu` for zone `z`.
    pub fn pcp_index(&self, cpu: CpuId, z: usize) -> usize {
        cpu as usize * self.zones.len() + z
    }

    /// Whether zone `z` is on `cpu`'s own node (`zone_to_nid(zone) == numa_node_id()`).
    pub fn zone_is_local(&self, topo: &Topology, cpu: CpuId, z: usize) -> bool {
        self.zones
            .get(z)
            .is_none_or(|zone| Some(&zone.nid) == topo.cpu_node.get(cpu as usize))
    }

    /// The zone holding `pfn`.
    pub fn zone_of_pfn(&self, topo: &Topology, pfn: u32) -> Option<usize> {
        self.zone_of_node
            .get(topo.pfn_to_nid(pfn) as usize)
            .copied()
            .flatten()
            .map(usize::from)
    }

    /// `NR_FREE_PAGES` of node `nid`'s zone: the pages on its buddy lists (pages on the
    /// PCP lists are not counted, as in the kernel); 0 for a node without memory.
    pub fn nr_free(&self, nid: NodeId) -> u32 {
        self.zone_of_node
            .get(nid as usize)
            .copied()
            .flatten()
            .map_or(0, |z| self.zones[z as usize].buddy.nr_free)
    }

    /// Pages of zone `z` on the PCP lists of every CPU.
    pub fn zone_pcp_pages(&self, z: usize) -> u32 {
        let nz = self.zones.len().max(1);
        self.pcp.iter().skip(z).step_by(nz).map(|p| p.count).sum()
    }

    /// Every free page of node `nid`: on the buddy lists or a PCP list.
    pub fn free_pages(&self, nid: NodeId) -> u32 {
        self.zone_of_node
            .get(nid as usize)
            .copied()
            .flatten()
            .map_or(0, |z| self.zones[z as usize].buddy.nr_free + self.zone_pcp_pages(z as usize))
    }

    fn add_pcp_pages(&mut self, n: i64) -> u32 {
        self.pcp_pages = (i64::from(self.pcp_pages) + n).max(0) as u32;
        self.pcp_pages
    }

    /// Bytes of the per-page arrays (buddy links, cache-hot stamps, orders) not shared
    /// with `prev` (all of them without one): what a checkpoint of them costs.
    pub fn unshared_bytes(&self, prev: Option<&PageAlloc>) -> usize {
        fn of<T: Copy>(a: &ChunkedVec<T>, b: Option<&ChunkedVec<T>>) -> usize {
            a.unshared_bytes(b.unwrap_or(&ChunkedVec::default()))
        }
        let buddies: usize = self
            .zones
            .iter()
            .enumerate()
            .map(|(i, z)| {
                let p = prev.and_then(|p| p.zones.get(i)).map(|z| &z.buddy);
                of(&z.buddy.head, p.map(|b| &b.head)) + of(&z.buddy.next, p.map(|b| &b.next)) + of(&z.buddy.prev, p.map(|b| &b.prev))
            })
            .sum();
        buddies + of(&self.touch, prev.map(|p| &p.touch)) + of(&self.order, prev.map(|p| &p.order))
    }

    /// Records a touch of `pfn` at `now` from `node`; returns whether the page was cache
    /// hot (touched within [`HOT_NS`] from the same LLC).
    pub fn touch(&mut self, pfn: u32, now: u64, node: NodeId) -> bool {
        let Some(t) = self.touch.get_mut(pfn as usize) else {
            return false;
        };
        let stamp = (now >> 10) as u32 + 1;
        let hot = t.0 != 0 && t.1 == node && u64::from(stamp.saturating_sub(t.0)) << 10 <= HOT_NS;
        *t = (stamp, node);
        hot
    }
}

/// `nr_pcp_alloc` (v6.7 with patches 5 and 7/8) or v6.6's inline refill count: how many
/// order-`order` blocks one `rmqueue_bulk` takes. May grow `pcp->high` and `alloc_factor`.
pub fn nr_pcp_alloc(pcp: &mut Pcp, zone: &Zone, order: u8, r: &Rules) -> u32 {
    let base = pcp.batch;
    if !r.alloc_factor && !r.autotune {
        // v6.6 __rmqueue_pcplist.
        return if base > 1 { (base >> order).max(2) } else { base };
    }
    if r.autotune {
        pcp.high = kclamp(pcp.high, pcp.high_min, pcp.high_max);
    }
    let mut high = pcp.high;
    if high < base {
        return 1;
    }
    let mut b = if r.alloc_factor && order == 0 {
        base << pcp.alloc_factor
    } else {
        base
    };
    let blocked = if r.below_high { zone.below_high } else { zone.reclaim_active };
    if r.autotune && pcp.high_min != pcp.high_max && !blocked {
        high = (high + b).min(pcp.high_max);
        pcp.high = high;
    }
    if r.alloc_factor && order == 0 {
        let max_nr = high.saturating_sub(pcp.count).saturating_sub(base).max(base);
        if b <= max_nr && pcp.alloc_factor < SCALE_MAX {
            pcp.alloc_factor += 1;
        }
        b = b.min(max_nr);
    }
    if b > 1 {
        b = (b >> order).max(2);
    }
    b
}

/// The free_high decision of `free_unref_page_commit` for a page of `order` just put on
/// the lists (v6.6, patch 1, patch 3, last patch), updating `PCPF_PREV_FREE_HIGH_ORDER`.
pub fn free_high_decision(pcp: &mut Pcp, order: u8, r: &Rules) -> bool {
    let recent = if r.free_count {
        pcp.free_count >= pcp.batch
    } else {
        pcp.free_factor > 0
    };
    let mut free_high = false;
    if (1..=COSTLY_ORDER).contains(&order) {
        if r.prev_free_high_order {
            free_high = recent && pcp.flags & PCPF_PREV_FREE_HIGH_ORDER != 0;
            pcp.flags |= PCPF_PREV_FREE_HIGH_ORDER;
        } else {
            free_high = recent;
        }
        if r.free_high_batch && pcp.flags & PCPF_FREE_HIGH_BATCH != 0 && pcp.count < pcp.batch {
            free_high = false;
        }
    } else if r.prev_free_high_order {
        pcp.flags &= !PCPF_PREV_FREE_HIGH_ORDER;
    }
    free_high
}

/// The `free_count` a rule of the last patch reads, or v6.6's `batch << free_factor`.
fn recent_freed(pcp: &Pcp, r: &Rules) -> u32 {
    if r.free_count {
        pcp.free_count
    } else {
        pcp.batch.checked_shl(u32::from(pcp.free_factor)).unwrap_or(u32::MAX)
    }
}

/// `nr_pcp_high` (v6.6, or v6.7 with auto-tuning): the drain threshold for this free.
pub fn nr_pcp_high(pcp: &mut Pcp, zone: &Zone, free_high: bool, r: &Rules) -> u32 {
    let batch = pcp.batch;
    if !r.autotune {
        if pcp.high == 0 || free_high {
            return 0;
        }
        if zone.reclaim_active {
            return (4 * batch).min(pcp.high);
        }
        return pcp.high;
    }
    let fc = recent_freed(pcp, r);
    let high = kclamp(pcp.high, pcp.high_min, pcp.high_max);
    pcp.high = high;
    if high == 0 {
        return 0;
    }
    if free_high {
        pcp.high = high.saturating_sub(batch << SCALE_MAX).max(pcp.high_min);
        return 0;
    }
    if zone.reclaim_active {
        pcp.high = high.saturating_sub(fc.max(batch)).max(pcp.high_min);
        return (4 * batch).min(pcp.high);
    }
    if pcp.high_min == pcp.high_max {
        return high;
    }
    if r.below_high && zone.below_high {
        pcp.high = high.saturating_sub(fc.max(batch)).max(pcp.high_min);
        return pcp.count.max(pcp.high_min);
    }
    if pcp.count >= high {
        let need = fc.saturating_add(batch);
        if pcp.high < need {
            pcp.high = kclamp(need, pcp.high_min, pcp.high_max);
        }
    }
    high
}

/// `nr_pcp_free`: pages one drain frees (v6.6; patch 4's cap; patch 7's free_high cap; the
/// last patch's `free_count`). Raises v6.6's `free_factor`.
pub fn nr_pcp_free(pcp: &mut Pcp, high: u32, free_high: bool, r: &Rules) -> u32 {
    let batch = pcp.batch;
    if free_high {
        return if r.autotune { pcp.count.min(batch << SCALE_MAX) } else { pcp.count };
    }
    if high < batch {
        return 1;
    }
    let upper = high - batch;
    // clamp(x, batch, high - batch) in the kernel's order (`clamp_t`: the lower bound first,
    // then the upper), so a high below 2 * batch frees high - batch, not batch.
    if r.free_count {
        return pcp.free_count.max(batch).min(upper);
    }
    let b = batch.checked_shl(u32::from(pcp.free_factor)).unwrap_or(u32::MAX);
    let room = if r.autotune { b <= upper } else { b < upper };
    if room && (!r.alloc_factor || pcp.free_factor < SCALE_MAX) {
        pcp.free_factor = pcp.free_factor.saturating_add(1);
    }
    b.max(batch).min(upper)
}

/// `decay_pcp_high` (patch 7, v3's ×7/8): the new `high` and the pages to drain; `todo`
/// says whether the worker must run again.
pub fn decay_pcp_high(pcp: &mut Pcp) -> (u32, bool) {
    let mut todo = false;
    if pcp.high > pcp.high_min {
        let h = pcp.high;
        pcp.high = (pcp.count.saturating_sub(pcp.batch << SCALE_MAX)).max(h - h / 8).max(pcp.high_min);
        if pcp.high > pcp.high_min {
            todo = true;
        }
    }
    let drain = pcp.count.saturating_sub(pcp.high);
    if drain > 0 {
        todo = true;
    }
    (drain, todo)
}

/// Whether `zone` has `pages` free above watermark `w` (`zone_watermark_ok`, simplified:
/// the free pages of the buddy lists only).
pub fn watermark_ok(zone: &Zone, w: usize, pages: u32) -> bool {
    zone.buddy.nr_free >= zone.wmark[w] + pages
}

pub(crate) fn zone_lock(zone: usize) -> LockId {
    LockId {
        class: LockClass::ZoneLock,
        a: zone as u32,
        b: 0,
    }
}

/// Takes a block of `1 << order` pages for an allocation that completes within its
/// caller's step (today: faults, COW, migration targets, huge pages and the scenario's
/// pages at time 0): `get_page_from_freelist`'s walk of the zonelist — the preferred
/// node's zone, then (unless `__GFP_THISNODE`) the other nodes' by distance — taking from
/// the buddy lists (`__rmqueue`). No watermark check, no PCP and no slow path yet: a
/// `None` is what the caller reports as out of memory. The block's pages are marked
/// order 0, so they are freed one by one and the buddy lists merge them again.
pub fn rmqueue_now(pa: &mut PageAlloc, topo: &Topology, gfp: Gfp, order: u8, nid: NodeId) -> Option<u32> {
    let mt = gfp.migratetype();
    let take = |pa: &mut PageAlloc, n: NodeId| {
        let z = pa.zone_of_node.get(n as usize).copied().flatten()?;
        let pfn = pa.zones[z as usize].buddy.take(order, mt)?;
        for p in pfn..pfn + (1u32 << order) {
            pa.order[p as usize] = 0;
        }
        Some(pfn)
    };
    if let Some(p) = take(pa, nid) {
        return Some(p);
    }
    if gfp.has(__GFP_THISNODE) {
        return None;
    }
    // Only when the preferred node cannot serve it (nodes_by_distance allocates its list).
    topo.nodes_by_distance(nid).into_iter().find_map(|n| take(pa, n))
}

/// [`rmqueue_now`] for a running simulation: the frames become allocated pages.
pub fn alloc_pages_now(sim: &mut Sim, gfp: Gfp, order: u8, nid: NodeId) -> Option<u32> {
    let pfn = rmqueue_now(&mut sim.st.page_alloc, &sim.cfg.topo, gfp, order, nid)?;
    for p in pfn..pfn + (1u32 << order) {
        *sim.st.frames.get_mut(p) = crate::machine::Page::ALLOCATED;
    }
    Some(pfn)
}

/// Returns a page to its zone's buddy lists within the caller's step (`free_one_page`
/// without the zone lock's animation; the PCP path is [`FreeUnrefPage`]). The frame's
/// owner generation moves on, so a TLB entry still naming it is told apart.
pub fn free_page_now(sim: &mut Sim, pfn: u32) {
    *sim.st.frames.get_mut(pfn) = crate::machine::Page::FREE;
    sim.st.frames.retire(pfn);
    if let Some(z) = sim.st.page_alloc.zone_of_pfn(&sim.cfg.topo, pfn) {
        sim.st.page_alloc.zones[z].buddy.free(pfn, 0, MT_MOVABLE);
    }
}

/// Marks the frames of a block allocated (in use) or free.
fn mark(sim: &mut Sim, pfn: u32, order: u8, in_use: bool) {
    for p in pfn..pfn + (1 << order) {
        if in_use {
            *sim.st.frames.get_mut(p) = crate::machine::Page::ALLOCATED;
        } else {
            *sim.st.frames.get_mut(p) = crate::machine::Page::FREE;
            sim.st.frames.retire(p);
        }
    }
}

/// Queues the CPU's vmstat work if auto-tuning has something for it to do.
fn arm_vmstat(sim: &mut Sim, cpu: CpuId) {
    let tuning = sim.cfg.toggles.on(m::PCP_HIGH_AUTOTUNE);
    arm_vmstat_for(sim, cpu, tuning);
}

/// Queues the CPU's vmstat work (`vmstat_shepherd` finding a CPU with statistics to fold)
/// if `needed` and it is not queued yet.
fn arm_vmstat_for(sim: &mut Sim, cpu: CpuId, needed: bool) {
    let c = cpu as usize;
    if !needed || sim.st.page_alloc.vmstat_armed.get(c) != Some(&false) {
        return;
    }
    let Some(&task) = sim.st.page_alloc.vmstat_task.get(c) else {
        return;
    };
    sim.st.page_alloc.vmstat_armed[c] = true;
    let now = sim.clock(cpu);
    crate::kernel::sched::core::wake_up_process(sim, now, task);
}

/// Keeps `pcp_high_peak` at the highest `high` seen.
fn note_high(sim: &mut Sim, high: u32) {
    let peak = sim.st.counters.get(m::PCP_HIGH_PEAK);
    if u64::from(high) > peak {
        sim.st.counters.add(m::PCP_HIGH_PEAK, u64::from(high) - peak);
    }
}

fn note_pcp_delta(sim: &mut Sim, delta: i64) {
    let before = sim.st.page_alloc.pcp_pages;
    let peak = sim.st.counters.get(m::PCP_PAGES_PEAK);
    let now = sim.st.page_alloc.add_pcp_pages(delta);
    if now > before && u64::from(now) > peak {
        sim.st.counters.add(m::PCP_PAGES_PEAK, u64::from(now) - peak);
    }
}

/// The zone to allocate from: the preferred node's, else the nearest with memory.
fn preferred_zone(sim: &Sim, nid: NodeId) -> Option<usize> {
    let pa = &sim.st.page_alloc;
    if let Some(z) = pa.zone_of_node.get(nid as usize).copied().flatten() {
        return Some(z as usize);
    }
    sim.cfg
        .topo
        .nodes_by_distance(nid)
        .into_iter()
        .find_map(|n| pa.zone_of_node.get(n as usize).copied().flatten())
        .map(usize::from)
}

/// Where [`AllocPages`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ap {
    /// `get_page_from_freelist`: pick the zone.
    Zone,
    /// `rmqueue_pcplist`.
    Pcp,
    /// `rmqueue_bulk` returned: take the head.
    Refilled,
    /// `rmqueue_buddy` or the reclaim retry returned a page (in `pfn`).
    Done,
    /// Direct reclaim drained the PCPs: try once more.
    Retry,
}

/// `__alloc_pages(gfp, order)` → `get_page_from_freelist` → `rmqueue` →
/// `rmqueue_pcplist` / `__rmqueue_pcplist` (Linux v6.6, and v6.7 with the series), for the
/// calling CPU. Returns the head pfn as `Ret::Count` (`NO_PAGE` on failure).
/// Zone selection is the preferred node's zone then the nearest (`__GFP_THISNODE` is not
/// modelled); the slow path is one `drain_all_pages` and one retry (`__alloc_pages_direct_reclaim`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocPages {
    nid: NodeId,
    order: u8,
    mt: u8,
    pc: Ap,
    zone: u16,
    retried: bool,
    pfn: u32,
}

impl AllocPages {
    /// An allocation of `1 << order` pages of migratetype `mt`, preferring node `nid`.
    pub fn frame(nid: NodeId, order: u8, mt: u8) -> Frame {
        Frame::from(AllocPages {
            nid,
            order,
            mt,
            pc: Ap::Zone,
            zone: 0,
            retried: false,
            pfn: NO_PAGE,
        })
    }

    fn got(&mut self, sim: &mut Sim, cpu: CpuId, pfn: u32) -> (Ev, Flow<Frame>) {
        sim.st.counters.add(m::PGALLOC_NORMAL, 1 << self.order);
        mark(sim, pfn, self.order, true);
        if let Some(o) = sim.st.page_alloc.order.get_mut(pfn as usize) {
            *o = self.order;
        }
        arm_vmstat(sim, cpu);
        let ev = Ev::new(ev::PCP_ALLOC, "alloc_pages", "AP9").pfn(pfn).say(say!(
            sim,
            "CPU {cpu} gets an order-{} page at pfn {pfn} (pgalloc_normal += {})",
            self.order,
            1 << self.order
        ));
        (ev, Flow::Return(Ret::Count(pfn)))
    }
}

impl Function for AllocPages {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let r = Rules::of(sim);
        match self.pc {
            Ap::Zone => {
                let Some(z) = preferred_zone(sim, self.nid) else {
                    let ev =
                        Ev::new(ev::PCP_ALLOC, "get_page_from_freelist", "G4").say(say!(sim, "No node has memory: the allocation fails"));
                    return (ev, Flow::Return(Ret::Count(NO_PAGE)));
                };
                self.zone = z as u16;
                let pages = 1u32 << self.order;
                let zone = &mut sim.st.page_alloc.zones[z];
                // Patch 8: a zone not known to be below its high watermark is taken at once
                // when it passes the high-watermark check; otherwise ZONE_BELOW_HIGH is set.
                let line = if r.below_high {
                    if !zone.below_high && watermark_ok(zone, 2, pages) {
                        "G1"
                    } else {
                        zone.below_high = true;
                        "G2"
                    }
                } else {
                    "G2"
                };
                let ok = watermark_ok(&sim.st.page_alloc.zones[z], 1, pages) || self.retried;
                if !ok {
                    // Below the low watermark: the slow path (direct reclaim drains the PCPs).
                    self.retried = true;
                    self.pc = Ap::Retry;
                    let ev = Ev::new(ev::PCP_DRAIN, "get_page_from_freelist", "G3").say(say!(
                        sim,
                        "Zone of node {} is below its low watermark ({} free): direct reclaim calls drain_all_pages",
                        sim.st.page_alloc.zones[z].nid,
                        sim.st.page_alloc.zones[z].buddy.nr_free
                    ));
                    return (ev, Flow::Call(DrainAllPages::frame(z as u16)));
                }
                self.pc = Ap::Pcp;
                sim.charge(cpu, 10);
                let zone = &sim.st.page_alloc.zones[z];
                let ev = Ev::new(ev::PCP_ALLOC, "get_page_from_freelist", line).say(say!(
                    sim,
                    "get_page_from_freelist: node {}'s zone has {} free pages (watermarks min {} low {} high {}){}",
                    zone.nid,
                    zone.buddy.nr_free,
                    zone.wmark[0],
                    zone.wmark[1],
                    zone.wmark[2],
                    if zone.below_high { ", ZONE_BELOW_HIGH set" } else { "" }
                ));
                (ev, Flow::Continue)
            }
            Ap::Retry => {
                self.pc = Ap::Zone;
                let ev = Ev::new(ev::PCP_ALLOC, "get_page_from_freelist", "G5")
                    .say(say!(sim, "The PCPs are drained: get_page_from_freelist tries again"));
                (ev, Flow::Continue)
            }
            Ap::Pcp => {
                let z = self.zone as usize;
                if !pcp_allowed_order(self.order) {
                    self.pc = Ap::Done;
                    let ev = Ev::new(ev::PCP_ALLOC, "alloc_pages", "AP1").say(say!(
                        sim,
                        "Order {} is not PCP-eligible: rmqueue_buddy",
                        self.order
                    ));
                    return (ev, Flow::Call(RmqueueBuddy::frame(self.zone, self.order, self.mt)));
                }
                let pi = sim.st.page_alloc.pcp_index(cpu, z);
                let pindex = order_to_pindex(self.mt, self.order);
                sim.st.counters.inc(m::PCP_ALLOCS);
                let pcp = &mut sim.st.page_alloc.pcp[pi];
                if r.free_count {
                    pcp.free_count >>= 1;
                } else {
                    pcp.free_factor >>= 1;
                }
                if let Some(pfn) = pcp.lists[pindex].pop_front() {
                    pcp.count -= 1 << self.order;
                    let count = pcp.count;
                    note_pcp_delta(sim, -(1i64 << self.order));
                    sim.st.counters.inc(m::PCP_ALLOC_HITS);
                    sim.charge(cpu, sim.cfg.costs[m::PCP_HIT_NS]);
                    let (ev0, flow) = self.got(sim, cpu, pfn);
                    let ev = Ev::new(ev::PCP_ALLOC, "alloc_pages", "AP3").pfn(pfn).say(say!(
                        sim,
                        "rmqueue_pcplist on CPU {cpu}: list {pindex} (order {}) has a page: pfn {pfn} from its head, count now {count}. {}",
                        self.order,
                        ev0.text
                    ));
                    return (ev, flow);
                }
                let n = nr_pcp_alloc(
                    &mut sim.st.page_alloc.pcp[pi],
                    &sim.st.page_alloc.zones[z].clone_flags(),
                    self.order,
                    &r,
                );
                self.pc = Ap::Refilled;
                let high = sim.st.page_alloc.pcp[pi].high;
                note_high(sim, high);
                let pcp = &sim.st.page_alloc.pcp[pi];
                let ev = Ev::new(ev::PCP_REFILL, "nr_pcp_alloc", "NA1").say(say!(
                    sim,
                    "rmqueue_pcplist on CPU {cpu}: list {pindex} is empty; nr_pcp_alloc asks rmqueue_bulk for {n} order-{} blocks (high {}, alloc_factor {})",
                    self.order,
                    pcp.high,
                    pcp.alloc_factor
                ));
                (ev, Flow::Call(RmqueueBulk::frame(self.zone, self.order, self.mt, n)))
            }
            Ap::Refilled => {
                let z = self.zone as usize;
                let pi = sim.st.page_alloc.pcp_index(cpu, z);
                let pindex = order_to_pindex(self.mt, self.order);
                let pcp = &mut sim.st.page_alloc.pcp[pi];
                if let Some(pfn) = pcp.lists[pindex].pop_front() {
                    pcp.count -= 1 << self.order;
                    note_pcp_delta(sim, -(1i64 << self.order));
                    return self.got(sim, cpu, pfn);
                }
                self.pc = Ap::Done;
                let ev = Ev::new(ev::PCP_ALLOC, "alloc_pages", "AP4")
                    .say(say!(sim, "rmqueue_bulk found nothing: rmqueue_buddy tries the zone directly"));
                (ev, Flow::Call(RmqueueBuddy::frame(self.zone, self.order, self.mt)))
            }
            Ap::Done => {
                if self.pfn != NO_PAGE {
                    let pfn = self.pfn;
                    return self.got(sim, cpu, pfn);
                }
                if !self.retried {
                    self.retried = true;
                    self.pc = Ap::Retry;
                    let ev = Ev::new(ev::PCP_DRAIN, "get_page_from_freelist", "G3")
                        .say(say!(sim, "The zone is empty: direct reclaim calls drain_all_pages"));
                    return (ev, Flow::Call(DrainAllPages::frame(self.zone)));
                }
                let ev = Ev::new(ev::PCP_ALLOC, "get_page_from_freelist", "G4")
                    .say(say!(sim, "No free page left after draining the PCPs: the allocation fails"));
                (ev, Flow::Return(Ret::Count(NO_PAGE)))
            }
        }
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if let (Ap::Done, Ret::Count(p)) = (self.pc, r) {
            self.pfn = p;
        }
    }
}

impl Zone {
    /// The flags and watermarks alone (what the PCP rules read), without the free lists.
    fn clone_flags(&self) -> Zone {
        Zone {
            nid: self.nid,
            managed: self.managed,
            wmark: self.wmark,
            below_high: self.below_high,
            reclaim_active: self.reclaim_active,
            batch: self.batch,
            high_min: self.high_min,
            high_max: self.high_max,
            buddy: Buddy::default(),
        }
    }
}

/// The zone-lock hold time of a section moving `blocks` blocks (one `__rmqueue` or
/// `__free_one_page` each, whatever their order).
fn hold_ns(sim: &Sim, blocks: u32) -> u64 {
    sim.cfg.costs[m::ZONE_LOCK_NS] + sim.cfg.costs[m::ZONE_LOCK_PAGE_NS] * u64::from(blocks)
}

/// The blocks `free_pcppages_bulk(n, pindex)` will free from `pcp`: its round-robin walk
/// from `pindex`, tail pages first, until `n` pages are freed.
pub fn drain_blocks(pcp: &Pcp, n: u32, pindex: usize) -> u32 {
    let mut left = i64::from(n.min(pcp.count));
    let mut blocks = 0;
    for k in 0..NR_PCP_LISTS {
        if left <= 0 {
            break;
        }
        let p = (pindex + k) % NR_PCP_LISTS;
        let size = 1i64 << pindex_to_order(p);
        let len = pcp.lists[p].len() as i64;
        // Pages are taken from this list until it is empty or `left` is used up.
        let take = len.min((left + size - 1) / size);
        blocks += take as u32;
        left -= take * size;
    }
    blocks
}

/// Takes the zone lock (or queues), counting the acquisition and the time spun.
fn take_zone_lock(sim: &mut Sim, cpu: CpuId, zone: u16, blocks: u32, waiting: &mut u64) -> bool {
    let id = zone_lock(zone as usize);
    let ns = hold_ns(sim, blocks);
    let now = sim.clock(cpu);
    if sim.lock(cpu, id, ns) {
        if *waiting != u64::MAX {
            sim.st.counters.add(m::ZONE_LOCK_WAIT_NS, now.saturating_sub(*waiting));
            *waiting = u64::MAX;
        }
        sim.st.counters.inc(m::ZONE_LOCK_ACQUIRED);
        // Whatever is done under the lock changes NR_FREE_PAGES: this CPU's diff for the
        // zone, which the next refresh_cpu_vm_stats folds (and, for a remote zone, arms
        // the pageset's expire).
        let pi = sim.st.page_alloc.pcp_index(cpu, zone as usize);
        if let Some(p) = sim.st.page_alloc.pcp.get_mut(pi) {
            p.stat_diff = true;
        }
        if !sim.st.page_alloc.zone_is_local(&sim.cfg.topo, cpu, zone as usize) {
            arm_vmstat_for(sim, cpu, true);
        }
        true
    } else {
        if *waiting == u64::MAX {
            *waiting = now;
        }
        false
    }
}

/// `rmqueue_bulk(zone, order, count, list, migratetype)`: under the zone lock, `count`
/// × `__rmqueue`, each block appended to the tail of the calling CPU's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RmqueueBulk {
    zone: u16,
    order: u8,
    mt: u8,
    locked: bool,
    n: u32,
    waiting: u64,
}

impl RmqueueBulk {
    /// A refill of `n` blocks.
    pub fn frame(zone: u16, order: u8, mt: u8, n: u32) -> Frame {
        Frame::from(RmqueueBulk {
            zone,
            order,
            mt,
            locked: false,
            n,
            waiting: u64::MAX,
        })
    }
}

impl Function for RmqueueBulk {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "rmqueue_bulk";
        if !self.locked {
            if !take_zone_lock(sim, cpu, self.zone, self.n, &mut self.waiting) {
                let ev = Ev::new(core_ev::LOCK_WAIT, F, "RB1").say(say!(sim, "CPU {cpu} finds zone {}'s lock held: it spins", self.zone));
                return (ev, Flow::Block(Until::Lock(zone_lock(self.zone as usize))));
            }
            self.locked = true;
            let ev = Ev::new(ev::ZONE_LOCK, F, "RB1").say(say!(
                sim,
                "CPU {cpu} takes zone {}'s lock to move {} order-{} blocks ({} ns held)",
                self.zone,
                self.n,
                self.order,
                hold_ns(sim, self.n)
            ));
            return (ev, Flow::Continue);
        }
        let z = self.zone as usize;
        let pi = sim.st.page_alloc.pcp_index(cpu, z);
        let pindex = order_to_pindex(self.mt, self.order);
        let mut got = 0;
        for _ in 0..self.n {
            let Some(pfn) = sim.st.page_alloc.zones[z].buddy.take(self.order, self.mt) else {
                break;
            };
            sim.st.page_alloc.pcp[pi].lists[pindex].push_back(pfn);
            got += 1;
        }
        let pages = got << self.order;
        sim.st.page_alloc.pcp[pi].count += pages;
        note_pcp_delta(sim, i64::from(pages));
        sim.st.counters.add(m::PCP_ALLOC_ZONE_PAGES, u64::from(pages));
        sim.st.counters.inc(m::PCP_REFILLS);
        sim.unlock(cpu, zone_lock(z), 0);
        let ev = Ev::new(ev::PCP_REFILL, F, "RB3").say(say!(
            sim,
            "rmqueue_bulk moves {got} order-{} blocks from the buddy lists to the tail of CPU {cpu}'s list {pindex} and drops the zone lock (count {})",
            self.order,
            sim.st.page_alloc.pcp[pi].count
        ));
        (ev, Flow::Return(Ret::Count(got)))
    }
}

/// `rmqueue_buddy`: one block straight from the buddy lists under the zone lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RmqueueBuddy {
    zone: u16,
    order: u8,
    mt: u8,
    locked: bool,
    waiting: u64,
}

impl RmqueueBuddy {
    /// One block of `order`.
    pub fn frame(zone: u16, order: u8, mt: u8) -> Frame {
        Frame::from(RmqueueBuddy {
            zone,
            order,
            mt,
            locked: false,
            waiting: u64::MAX,
        })
    }
}

impl Function for RmqueueBuddy {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "rmqueue_buddy";
        if !self.locked {
            if !take_zone_lock(sim, cpu, self.zone, 1, &mut self.waiting) {
                let ev = Ev::new(core_ev::LOCK_WAIT, F, "RD1").say(say!(sim, "CPU {cpu} spins on zone {}'s lock", self.zone));
                return (ev, Flow::Block(Until::Lock(zone_lock(self.zone as usize))));
            }
            self.locked = true;
            let ev = Ev::new(ev::ZONE_LOCK, F, "RD1").say(say!(sim, "CPU {cpu} takes zone {}'s lock for one block", self.zone));
            return (ev, Flow::Continue);
        }
        let z = self.zone as usize;
        let pfn = sim.st.page_alloc.zones[z].buddy.take(self.order, self.mt);
        if pfn.is_some() {
            sim.st.counters.add(m::PCP_ALLOC_ZONE_PAGES, 1 << self.order);
        }
        sim.unlock(cpu, zone_lock(z), 0);
        let ev = Ev::new(ev::ZONE_LOCK, F, "RD2").say(say!(sim, "rmqueue_buddy: {:?}; the zone lock is dropped", pfn));
        (ev, Flow::Return(Ret::Count(pfn.unwrap_or(NO_PAGE))))
    }
}

/// Where [`FreeUnrefPage`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fp {
    Commit,
    Drained,
}

/// `free_the_page` → `free_unref_page` → `free_unref_page_commit` (v6.6 / the series), on
/// the calling CPU. Orders the PCP does not take go to [`FreeOnePage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreeUnrefPage {
    pfn: u32,
    order: u8,
    mt: u8,
    pc: Fp,
    zone: u16,
}

impl FreeUnrefPage {
    /// A free of the block at `pfn`.
    pub fn frame(pfn: u32, order: u8, mt: u8) -> Frame {
        Frame::from(FreeUnrefPage {
            pfn,
            order,
            mt,
            pc: Fp::Commit,
            zone: 0,
        })
    }
}

impl Function for FreeUnrefPage {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "free_unref_page_commit";
        let r = Rules::of(sim);
        if self.pc == Fp::Drained {
            // Patch 8: clear ZONE_BELOW_HIGH once the zone is back above its high watermark.
            let z = &mut sim.st.page_alloc.zones[self.zone as usize];
            let cleared = r.below_high && z.below_high && watermark_ok(z, 2, 0);
            if cleared {
                z.below_high = false;
            }
            let ev = Ev::new(ev::PCP_FREE, F, "FC9").say(say!(
                sim,
                "The drain is done{}",
                if cleared {
                    "; the zone is above its high watermark again: ZONE_BELOW_HIGH cleared"
                } else {
                    ""
                }
            ));
            return (ev, Flow::Return(Ret::Unit));
        }
        let Some(z) = sim.st.page_alloc.zone_of_pfn(&sim.cfg.topo, self.pfn) else {
            return (Ev::new(ev::PCP_FREE, F, "FC1"), Flow::Return(Ret::Unit));
        };
        self.zone = z as u16;
        sim.st.counters.add(m::PGFREE, 1 << self.order);
        mark(sim, self.pfn, self.order, false);
        if !pcp_allowed_order(self.order) {
            let ev = Ev::new(ev::PCP_FREE, "free_unref_page", "FU1").pfn(self.pfn);
            return (ev, Flow::Call(FreeOnePage::frame(self.zone, self.pfn, self.order, self.mt)));
        }
        arm_vmstat(sim, cpu);
        let pi = sim.st.page_alloc.pcp_index(cpu, z);
        let pindex = order_to_pindex(self.mt, self.order);
        let zone = sim.st.page_alloc.zones[z].clone_flags();
        let pcp = &mut sim.st.page_alloc.pcp[pi];
        if r.alloc_factor {
            pcp.alloc_factor >>= 1;
        }
        pcp.lists[pindex].push_front(self.pfn);
        pcp.count += 1 << self.order;
        let free_high = free_high_decision(pcp, self.order, &r);
        if r.free_count && pcp.free_count < pcp.batch << SCALE_MAX {
            pcp.free_count += 1 << self.order;
        }
        let high = nr_pcp_high(pcp, &zone, free_high, &r);
        let (count, batch, ff, fc) = (pcp.count, pcp.batch, pcp.free_factor, pcp.free_count);
        let n = if count >= high { nr_pcp_free(pcp, high, free_high, &r) } else { 0 };
        let new_high = pcp.high;
        note_high(sim, new_high);
        note_pcp_delta(sim, 1 << self.order);
        sim.charge(cpu, sim.cfg.costs[m::PCP_HIT_NS]);
        let (recent, rv) = if r.free_count {
            ("free_count", fc)
        } else {
            ("free_factor", u32::from(ff))
        };
        if n == 0 {
            let ev = Ev::new(ev::PCP_FREE, F, "FC4").pfn(self.pfn).say(say!(
                sim,
                "CPU {cpu} frees an order-{} page (pfn {}) to the head of its list {pindex}: count {count} < high {high} (batch {batch}, {recent} {rv})",
                self.order,
                self.pfn
            ));
            return (ev, Flow::Return(Ret::Unit));
        }
        if free_high {
            sim.st.counters.inc(m::PCP_FREE_HIGH);
        }
        self.pc = Fp::Drained;
        let (kind, line) = if free_high { (ev::FREE_HIGH, "FC3") } else { (ev::PCP_FREE, "FC5") };
        let ev = Ev::new(kind, F, line).pfn(self.pfn).say(say!(
            sim,
            "CPU {cpu} frees an order-{} page (pfn {}): count {count} >= high {high}{}: free_pcppages_bulk frees {n} pages ({recent} {rv})",
            self.order,
            self.pfn,
            if free_high {
                " (free_high: a high-order free after recent freeing drains the PCP)"
            } else {
                ""
            }
        ));
        (ev, Flow::Call(FreePcppagesBulk::frame(self.zone, cpu, n, pindex as u8)))
    }
}

/// `free_one_page`: a block straight back to the buddy lists under the zone lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreeOnePage {
    zone: u16,
    pfn: u32,
    order: u8,
    mt: u8,
    locked: bool,
    waiting: u64,
}

impl FreeOnePage {
    /// A free of `pfn`.
    pub fn frame(zone: u16, pfn: u32, order: u8, mt: u8) -> Frame {
        Frame::from(FreeOnePage {
            zone,
            pfn,
            order,
            mt,
            locked: false,
            waiting: u64::MAX,
        })
    }
}

impl Function for FreeOnePage {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "free_one_page";
        if !self.locked {
            if !take_zone_lock(sim, cpu, self.zone, 1, &mut self.waiting) {
                let ev = Ev::new(core_ev::LOCK_WAIT, F, "FO1").say(say!(sim, "CPU {cpu} spins on zone {}'s lock", self.zone));
                return (ev, Flow::Block(Until::Lock(zone_lock(self.zone as usize))));
            }
            self.locked = true;
            return (Ev::new(ev::ZONE_LOCK, F, "FO1"), Flow::Continue);
        }
        let z = self.zone as usize;
        sim.st.page_alloc.zones[z].buddy.free(self.pfn, self.order, self.mt);
        sim.unlock(cpu, zone_lock(z), 0);
        let ev = Ev::new(ev::ZONE_LOCK, F, "FO2").pfn(self.pfn).say(say!(
            sim,
            "free_one_page: pfn {} (order {}) goes back to the buddy lists",
            self.pfn,
            self.order
        ));
        (ev, Flow::Return(Ret::Unit))
    }
}

/// `free_pcppages_bulk(zone, count, pcp, pindex)`: under the zone lock, round-robin over
/// the lists from `pindex`, coldest (tail) pages first, each through `__free_one_page`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreePcppagesBulk {
    zone: u16,
    /// Whose PCP (a remote drain frees another CPU's).
    owner: CpuId,
    n: u32,
    pindex: u8,
    locked: bool,
    waiting: u64,
}

impl FreePcppagesBulk {
    /// A drain of `n` pages of `owner`'s PCP for `zone`.
    pub fn frame(zone: u16, owner: CpuId, n: u32, pindex: u8) -> Frame {
        Frame::from(FreePcppagesBulk {
            zone,
            owner,
            n,
            pindex,
            locked: false,
            waiting: u64::MAX,
        })
    }
}

impl Function for FreePcppagesBulk {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "free_pcppages_bulk";
        let z = self.zone as usize;
        let pi = sim.st.page_alloc.pcp_index(self.owner, z);
        if !self.locked {
            self.n = self.n.min(sim.st.page_alloc.pcp[pi].count);
            let blocks = drain_blocks(&sim.st.page_alloc.pcp[pi], self.n, self.pindex as usize);
            if !take_zone_lock(sim, cpu, self.zone, blocks, &mut self.waiting) {
                let ev = Ev::new(core_ev::LOCK_WAIT, F, "FB1").say(say!(sim, "CPU {cpu} spins on zone {}'s lock", self.zone));
                return (ev, Flow::Block(Until::Lock(zone_lock(z))));
            }
            self.locked = true;
            let ev = Ev::new(ev::ZONE_LOCK, F, "FB1").say(say!(
                sim,
                "CPU {cpu} takes zone {}'s lock to free {} pages ({blocks} blocks, {} ns held)",
                self.zone,
                self.n,
                hold_ns(sim, blocks)
            ));
            return (ev, Flow::Continue);
        }
        let mut left = i64::from(self.n.min(sim.st.page_alloc.pcp[pi].count));
        let mut p = self.pindex as usize % NR_PCP_LISTS;
        let mut freed = 0u32;
        let pa = &mut sim.st.page_alloc;
        while left > 0 && pa.pcp[pi].count > 0 {
            while pa.pcp[pi].lists[p].is_empty() {
                p = (p + 1) % NR_PCP_LISTS;
            }
            let order = pindex_to_order(p);
            let mt = if p == NR_PCP_LISTS - 1 {
                MT_MOVABLE
            } else {
                (p % MIGRATE_PCPTYPES) as u8
            };
            while left > 0 {
                let Some(pfn) = pa.pcp[pi].lists[p].pop_back() else {
                    break;
                };
                pa.pcp[pi].count -= 1 << order;
                left -= 1 << order;
                freed += 1 << order;
                pa.zones[z].buddy.free(pfn, order, mt);
            }
        }
        note_pcp_delta(sim, -i64::from(freed));
        sim.st.counters.inc(m::PCP_DRAINS);
        sim.unlock(cpu, zone_lock(z), 0);
        let ev = Ev::new(ev::PCP_DRAIN, F, "FB3").say(say!(
            sim,
            "free_pcppages_bulk frees {freed} pages of CPU {}'s PCP from the list tails to the buddy lists ({} left) and drops the zone lock",
            self.owner,
            sim.st.page_alloc.pcp[pi].count
        ));
        (ev, Flow::Return(Ret::Count(freed)))
    }
}

/// `drain_all_pages(zone)` as direct reclaim calls it: every CPU's PCP for the zone is
/// drained (`drain_pages_zone`), by the calling CPU itself, one `free_pcppages_bulk` each
/// under that PCP's spinlock, as v6.0+ does (443c2accd1b6 "mm/page_alloc: remotely drain
/// per-cpu lists"; before v6.0 it queued drain work on each CPU and waited for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrainAllPages {
    zone: u16,
    next: u16,
}

impl DrainAllPages {
    /// A drain of zone `zone` on every CPU.
    pub fn frame(zone: u16) -> Frame {
        Frame::from(DrainAllPages { zone, next: 0 })
    }
}

impl Function for DrainAllPages {
    fn step(&mut self, sim: &mut Sim, _cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "drain_all_pages";
        let z = self.zone as usize;
        let ncpu = sim.cfg.topo.nr_cpus() as u16;
        while self.next < ncpu {
            let c = self.next;
            self.next += 1;
            let pi = sim.st.page_alloc.pcp_index(c as CpuId, z);
            let count = sim.st.page_alloc.pcp[pi].count;
            if count > 0 {
                let ev = Ev::new(ev::PCP_DRAIN, F, "DA1").say(say!(sim, "drain_all_pages: CPU {c} holds {count} pages"));
                return (ev, Flow::Call(FreePcppagesBulk::frame(self.zone, c as CpuId, count, 0)));
            }
        }
        let ev = Ev::new(ev::PCP_DRAIN, F, "DA2").say(say!(sim, "drain_all_pages: every PCP of the zone is empty"));
        (ev, Flow::Return(Ret::Unit))
    }
}

/// The vmstat worker's `vmstat_update` → `refresh_cpu_vm_stats(true)`, every
/// `vmstat_interval_ms`: it waits for the interval, then for each zone folds this CPU's
/// statistics (a pageset whose zone changed gets `expire = 3`, "3 seconds idle till
/// flush"), decays `high` and drains the excess (patch 7, v3 decay ×7/8), and for a zone
/// of another node counts `expire` down and, at 0, drains a batch (`drain_zone_pages`).
/// The work is queued again while there is more to do (`vmstat_update` re-queues itself
/// when `refresh_cpu_vm_stats` reports changes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmstatUpdate {
    cpu: CpuId,
    pc: u8,
    zone: u16,
    /// For the current zone: 0 decay next, 1 expire next.
    part: u8,
    todo: bool,
}

impl VmstatUpdate {
    /// The work of `cpu`'s worker.
    pub fn frame(cpu: CpuId) -> Frame {
        Frame::from(VmstatUpdate {
            cpu,
            pc: 0,
            zone: 0,
            part: 0,
            todo: false,
        })
    }
}

/// `refresh_cpu_vm_stats`' remote-pageset step for one pageset (Linux v6.6/v6.7
/// mm/vmstat.c): `None` when there is nothing to expire (or the zone is local, which
/// clears `expire`), else whether it is time to drain; counting down is a change (`todo`).
pub fn expire_remote_pcp(pcp: &mut Pcp, local: bool) -> Option<bool> {
    if pcp.expire == 0 || pcp.count == 0 {
        return None;
    }
    if local {
        pcp.expire = 0;
        return None;
    }
    pcp.expire -= 1;
    Some(pcp.expire == 0)
}

/// `Mechanism::kthreads`' work for the vmstat workers.
pub fn vmstat_work(sim: &mut Sim, task: u16) -> Option<Frame> {
    let cpu = sim.st.tasks[task as usize].home as CpuId;
    if sim.st.page_alloc.vmstat_armed.get(cpu as usize) == Some(&true) {
        Some(VmstatUpdate::frame(cpu))
    } else {
        None
    }
}

impl Function for VmstatUpdate {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "decay_pcp_high";
        if self.pc == 0 {
            self.pc = 1;
            let until = sim.clock(cpu) + sim.cfg.knobs.value(m::VMSTAT_INTERVAL_NS);
            let ev =
                Ev::new(core_ev::SLEEP, F, "DH0").say(say!(sim, "vmstat_update is queued on CPU {cpu}: it runs in one vmstat interval"));
            return (ev, Flow::Block(Until::Sleep(until)));
        }
        let nz = sim.st.page_alloc.zones.len() as u16;
        if self.zone < nz && self.part == 0 {
            let z = self.zone;
            self.part = 1;
            let pi = sim.st.page_alloc.pcp_index(self.cpu, z as usize);
            let tuning = sim.cfg.toggles.on(m::PCP_HIGH_AUTOTUNE);
            let pcp = &mut sim.st.page_alloc.pcp[pi];
            // Fold this CPU's diff: 3 seconds idle till flush.
            if std::mem::take(&mut pcp.stat_diff) {
                pcp.expire = 3;
            }
            if !tuning {
                return self.step(sim, cpu);
            }
            let old = pcp.high;
            let (drain, todo) = decay_pcp_high(pcp);
            self.todo |= todo;
            let (high, count) = (pcp.high, pcp.count);
            sim.charge(cpu, 200);
            let ev = Ev::new(ev::PCP_DECAY, F, if drain > 0 { "DH2" } else { "DH1" }).say(say!(
                sim,
                "decay_pcp_high on CPU {}: high {old} -> {high} (high_min {}), count {count}{}",
                self.cpu,
                sim.st.page_alloc.pcp[pi].high_min,
                if drain > 0 {
                    format!(": drain {drain} pages")
                } else {
                    String::new()
                }
            ));
            if drain > 0 {
                return (ev, Flow::Call(FreePcppagesBulk::frame(z, self.cpu, drain, 0)));
            }
            return (ev, Flow::Continue);
        }
        if self.zone < nz {
            let z = self.zone;
            self.zone += 1;
            self.part = 0;
            let pi = sim.st.page_alloc.pcp_index(self.cpu, z as usize);
            let local = sim.st.page_alloc.zone_is_local(&sim.cfg.topo, self.cpu, z as usize);
            let pcp = &mut sim.st.page_alloc.pcp[pi];
            let Some(now) = expire_remote_pcp(pcp, local) else {
                return self.step(sim, cpu);
            };
            self.todo = true;
            let (expire, count, batch) = (pcp.expire, pcp.count, pcp.batch);
            sim.charge(cpu, 100);
            if !now {
                let ev = Ev::new(ev::PCP_DECAY, F, "DX1").say(say!(
                    sim,
                    "refresh_cpu_vm_stats on CPU {}: its pageset of node {}'s zone (another node's) holds {count} pages: expire {} -> {expire} (3 again whenever this CPU changes that zone's free pages)",
                    self.cpu,
                    sim.st.page_alloc.zones[z as usize].nid,
                    expire + 1
                ));
                return (ev, Flow::Continue);
            }
            let n = count.min(batch);
            let ev = Ev::new(ev::PCP_DRAIN, F, "DX2").say(say!(
                sim,
                "refresh_cpu_vm_stats on CPU {}: the pageset of node {}'s zone expired: drain_zone_pages frees {n} of its {count} pages",
                self.cpu,
                sim.st.page_alloc.zones[z as usize].nid
            ));
            return (ev, Flow::Call(FreePcppagesBulk::frame(z, self.cpu, n, 0)));
        }
        let c = self.cpu as usize;
        if let Some(a) = sim.st.page_alloc.vmstat_armed.get_mut(c) {
            *a = self.todo;
        }
        let ev = Ev::new(core_ev::RETURN, F, "DH3").say(say!(
            sim,
            "vmstat_update on CPU {}: {}",
            self.cpu,
            if self.todo {
                "more to do (decay or expire): queued again"
            } else {
                "nothing changed: not queued again"
            }
        ));
        (ev, Flow::Return(Ret::Unit))
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, _r: Ret) {}
}
