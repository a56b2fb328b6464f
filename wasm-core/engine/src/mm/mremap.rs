//! `mm/mremap.c`: `sys_mremap` → `move_vma` → `copy_vma`, `move_page_tables` →
//! `move_ptes`, then `do_munmap` of the old range, under four TLB-flush regimes
//! (`mremap_flush`) and with or without `LATENCY_LIMIT` (`mremap_pmd_extents` off or on).
//!
//! Follows Linux v4.8 (`deferred`: no flush in `move_ptes`, one `flush_tlb_range` of the
//! whole range after every lock is dropped), v4.9–v4.18 (`dirty`, 5d1904204c99 with the
//! check-after-clear fix: a moved PTE that was present and dirty forces a flush of the
//! extent after the new PTL is dropped and before the old one is; otherwise
//! `need_flush` and the final flush), Mel Gorman's unmerged 2018 `should_force_flush`
//! (`dirty_file_or_swapcache`: the force applies only to a file page, a page whose lock
//! `trylock_page` cannot take, or a swap-cache page), and v4.19+ (`present`,
//! eb66ae030829, CVE-2018-18281: any present PTE forces the flush, before both PTLs are
//! dropped; no deferred flush). Extents stop at PMD boundaries on both sides and, up to
//! v4.17, at `LATENCY_LIMIT` (64 pages).
//!
//! Left out: `move_huge_pmd` (a huge PMD in the moved range is split as its first PTE is
//! moved, `PageTable::set_pte`; no mremap scenario maps huge pages) and v5.0's
//! `move_normal_pmd`; `mmu_notifier`s; `need_rmap_locks` is always false
//! (`copy_vma` makes a new VMA, which comes after the old one in rmap order, as the
//! kernel's non-merging case). `do_munmap` of the old range finds no PTE left, but
//! `free_pgtables` frees the emptied PTE table when no other VMA shares its PMD (every
//! mremap scenario's layout leaves the old PMD to the moved VMA alone), and
//! `tlb_finish_mmu` flushes for it: one more flush per call in every regime
//! (`mremap_flush_free_pgtables`), with `freed_tables`, so from v4.20 it reaches lazy
//! CPUs too. Partial moves, growing and shrinking: a call moves a whole VMA.

use crate::arch::x86::mm::tlb::FlushTlbMmRange;
use crate::core::{Flow, LockClass, LockId, Ret, Until};
use crate::engine::{say, Sim, VMA_BASE_VPN};
use crate::machine::pgtable::{Pmd, PTRS_PER_PTE};
use crate::machine::{pg, Pte, Vma};
use crate::mech::core::ev as core_ev;
use crate::mech::core::{PTE_WRITE_NS, PTL_NS, TRYLOCK_PAGE_NS};
use crate::mech::mremap::ev as mr_ev;
use crate::mech::mremap::{
    MREMAP_CALLS, MREMAP_DELAY_NS, MREMAP_EINVAL, MREMAP_EXTENTS, MREMAP_FLUSH, MREMAP_FLUSH_DEFERRED, MREMAP_FLUSH_FREE_PGTABLES,
    MREMAP_FLUSH_OPS, MREMAP_FLUSH_PTL, MREMAP_PMD_EXTENTS, MREMAP_PTES_MOVED, MREMAP_VMA_NS,
};
use crate::mm::memory::lock_wait;
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// `LATENCY_LIMIT`: at most this many PTEs per `move_ptes` (≤ v4.17).
pub const LATENCY_LIMIT: u32 = 64;

/// "No destination given" (`to` left out).
pub const NO_TO: u32 = u32::MAX;

/// The flush regime (`mremap_flush`), in the toggle's value order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regime {
    /// ≤ v4.8: one flush after every lock is dropped.
    Deferred,
    /// v4.9–v4.18 (5d1904204c99): a present and dirty PTE forces a flush under the old PTL.
    Dirty,
    /// 2018 proposal (unmerged): only dirty file, unlockable or swap-cache pages force it.
    DirtyFileOrSwapcache,
    /// ≥ v4.19 (eb66ae030829): any present PTE forces it, under both PTLs.
    Present,
}

