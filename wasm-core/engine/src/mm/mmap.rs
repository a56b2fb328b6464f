//! `mm/mmap.c`: `do_munmap` (`munmap(2)`) and a re-`mmap` of a VMA that was unmapped,
//! the two system calls around mremap in a benchmark's loop; and `exit_mmap`, the last
//! user's teardown of the address space ([`exit_mmap`], with the PTE-lock wait every exit
//! path makes first, [`exit_mmap_wait`]).
//!
//! Follows Linux v4.9 `do_munmap` → `unmap_region`: `tlb_gather_mmu`, `unmap_vmas` →
//! `zap_pte_range` per PTE table under its PTL (a dirty PTE of a file page makes the
//! page dirty, `page_remove_rmap` drops the mapping), then `tlb_finish_mmu`: one
//! `flush_tlb_mm_range` of the unmapped range if anything was unmapped, and only then are
//! the pages freed. Between the two, `free_pgtables` frees each PTE table of the range
//! that no other VMA shares ([`free_pgtables`]), which widens the flush to its first page
//! and marks it `freed_tables`; `move_vma`'s `do_munmap` of the old range calls it too,
//! where it is the only thing to flush. Left out: VMA splitting (a call unmaps a whole
//! VMA), `MAP_FIXED`, freeing the PMD and upper tables (they are freed only when a whole
//! PUD's span is free of VMAs, which no scenario's layout reaches). The VMA stays in the
//! list with no pages, so that operations keep naming it; `mmap` maps it again, empty,
//! at a free range (`get_unmapped_area`).

use crate::arch::x86::mm::tlb::FlushTlbMmRange;
use crate::core::{Flow, Ret, Until};
use crate::engine::{say, Sim};
use crate::machine::pgtable::PTRS_PER_PTE;
use crate::machine::{pg, Pte};
use crate::mech::core::ev as core_ev;
use crate::mech::core::{PTE_WRITE_NS, PTL_NS};
use crate::mech::mremap::ev as mr_ev;
use crate::mech::mremap::{MREMAP_VMA_NS, MUNMAP_FLUSH_OPS};
use crate::mm::memory::lock_wait;
use crate::mm::mremap::{get_unmapped_area, mmap_lock, mmap_lock_wait};
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// `free_pgtables` → `free_pgd_range` → `free_pte_range` (v4.9 `mm/memory.c`) for the
/// range `[start, start + pages)` of mm `mm` once its VMA is gone: each PTE table under
/// it that no other mapped VMA of the mm reaches into (the kernel's `floor`/`ceiling`,
/// the neighbours' ends rounded to PMDs) is freed (`pmd_clear`, `pte_free_tlb`); VMAs in
/// `gone` are not counted as neighbours. A table still holding a PTE is kept (none
/// does: the range was zapped or moved first). Returns the pages `tlb_finish_mmu` must
/// flush for the tables, from the first freed table's address to the last one's plus a
/// page (`pte_free_tlb`'s `__tlb_adjust_range(tlb, address, PAGE_SIZE)`), or `None`.
pub(crate) fn free_pgtables(sim: &mut Sim, mm: u16, start: u32, pages: u32, gone: &[usize]) -> Option<(u32, u32)> {
    if pages == 0 {
        return None;
    }
    let (first, last) = (start / PTRS_PER_PTE, (start + pages - 1) / PTRS_PER_PTE);
    let mut freed: Option<(u32, u32)> = None;
    for p in first..=last {
        let (lo, hi) = (p * PTRS_PER_PTE, (p + 1) * PTRS_PER_PTE);
        let m = &sim.st.mms[mm as usize];
        let shared = m
            .vmas
            .iter()
            .enumerate()
            .any(|(i, v)| !gone.contains(&i) && v.pages > 0 && v.start < hi && lo < v.end());
        let table = matches!(m.pgtable.pmd(lo), crate::machine::pgtable::Pmd::Table(..));
        if shared || !table || (lo..hi).any(|vpn| !m.pte(vpn).is_none()) {
            continue;
        }
        sim.st.mms[mm as usize].pgtable.clear_pmd(lo);
        freed = Some(freed.map_or((lo, lo), |(a, _)| (a, lo)));
    }
    freed.map(|(a, b)| (a, b - a + 1))
}

/// Where `do_munmap` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Um {
    /// UM1: `down_write(mmap_lock)`.
    Lock,
    /// UM2: `zap_pte_range` of the next PTE table.
    Zap,
    /// UM3: `tlb_finish_mmu`: the flush.
    Flush,
    /// UM4: free the pages; detach the VMA; `up_write`.
    Free,
}

