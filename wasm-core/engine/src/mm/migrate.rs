//! `mm/migrate.c`: `migrate_misplaced_page` (with `numamigrate_isolate_page`),
//! `unmap_and_move` / `__unmap_and_move` in MIGRATE_ASYNC mode, and
//! `remove_migration_ptes`.
//!
//! Follows Linux v5.12, and v4.17-v4.18's per-node rate limit
//! (`numamigrate_update_ratelimit`) when `numa_ratelimit_removed` is off. `migrate_pages`'
//! retry passes are not modelled (an -EAGAIN fails the migration at once); filesystems
//! differ only in whether async migration may move a dirty page (btrfs before v5.8
//! refuses it after the unmap). Node headroom (`migrate_balanced_pgdat`) reads one zone
//! per node through [`high_wmark_pages`] until the page allocator models zones.
//!
//! The unmap counts the shootdown IPIs it is about to cause by cause
//! (`tlb_ipi_numa_mapped`, `_race`, `_pending`): the non-lazy other CPUs of the mm's
//! `mm_cpumask` when `try_to_unmap` starts, for each mapping `pte_accessible` finds.

use crate::core::{Flow, LockId, Ret};
use crate::engine::{say, Sim, NO_PAGE};
use crate::kernel::sched::numa::{note_hint_end, note_hint_outcome, note_unmap_ipis};
use crate::machine::task::MigrateFail;
use crate::machine::{pg, Pte, RmapKind};
use crate::mech::core::ev as core_ev;
use crate::mech::core::RMAP_WALK_NS;
use crate::mech::core::{ALLOC_PAGE_NS, DRAM_LOCAL_NS, PTE_WRITE_NS, PTL_NS, TRYLOCK_PAGE_NS};
use crate::mech::migrate::ev as migrate_ev;
use crate::mech::migrate::{COPY_PAGE_NS, ISOLATE_NS, MIGRATE_FINISH_NS, MIGRATE_REFUSE_NS};
use crate::mech::migrate::{MIGRATE_ISOLATE_FAIL, PGMIGRATE_FAIL, PGMIGRATE_SUCCESS};
use crate::mech::numa::{MISPLACED_BAIL_DIRTY_FILE, NUMA_MIGRATE_RATELIMITED, NUMA_PAGES_MIGRATED};
use crate::mech::numa::{NUMA_DELAY_MAP, NUMA_RATELIMIT_REMOVED, NUMA_SKIP_DIRTY_FILE};
use crate::mech::numa::{TLB_IPI_NUMA_MAPPED, TLB_IPI_NUMA_PENDING, TLB_IPI_NUMA_RACE};
use crate::mm::gfp::{Gfp, __GFP_NOMEMALLOC, __GFP_NORETRY, GFP_HIGHUSER_MOVABLE, GFP_TRANSHUGE_LIGHT};
use crate::mm::gfp::{__GFP_NOWARN, __GFP_RECLAIM, __GFP_THISNODE};
use crate::mm::huge_memory::HPAGE_PMD_ORDER;
use crate::mm::memory::lock_wait;
use crate::mm::page_alloc::{alloc_pages_now, free_page_now};
use crate::mm::rmap::TryToUnmap;
use crate::registry::{Frame, Function};
use crate::scenario::Fs;
use crate::topology::{CpuId, NodeId};
use crate::trace::Ev;

/// A node's NUMA-balancing migration window (`pg_data_t`'s `numabalancing_migrate_*`,
/// Linux v4.17; removed in v4.19 by efaffc5e40ae).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NumaPgdat {
    /// `numabalancing_migrate_nr_pages`: pages migrated to the node in this window.
    pub migrate_nr_pages: u64,
    /// `numabalancing_migrate_next_window` (ns).
    pub migrate_next_window: u64,
}

/// v4.17 `ratelimit_pages`: 128 MB per window, in pages (divided by `numa_mem_scale`).
const RATELIMIT_PAGES: u64 = 128 << 8;
/// v4.17 `migrate_interval_millisecs`: 100 ms.
const MIGRATE_INTERVAL_NS: u64 = 100_000_000;