impl Regime {
    /// The regime the toggles select.
    pub fn of(sim: &Sim) -> Regime {
        match sim.cfg.toggles.index(MREMAP_FLUSH) {
            0 => Regime::Deferred,
            1 => Regime::Dirty,
            2 => Regime::DirtyFileOrSwapcache,
            _ => Regime::Present,
        }
    }
}

/// What `move_ptes` decides for one moved PTE under a regime (spec C.3): force a flush of
/// the extent under the PTL, or leave it to `need_flush` (the deferred flush). Pure, so the
/// mremap panel re-derives the badge of the PTEs of the extent being moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// `deferred` (v4.8): `move_ptes` never flushes.
    Deferred,
    /// Not both present and dirty (`dirty`, `dirty_file_or_swapcache`): `need_flush`.
    NotDirty,
    /// Not present (`present`): nothing to flush.
    NotPresent,
    /// `dirty`: present and dirty: force.
    ForceDirty,
    /// `present`: present: force.
    ForcePresent,
    /// `dirty_file_or_swapcache`: a dirty file page: force.
    ForceFile,
    /// `dirty_file_or_swapcache`: a dirty anon page `trylock_page` cannot lock: force.
    ForceLocked,
    /// `dirty_file_or_swapcache`: a dirty anon page in the swap cache: force.
    ForceSwapcache,
    /// `dirty_file_or_swapcache`: a dirty anon page outside the swap cache: `need_flush`.
    AnonNotSwapcache,
}

impl Decision {
    /// The decision for `pte` (as `ptep_get_and_clear` returned it) mapping `page`.
    pub fn of(regime: Regime, pte: Pte, page: &crate::machine::Page) -> Decision {
        let present = !pte.is_migration();
        match regime {
            Regime::Deferred => Decision::Deferred,
            Regime::Dirty if present && pte.dirty() => Decision::ForceDirty,
            Regime::Dirty => Decision::NotDirty,
            Regime::Present if present => Decision::ForcePresent,
            Regime::Present => Decision::NotPresent,
            Regime::DirtyFileOrSwapcache if !(present && pte.dirty()) => Decision::NotDirty,
            Regime::DirtyFileOrSwapcache if page.has(pg::FILE) => Decision::ForceFile,
            Regime::DirtyFileOrSwapcache if page.has(pg::LOCKED) => Decision::ForceLocked,
            Regime::DirtyFileOrSwapcache if page.has(pg::SWAPCACHE) => Decision::ForceSwapcache,
            Regime::DirtyFileOrSwapcache => Decision::AnonNotSwapcache,
        }
    }

    /// Whether it forces a flush of the extent under the PTL.
    pub fn force(self) -> bool {
        matches!(
            self,
            Decision::ForceDirty | Decision::ForcePresent | Decision::ForceFile | Decision::ForceLocked | Decision::ForceSwapcache
        )
    }

    /// Whether `should_force_flush` called `trylock_page` to reach it.
    pub fn tried_lock(self) -> bool {
        matches!(self, Decision::ForceLocked | Decision::ForceSwapcache | Decision::AnonNotSwapcache)
    }

    /// The narration's badge.
    pub fn badge(self) -> &'static str {
        match self {
            Decision::Deferred => "deferred: never flushed here",
            Decision::NotDirty => "not dirty: need_flush",
            Decision::NotPresent => "not present",
            Decision::ForceDirty => "present+dirty: FORCE",
            Decision::ForcePresent => "present: FORCE",
            Decision::ForceFile => "dirty file page: FORCE",
            Decision::ForceLocked => "dirty anon, trylock_page fails: FORCE (assume the worst)",
            Decision::ForceSwapcache => "dirty anon in swap cache: FORCE",
            Decision::AnonNotSwapcache => "dirty anon, not in swap cache: need_flush (a stale store lands in the same page)",
        }
    }
}

/// `mm->mmap_lock` of mm `mm`.
pub fn mmap_lock(mm: u16) -> LockId {
    LockId {
        class: LockClass::MmapLock,
        a: u32::from(mm),
        b: 0,
    }
}

