//! Page frames (`struct page`, reduced to 16 bytes) and the frame array, kept in
//! copy-on-write chunks of 512 so that a checkpoint shares every chunk no step wrote.

use std::rc::Rc;

/// Page flag bits (`PG_*` and the model's own states).
pub mod pg {
    /// On the buddy free list (`PageBuddy`).
    pub const FREE: u16 = 1;
    /// On an LRU list (`PG_lru`): isolatable.
    pub const LRU: u16 = 1 << 1;
    /// Isolated from the LRU for migration.
    pub const ISOLATED: u16 = 1 << 2;
    /// `PG_locked`.
    pub const LOCKED: u16 = 1 << 3;
    /// `PG_dirty`.
    pub const DIRTY: u16 = 1 << 4;
    /// File-backed (`page->mapping` is an address space, not an anon_vma).
    pub const FILE: u16 = 1 << 5;
    /// Destination of a migration in progress.
    pub const MIGRATE_DST: u16 = 1 << 6;
    /// `PG_writeback`.
    pub const WRITEBACK: u16 = 1 << 7;
    /// `PG_swapcache`.
    pub const SWAPCACHE: u16 = 1 << 8;
    /// Anonymous (`PageAnon`).
    pub const ANON: u16 = 1 << 9;
    /// `PG_referenced`.
    pub const REFERENCED: u16 = 1 << 10;
    /// `PG_active`.
    pub const ACTIVE: u16 = 1 << 11;
}

/// "No cpupid recorded" (`page_cpupid_last` of a fresh page).
pub const CPUPID_UNSET: u32 = u32::MAX;

/// "No mapping": `page->mapping == NULL`.
pub const NO_MAPPING: u16 = u16::MAX;

/// A page frame: 16 bytes. The node and zone follow from the pfn (frames are laid out
/// node after node), as with the kernel's section-based `page_to_nid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// `pg::*` bits.
    pub flags: u16,
    /// `_mapcount + 1`: how many PTEs map the page.
    pub mapcount: u16,
    /// `_refcount`.
    pub refcount: u16,
    /// `page->mapping`: an anon_vma id (with [`pg::ANON`]) or a file id (with
    /// [`pg::FILE`]), or [`NO_MAPPING`].
    pub mapping: u16,
    /// `page->index`: for anon pages the virtual page number (the anon VMA's `vm_pgoff`
    /// is its start), for file pages the offset in the file.
    pub index: u32,
    /// `page_cpupid_last`: `cpu_pid_to_cpupid` (the CPU above the low 8 bits of the thread's
    /// pid); [`CPUPID_UNSET`] when no hint fault recorded one.
    pub last_cpupid: u32,
}

impl Page {
    /// A free frame.
    pub const FREE: Page = Page {
        flags: pg::FREE,
        mapcount: 0,
        refcount: 0,
        mapping: NO_MAPPING,
        index: 0,
        last_cpupid: CPUPID_UNSET,
    };

    /// A frame just allocated: one reference (the allocator's), not mapped yet.
    pub const ALLOCATED: Page = Page {
        flags: 0,
        mapcount: 0,
        refcount: 1,
        mapping: NO_MAPPING,
        index: 0,
        last_cpupid: CPUPID_UNSET,
    };

    /// Tests a flag.
    #[inline]
    pub fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }
}

/// Frames per copy-on-write chunk.
pub const CHUNK: usize = 512;

/// Every frame of the machine, by pfn.
#[derive(Clone, Debug)]
pub struct Frames {
    chunks: Vec<Rc<[Page; CHUNK]>>,
    /// What each frame holds, as a version number that every user store bumps (so that a
    /// write that never reaches the file is detected by comparing versions with the
    /// backing store, `mm/page_writeback.rs`). Kept beside the 16-byte `Page`, in chunks
    /// of its own that checkpoints share the same way.
    content: Vec<Rc<[u32; CHUNK]>>,
    /// Each frame's owner generation: bumped every time the frame is freed, so that a TLB
    /// entry that cached the frame (with the generation of that moment) can tell whether
    /// the frame changed hands since (the interleaving explorer's use-after-free finding).
    owner: Vec<Rc<[u32; CHUNK]>>,
    len: u32,
}

impl Frames {
    /// `n` free frames.
    pub fn new(n: u32) -> Self {
        let chunks = (0..(n as usize).div_ceil(CHUNK)).map(|_| Rc::new([Page::FREE; CHUNK])).collect();
        // Each its own chunks: sharing one Rc between the two would make the first write to
        // either copy it.
        let content = (0..(n as usize).div_ceil(CHUNK)).map(|_| Rc::new([0; CHUNK])).collect();
        let owner = (0..(n as usize).div_ceil(CHUNK)).map(|_| Rc::new([0; CHUNK])).collect();
        Frames {
            chunks,
            content,
            owner,
            len: n,
        }
    }

    /// Number of frames.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether there are no frames.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The frame `pfn`.
    #[inline]
    pub fn get(&self, pfn: u32) -> &Page {
        &self.chunks[pfn as usize / CHUNK][pfn as usize % CHUNK]
    }

    /// The frame `pfn` for writing; copies its chunk first if a checkpoint shares it.
    #[inline]
    pub fn get_mut(&mut self, pfn: u32) -> &mut Page {
        &mut Rc::make_mut(&mut self.chunks[pfn as usize / CHUNK])[pfn as usize % CHUNK]
    }

    /// The content version of frame `pfn` (0 for a page never stored to).
    #[inline]
    pub fn content(&self, pfn: u32) -> u32 {
        self.content[pfn as usize / CHUNK][pfn as usize % CHUNK]
    }

    /// Sets the content version of frame `pfn` (a store, or a copy from another frame).
    #[inline]
    pub fn set_content(&mut self, pfn: u32, v: u32) {
        Rc::make_mut(&mut self.content[pfn as usize / CHUNK])[pfn as usize % CHUNK] = v;
    }

    /// The owner generation of frame `pfn` (how many times it was freed).
    #[inline]
    pub fn owner_gen(&self, pfn: u32) -> u32 {
        self.owner[pfn as usize / CHUNK][pfn as usize % CHUNK]
    }

    /// Frame `pfn` goes back to free memory: its owner generation moves on.
    #[inline]
    pub fn retire(&mut self, pfn: u32) {
        let g = &mut Rc::make_mut(&mut self.owner[pfn as usize / CHUNK])[pfn as usize % CHUNK];
        *g = g.wrapping_add(1);
    }

    /// `(pfn, page)` in order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Page)> + '_ {
        self.chunks
            .iter()
            .flat_map(|c| c.iter())
            .take(self.len as usize)
            .enumerate()
            .map(|(i, p)| (i as u32, p))
    }

    /// Chunks not shared with `other` (the memory a checkpoint costs on top of it).
    pub fn unshared_chunks(&self, other: &Frames) -> usize {
        self.chunks.iter().zip(&other.chunks).filter(|(a, b)| !Rc::ptr_eq(a, b)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Page>(), 16);
    }

    #[test]
    fn a_clone_shares_chunks_until_one_is_written() {
        let mut a = Frames::new(2048);
        let b = a.clone();
        assert_eq!(a.unshared_chunks(&b), 0);
        a.get_mut(600).flags = pg::LRU;
        assert_eq!(a.unshared_chunks(&b), 1);
        assert_eq!(b.get(600).flags, pg::FREE);
    }
}
