//! `struct cpumask` for up to [`MAX_CPUS`] CPUs: fixed size and `Copy`, so masks are
//! passed around on hot paths without touching the heap.

use crate::topology::CpuId;

/// The largest machine the model runs (the scenario parser refuses more).
pub const MAX_CPUS: usize = 256;

/// A set of CPUs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuMask([u64; MAX_CPUS / 64]);

impl CpuMask {
    /// The empty mask.
    pub const EMPTY: CpuMask = CpuMask([0; MAX_CPUS / 64]);

    /// Every CPU in `0..n`.
    pub fn first(n: usize) -> Self {
        let mut m = Self::EMPTY;
        for c in 0..n.min(MAX_CPUS) {
            m.set(c as CpuId);
        }
        m
    }

    /// Adds a CPU.
    #[inline]
    pub fn set(&mut self, c: CpuId) {
        self.0[c as usize / 64] |= 1 << (c % 64);
    }
    /// Removes a CPU.
    #[inline]
    pub fn clear(&mut self, c: CpuId) {
        self.0[c as usize / 64] &= !(1 << (c % 64));
    }
    /// Membership.
    #[inline]
    pub fn test(&self, c: CpuId) -> bool {
        self.0[c as usize / 64] & (1 << (c % 64)) != 0
    }
    /// Number of CPUs in the mask.
    pub fn weight(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    /// Whether the mask is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    /// Adds every CPU of `other` (`cpumask_or`).
    #[inline]
    pub fn or(&mut self, other: &CpuMask) {
        for (w, o) in self.0.iter_mut().zip(other.0) {
            *w |= o;
        }
    }
    /// Members in ascending order.
    #[inline]
    pub fn iter(&self) -> Iter {
        Iter { words: self.0, w: 0 }
    }
}

/// The members of a [`CpuMask`] in ascending order (a copy of its words, each cleared
/// bit by bit).
#[derive(Clone, Debug)]
pub struct Iter {
    words: [u64; MAX_CPUS / 64],
    w: usize,
}

impl Iterator for Iter {
    type Item = CpuId;

    #[inline]
    fn next(&mut self) -> Option<CpuId> {
        while let Some(bits) = self.words.get_mut(self.w) {
            if *bits != 0 {
                let i = bits.trailing_zeros();
                *bits &= *bits - 1;
                return Some((self.w * 64 + i as usize) as CpuId);
            }
            self.w += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_come_out_in_order() {
        let mut m = CpuMask::EMPTY;
        for c in [200, 3, 64, 0] {
            m.set(c);
        }
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![0, 3, 64, 200]);
        m.clear(3);
        assert!(!m.test(3));
        assert_eq!(m.weight(), 3);
    }
}