/// `munmap(addr, len)` of a whole VMA: `do_munmap`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoMunmap {
    vma: u16,
    done: u32,
    zapped: u32,
    /// PTE tables `free_pgtables` freed.
    tables: bool,
    pc: Um,
}

impl DoMunmap {
    /// Unmap VMA `vma` of the caller's mm.
    pub fn frame(vma: u16) -> Frame {
        Frame::from(DoMunmap {
            vma,
            done: 0,
            zapped: 0,
            tables: false,
            pc: Um::Lock,
        })
    }
}

impl Function for DoMunmap {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "do_munmap";
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let id = mmap_lock(mm);
        let v = sim.st.mms[mm as usize].vmas[self.vma as usize].clone();
        match self.pc {
            Um::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    let ev = Ev::new(core_ev::LOCK_WAIT, F, "UM1").say(mmap_lock_wait(sim, cpu, id, "munmap"));
                    return (ev, Flow::Block(Until::Lock(id)));
                }
                sim.charge(cpu, sim.cfg.costs[MREMAP_VMA_NS]);
                self.pc = Um::Zap;
                let ev = Ev::new(mr_ev::MREMAP, F, "UM1").say(say!(
                    sim,
                    "Thread {} calls munmap({:#x}, {} pages): down_write(mmap_lock); tlb_gather_mmu",
                    sim.task_name(cpu),
                    v.start,
                    v.pages
                ));
                (ev, Flow::Continue)
            }
            Um::Zap => {
                if self.done >= v.pages {
                    self.pc = Um::Flush;
                    return self.step(sim, cpu);
                }
                let start = v.start + self.done;
                let n = (PTRS_PER_PTE - start % PTRS_PER_PTE).min(v.pages - self.done);
                let ptl = crate::core::LockId::ptl(mm, start);
                if !sim.lock(cpu, ptl, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, ptl, F, "UM2");
                }
                let mut cleared = 0;
                for vpn in start..start + n {
                    let pte = sim.st.mms[mm as usize].pte(vpn);
                    if pte.is_none() {
                        continue;
                    }
                    sim.st.mms[mm as usize].set_pte(vpn, Pte::NONE);
                    if pte.dirty() && sim.st.frames.get(pte.pfn()).has(pg::FILE) {
                        // zap_pte_range: the dirty bit moves to the page (set_page_dirty).
                        crate::mm::page_writeback::set_page_dirty(sim, pte.pfn());
                    }
                    let page = sim.st.frames.get_mut(pte.pfn());
                    if !pte.is_migration() {
                        page.mapcount = page.mapcount.saturating_sub(1);
                    }
                    cleared += 1;
                }
                sim.charge(cpu, u64::from(cleared) * sim.cfg.costs[PTE_WRITE_NS]);
                sim.unlock(cpu, ptl, sim.cfg.costs[PTL_NS]);
                self.done += n;
                self.zapped += cleared;
                let ev = Ev::new(mr_ev::MREMAP, F, "UM2").pte(pid, start).say(say!(
                    sim,
                    "zap_pte_range under the PTL of {start:#x}: {cleared} PTE(s) cleared (a dirty file PTE dirties its page); page_remove_rmap; the pages wait in the mmu_gather until the flush"
                ));
                (ev, Flow::Continue)
            }
            Um::Flush => {
                self.pc = Um::Free;
                // free_pgtables: the emptied PTE tables no other VMA shares.
                let tables = free_pgtables(sim, mm, v.start, v.pages, &[self.vma as usize]);
                self.tables = tables.is_some();
                if self.zapped == 0 && tables.is_none() {
                    return self.step(sim, cpu);
                }
                // One range for both: the zapped pages and the freed tables' first pages.
                let (mut s0, mut e0) = (v.start, v.start + v.pages);
                if self.zapped == 0 {
                    (s0, e0) = (u32::MAX, 0);
                }
                if let Some((a, n)) = tables {
                    (s0, e0) = (s0.min(a), e0.max(a + n));
                }
                sim.st.counters.inc(MUNMAP_FLUSH_OPS);
                let ev = Ev::new(mr_ev::MREMAP_FLUSH, F, "UM3").say(say!(
                    sim,
                    "{}tlb_finish_mmu: flush_tlb_mm_range({s0:#x}, {} pages{}) before the pages may be freed",
                    if self.tables {
                        "free_pgtables frees the emptied PTE table(s) no other VMA shares (pte_free_tlb); "
                    } else {
                        ""
                    },
                    e0 - s0,
                    if self.tables { ", freed_tables" } else { "" }
                ));
                let f = if self.tables {
                    FlushTlbMmRange::frame_freed_tables(mm, s0, e0 - s0)
                } else {
                    FlushTlbMmRange::frame(mm, s0, e0 - s0)
                };
                (ev, Flow::Call(f))
            }
            Um::Free => {
                // The gathered pages: anonymous pages of this VMA's anon_vma nobody maps any more.
                let root = v.rmap_root;
                let mut freed = 0;
                if v.kind != crate::scenario::VmaKind::File {
                    let pfns: Vec<u32> = sim
                        .st
                        .frames
                        .iter()
                        .filter(|(_, p)| p.has(pg::ANON) && !p.has(pg::FREE) && p.mapping == root && p.mapcount == 0)
                        .map(|(pfn, _)| pfn)
                        .collect();
                    for pfn in pfns {
                        crate::mm::page_alloc::free_page_now(sim, pfn);
                        sim.st.frames.set_content(pfn, 0);
                        freed += 1;
                    }
                }
                let m = &mut sim.st.mms[mm as usize];
                let vm = &mut m.vmas[self.vma as usize];
                vm.prev = (vm.start, vm.pages);
                vm.pages = 0;
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                let ev = Ev::new(core_ev::RETURN, F, "UM4").say(say!(
                    sim,
                    "tlb_finish_mmu frees {freed} anonymous page(s) (file pages stay in the page cache); the VMA is gone; up_write(mmap_lock)"
                ));
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }

    fn flush_under_way(&self, _mm: u16) -> bool {
        self.pc != Um::Lock
    }
}