/// `numamigrate_update_ratelimit(pgdat, nr_pages)` (v4.17): true if the node already
/// took more than `ratelimit_pages` in this window (the page is not migrated).
fn numamigrate_update_ratelimit(sim: &mut Sim, cpu: CpuId, nid: NodeId, nr: u64) -> bool {
    let now = sim.clock(cpu);
    let limit = RATELIMIT_PAGES / sim.cfg.mem_scale;
    let Some(p) = sim.st.numa_pgdat.get_mut(nid as usize) else {
        return false;
    };
    if now > p.migrate_next_window {
        p.migrate_nr_pages = 0;
        p.migrate_next_window = now + MIGRATE_INTERVAL_NS;
    }
    if p.migrate_nr_pages > limit {
        return true;
    }
    p.migrate_nr_pages += nr;
    false
}

/// The mask of a NUMA hint fault's target page (`alloc_misplaced_dst_page`, v4.17-v5.12):
/// the target node only, no reclaim, and failure is quiet.
const MISPLACED_GFP: Gfp = GFP_HIGHUSER_MOVABLE
    .with(__GFP_THISNODE)
    .with(__GFP_NOMEMALLOC)
    .with(__GFP_NORETRY)
    .with(__GFP_NOWARN)
    .without(__GFP_RECLAIM);

/// `high_wmark_pages(zone)` of node `nid`'s one zone: the topology's high watermark. A
/// stand-in until the zones' own watermarks serve every allocation (the zone's is
/// `mm::page_alloc::Zone::wmark`).
pub fn high_wmark_pages(sim: &Sim, nid: NodeId) -> u64 {
    sim.cfg.topo.nodes.get(nid as usize).map_or(0, |n| u64::from(n.high_wmark))
}

/// `migrate_balanced_pgdat(pgdat, nr_migrate_pages)` (v5.12): the node keeps more than
/// its high watermark free after taking `nr` pages (`zone_watermark_ok`, order 0).
pub fn migrate_balanced_pgdat(sim: &Sim, nid: NodeId, nr: u64) -> bool {
    let free = u64::from(sim.st.page_alloc.nr_free(nid));
    free > high_wmark_pages(sim, nid) + nr
}

/// How many shootdown IPIs a flush of `mm` sent from `cpu` now goes to: the other
/// CPUs of `mm_cpumask` that are not lazy (v5.12 `native_flush_tlb_others` with
/// `tlb_is_not_lazy`).
pub(crate) fn shootdown_fanout(sim: &Sim, cpu: CpuId, mm: u16) -> u64 {
    sim.st.mms[mm as usize]
        .cpumask
        .iter()
        .filter(|&c| c != cpu && !sim.st.cpus[c as usize].lazy)
        .count() as u64
}

/// Counts the IPIs `try_to_unmap(pfn)` is about to cause, by cause: for each mapping
/// whose PTE `pte_accessible` finds (present, or PROT_NONE while a scan's flush is
/// pending on the mm), the fan-out of its `ptep_clear_flush`.
fn count_unmap_shootdowns(sim: &mut Sim, cpu: CpuId, pfn: u32) {
    let page = *sim.st.frames.get(pfn);
    let Some(root) = sim.st.roots.get(page.mapping as usize) else {
        return;
    };
    let delay = sim.cfg.toggles.on(NUMA_DELAY_MAP);
    let mut add = [0u64; 3];
    for &(mm, vi) in &root.vmas {
        let m = &sim.st.mms[mm as usize];
        let Some(vpn) = m.vmas[vi as usize].address_of(&page) else {
            continue;
        };
        let pte = m.pte(vpn);
        if pte.is_none() || pte.is_migration() || pte.pfn() != pfn {
            continue;
        }
        let cause = if pte.hw_present() {
            // Present: the old flow made it so itself; with the patch, another thread did.
            usize::from(delay)
        } else if pte.protnone() && m.flush_pending > 0 {
            2
        } else {
            continue;
        };
        add[cause] += shootdown_fanout(sim, cpu, mm);
    }
    note_unmap_ipis(sim, cpu, add);
    for (k, n) in [TLB_IPI_NUMA_MAPPED, TLB_IPI_NUMA_RACE, TLB_IPI_NUMA_PENDING].into_iter().zip(add) {
        sim.st.counters.add(k, n);
    }
}

/// `migrate_misplaced_page(page, vma, node)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MigrateMisplacedPage {
    pfn: u32,
    target: NodeId,
    vpn: u32,
    /// `None` until `unmap_and_move` returns.
    migrated: Option<bool>,
}