/// The narration of a writer that found `mmap_lock` held: it spins while a writer owner
/// runs (`RWSEM_SPIN_ON_OWNER`, [`Sim::rwsem_spins`]), else it sleeps and its CPU idles
/// lazily.
pub fn mmap_lock_wait(sim: &Sim, cpu: CpuId, id: LockId, what: &str) -> String {
    let pid = sim.st.mms[id.a as usize].pid;
    let task = sim.st.cpus[cpu as usize].curr;
    let holder = sim.st.locks.holder(id).map_or(-1, i32::from);
    if sim.rwsem_spins(task, id) {
        say!(
            sim,
            "{what} needs mm {pid}'s mmap_lock for writing and the thread on CPU {holder} holds it and runs: thread {} spins on the owner (rwsem_optimistic_spin), so CPU {cpu} stays non-lazy in mm_cpumask and takes the mm's shootdowns",
            sim.task_name(cpu)
        )
    } else {
        say!(
            sim,
            "{what} needs mm {pid}'s mmap_lock for writing and CPU {holder} holds it: thread {} sleeps (its CPU idles in lazy TLB mode)",
            sim.task_name(cpu)
        )
    }
}

/// Whether `[start, start + pages)` overlaps a mapped VMA of `mm` (VMA `except` aside).
fn overlaps(sim: &Sim, mm: u16, start: u32, pages: u32, except: Option<usize>) -> Option<usize> {
    let end = start.saturating_add(pages);
    sim.st.mms[mm as usize]
        .vmas
        .iter()
        .enumerate()
        .filter(|&(i, v)| Some(i) != except && v.pages > 0)
        .find(|(_, v)| start < v.end() && v.start < end)
        .map(|(i, _)| i)
}

/// `get_unmapped_area` as the model lays VMAs out: the lowest PMD-aligned start at or
/// above the first VMA's whose range, plus one PMD of gap on each side, is free.
pub fn get_unmapped_area(sim: &Sim, mm: u16, pages: u32) -> Option<u32> {
    let mut s = VMA_BASE_VPN;
    for _ in 0..1 << 16 {
        let lo = s.saturating_sub(PTRS_PER_PTE);
        if overlaps(sim, mm, lo, pages.saturating_add(2 * PTRS_PER_PTE), None).is_none() {
            return Some(s);
        }
        s = s.checked_add(PTRS_PER_PTE)?;
    }
    None
}

/// Where `sys_mremap` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sm {
    /// SM1: `down_write(mmap_lock)`, check the arguments.
    Lock,
    /// SM2: `move_vma`.
    Move,
    /// SM3: `up_write(mmap_lock)`, return.
    Unlock,
}

/// `sys_mremap(addr, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, new_addr)` of a whole VMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SysMremap {
    vma: u16,
    to: u32,
    /// Pages past the PMD boundary a free range starts at (see [`SysMremap::frame`]).
    offset: u16,
    new: u32,
    failed: bool,
    pc: Sm,
}

impl SysMremap {
    /// Move VMA `vma` of the caller's mm to `to` pages above the first VMA's start, or
    /// ([`NO_TO`]) back where it was before its last move, else to a free range, starting
    /// `offset` pages past the PMD boundary the model's `get_unmapped_area` picks (the
    /// kernel's is page-aligned: before v6.7 an anonymous mapping was 2 MiB-aligned only
    /// by chance).
    pub fn frame(vma: u16, to: u32, offset: u16) -> Frame {
        Frame::from(SysMremap {
            vma,
            to,
            offset,
            new: 0,
            failed: false,
            pc: Sm::Lock,
        })
    }
}

impl SysMremap {
    /// Read-only, for the panel: the VMA index being moved.
    pub fn vma(&self) -> u16 {
        self.vma
    }

    /// Read-only, for the panel: the new start once `sys_mremap` has checked its arguments
    /// under mmap_lock (None before, and when the call failed).
    pub fn new_start(&self) -> Option<u32> {
        (self.pc != Sm::Lock && !self.failed).then_some(self.new)
    }
}

