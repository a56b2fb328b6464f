//! `mm/page-writeback.c` and the writeback flusher (`fs/fs-writeback.c`): dirty file
//! pages are cleaned and their content written to the file's backing store.
//!
//! Follows Linux v4.9 (the version of the mremap race, 5d1904204c99), unchanged in
//! substance through v5.12: the flusher kernel thread runs `wb_workfn` → `wb_writeback`
//! → `writeback_sb_inodes` → `do_writepages` → `write_cache_pages`. A periodic pass
//! (`wb_check_old_data_flush`, every `dirty_writeback_interval` while anything is dirty)
//! is `for_kupdate`: it takes only the files whose `dirtied_when` (set by
//! [`set_page_dirty`] when a clean file becomes dirty) is `dirty_expire_interval` old, and
//! a file still dirty after its pass keeps that time (`requeue_inode` → `redirty_tail`
//! with no newer inode queued), so a file written all the time is written at every pass
//! once it has expired. Then `write_cache_pages`, for each dirty
//! page of a file: `lock_page`; `clear_page_dirty_for_io` (→ `page_mkclean`: every PTE
//! mapping the page is write-protected and cleaned, with `ptep_clear_flush`, so the
//! next store faults and dirties the page again; then `TestClearPageDirty`);
//! `set_page_writeback`; `unlock_page`; the I/O copies the page to the file; at its
//! completion `end_page_writeback`.
//!
//! Content is a version number per frame that every user store bumps
//! ([`user_access`]), and the backing store keeps the version last written out, so a
//! store that never reaches the file is *detected* when the page is dropped
//! (`mm/truncate.rs`), not asserted. Left out: inodes beyond their `dirtied_when` (kept
//! on the file's rmap root), the per-bdi lists and their ordering (pages are visited file
//! by file, offset by offset; a file redirtied after its pass keeps its time, as
//! `redirty_tail` does when no newer inode is queued), background writeback over the dirty
//! thresholds, dirty throttling (`balance_dirty_pages`), the I/O itself (one cost, completion at once), and
//! `WB_SYNC_ALL` waiting: a locked page is skipped, as `WB_SYNC_NONE` background
//! writeback does with a page under writeback.