/// `mmap(NULL, len, …)` of a VMA `munmap` removed: mapped again, empty, at a free range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoMmap {
    vma: u16,
}

impl DoMmap {
    /// Map VMA `vma` of the caller's mm again.
    pub fn frame(vma: u16) -> Frame {
        Frame::from(DoMmap { vma })
    }
}

impl Function for DoMmap {
    /// One line (it takes and releases mmap_lock in it, or sleeps for it).
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "do_mmap";
        let mm = sim.cpu_mm(cpu);
        let id = mmap_lock(mm);
        if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
            let ev = Ev::new(core_ev::LOCK_WAIT, F, "MM1").say(mmap_lock_wait(sim, cpu, id, "mmap"));
            return (ev, Flow::Block(Until::Lock(id)));
        }
        sim.charge(cpu, sim.cfg.costs[MREMAP_VMA_NS]);
        let v = sim.st.mms[mm as usize].vmas[self.vma as usize].clone();
        let text = if v.pages > 0 {
            say!(sim, "mmap: the VMA is still mapped at {:#x}: nothing to do", v.start)
        } else {
            match get_unmapped_area(sim, mm, v.prev.1) {
                Some(start) => {
                    let vm = &mut sim.st.mms[mm as usize].vmas[self.vma as usize];
                    vm.start = start;
                    vm.pages = v.prev.1;
                    say!(
                        sim,
                        "mmap: get_unmapped_area places {} pages at {start:#x}; no page is mapped until it is touched",
                        v.prev.1
                    )
                }
                None => say!(sim, "mmap: no free range is large enough: ENOMEM"),
            }
        };
        sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
        let ev = Ev::new(mr_ev::MREMAP, F, "MM1").say(text);
        (ev, Flow::Return(Ret::Unit))
    }
}

/// What the last user's exit would wait for: `exit_mmap` → `unmap_vmas` → `zap_pte_range`
/// takes each PTE table's lock (`pte_offset_map_lock`, v6.6 mm/memory.c), so while another
/// CPU holds one of this mm's (an rmap walk in `page_mkclean_one` or `try_to_unmap_one`),
/// the exit spins there. `None` when `cpu`'s task is not the mm's last user or no such lock
/// is held elsewhere.
pub(crate) fn exit_mmap_blocked(sim: &Sim, cpu: CpuId) -> Option<crate::core::LockId> {
    let task = sim.st.cpus[cpu as usize].curr;
    let crate::machine::TaskKind::User { mm, .. } = sim.st.tasks[task as usize].kind else {
        return None;
    };
    if sim.st.mms[mm as usize].users > 1 {
        return None;
    }
    sim.st
        .locks
        .held()
        .find(|&(id, holder)| id.class == crate::core::LockClass::Ptl && id.a == u32::from(mm) && holder != cpu)
        .map(|(id, _)| id)
}

