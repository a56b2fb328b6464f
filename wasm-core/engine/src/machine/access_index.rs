//! The access sampler's index of one VMA: which of its pages a user load, or a store,
//! would use without anything changing. That is a PTE the MMU can use as it is:
//! present and accessed, and for a store also writable and dirty.
//!
//! A `random` operation with `bulk = true` draws its accesses in runs: the number of
//! accesses before the next one that needs a walk that changes the PTE, or a page fault, is
//! geometric with the slow pages' share of the VMA; the run takes one step, and the slow
//! access then goes through the TLB, the walk and the fault handler like any other.
//!
//! The index keeps, per page, whether a load is slow and whether a store is slow, in two
//! Fenwick trees, so that the slow count is O(1) and the k-th slow page is O(log n). It also
//! keeps how many fast pages each node holds (the runs' DRAM cost). Every PTE write goes
//! through [`super::Mm::set_pte`], which keeps the index current.

use super::pte::Pte;

/// A Fenwick (binary indexed) tree of 0/1 flags over the pages of a VMA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Fenwick {
    tree: Vec<u32>,
    ones: u32,
}

impl Fenwick {
    fn new(n: usize) -> Fenwick {
        Fenwick {
            tree: vec![0; n + 1],
            ones: 0,
        }
    }

    /// Adds `d` (+1 or -1) at index `i`.
    fn add(&mut self, i: u32, d: i32) {
        self.ones = self.ones.wrapping_add_signed(d);
        let mut i = i as usize + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(d);
            i += i & i.wrapping_neg();
        }
    }

    /// The index of the `k`-th one (0-based); `k` below the number of ones.
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

/// The index of one VMA's pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessIndex {
    /// First vpn covered.
    pub start: u32,
    /// Pages covered.
    pub pages: u32,
    load: Fenwick,
    store: Fenwick,
    /// `(first pfn, end pfn)` of each node, in node order.
    nodes: Vec<(u32, u32)>,
    /// Pages a load can use as they are, per node.
    fast_on: Vec<u32>,
}

impl AccessIndex {
    /// Builds the index of `pages` pages from `start`, reading each PTE with `pte`;
    /// `nodes` gives each node's pfn range.
    pub fn build(start: u32, pages: u32, nodes: Vec<(u32, u32)>, pte: impl Fn(u32) -> Pte) -> AccessIndex {
        let mut ix = AccessIndex {
            start,
            pages,
            load: Fenwick::new(pages as usize),
            store: Fenwick::new(pages as usize),
            fast_on: vec![0; nodes.len()],
            nodes,
        };
        for i in 0..pages {
            ix.enter(i, pte(start + i), 1);
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

    /// Counts (`d` = 1) or uncounts (`d` = -1) page `i` with PTE `pte`.
    fn enter(&mut self, i: u32, pte: Pte, d: i32) {
        if load_slow(pte) {
            self.load.add(i, d);
        } else if let Some(n) = self.node_of(pte.pfn()) {
            self.fast_on[n] = self.fast_on[n].wrapping_add_signed(d);
        }
        if store_slow(pte) {
            self.store.add(i, d);
        }
    }

    /// The PTE of `vpn` (covered) changes from `old` to `new`.
    #[inline]
    pub fn update(&mut self, vpn: u32, old: Pte, new: Pte) {
        let i = vpn - self.start;
        self.enter(i, old, -1);
        self.enter(i, new, 1);
    }

    /// Pages a load would find slow.
    pub fn load_slow_pages(&self) -> u32 {
        self.load.ones
    }

    /// Pages a store would find slow.
    pub fn store_slow_pages(&self) -> u32 {
        self.store.ones
    }

    /// Pages a load can use as they are, per node (in node order).
    pub fn fast_on(&self) -> &[u32] {
        &self.fast_on
    }

    /// The vpn of the `k`-th page a load (`store` false) or a store finds slow.
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
        let mut ix = AccessIndex::build(100, 10, vec![(0, 8), (8, 16)], |v| ptes[(v - 100) as usize]);
        assert_eq!(ix.load_slow_pages(), 4); // 0, 3, 6, 9
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
        assert_eq!(ix.load_slow_pages(), 4); // 2, 3, 6, 9
        assert_eq!(ix.store_slow_pages(), 5); // 1, 2, 3, 6, 9
        assert_eq!(
            (0..5).map(|k| ix.slow_page(true, k)).collect::<Vec<_>>(),
            vec![101, 102, 103, 106, 109]
        );
        assert_eq!(ix.fast_on(), &[4, 2]);
        // The incremental index is the one a rebuild gives.
        let again = AccessIndex::build(100, 10, vec![(0, 8), (8, 16)], |v| ptes[(v - 100) as usize]);
        assert_eq!(again, ix);
        assert!(ix.covers(109) && !ix.covers(110) && !ix.covers(99));
    }
}
