//! `mm/huge_memory.c`: transparent huge pages of private anonymous memory, as NUMA
//! balancing meets them: the huge page fault (`do_huge_pmd_anonymous_page`), the
//! scanner's marking of a huge PMD (`change_huge_pmd`), the hint fault on one
//! (`do_huge_pmd_numa_page`), and splitting (`__split_huge_pmd`).
//!
//! Follows Linux v4.17 (read in v4.17's mm/huge_memory.c, mm/mprotect.c and
//! mm/mempolicy.c; v4.14 has the same shape). Under the knob `thp_enabled`
//! (sysfs `enabled` = always), a first touch of a private anonymous VMA whose aligned
//! 2 MiB lies inside it gets an order-9 page on the faulting CPU's node only
//! (`alloc_hugepage_vma` adds `__GFP_THISNODE` under the default policy), mapped by one
//! PMD; when the node has no free order-9 block, the fault falls back to 4 KiB pages
//! (`thp_fault_fallback`). Left out: the huge zero page (a read first touch gets it in the
//! kernel until the first store; the model allocates at once, as for a store),
//! `khugepaged`, the deferred split queue, and huge pages of files.
//!
//! Paths that do not know huge PMDs split them first: the model splits a huge PMD where
//! fork copies it (the kernel's `copy_huge_pmd` shares the huge page instead) and where
//! the scanner's range covers only part of it (as `change_pmd_range` does); a PTE write
//! under a huge PMD by any other path (`munmap`, `mremap`, exit) splits it in the page
//! table without counting `thp_split_pmd` (`PageTable::set_pte`). A split also splits the
//! page: its 512 frames are freed one by one from then on. The TLB caches a huge mapping
//! per 4 KiB page (the model's TLB has one entry size).

use crate::core::{Flow, LockId, Ret, Until};
use crate::engine::{say, Sim};
use crate::kernel::sched::numa::{TaskNumaFault, TnfFlags};
use crate::machine::mm::fresh_page_flags;
use crate::machine::pgtable::PTRS_PER_PTE;
use crate::machine::{pg, Pte};
use crate::mech::core::ev as core_ev;
use crate::mech::core::{ALLOC_PAGE_NS, ANON_FAULTS, CLEAR_PAGE_NS, PTE_WRITE_NS, PTL_NS};
use crate::mech::numa::ev as numa_ev;
use crate::mech::numa::{NUMA_ACCOUNT_NS, NUMA_HINT_FAULTS, NUMA_HINT_FAULTS_LOCAL, SCAN_PTE_NS};
use crate::mech::thp::{NUMA_HUGE_PTE_UPDATES, THP_ENABLED, THP_FAULT_ALLOC, THP_FAULT_FALLBACK, THP_SPLIT_PMD, TLB_IPI_NUMA_HUGE};
use crate::mm::gfp::{__GFP_THISNODE, GFP_TRANSHUGE_LIGHT};
use crate::mm::memory::lock_wait;
use crate::mm::mempolicy::MpolMisplaced;
use crate::mm::migrate::MigrateMisplacedTranshugePage;
use crate::registry::{Frame, Function};
use crate::scenario::VmaKind;
use crate::topology::{CpuId, NodeId};
use crate::trace::Ev;

/// `HPAGE_PMD_NR`: pages under one huge PMD.
pub const HPAGE_PMD_NR: u32 = PTRS_PER_PTE;
/// `HPAGE_PMD_ORDER`.
pub const HPAGE_PMD_ORDER: u8 = 9;
/// What `do_huge_pmd_anonymous_page` returns when it cannot map a huge page
/// (`VM_FAULT_FALLBACK`): `handle_pte_fault` then takes the 4 KiB path.
pub const VM_FAULT_FALLBACK: Ret = Ret::Fault(crate::core::VmFault::Fallback);

/// The first page of the 2 MiB holding `vpn` (`haddr`).
pub fn haddr(vpn: u32) -> u32 {
    vpn - vpn % HPAGE_PMD_NR
}