impl Function for SysMremap {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "sys_mremap";
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let id = mmap_lock(mm);
        match self.pc {
            Sm::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    let ev = Ev::new(core_ev::LOCK_WAIT, F, "SM1").say(mmap_lock_wait(sim, cpu, id, "mremap"));
                    return (ev, Flow::Block(Until::Lock(id)));
                }
                sim.st.counters.inc(MREMAP_CALLS);
                let vi = self.vma as usize;
                let v = sim.st.mms[mm as usize].vmas[vi].clone();
                let new = if v.pages == 0 {
                    Err("the VMA is not mapped (munmap'ed): EFAULT".to_string())
                } else if self.to != NO_TO {
                    let new = VMA_BASE_VPN.saturating_add(self.to);
                    match overlaps(sim, mm, new, v.pages, None) {
                        Some(o) => Err(format!(
                            "the new range {new:#x}+{} overlaps VMA {o} (the `to` of this mremap): EINVAL",
                            v.pages
                        )),
                        None => Ok(new),
                    }
                } else if v.prev.0 != v.start && overlaps(sim, mm, v.prev.0, v.pages, None).is_none() {
                    Ok(v.prev.0)
                } else {
                    let off = u32::from(self.offset);
                    get_unmapped_area(sim, mm, v.pages + off)
                        .map(|s| s + off)
                        .ok_or_else(|| "no free range is large enough: ENOMEM".to_string())
                };
                match new {
                    Ok(new) => {
                        self.new = new;
                        self.pc = Sm::Move;
                        let ev = Ev::new(mr_ev::MREMAP, F, "SM1").say(say!(
                            sim,
                            "Thread {} calls mremap({:#x}, {} pages -> {new:#x}, MREMAP_MAYMOVE|MREMAP_FIXED): down_write(mmap_lock); faults and other mremaps of mm {pid} now sleep until it is released",
                            sim.task_name(cpu),
                            v.start,
                            v.pages
                        ));
                        (ev, Flow::Continue)
                    }
                    Err(why) => {
                        self.failed = true;
                        self.pc = Sm::Unlock;
                        sim.st.counters.inc(MREMAP_EINVAL);
                        let ev = Ev::new(mr_ev::MREMAP, F, "SM1").say(say!(sim, "mremap of VMA {vi} fails: {why}"));
                        (ev, Flow::Continue)
                    }
                }
            }
            Sm::Move => {
                self.pc = Sm::Unlock;
                let ev = Ev::new(core_ev::CALL, F, "SM2").say(say!(sim, "mremap_to -> move_vma"));
                (ev, Flow::Call(MoveVma::frame(mm, self.vma, self.new)))
            }
            Sm::Unlock => {
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                let ev = Ev::new(core_ev::RETURN, F, "SM3").say(say!(
                    sim,
                    "up_write(mmap_lock); mremap returns {}",
                    if self.failed {
                        "an error".to_string()
                    } else {
                        format!("{:#x}", self.new)
                    }
                ));
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }
}

/// Where `move_vma` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mv {
    /// MV1: `copy_vma`.
    Copy,
    /// MV2: `move_page_tables`.
    Move,
    /// MV3: `do_munmap(old range)`: `free_pgtables`, `tlb_finish_mmu`.
    Unmap,
    /// MV4: the old VMA is gone; return.
    Done,
}

/// `move_vma`: `copy_vma`, `move_page_tables`, `do_munmap` of the old range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveVma {
    mm: u16,
    vma: u16,
    new: u32,
    /// The new VMA's index while both exist.
    copy: u16,
    pc: Mv,
}

impl MoveVma {
    /// Read-only, for the panel: what it does next: "copy_vma", "move_page_tables" (the
    /// copy is made) or "do_munmap" (every PTE is moved).
    pub fn next(&self) -> &'static str {
        match self.pc {
            Mv::Copy => "copy_vma",
            Mv::Move => "move_page_tables",
            Mv::Unmap | Mv::Done => "do_munmap",
        }
    }
}

impl MoveVma {
    fn frame(mm: u16, vma: u16, new: u32) -> Frame {
        Frame::from(MoveVma {
            mm,
            vma,
            new,
            copy: 0,
            pc: Mv::Copy,
        })
    }
}

