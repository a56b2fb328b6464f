//! `mm/memory.c`: page-fault handling — `handle_pte_fault`, `do_anonymous_page`,
//! `do_numa_page` (both flows of b99a342d4f11) and `numa_migrate_prep`.

use crate::counters::Counter;
use crate::engine::{say, Flow, Sim};
use crate::state::{pg, Pte, Wait};
use crate::topology::{CpuId, NodeId};
use crate::trace::{Ev, EventKind};

/// Where a fault is, as a position in the kernel functions it runs through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultPc {
    /// `handle_pte_fault`: classify the PTE.
    HandlePteFault,
    /// `do_numa_page` O1/N1: lock, `pte_same`.
    DnpLock,
    /// O2-O3 (make present) or N2 (compute only).
    DnpMap,
    /// `numa_migrate_prep`: counters.
    DnpPrep,
    /// `mpol_misplaced` -> `should_numa_migrate_memory`.
    DnpDecide,
    /// O8/N8: unlock before migrating.
    DnpUnlock,
    /// `migrate_misplaced_page`: checks and isolation.
    MmpIsolate,
    /// `unmap_and_move`: allocate the destination.
    UmAlloc,
    /// `__unmap_and_move`: lock the page.
    UmLock,
    /// `try_to_unmap_one`: lock.
    UnmapLock,
    /// `try_to_unmap_one`: `ptep_clear_flush`.
    UnmapClear,
    /// `try_to_unmap_one`: migration entry, unlock.
    UnmapEntry,
    /// `move_to_new_page`.
    UmCopy,
    /// `remove_migration_ptes`.
    UmRemap,
    /// Unlock, free, count.
    UmFinish,
    /// N10: retake the lock after a failed migration.
    RelockCheck,
    /// N11 / O2 on the failure path: map the PTE.
    OutMap,
    /// N12: unlock.
    OutUnlock,
    /// `task_numa_fault`.
    Account,
}

/// A page fault in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultCtx {
    /// Faulting page.
    pub vpn: u32,
    /// Store.
    pub write: bool,
    /// PTE value at fault entry.
    pub orig: Pte,
    /// Position.
    pub pc: FaultPc,
    /// The page (old frame).
    pub pfn: u32,
    /// Its node, or `None` (NUMA_NO_NODE: nothing to account).
    pub page_nid: Option<NodeId>,
    /// Migration target.
    pub target: Option<NodeId>,
    /// `page_cpupid_last` before the xchg.
    pub last_cpupid: u32,
    /// Outcome of `migrate_misplaced_page`.
    pub migrated: Option<bool>,
    /// Destination frame.
    pub new_pfn: Option<u32>,
    /// The PTE value `ptep_clear_flush` returned when unmapping.
    pub unmap_pte: Pte,
    /// The page was unmapped (migration entry installed).
    pub unmapped: bool,
    /// The copy succeeded.
    pub copied: bool,
    /// The PTE lock is held.
    pub ptl: bool,
}

impl FaultCtx {
    /// A fault on `vpn`.
    pub fn new(vpn: u32, write: bool) -> Self {
        FaultCtx {
            vpn,
            write,
            orig: Pte::NONE,
            pc: FaultPc::HandlePteFault,
            pfn: 0,
            page_nid: None,
            target: None,
            last_cpupid: crate::state::CPUPID_UNSET,
            migrated: None,
            new_pfn: None,
            unmap_pte: Pte::NONE,
            unmapped: false,
            copied: false,
            ptl: false,
        }
    }
}

/// What the step did to the fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Continue at the (updated) pc.
    Go,
    /// The CPU now waits; run the same pc again when it wakes.
    Again,
    /// The fault is handled: retry the access.
    Finish,
}