/// Whether a first touch of `vpn` in `mm` tries a huge page: THP enabled, a private
/// anonymous VMA without `VM_NOHUGEPAGE` (v4.17 `transparent_hugepage_enabled`), and the
/// aligned 2 MiB inside it (v4.17 `do_huge_pmd_anonymous_page`'s range test;
/// `transhuge_vma_suitable` from v4.19).
pub fn thp_vma_suitable(sim: &Sim, mm: u16, vpn: u32) -> bool {
    if !sim.cfg.knobs.on(THP_ENABLED) {
        return false;
    }
    let m = &sim.st.mms[mm as usize];
    let Some(vi) = m.find_vma(vpn) else {
        return false;
    };
    let v = &m.vmas[vi];
    let h = haddr(vpn);
    v.kind == VmaKind::Anon && !v.nohugepage && h >= v.start && h + HPAGE_PMD_NR <= v.end()
}

/// `split_huge_pmd(vma, pmd, address)` with the page split with it
/// (`split_huge_page`): the PMD becomes a PTE table of the same 512 mappings, each
/// frame keeps the head's `last_cpupid` (`__split_huge_page_tail`). Counts
/// `thp_split_pmd`; false if `vpn` was not under a huge PMD.
pub fn split_huge_pmd(sim: &mut Sim, mm: u16, vpn: u32) -> bool {
    let h = haddr(vpn);
    let head = sim.st.mms[mm as usize].pte(h).pfn();
    if !sim.st.mms[mm as usize].split_huge_pmd(vpn) {
        return false;
    }
    let cpupid = sim.st.frames.get(head).last_cpupid;
    for p in head..head + HPAGE_PMD_NR {
        sim.st.frames.get_mut(p).last_cpupid = cpupid;
    }
    sim.st.counters.inc(THP_SPLIT_PMD);
    true
}

/// `do_huge_pmd_anonymous_page`: a first touch maps an order-9 page with one PMD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoHugePmdAnonymousPage {
    vpn: u32,
    write: bool,
    /// It waited for the PMD lock: classify the fault again.
    waited: bool,
}

impl DoHugePmdAnonymousPage {
    /// A first touch of `vpn`.
    pub fn frame(vpn: u32, write: bool) -> Frame {
        Frame::from(DoHugePmdAnonymousPage { vpn, write, waited: false })
    }
}

