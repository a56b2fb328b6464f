//! `mm/mprotect.c` (+ `change_prot_numa` of `mm/mempolicy.c`): the NUMA scanner's
//! PROT_NONE marking, `change_protection_range` -> `change_pte_range`.
//!
//! Follows Linux v5.12 (pre-mmu_gather): `inc_tlb_flush_pending`, one
//! `change_pte_range` per PTE table under its PTE lock, one `flush_tlb_range` over the
//! whole range if any PTE changed, then `dec_tlb_flush_pending` and
//! `numa_pte_updates += pages`. The dirty-file skip is 09a913a7 (v4.17), under
//! `numa_skip_dirty_file`. A huge PMD the range covers whole is `change_huge_pmd`
//! (`mm/huge_memory.rs`), one it covers in part is split (v4.17 `change_pmd_range`).
//! Left out: KSM.
//! "Single-threaded" is `mm_users == 1` (live threads) and applies to private VMAs only,
//! as in v5.12. The scanner's own
//! flush counts its shootdown IPIs in `tlb_ipi_numa_scan`.

use crate::arch::x86::mm::tlb::FlushTlbMmRange;
use crate::core::{Flow, LockId, Ret};
use crate::engine::{say, Sim};
use crate::machine::pg;
use crate::machine::pgtable::PTRS_PER_PTE;
use crate::mech::core::ev as core_ev;
use crate::mech::core::{PTE_WRITE_NS, PTL_NS};
use crate::mech::numa::ev as numa_ev;
use crate::mech::numa::NUMA_SKIP_DIRTY_FILE;
use crate::mech::numa::SCAN_PTE_NS;
use crate::mech::numa::{NUMA_PTE_UPDATES, SCAN_SKIP_DIRTY_FILE, TLB_IPI_NUMA_SCAN};
use crate::mm::memory::lock_wait;
use crate::registry::{Frame, Function};
use crate::scenario::VmaKind;
use crate::topology::CpuId;
use crate::trace::Ev;

/// Where `change_prot_numa` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cpn {
    /// P10: `inc_tlb_flush_pending`, first PTE table.
    Begin,
    /// P11: the next PTE table.
    Table,
    /// P12: flush if anything changed.
    Flush,
    /// P13: `dec_tlb_flush_pending`, count.
    End,
}

/// `change_prot_numa(vma, start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeProtNuma {
    mm: u16,
    start: u32,
    end: u32,
    /// Next PTE table starts here.
    vpn: u32,
    changed: u32,
    pc: Cpn,
}

/// The end of the PTE table holding `vpn`, capped at `end`.
fn table_end(vpn: u32, end: u32) -> u32 {
    ((vpn / PTRS_PER_PTE + 1) * PTRS_PER_PTE).min(end)
}

impl ChangeProtNuma {
    /// Marks `[start, end)` of `mm`.
    pub fn frame(mm: u16, start: u32, end: u32) -> Frame {
        Frame::from(ChangeProtNuma {
            mm,
            start,
            end,
            vpn: start,
            changed: 0,
            pc: Cpn::Begin,
        })
    }

    /// The next PMD's work (`change_pmd_range`): a huge PMD the range covers whole is
    /// `change_huge_pmd`; one it covers in part is split first; a PTE table is
    /// `change_pte_range`.
    fn table(&self, sim: &mut Sim) -> Frame {
        if sim.st.mms[self.mm as usize].pgtable.is_huge(self.vpn) {
            let end = table_end(self.vpn, self.end);
            if self.vpn % PTRS_PER_PTE == 0 && end - self.vpn == PTRS_PER_PTE {
                return crate::mm::huge_memory::ChangeHugePmd::frame(self.mm, self.vpn);
            }
            crate::mm::huge_memory::split_huge_pmd(sim, self.mm, self.vpn);
        }
        Frame::from(ChangePteRange {
            mm: self.mm,
            vpn: self.vpn,
            end: table_end(self.vpn, self.end),
            changed: 0,
            pc: Cpr::Lock,
        })
    }
}

impl Function for ChangeProtNuma {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "change_prot_numa";
        let pid = sim.st.mms[self.mm as usize].pid;
        match self.pc {
            Cpn::Begin => {
                sim.st.mms[self.mm as usize].flush_pending += 1;
                self.pc = Cpn::Table;
                let ev = Ev::new(numa_ev::SCAN_START, F, "P10").say(say!(
                    sim,
                    "change_prot_numa({:#x}..{:#x}): inc_tlb_flush_pending(mm {pid}), so pte_accessible() treats PROT_NONE PTEs as cached until the flush",
                    self.start,
                    self.end
                ));
                (ev, Flow::Call(self.table(sim)))
            }
            Cpn::Table => {
                let ev = Ev::new(core_ev::CALL, F, "P11").say(say!(sim, "change_pte_range on the next PTE table, from {:#x}", self.vpn));
                (ev, Flow::Call(self.table(sim)))
            }
            Cpn::Flush => {
                self.pc = Cpn::End;
                if self.changed > 0 {
                    let ipis = crate::mm::migrate::shootdown_fanout(sim, cpu, self.mm);
                    sim.st.counters.add(TLB_IPI_NUMA_SCAN, ipis);
                    let ev = Ev::new(numa_ev::SCAN_END, F, "P12").say(say!(
                        sim,
                        "{} PTE(s) lost their present bit, but TLBs may still hold them: flush_tlb_range over the whole range",
                        self.changed
                    ));
                    return (ev, Flow::Call(FlushTlbMmRange::frame(self.mm, self.start, self.end - self.start)));
                }
                let ev = Ev::new(numa_ev::SCAN_END, F, "P12").say(say!(sim, "No PTE changed, so no flush is needed"));
                (ev, Flow::Continue)
            }
            Cpn::End => {
                let m = &mut sim.st.mms[self.mm as usize];
                m.flush_pending = m.flush_pending.saturating_sub(1);
                sim.st.counters.add(NUMA_PTE_UPDATES, u64::from(self.changed));
                let ev = Ev::new(numa_ev::SCAN_END, F, "P13").say(say!(sim, "dec_tlb_flush_pending; numa_pte_updates += {}", self.changed));
                (ev, Flow::Return(Ret::Count(self.changed)))
            }
        }
    }

    /// `change_pte_range` returned the PTEs it changed, or the flush returned.
    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if matches!(self.pc, Cpn::Table) {
            self.changed += r.as_count();
            self.vpn = table_end(self.vpn, self.end);
            if self.vpn >= self.end {
                self.pc = Cpn::Flush;
            }
        }
    }
}

