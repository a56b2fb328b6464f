//! `mm/rmap.c`: `try_to_unmap` as an rmap walk over every VMA that may map the page,
//! and `try_to_unmap_one` for migration (a migration entry replaces each mapping).
//!
//! Follows Linux v5.12 (`rmap_walk_anon` / `rmap_walk_file` over the anon_vma or the
//! file's `i_mmap`, `page_vma_mapped_walk` under the PTE lock). Left out: THP
//! (`TTU_SPLIT_HUGE_PMD`: a huge page migrates through its PMD alone,
//! `migrate_misplaced_transhuge_page`), mlocked pages, and the batched flush of reclaim
//! (`TTU_BATCH_FLUSH`); the anon_vma / i_mmap locks are not contended in any scenario
//! yet and are not taken.

use crate::core::{Flow, LockId, Ret};
use crate::engine::{say, Sim};
use crate::machine::Pte;
use crate::mech::core::ev as core_ev;
use crate::mech::core::RMAP_UNMAPS;
use crate::mech::core::{PTE_WRITE_NS, PTL_NS, RMAP_WALK_NS};
use crate::mech::migrate::ev as migrate_ev;
use crate::mm::memory::lock_wait;
use crate::mm::pgtable_generic::PtepClearFlush;
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// `try_to_unmap(page, TTU_MIGRATION)`: walk the page's rmap root and unmap each mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TryToUnmap {
    pfn: u32,
    /// Next VMA of the rmap root to look at.
    i: u16,
    unmapped: u16,
}

impl TryToUnmap {
    /// Unmap the page at `pfn` everywhere.
    pub fn frame(pfn: u32) -> Frame {
        Frame::from(TryToUnmap { pfn, i: 0, unmapped: 0 })
    }
}

impl Function for TryToUnmap {
    /// One line: the next VMA that covers the page, or return.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "try_to_unmap";
        let page = *sim.st.frames.get(self.pfn);
        let root = page.mapping as usize;
        while let Some(&(mm, vi)) = sim.st.roots.get(root).and_then(|r| r.vmas.get(self.i as usize)) {
            self.i += 1;
            let vma = &sim.st.mms[mm as usize].vmas[vi as usize];
            let Some(vpn) = vma.address_of(&page) else { continue };
            sim.charge(cpu, sim.cfg.costs[RMAP_WALK_NS]);
            let pid = sim.st.mms[mm as usize].pid;
            let ev = Ev::new(core_ev::CALL, F, "TU2").pte(pid, vpn).pfn(self.pfn).say(say!(
                sim,
                "rmap walk: pfn {} may be mapped by mm {pid} at {vpn:#x}: try_to_unmap_one",
                self.pfn
            ));
            return (ev, Flow::Call(Frame::from(TryToUnmapOne::new(mm, vpn, self.pfn))));
        }
        let ev = Ev::new(core_ev::RETURN, F, "TU3").pfn(self.pfn).say(say!(
            sim,
            "try_to_unmap: the rmap walk is done, {} mapping(s) replaced by migration entries",
            self.unmapped
        ));
        (ev, Flow::Return(Ret::Unit))
    }

    /// A mapping was handled.
    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if r.as_bool() {
            self.unmapped += 1;
        }
    }
}

/// Where `try_to_unmap_one` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ttu {
    /// T1: lock and check the mapping.
    Lock,
    /// T2: `ptep_clear_flush`.
    Clear,
    /// Waiting for `ptep_clear_flush`.
    Cleared,
    /// T3-T5: migration entry, rmap, unlock.
    Entry,
}

/// `try_to_unmap_one` for one (mm, address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TryToUnmapOne {
    mm: u16,
    vpn: u32,
    pfn: u32,
    pteval: Pte,
    pc: Ttu,
}

impl TryToUnmapOne {
    /// The page being unmapped.
    pub fn pfn(&self) -> u32 {
        self.pfn
    }

    /// Whether the PTE is cleared (or being cleared) but the rmap not yet dropped.
    pub fn cleared(&self) -> bool {
        matches!(self.pc, Ttu::Cleared | Ttu::Entry)
    }

    fn new(mm: u16, vpn: u32, pfn: u32) -> Self {
        TryToUnmapOne {
            mm,
            vpn,
            pfn,
            pteval: Pte::NONE,
            pc: Ttu::Lock,
        }
    }
}

impl Function for TryToUnmapOne {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "try_to_unmap_one";
        let (mm, vpn, pfn) = (self.mm, self.vpn, self.pfn);
        let pid = sim.st.mms[mm as usize].pid;
        let id = LockId::ptl(mm, vpn);
        match self.pc {
            Ttu::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "T1");
                }
                let pte = sim.st.mms[mm as usize].pte(vpn);
                if pte.is_none() || pte.is_migration() || pte.pfn() != pfn {
                    sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                    let ev = Ev::new(core_ev::PTL_LOCK, F, "T1")
                        .pte(pid, vpn)
                        .say(say!(sim, "page_vma_mapped_walk: mm {pid} does not map pfn {pfn} at {vpn:#x}"));
                    return (ev, Flow::Return(Ret::Bool(false)));
                }
                self.pc = Ttu::Clear;
                let ev = Ev::new(core_ev::PTL_LOCK, F, "T1")
                    .pte(pid, vpn)
                    .say(say!(sim, "try_to_unmap_one finds the mapping at {vpn:#x} and takes its PTE lock"));
                (ev, Flow::Continue)
            }
            Ttu::Clear => {
                self.pc = Ttu::Cleared;
                let ev = Ev::new(core_ev::CALL, F, "T2")
                    .pte(pid, vpn)
                    .say(say!(sim, "pteval = ptep_clear_flush(vma, {vpn:#x})"));
                (ev, Flow::Call(PtepClearFlush::frame(mm, vpn, pfn)))
            }
            Ttu::Entry | Ttu::Cleared => {
                let pte = self.pteval;
                if pte.dirty() {
                    crate::mm::page_writeback::set_page_dirty(sim, pfn);
                }
                sim.st.mms[mm as usize].set_pte(vpn, Pte::migration(pfn, pte.write()));
                let p = sim.st.frames.get_mut(pfn);
                p.mapcount = p.mapcount.saturating_sub(1);
                sim.st.counters.inc(RMAP_UNMAPS);
                sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                let ev = Ev::new(migrate_ev::MIGRATION_ENTRY, F, "T4").pte(pid, vpn).pfn(pfn).say(say!(
                    sim,
                    "A {} migration entry replaces the PTE{}; page_remove_rmap; the PTE lock is dropped. A thread touching the page now waits for the migration",
                    if pte.write() { "write" } else { "read" },
                    if pte.dirty() { " (its dirty bit moves to the page)" } else { "" }
                ));
                (ev, Flow::Return(Ret::Bool(true)))
            }
        }
    }

    /// `ptep_clear_flush` returned the old PTE.
    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if let Ret::Pte(p) = r {
            self.pteval = p;
        }
        self.pc = Ttu::Entry;
    }

    fn unmapping(&self) -> Option<u32> {
        self.cleared().then_some(self.pfn())
    }
}