impl Function for DoHugePmdAnonymousPage {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "do_huge_pmd_anonymous_page";
        let mm = sim.cpu_mm(cpu);
        let h = haddr(self.vpn);
        let id = LockId::ptl(mm, h);
        let pid = sim.st.mms[mm as usize].pid;
        if self.waited {
            let ev = Ev::new(core_ev::RETURN, F, "HA4").pte(pid, self.vpn).say(say!(
                sim,
                "The PMD lock is free again: the fault looks at the PMD of {h:#x} once more"
            ));
            return (ev, Flow::Return(Ret::Fault(crate::core::VmFault::Retry)));
        }
        if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
            self.waited = true;
            return lock_wait(sim, cpu, id, F, "HA2");
        }
        if !matches!(sim.st.mms[mm as usize].pgtable.pmd(h), crate::machine::pgtable::Pmd::None) {
            sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
            let ev = Ev::new(core_ev::PTL_UNLOCK, F, "HA4")
                .pte(pid, self.vpn)
                .say(say!(sim, "Another thread mapped the 2 MiB at {h:#x} meanwhile: nothing to do"));
            return (ev, Flow::Return(Ret::Unit));
        }
        let node = sim.cpu_node(cpu);
        let Some(head) = crate::mm::page_alloc::alloc_pages_now(sim, GFP_TRANSHUGE_LIGHT | __GFP_THISNODE, HPAGE_PMD_ORDER, node) else {
            sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
            sim.st.counters.inc(THP_FAULT_FALLBACK);
            let ev = Ev::new(core_ev::ALLOC_PAGE, F, "HA1").pte(pid, self.vpn).say(say!(
                sim,
                "Node {node} has no free 2 MiB block, and the default policy allows no other node (__GFP_THISNODE): thp_fault_fallback += 1, VM_FAULT_FALLBACK, the fault takes a 4 KiB page"
            ));
            return (ev, Flow::Return(VM_FAULT_FALLBACK));
        };
        let m = &sim.st.mms[mm as usize];
        let Some(vi) = m.find_vma(h) else {
            // thp_vma_suitable checked the VMA before the call; nothing unmaps it meanwhile
            // without the mmap_lock the fault waited for.
            sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
            return (Ev::new(core_ev::RETURN, F, "HA4"), Flow::Return(Ret::Unit));
        };
        let v = m.vmas[vi].clone();
        for i in 0..HPAGE_PMD_NR {
            let page = sim.st.frames.get_mut(head + i);
            page.flags = fresh_page_flags(v.kind, false);
            page.mapcount = 1;
            page.mapping = v.rmap_root;
            page.index = v.pgoff + (h + i - v.start);
        }
        sim.st.mms[mm as usize].set_huge(h, Pte::present(head, true, self.write, true));
        sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
        sim.st.counters.inc(THP_FAULT_ALLOC);
        sim.st.counters.inc(ANON_FAULTS);
        // One order-9 allocation, clear_huge_page zeroing its 512 pages, one PMD write;
        // with numa_mem_scale N the modelled huge page stands for N real ones.
        let ns = sim.cfg.costs[ALLOC_PAGE_NS] + u64::from(HPAGE_PMD_NR) * sim.cfg.costs[CLEAR_PAGE_NS] + sim.cfg.costs[PTE_WRITE_NS];
        sim.charge_weighted(cpu, ns, sim.cfg.mem_scale);
        let ev = Ev::new(core_ev::ANON_FAULT, F, "HA3").pte(pid, self.vpn).pfn(head).say(say!(
            sim,
            "First touch of {:#x}: a zeroed 2 MiB page is allocated on node {node} (pfns {head}..{}) and mapped by one PMD at {h:#x} (thp_fault_alloc += 1)",
            self.vpn,
            head + HPAGE_PMD_NR - 1
        ));
        (ev, Flow::Return(Ret::Unit))
    }
}

/// `change_huge_pmd(vma, pmd, addr, PAGE_NONE, prot_numa)`: the scanner marks a whole
/// huge PMD, called by `change_pmd_range` when the range covers all of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeHugePmd {
    mm: u16,
    haddr: u32,
    pc: u8,
    changed: bool,
}

impl ChangeHugePmd {
    /// Marks the huge PMD at `haddr` of `mm`.
    pub fn frame(mm: u16, haddr: u32) -> Frame {
        Frame::from(ChangeHugePmd {
            mm,
            haddr,
            pc: 0,
            changed: false,
        })
    }
}