use crate::core::{Flow, LockId, Ret, Until};
use crate::engine::{say, Sim, NO_PAGE};
use crate::machine::{pg, Doom, Pte, RmapKind, TlbEntry};
use crate::mech::core::ev as core_ev;
use crate::mech::core::{MIGRATION_STALE_STORES, TLB_FLUSH_OUTLIVED, TLB_OLD_FRAME_STORES, TLB_STALE_READS, TLB_USE_AFTER_FREE};
use crate::mech::core::{PTE_WRITE_NS, PTL_NS};
use crate::mech::writeback::ev as wb_ev;
use crate::mech::writeback::{
    DIRTY_EXPIRE_NS, DIRTY_WRITEBACK_NS, NR_DIRTIED, NR_WRITTEN, PAGES_CLEANED, STALE_TLB_ACCESSES, STALE_TLB_STORES, WRITEOUT_NS,
};
use crate::mm::memory::lock_wait;
use crate::mm::pgtable_generic::PtepClearFlush;
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// A user access by `cpu` through a TLB entry (`via`) or after a page walk (`None`): a
/// store bumps the frame's content version. An access whose TLB entry no longer matches the
/// page table (the PTE is gone or names another frame) is a stale-TLB access; what it did
/// decides which finding it is (the interleaving explorer's, counted so that any run shows
/// them):
/// - the frame was freed since the entry was cached: a use after free (`tlb_use_after_free`);
/// - the frame is under migration (isolated, unmapped by `try_to_unmap`) and this is a
///   store: the copy may miss it (`migration_stale_stores`);
/// - the PTE maps another frame now: a store is lost to the page (`tlb_old_frame_stores`), a
///   load that finds other data than the page's frame holds is a stale read
///   (`tlb_stale_reads`);
/// - else (the PTE is gone and the frame still holds the page, as while mremap moves it):
///   only `stale_tlb_stores`.
///
/// Apart from that, an entry that a completed flush covered and that was left cached on a
/// lazy CPU counts `tlb_flush_outlived` at its first use. Returns what the finding was, for
/// the event's text.
#[inline]
pub fn user_access(sim: &mut Sim, cpu: CpuId, mm: u16, vpn: u32, pfn: u32, write: bool, via: Option<TlbEntry>) -> Option<String> {
    let mut said = None;
    if let Some(e) = via {
        if e.doomed == Doom::Owed {
            sim.st.counters.inc(TLB_FLUSH_OUTLIVED);
            sim.st.cpus[cpu as usize].tlb.set_counted(mm, vpn);
            said = Some(say!(
                sim,
                "the entry outlived a flush that covered it and returned (tlb_flush_outlived)"
            ));
        }
        let pte = sim.st.mms[mm as usize].pte(vpn);
        if !(pte.hw_present() && pte.pfn() == pfn) {
            sim.st.counters.inc(STALE_TLB_ACCESSES);
            if write {
                sim.st.counters.inc(STALE_TLB_STORES);
            }
            let page = *sim.st.frames.get(pfn);
            let finding = if sim.st.frames.owner_gen(pfn) != e.frame_gen {
                sim.st.counters.inc(TLB_USE_AFTER_FREE);
                let now = if page.has(pg::FREE) { "is free" } else { "belongs to another page" };
                say!(
                    sim,
                    "the TLB entry is stale and pfn {pfn} was freed since it was cached: it {now} (tlb_use_after_free)"
                )
            } else if write && page.has(pg::ISOLATED) {
                sim.st.counters.inc(MIGRATION_STALE_STORES);
                say!(
                    sim,
                    "the TLB entry is stale and pfn {pfn} is under migration: the copy may miss this store (migration_stale_stores)"
                )
            } else if pte.hw_present() {
                let now = pte.pfn();
                if write {
                    sim.st.counters.inc(TLB_OLD_FRAME_STORES);
                    say!(sim, "the TLB entry is stale: the page is pfn {now} now, so the data lands in the old pfn {pfn} and is lost (tlb_old_frame_stores)")
                } else if sim.st.frames.content(now) != sim.st.frames.content(pfn) {
                    sim.st.counters.inc(TLB_STALE_READS);
                    say!(sim, "the TLB entry is stale: the page is pfn {now} now, with newer data than the old pfn {pfn} this load reads (tlb_stale_reads)")
                } else {
                    say!(sim, "the TLB entry is stale (the page table maps another frame with the same data)")
                }
            } else {
                say!(sim, "the TLB entry is stale: the PTE is no longer present")
            };
            said = Some(match said {
                Some(s) => say!(sim, "{s}; {finding}"),
                None => finding,
            });
        }
    }
    if write {
        let v = sim.st.frames.content(pfn).wrapping_add(1);
        sim.st.frames.set_content(pfn, v);
    }
    // Counters-only runs build no text (and allocate nothing per step).
    said.filter(|_| sim.recording)
}

/// `account_page_dirtied`: a file page became dirty (`nr_dirtied`). With periodic
/// writeback on (`dirty_writeback_centisecs`), the first dirtying wakes the flusher,
/// which waits one interval first (`wb_wakeup_delayed`).
pub fn account_page_dirtied(sim: &mut Sim) {
    sim.st.counters.inc(NR_DIRTIED);
    if sim.cfg.knobs.get(DIRTY_WRITEBACK_NS).is_some() {
        if let Some(t) = flusher_task(sim) {
            let now = sim.now();
            crate::kernel::sched::core::wake_up_process(sim, now, t);
        }
    }
}

/// `set_page_dirty(page)`: the page is dirty; a file page's file becomes dirty too
/// (`__mark_inode_dirty`), and if it was clean its `dirtied_when` is now.
pub fn set_page_dirty(sim: &mut Sim, pfn: u32) {
    let now = sim.now();
    let page = sim.st.frames.get_mut(pfn);
    page.flags |= pg::DIRTY;
    if page.has(pg::FILE) {
        let root = page.mapping as usize;
        if let Some(r) = sim.st.roots.get_mut(root) {
            r.dirtied_when.get_or_insert(now);
        }
    }
}

