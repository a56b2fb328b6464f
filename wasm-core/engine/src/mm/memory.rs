//! `mm/memory.c`: page-fault handling — `handle_pte_fault`, `do_anonymous_page`,
//! `do_numa_page` (both flows of b99a342d4f11) and `numa_migrate_prep`.
//!
//! Also the copy-on-write side of fork: `copy_page_range` / `copy_pte_range` and the
//! write fault `do_wp_page` → `wp_page_reuse` or `wp_page_copy` (v5.12).
//!
//! Follows Linux v5.12 (`numa_delay_map` off) and v5.13 (on). Huge PMDs go to
//! `mm/huge_memory.rs` (`__handle_mm_fault`'s dispatch is in `handle_pte_fault` here).
//! Left out: swap-in. Kept from the v1 model (its
//! golden counters are reproduced exactly; the NUMA-fidelity work changes them):
//! `do_anonymous_page` takes the PTE lock before allocating, and after waiting for the
//! lock it goes back to `handle_pte_fault`'s classification; the kernel allocates first,
//! and after the wait finds `!pte_none`, releases and returns to user space.

use crate::core::{Flow, LockId, Ret, Until};
use crate::engine::{say, Sim};
use crate::kernel::sched::numa::{TaskNumaFault, TnfFlags};
use crate::machine::mm::fresh_page_flags;
use crate::machine::{pg, Pte};
use crate::mech::core::ev as core_ev;
use crate::mech::core::{ALLOC_PAGE_NS, CLEAR_PAGE_NS, DRAM_LOCAL_NS, PTE_COMPUTE_NS, PTE_WRITE_NS, PTL_NS};
use crate::mech::core::{ANON_FAULTS, OOM_STOPS};
use crate::mech::fork::ev as fork_ev;
use crate::mech::fork::{COW_COPIES, PGREUSE};
use crate::mech::migrate::ev as migrate_ev;
use crate::mech::migrate::COPY_PAGE_NS;
use crate::mech::numa::ev as numa_ev;
use crate::mech::numa::NUMA_DELAY_MAP;
use crate::mech::numa::{NUMA_ACCOUNT_NS, SCAN_PTE_NS};
use crate::mech::numa::{NUMA_HINT_FAULTS, NUMA_HINT_FAULTS_LOCAL};
use crate::mm::gfp::GFP_HIGHUSER_MOVABLE;
use crate::mm::mempolicy::MpolMisplaced;
use crate::mm::migrate::MigrateMisplacedPage;
use crate::mm::pgtable_generic::PtepClearFlush;
use crate::registry::{Frame, Function};
use crate::scenario::VmaKind;
use crate::topology::{CpuId, NodeId};
use crate::trace::Ev;

/// "Waits for the PTE lock" (the line retries when the lock is free).
pub(crate) fn lock_wait(sim: &Sim, cpu: CpuId, id: LockId, function: &'static str, line: &'static str) -> (Ev, Flow<Frame>) {
    let ev = Ev::new(core_ev::LOCK_WAIT, function, line).say(say!(
        sim,
        "CPU {cpu} finds the PTE lock held by CPU {} and spins until it is released",
        sim.st.locks.holder(id).map_or(-1, i32::from)
    ));
    (ev, Flow::Block(Until::Lock(id)))
}

/// `handle_pte_fault`: classify the PTE and hand the fault to its handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandleMmFault {
    vpn: u32,
    write: bool,
    called: bool,
    /// `do_huge_pmd_anonymous_page` returned `VM_FAULT_FALLBACK`: take a 4 KiB page.
    fallback: bool,
}

impl HandleMmFault {
    /// A fault on `vpn`.
    pub fn frame(vpn: u32, write: bool) -> Frame {
        Frame::from(HandleMmFault {
            vpn,
            write,
            called: false,
            fallback: false,
        })
    }
}