/// Every path by which a user thread exits (its work done, SIGSEGV, the model's stop when
/// no page is left) calls this first: while [`exit_mmap_blocked`] names a PTE lock, the exit
/// waits for it (the step that returns is retried when the lock is free); once free it is
/// taken and dropped again with the teardown (`zap_pte_range`'s `pte_offset_map_lock`).
/// `None`: go on and exit.
pub(crate) fn exit_mmap_wait(sim: &mut Sim, cpu: CpuId, function: &'static str, line: &'static str) -> Option<(Ev, Flow<Frame>)> {
    let id = exit_mmap_blocked(sim, cpu)?;
    if !sim.lock(cpu, id, 0) {
        return Some(crate::mm::memory::lock_wait(sim, cpu, id, function, line));
    }
    sim.unlock(cpu, id, 0);
    None
}

/// `exit_mmap` of the last user: every PTE is zapped (`zap_pte_range`: `page_remove_rmap`
/// and `put_page` of each mapped page, a huge PMD whole as `zap_huge_pmd` does, so a COW
/// page the child shared is the parent's alone again), the VMAs leave their rmap roots,
/// and the TLB entries go; a dirty file PTE dirties its page (`zap_pte_range`:
/// `set_page_dirty`), which stays in the page cache. Uncharged, like the rest of the exit
/// path. Simplified: the teardown is one step; the exit waited first for any PTE lock of
/// the mm another CPU held ([`exit_mmap_blocked`]: an rmap walk is the only other path
/// that walks these tables), the CPU's own entries are dropped directly and the other
/// CPUs, all lazy, are behind on `tlb_gen`.
pub(crate) fn exit_mmap(sim: &mut Sim, cpu: CpuId, mm: u16) {
    let vmas = std::mem::take(&mut sim.st.mms[mm as usize].vmas);
    for (vi, v) in vmas.iter().enumerate() {
        for vpn in v.start..v.end() {
            let pte = sim.st.mms[mm as usize].pte(vpn);
            if pte.is_none() {
                continue;
            }
            // zap_huge_pmd: a huge PMD goes whole, at the first page the loop reaches; the
            // loop then finds the rest of its 2 MiB empty.
            if sim.st.mms[mm as usize].pgtable.is_huge(vpn) {
                let m = &mut sim.st.mms[mm as usize];
                let h = crate::mm::huge_memory::haddr(vpn);
                let pmd = m.pte(h);
                m.clear_pmd(vpn);
                for off in 0..crate::mm::huge_memory::HPAGE_PMD_NR {
                    let pfn = pmd.nth(off).pfn();
                    let p = sim.st.frames.get_mut(pfn);
                    p.mapcount = p.mapcount.saturating_sub(1);
                    p.refcount = p.refcount.saturating_sub(1);
                    if p.refcount == 0 {
                        crate::mm::page_alloc::free_page_now(sim, pfn);
                    }
                }
                continue;
            }
            sim.st.mms[mm as usize].set_pte(vpn, crate::machine::Pte::NONE);
            if pte.is_migration() {
                continue;
            }
            let pfn = pte.pfn();
            if pte.dirty() && sim.st.frames.get(pfn).has(crate::machine::pg::FILE) {
                crate::mm::page_writeback::set_page_dirty(sim, pfn);
            }
            let p = sim.st.frames.get_mut(pfn);
            p.mapcount = p.mapcount.saturating_sub(1);
            if p.has(crate::machine::pg::ANON) {
                p.refcount = p.refcount.saturating_sub(1);
                if p.refcount == 0 {
                    crate::mm::page_alloc::free_page_now(sim, pfn);
                }
            }
        }
        // unlink_anon_vmas / unlink_file_vma: every anon_vma or i_mmap the VMA is chained to.
        for r in sim.st.roots.iter_mut().filter(|r| r.vmas.contains(&(mm, vi as u16))) {
            r.vmas.retain(|&x| x != (mm, vi as u16));
        }
    }
    let m = &mut sim.st.mms[mm as usize];
    m.tlb_gen += 1;
    let gen = m.tlb_gen;
    let c = &mut sim.st.cpus[cpu as usize];
    c.tlb.flush_mm(mm);
    if c.loaded_mm == Some(mm) {
        c.seen_gen = gen;
    }
}