/// Setup: files with pages dirty at the start became dirty at time 0; with periodic
/// writeback on, wake the flusher so its first interval starts now.
pub fn dirty_at_start(sim: &mut Sim) {
    for root in 0..sim.st.roots.len() {
        if file_has_dirty_pages(sim, root) {
            sim.st.roots[root].dirtied_when = Some(0);
        }
    }
    if sim.cfg.knobs.get(DIRTY_WRITEBACK_NS).is_some() && next_dirty(sim, 0, 0, EVERY_FILE).is_some() {
        if let Some(t) = flusher_task(sim) {
            crate::kernel::sched::core::wake_up_process(sim, 0, t);
        }
    }
}

/// The flusher kernel thread's task index.
pub fn flusher_task(sim: &Sim) -> Option<u16> {
    sim.st
        .tasks
        .iter()
        .position(|t| t.kind == crate::machine::TaskKind::Kernel(crate::machine::KthreadKind::Flusher))
        .map(|i| i as u16)
}

/// Whether any page of file `root` is dirty.
fn file_has_dirty_pages(sim: &Sim, root: usize) -> bool {
    sim.st.roots.get(root).is_some_and(|r| r.kind == RmapKind::File)
        && sim.st.page_cache[root]
            .iter()
            .any(|&pfn| pfn != NO_PAGE && sim.st.frames.get(pfn).has(pg::DIRTY))
}

/// A pass that writes every dirty file (`WbWorkfn::dirtied_before`).
const EVERY_FILE: u64 = u64::MAX;

/// The next dirty file page at or after `(root, index)`, not under writeback, in a file
/// that became dirty before `dirtied_before` (a periodic pass: `move_expired_inodes`
/// takes the files dirty for `dirty_expire_interval` or longer; [`EVERY_FILE`]: all).
fn next_dirty(sim: &Sim, mut root: usize, mut index: usize, dirtied_before: u64) -> Option<(usize, usize, u32)> {
    while root < sim.st.roots.len() {
        let expired = || dirtied_before == EVERY_FILE || sim.st.roots[root].dirtied_when.is_some_and(|w| w < dirtied_before);
        if sim.st.roots[root].kind == RmapKind::File && expired() {
            let cache = &sim.st.page_cache[root];
            while index < cache.len() {
                let pfn = cache[index];
                if pfn != NO_PAGE {
                    let p = sim.st.frames.get(pfn);
                    if p.has(pg::DIRTY) && !p.has(pg::WRITEBACK) {
                        return Some((root, index, pfn));
                    }
                }
                index += 1;
            }
        }
        root += 1;
        index = 0;
    }
    None
}

/// What the flusher does when woken, or when its work returns (`Mechanism::kthreads`):
/// `wb_workfn` if a file page is dirty, after an interval when periodic writeback is on
/// (`wb_workfn` re-arms `wb_wakeup_delayed` only while `wb_has_dirty_io`); otherwise it
/// sleeps until the next dirtying wakes it.
pub fn flusher_work(sim: &mut Sim, _task: u16) -> Option<Frame> {
    let periodic = sim.cfg.knobs.get(DIRTY_WRITEBACK_NS).is_some();
    next_dirty(sim, 0, 0, EVERY_FILE).is_some().then(|| {
        Frame::from(WbWorkfn {
            root: 0,
            index: 0,
            pfn: NO_PAGE,
            written: 0,
            dirtied_before: EVERY_FILE,
            pc: if periodic { Wb::Delay } else { Wb::Next },
        })
    })
}

