//! The access sampler's index of one VMA: which of its pages a user load, or a store,
//! would use without anything changing. That is a PTE the MMU can use as it is:
//! present and accessed, and for a store also writable and dirty.
//!
//! A `random` operation with `bulk = true` draws its accesses in runs: the number of
//! accesses before the next one that needs a walk that changes the PTE, or a page fault, is
//! geometric with the slow pages' share of the accesses; the run takes one step, and the
//! slow access then goes through the TLB, the walk and the fault handler like any other.
//!
//! Pages are drawn uniformly, or from pmbench's `normal` pattern ([`Pattern`]): each page
//! then has an integer share of the draws, and every count below is a sum of shares (a
//! uniform page's share is 1, so there the sums are page counts).
//!
//! The index keeps, per page, whether a load is slow and whether a store is slow, in two
//! Fenwick trees of shares, so that the slow total is O(1) and the page where the slow
//! shares' running sum passes k is O(log n). It also keeps the shares of the fast pages each
//! node holds (the runs' DRAM cost). Every PTE write goes through [`super::Mm::set_pte`],
//! which keeps the index current.

use super::pte::Pte;

/// A Fenwick (binary indexed) tree of per-page shares over the pages of a VMA (a page
/// that is not in the set counts 0). The shares of a whole VMA fit in a `u32`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Fenwick {
    tree: Vec<u32>,
    sum: u32,
}

impl Fenwick {
    fn new(n: usize) -> Fenwick {
        Fenwick {
            tree: vec![0; n + 1],
            sum: 0,
        }
    }

    /// Adds `d` (a page's share, or its negative) at index `i`.
    fn add(&mut self, i: u32, d: i64) {
        // Two's complement: adding the low 32 bits of a negative `d` subtracts.
        let d = d as u32;
        self.sum = self.sum.wrapping_add(d);
        let mut i = i as usize + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add(d);
            i += i & i.wrapping_neg();
        }
    }

    /// The index whose share holds unit `k` (0-based) of the running sum; `k` below the
    /// total (with shares of 1: the `k`-th page in the set).
    fn select(&self, mut k: u32) -> u32 {
        let n = self.tree.len() - 1;
        let mut pos = 0usize;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] <= k {
                pos = next;
                k -= self.tree[next];
            }
            step >>= 1;
        }
        pos as u32
    }
}

/// Whether a load through `pte` needs the walk to change it or a fault.
#[inline]
pub fn load_slow(pte: Pte) -> bool {
    !(pte.hw_present() && pte.accessed())
}

/// Whether a store through `pte` needs the walk to change it or a fault.
#[inline]
pub fn store_slow(pte: Pte) -> bool {
    !(pte.hw_present() && pte.accessed() && pte.write() && pte.dirty())
}

/// How a `random` operation picks its pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Every page equally often.
    #[default]
    Uniform,
    /// pmbench's `normal` pattern (pattern.c, `normal_get_number`): page
    /// `floor(n/2 + stdev * Z)` of the `n` pages for a standard normal `Z`, and page `n/2`
    /// when that falls outside the VMA. `stdev` is in pages.
    Normal {
        /// Standard deviation in pages (at least 1).
        stdev: u32,
    },
}

/// The running sum the shares of one VMA's pages add up to, at most: large enough that a
/// page whose chance is above about 1 in 2^31 gets a share, small enough that every sum
/// fits a `u32`.
const SHARE_TOTAL: f64 = 2_147_483_648.0;

impl Pattern {
    /// The pattern of a `random` operation whose `stdev` argument is `stdev` (0: uniform).
    pub fn from_stdev(stdev: u32) -> Pattern {
        if stdev == 0 {
            Pattern::Uniform
        } else {
            Pattern::Normal { stdev }
        }
    }

