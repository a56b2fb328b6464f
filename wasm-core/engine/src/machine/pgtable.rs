//! Page tables with a PMD level: each 2 MiB of virtual space is a PMD entry that is
//! empty, points at a 512-entry PTE table (with its own split PTE lock, `pte_lockptr`),
//! or maps a transparent huge page (`pmd_trans_huge`). PTE tables are copy-on-write so
//! checkpoints share them.
//!
//! A huge PMD is kept as the PTE its first page would have (head pfn, flags), and
//! [`PageTable::pte`] reads the PTE of any page under it as that entry with the pfn moved
//! by the page's offset: the flags (present, PROT_NONE, write, dirty, accessed) are the
//! PMD's, shared by all 512 pages, as the MMU sees them. Code that walks PTEs therefore
//! sees a huge mapping as 512 consistent PTEs; code that changes one of them must split
//! the PMD first ([`PageTable::split_huge_pmd`]), as the kernel's `split_huge_pmd` does
//! before PTE-level code runs.

use super::pte::Pte;
use std::rc::Rc;

/// PTEs per PTE table (x86-64 `PTRS_PER_PTE`).
pub const PTRS_PER_PTE: u32 = 512;

/// A PTE table: one 4 KiB page of PTEs.
pub type PteTable = [Pte; PTRS_PER_PTE as usize];

/// A PMD entry.
#[derive(Clone, Debug)]
pub enum Pmd {
    /// `pmd_none`.
    None,
    /// Points at a PTE table.
    Table(Rc<PteTable>),
    /// A huge (2 MiB) mapping: the PMD entry, kept as the PTE of its first page.
    Huge(Pte),
}

/// One mm's page tables: PMD entries by PMD index (`vpn / 512`), in order.
#[derive(Clone, Debug, Default)]
pub struct PageTable {
    pmds: Vec<(u32, Pmd)>,
}

impl PageTable {
    /// The position of PMD entry `pmd` in `pmds` (or where it would go). VMAs are laid out
    /// in runs of consecutive PMDs, so the entry is usually at its offset from the first
    /// one: that position is tried first, then a binary search.
    #[inline]
    fn find(&self, pmd: u32) -> Result<usize, usize> {
        if let Some(&(first, _)) = self.pmds.first() {
            let guess = pmd.wrapping_sub(first) as usize;
            if self.pmds.get(guess).is_some_and(|(i, _)| *i == pmd) {
                return Ok(guess);
            }
        }
        self.pmds.binary_search_by_key(&pmd, |(i, _)| *i)
    }

    /// The PMD entry covering `vpn`.
    pub fn pmd(&self, vpn: u32) -> &Pmd {
        match self.find(vpn / PTRS_PER_PTE) {
            Ok(i) => &self.pmds[i].1,
            Err(_) => &Pmd::None,
        }
    }

    /// The PTE of `vpn` (none where no PTE table exists).
    #[inline]
    pub fn pte(&self, vpn: u32) -> Pte {
        match self.pmd(vpn) {
            Pmd::Table(t) => t[(vpn % PTRS_PER_PTE) as usize],
            Pmd::Huge(h) => h.nth(vpn % PTRS_PER_PTE),
            Pmd::None => Pte::NONE,
        }
    }

    /// Whether `vpn` is mapped by a huge PMD (`pmd_trans_huge`).
    #[inline]
    pub fn is_huge(&self, vpn: u32) -> bool {
        matches!(self.pmd(vpn), Pmd::Huge(_))
    }

    /// Writes the PMD entry covering `vpn` as a huge mapping (`set_pmd_at`); the entry is
    /// the PTE of the PMD's first page.
    pub fn set_huge(&mut self, vpn: u32, pmd: Pte) {
        *self.slot(vpn / PTRS_PER_PTE) = Pmd::Huge(pmd);
    }

    /// Clears the PMD entry covering `vpn` (`pmd_clear`; a PTE table under it is dropped).
    pub fn clear_pmd(&mut self, vpn: u32) {
        if let Ok(i) = self.find(vpn / PTRS_PER_PTE) {
            self.pmds[i].1 = Pmd::None;
        }
    }

    /// `__split_huge_pmd_locked`: a huge PMD becomes a PTE table of 512 PTEs, each the
    /// huge entry's flags with its own pfn. Returns whether there was a huge PMD to split.
    pub fn split_huge_pmd(&mut self, vpn: u32) -> bool {
        let Ok(i) = self.find(vpn / PTRS_PER_PTE) else {
            return false;
        };
        let slot = &mut self.pmds[i].1;
        let Pmd::Huge(h) = *slot else {
            return false;
        };
        *slot = Pmd::Table(Rc::new(std::array::from_fn(|i| h.nth(i as u32))));
        true
    }

