//! `mm/mprotect.c` (+ `change_prot_numa` of `mm/mempolicy.c`): the NUMA scanner's
//! PROT_NONE marking, `change_protection_range` -> `change_pte_range`.
//!
//! Follows Linux v5.12 (pre-mmu_gather): `inc_tlb_flush_pending`, walk with the PTE
//! lock per page table, one `flush_tlb_range` over the chunk if any PTE changed, then
//! `dec_tlb_flush_pending` and `numa_pte_updates += pages`. The dirty-file skip is
//! 09a913a7 (v4.17), under `numa_skip_dirty_file`. Left out: THP (`change_huge_pmd`),
//! KSM and shared-COW pages (the model has neither).

use crate::counters::Counter;
use crate::engine::{say, Flow, Sim};
use crate::state::pg;
use crate::topology::CpuId;
use crate::trace::{Ev, EventKind};

/// Position in a scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanPc {
    /// `inc_tlb_flush_pending` for the next range.
    Begin,
    /// Lock the page table of the current vpn.
    Lock,
    /// Examine the PTE at `vpn`.
    Pte,
    /// Unlock the page table.
    Unlock,
    /// Flush the range if anything changed.
    Flush,
    /// `dec_tlb_flush_pending`, count.
    End,
}

/// A `task_numa_work` pass in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanCtx {
    /// Ranges `[start, end)` of vpns, one `change_prot_numa` call each.
    pub ranges: Vec<(u32, u32)>,
    /// Current range.
    pub ri: usize,
    /// Current vpn.
    pub vpn: u32,
    /// PTEs changed in the current range.
    pub changed: u32,
    /// Position.
    pub pc: ScanPc,
}

impl ScanCtx {
    /// A scan of `ranges`.
    pub fn new(ranges: Vec<(u32, u32)>) -> Self {
        let vpn = ranges.first().map_or(0, |r| r.0);
        ScanCtx {
            ranges,
            ri: 0,
            vpn,
            changed: 0,
            pc: ScanPc::Begin,
        }
    }
}

impl Sim {
    /// One step of a scan on `cpu`.
    pub(crate) fn scan_step(&mut self, cpu: CpuId, mut s: Box<ScanCtx>) -> Ev {
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        let Some(&(start, end)) = s.ranges.get(s.ri) else {
            // Every range done: the operation is over.
            if let Some(t) = self.st.cpus[cpu as usize].task {
                let explicit = matches!(
                    self.cfg.ops[t as usize].get(self.st.tasks[t as usize].cursor.op),
                    Some(crate::scenario::Op::Scan { .. })
                ) && self.st.tasks[t as usize].cursor.started;
                if explicit {
                    self.advance_cursor(t);
                }
            }
            self.st.cpus[cpu as usize].flow = Flow::User;
            return Ev::new(EventKind::ScanEnd, "task_numa_work", "")
                .say(say!(self, "task_numa_work is done; the thread returns to user space"));
        };
        let ev = match s.pc {
            ScanPc::Begin => {
                self.st.mms[mm as usize].flush_pending += 1;
                s.vpn = start;
                s.changed = 0;
                s.pc = ScanPc::Lock;
                Ev::new(EventKind::ScanStart, "change_prot_numa", "P10").say(say!(
                    self,
                    "change_prot_numa({:#x}..{:#x}): inc_tlb_flush_pending(mm {pid}), so pte_accessible() treats PROT_NONE PTEs as cached until the flush",
                    start,
                    end
                ))
            }
            ScanPc::Lock => {
                if !self.ptl_lock(cpu, mm, s.vpn) {
                    self.st.cpus[cpu as usize].flow = Flow::Scan(s);
                    return self.lock_wait_ev(cpu, "change_pte_range", "C1");
                }
                s.pc = ScanPc::Pte;
                Ev::new(EventKind::PtlLock, "change_pte_range", "C1").say(say!(
                    self,
                    "change_pte_range takes the PTE lock of the page table holding {:#x}",
                    s.vpn
                ))
            }
            ScanPc::Pte => {
                let ev = self.change_pte(cpu, mm, &mut s);
                s.vpn += 1;
                if s.vpn >= end || s.vpn % 512 == 0 {
                    s.pc = ScanPc::Unlock;
                }
                ev
            }
            ScanPc::Unlock => {
                let vpn = s.vpn - 1;
                self.ptl_unlock(cpu, mm, vpn);
                s.pc = if s.vpn >= end { ScanPc::Flush } else { ScanPc::Lock };
                Ev::new(EventKind::PtlUnlock, "change_pte_range", "C8").say(say!(
                    self,
                    "change_pte_range drops the PTE lock ({} PTE(s) changed so far)",
                    s.changed
                ))
            }
            ScanPc::Flush => {
                s.pc = ScanPc::End;
                if s.changed > 0 {
                    self.start_flush(cpu, mm, start, end - start);
                    Ev::new(EventKind::ScanEnd, "change_prot_numa", "P12").say(say!(
                        self,
                        "{} PTE(s) lost their present bit, but TLBs may still hold them: flush_tlb_range over the whole chunk",
                        s.changed
                    ))
                } else {
                    Ev::new(EventKind::ScanEnd, "change_prot_numa", "P12").say(say!(self, "No PTE changed, so no flush is needed"))
                }
            }
            ScanPc::End => {
                self.st.mms[mm as usize].flush_pending -= 1;
                self.st.counters.add(Counter::NumaPteUpdates, u64::from(s.changed));
                s.ri += 1;
                s.pc = ScanPc::Begin;
                Ev::new(EventKind::ScanEnd, "change_prot_numa", "P13").say(say!(
                    self,
                    "dec_tlb_flush_pending; numa_pte_updates += {}",
                    s.changed
                ))
            }
        };
        self.st.cpus[cpu as usize].flow = Flow::Scan(s);
        ev
    }