impl Function for HandleMmFault {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "handle_pte_fault";
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        if self.called {
            let ev = Ev::new(core_ev::RETURN, F, "H5")
                .pte(pid, self.vpn)
                .say(say!(sim, "The fault is handled: back to user space, the access is retried"));
            return (ev, Flow::Return(Ret::Unit));
        }
        // do_user_addr_fault: mmap_read_lock. Only a writer (mremap, munmap, fork) makes a
        // fault wait; the read hold is not modelled beyond that (it is released at once).
        let mmap_lock = LockId {
            class: crate::core::LockClass::MmapLock,
            a: u32::from(mm),
            b: 0,
        };
        if sim.st.locks.is_held(mmap_lock) {
            let (task, now) = (sim.st.cpus[cpu as usize].curr, sim.clock(cpu));
            if !sim.st.locks.try_read(mmap_lock, cpu, task, now) {
                let ev = Ev::new(core_ev::LOCK_WAIT, F, "H0").pte(pid, self.vpn).say(say!(
                    sim,
                    "The fault needs mm {pid}'s mmap_lock for reading, and a writer holds it: thread {} sleeps until it is released",
                    sim.task_name(cpu)
                ));
                return (ev, Flow::Block(Until::Lock(mmap_lock)));
            }
            // Readers only hold it: ours is one more, released at once (never the last).
            sim.st.locks.unlock(mmap_lock, now);
        }
        let pte = sim.st.mms[mm as usize].pte(self.vpn);
        let huge = sim.st.mms[mm as usize].pgtable.is_huge(self.vpn);
        // __handle_mm_fault: a PROT_NONE huge PMD is a hint fault on all of it; an empty
        // PMD of a VMA that takes huge pages tries one first (create_huge_pmd).
        if huge && pte.protnone() {
            let ev = Ev::new(core_ev::FAULT_ENTRY, F, "H7").pte(pid, self.vpn).say(say!(
                sim,
                "__handle_mm_fault: the huge PMD of {:#x} is PROT_NONE in an accessible VMA: a NUMA hint fault on the whole 2 MiB, do_huge_pmd_numa_page",
                self.vpn
            ));
            let pmd = sim.st.mms[mm as usize].pte(crate::mm::huge_memory::haddr(self.vpn));
            return (ev, Flow::Call(crate::mm::huge_memory::DoHugePmdNumaPage::frame(self.vpn, pmd)));
        }
        if !huge
            && !self.fallback
            && matches!(sim.st.mms[mm as usize].pgtable.pmd(self.vpn), crate::machine::pgtable::Pmd::None)
            && crate::mm::huge_memory::thp_vma_suitable(sim, mm, self.vpn)
        {
            let ev = Ev::new(core_ev::CALL, F, "H8").pte(pid, self.vpn).say(say!(
                sim,
                "__handle_mm_fault: the PMD of {:#x} is empty and the VMA takes transparent huge pages: do_huge_pmd_anonymous_page",
                self.vpn
            ));
            return (
                ev,
                Flow::Call(crate::mm::huge_memory::DoHugePmdAnonymousPage::frame(self.vpn, self.write)),
            );
        }
        if pte.is_none() {
            let ev = Ev::new(core_ev::CALL, F, "H2").pte(pid, self.vpn).say(say!(
                sim,
                "handle_pte_fault: the PTE of {:#x} is empty: do_anonymous_page",
                self.vpn
            ));
            return (
                ev,
                Flow::Call(Frame::from(DoAnonymousPage {
                    vpn: self.vpn,
                    write: self.write,
                    waited: false,
                })),
            );
        }
        if pte.is_migration() {
            let pfn = pte.pfn();
            self.called = true;
            let ev = Ev::new(migrate_ev::MIGRATION_WAIT, F, "H3").pte(pid, self.vpn).pfn(pfn).say(say!(
                sim,
                "The PTE of {:#x} is a migration entry: thread {} waits (migration_entry_wait) until pfn {pfn} is unlocked, then retries",
                self.vpn,
                sim.task_name(cpu)
            ));
            if sim.st.frames.get(pfn).has(pg::LOCKED) {
                return (ev, Flow::Block(Until::PageUnlocked(pfn)));
            }
            return (ev, Flow::Continue);
        }
        // v5.12 routes a PROT_NONE PTE in an accessible VMA to do_numa_page whether or not
        // NUMA balancing is on (vma_is_accessible + pte_protnone); only the scanner
        // depends on the sysctl.
        if pte.protnone() {
            let ev = Ev::new(core_ev::FAULT_ENTRY, F, "H4").pte(pid, self.vpn).say(say!(
                sim,
                "handle_pte_fault: the PTE is PROT_NONE in an accessible VMA, so this is a NUMA hint fault: do_numa_page"
            ));
            return (ev, Flow::Call(DoNumaPage::frame(self.vpn, pte)));
        }
        // A store to a present read-only PTE: the copy-on-write fault.
        if self.write && pte.hw_present() && !pte.write() {
            let ev = Ev::new(core_ev::FAULT_ENTRY, F, "H6").pte(pid, self.vpn).say(say!(
                sim,
                "handle_pte_fault: a write fault on a present, write-protected PTE: do_wp_page"
            ));
            return (ev, Flow::Call(DoWpPage::frame(self.vpn, pte)));
        }
        // Someone else mapped it meanwhile: just retry.
        let ev = Ev::new(core_ev::FAULT_ENTRY, F, "H1").pte(pid, self.vpn).say(say!(
            sim,
            "The PTE of {:#x} is already usable again: spurious fault, retry the access",
            self.vpn
        ));
        (ev, Flow::Return(Ret::Unit))
    }

    /// The handler returned: the fault is done, unless it asks to classify again.
    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        match r {
            Ret::Fault(crate::core::VmFault::Fallback) => {
                self.fallback = true;
                self.called = false;
            }
            Ret::Fault(crate::core::VmFault::Retry) => self.called = false,
            _ => self.called = true,
        }
    }
}

/// `do_anonymous_page`: first touch of an anonymous (or, in this model, file) page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoAnonymousPage {
    vpn: u32,
    write: bool,
    /// It waited for the PTE lock: classify the fault again.
    waited: bool,
}