/// `requeue_inode` for the files `from..to` a pass has gone past: a file with no dirty
/// page left is clean (its next dirtying starts a new `dirtied_when`); one dirtied again
/// meanwhile keeps its time, so the next periodic pass writes it again.
fn inodes_done(sim: &mut Sim, from: usize, to: usize) {
    for root in from..to.min(sim.st.roots.len()) {
        if !file_has_dirty_pages(sim, root) {
            sim.st.roots[root].dirtied_when = None;
        }
    }
}

/// Where `wb_workfn` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wb {
    /// WB0: `wb_wakeup_delayed`: wait one `dirty_writeback_interval`.
    Delay,
    /// WB1: the next dirty page: `lock_page`, `clear_page_dirty_for_io`.
    Next,
    /// Waiting for `clear_page_dirty_for_io`.
    Cleaning,
    /// WB3: `set_page_writeback`, `unlock_page`, submit the write.
    Submit,
    /// WB4: the I/O completes: `end_page_writeback`.
    End,
}

/// `wb_workfn` → `write_cache_pages` over every file's dirty pages (background
/// writeback, `WB_SYNC_NONE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WbWorkfn {
    root: usize,
    index: usize,
    pfn: u32,
    written: u32,
    /// The files this pass writes: those that became dirty before this time (a periodic
    /// pass: its own time less `dirty_expire_interval`, plus one), or [`EVERY_FILE`].
    dirtied_before: u64,
    pc: Wb,
}

impl Function for WbWorkfn {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "wb_workfn";
        match self.pc {
            Wb::Delay => {
                self.pc = Wb::Next;
                let ns = sim.cfg.knobs.get(DIRTY_WRITEBACK_NS).unwrap_or(0);
                let expire = sim.cfg.knobs.get(DIRTY_EXPIRE_NS).unwrap_or(0);
                let until = sim.clock(cpu) + ns;
                self.dirtied_before = (until + 1).saturating_sub(expire);
                let ev = Ev::new(wb_ev::WRITEBACK, F, "WB0").say(say!(
                    sim,
                    "File pages are dirty: the flusher's work is queued dirty_writeback_interval ({} ms) later (wb_wakeup_delayed); it sleeps until then, and then writes the files dirty for dirty_expire_interval ({} ms) or longer",
                    ns / 1_000_000,
                    expire / 1_000_000
                ));
                (ev, Flow::Block(Until::Sleep(until)))
            }
            Wb::Next => {
                let Some((root, index, pfn)) = next_dirty(sim, self.root, self.index, self.dirtied_before) else {
                    inodes_done(sim, self.root, sim.st.roots.len());
                    let ev = Ev::new(core_ev::RETURN, F, "WB5").say(say!(
                        sim,
                        "{}: wb_workfn returns ({} page(s) written)",
                        if self.dirtied_before != EVERY_FILE {
                            "No dirty page of an expired file is left"
                        } else {
                            "No dirty file page is left"
                        },
                        self.written
                    ));
                    return (ev, Flow::Return(Ret::Unit));
                };
                inodes_done(sim, self.root, root);
                (self.root, self.index, self.pfn) = (root, index, pfn);
                if sim.st.frames.get(pfn).has(pg::LOCKED) {
                    // WB_SYNC_NONE: a page someone else holds is left for a later pass.
                    self.index += 1;
                    let ev = Ev::new(wb_ev::WRITEBACK, F, "WB1").pfn(pfn).say(say!(
                        sim,
                        "write_cache_pages: pfn {pfn} (offset {index}) is locked by someone else: background writeback skips it"
                    ));
                    return (ev, Flow::Continue);
                }
                sim.st.frames.get_mut(pfn).flags |= pg::LOCKED;
                self.pc = Wb::Cleaning;
                let ev = Ev::new(wb_ev::WRITEBACK, F, "WB1").pfn(pfn).say(say!(
                    sim,
                    "write_cache_pages: pfn {pfn} (file offset {index}) is dirty: lock_page, then clear_page_dirty_for_io"
                ));
                (ev, Flow::Call(Frame::from(ClearPageDirtyForIo::new(pfn))))
            }
            Wb::Cleaning => {
                // Never reached: `resume` moves on when clear_page_dirty_for_io returns.
                self.pc = Wb::Submit;
                self.step(sim, cpu)
            }
            Wb::Submit => {
                let pfn = self.pfn;
                sim.st.frames.get_mut(pfn).flags |= pg::WRITEBACK;
                sim.unlock_page(cpu, pfn);
                sim.charge(cpu, sim.cfg.costs[WRITEOUT_NS]);
                // The I/O reads the page now: what reaches the file is its content at this moment.
                let v = sim.st.frames.content(pfn);
                let b = &mut sim.st.backing;
                if b.len() <= self.root {
                    b.resize(self.root + 1, Vec::new());
                }
                if b[self.root].len() <= self.index {
                    b[self.root].resize(self.index + 1, 0);
                }
                b[self.root][self.index] = v;
                self.pc = Wb::End;
                let ev = Ev::new(wb_ev::WRITEOUT, F, "WB3").pfn(pfn).say(say!(
                    sim,
                    "set_page_writeback; unlock_page; the write I/O copies pfn {pfn} (content version {v}) to file offset {}",
                    self.index
                ));
                (ev, Flow::Continue)
            }
            Wb::End => {
                let pfn = self.pfn;
                sim.st.frames.get_mut(pfn).flags &= !pg::WRITEBACK;
                sim.st.counters.inc(NR_WRITTEN);
                self.written += 1;
                self.index += 1;
                self.pc = Wb::Next;
                let ev = Ev::new(wb_ev::WRITEBACK, F, "WB4").pfn(pfn).say(say!(
                    sim,
                    "The I/O completes: end_page_writeback (nr_written); the file holds what the page held when it was cleaned"
                ));
                (ev, Flow::Continue)
            }
        }
    }

    fn resume(&mut self, sim: &mut Sim, _task: u16, r: Ret) {
        match (self.pc, r) {
            (Wb::Cleaning, Ret::Bool(true)) => self.pc = Wb::Submit,
            (Wb::Cleaning, _) => {
                // Nothing to write after all (someone else cleaned it): unlock and go on.
                let pfn = self.pfn;
                sim.st.frames.get_mut(pfn).flags &= !pg::LOCKED;
                self.index += 1;
                self.pc = Wb::Next;
            }
            (_, Ret::Woken) => self.pc = Wb::Next,
            _ => {}
        }
    }
}

