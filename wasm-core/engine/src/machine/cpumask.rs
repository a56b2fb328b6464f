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
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    /// Members in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = CpuId> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut b = bits;
            std::iter::from_fn(move || {
                (b != 0).then(|| {
                    let i = b.trailing_zeros();
                    b &= b - 1;
                    (w * 64 + i as usize) as CpuId
                })
            })
        })
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