impl Function for MoveVma {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "move_vma";
        let mm = self.mm;
        let v = sim.st.mms[mm as usize].vmas[self.vma as usize].clone();
        match self.pc {
            Mv::Copy => {
                // copy_vma: a new VMA at the new address with the same pgoff, linked into
                // the same anon_vma or i_mmap, so rmap walks find a moved page at its new
                // address as soon as its PTE is there.
                let copy = Vma {
                    start: self.new,
                    ..v.clone()
                };
                let m = &mut sim.st.mms[mm as usize];
                m.vmas.push(copy);
                self.copy = m.vmas.len() as u16 - 1;
                sim.st.roots[v.rmap_root as usize].vmas.push((mm, self.copy));
                sim.charge(cpu, sim.cfg.costs[MREMAP_VMA_NS]);
                self.pc = Mv::Move;
                let ev = Ev::new(mr_ev::MREMAP, F, "MV1").say(say!(
                    sim,
                    "copy_vma: a new VMA at {:#x} (same pgoff, same {}), after the old one in rmap order, so need_rmap_locks = false",
                    self.new,
                    if v.kind == crate::scenario::VmaKind::File {
                        "file i_mmap"
                    } else {
                        "anon_vma"
                    }
                ));
                (ev, Flow::Continue)
            }
            Mv::Move => {
                self.pc = Mv::Unmap;
                let ev = Ev::new(core_ev::CALL, F, "MV2").say(say!(
                    sim,
                    "move_page_tables(vma, {:#x}, new_vma, {:#x}, {} pages)",
                    v.start,
                    self.new,
                    v.pages
                ));
                (ev, Flow::Call(MovePageTables::frame(mm, v.start, self.new, v.pages)))
            }
            Mv::Unmap => {
                // do_munmap(old range) -> unmap_region: zap_page_range finds no PTE (all moved);
                // free_pgtables frees the emptied PTE table(s) no other VMA shares, and
                // tlb_finish_mmu flushes for them (pte_free_tlb widened the range by a page).
                self.pc = Mv::Done;
                let tables = crate::mm::mmap::free_pgtables(sim, mm, v.start, v.pages, &[self.vma as usize]);
                let Some((at, n)) = tables else {
                    return self.step(sim, cpu);
                };
                sim.st.counters.inc(MREMAP_FLUSH_OPS);
                sim.st.counters.inc(MREMAP_FLUSH_FREE_PGTABLES);
                let ev = Ev::new(mr_ev::MREMAP_FLUSH, F, "MV3").say(say!(
                    sim,
                    "do_munmap({:#x}, {} pages): no PTE left to zap, but free_pgtables frees the emptied PTE table (pte_free_tlb), so tlb_finish_mmu calls flush_tlb_mm_range({at:#x}, {n} page(s), freed_tables)",
                    v.start,
                    v.pages
                ));
                (ev, Flow::Call(FlushTlbMmRange::frame_freed_tables(mm, at, n)))
            }
            Mv::Done => {
                let root = v.rmap_root as usize;
                let copy = self.copy;
                let m = &mut sim.st.mms[mm as usize];
                let old = m.vmas[self.vma as usize].start;
                m.vmas[self.vma as usize].prev = (old, v.pages);
                m.vmas[self.vma as usize].start = self.new;
                if m.vmas.len() == copy as usize + 1 {
                    m.vmas.pop();
                }
                sim.st.roots[root].vmas.retain(|&e| e != (mm, copy));
                sim.charge(cpu, sim.cfg.costs[MREMAP_VMA_NS]);
                let ev = Ev::new(mr_ev::MREMAP, F, "MV4").say(say!(
                    sim,
                    "The old VMA at {old:#x} ({} pages) is gone; the new one stands in its place",
                    v.pages
                ));
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }

    fn flush_under_way(&self, mm: u16) -> bool {
        self.mm == mm && self.pc == Mv::Done
    }
}

/// Where `move_page_tables` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mp {
    /// MP1-MP2: the next extent.
    Extent,
    /// MP3: after `move_ptes` (the race test's injected delay).
    Moved,
    /// MP4: the deferred flush.
    Flush,
    /// MP5: return.
    Done,
}

/// `move_page_tables(vma, old_addr, new_vma, new_addr, len, need_rmap_locks)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MovePageTables {
    mm: u16,
    old: u32,
    new: u32,
    len: u32,
    done: u32,
    need_flush: bool,
    pc: Mp,
}

