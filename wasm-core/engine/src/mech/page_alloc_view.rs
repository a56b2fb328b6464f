//! What the lab's PCP panel (`web/src/panels/pcp/`) draws at one step: per zone its buddy
//! free area by order, watermarks, sizing and the zone lock (holder and queue of waiters);
//! per (CPU, zone) the pageset of `struct per_cpu_pages` (Linux v6.7 `include/linux/mmzone.h`:
//! `count`, `high`, `high_min`, `high_max`, `batch`, `flags`, `free_count`, `alloc_factor`,
//! v6.6's `free_factor`) with the pages on each of its 13 lists (`order_to_pindex`), and
//! the page-allocator function each CPU is in (`rmqueue_bulk`, `free_pcppages_bulk`, …).
//!
//! Built from the `Sim` at the current step only (a frame is a pure function of the step,
//! so time travel shows the state of the step sought). A big machine is capped: at most
//! [`MAX_CPUS`] CPUs are listed one by one, and `totals` sums every CPU's pagesets per zone
//! so nothing is hidden from the totals.

use crate::engine::Sim;
use crate::mm::page_alloc::{self as pa, PCPF_FREE_HIGH_BATCH, PCPF_PREV_FREE_HIGH_ORDER};
use crate::registry::Frame;
use serde::Serialize;

/// CPUs listed one by one in the snapshot (the rest only in [`PcpView::totals`]).
pub const MAX_CPUS: usize = 64;

/// `migratetype_names` of the three PCP migratetypes, in index order.
const MIGRATETYPES: [&str; pa::MIGRATE_PCPTYPES] = ["Unmovable", "Movable", "Reclaimable"];

/// The PCP panel's state at one step.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PcpView {
    /// The 13 lists of a pageset, in `pindex` order (what each [`PcpCpuView::lists`] entry is).
    pub lists: Vec<PcpListInfo>,
    /// Zones (one per node with memory).
    pub zones: Vec<PcpZoneView>,
    /// Pagesets of the first [`MAX_CPUS`] CPUs, CPU-major (`cpu * zones + zone`).
    pub pcps: Vec<PcpCpuView>,
    /// CPUs of the machine.
    pub nr_cpus: u16,
    /// CPUs listed in `pcps` (the first ones; fewer than `nr_cpus` on a big machine).
    pub cpus_listed: u16,
    /// Per zone, the sums over every CPU's pageset (all CPUs, listed or not).
    pub totals: Vec<PcpTotalsView>,
    /// `high` auto-tuning is on (patch 7): `high` moves between `high_min` and `high_max`.
    pub autotune: bool,
}

/// One list of a pageset.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PcpListInfo {
    /// Order of its pages (9 for the THP list).
    pub order: u8,
    /// Migratetype ("Unmovable", "Movable", "Reclaimable"; "Movable" for THP).
    pub migratetype: &'static str,
}

/// One zone.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PcpZoneView {
    /// Zone index (the lock's and the pagesets' `zone`).
    pub id: u16,
    /// Its node.
    pub node: u8,
    /// `managed_pages`.
    pub managed: u32,
    /// Watermarks min, low, high (pages).
    pub wmark: [u32; 3],
    /// Free pages in the buddy lists (`NR_FREE_PAGES` less the PCPs).
    pub buddy_free: u32,
    /// Pages on every CPU's pageset of this zone.
    pub pcp_pages: u32,
    /// Pages in use: managed − buddy − PCP.
    pub in_use: u32,
    /// Free blocks per order 0..=10 (`free_area[order].nr_free`).
    pub free_blocks: Vec<u32>,
    /// `pageset_batch`.
    pub batch: u32,
    /// `pageset_high_min`.
    pub high_min: u32,
    /// `pageset_high_max`.
    pub high_max: u32,
    /// `ZONE_BELOW_HIGH` (patch 8).
    pub below_high: bool,
    /// The zone lock.
    pub lock: ZoneLockView,
}

