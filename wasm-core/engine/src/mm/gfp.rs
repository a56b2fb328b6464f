//! `gfp_t`: what an allocation may do to get its pages (`include/linux/gfp.h` up to v6.0,
//! `include/linux/gfp_types.h` from v6.1), as a bit set with the kernel's flag names and
//! the composites the model's callers use. The bit positions are the model's own (the
//! kernel's move between versions and nothing here depends on them).
//!
//! Who passes what (each caller names the kernel function it follows):
//! - a user page fault: [`GFP_HIGHUSER_MOVABLE`] (`alloc_zeroed_user_highpage_movable`,
//!   `do_anonymous_page`; `wp_page_copy`; a file fault's page cache page in the model);
//! - a NUMA hint fault's target: [`GFP_HIGHUSER_MOVABLE`] `| __GFP_THISNODE | __GFP_NOMEMALLOC |
//!   __GFP_NORETRY | __GFP_NOWARN`, without `__GFP_RECLAIM` (`alloc_misplaced_dst_page`, v4.17-v5.12);
//! - a transparent huge page on first touch: [`GFP_TRANSHUGE_LIGHT`] `| __GFP_THISNODE`
//!   (`alloc_hugepage_vma` of v4.17 with `defrag` at its default `madvise` and no
//!   `MADV_HUGEPAGE`: `alloc_hugepage_direct_gfpmask`);
//! - the PCP workloads' user pages [`GFP_HIGHUSER_MOVABLE`], their slab and socket buffers
//!   [`GFP_KERNEL`] `| __GFP_COMP`.

use std::fmt;

/// A set of `__GFP_*` flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Gfp(pub u32);