impl Function for ChangeHugePmd {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "change_huge_pmd";
        let (mm, h) = (self.mm, self.haddr);
        let pid = sim.st.mms[mm as usize].pid;
        let id = LockId::ptl(mm, h);
        let w = sim.cfg.mem_scale;
        match self.pc {
            0 => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "G1");
                }
                sim.charge_weighted(cpu, sim.cfg.costs[SCAN_PTE_NS], w);
                let pmd = sim.st.mms[mm as usize].pte(h);
                if !sim.st.mms[mm as usize].pgtable.is_huge(h) || pmd.protnone() {
                    self.pc = 3;
                    let why = if pmd.protnone() {
                        "already PROT_NONE"
                    } else {
                        "no longer a huge PMD (split meanwhile)"
                    };
                    let ev = Ev::new(numa_ev::SCAN_SKIP, F, "G2").pte(pid, h).say(say!(
                        sim,
                        "The PMD at {h:#x} is {why}: nothing to change (change_pmd_range counts nothing for it)"
                    ));
                    return (ev, Flow::Continue);
                }
                self.pc = 1;
                let ev = Ev::new(core_ev::PTL_LOCK, F, "G1").pte(pid, h).say(say!(
                    sim,
                    "change_huge_pmd takes the PMD lock of the huge page at {h:#x} (pfn {})",
                    pmd.pfn()
                ));
                (ev, Flow::Continue)
            }
            1 => {
                // pmdp_invalidate: not present, then flush_pmd_tlb_range over the 2 MiB.
                self.pc = 2;
                let ipis = crate::mm::migrate::shootdown_fanout(sim, cpu, mm);
                sim.st.counters.add(TLB_IPI_NUMA_HUGE, ipis);
                let ev = Ev::new(core_ev::PTE_CLEAR, F, "G3").pte(pid, h).say(say!(
                    sim,
                    "pmdp_invalidate: the huge PMD at {h:#x} is made not present and flushed from every CPU running mm {pid} (flush_pmd_tlb_range over 2 MiB)"
                ));
                (
                    ev,
                    Flow::Call(crate::arch::x86::mm::tlb::FlushTlbMmRange::frame(mm, h, HPAGE_PMD_NR)),
                )
            }
            2 => {
                let pmd = sim.st.mms[mm as usize].pte(h);
                sim.st.mms[mm as usize].set_huge(h, pmd.mk_protnone());
                sim.charge_weighted(cpu, sim.cfg.costs[PTE_WRITE_NS], w);
                sim.st.counters.inc(NUMA_HUGE_PTE_UPDATES);
                self.changed = true;
                self.pc = 3;
                let ev = Ev::new(numa_ev::SCAN_PTE, F, "G4").pte(pid, h).pfn(pmd.pfn()).say(say!(
                    sim,
                    "Huge PMD {h:#x} -> PROT_NONE (pfn {} and the write bit kept): 512 pages trap at their next access, one hint fault for all (numa_huge_pte_updates += 1)",
                    pmd.pfn()
                ));
                (ev, Flow::Continue)
            }
            _ => {
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                let n = if self.changed { HPAGE_PMD_NR } else { 0 };
                let ev = Ev::new(core_ev::PTL_UNLOCK, F, "G5").pte(pid, h).say(say!(
                    sim,
                    "change_huge_pmd drops the PMD lock and returns {}",
                    if self.changed {
                        "HPAGE_PMD_NR: 512 pages count in numa_pte_updates"
                    } else {
                        "1: nothing counted"
                    }
                ));
                (ev, Flow::Return(Ret::Count(n)))
            }
        }
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, _r: Ret) {}
}

/// Where `do_huge_pmd_numa_page` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dhp {
    /// T1-T2: lock, `pmd_same`, a migration under way.
    Lock,
    /// T3-T4: count, then `mpol_misplaced`.
    Decide,
    /// Waiting for `mpol_misplaced`.
    Deciding,
    /// T5: flush a pending scan's range before migrating.
    Flush,
    /// T6: unlock and migrate.
    Migrate,
    /// Waiting for `migrate_misplaced_transhuge_page`.
    Migrating,
    /// T7: `clear_pmdnuma`.
    ClearNuma,
    /// T8: `task_numa_fault`.
    Account,
    /// T9: return.
    Done,
}

/// `do_huge_pmd_numa_page(vmf, pmd)`: a NUMA hint fault on a huge PMD (v4.17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoHugePmdNumaPage {
    haddr: u32,
    /// The PMD at fault time.
    orig: Pte,
    pc: Dhp,
    page_nid: NodeId,
    last_cpupid: u32,
    local: bool,
    target: Option<NodeId>,
    migrated: Option<bool>,
    flags: TnfFlags,
}

