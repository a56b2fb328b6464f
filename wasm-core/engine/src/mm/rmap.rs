//! `mm/rmap.c`: `try_to_unmap_one` for migration, with `ptep_clear_flush`'s rule.
//!
//! Follows Linux v5.12: `ptep_clear_flush` (mm/pgtable-generic.c) flushes only when
//! `pte_accessible(mm, pte)` — on x86, the PTE is present, or PROT_NONE while a
//! PROT_NONE change's flush is still pending on the mm (`mm_tlb_flush_pending`). That
//! rule is why b99a342d4f11 removes the flush: its PTEs are still PROT_NONE here.

use crate::engine::{say, Sim};
use crate::mm::memory::{FaultCtx, FaultPc, Next};
use crate::state::{pg, Pte, NO_MM};
use crate::topology::CpuId;
use crate::trace::{Ev, EventKind};

impl Sim {
    /// `pte_accessible` on x86.
    pub(crate) fn pte_accessible(&self, mm: u16, pte: Pte) -> bool {
        pte.hw_present() || (pte.protnone() && self.st.mms[mm as usize].flush_pending > 0)
    }

    /// `try_to_unmap_one` for the page's single mapping.
    pub(crate) fn try_to_unmap_one(&mut self, cpu: CpuId, f: &mut FaultCtx) -> (Ev, Next) {
        const F: &str = "try_to_unmap_one";
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        match f.pc {
            FaultPc::UnmapLock => {
                if !self.ptl_lock(cpu, mm, f.vpn) {
                    return (self.lock_wait_ev(cpu, F, "T1"), Next::Again);
                }
                f.pc = FaultPc::UnmapClear;
                (
                    Ev::new(EventKind::PtlLock, F, "T1").pte(pid, f.vpn).say(say!(
                        self,
                        "try_to_unmap_one finds the mapping at {:#x} and takes its PTE lock",
                        f.vpn
                    )),
                    Next::Go,
                )
            }
            FaultPc::UnmapClear => {
                let pte = self.st.mms[mm as usize].pte(f.vpn);
                let accessible = self.pte_accessible(mm, pte);
                self.st.mms[mm as usize].set_pte(f.vpn, Pte::NONE);
                f.unmap_pte = pte;
                self.charge(cpu, self.cfg.costs.pte_write_ns);
                f.pc = FaultPc::UnmapEntry;
                let ev = Ev::new(EventKind::PteClear, "ptep_clear_flush", "T2").pte(pid, f.vpn).pfn(f.pfn);
                if accessible {
                    self.start_flush(cpu, mm, f.vpn, 1);
                    let why = if pte.hw_present() {
                        "the PTE was present, so any CPU of this mm may have cached it"
                    } else {
                        "the PTE is PROT_NONE but a scan's flush is still pending on this mm"
                    };
                    return (
                        ev.say(say!(
                            self,
                            "ptep_clear_flush: pte_accessible() is TRUE ({why}): the TLB must be flushed"
                        )),
                        Next::Go,
                    );
                }
                (
                    ev.say(say!(
                        self,
                        "ptep_clear_flush: pte_accessible() is FALSE (the PTE is PROT_NONE, no TLB can hold it): no flush, no IPI"
                    )),
                    Next::Go,
                )
            }
            FaultPc::UnmapEntry => {
                let pte = f.unmap_pte;
                if pte.dirty() {
                    self.st.pages[f.pfn as usize].flags |= pg::DIRTY;
                }
                self.st.mms[mm as usize].set_pte(f.vpn, Pte::migration(f.pfn, pte.write()));
                self.st.pages[f.pfn as usize].map_mm = NO_MM;
                self.charge(cpu, self.cfg.costs.pte_write_ns);
                self.ptl_unlock(cpu, mm, f.vpn);
                f.unmapped = true;
                f.pc = FaultPc::UmCopy;
                let ev = Ev::new(EventKind::MigrationEntry, F, "T4").pte(pid, f.vpn).pfn(f.pfn).say(say!(
                    self,
                    "A {} migration entry replaces the PTE{}; the PTE lock is dropped. A thread touching the page now waits for the migration",
                    if pte.write() { "write" } else { "read" },
                    if pte.dirty() { " (its dirty bit moves to the page)" } else { "" }
                ));
                (ev, Next::Go)
            }
            _ => (Ev::default(), Next::Finish),
        }
    }
}