impl Function for DoAnonymousPage {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "do_anonymous_page";
        let mm = sim.cpu_mm(cpu);
        let id = LockId::ptl(mm, self.vpn);
        let pid = sim.st.mms[mm as usize].pid;
        if self.waited {
            let ev = Ev::new(core_ev::RETURN, F, "A3").pte(pid, self.vpn).say(say!(
                sim,
                "The PTE lock is free again: handle_pte_fault looks at the PTE of {:#x} once more",
                self.vpn
            ));
            return (ev, Flow::Return(Ret::Fault(crate::core::VmFault::Retry)));
        }
        if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
            self.waited = true;
            return lock_wait(sim, cpu, id, F, "A2");
        }
        if !sim.st.mms[mm as usize].pte(self.vpn).is_none() {
            sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
            let ev = Ev::new(core_ev::PTL_UNLOCK, F, "A3").pte(pid, self.vpn).say(say!(
                sim,
                "Another thread mapped {:#x} meanwhile: nothing to do",
                self.vpn
            ));
            return (ev, Flow::Return(Ret::Unit));
        }
        let Some(vi) = sim.st.mms[mm as usize].find_vma(self.vpn) else {
            // Outside every VMA: the kernel's answer is SIGSEGV (operations are validated
            // against the VMAs, so no scenario gets here).
            sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
            // The last thread's death tears the mm down (`exit_mmap`), which waits for a PTE
            // lock of the mm held elsewhere (`exit_mmap_blocked`); the fault is retried after.
            if let Some(wait) = crate::mm::mmap::exit_mmap_wait(sim, cpu, F, "A5") {
                self.waited = true;
                return wait;
            }
            let ev = Ev::new(core_ev::EXIT, F, "A5").pte(pid, self.vpn).say(say!(
                sim,
                "{:#x} is in no VMA: SIGSEGV, thread {} is killed",
                self.vpn,
                sim.task_name(cpu)
            ));
            return (ev, Flow::Block(Until::Exit));
        };
        let v = sim.st.mms[mm as usize].vmas[vi].clone();
        let index = v.pgoff + (self.vpn - v.start);
        // A file page another mapping already brought in is mapped, not allocated again.
        let cached = sim.st.page_cache[v.rmap_root as usize]
            .get(index as usize)
            .copied()
            .filter(|&p| p != crate::engine::NO_PAGE);
        if let Some(pfn) = cached {
            sim.st.frames.get_mut(pfn).mapcount += 1;
            if self.write {
                crate::mm::page_writeback::set_page_dirty(sim, pfn);
            }
            sim.st.mms[mm as usize].set_pte(self.vpn, Pte::present(pfn, true, self.write, true));
            sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
            sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
            let ev = Ev::new(core_ev::FILE_FAULT, F, "A4").pte(pid, self.vpn).pfn(pfn).say(say!(
                sim,
                "The file page at {:#x} is already in the page cache (pfn {pfn}): it is mapped, mapcount {}",
                self.vpn,
                sim.st.frames.get(pfn).mapcount
            ));
            return (ev, Flow::Return(Ret::Unit));
        }
        let node = sim.cpu_node(cpu);
        let Some(pfn) = crate::mm::page_alloc::alloc_pages_now(sim, GFP_HIGHUSER_MOVABLE, 0, node) else {
            sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
            // Out of memory: the model stops this thread rather than invent reclaim. As the
            // mm's last user its exit waits first for a PTE lock held elsewhere; the fault is
            // retried after.
            if let Some(wait) = crate::mm::mmap::exit_mmap_wait(sim, cpu, F, "A1") {
                self.waited = true;
                return wait;
            }
            sim.st.counters.inc(OOM_STOPS);
            let ev = Ev::new(core_ev::EXIT, F, "A1").say(say!(
                sim,
                "No free page on any node: thread {} stops (the model has no reclaim yet)",
                sim.task_name(cpu)
            ));
            return (ev, Flow::Block(Until::Exit));
        };
        let file = v.kind == VmaKind::File;
        let page = sim.st.frames.get_mut(pfn);
        page.flags = fresh_page_flags(v.kind, file && self.write);
        page.mapcount = 1;
        page.mapping = v.rmap_root;
        page.index = index;
        if let Some(slot) = sim.st.page_cache[v.rmap_root as usize].get_mut(index as usize) {
            *slot = pfn;
        }
        let nid = sim.page_nid(pfn);
        sim.st.mms[mm as usize].set_pte(self.vpn, Pte::present(pfn, true, self.write, true));
        sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
        sim.st.counters.inc(ANON_FAULTS);
        // A zeroed page (alloc_zeroed_user_highpage_movable); with numa_mem_scale N the
        // modelled page stands for N real ones, each faulted in and zeroed.
        let ns = sim.cfg.costs[ALLOC_PAGE_NS] + sim.cfg.costs[CLEAR_PAGE_NS] + sim.cfg.costs[PTE_WRITE_NS];
        sim.charge_weighted(cpu, ns, sim.cfg.mem_scale);
        let ev = Ev::new(core_ev::ANON_FAULT, F, "A2").pte(pid, self.vpn).pfn(pfn).say(say!(
            sim,
            "First touch of {:#x}: a zeroed page is allocated on node {nid}{} (pfn {pfn}) and mapped",
            self.vpn,
            if nid == node { " (local)" } else { " (the local node is full)" }
        ));
        (ev, Flow::Return(Ret::Unit))
    }
}

/// Where `do_numa_page` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dnp {
    /// O1/N1: lock, `pte_same`.
    Lock,
    /// O2-O3 (make present) or N2 (compute only), then `numa_migrate_prep`.
    Map,
    /// Waiting for `numa_migrate_prep`.
    Prep,
    /// O8/N8: unlock before migrating (or, old flow, before returning).
    Unlock,
    /// Waiting for `migrate_misplaced_page`.
    Migrating,
    /// N10: retake the lock after a failed migration.
    Relock,
    /// N11: map the PTE in place.
    OutMap,
    /// N12: unlock.
    OutUnlock,
    /// O12/N9/N13: `task_numa_fault`.
    Account,
    /// Return to `handle_pte_fault`.
    Done,
}

/// `do_numa_page`, old (v5.12) or new (v5.13, b99a342d4f11) flow per `numa_delay_map`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoNumaPage {
    vpn: u32,
    orig: Pte,
    pc: Dnp,
    pfn: u32,
    page_nid: NodeId,
    target: Option<NodeId>,
    migrated: Option<bool>,
    /// `page_cpupid_last(page)` before `numa_migrate_prep` exchanges it.
    last_cpupid: u32,
    /// `TNF_FAULT_LOCAL`: the page was on this CPU's node.
    local: bool,
    /// `TNF_SHARED` and `TNF_NO_GROUP`.
    flags: TnfFlags,
}

impl DoNumaPage {
    /// A hint fault on `vpn`, whose PTE was `orig` at fault time.
    pub fn frame(vpn: u32, orig: Pte) -> Frame {
        Frame::from(DoNumaPage {
            vpn,
            orig,
            pc: Dnp::Lock,
            pfn: orig.pfn(),
            page_nid: 0,
            target: None,
            migrated: None,
            last_cpupid: crate::machine::CPUPID_UNSET,
            local: false,
            flags: TnfFlags::default(),
        })
    }