/// `zone->lock` at this step.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ZoneLockView {
    /// The CPU holding it, or null.
    pub holder: Option<u16>,
    /// The task on the holding CPU ("pid/tid", a kernel thread's name).
    pub holder_task: Option<String>,
    /// Tasks queued for it, first first.
    pub waiters: Vec<LockWaiterView>,
}

/// A task waiting for a zone lock.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LockWaiterView {
    /// Its CPU.
    pub cpu: u16,
    /// "pid/tid" or a kernel thread's name.
    pub task: String,
}

/// One (CPU, zone) pageset.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PcpCpuView {
    /// CPU.
    pub cpu: u16,
    /// Zone index.
    pub zone: u16,
    /// `count`: pages on the lists.
    pub count: u32,
    /// `high`: the drain threshold.
    pub high: u32,
    /// `high_min`.
    pub high_min: u32,
    /// `high_max`.
    pub high_max: u32,
    /// `batch`.
    pub batch: u32,
    /// Flags set: "PREV_FREE_HIGH_ORDER", "FREE_HIGH_BATCH".
    pub flags: Vec<&'static str>,
    /// v6.6 `free_factor`.
    pub free_factor: u8,
    /// `expire`: vmstat intervals before a remote zone's pageset drains a batch (0: none pending).
    pub expire: u8,
    /// `free_count` (patch 10).
    pub free_count: u32,
    /// `alloc_factor` (patch 5).
    pub alloc_factor: u8,
    /// Pages on each list, in [`PcpView::lists`] order (a block of order k counts 2^k).
    pub lists: Vec<u32>,
    /// The page-allocator function on top of the CPU's stack (e.g. "rmqueue_bulk",
    /// "free_pcppages_bulk"), or "" when none.
    pub in_function: &'static str,
    /// The CPU is spinning on this zone's lock.
    pub spinning: bool,
}

/// Per zone, the sums over every CPU's pageset.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PcpTotalsView {
    /// Zone index.
    pub zone: u16,
    /// Σ `count`.
    pub count: u32,
    /// Σ `high`.
    pub high: u64,
    /// The largest `high`.
    pub high_peak: u32,
    /// Pages on each list, summed.
    pub lists: Vec<u32>,
}

/// Whether the run uses the page allocator's workloads (a `process_cycle` or `sock_pair`
/// operation): every run has zones (other mechanisms allocate through them), but only these
/// runs get the panel's state.
fn uses_pcp(sim: &Sim) -> bool {
    let ops: Vec<&'static str> = crate::registry::ops().map(|o| o.name).collect();
    let ours = |i: u16| {
        ops.get(usize::from(i))
            .is_some_and(|n| crate::mm::pcp_workload::OPS.iter().any(|o| o.name == *n))
    };
    sim.cfg
        .ops
        .iter()
        .flatten()
        .any(|op| matches!(op, crate::scenario::Op::Call { op, .. } if ours(*op)))
}

fn list_pages(p: &pa::Pcp) -> Vec<u32> {
    p.lists
        .iter()
        .enumerate()
        .map(|(i, l)| (l.len() as u32) << pa::pindex_to_order(i))
        .collect()
}

/// The page-allocator function on top of `cpu`'s stack, or "".
fn in_function(sim: &Sim, cpu: usize) -> &'static str {
    let Some(c) = sim.st.cpus.get(cpu) else {
        return "";
    };
    sim.st
        .stacks
        .get(usize::from(c.curr))
        .and_then(|s| s.iter().filter(|f| matches!(f, Frame::PageAlloc(_))).last().map(Frame::function))
        .unwrap_or("")
}

/// The snapshot (`ViewDef::state` of view "pcp"); None when the run has no PCP workload.
pub fn state(sim: &Sim) -> Option<serde_json::Value> {
    uses_pcp(sim).then(|| serde_json::to_value(view(sim)).ok()).flatten()
}