impl Sim {
    /// One step of the fault on `cpu`.
    pub(crate) fn fault_step(&mut self, cpu: CpuId, mut f: Box<FaultCtx>) -> Ev {
        use FaultPc::*;
        let (ev, next) = match f.pc {
            HandlePteFault => self.handle_pte_fault(cpu, &mut f),
            DnpLock | DnpMap | DnpPrep | DnpDecide | DnpUnlock | RelockCheck | OutMap | OutUnlock => self.do_numa_page(cpu, &mut f),
            Account => self.task_numa_fault(cpu, &mut f),
            MmpIsolate => self.migrate_misplaced_page(cpu, &mut f),
            UmAlloc | UmLock | UmCopy | UmRemap | UmFinish => self.unmap_and_move(cpu, &mut f),
            UnmapLock | UnmapClear | UnmapEntry => self.try_to_unmap_one(cpu, &mut f),
        };
        match next {
            Next::Go | Next::Again => self.st.cpus[cpu as usize].flow = Flow::Fault(f),
            Next::Finish => self.retry_access(cpu, f.vpn, f.write),
        }
        ev
    }

    fn handle_pte_fault(&mut self, cpu: CpuId, f: &mut FaultCtx) -> (Ev, Next) {
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        let pte = self.st.mms[mm as usize].pte(f.vpn);
        f.orig = pte;
        if pte.is_none() {
            return self.do_anonymous_page(cpu, f);
        }
        if pte.is_migration() {
            let pfn = pte.pfn();
            if self.st.pages[pfn as usize].has(pg::LOCKED) {
                self.st.cpus[cpu as usize].wait = Wait::PageLock(pfn);
            }
            let ev = Ev::new(EventKind::MigrationWait, "handle_pte_fault", "H3")
                .pte(pid, f.vpn)
                .pfn(pfn)
                .say(say!(
                self,
                "The PTE of {:#x} is a migration entry: thread {} waits (migration_entry_wait) until pfn {pfn} is unlocked, then retries",
                f.vpn,
                self.task_name(cpu)
            ));
            return (ev, Next::Finish);
        }
        if pte.protnone() && self.cfg.knobs.numa_balancing {
            f.pc = FaultPc::DnpLock;
            let ev = Ev::new(EventKind::FaultEntry, "handle_pte_fault", "H4").pte(pid, f.vpn).say(say!(
                self,
                "handle_pte_fault: the PTE is PROT_NONE in an accessible VMA, so this is a NUMA hint fault: do_numa_page"
            ));
            return (ev, Next::Go);
        }
        // Someone else mapped it meanwhile (or a protnone PTE with balancing off): just retry.
        let ev = Ev::new(EventKind::FaultEntry, "handle_pte_fault", "H1").pte(pid, f.vpn).say(say!(
            self,
            "The PTE of {:#x} is already usable again: spurious fault, retry the access",
            f.vpn
        ));
        (ev, Next::Finish)
    }

    fn do_anonymous_page(&mut self, cpu: CpuId, f: &mut FaultCtx) -> (Ev, Next) {
        let mm = self.cpu_mm(cpu);
        if !self.ptl_lock(cpu, mm, f.vpn) {
            return (self.lock_wait_ev(cpu, "do_anonymous_page", "A2"), Next::Again);
        }
        let pid = self.st.mms[mm as usize].pid;
        let node = self.cpu_node(cpu);
        let Some(pfn) = self.alloc_page(node, true) else {
            self.ptl_unlock(cpu, mm, f.vpn);
            // Out of memory: the model stops this thread rather than invent reclaim.
            self.st.cpus[cpu as usize].flow = Flow::Done;
            let ev = Ev::new(EventKind::AnonFault, "do_anonymous_page", "A1").say(say!(
                self,
                "No free page on any node: thread {} stops (the model has no reclaim)",
                self.task_name(cpu)
            ));
            return (ev, Next::Again);
        };
        let file = self.st.mms[mm as usize]
            .find_vma(f.vpn)
            .is_some_and(|(v, _)| self.st.mms[mm as usize].vmas[v].kind == crate::scenario::VmaKind::File);
        let page = &mut self.st.pages[pfn as usize];
        page.flags = pg::LRU | if file { pg::FILE } else { 0 } | if file && f.write { pg::DIRTY } else { 0 };
        page.map_mm = mm;
        page.map_vpn = f.vpn;
        let nid = page.nid;
        self.st.mms[mm as usize].set_pte(f.vpn, Pte::present(pfn, true, f.write, true));
        self.ptl_unlock(cpu, mm, f.vpn);
        self.st.counters.inc(Counter::AnonFaults);
        self.charge(cpu, self.cfg.costs.alloc_page_ns + self.cfg.costs.pte_write_ns);
        let ev = Ev::new(EventKind::AnonFault, "do_anonymous_page", "A2")
            .pte(pid, f.vpn)
            .pfn(pfn)
            .say(say!(
                self,
                "First touch of {:#x}: a zeroed page is allocated on node {nid}{} (pfn {pfn}) and mapped",
                f.vpn,
                if nid == node { " (local)" } else { " (the local node is full)" }
            ));
        (ev, Next::Finish)
    }