    /// The faulting virtual page (the lab's NUMA panel matches it with the task's record).
    pub(crate) fn vpn(&self) -> u32 {
        self.vpn
    }
}

impl Function for DoNumaPage {
    /// One line. A hint fault is weighted work: with `numa_mem_scale` N, the modelled
    /// page stands for N real ones, each of which would take its own hint fault, so its
    /// CPU time counts N times (`Sim::charge`).
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let t = sim.st.cpus[cpu as usize].curr as usize;
        sim.st.tasks[t].numa.weight = sim.cfg.mem_scale as u32;
        let out = self.line(sim, cpu);
        if matches!(out.1, Flow::Return(_)) {
            sim.st.tasks[t].numa.weight = 0;
        }
        out
    }

    /// A callee returned.
    fn resume(&mut self, sim: &mut Sim, _task: u16, r: Ret) {
        let new = sim.cfg.toggles.on(NUMA_DELAY_MAP);
        match self.pc {
            Dnp::Prep => {
                self.target = r.as_node();
                self.pc = match (self.target, new) {
                    (None, true) => Dnp::OutMap,
                    _ => Dnp::Unlock,
                };
            }
            Dnp::Migrating => {
                let ok = r.as_bool();
                self.migrated = Some(ok);
                self.pc = if !ok && new { Dnp::Relock } else { Dnp::Account };
            }
            Dnp::Account => self.pc = Dnp::Done,
            _ => {}
        }
    }
}

impl DoNumaPage {
    fn line(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "do_numa_page";
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let new = sim.cfg.toggles.on(NUMA_DELAY_MAP);
        let l = |old: &'static str, n: &'static str| if new { n } else { old };
        let id = LockId::ptl(mm, self.vpn);
        match self.pc {
            Dnp::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, l("O1", "N1"));
                }
                if sim.st.mms[mm as usize].pte(self.vpn) != self.orig {
                    sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                    let ev = Ev::new(core_ev::PTL_LOCK, F, l("O1", "N1")).pte(pid, self.vpn).say(say!(
                        sim,
                        "do_numa_page takes the PTE lock: the PTE changed since the fault (another CPU handled it), so return and retry"
                    ));
                    return (ev, Flow::Return(Ret::Unit));
                }
                self.pc = Dnp::Map;
                let ev = Ev::new(core_ev::PTL_LOCK, F, l("O1", "N1")).pte(pid, self.vpn).say(say!(
                    sim,
                    "do_numa_page takes the PTE lock; the PTE is still the PROT_NONE value seen at fault time"
                ));
                (ev, Flow::Continue)
            }
            Dnp::Map => {
                self.page_nid = sim.page_nid(self.pfn);
                self.last_cpupid = sim.st.frames.get(self.pfn).last_cpupid;
                self.local = self.page_nid == sim.cpu_node(cpu);
                // v5.12: a read-only PTE does not group tasks (TNF_NO_GROUP); a page mapped
                // more than once in a VM_SHARED mapping is TNF_SHARED.
                let m = &sim.st.mms[mm as usize];
                let vm_shared = m.find_vma(self.vpn).is_some_and(|i| m.vmas[i].kind == VmaKind::File);
                self.flags = TnfFlags {
                    shared: vm_shared && sim.st.frames.get(self.pfn).mapcount > 1,
                    no_group: !self.orig.write(),
                };
                self.pc = Dnp::Prep;
                let prep = Frame::from(NumaMigratePrep {
                    pfn: self.pfn,
                    vpn: self.vpn,
                    called: false,
                    target: None,
                });
                if new {
                    sim.charge(cpu, sim.cfg.costs[PTE_COMPUTE_NS]);
                    let ev = Ev::new(core_ev::PTE_UPDATE, F, "N2").pte(pid, self.vpn).pfn(self.pfn).say(say!(
                        sim,
                        "New flow: the accessible PTE is only computed; the page table keeps PROT_NONE, so no CPU can cache this translation yet"
                    ));
                    return (ev, Flow::Call(prep));
                }
                let pte = self.orig.mk_accessible();
                sim.st.mms[mm as usize].set_pte(self.vpn, pte);
                sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
                let ev = Ev::new(core_ev::PTE_UPDATE, F, "O3").pte(pid, self.vpn).pfn(self.pfn).say(say!(
                    sim,
                    "Old flow: the PTE is made present again (pfn {}, {}) before deciding anything; from now on every CPU running mm {pid} can cache it",
                    self.pfn,
                    if pte.write() { "writable" } else { "read-only" }
                ));
                (ev, Flow::Call(prep))
            }
            Dnp::Unlock => {
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                let ev = Ev::new(core_ev::PTL_UNLOCK, F, l("O8", "N8")).pte(pid, self.vpn);
                match self.target {
                    Some(t) => {
                        self.pc = Dnp::Migrating;
                        let ev = ev.say(say!(
                            sim,
                            "do_numa_page drops the PTE lock and calls migrate_misplaced_page(page, node {t})"
                        ));
                        (ev, Flow::Call(MigrateMisplacedPage::frame(self.pfn, t, self.vpn)))
                    }
                    None => {
                        self.pc = Dnp::Account;
                        let ev = ev.say(say!(sim, "do_numa_page drops the PTE lock; the page stays where it is (put_page)"));
                        (ev, Flow::Continue)
                    }
                }
            }
            Dnp::Relock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "N10");
                }
                if sim.st.mms[mm as usize].pte(self.vpn) != self.orig {
                    sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                    self.pc = Dnp::Account;
                    let ev = Ev::new(core_ev::PTL_LOCK, F, "N10").pte(pid, self.vpn).say(say!(
                        sim,
                        "Migration failed; the PTE changed meanwhile (another CPU got there first), so unlock without mapping (v5.13 still accounts the fault)"
                    ));
                    return (ev, Flow::Continue);
                }
                self.pc = Dnp::OutMap;
                let ev = Ev::new(core_ev::PTL_LOCK, F, "N10").pte(pid, self.vpn).say(say!(
                    sim,
                    "Migration failed: retake the PTE lock; the PTE is unchanged, so map it in place"
                ));
                (ev, Flow::Continue)
            }
            Dnp::OutMap => {
                let pte = self.orig.mk_accessible();
                sim.st.mms[mm as usize].set_pte(self.vpn, pte);
                sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
                self.pc = Dnp::OutUnlock;
                let ev = Ev::new(core_ev::PTE_UPDATE, F, "N11").pte(pid, self.vpn).pfn(self.pfn).say(say!(
                    sim,
                    "out_map: the page is not migrated, so the PTE is made present again (pfn {})",
                    self.pfn
                ));
                (ev, Flow::Continue)
            }
            Dnp::OutUnlock => {
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                self.pc = Dnp::Account;
                let ev = Ev::new(core_ev::PTL_UNLOCK, F, "N12")
                    .pte(pid, self.vpn)
                    .say(say!(sim, "do_numa_page drops the PTE lock"));
                (ev, Flow::Continue)
            }
            Dnp::Account => {
                let migrated = self.migrated == Some(true);
                let nid = if migrated {
                    self.target.unwrap_or(self.page_nid)
                } else {
                    self.page_nid
                };
                let line = match (new, migrated) {
                    (false, _) => "O12",
                    (true, true) => "N9",
                    (true, false) => "N13",
                };
                let ev = Ev::new(core_ev::CALL, F, line)
                    .pte(pid, self.vpn)
                    .say(say!(sim, "do_numa_page records the fault: task_numa_fault(node {nid})"));
                (
                    ev,
                    Flow::Call(TaskNumaFault::frame(
                        self.last_cpupid,
                        nid,
                        self.local,
                        self.migrated,
                        self.vpn,
                        self.flags,
                    )),
                )
            }
            Dnp::Prep | Dnp::Migrating | Dnp::Done => {
                let ev = Ev::new(core_ev::RETURN, F, l("O13", "N14"))
                    .pte(pid, self.vpn)
                    .say(say!(sim, "do_numa_page returns"));
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }
}