/// `clear_page_dirty_for_io(page)`: `page_mkclean` (a cleaned dirty PTE makes the page
/// dirty: `set_page_dirty`), then `TestClearPageDirty`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClearPageDirtyForIo {
    pfn: u32,
    called: bool,
}

impl ClearPageDirtyForIo {
    fn new(pfn: u32) -> Self {
        ClearPageDirtyForIo { pfn, called: false }
    }
}

impl Function for ClearPageDirtyForIo {
    /// One line.
    fn step(&mut self, sim: &mut Sim, _cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "clear_page_dirty_for_io";
        let pfn = self.pfn;
        if !self.called {
            self.called = true;
            let ev = Ev::new(core_ev::CALL, F, "CD1").pfn(pfn).say(say!(
                sim,
                "clear_page_dirty_for_io: page_mkclean(pfn {pfn}) write-protects and cleans every PTE that maps it, so that the next store faults and dirties the page again"
            ));
            return (ev, Flow::Call(Frame::from(PageMkclean { pfn, i: 0, cleaned: 0 })));
        }
        let was = sim.st.frames.get(pfn).has(pg::DIRTY);
        sim.st.frames.get_mut(pfn).flags &= !pg::DIRTY;
        let ev = Ev::new(wb_ev::WRITEBACK, F, "CD2").pfn(pfn).say(say!(
            sim,
            "TestClearPageDirty(pfn {pfn}): the page is clean now; {}",
            if was {
                "it goes to the write"
            } else {
                "it was not dirty: nothing to write"
            }
        ));
        (ev, Flow::Return(Ret::Bool(was)))
    }
}

