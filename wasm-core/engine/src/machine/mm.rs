//! Address spaces (`struct mm_struct`), their VMAs, and the two reverse-map roots:
//! anon_vmas for anonymous pages and address spaces (`struct address_space`) for file
//! pages, so that an rmap walk finds every (mm, address) that maps a page.

use super::access_index::AccessIndex;
use super::cpumask::CpuMask;
use super::page::{pg, Page};
use super::pgtable::PageTable;
use super::pte::Pte;
use std::rc::Rc;

/// Kind of a VMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VmaKind {
    /// Anonymous memory.
    Anon,
    /// File-backed (shared) mapping.
    File,
}

/// Filesystem of a file VMA: decides whether async migration can move a dirty page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fs {
    /// btrfs before v5.8: no `migratepage`, `fallback_migrate_page` refuses dirty pages (-EBUSY).
    BtrfsPre58,
    /// XFS: `buffer_migrate_page` moves dirty pages.
    Xfs,
    /// ext4: like XFS.
    Ext4,
}

/// A VMA.
#[derive(Clone, Debug)]
pub struct Vma {
    /// First virtual page number (`vm_start >> PAGE_SHIFT`).
    pub start: u32,
    /// Pages.
    pub pages: u32,
    /// Anon or file.
    pub kind: VmaKind,
    /// Filesystem (file VMAs).
    pub fs: Fs,
    /// `vm_pgoff`: for anon VMAs their start vpn, for file VMAs the file offset of `start`.
    pub pgoff: u32,
    /// The anon_vma (anon VMAs) or file (file VMAs) id: the rmap root.
    pub rmap_root: u16,
    /// Where the VMA was and how long before its last `mremap` or `munmap` (its start
    /// and length at first): a thread that still uses the old pointer (`access_old`)
    /// addresses `prev.0`, and `mmap` maps `prev.1` pages again.
    pub prev: (u32, u32),
    /// `VM_NOHUGEPAGE` (`madvise(MADV_NOHUGEPAGE)`): no huge page on a first touch.
    pub nohugepage: bool,
}

impl Vma {
    /// One past the last vpn.
    pub fn end(&self) -> u32 {
        self.start + self.pages
    }

    /// Whether `vpn` is inside.
    pub fn contains(&self, vpn: u32) -> bool {
        vpn >= self.start && vpn < self.end()
    }

    /// `vma_address`: where `page` would be mapped in this VMA, if inside it.
    pub fn address_of(&self, page: &Page) -> Option<u32> {
        let vpn = self.start.checked_add(page.index.checked_sub(self.pgoff)?)?;
        self.contains(vpn).then_some(vpn)
    }
}

/// An address space.
#[derive(Clone, Debug)]
pub struct Mm {
    /// The process's pid (tgid).
    pub pid: u16,
    /// `mm_cpumask`.
    pub cpumask: CpuMask,
    /// `context.tlb_gen`.
    pub tlb_gen: u64,
    /// `tlb_flush_pending`: PROT_NONE changes whose flush has not finished.
    pub flush_pending: u32,
    /// VMAs in address order.
    pub vmas: Vec<Vma>,
    /// The page tables.
    pub pgtable: PageTable,
    /// Threads still using the mm (`mm_users`).
    pub users: u16,
    /// Threads the process has started, alive or not.
    pub threads: u16,
    /// `numa_next_scan` (ns of simulated time).
    pub numa_next_scan: u64,
    /// `numa_scan_offset` as (vma index, page index).
    pub scan_offset: (u16, u32),
    /// `numa_scan_seq`.
    pub numa_scan_seq: u32,
    /// The access sampler's indexes of VMAs that `bulk` random accesses use (shared
    /// with checkpoints until written).
    pub access: Vec<Rc<AccessIndex>>,
}

impl Mm {
    /// Index of the VMA holding `vpn`.
    pub fn find_vma(&self, vpn: u32) -> Option<usize> {
        self.vmas.iter().position(|v| v.contains(vpn))
    }

    /// The PTE of `vpn`.
    #[inline]
    pub fn pte(&self, vpn: u32) -> Pte {
        self.pgtable.pte(vpn)
    }

