//! `mm/migrate.c`: `migrate_misplaced_page`, `numamigrate_isolate_page` and
//! `unmap_and_move` / `__unmap_and_move` in MIGRATE_ASYNC mode.
//!
//! Follows Linux v5.12. One mapping per page (no shared pages yet); `migrate_pages`'
//! retry passes are not modelled (an -EAGAIN fails the migration at once).

use crate::counters::Counter;
use crate::engine::{say, Sim};
use crate::mm::memory::{FaultCtx, FaultPc, Next};
use crate::scenario::Fs;
use crate::state::{pg, Pte};
use crate::topology::CpuId;
use crate::trace::{Ev, EventKind};

impl Sim {
    /// Marks the migration failed and continues the fault on its failure path.
    fn migration_failed(&mut self, f: &mut FaultCtx) {
        f.migrated = Some(false);
        f.pc = if self.cfg.delay_map {
            FaultPc::RelockCheck
        } else {
            FaultPc::Account
        };
    }

    /// `migrate_misplaced_page`: the early checks and `numamigrate_isolate_page`.
    pub(crate) fn migrate_misplaced_page(&mut self, cpu: CpuId, f: &mut FaultCtx) -> (Ev, Next) {
        const F: &str = "migrate_misplaced_page";
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        let Some(target) = f.target else {
            return (Ev::default(), Next::Finish);
        };
        let page = self.st.pages[f.pfn as usize];
        if self.cfg.skip_dirty_file && page.has(pg::FILE) && page.has(pg::DIRTY) {
            self.st.counters.inc(Counter::MisplacedBailDirtyFile);
            self.migration_failed(f);
            let ev = Ev::new(EventKind::MigrateFail, F, "M2").pte(pid, f.vpn).pfn(f.pfn).say(say!(
                self,
                "pfn {} is a dirty file page: migrate_misplaced_page gives up before isolating it (09a913a7)",
                f.pfn
            ));
            return (ev, Next::Go);
        }
        self.charge(cpu, self.cfg.costs.isolate_ns);
        // migrate_balanced_pgdat: the target must stay above its high watermark.
        let free = self.st.free[target as usize].len() as u32;
        let high = self.cfg.topo.nodes[target as usize].high_wmark;
        if free <= high + 1 {
            self.st.counters.inc(Counter::MigrateIsolateFail);
            self.migration_failed(f);
            let ev = Ev::new(EventKind::MigrateFail, F, "M4").pte(pid, f.vpn).pfn(f.pfn).say(say!(
                self,
                "numamigrate_isolate_page: node {target} has {free} free page(s), not above its high watermark ({high}): no migration"
            ));
            return (ev, Next::Go);
        }
        if !page.has(pg::LRU) || page.has(pg::ISOLATED) {
            self.st.counters.inc(Counter::MigrateIsolateFail);
            self.migration_failed(f);
            let ev = Ev::new(EventKind::MigrateFail, F, "M4").pte(pid, f.vpn).pfn(f.pfn).say(say!(
                self,
                "isolate_lru_page fails: pfn {} is not on an LRU list (another CPU is already migrating it)",
                f.pfn
            ));
            return (ev, Next::Go);
        }
        let p = &mut self.st.pages[f.pfn as usize];
        p.flags = (p.flags & !pg::LRU) | pg::ISOLATED;
        f.pc = FaultPc::UmAlloc;
        let ev = Ev::new(EventKind::Isolate, F, "M3").pte(pid, f.vpn).pfn(f.pfn).say(say!(
            self,
            "numamigrate_isolate_page: node {target} has room ({free} free); pfn {} is taken off its LRU list",
            f.pfn
        ));
        (ev, Next::Go)
    }

    /// Undoes an isolation after a failed migration.
    fn putback(&mut self, f: &FaultCtx) {
        let p = &mut self.st.pages[f.pfn as usize];
        p.flags = (p.flags & !pg::ISOLATED) | pg::LRU;
        if let Some(n) = f.new_pfn {
            self.free_page(n);
        }
        self.st.counters.inc(Counter::PgmigrateFail);
    }

