//! `mm/truncate.c`: `invalidate_mapping_pages`, what `posix_fadvise(POSIX_FADV_DONTNEED)`
//! calls (`mm/fadvise.c`) to drop a file's clean pages from the page cache.
//!
//! Follows Linux v4.9: each page is trylocked; a dirty page, a page under writeback or
//! a mapped page is left alone (`invalidate_inode_page` → `invalidate_complete_page`);
//! the others leave the page cache and are freed. Here, dropping a page is also where a
//! lost write is *detected*: the page is clean, so the kernel will never write it again,
//! and if its content differs from what the file's backing store holds, a store reached
//! the page after it was cleaned without dirtying it (a stale writable TLB entry: the
//! mremap race of 5d1904204c99). Left out: `FADV_DONTNEED`'s initial
//! `__filemap_fdatawrite_range` (it starts writeback of dirty pages first; here the
//! flusher does that), LRU draining and the page-cache radix tree's tags.

use crate::core::{Flow, Ret};
use crate::engine::{say, Sim, NO_PAGE};
use crate::machine::pg;
use crate::mech::core::ev as core_ev;
use crate::mech::writeback::ev as wb_ev;
use crate::mech::writeback::{LATENT_LOST_WRITES, LOST_WRITES, PAGES_INVALIDATED};
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// `invalidate_mapping_pages(mapping, 0, -1)` over the file a VMA maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidateMappingPages {
    vma: u16,
    index: u32,
    dropped: u32,
}

impl InvalidateMappingPages {
    /// Drop the clean pages of the file VMA `vma` of the caller's mm maps.
    pub fn frame(vma: u16) -> Frame {
        Frame::from(InvalidateMappingPages { vma, index: 0, dropped: 0 })
    }
}

impl Function for InvalidateMappingPages {
    /// One line: the next cached page of the file.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "invalidate_mapping_pages";
        let mm = sim.cpu_mm(cpu);
        let Some(v) = sim.st.mms[mm as usize].vmas.get(self.vma as usize) else {
            let ev = Ev::new(core_ev::RETURN, F, "IV4").say(say!(sim, "No such VMA: nothing to invalidate"));
            return (ev, Flow::Return(Ret::Unit));
        };
        let root = v.rmap_root as usize;
        if sim.st.roots.get(root).is_none_or(|r| r.kind != crate::machine::RmapKind::File) {
            let ev = Ev::new(core_ev::RETURN, F, "IV4").say(say!(
                sim,
                "posix_fadvise on an anonymous mapping: there is no page cache to invalidate (ESPIPE)"
            ));
            return (ev, Flow::Return(Ret::Unit));
        }
        let cache = &sim.st.page_cache[root];
        let next = (self.index as usize..cache.len()).find(|&i| cache[i] != NO_PAGE);
        let Some(i) = next else {
            let ev = Ev::new(core_ev::RETURN, F, "IV4").say(say!(
                sim,
                "invalidate_mapping_pages is done: {} page(s) dropped from the page cache",
                self.dropped
            ));
            return (ev, Flow::Return(Ret::Unit));
        };
        self.index = i as u32 + 1;
        let pfn = cache[i];
        let page = *sim.st.frames.get(pfn);
        if !droppable(&page) {
            let why = if page.mapcount > 0 {
                "still mapped"
            } else if page.has(pg::LOCKED) {
                "locked"
            } else {
                "dirty or under writeback"
            };
            let ev = Ev::new(wb_ev::INVALIDATE, F, "IV1")
                .pfn(pfn)
                .say(say!(sim, "File offset {i} (pfn {pfn}) is {why}: it stays in the page cache"));
            return (ev, Flow::Continue);
        }
        let stored = sim.st.frames.content(pfn);
        let on_file = on_file(sim, root, i);
        sim.st.page_cache[root][i] = NO_PAGE;
        crate::mm::page_alloc::free_page_now(sim, pfn);
        sim.st.frames.set_content(pfn, 0);
        sim.st.counters.inc(PAGES_INVALIDATED);
        self.dropped += 1;
        if stored != on_file {
            sim.st.counters.inc(LOST_WRITES);
            let ev = Ev::new(wb_ev::LOST_WRITE, F, "IV3").pfn(pfn).say(say!(
                sim,
                "LOST WRITE: file offset {i} (pfn {pfn}) is clean, so it is dropped, but it holds content version {stored} while the file holds version {on_file}: a store reached the page after page_mkclean cleaned it, without dirtying it, and will never be written"
            ));
            return (ev, Flow::Continue);
        }
        let ev = Ev::new(wb_ev::INVALIDATE, F, "IV2").pfn(pfn).say(say!(
            sim,
            "File offset {i} (pfn {pfn}) is clean and unmapped, and the file holds what it holds (version {stored}): it leaves the page cache and is freed"
        ));
        (ev, Flow::Continue)
    }
}

/// Whether `invalidate_mapping_pages` may drop a cached page (v4.9 `invalidate_inode_page`
/// via `invalidate_mapping_pages`: it skips a page that is mapped, dirty, under writeback
/// or locked).
pub fn droppable(page: &crate::machine::Page) -> bool {
    page.mapcount == 0 && !page.has(pg::DIRTY) && !page.has(pg::WRITEBACK) && !page.has(pg::LOCKED)
}

/// The content version the file holds at offset `i` of file `root` (0: never written).
fn on_file(sim: &Sim, root: usize, i: usize) -> u32 {
    sim.st.backing.get(root).and_then(|b| b.get(i)).copied().unwrap_or(0)
}

/// File pages a run ends with that hold data their file never got and that nothing will
/// write: cached pages [`droppable`] as they are (mapped by no PTE, so no dirty bit is left
/// to move to the page; clean; not under writeback) whose content is not the file's — what
/// [`InvalidateMappingPages`] counts as a lost write when it drops one, checked where the
/// run stops instead. `(file offset, pfn, version held, version on file)`.
pub fn latent_lost_writes(sim: &Sim) -> Vec<(usize, u32, u32, u32)> {
    let st = &sim.st;
    let mut out = Vec::new();
    for (root, cache) in st.page_cache.iter().enumerate() {
        for (i, &pfn) in cache.iter().enumerate() {
            if pfn == NO_PAGE || !droppable(st.frames.get(pfn)) {
                continue;
            }
            let held = st.frames.content(pfn);
            let file = on_file(sim, root, i);
            if held != file {
                out.push((i, pfn, held, file));
            }
        }
    }
    out
}

/// At a run's last step: counts [`latent_lost_writes`] (`latent_lost_writes`), so that a run
/// that ends with a lost write nothing has dropped yet shows it too.
pub fn count_latent_lost_writes(sim: &mut Sim) {
    let n = latent_lost_writes(sim).len() as u64;
    if n > 0 {
        sim.st.counters.add(LATENT_LOST_WRITES, n);
    }
}