/// The snapshot as a struct (tests read it).
pub fn view(sim: &Sim) -> PcpView {
    let st = &sim.st;
    let a = &st.page_alloc;
    let nz = a.zones.len();
    let nr_cpus = st.cpus.len();
    let listed = nr_cpus.min(MAX_CPUS);
    let lists = (0..pa::NR_PCP_LISTS)
        .map(|p| PcpListInfo {
            order: pa::pindex_to_order(p),
            migratetype: if p == pa::NR_PCP_LISTS - 1 {
                MIGRATETYPES[pa::MT_MOVABLE as usize]
            } else {
                MIGRATETYPES[p % pa::MIGRATE_PCPTYPES]
            },
        })
        .collect();
    let zones = a
        .zones
        .iter()
        .enumerate()
        .map(|(z, zone)| {
            let pcp_pages: u32 = a.pcp.iter().skip(z).step_by(nz.max(1)).map(|p| p.count).sum();
            let id = pa::zone_lock(z);
            let holder = st.locks.holder(id);
            ZoneLockView {
                holder,
                holder_task: holder
                    .and_then(|c| st.cpus.get(usize::from(c)))
                    .map(|c| crate::view::task_label(st, c.curr)),
                waiters: st
                    .locks
                    .queue(id)
                    .map(|t| LockWaiterView {
                        cpu: st.tasks.get(usize::from(t)).map_or(0, |t| t.cpu),
                        task: crate::view::task_label(st, t),
                    })
                    .collect(),
            }
            .into_zone(z, zone, pcp_pages)
        })
        .collect();
    let mut pcps = Vec::with_capacity(listed * nz);
    for cpu in 0..listed {
        let func = in_function(sim, cpu);
        let wait = st.cpus.get(cpu).map(|c| c.wait);
        for z in 0..nz {
            let Some(p) = a.pcp.get(a.pcp_index(cpu as u16, z)) else {
                continue;
            };
            let mut flags = Vec::new();
            if p.flags & PCPF_PREV_FREE_HIGH_ORDER != 0 {
                flags.push("PREV_FREE_HIGH_ORDER");
            }
            if p.flags & PCPF_FREE_HIGH_BATCH != 0 {
                flags.push("FREE_HIGH_BATCH");
            }
            pcps.push(PcpCpuView {
                cpu: cpu as u16,
                zone: z as u16,
                count: p.count,
                high: p.high,
                high_min: p.high_min,
                high_max: p.high_max,
                batch: p.batch,
                flags,
                free_factor: p.free_factor,
                expire: p.expire,
                free_count: p.free_count,
                alloc_factor: p.alloc_factor,
                lists: list_pages(p),
                in_function: func,
                spinning: wait == Some(crate::machine::Wait::Lock(pa::zone_lock(z))),
            });
        }
    }
    let totals = (0..nz)
        .map(|z| {
            let mut t = PcpTotalsView {
                zone: z as u16,
                count: 0,
                high: 0,
                high_peak: 0,
                lists: vec![0; pa::NR_PCP_LISTS],
            };
            for p in a.pcp.iter().skip(z).step_by(nz.max(1)) {
                t.count += p.count;
                t.high += u64::from(p.high);
                t.high_peak = t.high_peak.max(p.high);
                for (s, n) in t.lists.iter_mut().zip(list_pages(p)) {
                    *s += n;
                }
            }
            t
        })
        .collect();
    PcpView {
        lists,
        zones,
        pcps,
        nr_cpus: nr_cpus as u16,
        cpus_listed: listed as u16,
        totals,
        autotune: pa::Rules::of(sim).autotune,
    }
}