    /// The PMD entry at index `idx`, inserted empty if missing.
    fn slot(&mut self, idx: u32) -> &mut Pmd {
        let i = match self.find(idx) {
            Ok(i) => i,
            Err(i) => {
                self.pmds.insert(i, (idx, Pmd::None));
                i
            }
        };
        &mut self.pmds[i].1
    }

    /// Writes the PTE of `vpn`, allocating its PTE table first if needed (`__pte_alloc`).
    /// Under a huge PMD, a change of the accessed or dirty bit alone is the MMU setting it
    /// in the PMD entry (for all 512 pages); any other change splits the PMD first.
    pub fn set_pte(&mut self, vpn: u32, pte: Pte) {
        if let Pmd::Huge(h) = *self.pmd(vpn) {
            if h.nth(vpn % PTRS_PER_PTE).same_but_young(pte) {
                self.set_huge(vpn, h.with_young_of(pte));
                return;
            }
            self.split_huge_pmd(vpn);
        }
        let idx = vpn / PTRS_PER_PTE;
        let i = match self.find(idx) {
            Ok(i) => i,
            Err(i) => {
                self.pmds.insert(i, (idx, Pmd::None));
                i
            }
        };
        let slot = &mut self.pmds[i].1;
        if !matches!(slot, Pmd::Table(_)) {
            *slot = Pmd::Table(Rc::new([Pte::NONE; PTRS_PER_PTE as usize]));
        }
        if let Pmd::Table(t) = slot {
            Rc::make_mut(t)[(vpn % PTRS_PER_PTE) as usize] = pte;
        }
    }

    /// The PMD entries in order, as `(pmd index, entry)`.
    pub fn pmds(&self) -> impl Iterator<Item = (u32, &Pmd)> + '_ {
        self.pmds.iter().map(|(i, p)| (*i, p))
    }

    /// Huge PMDs mapped.
    pub fn huge_pmds(&self) -> usize {
        self.pmds.iter().filter(|(_, p)| matches!(p, Pmd::Huge(_))).count()
    }

    /// PTE tables not shared with `other`.
    pub fn unshared_tables(&self, other: &PageTable) -> usize {
        self.pmds
            .iter()
            .filter(|(i, p)| match (p, other.find(*i).ok().map(|j| &other.pmds[j].1)) {
                (Pmd::Table(a), Some(Pmd::Table(b))) => !Rc::ptr_eq(a, b),
                (Pmd::Table(_), _) => true,
                _ => false,
            })
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pte_lives_in_the_table_of_its_pmd() {
        let mut pt = PageTable::default();
        assert!(pt.pte(1000).is_none());
        pt.set_pte(1000, Pte::present(7, true, false, false));
        assert_eq!(pt.pte(1000).pfn(), 7);
        assert!(pt.pte(1001).is_none());
        assert!(matches!(pt.pmd(1000), Pmd::Table(_)));
        assert!(matches!(pt.pmd(5000), Pmd::None));
        assert_eq!(pt.pmds().count(), 1);
    }

    #[test]
    fn a_checkpoint_shares_tables_until_one_is_written() {
        let mut pt = PageTable::default();
        pt.set_pte(10, Pte::present(1, true, false, false));
        pt.set_pte(600, Pte::present(2, true, false, false));
        let cp = pt.clone();
        assert_eq!(pt.unshared_tables(&cp), 0);
        pt.set_pte(11, Pte::present(3, true, false, false));
        assert_eq!(pt.unshared_tables(&cp), 1);
        assert!(cp.pte(11).is_none());
    }

    #[test]
    fn a_huge_pmd_reads_as_512_ptes_and_splits_into_them() {
        let mut pt = PageTable::default();
        pt.set_huge(1024, Pte::present(2048, true, true, true).mk_protnone());
        assert!(pt.is_huge(1500));
        assert_eq!(pt.pte(1024 + 7).pfn(), 2048 + 7);
        assert!(pt.pte(1535).protnone() && pt.pte(1535).write());
        assert!(pt.pte(1536).is_none());
        // The MMU setting the accessed bit stays in the PMD.
        let mut pt = PageTable::default();
        pt.set_huge(0, Pte::present(512, true, false, false));
        pt.set_pte(3, pt.pte(3).mk_young(true));
        assert!(pt.is_huge(0));
        assert!(pt.pte(400).dirty() && pt.pte(400).accessed());
        // Anything else splits it: the other 511 PTEs keep the huge entry's value.
        pt.set_pte(5, Pte::NONE);
        assert!(!pt.is_huge(0));
        assert!(pt.pte(5).is_none());
        assert_eq!(pt.pte(6), Pte::present(518, true, true, true));
        assert!(!pt.split_huge_pmd(0));
        pt.set_huge(0, Pte::present(512, true, false, false));
        assert!(pt.split_huge_pmd(0));
        assert_eq!(pt.pte(511).pfn(), 1023);
    }
}