/// `numa_migrate_prep`: take a reference, count the hint fault, ask the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumaMigratePrep {
    pfn: u32,
    vpn: u32,
    called: bool,
    target: Option<NodeId>,
}

impl Function for NumaMigratePrep {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        if self.called {
            let ev = Ev::new(core_ev::RETURN, "numa_migrate_prep", "P3").pte(pid, self.vpn).say(say!(
                sim,
                "numa_migrate_prep returns {}",
                self.target.map_or("NUMA_NO_NODE".to_string(), |n| format!("node {n}"))
            ));
            return (ev, Flow::Return(Ret::Node(self.target)));
        }
        self.called = true;
        let nid = sim.page_nid(self.pfn);
        sim.st.counters.inc(NUMA_HINT_FAULTS);
        let here = sim.cpu_node(cpu);
        let local = nid == here;
        if local {
            sim.st.counters.inc(NUMA_HINT_FAULTS_LOCAL);
        }
        sim.charge(cpu, sim.cfg.costs[NUMA_ACCOUNT_NS]);
        let ev = Ev::new(numa_ev::HINT_FAULT, "numa_migrate_prep", if local { "P2" } else { "P1" })
            .pte(pid, self.vpn)
            .pfn(self.pfn)
            .say(say!(
                sim,
                "numa_migrate_prep: numa_hint_faults += 1; pfn {} is on node {nid}, the CPU on node {here}: {}",
                self.pfn,
                if local {
                    "a local fault (numa_hint_faults_local += 1)"
                } else {
                    "a remote fault"
                }
            ));
        (ev, Flow::Call(MpolMisplaced::frame(self.pfn, self.vpn)))
    }

    /// `mpol_misplaced` returned.
    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        self.target = r.as_node();
    }
}

/// `copy_page_range(dst_vma, src_vma)` for one VMA of a fork.
///
/// v5.12: a VMA without an anon_vma (here: every file VMA, all shared mappings) is not
/// copied at all ("don't copy ptes where a page fault will fill them correctly"); the
/// child faults its pages in from the page cache. Otherwise one `copy_pte_range` per PTE
/// table (`copy_pud_range` / `copy_pmd_range` skip empty PMDs; a huge PMD is split first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyPageRange {
    old: u16,
    new: u16,
    vma: u16,
    /// Next vpn to copy from; 0 before the first line.
    next: u32,
}

impl CopyPageRange {
    /// Copy VMA `vma` of `old` into the same VMA of `new`.
    pub fn frame(old: u16, new: u16, vma: u16) -> Frame {
        Frame::from(CopyPageRange { old, new, vma, next: 0 })
    }
}