/// `page_mkclean(page)`: an rmap walk (`rmap_walk_file` over the file's `i_mmap`) calling
/// `page_mkclean_one` for every VMA that may map the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageMkclean {
    pfn: u32,
    i: u16,
    cleaned: u16,
}

impl Function for PageMkclean {
    /// One line: the next VMA that covers the page, or return.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "page_mkclean";
        let page = *sim.st.frames.get(self.pfn);
        let root = page.mapping as usize;
        while let Some(&(mm, vi)) = sim.st.roots.get(root).and_then(|r| r.vmas.get(self.i as usize)) {
            self.i += 1;
            let vma = &sim.st.mms[mm as usize].vmas[vi as usize];
            let Some(vpn) = vma.address_of(&page) else { continue };
            sim.charge(cpu, sim.cfg.costs[crate::mech::core::RMAP_WALK_NS]);
            let pid = sim.st.mms[mm as usize].pid;
            let ev = Ev::new(core_ev::CALL, F, "MK1").pte(pid, vpn).pfn(self.pfn).say(say!(
                sim,
                "rmap walk: the file's i_mmap says mm {pid} may map pfn {} at {vpn:#x}: page_mkclean_one",
                self.pfn
            ));
            return (ev, Flow::Call(Frame::from(PageMkcleanOne::new(mm, vpn, self.pfn))));
        }
        if self.cleaned > 0 {
            // A cleaned dirty PTE moves its dirtiness to the page (set_page_dirty).
            set_page_dirty(sim, self.pfn);
        }
        let ev = Ev::new(core_ev::RETURN, F, "MK2").pfn(self.pfn).say(say!(
            sim,
            "page_mkclean: the rmap walk is done, {} PTE(s) cleaned. A CPU that still caches a translation the walk could not find (an old address whose flush is pending) can still store to the page without a fault",
            self.cleaned
        ));
        (ev, Flow::Return(Ret::Count(u32::from(self.cleaned))))
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if r.as_bool() {
            self.cleaned += 1;
        }
    }
}

/// Where `page_mkclean_one` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mk {
    /// MC1: `page_vma_mapped_walk` under the PTE lock.
    Lock,
    /// Waiting for `ptep_clear_flush`.
    Cleared,
    /// MC3: write the clean, read-only PTE; unlock.
    Set,
}

/// `page_mkclean_one(page, vma, address)`: if the PTE is dirty or writable,
/// `ptep_clear_flush` (flushing every CPU that may cache it), then a write-protected,
/// clean PTE in its place, under the PTE lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageMkcleanOne {
    mm: u16,
    vpn: u32,
    pfn: u32,
    old: Pte,
    pc: Mk,
}

impl PageMkcleanOne {
    fn new(mm: u16, vpn: u32, pfn: u32) -> Self {
        PageMkcleanOne {
            mm,
            vpn,
            pfn,
            old: Pte::NONE,
            pc: Mk::Lock,
        }
    }
}