impl MigrateMisplacedPage {
    /// Migrate the page at `pfn` (faulted at `vpn`) to `target`.
    pub fn frame(pfn: u32, target: NodeId, vpn: u32) -> Frame {
        Frame::from(MigrateMisplacedPage {
            pfn,
            target,
            vpn,
            migrated: None,
        })
    }
}

impl Function for MigrateMisplacedPage {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "migrate_misplaced_page";
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let (target, pfn) = (self.target, self.pfn);
        if let Some(ok) = self.migrated {
            let ev = Ev::new(core_ev::RETURN, F, "M7").pte(pid, self.vpn).pfn(pfn).say(if ok {
                say!(sim, "migrate_misplaced_page returns 1: numa_pages_migrated += 1")
            } else {
                say!(
                    sim,
                    "migrate_misplaced_page returns 0: the page stays on node {}",
                    sim.page_nid(pfn)
                )
            });
            return (ev, Flow::Return(Ret::Bool(ok)));
        }
        let page = *sim.st.frames.get(pfn);
        let fail = |line: &'static str, text: String| {
            let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, line).pte(pid, self.vpn).pfn(pfn).say(text);
            (ev, Flow::Return(Ret::Bool(false)))
        };
        if sim.cfg.toggles.on(NUMA_SKIP_DIRTY_FILE) && page.has(pg::FILE) && page.has(pg::DIRTY) {
            sim.st.counters.inc(MISPLACED_BAIL_DIRTY_FILE);
            note_hint_outcome(sim, cpu, MigrateFail::DirtyFile);
            return fail(
                "M2",
                say!(
                    sim,
                    "pfn {pfn} is a dirty file page: migrate_misplaced_page gives up before isolating it (09a913a7)"
                ),
            );
        }
        if !sim.cfg.toggles.on(NUMA_RATELIMIT_REMOVED) && numamigrate_update_ratelimit(sim, cpu, target, 1) {
            sim.st.counters.inc(NUMA_MIGRATE_RATELIMITED);
            note_hint_outcome(sim, cpu, MigrateFail::RateLimited);
            let ev = Ev::new(migrate_ev::MIGRATE_FAIL, "numamigrate_update_ratelimit", "RL2")
                .pte(pid, self.vpn)
                .pfn(pfn);
            return (
                ev.say(say!(
                    sim,
                    "numamigrate_update_ratelimit: node {target} already took more than 128 MB (scaled) of NUMA migrations in this 100 ms window, so migrate_misplaced_page gives up (v4.18 and earlier)"
                )),
                Flow::Return(Ret::Bool(false)),
            );
        }
        sim.charge(cpu, sim.cfg.costs[ISOLATE_NS]);
        // migrate_balanced_pgdat: the target must stay above its high watermark.
        let free = sim.st.page_alloc.nr_free(target);
        let high = high_wmark_pages(sim, target);
        if !migrate_balanced_pgdat(sim, target, 1) {
            sim.st.counters.inc(MIGRATE_ISOLATE_FAIL);
            note_hint_outcome(sim, cpu, MigrateFail::NodeFull);
            return fail(
                "M4",
                say!(
                    sim,
                    "numamigrate_isolate_page: node {target} has {free} free page(s), not above its high watermark ({high}): no migration"
                ),
            );
        }
        if !page.has(pg::LRU) || page.has(pg::ISOLATED) {
            sim.st.counters.inc(MIGRATE_ISOLATE_FAIL);
            note_hint_outcome(sim, cpu, MigrateFail::NotOnLru);
            return fail(
                "M4",
                say!(
                    sim,
                    "isolate_lru_page fails: pfn {pfn} is not on an LRU list (another CPU is already migrating it)"
                ),
            );
        }
        let p = sim.st.frames.get_mut(pfn);
        p.flags = (p.flags & !pg::LRU) | pg::ISOLATED;
        let ev = Ev::new(migrate_ev::ISOLATE, F, "M3").pte(pid, self.vpn).pfn(pfn).say(say!(
            sim,
            "numamigrate_isolate_page: node {target} has room ({free} free); pfn {pfn} is taken off its LRU list; migrate_pages -> unmap_and_move"
        ));
        (ev, Flow::Call(Frame::from(UnmapAndMove::new(pfn, target))))
    }

    /// `migrate_pages` returned.
    fn resume(&mut self, sim: &mut Sim, task: u16, r: Ret) {
        let ok = r.as_bool();
        if ok {
            sim.st.counters.inc(NUMA_PAGES_MIGRATED);
        }
        note_hint_end(sim, task, ok);
        self.migrated = Some(ok);
    }
}

