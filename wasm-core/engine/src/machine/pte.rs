//! A page-table entry, packed into 8 bytes the way x86 keeps its bits: present,
//! PROT_NONE (x86's `_PAGE_PROTNONE`, the NUMA hint encoding), write, dirty, accessed,
//! and a software "migration entry" marker standing in for the swap-type encoding.

/// A page-table entry, packed: flags in the low byte, pfn above.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pte(u64);

impl Pte {
    const PRESENT: u64 = 1;
    const PROTNONE: u64 = 2;
    const WRITE: u64 = 4;
    const DIRTY: u64 = 8;
    const ACCESSED: u64 = 16;
    const MIGRATION: u64 = 32;

    /// The empty PTE.
    pub const NONE: Pte = Pte(0);

    /// A present PTE.
    pub fn present(pfn: u32, write: bool, dirty: bool, accessed: bool) -> Pte {
        let mut v = Self::PRESENT | (u64::from(pfn) << 8);
        if write {
            v |= Self::WRITE;
        }
        if dirty {
            v |= Self::DIRTY;
        }
        if accessed {
            v |= Self::ACCESSED;
        }
        Pte(v)
    }

    /// A migration entry (non-present, swap-type) remembering write permission.
    pub fn migration(pfn: u32, write: bool) -> Pte {
        Pte(Self::MIGRATION | if write { Self::WRITE } else { 0 } | (u64::from(pfn) << 8))
    }

    /// `pte_none`.
    pub fn is_none(self) -> bool {
        self.0 == 0
    }
    /// Hardware-present (the MMU may use and cache it).
    pub fn hw_present(self) -> bool {
        self.0 & Self::PRESENT != 0
    }
    /// `pte_protnone`: a NUMA hint PTE.
    pub fn protnone(self) -> bool {
        self.0 & Self::PROTNONE != 0
    }
    /// A migration entry.
    pub fn is_migration(self) -> bool {
        self.0 & Self::MIGRATION != 0
    }
    /// `pte_write` (on x86 also the saved write bit of a protnone PTE).
    pub fn write(self) -> bool {
        self.0 & Self::WRITE != 0
    }
    /// `pte_dirty`.
    pub fn dirty(self) -> bool {
        self.0 & Self::DIRTY != 0
    }
    /// `pte_young`.
    pub fn accessed(self) -> bool {
        self.0 & Self::ACCESSED != 0
    }
    /// The frame.
    pub fn pfn(self) -> u32 {
        (self.0 >> 8) as u32
    }
    /// `pte_modify(pte, PAGE_NONE)`: not present to the MMU, pfn and write bit kept.
    pub fn mk_protnone(self) -> Pte {
        Pte((self.0 & !Self::PRESENT) | Self::PROTNONE)
    }
    /// `pte_modify(pte, vma->vm_page_prot)` + `pte_mkyoung`: present again, write if it was.
    pub fn mk_accessible(self) -> Pte {
        Pte((self.0 & !Self::PROTNONE) | Self::PRESENT | Self::ACCESSED)
    }
    /// Sets the accessed bit, and the dirty bit for a store (what the page walker does).
    pub fn mk_young(self, dirty: bool) -> Pte {
        Pte(self.0 | Self::ACCESSED | if dirty { Self::DIRTY } else { 0 })
    }
    /// `pte_wrprotect` (also the saved write bit of a PROT_NONE PTE, or a migration
    /// entry made a read one).
    pub fn wrprotect(self) -> Pte {
        Pte(self.0 & !Self::WRITE)
    }
    /// `pte_mkold`.
    pub fn mk_old(self) -> Pte {
        Pte(self.0 & !Self::ACCESSED)
    }
    /// The PTE of the `n`-th page under a huge PMD whose entry is `self` (same flags,
    /// pfn moved by `n`).
    #[inline]
    pub fn nth(self, n: u32) -> Pte {
        Pte(self.0 + (u64::from(n) << 8))
    }
    /// Whether `other` differs from `self` at most in the accessed and dirty bits.
    pub fn same_but_young(self, other: Pte) -> bool {
        (self.0 ^ other.0) & !(Self::ACCESSED | Self::DIRTY) == 0
    }
    /// `self` with the accessed and dirty bits of `other`.
    pub fn with_young_of(self, other: Pte) -> Pte {
        let m = Self::ACCESSED | Self::DIRTY;
        Pte((self.0 & !m) | (other.0 & m))
    }
    /// Short name of the PTE's kind.
    pub fn kind_name(self) -> &'static str {
        if self.is_none() {
            "none"
        } else if self.is_migration() {
            "migration"
        } else if self.protnone() {
            "protnone"
        } else {
            "present"
        }
    }
}