    /// Each page's share of the draws over `pages` pages, `None` for uniform (every share
    /// 1). A normal page's share is its chance times [`SHARE_TOTAL`], rounded down: the
    /// standard normal's mass over the page's interval (libm's `erfc`, the same bits
    /// natively and in wasm), and the middle page also takes the mass outside the VMA.
    pub fn shares(self, pages: u32) -> Option<Vec<u32>> {
        let Pattern::Normal { stdev } = self else { return None };
        let (n, mid, sd) = (f64::from(pages), f64::from(pages / 2), f64::from(stdev.max(1)));
        // Phi(x) = erfc(-x / sqrt 2) / 2: the chance that mid + sd * Z < mid + x * sd.
        let below = |offset: f64| 0.5 * libm::erfc(-(offset - mid) / sd / std::f64::consts::SQRT_2);
        let outside = below(0.0) + (1.0 - below(n));
        Some(
            (0..pages)
                .map(|i| {
                    let x = f64::from(i);
                    let mut p = below(x + 1.0) - below(x);
                    if i == pages / 2 {
                        p += outside;
                    }
                    (p * SHARE_TOTAL) as u32
                })
                .collect(),
        )
    }

    /// One page drawn from the pattern over `pages` pages (at least 1): `rand`'s uniform
    /// range, or pmbench's own polar Box-Muller method for the normal pattern (libm, so the
    /// same bits natively and in wasm).
    pub fn draw(self, pages: u32, rng: &mut impl rand::Rng) -> u32 {
        match self {
            Pattern::Uniform => rng.random_range(0..pages.max(1)),
            Pattern::Normal { stdev } => {
                let mut unit = || 2.0 * ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64) - 1.0;
                let (x, w) = loop {
                    let (x, y) = (unit(), unit());
                    let w = x * x + y * y;
                    if w < 1.0 && w > 0.0 {
                        break (x, w);
                    }
                };
                let z = x * libm::sqrt(-2.0 * libm::log(w) / w);
                let at = libm::floor(f64::from(pages / 2) + z * f64::from(stdev.max(1)));
                if at >= 0.0 && at < f64::from(pages) {
                    at as u32
                } else {
                    pages / 2
                }
            }
        }
    }
}

/// The index of one VMA's pages for one access pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessIndex {
    /// First vpn covered.
    pub start: u32,
    /// Pages covered.
    pub pages: u32,
    /// The pattern the shares follow.
    pub pattern: Pattern,
    /// Each page's share (`None`: uniform, every share 1); shared with clones.
    shares: Option<std::rc::Rc<[u32]>>,
    /// Sum of all shares.
    total: u32,
    /// Sum of the `tlb_entries` largest shares: the draws an LRU TLB of that many entries
    /// holds, at best.
    tlb_held: u32,
    load: Fenwick,
    store: Fenwick,
    /// `(first pfn, end pfn)` of each node, in node order.
    nodes: Vec<(u32, u32)>,
    /// Shares of the pages a load can use as they are, per node.
    fast_on: Vec<u32>,
}

impl AccessIndex {
    /// Builds the index of `pages` pages from `start` drawn with `pattern`, reading each
    /// PTE with `pte`; `nodes` gives each node's pfn range, `tlb_entries` the TLB's size.
    pub fn build(
        start: u32,
        pages: u32,
        pattern: Pattern,
        tlb_entries: u32,
        nodes: Vec<(u32, u32)>,
        pte: impl Fn(u32) -> Pte,
    ) -> AccessIndex {
        let shares: Option<std::rc::Rc<[u32]>> = pattern.shares(pages).map(Into::into);
        let (total, tlb_held) = match &shares {
            None => (pages, tlb_entries.min(pages)),
            Some(s) => {
                let mut sorted: Vec<u32> = s.to_vec();
                sorted.sort_unstable_by(|a, b| b.cmp(a));
                let sum = |v: &[u32]| v.iter().map(|&x| u64::from(x)).sum::<u64>() as u32;
                (sum(&sorted), sum(&sorted[..(tlb_entries as usize).min(sorted.len())]))
            }
        };
        let mut ix = AccessIndex {
            start,
            pages,
            pattern,
            shares,
            total,
            tlb_held,
            load: Fenwick::new(pages as usize),
            store: Fenwick::new(pages as usize),
            fast_on: vec![0; nodes.len()],
            nodes,
        };
        for i in 0..pages {
            ix.enter(i, pte(start + i), true);
        }
        ix
    }