impl MovePageTables {
    fn frame(mm: u16, old: u32, new: u32, len: u32) -> Frame {
        Frame::from(MovePageTables {
            mm,
            old,
            new,
            len,
            done: 0,
            need_flush: false,
            pc: Mp::Extent,
        })
    }
}

impl MovePageTables {
    /// Read-only, for the panel: `(old start, new start, pages, pages handed to extents so
    /// far, need_flush)`.
    pub fn progress(&self) -> (u32, u32, u32, u32, bool) {
        (self.old, self.new, self.len, self.done, self.need_flush)
    }
}

impl Function for MovePageTables {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "move_page_tables";
        let mm = self.mm;
        match self.pc {
            Mp::Extent => {
                if self.done >= self.len {
                    self.pc = if self.need_flush { Mp::Flush } else { Mp::Done };
                    return self.step(sim, cpu);
                }
                let (old, new) = (self.old + self.done, self.new + self.done);
                let left = self.len - self.done;
                let mut extent = (PTRS_PER_PTE - old % PTRS_PER_PTE).min(left);
                let pmd = sim.st.mms[mm as usize].pgtable.pmd(old);
                if matches!(pmd, Pmd::None) {
                    // get_old_pmd: no PTE table here: nothing to move, nothing allocated.
                    self.done += extent;
                    let ev = Ev::new(mr_ev::EXTENT, "get_extent", "GE1").say(say!(
                        sim,
                        "cond_resched; extent = {extent} page(s) up to the next PMD boundary of {old:#x}; get_old_pmd finds no PTE table: skip it"
                    ));
                    return (ev, Flow::Continue);
                }
                // alloc_new_pmd, pte_alloc; the new side's PMD boundary caps the extent too.
                extent = extent.min(PTRS_PER_PTE - new % PTRS_PER_PTE);
                let limit = !sim.cfg.toggles.on(MREMAP_PMD_EXTENTS);
                if limit {
                    extent = extent.min(LATENCY_LIMIT);
                }
                self.done += extent;
                self.pc = Mp::Moved;
                sim.st.counters.inc(MREMAP_EXTENTS);
                let ev = Ev::new(mr_ev::EXTENT, "get_extent", "GE2").say(say!(
                    sim,
                    "extent = {extent} page(s) from {old:#x} to {new:#x}: bounded by the PMD boundaries{}; move_ptes",
                    if limit {
                        " and by LATENCY_LIMIT (64 pages, up to v4.17)"
                    } else {
                        " (no LATENCY_LIMIT: v4.18+)"
                    }
                ));
                (ev, Flow::Call(MovePtes::frame(mm, old, new, extent)))
            }
            Mp::Moved => {
                self.pc = Mp::Extent;
                let delay = sim.cfg.knobs.get(MREMAP_DELAY_NS).unwrap_or(0);
                let ev = Ev::new(core_ev::RETURN, F, "MP3").say(say!(
                    sim,
                    "move_ptes returned with both PTLs dropped{}",
                    if delay > 0 {
                        format!(
                            "; the injected delay ({} µs, as Aaron Lu's race test added) holds this CPU here: {}",
                            delay / 1000,
                            if self.need_flush {
                                "the old translations are still in other CPUs' TLBs (need_flush is pending)"
                            } else {
                                "nothing is left to flush"
                            }
                        )
                    } else {
                        String::new()
                    }
                ));
                if delay > 0 {
                    // mdelay: the CPU busy-waits with interrupts on (it takes IPIs meanwhile).
                    return (ev, Flow::Block(Until::Busy(sim.clock(cpu) + delay)));
                }
                (ev, Flow::Continue)
            }
            Mp::Flush => {
                self.pc = Mp::Done;
                self.need_flush = false;
                sim.st.counters.inc(MREMAP_FLUSH_OPS);
                sim.st.counters.inc(MREMAP_FLUSH_DEFERRED);
                let ev = Ev::new(mr_ev::MREMAP_FLUSH, F, "MP4").say(say!(
                    sim,
                    "need_flush: flush_tlb_range(vma, {:#x}, {} pages), the deferred flush, after every PTL was dropped",
                    self.old,
                    self.len
                ));
                (ev, Flow::Call(FlushTlbMmRange::frame(mm, self.old, self.len)))
            }
            Mp::Done => {
                let ev = Ev::new(core_ev::RETURN, F, "MP5").say(say!(sim, "move_page_tables returns {} pages moved", self.len));
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if r.as_bool() {
            self.need_flush = true;
        }
    }

    fn flush_under_way(&self, mm: u16) -> bool {
        self.mm == mm && self.need_flush
    }
}

/// Where `move_ptes` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mt {
    /// MT1: lock the old PTL.
    LockOld,
    /// MT2: lock the new PTL.
    LockNew,
    /// MT3: `flush_tlb_batched_pending`.
    Batched,
    /// MT4: the next PTE.
    Pte,
    /// MT5 (v4.19 order): flush before the unlocks.
    FlushEarly,
    /// MT6: unlock the new PTL.
    UnlockNew,
    /// MT5 (v4.9 order): flush between the unlocks.
    FlushLate,
    /// MT7: unlock the old PTL, return `need_flush`.
    UnlockOld,
}

