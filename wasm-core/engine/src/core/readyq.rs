//! The ready queue: which CPU acts next, by (time, CPU id). A binary heap with lazy
//! deletion: each CPU's latest entry carries its generation, stale ones are skipped, and
//! the heap is rebuilt in place when stale entries pile up. O(log n) per step, no scan
//! over all CPUs, and no allocation once its capacity is reached.

use crate::topology::CpuId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The ready queue.
#[derive(Clone, Debug, Default)]
pub struct ReadyQueue {
    heap: BinaryHeap<Reverse<(u64, CpuId, u32)>>,
    gen: Vec<u32>,
    due: Vec<Option<u64>>,
}

impl ReadyQueue {
    /// A queue for `n` CPUs, none ready.
    pub fn new(n: usize) -> Self {
        ReadyQueue {
            heap: BinaryHeap::with_capacity(4 * n + 4),
            gen: vec![0; n],
            due: vec![None; n],
        }
    }

    /// Sets when `cpu` is next ready (`None`: not ready).
    pub fn set(&mut self, cpu: CpuId, at: Option<u64>) {
        let c = cpu as usize;
        if self.due[c] == at {
            return;
        }
        self.due[c] = at;
        self.gen[c] = self.gen[c].wrapping_add(1);
        if let Some(t) = at {
            if self.heap.len() >= 4 * self.gen.len() + 4 {
                self.rebuild();
            }
            self.heap.push(Reverse((t, cpu, self.gen[c])));
        }
    }

    fn rebuild(&mut self) {
        let mut v = std::mem::take(&mut self.heap).into_vec();
        v.clear();
        for (c, d) in self.due.iter().enumerate() {
            if let Some(t) = d {
                v.push(Reverse((*t, c as CpuId, self.gen[c])));
            }
        }
        self.heap = BinaryHeap::from(v);
    }

    /// The CPU that is ready earliest, ties by lower id, with its time.
    pub fn peek(&mut self) -> Option<(u64, CpuId)> {
        while let Some(&Reverse((t, c, g))) = self.heap.peek() {
            if self.gen[c as usize] == g && self.due[c as usize] == Some(t) {
                return Some((t, c));
            }
            self.heap.pop();
        }
        None
    }

    /// When `cpu` is next ready.
    pub fn due(&self, cpu: CpuId) -> Option<u64> {
        self.due[cpu as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(q.heap.len() <= 4 * 4 + 4 + 1);
    }
}
