//! The ready queue: which CPU acts next, by (time, CPU id). An indexed binary min-heap
//! with one entry per ready CPU: changing a CPU's time moves its entry in place, so there
//! are no stale entries to skip. O(log n) per change, O(1) to find the next CPU, no scan
//! over all CPUs and no allocation after construction.

use crate::topology::CpuId;

/// Not in the heap.
const ABSENT: u32 = u32::MAX;

/// The ready queue.
#[derive(Clone, Debug, Default)]
pub struct ReadyQueue {
    /// `(ready time, CPU)` in heap order: comparing entries compares their keys directly.
    heap: Vec<(u64, CpuId)>,
    /// Each CPU's index in `heap`, or [`ABSENT`].
    pos: Vec<u32>,
}

impl ReadyQueue {
    /// A queue for `n` CPUs, none ready.
    pub fn new(n: usize) -> Self {
        ReadyQueue {
            heap: Vec::with_capacity(n),
            pos: vec![ABSENT; n],
        }
    }

    #[inline]
    fn key(&self, i: usize) -> (u64, CpuId) {
        self.heap[i]
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.heap.swap(i, j);
        self.pos[self.heap[i].1 as usize] = i as u32;
        self.pos[self.heap[j].1 as usize] = j as u32;
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.key(i) >= self.key(parent) {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < self.heap.len() && self.key(l) < self.key(m) {
                m = l;
            }
            if r < self.heap.len() && self.key(r) < self.key(m) {
                m = r;
            }
            if m == i {
                break;
            }
            self.swap(i, m);
            i = m;
        }
    }

    /// Sets when `cpu` is next ready (`None`: not ready).
    pub fn set(&mut self, cpu: CpuId, at: Option<u64>) {
        let c = cpu as usize;
        let p = self.pos[c];
        match (at, p) {
            (None, ABSENT) => {}
            (None, p) => {
                let i = p as usize;
                let last = self.heap.len() - 1;
                self.swap(i, last);
                self.heap.pop();
                self.pos[c] = ABSENT;
                if i < self.heap.len() {
                    self.sift_down(i);
                    self.sift_up(i);
                }
            }
            (Some(t), ABSENT) => {
                self.heap.push((t, cpu));
                let i = self.heap.len() - 1;
                self.pos[c] = i as u32;
                self.sift_up(i);
            }
            (Some(t), p) => {
                let i = p as usize;
                let old = std::mem::replace(&mut self.heap[i].0, t);
                if t < old {
                    self.sift_up(i);
                } else if t > old {
                    self.sift_down(i);
                }
            }
        }
    }

    /// The CPU that is ready earliest, ties by lower id, with its time.
    #[inline]
    pub fn peek(&mut self) -> Option<(u64, CpuId)> {
        self.heap.first().copied()
    }

    /// When `cpu` is next ready.
    pub fn due(&self, cpu: CpuId) -> Option<u64> {
        let p = self.pos[cpu as usize];
        (p != ABSENT).then(|| self.heap[p as usize].0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_earliest_cpu_wins_and_ties_go_to_the_lower_id() {
        let mut q = ReadyQueue::new(4);
        q.set(2, Some(10));
        q.set(1, Some(10));
        q.set(3, Some(5));
        assert_eq!(q.peek(), Some((5, 3)));
        q.set(3, None);
        assert_eq!(q.peek(), Some((10, 1)));
        q.set(1, Some(20));
        assert_eq!(q.peek(), Some((10, 2)));
        for t in 0..100 {
            q.set(0, Some(1000 + t));
        }
        assert_eq!(q.peek(), Some((10, 2)));
        assert_eq!(q.heap.len(), 3);
    }

    proptest! {
        #[test]
        fn it_always_agrees_with_a_scan_over_every_cpu(ops in proptest::collection::vec((0u16..8, proptest::option::of(0u64..50)), 1..200)) {
            let mut q = ReadyQueue::new(8);
            let mut due: [Option<u64>; 8] = [None; 8];
            for (cpu, at) in ops {
                q.set(cpu, at);
                due[cpu as usize] = at;
                let want = due.iter().enumerate().filter_map(|(c, d)| d.map(|t| (t, c as CpuId))).min();
                prop_assert_eq!(q.peek(), want);
            }
        }
    }
}