    /// Whether `vpn` is covered.
    #[inline]
    pub fn covers(&self, vpn: u32) -> bool {
        vpn.wrapping_sub(self.start) < self.pages
    }

    fn node_of(&self, pfn: u32) -> Option<usize> {
        self.nodes.iter().position(|&(a, b)| pfn >= a && pfn < b)
    }

    /// Page `i`'s share.
    #[inline]
    fn share(&self, i: u32) -> u32 {
        self.shares.as_ref().map_or(1, |s| s[i as usize])
    }

    /// Counts (`add`) or uncounts page `i` with PTE `pte`.
    fn enter(&mut self, i: u32, pte: Pte, add: bool) {
        let w = self.share(i);
        if w == 0 {
            return;
        }
        let d = if add { i64::from(w) } else { -i64::from(w) };
        if load_slow(pte) {
            self.load.add(i, d);
        } else if let Some(n) = self.node_of(pte.pfn()) {
            self.fast_on[n] = self.fast_on[n].wrapping_add(d as u32);
        }
        if store_slow(pte) {
            self.store.add(i, d);
        }
    }

    /// The PTE of `vpn` (covered) changes from `old` to `new`.
    #[inline]
    pub fn update(&mut self, vpn: u32, old: Pte, new: Pte) {
        let i = vpn - self.start;
        self.enter(i, old, false);
        self.enter(i, new, true);
    }

    /// Sum of all pages' shares (the page count when uniform).
    pub fn total(&self) -> u32 {
        self.total
    }

    /// Draws an LRU TLB of `tlb_entries` entries (the size given at build) holds, at best.
    pub fn tlb_held(&self) -> u32 {
        self.tlb_held
    }

    /// Shares of the pages a load would find slow (their count when uniform).
    pub fn load_slow_share(&self) -> u32 {
        self.load.sum
    }

    /// Shares of the pages a store would find slow (their count when uniform).
    pub fn store_slow_share(&self) -> u32 {
        self.store.sum
    }

    /// Shares of the pages a load can use as they are, per node (in node order).
    pub fn fast_on(&self) -> &[u32] {
        &self.fast_on
    }