    /// `change_pte_range`'s body for one PTE (prot_numa).
    fn change_pte(&mut self, cpu: CpuId, mm: u16, s: &mut ScanCtx) -> Ev {
        let pid = self.st.mms[mm as usize].pid;
        let vpn = s.vpn;
        let pte = self.st.mms[mm as usize].pte(vpn);
        self.charge(cpu, self.cfg.costs.scan_pte_ns);
        let skip = |sim: &Sim, line: &'static str, why: String| {
            Ev::new(EventKind::ScanSkip, "change_pte_range", line)
                .pte(pid, vpn)
                .say(say!(sim, "PTE {vpn:#x}: skipped, {why}"))
        };
        if pte.is_none() || pte.is_migration() {
            return skip(self, "C3", say!(self, "not present"));
        }
        if pte.protnone() {
            return skip(self, "C3", say!(self, "already PROT_NONE (no flush needed for it)"));
        }
        let pfn = pte.pfn();
        let page = self.st.pages[pfn as usize];
        let single_threaded = self.st.tasks.iter().filter(|t| t.mm == mm).count() == 1;
        if single_threaded && page.nid == self.cpu_node(cpu) {
            return skip(self, "C4", say!(self, "single-threaded and the page is already on this node"));
        }
        if self.cfg.skip_dirty_file && page.has(pg::FILE) && page.has(pg::DIRTY) {
            self.st.counters.inc(Counter::ScanSkipDirtyFile);
            return skip(
                self,
                "C5",
                say!(self, "a dirty file page: migrating it may fail, so do not trap on it (09a913a7)"),
            );
        }
        self.st.mms[mm as usize].set_pte(vpn, pte.mk_protnone());
        self.charge(cpu, self.cfg.costs.pte_write_ns);
        s.changed += 1;
        Ev::new(EventKind::ScanPte, "change_pte_range", "C6")
            .pte(pid, vpn)
            .pfn(pfn)
            .say(say!(
                self,
                "PTE {vpn:#x} -> PROT_NONE (pfn {pfn} and the write bit are kept; the MMU now sees it as not present)"
            ))
    }
}
