//! The ready queue: which CPU acts next, by (time, CPU id). An indexed binary min-heap
//! with one entry per ready CPU: changing a CPU's time moves its entry in place (a hole
//! sifted up or down, the entry written once), so there are no stale entries to skip.
//! O(log n) per change, O(1) to find the next CPU, no scan over all CPUs and no
//! allocation after construction.

use crate::topology::CpuId;

/// Not in the heap.
const ABSENT: u32 = u32::MAX;

/// A heap entry: the ready time above the CPU id, so that one integer comparison orders
/// entries by time, then by lower id (no branch on a tie).
type Key = u128;

#[inline]
fn pack(t: u64, cpu: CpuId) -> Key {
    u128::from(t) << 16 | u128::from(cpu)
}

#[inline]
fn cpu_of(k: Key) -> usize {
    usize::from(k as u16)
}

#[inline]
fn time_of(k: Key) -> u64 {
    (k >> 16) as u64
}

/// The ready queue.
#[derive(Clone, Debug, Default)]
pub struct ReadyQueue {
    /// `(ready time, CPU)` packed ([`pack`]), in heap order.
    heap: Vec<Key>,
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

    /// Moves the entry at `i` up to its place: parents greater than it move down into
    /// the hole, and it is written once where the hole stops (no swaps).
    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let item = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.heap[parent];
            if item >= p {
                break;
            }
            self.heap[i] = p;
            self.pos[cpu_of(p)] = i as u32;
            i = parent;
        }
        self.heap[i] = item;
        self.pos[cpu_of(item)] = i as u32;
    }

    /// Moves the entry at `i` down to its place, the smaller child moving up into the
    /// hole each level.
    #[inline(always)]
    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        let item = self.heap[i];
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let (mut m, mut child) = (l, self.heap[l]);
            if l + 1 < n && self.heap[l + 1] < child {
                m = l + 1;
                child = self.heap[m];
            }
            if child >= item {
                break;
            }
            self.heap[i] = child;
            self.pos[cpu_of(child)] = i as u32;
            i = m;
        }
        self.heap[i] = item;
        self.pos[cpu_of(item)] = i as u32;
    }

    /// Sets when `cpu` is next ready (`None`: not ready).
    #[inline]
    pub fn set(&mut self, cpu: CpuId, at: Option<u64>) {
        let c = cpu as usize;
        let p = self.pos[c];
        match (at, p) {
            (None, ABSENT) => {}
            (None, p) => {
                let i = p as usize;
                self.pos[c] = ABSENT;
                let Some(last) = self.heap.pop() else { return };
                if i < self.heap.len() {
                    // The last entry fills the hole and moves to its place.
                    self.heap[i] = last;
                    self.sift_down(i);
                    let i = self.pos[cpu_of(last)] as usize;
                    self.sift_up(i);
                }
            }
            (Some(t), ABSENT) => {
                self.heap.push(pack(t, cpu));
                self.sift_up(self.heap.len() - 1);
            }
            (Some(t), p) => {
                let i = p as usize;
                let old = time_of(std::mem::replace(&mut self.heap[i], pack(t, cpu)));
                if t < old {
                    self.sift_up(i);
                } else if t > old {
                    self.sift_down(i);
                }
            }
        }
    }

    /// Sets when the CPU at the top of the queue (the one [`ReadyQueue::peek`] gave) is
    /// next ready: [`ReadyQueue::set`] without looking its place up. Times only grow, so
    /// it can only move down.
    #[inline]
    pub fn set_top(&mut self, cpu: CpuId, at: Option<u64>) {
        debug_assert_eq!(self.pos[cpu as usize], 0, "CPU {cpu} is not at the top");
        match (at, self.heap.first_mut()) {
            (Some(t), Some(top)) => {
                let old = time_of(std::mem::replace(top, pack(t, cpu)));
                if t > old {
                    self.sift_down(0);
                }
            }
            _ => self.set(cpu, at),
        }
    }

    /// The CPU that is ready earliest, ties by lower id, with its time.
    #[inline]
    pub fn peek(&self) -> Option<(u64, CpuId)> {
        self.heap.first().map(|&k| (time_of(k), k as CpuId))
    }

    /// When `cpu` is next ready.
    pub fn due(&self, cpu: CpuId) -> Option<u64> {
        let p = self.pos[cpu as usize];
        (p != ABSENT).then(|| time_of(self.heap[p as usize]))
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