/// `move_ptes(vma, old_pmd, old_addr, old_end, new_vma, new_pmd, new_addr, need_rmap_locks, &need_flush)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MovePtes {
    mm: u16,
    old: u32,
    new: u32,
    n: u16,
    i: u16,
    force: bool,
    pc: Mt,
}

impl MovePtes {
    fn frame(mm: u16, old: u32, new: u32, n: u32) -> Frame {
        Frame::from(MovePtes {
            mm,
            old,
            new,
            n: n as u16,
            i: 0,
            force: false,
            pc: Mt::LockOld,
        })
    }
}

impl MovePtes {
    /// Read-only, for the panel: `(old start, new start, pages, PTEs looked at so far,
    /// force_flush)` of this extent.
    pub fn progress(&self) -> (u32, u32, u32, u32, bool) {
        (self.old, self.new, u32::from(self.n), u32::from(self.i), self.force)
    }
}

impl MovePtes {
    /// Counts and calls one flush of this extent, under the PTL.
    fn flush(&mut self, sim: &mut Sim, line: &'static str, why: &str) -> (Ev, Flow<Frame>) {
        sim.st.counters.inc(MREMAP_FLUSH_OPS);
        sim.st.counters.inc(MREMAP_FLUSH_PTL);
        let ev = Ev::new(mr_ev::MREMAP_FLUSH, "move_ptes", line).say(say!(
            sim,
            "force_flush: flush_tlb_range(vma, {:#x}, {} pages) {why}",
            self.old,
            self.n
        ));
        (ev, Flow::Call(FlushTlbMmRange::frame(self.mm, self.old, u32::from(self.n))))
    }
}