    /// A "waits for the PTE lock" event.
    pub(crate) fn lock_wait_ev(&self, cpu: CpuId, function: &'static str, line: &'static str) -> Ev {
        Ev::new(EventKind::LockWait, function, line).say(say!(
            self,
            "CPU {cpu} finds the PTE lock held by another CPU and spins until it is released"
        ))
    }

    /// `do_numa_page`, old (v5.12) or new (v5.13, b99a342d4f11) flow per `numa_delay_map`.
    fn do_numa_page(&mut self, cpu: CpuId, f: &mut FaultCtx) -> (Ev, Next) {
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        let new = self.cfg.delay_map;
        let l = |old: &'static str, n: &'static str| if new { n } else { old };
        const F: &str = "do_numa_page";
        match f.pc {
            FaultPc::DnpLock => {
                if !self.ptl_lock(cpu, mm, f.vpn) {
                    return (self.lock_wait_ev(cpu, F, l("O1", "N1")), Next::Again);
                }
                f.ptl = true;
                if self.st.mms[mm as usize].pte(f.vpn) != f.orig {
                    self.ptl_unlock(cpu, mm, f.vpn);
                    f.ptl = false;
                    let ev = Ev::new(EventKind::PtlLock, F, l("O1", "N1")).pte(pid, f.vpn).say(say!(
                        self,
                        "do_numa_page takes the PTE lock: the PTE changed since the fault (another CPU handled it), so return and retry"
                    ));
                    return (ev, Next::Finish);
                }
                f.pc = FaultPc::DnpMap;
                let ev = Ev::new(EventKind::PtlLock, F, l("O1", "N1")).pte(pid, f.vpn).say(say!(
                    self,
                    "do_numa_page takes the PTE lock; the PTE is still the PROT_NONE value seen at fault time"
                ));
                (ev, Next::Go)
            }
            FaultPc::DnpMap => {
                f.pfn = f.orig.pfn();
                f.pc = FaultPc::DnpPrep;
                if new {
                    self.charge(cpu, 5);
                    let ev = Ev::new(EventKind::PteUpdate, F, "N2").pte(pid, f.vpn).pfn(f.pfn).say(say!(
                        self,
                        "New flow: the accessible PTE is only computed; the page table keeps PROT_NONE, so no CPU can cache this translation yet"
                    ));
                    return (ev, Next::Go);
                }
                let pte = f.orig.mk_accessible();
                self.st.mms[mm as usize].set_pte(f.vpn, pte);
                self.charge(cpu, self.cfg.costs.pte_write_ns);
                let ev = Ev::new(EventKind::PteUpdate, F, "O3").pte(pid, f.vpn).pfn(f.pfn).say(say!(
                    self,
                    "Old flow: the PTE is made present again (pfn {}, {}) before deciding anything; from now on every CPU running mm {pid} can cache it",
                    f.pfn,
                    if pte.write() { "writable" } else { "read-only" }
                ));
                (ev, Next::Go)
            }
            FaultPc::DnpPrep => self.numa_migrate_prep(cpu, f, l("O7", "N6")),
            FaultPc::DnpDecide => {
                let (ev, target) = self.mpol_misplaced(cpu, f, l("O7", "N6"));
                f.target = target;
                f.pc = match (target, new) {
                    (None, true) => FaultPc::OutMap,
                    _ => FaultPc::DnpUnlock,
                };
                (ev, Next::Go)
            }
            FaultPc::DnpUnlock => {
                self.ptl_unlock(cpu, mm, f.vpn);
                f.ptl = false;
                let ev = Ev::new(EventKind::PtlUnlock, F, l("O8", "N8")).pte(pid, f.vpn);
                match f.target {
                    Some(t) => {
                        f.pc = FaultPc::MmpIsolate;
                        let ev = ev.say(say!(
                            self,
                            "do_numa_page drops the PTE lock and calls migrate_misplaced_page(page, node {t})"
                        ));
                        (ev, Next::Go)
                    }
                    None => {
                        f.pc = FaultPc::Account;
                        let ev = ev.say(say!(self, "do_numa_page drops the PTE lock; the page stays where it is (put_page)"));
                        (ev, Next::Go)
                    }
                }
            }
            FaultPc::RelockCheck => {
                if !self.ptl_lock(cpu, mm, f.vpn) {
                    return (self.lock_wait_ev(cpu, F, "N10"), Next::Again);
                }
                f.ptl = true;
                let cur = self.st.mms[mm as usize].pte(f.vpn);
                if cur != f.orig {
                    self.ptl_unlock(cpu, mm, f.vpn);
                    f.ptl = false;
                    f.pc = FaultPc::Account;
                    let ev = Ev::new(EventKind::PtlLock, F, "N10").pte(pid, f.vpn).say(say!(
                        self,
                        "Migration failed; the PTE changed meanwhile (another CPU got there first), so unlock without mapping (v5.13 still accounts the fault)"
                    ));
                    return (ev, Next::Go);
                }
                f.pc = FaultPc::OutMap;
                let ev = Ev::new(EventKind::PtlLock, F, "N10").pte(pid, f.vpn).say(say!(
                    self,
                    "Migration failed: retake the PTE lock; the PTE is unchanged, so map it in place"
                ));
                (ev, Next::Go)
            }
            FaultPc::OutMap => {
                let pte = f.orig.mk_accessible();
                self.st.mms[mm as usize].set_pte(f.vpn, pte);
                self.charge(cpu, self.cfg.costs.pte_write_ns);
                f.pc = FaultPc::OutUnlock;
                let ev = Ev::new(EventKind::PteUpdate, F, "N11").pte(pid, f.vpn).pfn(f.orig.pfn()).say(say!(
                    self,
                    "out_map: the page is not migrated, so the PTE is made present again (pfn {})",
                    f.orig.pfn()
                ));
                (ev, Next::Go)
            }
            FaultPc::OutUnlock => {
                self.ptl_unlock(cpu, mm, f.vpn);
                f.ptl = false;
                f.pc = FaultPc::Account;
                (
                    Ev::new(EventKind::PtlUnlock, F, "N12")
                        .pte(pid, f.vpn)
                        .say(say!(self, "do_numa_page drops the PTE lock")),
                    Next::Go,
                )
            }
            _ => (Ev::default(), Next::Finish),
        }
    }