impl DoHugePmdNumaPage {
    /// A hint fault on the huge PMD holding `vpn`, whose entry (the PTE of its first page)
    /// was `orig` at fault time.
    pub fn frame(vpn: u32, orig: Pte) -> Frame {
        Frame::from(DoHugePmdNumaPage {
            haddr: haddr(vpn),
            orig,
            pc: Dhp::Lock,
            page_nid: 0,
            last_cpupid: crate::machine::CPUPID_UNSET,
            local: false,
            target: None,
            migrated: None,
            flags: TnfFlags::default(),
        })
    }

    /// The PMD's first page (the lab's NUMA panel matches it with the task's record).
    pub(crate) fn vpn(&self) -> u32 {
        self.haddr
    }
}

impl Function for DoHugePmdNumaPage {
    /// One line. Like `do_numa_page`, weighted work: with `numa_mem_scale` N the modelled
    /// huge PMD stands for N real ones.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let t = sim.st.cpus[cpu as usize].curr as usize;
        sim.st.tasks[t].numa.weight = sim.cfg.mem_scale as u32;
        let out = self.line(sim, cpu);
        if matches!(out.1, Flow::Return(_) | Flow::Block(_)) {
            sim.st.tasks[t].numa.weight = 0;
        }
        out
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        match self.pc {
            Dhp::Deciding => {
                self.target = r.as_node();
                self.pc = if self.target.is_some() { Dhp::Flush } else { Dhp::ClearNuma };
            }
            Dhp::Flush => self.pc = Dhp::Migrate,
            Dhp::Migrating => {
                self.migrated = Some(r.as_bool());
                self.pc = Dhp::Account;
            }
            Dhp::Account => self.pc = Dhp::Done,
            _ => {}
        }
    }
}