impl Function for MovePtes {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "move_ptes";
        let mm = self.mm;
        let pid = sim.st.mms[mm as usize].pid;
        let regime = Regime::of(sim);
        let (old_ptl, new_ptl) = (LockId::ptl(mm, self.old), LockId::ptl(mm, self.new));
        match self.pc {
            Mt::LockOld => {
                if !sim.lock(cpu, old_ptl, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, old_ptl, F, "MT1");
                }
                self.pc = Mt::LockNew;
                let ev = Ev::new(core_ev::PTL_LOCK, F, "MT1").pte(pid, self.old).say(say!(
                    sim,
                    "move_ptes: take the old PTE table's lock (PTL of {:#x})",
                    self.old
                ));
                (ev, Flow::Continue)
            }
            Mt::LockNew => {
                if new_ptl != old_ptl && !sim.lock(cpu, new_ptl, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, new_ptl, F, "MT2");
                }
                self.pc = if regime == Regime::Deferred { Mt::Pte } else { Mt::Batched };
                let ev = Ev::new(core_ev::PTL_LOCK, F, "MT2").pte(pid, self.new).say(say!(
                    sim,
                    "...and the new one's (PTL of {:#x}, spin_lock_nested): no other CPU can now change or walk these PTEs in software",
                    self.new
                ));
                (ev, Flow::Continue)
            }
            Mt::Batched => {
                self.pc = Mt::Pte;
                let ev = Ev::new(mr_ev::MREMAP, F, "MT3").say(say!(
                    sim,
                    "flush_tlb_batched_pending(mm) (v4.13, 3ea277194daa; v4.9-v4.12 have no such call): reclaim left no batched flush pending for this mm (the model has no reclaim), so nothing to do"
                ));
                (ev, Flow::Continue)
            }
            Mt::Pte => {
                // Empty PTEs are skipped without a step (pte_none: continue).
                while self.i < self.n && sim.st.mms[mm as usize].pte(self.old + u32::from(self.i)).is_none() {
                    self.i += 1;
                }
                if self.i >= self.n {
                    self.pc = match regime {
                        Regime::Present if self.force => Mt::FlushEarly,
                        _ => Mt::UnlockNew,
                    };
                    return self.step(sim, cpu);
                }
                let (from, to) = (self.old + u32::from(self.i), self.new + u32::from(self.i));
                self.i += 1;
                let m = &mut sim.st.mms[mm as usize];
                // ptep_get_and_clear: atomic, so a D bit the hardware sets up to here is seen.
                let pte = m.pte(from);
                m.set_pte(from, Pte::NONE);
                m.set_pte(to, pte);
                sim.charge(cpu, 2 * sim.cfg.costs[PTE_WRITE_NS]);
                sim.st.counters.inc(MREMAP_PTES_MOVED);
                let page = *sim.st.frames.get(pte.pfn());
                let decision = Decision::of(regime, pte, &page);
                if decision.tried_lock() {
                    sim.charge(cpu, sim.cfg.costs[TRYLOCK_PAGE_NS]);
                }
                let (force, badge) = (decision.force(), decision.badge());
                self.force |= force;
                let ev = Ev::new(mr_ev::PTE_MOVE, F, "MT4").pte(pid, to).pfn(pte.pfn()).say(say!(
                    sim,
                    "pte = ptep_get_and_clear({from:#x}) = pfn {} {}{}; set_pte_at({to:#x}). Decision: {badge}",
                    pte.pfn(),
                    if pte.write() { "W" } else { "R" },
                    if pte.dirty() { "+D" } else { "" }
                ));
                (ev, Flow::Continue)
            }
            Mt::FlushEarly => {
                self.pc = Mt::UnlockNew;
                self.flush(
                    sim,
                    "MT5",
                    "while both PTLs are held (v4.19): no CPU can use the old translation once either lock is dropped",
                )
            }
            Mt::UnlockNew => {
                if new_ptl != old_ptl {
                    sim.unlock(cpu, new_ptl, sim.cfg.costs[PTL_NS]);
                }
                self.pc = match regime {
                    Regime::Dirty | Regime::DirtyFileOrSwapcache if self.force => Mt::FlushLate,
                    _ => Mt::UnlockOld,
                };
                let ev = Ev::new(core_ev::PTL_UNLOCK, F, "MT6").pte(pid, self.new).say(say!(
                    sim,
                    "arch_leave_lazy_mmu_mode; unlock the new PTL: page_mkclean may now find the moved PTEs at {:#x}",
                    self.new
                ));
                (ev, Flow::Continue)
            }
            Mt::FlushLate => {
                self.pc = Mt::UnlockOld;
                self.flush(
                    sim,
                    "MT5",
                    "after the new PTL is dropped, before the old one is (v4.9): a dirty translation must be gone before page_mkclean can clean the page",
                )
            }
            Mt::UnlockOld => {
                sim.unlock(cpu, old_ptl, sim.cfg.costs[PTL_NS]);
                let need_flush = match regime {
                    Regime::Deferred => true,
                    Regime::Dirty | Regime::DirtyFileOrSwapcache => !self.force,
                    Regime::Present => false,
                };
                let ev = Ev::new(core_ev::PTL_UNLOCK, F, "MT7").pte(pid, self.old).say(say!(
                    sim,
                    "Unlock the old PTL{}",
                    if need_flush {
                        "; *need_flush = true: the old translations stay in other CPUs' TLBs until the final flush"
                    } else {
                        ""
                    }
                ));
                (ev, Flow::Return(Ret::Bool(need_flush)))
            }
        }
    }

    fn flush_under_way(&self, mm: u16) -> bool {
        self.mm == mm
    }
}