    /// `unmap_and_move` / `__unmap_and_move` (MIGRATE_ASYNC), except `try_to_unmap_one`.
    pub(crate) fn unmap_and_move(&mut self, cpu: CpuId, f: &mut FaultCtx) -> (Ev, Next) {
        const F: &str = "unmap_and_move";
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        let target = f.target.unwrap_or(0);
        match f.pc {
            FaultPc::UmAlloc => {
                self.charge(cpu, self.cfg.costs.alloc_page_ns);
                let Some(n) = self.alloc_page(target, false) else {
                    self.putback(f);
                    self.migration_failed(f);
                    let ev = Ev::new(EventKind::MigrateFail, F, "U1").pfn(f.pfn).say(say!(
                        self,
                        "No free page on node {target} (__GFP_THISNODE, no reclaim): the page is put back, pgmigrate_fail += 1"
                    ));
                    return (ev, Next::Go);
                };
                self.st.pages[n as usize].flags = pg::MIGRATE_DST | pg::LOCKED;
                f.new_pfn = Some(n);
                f.pc = FaultPc::UmLock;
                let ev = Ev::new(EventKind::AllocPage, F, "U1").pfn(f.pfn).pfn(n).say(say!(
                    self,
                    "alloc_misplaced_dst_page: pfn {n} on node {target} will receive the data"
                ));
                (ev, Next::Go)
            }
            FaultPc::UmLock => {
                self.charge(cpu, 20);
                let page = self.st.pages[f.pfn as usize];
                if page.has(pg::LOCKED) {
                    self.putback(f);
                    self.migration_failed(f);
                    let ev = Ev::new(EventKind::MigrateFail, F, "U2").pfn(f.pfn).say(say!(
                        self,
                        "trylock_page fails (async mode never sleeps): -EAGAIN, pgmigrate_fail += 1"
                    ));
                    return (ev, Next::Go);
                }
                self.st.pages[f.pfn as usize].flags |= pg::LOCKED;
                f.pc = FaultPc::UnmapLock;
                let ev = Ev::new(EventKind::PageLock, F, "U2").pfn(f.pfn).say(say!(
                    self,
                    "trylock_page(pfn {}) succeeds; not under writeback; try_to_unmap walks the page's mappings",
                    f.pfn
                ));
                (ev, Next::Go)
            }
            FaultPc::UmCopy => {
                let page = self.st.pages[f.pfn as usize];
                let fs = self.st.mms[mm as usize]
                    .find_vma(f.vpn)
                    .map(|(v, _)| self.st.mms[mm as usize].vmas[v].fs);
                if page.has(pg::FILE) && page.has(pg::DIRTY) && fs == Some(Fs::BtrfsPre58) {
                    f.copied = false;
                    f.pc = FaultPc::UmRemap;
                    self.charge(cpu, 50);
                    let ev = Ev::new(EventKind::MigrateFail, F, "U5").pfn(f.pfn).say(say!(
                        self,
                        "move_to_new_page: btrfs (before v5.8) has no migratepage; fallback_migrate_page refuses a dirty page in async mode (-EBUSY) after the unmap was already paid"
                    ));
                    return (ev, Next::Go);
                }
                let Some(n) = f.new_pfn else { return (Ev::default(), Next::Finish) };
                let ns = self.cfg.costs.copy_page_ns * self.dram_ns(cpu, page.nid) / self.cfg.costs.dram_local_ns.max(1);
                self.charge(cpu, ns);
                let np = &mut self.st.pages[n as usize];
                np.flags |= page.flags & (pg::DIRTY | pg::FILE);
                np.last_cpupid = page.last_cpupid;
                f.copied = true;
                f.pc = FaultPc::UmRemap;
                let ev = Ev::new(EventKind::MigrateCopy, F, "U5").pfn(f.pfn).pfn(n).say(say!(
                    self,
                    "move_to_new_page: 4 KiB copied from pfn {} (node {}) to pfn {n} (node {target}), with the page flags and last_cpupid",
                    f.pfn,
                    page.nid
                ));
                (ev, Next::Go)
            }
            FaultPc::UmRemap => {
                if !self.ptl_lock(cpu, mm, f.vpn) {
                    return (self.lock_wait_ev(cpu, "remove_migration_ptes", "U6"), Next::Again);
                }
                let pfn = if f.copied { f.new_pfn.unwrap_or(f.pfn) } else { f.pfn };
                let write = f.unmap_pte.write();
                self.st.mms[mm as usize].set_pte(f.vpn, Pte::present(pfn, write, false, false));
                let p = &mut self.st.pages[pfn as usize];
                p.map_mm = mm;
                p.map_vpn = f.vpn;
                self.charge(cpu, self.cfg.costs.pte_write_ns);
                self.ptl_unlock(cpu, mm, f.vpn);
                f.pc = FaultPc::UmFinish;
                let ev = Ev::new(EventKind::RemoveMigrationPtes, "remove_migration_ptes", "U6").pte(pid, f.vpn).pfn(pfn).say(say!(
                    self,
                    "remove_migration_ptes: the migration entry becomes a present PTE to pfn {pfn} ({}, old); no flush, it was not present before",
                    if write { "writable" } else { "read-only" }
                ));
                (ev, Next::Go)
            }
            FaultPc::UmFinish => {
                self.unlock_page(cpu, f.pfn);
                self.charge(cpu, 50);
                if f.copied {
                    let n = f.new_pfn.unwrap_or(f.pfn);
                    let np = &mut self.st.pages[n as usize];
                    np.flags = (np.flags & !(pg::MIGRATE_DST | pg::LOCKED)) | pg::LRU;
                    self.free_page(f.pfn);
                    self.st.counters.inc(Counter::PgmigrateSuccess);
                    self.st.counters.inc(Counter::NumaPagesMigrated);
                    f.migrated = Some(true);
                    f.pc = FaultPc::Account;
                    let ev = Ev::new(EventKind::MigrateDone, "migrate_misplaced_page", "M6").pte(pid, f.vpn).pfn(f.pfn).pfn(n).say(say!(
                        self,
                        "Migration done: pfn {} is freed, pfn {n} is on node {target}'s LRU; pgmigrate_success and numa_pages_migrated += 1",
                        f.pfn
                    ));
                    return (ev, Next::Go);
                }
                self.putback(f);
                self.migration_failed(f);
                let ev = Ev::new(EventKind::MigrateFail, "migrate_misplaced_page", "M6")
                    .pte(pid, f.vpn)
                    .pfn(f.pfn)
                    .say(say!(
                        self,
                        "Migration failed: the old page is unlocked and put back; pgmigrate_fail += 1"
                    ));
                (ev, Next::Go)
            }
            _ => (Ev::default(), Next::Finish),
        }
    }
}