impl Function for CopyPageRange {
    /// One line: the next PTE table, or return.
    fn step(&mut self, sim: &mut Sim, _cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "copy_page_range";
        let v = &sim.st.mms[self.old as usize].vmas[self.vma as usize];
        let (start, end, file) = (v.start, v.end(), v.kind == VmaKind::File);
        if file {
            let ev = Ev::new(core_ev::RETURN, F, "CR1").say(say!(
                sim,
                "copy_page_range: a shared file mapping has no anon_vma: no PTE is copied, the child's accesses fault the pages in from the page cache"
            ));
            return (ev, Flow::Return(Ret::Unit));
        }
        let from = self.next.max(start);
        let ptrs = crate::machine::pgtable::PTRS_PER_PTE;
        let table = sim.st.mms[self.old as usize]
            .pgtable
            .pmds()
            .find(|(i, p)| from < end && (i + 1) * ptrs > from && i * ptrs < end && !matches!(p, crate::machine::pgtable::Pmd::None))
            .map(|(i, _)| i);
        let Some(pmd) = table else {
            let ev = Ev::new(core_ev::RETURN, F, "CR4").say(say!(sim, "copy_page_range: every PTE table of the VMA is copied"));
            return (ev, Flow::Return(Ret::Unit));
        };
        let lo = from.max(pmd * ptrs);
        let hi = end.min((pmd + 1) * ptrs);
        self.next = hi;
        // The kernel's copy_huge_pmd shares a huge page between parent and child; the
        // model splits it and copies its 512 PTEs (mm/huge_memory.rs).
        crate::mm::huge_memory::split_huge_pmd(sim, self.old, lo);
        let ev = Ev::new(core_ev::CALL, F, "CR3").say(say!(
            sim,
            "copy_page_range: a private anonymous VMA (a COW mapping): copy_pte_range over {lo:#x}..{hi:#x}"
        ));
        (ev, Flow::Call(Frame::from(CopyPteRange::new(self.old, self.new, lo, hi))))
    }
}

/// `copy_pte_range` with `copy_present_pte` / `copy_nonpresent_pte`: under both PTE
/// locks, each used PTE of the parent is copied into the child. For a private writable
/// page both PTEs become read-only (`ptep_set_wrprotect` in the parent,
/// `pte_wrprotect` for the child), the page gains a mapping (`page_dup_rmap`) and a
/// reference (`get_page`); the child's PTE is old. A write migration entry becomes a read
/// one in both. v5.12's early copy of pages pinned for DMA (`page_needs_cow_for_dma`) is
/// left out: nothing pins pages in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyPteRange {
    old: u16,
    new: u16,
    vpn: u32,
    end: u32,
    locked: bool,
}

impl CopyPteRange {
    fn new(old: u16, new: u16, vpn: u32, end: u32) -> Self {
        CopyPteRange {
            old,
            new,
            vpn,
            end,
            locked: false,
        }
    }
}

impl Function for CopyPteRange {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "copy_pte_range";
        let (old, new) = (self.old, self.new);
        let src = LockId::ptl(old, self.vpn);
        let dst = LockId::ptl(new, self.vpn);
        let ppid = sim.st.mms[old as usize].pid;
        let pid = sim.st.mms[new as usize].pid;
        if !self.locked {
            if !sim.lock(cpu, src, sim.cfg.costs[PTL_NS]) {
                return lock_wait(sim, cpu, src, F, "CT1");
            }
            if !sim.lock(cpu, dst, sim.cfg.costs[PTL_NS]) {
                sim.unlock(cpu, src, sim.cfg.costs[PTL_NS]);
                return lock_wait(sim, cpu, dst, F, "CT1");
            }
            self.locked = true;
            let ev = Ev::new(core_ev::PTL_LOCK, F, "CT1").pte(ppid, self.vpn).say(say!(
                sim,
                "copy_pte_range: the child's PTE table is allocated and locked, then the parent's PTE lock"
            ));
            return (ev, Flow::Continue);
        }
        // The next used PTE; empty ones cost a look each.
        while self.vpn < self.end && sim.st.mms[old as usize].pte(self.vpn).is_none() {
            self.vpn += 1;
            sim.charge(cpu, sim.cfg.costs[SCAN_PTE_NS]);
        }
        if self.vpn >= self.end {
            sim.unlock(cpu, dst, sim.cfg.costs[PTL_NS]);
            sim.unlock(cpu, src, sim.cfg.costs[PTL_NS]);
            let ev = Ev::new(core_ev::PTL_UNLOCK, F, "CT5").say(say!(sim, "copy_pte_range: both PTE locks are released"));
            return (ev, Flow::Return(Ret::Unit));
        }
        let vpn = self.vpn;
        self.vpn += 1;
        sim.charge(cpu, sim.cfg.costs[SCAN_PTE_NS] + 2 * sim.cfg.costs[PTE_WRITE_NS]);
        let pte = sim.st.mms[old as usize].pte(vpn);
        let pfn = pte.pfn();
        if pte.is_migration() {
            // copy_nonpresent_pte: no rmap for an entry; remove_migration_ptes adds it.
            if pte.write() {
                sim.st.mms[old as usize].set_pte(vpn, pte.wrprotect());
            }
            sim.st.mms[new as usize].set_pte(vpn, pte.wrprotect());
            let ev = Ev::new(fork_ev::PTE_COPY, F, "CT3").pte(ppid, vpn).pfn(pfn).say(say!(
                sim,
                "copy_nonpresent_pte: {vpn:#x} is a migration entry; it is copied{} into mm {pid}",
                if pte.write() {
                    " as a read entry, and made one in the parent too,"
                } else {
                    ""
                }
            ));
            return (ev, Flow::Continue);
        }
        // copy_present_pte (a PROT_NONE hint PTE is present to the kernel).
        let was_write = pte.write();
        if was_write {
            sim.st.mms[old as usize].set_pte(vpn, pte.wrprotect());
        }
        sim.st.mms[new as usize].set_pte(vpn, pte.wrprotect().mk_old());
        let page = sim.st.frames.get_mut(pfn);
        page.mapcount += 1;
        page.refcount += 1;
        let mapcount = page.mapcount;
        let ev = Ev::new(fork_ev::PTE_COPY, F, "CT2").pte(ppid, vpn).pfn(pfn).say(say!(
            sim,
            "copy_present_pte: {vpn:#x} -> pfn {pfn} is now mapped by mm {ppid} and mm {pid}, both read-only{} (page_dup_rmap: mapcount {mapcount}; get_page)",
            if was_write { " (ptep_set_wrprotect in the parent: a copy-on-write page)" } else { "" }
        ));
        (ev, Flow::Continue)
    }
}