/// Where `unmap_and_move` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Uam {
    /// U1: allocate the destination.
    Alloc,
    /// U2: lock the page.
    Lock,
    /// U4: `try_to_unmap`.
    Unmap,
    /// U5: `move_to_new_page`.
    Copy,
    /// U6: `remove_migration_ptes`.
    Remap,
    /// U7: unlock, free or put back.
    Finish,
}

/// `unmap_and_move` / `__unmap_and_move` for one page, MIGRATE_ASYNC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnmapAndMove {
    pfn: u32,
    target: NodeId,
    /// The destination page, once allocated ([`NO_PAGE`] before).
    new_pfn: u32,
    copied: bool,
    pc: Uam,
}

impl UnmapAndMove {
    fn new(pfn: u32, target: NodeId) -> Self {
        UnmapAndMove {
            pfn,
            target,
            new_pfn: NO_PAGE,
            copied: false,
            pc: Uam::Alloc,
        }
    }

    /// Undoes the isolation of a page whose migration failed (`putback_lru_page`).
    fn putback(&self, sim: &mut Sim) {
        let p = sim.st.frames.get_mut(self.pfn);
        p.flags = (p.flags & !pg::ISOLATED) | pg::LRU;
        if self.new_pfn != NO_PAGE {
            free_page_now(sim, self.new_pfn);
        }
        sim.st.counters.inc(PGMIGRATE_FAIL);
    }
}