impl Function for PageMkcleanOne {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "page_mkclean_one";
        let (mm, vpn, pfn) = (self.mm, self.vpn, self.pfn);
        let pid = sim.st.mms[mm as usize].pid;
        let id = LockId::ptl(mm, vpn);
        match self.pc {
            Mk::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    return lock_wait(sim, cpu, id, F, "MC1");
                }
                let pte = sim.st.mms[mm as usize].pte(vpn);
                if !pte.hw_present() || pte.pfn() != pfn || !(pte.dirty() || pte.write()) {
                    sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                    let why = if !pte.hw_present() || pte.pfn() != pfn {
                        "does not map the page there (any more)"
                    } else {
                        "maps it clean and read-only already"
                    };
                    let ev = Ev::new(core_ev::PTL_LOCK, F, "MC1")
                        .pte(pid, vpn)
                        .say(say!(sim, "page_vma_mapped_walk: mm {pid} {why} at {vpn:#x}: nothing to clean"));
                    return (ev, Flow::Return(Ret::Bool(false)));
                }
                self.pc = Mk::Cleared;
                let ev = Ev::new(core_ev::CALL, F, "MC2").pte(pid, vpn).pfn(pfn).say(say!(
                    sim,
                    "The PTE at {vpn:#x} is {}: under its PTE lock, entry = ptep_clear_flush(vma, {vpn:#x})",
                    if pte.dirty() { "dirty" } else { "writable" }
                ));
                (ev, Flow::Call(PtepClearFlush::frame(mm, vpn, pfn)))
            }
            Mk::Cleared | Mk::Set => {
                let old = self.old;
                sim.st.mms[mm as usize].set_pte(vpn, Pte::present(pfn, false, false, old.accessed()));
                sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                sim.st.counters.inc(PAGES_CLEANED);
                let ev =
                    Ev::new(wb_ev::MKCLEAN, F, "MC3").pte(pid, vpn).pfn(pfn).say(say!(
                    sim,
                    "set_pte_at: {vpn:#x} maps pfn {pfn} write-protected and clean (pte_wrprotect, pte_mkclean); the PTE lock is dropped{}",
                    if old.dirty() { "; the PTE was dirty, so the page stays dirty for this write" } else { "" }
                ));
                (ev, Flow::Return(Ret::Bool(old.dirty())))
            }
        }
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if let Ret::Pte(p) = r {
            self.old = p;
        }
        self.pc = Mk::Set;
    }

    fn unmapping(&self) -> Option<u32> {
        // Between ptep_clear_flush and set_pte_at the PTE is none while the page stays
        // mapped (mapcount unchanged).
        (self.pc != Mk::Lock).then_some(self.pfn)
    }

    fn flush_under_way(&self, mm: u16) -> bool {
        self.mm == mm && self.pc != Mk::Lock
    }
}

/// `wakeup_flusher_threads` (what `sync(2)` and `fsync` start with): wake the flusher now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WakeupFlusherThreads;

impl Function for WakeupFlusherThreads {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let now = sim.clock(cpu);
        let woke = flusher_task(sim).is_some_and(|t| crate::kernel::sched::core::wake_up_process(sim, now, t));
        let ev = Ev::new(wb_ev::WRITEBACK, "wakeup_flusher_threads", "WF1").say(say!(
            sim,
            "wakeup_flusher_threads: {}",
            if woke {
                "the flusher (kworker/flush) is woken to write dirty file pages back"
            } else {
                "the flusher is already awake"
            }
        ));
        (ev, Flow::Return(Ret::Unit))
    }
}