    /// The vpn of the slow page (for a load when `store` is false) holding unit `k` of the
    /// slow shares' running sum (uniform: the `k`-th slow page).
    pub fn slow_page(&self, store: bool, k: u32) -> u32 {
        let t = if store { &self.store } else { &self.load };
        self.start + t.select(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn present(pfn: u32) -> Pte {
        Pte::present(pfn, true, true, true)
    }

    #[test]
    fn the_index_follows_every_pte_change_and_finds_the_k_th_slow_page() {
        // Pages 0..10 at vpn 100; pfns 0..8 on node 0, 8..16 on node 1.
        let mut ptes: Vec<Pte> = (0..10).map(|i| if i % 3 == 0 { Pte::NONE } else { present(i) }).collect();
        let mut ix = AccessIndex::build(100, 10, Pattern::Uniform, 4, vec![(0, 8), (8, 16)], |v| ptes[(v - 100) as usize]);
        assert_eq!(ix.load_slow_share(), 4); // 0, 3, 6, 9
        assert_eq!(ix.fast_on(), &[5, 1]);
        assert_eq!((0..4).map(|k| ix.slow_page(false, k)).collect::<Vec<_>>(), vec![100, 103, 106, 109]);
        // A clean PTE is slow for a store only; PROT_NONE for both.
        let changes = [
            (1, Pte::present(1, true, false, true)),
            (2, present(2).mk_protnone()),
            (0, present(12)),
        ];
        for (i, new) in changes {
            ix.update(100 + i, ptes[i as usize], new);
            ptes[i as usize] = new;
        }
        assert_eq!(ix.load_slow_share(), 4); // 2, 3, 6, 9
        assert_eq!(ix.store_slow_share(), 5); // 1, 2, 3, 6, 9
        assert_eq!(
            (0..5).map(|k| ix.slow_page(true, k)).collect::<Vec<_>>(),
            vec![101, 102, 103, 106, 109]
        );
        assert_eq!(ix.fast_on(), &[4, 2]);
        // The incremental index is the one a rebuild gives.
        let again = AccessIndex::build(100, 10, Pattern::Uniform, 4, vec![(0, 8), (8, 16)], |v| ptes[(v - 100) as usize]);
        assert_eq!(again, ix);
        assert!(ix.covers(109) && !ix.covers(110) && !ix.covers(99));
    }

    #[test]
    fn the_normal_pattern_s_shares_are_pmbench_s_distribution_and_its_draws_follow_them() {
        let (pages, stdev) = (1000u32, 100u32);
        let p = Pattern::from_stdev(stdev);
        assert_eq!(Pattern::from_stdev(0), Pattern::Uniform);
        assert_eq!(Pattern::Uniform.shares(pages), None);
        let shares = p.shares(pages).unwrap();
        let total: u64 = shares.iter().map(|&v| u64::from(v)).sum();
        // Every draw lands on some page: the shares add up to the whole, less rounding.
        assert!(
            total <= SHARE_TOTAL as u64 && total > SHARE_TOTAL as u64 - u64::from(pages),
            "{total}"
        );
        // Page 500 (n/2) is the likeliest; one stdev off, a page has about e^-1/2 of a
        // middle page's chance; the pages 5 stdevs off still have a share.
        let (mid, near) = (f64::from(shares[501]), f64::from(shares[600]));
        assert!((near / mid - (-0.5f64).exp()).abs() < 0.01, "{near} / {mid}");
        assert!(shares[0] > 0 && shares[999] > 0);
        assert!(shares[500] > shares[501]);
        // Draws: mean n/2 and the stdev asked for (pmbench's floor puts the mean half a
        // page low).
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(7);
        let draws: Vec<f64> = (0..200_000).map(|_| f64::from(p.draw(pages, &mut rng))).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let sd = (draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
        assert!((mean - 499.5).abs() < 1.0, "mean {mean}");
        assert!((sd - 100.0).abs() < 1.5, "stdev {sd}");
        // A narrow pattern over a small VMA: draws outside go to the middle page.
        let wide = Pattern::from_stdev(50);
        let shares = wide.shares(10).unwrap();
        assert!(shares[5] > 9 * shares[0]);
        assert!((0..1000).all(|_| wide.draw(10, &mut rng) < 10));
    }

    #[test]
    fn a_normal_index_counts_shares_and_finds_the_page_holding_a_unit() {
        let p = Pattern::from_stdev(2);
        let shares = p.shares(9).unwrap();
        let mut ptes: Vec<Pte> = (0..9).map(present).collect();
        ptes[4] = Pte::NONE; // the middle page is slow
        ptes[0] = Pte::NONE; // an edge page too
        let mut ix = AccessIndex::build(0, 9, p, 3, vec![(0, 16)], |v| ptes[v as usize]);
        assert_eq!(ix.load_slow_share(), shares[0] + shares[4]);
        assert_eq!(ix.fast_on(), &[ix.total() - shares[0] - shares[4]]);
        // The slow shares in page order: page 0's units, then page 4's.
        assert_eq!(ix.slow_page(false, 0), 0);
        assert_eq!(ix.slow_page(false, shares[0] - 1), 0);
        assert_eq!(ix.slow_page(false, shares[0]), 4);
        // The TLB of 3 entries holds the three likeliest pages' draws: 3, 4 and 5.
        assert_eq!(ix.tlb_held(), shares[3] + shares[4] + shares[5]);
        ix.update(4, ptes[4], present(4));
        ptes[4] = present(4);
        assert_eq!(ix.load_slow_share(), shares[0]);
        assert_eq!(ix, AccessIndex::build(0, 9, p, 3, vec![(0, 16)], |v| ptes[v as usize]));
    }
}