impl Function for UnmapAndMove {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "unmap_and_move";
        let (pfn, target) = (self.pfn, self.target);
        match self.pc {
            Uam::Alloc => {
                sim.charge(cpu, sim.cfg.costs[ALLOC_PAGE_NS]);
                let Some(n) = alloc_pages_now(sim, MISPLACED_GFP, 0, target) else {
                    self.putback(sim);
                    note_hint_outcome(sim, cpu, MigrateFail::NoPage);
                    let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, "U1").pfn(pfn).say(say!(
                        sim,
                        "No free page on node {target} (__GFP_THISNODE, no reclaim): the page is put back, pgmigrate_fail += 1"
                    ));
                    return (ev, Flow::Return(Ret::Bool(false)));
                };
                sim.st.frames.get_mut(n).flags = pg::MIGRATE_DST | pg::LOCKED;
                self.new_pfn = n;
                self.pc = Uam::Lock;
                let ev = Ev::new(core_ev::ALLOC_PAGE, F, "U1").pfn(pfn).pfn(n).say(say!(
                    sim,
                    "alloc_misplaced_dst_page: pfn {n} on node {target} will receive the data"
                ));
                (ev, Flow::Continue)
            }
            Uam::Lock => {
                sim.charge(cpu, sim.cfg.costs[TRYLOCK_PAGE_NS]);
                if sim.st.frames.get(pfn).has(pg::LOCKED) {
                    self.putback(sim);
                    note_hint_outcome(sim, cpu, MigrateFail::PageLocked);
                    let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, "U2").pfn(pfn).say(say!(
                        sim,
                        "trylock_page fails (async mode never sleeps): -EAGAIN, pgmigrate_fail += 1"
                    ));
                    return (ev, Flow::Return(Ret::Bool(false)));
                }
                sim.st.frames.get_mut(pfn).flags |= pg::LOCKED;
                self.pc = Uam::Unmap;
                let ev = Ev::new(core_ev::PAGE_LOCK, F, "U2").pfn(pfn).say(say!(
                    sim,
                    "trylock_page(pfn {pfn}) succeeds; not under writeback; try_to_unmap walks the page's mappings"
                ));
                (ev, Flow::Continue)
            }
            Uam::Unmap => {
                self.pc = Uam::Copy;
                count_unmap_shootdowns(sim, cpu, pfn);
                let ev = Ev::new(core_ev::CALL, F, "U4")
                    .pfn(pfn)
                    .say(say!(sim, "try_to_unmap(pfn {pfn}, TTU_MIGRATION)"));
                (ev, Flow::Call(TryToUnmap::frame(pfn)))
            }
            Uam::Copy => {
                let page = *sim.st.frames.get(pfn);
                let root = &sim.st.roots[page.mapping as usize];
                let fs = match root.kind {
                    RmapKind::File => root.vmas.first().map(|&(m, v)| sim.st.mms[m as usize].vmas[v as usize].fs),
                    RmapKind::Anon => None,
                };
                self.pc = Uam::Remap;
                if page.has(pg::FILE) && page.has(pg::DIRTY) && fs == Some(Fs::BtrfsPre58) {
                    self.copied = false;
                    sim.charge(cpu, sim.cfg.costs[MIGRATE_REFUSE_NS]);
                    note_hint_outcome(sim, cpu, MigrateFail::BtrfsDirty);
                    let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, "U5").pfn(pfn).say(say!(
                        sim,
                        "move_to_new_page: btrfs (before v5.8) has no migratepage; fallback_migrate_page refuses a dirty page in async mode (-EBUSY) after the unmap was already paid"
                    ));
                    return (ev, Flow::Continue);
                }
                let n = self.new_pfn;
                let nid = sim.page_nid(pfn);
                let ns = sim.cfg.costs[COPY_PAGE_NS] * sim.dram_ns(cpu, nid) / sim.cfg.costs[DRAM_LOCAL_NS].max(1);
                sim.charge(cpu, ns);
                let np = sim.st.frames.get_mut(n);
                np.flags |= page.flags & (pg::DIRTY | pg::FILE | pg::ANON);
                np.last_cpupid = page.last_cpupid;
                np.mapping = page.mapping;
                np.index = page.index;
                self.copied = true;
                let ev = Ev::new(migrate_ev::MIGRATE_COPY, F, "U5").pfn(pfn).pfn(n).say(say!(
                    sim,
                    "move_to_new_page: 4 KiB copied from pfn {pfn} (node {nid}) to pfn {n} (node {target}), with the page flags and last_cpupid"
                ));
                (ev, Flow::Continue)
            }
            Uam::Remap => {
                self.pc = Uam::Finish;
                let dst = if self.copied { self.new_pfn } else { pfn };
                let ev = Ev::new(core_ev::CALL, F, "U6")
                    .pfn(pfn)
                    .say(say!(sim, "remove_migration_ptes(pfn {pfn} -> pfn {dst})"));
                (ev, Flow::Call(RemoveMigrationPtes::frame(pfn, dst)))
            }
            Uam::Finish => {
                sim.unlock_page(cpu, pfn);
                sim.charge(cpu, sim.cfg.costs[MIGRATE_FINISH_NS]);
                if self.copied {
                    let n = self.new_pfn;
                    let np = sim.st.frames.get_mut(n);
                    np.flags = (np.flags & !(pg::MIGRATE_DST | pg::LOCKED)) | pg::LRU;
                    // migrate_pages drops the allocation's reference; the mappings keep theirs.
                    if np.has(pg::ANON) && np.mapcount > 0 {
                        np.refcount -= 1;
                    }
                    let (mapping, index) = (np.mapping, np.index);
                    // The page cache now holds the new page (migrate_page_move_mapping).
                    if let Some(slot) = sim.st.page_cache.get_mut(mapping as usize).and_then(|c| c.get_mut(index as usize)) {
                        *slot = n;
                    }
                    free_page_now(sim, pfn);
                    sim.st.counters.inc(PGMIGRATE_SUCCESS);
                    let ev = Ev::new(migrate_ev::MIGRATE_DONE, F, "U7").pfn(pfn).pfn(n).say(say!(
                        sim,
                        "Migration done: pfn {pfn} is freed, pfn {n} is on node {target}'s LRU; pgmigrate_success += 1"
                    ));
                    return (ev, Flow::Return(Ret::Bool(true)));
                }
                self.putback(sim);
                let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, "U7").pfn(pfn).say(say!(
                    sim,
                    "Migration failed: the old page is unlocked and put back; pgmigrate_fail += 1"
                ));
                (ev, Flow::Return(Ret::Bool(false)))
            }
        }
    }
}

/// `remove_migration_ptes(old, new)`: every migration entry for `old` becomes a present
/// PTE to `dst`, found by an rmap walk of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoveMigrationPtes {
    old: u32,
    dst: u32,
    /// Next VMA of the rmap root to look at.
    i: u16,
}