/// Writeback's workload operations.
pub const OPS: &[crate::scenario::OpDef] = &[
    crate::scenario::OpDef {
        name: "wakeup_flusher",
        doc: "Wake the writeback flusher now (wakeup_flusher_threads, as sync(2) starts): it cleans every dirty file page (page_mkclean) and writes it to the file.",
        args: &[],
        run: crate::scenario::OpRun::Call {
            start: |_| Frame::from(WakeupFlusherThreads),
            says: "wakes the writeback flusher (wakeup_flusher_threads)",
        },
    },
    crate::scenario::OpDef {
        name: "fadvise_dontneed",
        doc: "posix_fadvise(POSIX_FADV_DONTNEED) on a file VMA's file: invalidate_mapping_pages drops every clean, unmapped, unlocked page from the page cache. A dropped page whose content differs from what the file holds is a lost write.",
        args: &[crate::scenario::ArgDef::required(
            "vma",
            crate::scenario::ArgKind::Vma,
            "Name of a file VMA of this process (its file).",
        )],
        run: crate::scenario::OpRun::Call {
            start: |a| crate::mm::truncate::InvalidateMappingPages::frame(a[0] as u16),
            says: "calls posix_fadvise(FADV_DONTNEED): clean pages leave the page cache",
        },
    },
];

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // reason: a test may stop at the first surprise
    use super::*;
    use crate::patches::ToggleSet;

    /// One thread that touched two heap pages; returns the sim and its first page's vpn.
    fn sim() -> (Sim, u32) {
        let text = crate::testkit::TestScenario::new()
            .tlb_entries(8)
            .node("cpus = [0]\nmem_pages = 16")
            .heap_process(2, &[(0, r#"[{ op = "touch", vma = "heap" }, { op = "compute", ns = 100000 }]"#)])
            .text();
        let s = crate::scenario::parse(&text, &[]).unwrap();
        let mut sim = Sim::new(&s, &ToggleSet::default(), false);
        while sim.st.cpus[0].tlb.entries().count() < 2 {
            sim.step().unwrap();
        }
        let vpn = sim.st.mms[0].vmas[0].start;
        (sim, vpn)
    }

    fn count(sim: &Sim) -> [u64; 5] {
        [
            sim.st.counters.get(TLB_USE_AFTER_FREE),
            sim.st.counters.get(TLB_OLD_FRAME_STORES),
            sim.st.counters.get(TLB_STALE_READS),
            sim.st.counters.get(MIGRATION_STALE_STORES),
            sim.st.counters.get(STALE_TLB_STORES),
        ]
    }

    #[test]
    fn a_current_entry_is_no_finding() {
        let (mut sim, vpn) = sim();
        let e = sim.st.cpus[0].tlb.lookup(0, vpn).unwrap();
        assert!(user_access(&mut sim, 0, 0, vpn, e.pfn, true, Some(e)).is_none());
        assert_eq!(count(&sim), [0; 5]);
    }

    #[test]
    fn a_stale_entry_to_a_freed_frame_is_a_use_after_free() {
        let (mut sim, vpn) = sim();
        let e = sim.st.cpus[0].tlb.lookup(0, vpn).unwrap();
        sim.st.mms[0].set_pte(vpn, Pte::NONE);
        crate::mm::page_alloc::free_page_now(&mut sim, e.pfn);
        user_access(&mut sim, 0, 0, vpn, e.pfn, true, Some(e));
        assert_eq!(count(&sim), [1, 0, 0, 0, 1]);
        user_access(&mut sim, 0, 0, vpn, e.pfn, false, Some(e));
        assert_eq!(count(&sim)[0], 2, "a load counts too");
    }

    #[test]
    fn a_stale_entry_to_a_replaced_frame_loses_stores_and_reads_old_data() {
        let (mut sim, vpn) = sim();
        let e = sim.st.cpus[0].tlb.lookup(0, vpn).unwrap();
        // The page now lives in the second page's frame (as after a migration or a COW).
        let other = sim.st.mms[0].pte(vpn + 1);
        sim.st.mms[0].set_pte(vpn, other);
        user_access(&mut sim, 0, 0, vpn, e.pfn, true, Some(e));
        assert_eq!(count(&sim), [0, 1, 0, 0, 1]);
        // The old frame now holds a newer version than the page's frame: a load reads it,
        // not what the page holds.
        user_access(&mut sim, 0, 0, vpn, e.pfn, false, Some(e));
        assert_eq!(count(&sim), [0, 1, 1, 0, 1]);
    }

    #[test]
    fn a_stale_store_into_a_page_under_migration_is_a_finding() {
        let (mut sim, vpn) = sim();
        let e = sim.st.cpus[0].tlb.lookup(0, vpn).unwrap();
        sim.st.mms[0].set_pte(vpn, Pte::NONE);
        sim.st.frames.get_mut(e.pfn).flags |= pg::ISOLATED;
        user_access(&mut sim, 0, 0, vpn, e.pfn, true, Some(e));
        assert_eq!(count(&sim), [0, 0, 0, 1, 1]);
    }

    #[test]
    fn a_stale_store_to_the_page_itself_is_only_stale() {
        // mremap moved the PTE away; the frame still holds the page.
        let (mut sim, vpn) = sim();
        let e = sim.st.cpus[0].tlb.lookup(0, vpn).unwrap();
        sim.st.mms[0].set_pte(vpn, Pte::NONE);
        user_access(&mut sim, 0, 0, vpn, e.pfn, true, Some(e));
        assert_eq!(count(&sim), [0, 0, 0, 0, 1]);
    }
}
