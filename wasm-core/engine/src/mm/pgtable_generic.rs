//! `mm/pgtable-generic.c`: `ptep_clear_flush`, with x86's `pte_accessible` rule.
//!
//! Follows Linux v5.12: the PTE is cleared, and the TLB is flushed only when
//! `pte_accessible(mm, pte)`: on x86 the PTE was present, or it is PROT_NONE while a
//! PROT_NONE change's flush is still pending on the mm (`mm_tlb_flush_pending`). That
//! rule is why b99a342d4f11 removes the flush: its PTEs are still PROT_NONE here.

use crate::arch::x86::mm::tlb::FlushTlbMmRange;
use crate::core::{Flow, Ret};
use crate::engine::{say, Sim};
use crate::machine::Pte;
use crate::mech::core::ev as core_ev;
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// `pte_accessible` on x86.
pub(crate) fn pte_accessible(sim: &Sim, mm: u16, pte: Pte) -> bool {
    pte.hw_present() || (pte.protnone() && sim.st.mms[mm as usize].flush_pending > 0)
}

/// `ptep_clear_flush(vma, address, ptep)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtepClearFlush {
    mm: u16,
    vpn: u32,
    pfn: u32,
    pte: Option<Pte>,
}

impl PtepClearFlush {
    /// Clear the PTE of `vpn` in `mm` (mapping `pfn`).
    pub fn frame(mm: u16, vpn: u32, pfn: u32) -> Frame {
        Frame::from(PtepClearFlush { mm, vpn, pfn, pte: None })
    }
}

impl Function for PtepClearFlush {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "ptep_clear_flush";
        let (mm, vpn) = (self.mm, self.vpn);
        let pid = sim.st.mms[mm as usize].pid;
        if let Some(pte) = self.pte {
            let ev = Ev::new(core_ev::RETURN, F, "PC3")
                .pte(pid, vpn)
                .say(say!(sim, "ptep_clear_flush returns the old PTE"));
            return (ev, Flow::Return(Ret::Pte(pte)));
        }
        let pte = sim.st.mms[mm as usize].pte(vpn);
        let accessible = pte_accessible(sim, mm, pte);
        sim.st.mms[mm as usize].set_pte(vpn, Pte::NONE);
        sim.charge(cpu, sim.cfg.costs.pte_write_ns);
        self.pte = Some(pte);
        let ev = Ev::new(core_ev::PTE_CLEAR, F, "PC2").pte(pid, vpn).pfn(self.pfn);
        if accessible {
            let why = if pte.hw_present() {
                "the PTE was present, so any CPU of this mm may have cached it"
            } else {
                "the PTE is PROT_NONE but a scan's flush is still pending on this mm"
            };
            let ev = ev.say(say!(
                sim,
                "ptep_clear_flush: pte_accessible() is TRUE ({why}): the TLB must be flushed"
            ));
            return (ev, Flow::Call(FlushTlbMmRange::frame(mm, vpn, 1)));
        }
        let ev = ev.say(say!(
            sim,
            "ptep_clear_flush: pte_accessible() is FALSE (the PTE is PROT_NONE, no TLB can hold it): no flush, no IPI"
        ));
        (ev, Flow::Return(Ret::Pte(pte)))
    }

    fn flush_under_way(&self, _mm: u16) -> bool {
        true
    }
}