macro_rules! flags {
    ($($(#[$doc:meta])* $name:ident = $bit:expr;)*) => {
        $($(#[$doc])* pub const $name: Gfp = Gfp(1 << $bit);)*
        /// Every single flag with its kernel name, in the kernel's order.
        pub const NAMES: &[(&str, Gfp)] = &[$((stringify!($name), $name)),*];
    };
}

flags! {
    /// Zone modifier: ZONE_DMA.
    __GFP_DMA = 0;
    /// Zone modifier: ZONE_HIGHMEM (none on 64-bit: the Normal zone).
    __GFP_HIGHMEM = 1;
    /// Zone modifier: ZONE_DMA32.
    __GFP_DMA32 = 2;
    /// The pages can be migrated (MIGRATE_MOVABLE; ZONE_MOVABLE if there is one).
    __GFP_MOVABLE = 3;
    /// Slab pages that a shrinker can free (MIGRATE_RECLAIMABLE).
    __GFP_RECLAIMABLE = 4;
    /// May dip below the min watermark (ALLOC_HIGH).
    __GFP_HIGH = 5;
    /// May start physical I/O.
    __GFP_IO = 6;
    /// May call into the filesystem.
    __GFP_FS = 7;
    /// Zero the pages.
    __GFP_ZERO = 8;
    /// May enter direct reclaim and compaction (the caller can sleep).
    __GFP_DIRECT_RECLAIM = 9;
    /// Wakes kswapd when below the low watermark.
    __GFP_KSWAPD_RECLAIM = 10;
    /// The caller will write to the pages (dirty limits per node).
    __GFP_WRITE = 11;
    /// No failure warning.
    __GFP_NOWARN = 12;
    /// Retries while reclaim makes progress, may fail.
    __GFP_RETRY_MAYFAIL = 13;
    /// Never fails.
    __GFP_NOFAIL = 14;
    /// Gives up after one light attempt at reclaim and compaction.
    __GFP_NORETRY = 15;
    /// May use the reserves below min.
    __GFP_MEMALLOC = 16;
    /// A compound page (order > 0 with a head page).
    __GFP_COMP = 17;
    /// Never uses the reserves (wins over `__GFP_MEMALLOC`).
    __GFP_NOMEMALLOC = 18;
    /// Keeps to the task's cpuset.
    __GFP_HARDWALL = 19;
    /// The preferred node only: no fallback along the zonelist.
    __GFP_THISNODE = 20;
    /// Charged to the memory cgroup.
    __GFP_ACCOUNT = 21;
}

/// `__GFP_RECLAIM`: both kinds of reclaim.
pub const __GFP_RECLAIM: Gfp = Gfp(__GFP_DIRECT_RECLAIM.0 | __GFP_KSWAPD_RECLAIM.0);
/// `GFP_NOWAIT`: wakes kswapd, never sleeps.
pub const GFP_NOWAIT: Gfp = __GFP_KSWAPD_RECLAIM;
/// `GFP_KERNEL`.
pub const GFP_KERNEL: Gfp = Gfp(__GFP_RECLAIM.0 | __GFP_IO.0 | __GFP_FS.0);
/// `GFP_USER`.
pub const GFP_USER: Gfp = Gfp(GFP_KERNEL.0 | __GFP_HARDWALL.0);
/// `GFP_HIGHUSER`.
pub const GFP_HIGHUSER: Gfp = Gfp(GFP_USER.0 | __GFP_HIGHMEM.0);
/// `GFP_HIGHUSER_MOVABLE`: user pages.
pub const GFP_HIGHUSER_MOVABLE: Gfp = Gfp(GFP_HIGHUSER.0 | __GFP_MOVABLE.0);
/// `GFP_TRANSHUGE_LIGHT`: a huge page that may neither reclaim nor compact.
pub const GFP_TRANSHUGE_LIGHT: Gfp = Gfp((GFP_HIGHUSER_MOVABLE.0 | __GFP_COMP.0 | __GFP_NOMEMALLOC.0 | __GFP_NOWARN.0) & !__GFP_RECLAIM.0);
/// `GFP_TRANSHUGE`: a huge page that may enter direct reclaim and compaction.
pub const GFP_TRANSHUGE: Gfp = Gfp(GFP_TRANSHUGE_LIGHT.0 | __GFP_DIRECT_RECLAIM.0);

/// Composites recognised when printing a mask, largest first.
const COMPOSITES: &[(&str, Gfp)] = &[
    ("GFP_TRANSHUGE", GFP_TRANSHUGE),
    ("GFP_TRANSHUGE_LIGHT", GFP_TRANSHUGE_LIGHT),
    ("GFP_HIGHUSER_MOVABLE", GFP_HIGHUSER_MOVABLE),
    ("GFP_HIGHUSER", GFP_HIGHUSER),
    ("GFP_USER", GFP_USER),
    ("GFP_KERNEL", GFP_KERNEL),
    ("__GFP_RECLAIM", __GFP_RECLAIM),
];

impl Gfp {
    /// No flag.
    pub const NONE: Gfp = Gfp(0);

    /// Whether every flag of `f` is set.
    pub const fn has(self, f: Gfp) -> bool {
        self.0 & f.0 == f.0
    }

    /// `self | f`.
    pub const fn with(self, f: Gfp) -> Gfp {
        Gfp(self.0 | f.0)
    }

    /// `self & ~f`.
    pub const fn without(self, f: Gfp) -> Gfp {
        Gfp(self.0 & !f.0)
    }

    /// `gfp_migratetype`: MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE or MIGRATE_UNMOVABLE
    /// (`mm/page_alloc.rs`'s migratetype numbers).
    pub const fn migratetype(self) -> u8 {
        if self.has(__GFP_MOVABLE) {
            crate::mm::page_alloc::MT_MOVABLE
        } else if self.has(__GFP_RECLAIMABLE) {
            crate::mm::page_alloc::MT_RECLAIMABLE
        } else {
            crate::mm::page_alloc::MT_UNMOVABLE
        }
    }

    /// `gfpflags_allow_blocking`: may sleep in direct reclaim or compaction.
    pub const fn allows_blocking(self) -> bool {
        self.has(__GFP_DIRECT_RECLAIM)
    }
}

impl std::ops::BitOr for Gfp {
    type Output = Gfp;
    fn bitor(self, f: Gfp) -> Gfp {
        self.with(f)
    }
}

/// As `%pGg` prints a mask: the largest composite it contains, then the other flags.
impl fmt::Display for Gfp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut left = self.0;
        let mut first = true;
        let mut put = |f: &mut fmt::Formatter<'_>, s: &str| {
            let r = if first { f.write_str(s) } else { write!(f, "|{s}") };
            first = false;
            r
        };
        if let Some((name, c)) = COMPOSITES.iter().find(|(_, c)| self.has(*c)) {
            put(f, name)?;
            left &= !c.0;
        }
        for (name, flag) in NAMES {
            if left & flag.0 != 0 {
                put(f, name)?;
            }
        }
        if first {
            f.write_str("0")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_huge_page_masks_differ_only_in_direct_reclaim() {
        assert_eq!(GFP_TRANSHUGE.without(GFP_TRANSHUGE_LIGHT), __GFP_DIRECT_RECLAIM);
        assert!(!GFP_TRANSHUGE_LIGHT.has(__GFP_KSWAPD_RECLAIM));
        assert!(!GFP_TRANSHUGE.has(__GFP_KSWAPD_RECLAIM));
        assert!(GFP_TRANSHUGE.allows_blocking() && !GFP_TRANSHUGE_LIGHT.allows_blocking());
    }

    #[test]
    fn user_pages_are_movable_and_may_reclaim() {
        assert!(GFP_HIGHUSER_MOVABLE.has(__GFP_RECLAIM));
        assert_eq!(GFP_HIGHUSER_MOVABLE.migratetype(), crate::mm::page_alloc::MT_MOVABLE);
        assert_eq!(GFP_KERNEL.migratetype(), crate::mm::page_alloc::MT_UNMOVABLE);
        assert_eq!(
            (GFP_KERNEL | __GFP_RECLAIMABLE).migratetype(),
            crate::mm::page_alloc::MT_RECLAIMABLE
        );
    }

    #[test]
    fn a_mask_prints_its_largest_composite_then_the_rest() {
        assert_eq!(
            (GFP_TRANSHUGE_LIGHT | __GFP_THISNODE).to_string(),
            "GFP_TRANSHUGE_LIGHT|__GFP_THISNODE"
        );
        assert_eq!(GFP_HIGHUSER_MOVABLE.to_string(), "GFP_HIGHUSER_MOVABLE");
        assert_eq!(
            (GFP_HIGHUSER_MOVABLE.without(__GFP_RECLAIM) | __GFP_THISNODE).to_string(),
            "__GFP_HIGHMEM|__GFP_MOVABLE|__GFP_IO|__GFP_FS|__GFP_HARDWALL|__GFP_THISNODE"
        );
        assert_eq!(Gfp::NONE.to_string(), "0");
    }

    #[test]
    fn every_flag_has_its_own_bit() {
        let all = NAMES.iter().fold(0u32, |acc, (_, f)| {
            assert_eq!(f.0.count_ones(), 1);
            assert_eq!(acc & f.0, 0);
            acc | f.0
        });
        assert_eq!(all.count_ones() as usize, NAMES.len());
    }
}
