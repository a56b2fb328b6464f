//! Page tables with a PMD level: each 2 MiB of virtual space is a PMD entry that is
//! empty, points at a 512-entry PTE table (with its own split PTE lock, `pte_lockptr`),
//! or maps a huge page. PTE tables are copy-on-write so checkpoints share them.

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
    /// A huge (2 MiB) mapping of the frame at this pfn.
    Huge(u32),
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
            Pmd::None | Pmd::Huge(_) => Pte::NONE,
        }
    }

    /// Writes the PTE of `vpn`, allocating its PTE table first if needed (`__pte_alloc`).
    pub fn set_pte(&mut self, vpn: u32, pte: Pte) {
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
}