impl ZoneLockView {
    fn into_zone(self, z: usize, zone: &pa::Zone, pcp_pages: u32) -> PcpZoneView {
        PcpZoneView {
            id: z as u16,
            node: zone.nid,
            managed: zone.managed,
            wmark: zone.wmark,
            buddy_free: zone.buddy.nr_free,
            pcp_pages,
            in_use: zone.managed.saturating_sub(zone.buddy.nr_free + pcp_pages),
            free_blocks: (0..pa::NR_ORDERS).map(|o| zone.buddy.blocks(o) as u32).collect(),
            batch: zone.batch,
            high_min: zone.high_min,
            high_max: zone.high_max,
            below_high: zone.below_high,
            lock: self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim_of(id: &str) -> Sim {
        let text = crate::builtin::find(id).expect("builtin").text;
        let sc = crate::scenario::parse(text, &[]).expect("parse");
        Sim::new(&sc, &crate::patches::ToggleSet::default(), false)
    }

    #[test]
    fn pcp_101_at_start_and_after_steps() {
        let mut sim = sim_of("pcp-101");
        let v = view(&sim);
        assert_eq!(v.zones.len(), 1);
        assert_eq!(v.nr_cpus, 1);
        assert_eq!(v.pcps.len(), 1);
        assert_eq!(v.lists.len(), 13);
        assert_eq!(v.lists[10].order, 3);
        assert_eq!(v.lists[12].order, 9);
        let z = &v.zones[0];
        assert_eq!(z.buddy_free + z.pcp_pages + z.in_use, z.managed);
        assert!(state(&sim).is_some());
        let mut max_count = 0;
        for _ in 0..400 {
            if sim.step().is_none() {
                break;
            }
            let v = view(&sim);
            let p = &v.pcps[0];
            assert_eq!(p.count, p.lists.iter().sum::<u32>());
            let z = &v.zones[0];
            assert_eq!(z.buddy_free + z.pcp_pages + z.in_use, z.managed);
            assert_eq!(v.totals[0].count, p.count);
            max_count = max_count.max(p.count);
        }
        assert!(max_count > 0, "the PCP filled at some step");
    }

    /// pcp-101's exit (the e2e test reads the same steps in the lab): at step 237 CPU 0
    /// holds zone 0's lock to drain 8 of its 32 pages; at step 238 24 are left, the lock free.
    #[test]
    fn pcp_101_drain_at_known_steps() {
        let mut sim = sim_of("pcp-101");
        while sim.st.step < 237 {
            sim.step().expect("a step");
        }
        let v = view(&sim);
        assert_eq!((v.pcps[0].count, v.pcps[0].high, v.pcps[0].batch), (32, 32, 8));
        assert_eq!(v.pcps[0].in_function, "free_pcppages_bulk");
        assert_eq!(v.zones[0].lock.holder, Some(0));
        assert_eq!(v.zones[0].lock.holder_task.as_deref(), Some("1/0"));
        assert!(v.zones[0].lock.waiters.is_empty());
        sim.step().expect("a step");
        let v = view(&sim);
        assert_eq!(v.pcps[0].count, 24);
        assert_eq!(v.zones[0].pcp_pages, 24);
        assert_eq!(v.zones[0].lock.holder, None);
        // The lists add up to count.
        assert_eq!(v.pcps[0].lists.iter().sum::<u32>(), 24);
    }

    /// A machine of 80 CPUs: the first 64 are listed, every CPU is in the totals.
    #[test]
    fn a_big_machine_is_capped_and_totalled() {
        let cpus: Vec<String> = (0..80).map(|c| c.to_string()).collect();
        let text = crate::builtin::find("pcp-101")
            .expect("builtin")
            .text
            .replace("cpus = [0]\n", &format!("cpus = [{}]\n", cpus.join(", ")));
        let sc = crate::scenario::parse(&text, &[]).expect("parse");
        let mut sim = Sim::new(&sc, &crate::patches::ToggleSet::default(), false);
        for _ in 0..100 {
            sim.step();
        }
        let v = view(&sim);
        assert_eq!((v.nr_cpus, v.cpus_listed), (80, MAX_CPUS as u16));
        assert_eq!(v.pcps.len(), MAX_CPUS);
        assert_eq!(v.totals[0].count, sim.st.page_alloc.pcp.iter().map(|p| p.count).sum::<u32>());
        assert_eq!(
            v.totals[0].high,
            sim.st.page_alloc.pcp.iter().map(|p| u64::from(p.high)).sum::<u64>()
        );
    }

    #[test]
    fn no_state_without_the_workload() {
        let sim = sim_of("numa-hint-fault-101");
        assert!(state(&sim).is_none());
    }
}