impl RemoveMigrationPtes {
    /// Replace the migration entries for `old` with PTEs to `dst`.
    pub fn frame(old: u32, dst: u32) -> Frame {
        Frame::from(RemoveMigrationPtes { old, dst, i: 0 })
    }
}

impl Function for RemoveMigrationPtes {
    /// One line: the next mapping, or return.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "remove_migration_ptes";
        let page = *sim.st.frames.get(self.old);
        let root = page.mapping as usize;
        while let Some(&(mm, vi)) = sim.st.roots.get(root).and_then(|r| r.vmas.get(self.i as usize)) {
            let vma = &sim.st.mms[mm as usize].vmas[vi as usize];
            let Some(vpn) = vma.address_of(&page) else {
                self.i += 1;
                continue;
            };
            let pte = sim.st.mms[mm as usize].pte(vpn);
            if !(pte.is_migration() && pte.pfn() == self.old) {
                self.i += 1;
                continue;
            }
            let id = LockId::ptl(mm, vpn);
            if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                return lock_wait(sim, cpu, id, F, "RM2");
            }
            sim.charge(cpu, sim.cfg.costs[RMAP_WALK_NS]);
            let write = pte.write();
            sim.st.mms[mm as usize].set_pte(vpn, Pte::present(self.dst, write, false, false));
            let d = sim.st.frames.get_mut(self.dst);
            d.mapcount += 1;
            // Each mapping of an anonymous page holds a reference (get_page on the new page).
            if self.dst != self.old && d.has(pg::ANON) {
                d.refcount += 1;
            }
            sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
            sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
            self.i += 1;
            let pid = sim.st.mms[mm as usize].pid;
            let ev = Ev::new(migrate_ev::REMOVE_MIGRATION_PTES, F, "RM2").pte(pid, vpn).pfn(self.dst).say(say!(
                sim,
                "remove_migration_ptes: the migration entry at {vpn:#x} of mm {pid} becomes a present PTE to pfn {} ({}, old); no flush, it was not present before",
                self.dst,
                if write { "writable" } else { "read-only" }
            ));
            return (ev, Flow::Continue);
        }
        let ev = Ev::new(core_ev::RETURN, F, "RM3")
            .pfn(self.dst)
            .say(say!(sim, "remove_migration_ptes: no migration entry left"));
        (ev, Flow::Return(Ret::Unit))
    }
}

/// Where `migrate_misplaced_transhuge_page` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mth {
    /// H1-H3: rate limit, allocate, isolate.
    Start,
    /// H4: copy.
    Copy,
    /// H5-H6: lock, `pmd_same`, clear and flush the old PMD.
    Replace,
    /// H7: set the new PMD, count, return 1.
    Set,
    /// H8-H9: `out_fail` / `out_dropref`: restore the PMD, return 0.
    Restore,
}

/// `migrate_misplaced_transhuge_page(mm, vma, pmd, entry, address, page, node)` (v4.17):
/// a huge page moves whole, under its PMD lock, without the rmap walk of
/// `unmap_and_move` (the page is mapped by this PMD only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MigrateMisplacedTranshugePage {
    mm: u16,
    haddr: u32,
    /// The PMD the fault saw (PROT_NONE).
    orig: Pte,
    target: NodeId,
    new_head: u32,
    /// `pgmigrate_fail` counts (out_fail) or not (out_dropref, a changed PMD).
    count_fail: bool,
    pc: Mth,
}

impl MigrateMisplacedTranshugePage {
    /// Migrate the huge page `orig` maps at `haddr` of `mm` to `target`.
    pub fn frame(mm: u16, haddr: u32, orig: Pte, target: NodeId) -> Frame {
        Frame::from(MigrateMisplacedTranshugePage {
            mm,
            haddr,
            orig,
            target,
            new_head: NO_PAGE,
            count_fail: false,
            pc: Mth::Start,
        })
    }

    fn restore(&mut self, count_fail: bool, why: MigrateFail, sim: &mut Sim, cpu: CpuId) {
        self.count_fail = count_fail;
        self.pc = Mth::Restore;
        note_hint_outcome(sim, cpu, why);
    }
}