impl DoHugePmdNumaPage {
    fn line(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "do_huge_pmd_numa_page";
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let h = self.haddr;
        let head = self.orig.pfn();
        let id = LockId::ptl(mm, h);
        match self.pc {
            Dhp::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "T1");
                }
                let m = &sim.st.mms[mm as usize];
                if !m.pgtable.is_huge(h) || m.pte(h) != self.orig {
                    sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                    let ev = Ev::new(core_ev::PTL_LOCK, F, "T1").pte(pid, h).say(say!(
                        sim,
                        "do_huge_pmd_numa_page takes the PMD lock: the PMD changed since the fault (another CPU handled it), so return and retry"
                    ));
                    return (ev, Flow::Return(Ret::Unit));
                }
                if sim.st.frames.get(head).has(pg::LOCKED) {
                    // pmd_trans_migrating: wait for the migration, then retry the access.
                    sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                    self.pc = Dhp::Done;
                    let ev = Ev::new(crate::mech::migrate::ev::MIGRATION_WAIT, F, "T2").pte(pid, h).pfn(head).say(say!(
                        sim,
                        "The huge page at pfn {head} is being migrated (locked): thread {} drops the PMD lock and waits for it, then retries",
                        sim.task_name(cpu)
                    ));
                    return (ev, Flow::Block(Until::PageUnlocked(head)));
                }
                self.pc = Dhp::Decide;
                let ev = Ev::new(core_ev::PTL_LOCK, F, "T1").pte(pid, h).say(say!(
                    sim,
                    "do_huge_pmd_numa_page takes the PMD lock; the huge PMD at {h:#x} is still the PROT_NONE value seen at fault time"
                ));
                (ev, Flow::Continue)
            }
            Dhp::Decide => {
                self.page_nid = sim.page_nid(head);
                self.last_cpupid = sim.st.frames.get(head).last_cpupid;
                let here = sim.cpu_node(cpu);
                self.local = self.page_nid == here;
                self.flags = TnfFlags {
                    shared: false,
                    no_group: !self.orig.write(),
                };
                sim.st.counters.inc(NUMA_HINT_FAULTS);
                if self.local {
                    sim.st.counters.inc(NUMA_HINT_FAULTS_LOCAL);
                }
                sim.charge(cpu, sim.cfg.costs[NUMA_ACCOUNT_NS]);
                self.pc = Dhp::Deciding;
                let ev = Ev::new(numa_ev::HINT_FAULT, F, "T3").pte(pid, h).pfn(head).say(say!(
                    sim,
                    "numa_hint_faults += 1 for all 512 pages; the huge page is on node {}, the CPU on node {here}: {}",
                    self.page_nid,
                    if self.local {
                        "a local fault (numa_hint_faults_local += 1)"
                    } else {
                        "a remote fault"
                    }
                ));
                (ev, Flow::Call(MpolMisplaced::frame(head, h)))
            }
            Dhp::Flush => {
                if sim.st.mms[mm as usize].flush_pending > 0 {
                    let ev = Ev::new(core_ev::CALL, F, "T5").pte(pid, h).say(say!(
                        sim,
                        "A scan's flush is still pending on mm {pid} (mm_tlb_flush_pending): flush the 2 MiB before migrating"
                    ));
                    return (
                        ev,
                        Flow::Call(crate::arch::x86::mm::tlb::FlushTlbMmRange::frame(mm, h, HPAGE_PMD_NR)),
                    );
                }
                self.pc = Dhp::Migrate;
                self.line(sim, cpu)
            }
            Dhp::Migrate => {
                // trylock_page before mpol_misplaced in the kernel: the page stays locked
                // through the migration (pmd_trans_migrating for other faults).
                sim.st.frames.get_mut(head).flags |= pg::LOCKED;
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                self.pc = Dhp::Migrating;
                let t = self.target.unwrap_or(self.page_nid);
                let ev = Ev::new(core_ev::PTL_UNLOCK, F, "T6").pte(pid, h).say(say!(
                    sim,
                    "do_huge_pmd_numa_page drops the PMD lock and calls migrate_misplaced_transhuge_page(node {t})"
                ));
                (ev, Flow::Call(MigrateMisplacedTranshugePage::frame(mm, h, self.orig, t)))
            }
            Dhp::ClearNuma => {
                let pmd = self.orig.mk_accessible();
                sim.st.mms[mm as usize].set_huge(h, pmd);
                sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                self.pc = Dhp::Account;
                let ev = Ev::new(core_ev::PTE_UPDATE, F, "T7").pte(pid, h).pfn(head).say(say!(
                    sim,
                    "clear_pmdnuma: the huge PMD is made present again (pfn {head}, {}), and the PMD lock dropped",
                    if pmd.write() { "writable" } else { "read-only" }
                ));
                (ev, Flow::Continue)
            }
            Dhp::Account => {
                let migrated = self.migrated == Some(true);
                let nid = if migrated {
                    self.target.unwrap_or(self.page_nid)
                } else {
                    self.page_nid
                };
                let ev = Ev::new(core_ev::CALL, F, "T8").pte(pid, h).say(say!(
                    sim,
                    "do_huge_pmd_numa_page records the fault: task_numa_fault(node {nid}, HPAGE_PMD_NR = 512 pages)"
                ));
                (
                    ev,
                    Flow::Call(TaskNumaFault::frame_pages(
                        self.last_cpupid,
                        nid,
                        self.local,
                        self.migrated,
                        h,
                        self.flags,
                        HPAGE_PMD_NR,
                    )),
                )
            }
            Dhp::Deciding | Dhp::Migrating | Dhp::Done => {
                let ev = Ev::new(core_ev::RETURN, F, "T9")
                    .pte(pid, h)
                    .say(say!(sim, "do_huge_pmd_numa_page returns"));
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // reason: a test may stop at the first surprise
    use super::*;

    #[test]
    fn haddr_is_the_first_page_of_the_2_mib() {
        assert_eq!(haddr(0), 0);
        assert_eq!(haddr(511), 0);
        assert_eq!(haddr(512 * 3 + 5), 512 * 3);
    }
}