    /// `get_mm_rss`: pages the mm maps (present, PROT_NONE hint or migration entries),
    /// counted over its PTE tables.
    pub fn rss(&self) -> u64 {
        self.pgtable
            .pmds()
            .map(|(_, p)| match p {
                super::pgtable::Pmd::Table(t) => t.iter().filter(|p| !p.is_none()).count() as u64,
                super::pgtable::Pmd::Huge(_) => u64::from(super::pgtable::PTRS_PER_PTE),
                super::pgtable::Pmd::None => 0,
            })
            .sum()
    }

    /// Writes the PTE of `vpn`. Under a huge PMD, an accessed or dirty bit goes to the PMD
    /// (all its pages); any other change splits it first (`PageTable::set_pte`).
    #[inline]
    pub fn set_pte(&mut self, vpn: u32, pte: Pte) {
        if self.pgtable.is_huge(vpn) {
            return self.change_pmd(vpn, |pt| pt.set_pte(vpn, pte));
        }
        if !self.access.is_empty() {
            self.note_access_index(vpn, pte);
        }
        self.pgtable.set_pte(vpn, pte);
    }

    /// Maps the 2 MiB around `vpn` with a huge PMD whose entry is `pmd` (`set_pmd_at`).
    pub fn set_huge(&mut self, vpn: u32, pmd: Pte) {
        self.change_pmd(vpn, |pt| pt.set_huge(vpn, pmd));
    }

    /// Clears the PMD entry around `vpn` (`pmdp_huge_get_and_clear` of a huge PMD).
    pub fn clear_pmd(&mut self, vpn: u32) {
        self.change_pmd(vpn, |pt| pt.clear_pmd(vpn));
    }

    /// Splits the huge PMD around `vpn` into a PTE table (`__split_huge_pmd`); false if
    /// there was none. The PTEs read the same before and after.
    pub fn split_huge_pmd(&mut self, vpn: u32) -> bool {
        self.pgtable.split_huge_pmd(vpn)
    }

    /// Changes the PMD entry around `vpn` with `f`, keeping the access indexes current
    /// for all the pages under it.
    fn change_pmd(&mut self, vpn: u32, f: impl FnOnce(&mut PageTable)) {
        let base = vpn - vpn % super::pgtable::PTRS_PER_PTE;
        let pages = base..base + super::pgtable::PTRS_PER_PTE;
        let watched = self.access.iter().any(|ix| pages.clone().any(|v| ix.covers(v)));
        if !watched {
            return f(&mut self.pgtable);
        }
        let old: Vec<Pte> = pages.clone().map(|v| self.pgtable.pte(v)).collect();
        f(&mut self.pgtable);
        for (v, old) in pages.zip(old) {
            let new = self.pgtable.pte(v);
            if new != old {
                for ix in self.access.iter_mut().filter(|ix| ix.covers(v)) {
                    Rc::make_mut(ix).update(v, old, new);
                }
            }
        }
    }

    /// Keeps the access indexes covering `vpn` current for its new PTE.
    #[inline(never)]
    fn note_access_index(&mut self, vpn: u32, pte: Pte) {
        let old = self.pgtable.pte(vpn);
        for ix in self.access.iter_mut().filter(|ix| ix.covers(vpn)) {
            Rc::make_mut(ix).update(vpn, old, pte);
        }
    }
}

/// Which kind of rmap root a VMA hangs from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmapKind {
    /// `struct anon_vma`.
    Anon,
    /// `struct address_space` of a file.
    File,
}

/// An rmap root: the VMAs that may map its pages (`anon_vma` chain or `i_mmap` tree).
#[derive(Clone, Debug)]
pub struct RmapRoot {
    /// Anon or file.
    pub kind: RmapKind,
    /// `(mm index, vma index)` of every VMA linked to it.
    pub vmas: Vec<(u16, u16)>,
    /// A file's `inode->dirtied_when`: when it last went from clean to dirty (ns), `None`
    /// while no page of it is dirty. Periodic writeback writes a file only once this is
    /// `dirty_expire_interval` old.
    pub dirtied_when: Option<u64>,
}

/// The page flags a freshly mapped page of `kind` gets.
pub fn fresh_page_flags(kind: VmaKind, dirty: bool) -> u16 {
    pg::LRU
        | match kind {
            VmaKind::File => pg::FILE | if dirty { pg::DIRTY } else { 0 },
            VmaKind::Anon => pg::ANON,
        }
}