impl Function for MigrateMisplacedTranshugePage {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "migrate_misplaced_transhuge_page";
        const NR: u32 = crate::mm::huge_memory::HPAGE_PMD_NR;
        let (mm, h, target) = (self.mm, self.haddr, self.target);
        let pid = sim.st.mms[mm as usize].pid;
        let head = self.orig.pfn();
        let id = LockId::ptl(mm, h);
        match self.pc {
            Mth::Start => {
                if !sim.cfg.toggles.on(NUMA_RATELIMIT_REMOVED) && numamigrate_update_ratelimit(sim, cpu, target, u64::from(NR)) {
                    sim.st.counters.inc(NUMA_MIGRATE_RATELIMITED);
                    self.restore(false, MigrateFail::RateLimited, sim, cpu);
                    let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, "H1").pte(pid, h).pfn(head).say(say!(
                        sim,
                        "numamigrate_update_ratelimit(node {target}, 512): the node already took more than 128 MB (scaled) of NUMA migrations in this 100 ms window: out_dropref (v4.18 and earlier)"
                    ));
                    return (ev, Flow::Continue);
                }
                let Some(new) = alloc_pages_now(sim, GFP_TRANSHUGE_LIGHT | __GFP_THISNODE, HPAGE_PMD_ORDER, target) else {
                    self.restore(true, MigrateFail::NodeFull, sim, cpu);
                    let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, "H2").pte(pid, h).pfn(head).say(say!(
                        sim,
                        "alloc_pages_node(node {target}, GFP_TRANSHUGE_LIGHT | __GFP_THISNODE, order 9) fails: node {target} has no free 2 MiB block (no reclaim, no compaction): out_fail"
                    ));
                    return (ev, Flow::Continue);
                };
                self.new_head = new;
                sim.charge(cpu, sim.cfg.costs[ISOLATE_NS]);
                let page = *sim.st.frames.get(head);
                let free = sim.st.page_alloc.nr_free(target);
                if !migrate_balanced_pgdat(sim, target, u64::from(NR)) || !page.has(pg::LRU) || page.has(pg::ISOLATED) {
                    for p in new..new + NR {
                        free_page_now(sim, p);
                    }
                    self.new_head = NO_PAGE;
                    sim.st.counters.inc(MIGRATE_ISOLATE_FAIL);
                    self.restore(true, MigrateFail::NodeFull, sim, cpu);
                    let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, "H3").pte(pid, h).pfn(head).say(say!(
                        sim,
                        "numamigrate_isolate_page: node {target} would not stay above its high watermark with 512 more pages ({free} free), or the page is off its LRU: out_fail"
                    ));
                    return (ev, Flow::Continue);
                }
                let p = sim.st.frames.get_mut(head);
                p.flags = (p.flags & !pg::LRU) | pg::ISOLATED;
                self.pc = Mth::Copy;
                let ev = Ev::new(migrate_ev::ISOLATE, F, "H3").pte(pid, h).pfn(head).say(say!(
                    sim,
                    "A 2 MiB page on node {target} (pfns {new}..{}) will receive the data; numamigrate_isolate_page takes pfn {head} off its LRU list",
                    new + NR - 1
                ));
                (ev, Flow::Continue)
            }
            Mth::Copy => {
                let old = *sim.st.frames.get(head);
                for i in 0..NR {
                    let src = *sim.st.frames.get(head + i);
                    let content = sim.st.frames.content(head + i);
                    let p = sim.st.frames.get_mut(self.new_head + i);
                    p.flags = (src.flags & !(pg::ISOLATED | pg::LOCKED)) | pg::LRU;
                    p.mapping = src.mapping;
                    p.index = src.index;
                    p.last_cpupid = old.last_cpupid;
                    sim.st.frames.set_content(self.new_head + i, content);
                }
                sim.charge(cpu, u64::from(NR) * sim.cfg.costs[COPY_PAGE_NS]);
                self.pc = Mth::Replace;
                let ev = Ev::new(migrate_ev::MIGRATE_COPY, F, "H4").pte(pid, h).pfn(head).say(say!(
                    sim,
                    "migrate_page_copy: 2 MiB copied from pfn {head} (node {}) to pfn {} (node {target}), with the flags and last_cpupid",
                    sim.page_nid(head),
                    self.new_head
                ));
                (ev, Flow::Continue)
            }
            Mth::Replace => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "H5");
                }
                let m = &sim.st.mms[mm as usize];
                if !m.pgtable.is_huge(h) || m.pte(h) != self.orig {
                    sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                    for p in self.new_head..self.new_head + NR {
                        free_page_now(sim, p);
                    }
                    self.new_head = NO_PAGE;
                    let p = sim.st.frames.get_mut(head);
                    p.flags = (p.flags & !pg::ISOLATED) | pg::LRU;
                    self.restore(false, MigrateFail::Other, sim, cpu);
                    let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, "H5").pte(pid, h).pfn(head).say(say!(
                        sim,
                        "The PMD changed while the page was copied: the copy is freed, the page goes back on its LRU"
                    ));
                    return (ev, Flow::Continue);
                }
                // pmdp_huge_clear_flush_notify: the old PMD is cleared and its 2 MiB flushed.
                // The model keeps the old (PROT_NONE) entry until set_pmd_at: both happen
                // under the PMD lock, so no other CPU can tell the difference.
                let ipis = shootdown_fanout(sim, cpu, mm);
                sim.st.counters.add(crate::mech::thp::TLB_IPI_NUMA_HUGE, ipis);
                self.pc = Mth::Set;
                let ev = Ev::new(core_ev::PTE_CLEAR, F, "H6").pte(pid, h).pfn(head).say(say!(
                    sim,
                    "Under the PMD lock: page_add_anon_rmap(new page); pmdp_huge_clear_flush_notify clears the old PMD and flushes its 2 MiB from every CPU running mm {pid}"
                ));
                (ev, Flow::Call(crate::arch::x86::mm::tlb::FlushTlbMmRange::frame(mm, h, NR)))
            }
            Mth::Set => {
                let new = self.new_head;
                for p in new..new + NR {
                    sim.st.frames.get_mut(p).mapcount = 1;
                }
                sim.st.mms[mm as usize].set_huge(h, Pte::present(new, true, true, false));
                sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
                for p in head..head + NR {
                    free_page_now(sim, p);
                    sim.st.frames.set_content(p, 0);
                }
                sim.unlock_page(cpu, head);
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                sim.charge(cpu, sim.cfg.costs[MIGRATE_FINISH_NS]);
                sim.st.counters.add(PGMIGRATE_SUCCESS, u64::from(NR));
                sim.st.counters.add(NUMA_PAGES_MIGRATED, u64::from(NR));
                let task = sim.st.cpus[cpu as usize].curr;
                note_hint_end(sim, task, true);
                let ev = Ev::new(migrate_ev::MIGRATE_DONE, F, "H7").pte(pid, h).pfn(new).say(say!(
                    sim,
                    "set_pmd_at: the PMD maps pfn {new} on node {target} (dirty, writable); the old page is freed; pgmigrate_success and numa_pages_migrated += 512; returns 1"
                ));
                (ev, Flow::Return(Ret::Bool(true)))
            }
            Mth::Restore => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "H9");
                }
                if self.count_fail {
                    sim.st.counters.add(PGMIGRATE_FAIL, u64::from(NR));
                }
                let m = &sim.st.mms[mm as usize];
                let same = m.pgtable.is_huge(h) && m.pte(h) == self.orig;
                if same {
                    // pmd_modify(entry, vma->vm_page_prot): present, the accessed bit as
                    // the entry had it. v4.17 leaves the PMD read-only (a private mapping's
                    // vm_page_prot), so the next store takes a do_huge_pmd_wp_page fault
                    // that reuses the page; the model keeps the saved write bit instead.
                    let pmd = Pte::present(head, self.orig.write(), self.orig.dirty(), self.orig.accessed());
                    sim.st.mms[mm as usize].set_huge(h, pmd);
                    sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
                }
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                sim.unlock_page(cpu, head);
                let task = sim.st.cpus[cpu as usize].curr;
                note_hint_end(sim, task, false);
                self.count_fail = false;
                let ev = Ev::new(migrate_ev::MIGRATE_FAIL, F, "H9").pte(pid, h).pfn(head).say(say!(
                    sim,
                    "out_dropref: {}; the page is unlocked; returns 0",
                    if same {
                        "the PMD is made present again on the same page"
                    } else {
                        "the PMD changed meanwhile and is left as it is"
                    }
                ));
                (ev, Flow::Return(Ret::Bool(false)))
            }
        }
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, _r: Ret) {}
}