/// Where `change_pte_range` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cpr {
    /// C1: lock the PTE table.
    Lock,
    /// C2-C7: one PTE.
    Pte,
    /// C8: unlock, return the count.
    Unlock,
}

/// `change_pte_range(vma, pmd, addr, end, PAGE_NONE, MM_CP_PROT_NUMA)` over one PTE table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangePteRange {
    mm: u16,
    vpn: u32,
    end: u32,
    changed: u32,
    pc: Cpr,
}

impl ChangePteRange {
    /// The loop body for one PTE (prot_numa).
    fn change_pte(&mut self, sim: &mut Sim, cpu: CpuId) -> Ev {
        let mm = self.mm;
        let pid = sim.st.mms[mm as usize].pid;
        let vpn = self.vpn;
        let pte = sim.st.mms[mm as usize].pte(vpn);
        // Per-PTE work: a modelled PTE stands for numa_mem_scale real ones.
        let w = sim.cfg.mem_scale;
        sim.charge_weighted(cpu, sim.cfg.costs[SCAN_PTE_NS], w);
        let skip = |sim: &Sim, line: &'static str, why: String| {
            Ev::new(numa_ev::SCAN_SKIP, "change_pte_range", line)
                .pte(pid, vpn)
                .say(say!(sim, "PTE {vpn:#x}: skipped, {why}"))
        };
        if pte.is_none() || pte.is_migration() {
            return skip(sim, "C3", say!(sim, "not present"));
        }
        if pte.protnone() {
            return skip(sim, "C3", say!(sim, "already PROT_NONE (no flush needed for it)"));
        }
        let pfn = pte.pfn();
        let page = *sim.st.frames.get(pfn);
        // v5.12: "Also skip shared copy-on-write pages" (is_cow_mapping && page_mapcount != 1).
        if page.has(pg::ANON) && page.mapcount != 1 {
            return skip(sim, "C3", say!(sim, "a copy-on-write page shared with another process"));
        }
        // The target-node test is for private VMAs only (`!(vma->vm_flags & VM_SHARED)`,
        // v4.17 to v5.12): a shared file mapping is marked even in a single-threaded mm.
        let m = &sim.st.mms[mm as usize];
        let private = m.find_vma(vpn).is_some_and(|i| m.vmas[i].kind != VmaKind::File);
        if private && m.users == 1 && sim.page_nid(pfn) == sim.cpu_node(cpu) {
            return skip(
                sim,
                "C4",
                say!(
                    sim,
                    "a private mapping of a single-threaded process, and the page is already on this node"
                ),
            );
        }
        if sim.cfg.toggles.on(NUMA_SKIP_DIRTY_FILE) && page.has(pg::FILE) && page.has(pg::DIRTY) {
            sim.st.counters.inc(SCAN_SKIP_DIRTY_FILE);
            return skip(
                sim,
                "C5",
                say!(sim, "a dirty file page: migrating it may fail, so do not trap on it (09a913a7)"),
            );
        }
        sim.st.mms[mm as usize].set_pte(vpn, pte.mk_protnone());
        sim.charge_weighted(cpu, sim.cfg.costs[PTE_WRITE_NS], w);
        self.changed += 1;
        Ev::new(numa_ev::SCAN_PTE, "change_pte_range", "C6")
            .pte(pid, vpn)
            .pfn(pfn)
            .say(say!(
                sim,
                "PTE {vpn:#x} -> PROT_NONE (pfn {pfn} and the write bit are kept; the MMU now sees it as not present)"
            ))
    }
}

impl Function for ChangePteRange {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "change_pte_range";
        let id = LockId::ptl(self.mm, self.vpn.min(self.end.saturating_sub(1)));
        match self.pc {
            Cpr::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "C1");
                }
                self.pc = Cpr::Pte;
                let ev = Ev::new(core_ev::PTL_LOCK, F, "C1").say(say!(
                    sim,
                    "change_pte_range takes the PTE lock of the page table holding {:#x}",
                    self.vpn
                ));
                (ev, Flow::Continue)
            }
            Cpr::Pte => {
                let ev = self.change_pte(sim, cpu);
                self.vpn += 1;
                if self.vpn >= self.end {
                    self.pc = Cpr::Unlock;
                }
                (ev, Flow::Continue)
            }
            Cpr::Unlock => {
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                let ev = Ev::new(core_ev::PTL_UNLOCK, F, "C8").say(say!(
                    sim,
                    "change_pte_range drops the PTE lock ({} PTE(s) changed)",
                    self.changed
                ));
                (ev, Flow::Return(Ret::Count(self.changed)))
            }
        }
    }
}