/// Where `do_wp_page` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wp {
    /// WP1: lock, `pte_same`.
    Lock,
    /// WP2-WP5: reuse or copy.
    Decide,
    /// WP6: the handler returned.
    Done,
}

/// `do_wp_page`: a store to a present, write-protected PTE (the copy-on-write fault).
///
/// v5.12 (after 09854ba94c6a): an anonymous page is reused in place only when nothing
/// else holds it (`page_count == 1`, and `page_mapcount == 1` under the page lock);
/// otherwise `wp_page_copy` gives this mm its own copy. Left out: KSM, the zero page,
/// userfaultfd write-protect, and shared writable mappings (`wp_page_shared`: file PTEs
/// are always mapped writable in the model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoWpPage {
    vpn: u32,
    orig: Pte,
    pc: Wp,
}

impl DoWpPage {
    /// A write fault on `vpn`, whose PTE was `orig`.
    pub fn frame(vpn: u32, orig: Pte) -> Frame {
        Frame::from(DoWpPage { vpn, orig, pc: Wp::Lock })
    }
}

impl Function for DoWpPage {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "do_wp_page";
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let id = LockId::ptl(mm, self.vpn);
        let pfn = self.orig.pfn();
        match self.pc {
            Wp::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "WP1");
                }
                if sim.st.mms[mm as usize].pte(self.vpn) != self.orig {
                    sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                    let ev = Ev::new(core_ev::PTL_LOCK, F, "WP1").pte(pid, self.vpn).say(say!(
                        sim,
                        "handle_pte_fault takes the PTE lock: the PTE changed since the fault, so return and retry"
                    ));
                    return (ev, Flow::Return(Ret::Unit));
                }
                self.pc = Wp::Decide;
                let ev = Ev::new(core_ev::PTL_LOCK, F, "WP1").pte(pid, self.vpn).pfn(pfn).say(say!(
                    sim,
                    "A store to {:#x}, whose PTE is present but read-only: do_wp_page under the PTE lock",
                    self.vpn
                ));
                (ev, Flow::Continue)
            }
            Wp::Decide => {
                self.pc = Wp::Done;
                let page = *sim.st.frames.get(pfn);
                let anon = page.has(pg::ANON);
                if !anon || (page.refcount == 1 && page.mapcount == 1) {
                    let ev = Ev::new(core_ev::CALL, F, "WP3").pte(pid, self.vpn).pfn(pfn).say(say!(
                        sim,
                        "pfn {pfn} is mapped once (mapcount 1) and nobody else holds it (page_count 1): wp_page_reuse, no copy"
                    ));
                    return (ev, Flow::Call(Frame::from(WpPageReuse { vpn: self.vpn })));
                }
                // copy: get_page(old), then wp_page_copy runs without the PTE lock.
                sim.st.frames.get_mut(pfn).refcount += 1;
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                let ev = Ev::new(core_ev::CALL, F, "WP4").pte(pid, self.vpn).pfn(pfn).say(say!(
                    sim,
                    "pfn {pfn} is shared (mapcount {}, page_count {}): get_page, drop the PTE lock, wp_page_copy",
                    page.mapcount,
                    page.refcount
                ));
                (ev, Flow::Call(WpPageCopy::frame(self.vpn, self.orig)))
            }
            Wp::Done => {
                let ev = Ev::new(core_ev::RETURN, F, "WP5")
                    .pte(pid, self.vpn)
                    .say(say!(sim, "do_wp_page returns"));
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }
}

/// `wp_page_reuse`: the faulting mm owns the page alone: make the PTE writable (and
/// dirty, young) in place and release the PTE lock; `pgreuse` counts it (v5.10+).
/// No flush: the PTE only gains permissions, and a stale read-only TLB entry just
/// faults again spuriously.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WpPageReuse {
    vpn: u32,
}

impl Function for WpPageReuse {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let pte = sim.st.mms[mm as usize].pte(self.vpn);
        let pfn = pte.pfn();
        // page_move_anon_rmap: the page, now this VMA's alone, moves to its anon_vma (a
        // child's page from before the fork stops being found through the parent's).
        if let Some(vi) = sim.st.mms[mm as usize].find_vma(self.vpn) {
            let root = sim.st.mms[mm as usize].vmas[vi].rmap_root;
            let page = sim.st.frames.get_mut(pfn);
            if page.has(crate::machine::pg::ANON) {
                page.mapping = root;
            }
        }
        sim.st.mms[mm as usize].set_pte(self.vpn, Pte::present(pfn, true, true, true));
        sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
        sim.unlock(cpu, LockId::ptl(mm, self.vpn), sim.cfg.costs[PTL_NS]);
        sim.st.counters.inc(PGREUSE);
        let ev = Ev::new(fork_ev::COW_REUSE, "wp_page_reuse", "WR1")
            .pte(pid, self.vpn)
            .pfn(pfn)
            .say(say!(
                sim,
                "wp_page_reuse: the PTE of {:#x} becomes writable and dirty on the same pfn {pfn}; the PTE lock is released (pgreuse += 1)",
                self.vpn
            ));
        (ev, Flow::Return(Ret::Unit))
    }
}

/// Where `wp_page_copy` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wc {
    /// WC1: allocate and copy.
    Alloc,
    /// WC2: retake the lock, `pte_same`, `ptep_clear_flush`.
    Lock,
    /// WC4: the PTE is cleared and flushed: map the copy.
    Map,
}