    /// `numa_migrate_prep`: take a reference and count the hint fault.
    fn numa_migrate_prep(&mut self, cpu: CpuId, f: &mut FaultCtx, caller_line: &'static str) -> (Ev, Next) {
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        let page = self.st.pages[f.pfn as usize];
        f.page_nid = Some(page.nid);
        f.last_cpupid = page.last_cpupid;
        self.st.counters.inc(Counter::NumaHintFaults);
        let here = self.cpu_node(cpu);
        let local = page.nid == here;
        if local {
            self.st.counters.inc(Counter::NumaHintFaultsLocal);
        }
        self.charge(cpu, self.cfg.costs.numa_account_ns);
        f.pc = FaultPc::DnpDecide;
        let _ = caller_line;
        let ev = Ev::new(EventKind::HintFault, "numa_migrate_prep", if local { "P2" } else { "P1" })
            .pte(pid, f.vpn)
            .pfn(f.pfn)
            .say(say!(
                self,
                "numa_migrate_prep: numa_hint_faults += 1; pfn {} is on node {}, the CPU on node {here}: {}",
                f.pfn,
                page.nid,
                if local {
                    "a local fault (numa_hint_faults_local += 1)"
                } else {
                    "a remote fault"
                }
            ));
        (ev, Next::Go)
    }
}