/// `wp_page_copy`: give the faulting mm its own copy of a shared anonymous page.
///
/// v5.12: allocate (`alloc_page_vma`, the task's policy: here the local node with
/// fallback) and copy (`cow_user_page`) without the PTE lock; retake it, and if the PTE
/// is unchanged clear it with `ptep_clear_flush` (every CPU of this mm may cache the old
/// translation), `page_add_new_anon_rmap` the copy, set the new PTE writable and dirty,
/// `page_remove_rmap` the old page; then drop both references to the old page (the
/// mapping's and `do_wp_page`'s), freeing it if they were the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WpPageCopy {
    vpn: u32,
    orig: Pte,
    new: u32,
    pc: Wc,
}

impl WpPageCopy {
    fn frame(vpn: u32, orig: Pte) -> Frame {
        Frame::from(WpPageCopy {
            vpn,
            orig,
            new: crate::engine::NO_PAGE,
            pc: Wc::Alloc,
        })
    }

    /// The old page, while its PTE is cleared but its mapping not yet dropped.
    pub fn clearing(&self) -> Option<u32> {
        (self.pc == Wc::Map).then_some(self.orig.pfn())
    }

    /// Drops one reference to `pfn` (`put_page`), freeing the page on the last.
    fn put_page(sim: &mut Sim, pfn: u32) {
        let p = sim.st.frames.get_mut(pfn);
        p.refcount = p.refcount.saturating_sub(1);
        if p.refcount == 0 {
            if let Some(slot) = sim
                .st
                .page_cache
                .get_mut(p.mapping as usize)
                .and_then(|c| c.get_mut(p.index as usize))
            {
                if *slot == pfn {
                    *slot = crate::engine::NO_PAGE;
                }
            }
            crate::mm::page_alloc::free_page_now(sim, pfn);
        }
    }
}

impl Function for WpPageCopy {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "wp_page_copy";
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let id = LockId::ptl(mm, self.vpn);
        let old = self.orig.pfn();
        match self.pc {
            Wc::Alloc => {
                let node = sim.cpu_node(cpu);
                let Some(n) = crate::mm::page_alloc::alloc_pages_now(sim, GFP_HIGHUSER_MOVABLE, 0, node) else {
                    // The mm's last user waits for a PTE lock held elsewhere before its exit
                    // (nothing done yet: the allocation is tried again after).
                    if let Some(wait) = crate::mm::mmap::exit_mmap_wait(sim, cpu, F, "WC1") {
                        return wait;
                    }
                    Self::put_page(sim, old);
                    sim.st.counters.inc(OOM_STOPS);
                    let ev = Ev::new(core_ev::EXIT, F, "WC1").say(say!(
                        sim,
                        "No free page on any node: thread {} stops (the model has no reclaim yet)",
                        sim.task_name(cpu)
                    ));
                    return (ev, Flow::Block(Until::Exit));
                };
                self.new = n;
                let nid = sim.page_nid(old);
                let ns = sim.cfg.costs[ALLOC_PAGE_NS]
                    + sim.cfg.costs[COPY_PAGE_NS] * sim.dram_ns(cpu, nid) / sim.cfg.costs[DRAM_LOCAL_NS].max(1);
                sim.charge(cpu, ns);
                self.pc = Wc::Lock;
                let ev = Ev::new(fork_ev::COW_COPY, F, "WC1").pte(pid, self.vpn).pfn(old).pfn(n).say(say!(
                    sim,
                    "wp_page_copy: a new page on node {} (pfn {n}) receives a copy of pfn {old} (cow_user_page), without the PTE lock",
                    sim.page_nid(n)
                ));
                (ev, Flow::Continue)
            }
            Wc::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "WC2");
                }
                if sim.st.mms[mm as usize].pte(self.vpn) != self.orig {
                    sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                    crate::mm::page_alloc::free_page_now(sim, self.new);
                    Self::put_page(sim, old);
                    let ev = Ev::new(core_ev::PTL_LOCK, F, "WC2").pte(pid, self.vpn).say(say!(
                        sim,
                        "wp_page_copy retakes the PTE lock: the PTE changed meanwhile, so the copy is freed and the access retried"
                    ));
                    return (ev, Flow::Return(Ret::Unit));
                }
                self.pc = Wc::Map;
                let ev = Ev::new(core_ev::CALL, F, "WC3").pte(pid, self.vpn).pfn(old).say(say!(
                    sim,
                    "The PTE is unchanged: ptep_clear_flush, so that no CPU keeps using the old page for this address"
                ));
                (ev, Flow::Call(PtepClearFlush::frame(mm, self.vpn, old)))
            }
            Wc::Map => {
                let vi = sim.st.mms[mm as usize].find_vma(self.vpn).unwrap_or(0);
                let root = sim.st.mms[mm as usize].vmas[vi].rmap_root;
                let n = self.new;
                let page = sim.st.frames.get_mut(n);
                page.flags = fresh_page_flags(VmaKind::Anon, false);
                page.mapcount = 1;
                page.mapping = root;
                page.index = self.vpn;
                sim.st.mms[mm as usize].set_pte(self.vpn, Pte::present(n, true, true, true));
                let p = sim.st.frames.get_mut(old);
                p.mapcount = p.mapcount.saturating_sub(1);
                let left = p.mapcount;
                sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                // The old mapping's reference and do_wp_page's.
                Self::put_page(sim, old);
                Self::put_page(sim, old);
                let freed = sim.st.frames.get(old).has(pg::FREE);
                sim.st.counters.inc(COW_COPIES);
                let ev = Ev::new(fork_ev::COW_COPY, F, "WC4").pte(pid, self.vpn).pfn(old).pfn(n).say(say!(
                    sim,
                    "The PTE of {:#x} now maps the copy (pfn {n}) writable; page_remove_rmap(pfn {old}): mapcount {left}{}",
                    self.vpn,
                    if freed {
                        ", and it was the last reference: pfn freed"
                    } else {
                        ", the other mapping keeps it"
                    }
                ));
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }

    fn unmapping(&self) -> Option<u32> {
        self.clearing()
    }
}
