//! One lock abstraction for every lock class the model has: spinlocks whose waiters
//! spin on their CPU, and sleeping locks (page lock, mmap_lock as a rwsem) whose waiters
//! leave the CPU. Per class: acquisitions, contended acquisitions, hold and wait time.

use crate::topology::CpuId;

/// Lock classes (lockdep's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum LockClass {
    /// Split PTE lock of one PTE table (`ptlock_ptr`).
    Ptl,
    /// `PG_locked` of a page.
    PageLock,
    /// `zone->lock`.
    ZoneLock,
    /// `lruvec->lru_lock`.
    LruLock,
    /// `mm->mmap_lock` (rwsem).
    MmapLock,
    /// `anon_vma->rwsem`.
    AnonVma,
    /// `mapping->i_mmap_rwsem`.
    IMmap,
}

impl LockClass {
    /// Every class, in counter order.
    pub const ALL: [LockClass; 7] = [
        LockClass::Ptl,
        LockClass::PageLock,
        LockClass::ZoneLock,
        LockClass::LruLock,
        LockClass::MmapLock,
        LockClass::AnonVma,
        LockClass::IMmap,
    ];

    /// The name used in counters and views.
    pub const fn name(self) -> &'static str {
        match self {
            LockClass::Ptl => "ptl",
            LockClass::PageLock => "page_lock",
            LockClass::ZoneLock => "zone_lock",
            LockClass::LruLock => "lru_lock",
            LockClass::MmapLock => "mmap_lock",
            LockClass::AnonVma => "anon_vma",
            LockClass::IMmap => "i_mmap",
        }
    }

    /// Whether waiters spin (burning their CPU) rather than sleep.
    pub const fn spins(self) -> bool {
        matches!(self, LockClass::Ptl | LockClass::ZoneLock | LockClass::LruLock)
    }

    /// Whether it is a rwsem, whose writers spin while a writer owner runs
    /// (`RWSEM_SPIN_ON_OWNER`, see `Sim::rwsem_spins`).
    pub const fn is_rwsem(self) -> bool {
        matches!(self, LockClass::MmapLock | LockClass::AnonVma | LockClass::IMmap)
    }
}

/// One lock instance: a class and up to two numbers naming it (mm and PMD index for a
/// PTL, pfn for a page lock, node and zone for a zone lock, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LockId {
    /// Class.
    pub class: LockClass,
    /// First key.
    pub a: u32,
    /// Second key.
    pub b: u32,
}

impl LockId {
    /// The PTE lock of the PTE table holding `vpn` in mm `mm`.
    pub fn ptl(mm: u16, vpn: u32) -> Self {
        LockId {
            class: LockClass::Ptl,
            a: u32::from(mm),
            b: vpn / crate::machine::pgtable::PTRS_PER_PTE,
        }
    }

    /// `PG_locked` of frame `pfn` (what `lock_page` and the migration-entry wait wait for).
    pub fn page(pfn: u32) -> Self {
        LockId {
            class: LockClass::PageLock,
            a: pfn,
            b: 0,
        }
    }
}

/// Totals of one lock class (what `/proc/lock_stat` reports per class).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LockStats {
    /// Acquisitions.
    pub acquired: u64,
    /// Times a CPU found the lock held and had to wait.
    pub contended: u64,
    /// Time held, ns.
    pub hold_ns: u64,
    /// Time waited, ns.
    pub wait_ns: u64,
}

#[derive(Clone, Copy, Debug)]
struct Held {
    id: LockId,
    holder: CpuId,
    /// The task that took it (the first reader of a rwsem held for read).
    task: u16,
    since: u64,
    /// Readers holding a rwsem for read (0 = held for write or a plain lock).
    readers: u16,
}

/// No task (the end of a wait queue).
const NO_TASK: u16 = u16::MAX;

/// The FIFO of tasks waiting for one lock, threaded through [`Locks::next`]. A queue
/// exists while it has waiters, whether or not the lock is held at that moment (a
/// woken waiter leaves the queue; one not yet woken stays in it across releases).
#[derive(Clone, Copy, Debug)]
struct WaitQueue {
    id: LockId,
    head: u16,
    tail: u16,
}

/// Per task: its place in a wait queue.
#[derive(Clone, Copy, Debug)]
struct Waiter {
    /// The next task in the same queue.
    next: u16,
    /// Whether it is queued.
    queued: bool,
    /// Whether it waits to read (a rwsem reader).
    read: bool,
    /// When it started waiting.
    since: u64,
}

impl Default for Waiter {
    fn default() -> Self {
        Waiter {
            next: NO_TASK,
            queued: false,
            read: false,
            since: 0,
        }
    }
}

/// Readers one release wakes at most (v5.12 `MAX_READERS_WAKEUP`).
pub const MAX_READERS_WAKEUP: u32 = 0x100;

/// Whom a release wakes, decided by the lock class (see [`Locks::wake`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakePolicy {
    /// Every waiter: they all contend again (a test-and-set spinlock; also the
    /// migration-entry wait of the v1 model, which spins on `PG_locked`).
    All,
    /// The first waiter if it is a writer, else the queued readers, up to
    /// [`MAX_READERS_WAKEUP`], even those queued behind a writer (v5.12
    /// `kernel/locking/rwsem.c` `rwsem_mark_wake` with `RWSEM_WAKE_ANY`). v5.12 grants
    /// the lock to the readers it wakes; here every woken task retries its acquisition,
    /// which differs only when another task takes the lock in between.
    Rwsem,
}

/// Every held lock, the wait queues, and the per-class totals.
#[derive(Clone, Debug, Default)]
pub struct Locks {
    held: Vec<Held>,
    queues: Vec<WaitQueue>,
    waiters: Vec<Waiter>,
    stats: [LockStats; LockClass::ALL.len()],
}

impl Locks {
    /// A table with room for `n` locks held at once and `tasks` waiting tasks without
    /// growing (a step never allocates once the table is sized for the machine).
    pub fn with_capacity(n: usize, tasks: usize) -> Self {
        Locks {
            held: Vec::with_capacity(n),
            queues: Vec::with_capacity(n),
            waiters: vec![Waiter::default(); tasks],
            stats: Default::default(),
        }
    }

    /// The table as text that does not depend on the order in which independent locks
    /// were taken or queued (held locks and queues sorted by lock), for the interleaving
    /// explorer's state digest (`explore.rs`).
    pub fn canonical_text(&self) -> String {
        let mut held: Vec<String> = self.held.iter().map(|h| format!("{h:?}")).collect();
        held.sort_unstable();
        let mut queues: Vec<String> = self.queues.iter().map(|q| format!("{q:?}")).collect();
        queues.sort_unstable();
        format!("{held:?}{queues:?}{:?}{:?}", self.waiters, self.stats)
    }

    /// Whether `other` holds the same locks by the same CPUs and tasks and has the same
    /// queues, whatever the order they were taken in (the interleaving explorer's test for
    /// a step that took or dropped no lock; no allocation).
    pub fn same_as(&self, other: &Locks) -> bool {
        let held = |a: &Held, b: &Held| a.id == b.id && a.holder == b.holder && a.task == b.task && a.readers == b.readers;
        self.held.len() == other.held.len()
            && self.held.iter().all(|h| other.held.iter().any(|o| held(h, o)))
            && self.queues.len() == other.queues.len()
            && self
                .queues
                .iter()
                .all(|q| other.queues.iter().any(|o| o.id == q.id && o.head == q.head && o.tail == q.tail))
            && self
                .waiters
                .iter()
                .zip(&other.waiters)
                .all(|(a, b)| a.next == b.next && a.queued == b.queued && a.read == b.read)
    }

    /// Takes `id` for `cpu` at `now` if it is free (or already `cpu`'s); returns whether
    /// it was taken. On `false`, `task` joins the lock's wait queue (once per wait) and
    /// the contention is counted: the caller blocks and retries when woken.
    pub fn try_lock(&mut self, id: LockId, cpu: CpuId, task: u16, now: u64) -> bool {
        if let Some(h) = self.held.iter().find(|h| h.id == id) {
            if h.holder == cpu && h.readers == 0 {
                return true;
            }
            self.enqueue(id, task, false, now);
            return false;
        }
        self.held.push(Held {
            id,
            holder: cpu,
            task,
            since: now,
            readers: 0,
        });
        self.stats[id.class as usize].acquired += 1;
        true
    }

    /// Takes rwsem `id` for read: shared with other readers, not with a writer. On
    /// `false`, `task` joins the wait queue as a reader.
    pub fn try_read(&mut self, id: LockId, cpu: CpuId, task: u16, now: u64) -> bool {
        match self.held.iter_mut().find(|h| h.id == id) {
            Some(h) if h.readers > 0 => {
                h.readers += 1;
                self.stats[id.class as usize].acquired += 1;
                true
            }
            Some(_) => {
                self.enqueue(id, task, true, now);
                false
            }
            None => {
                self.held.push(Held {
                    id,
                    holder: cpu,
                    task,
                    since: now,
                    readers: 1,
                });
                self.stats[id.class as usize].acquired += 1;
                true
            }
        }
    }

    /// Puts `task` at the tail of `id`'s wait queue (a task waits for one lock at a
    /// time) and counts the contention.
    pub fn enqueue(&mut self, id: LockId, task: u16, read: bool, now: u64) {
        let t = task as usize;
        if t >= self.waiters.len() {
            // Only when a task was created after the table was sized (fork).
            self.waiters.resize(t + 1, Waiter::default());
        }
        if self.waiters[t].queued {
            return;
        }
        self.waiters[t] = Waiter {
            next: NO_TASK,
            queued: true,
            read,
            since: now,
        };
        self.stats[id.class as usize].contended += 1;
        match self.queues.iter_mut().find(|q| q.id == id) {
            Some(q) => {
                self.waiters[q.tail as usize].next = task;
                q.tail = task;
            }
            None => self.queues.push(WaitQueue {
                id,
                head: task,
                tail: task,
            }),
        }
    }

    /// Releases `id` (one reader of a rwsem, or the holder); returns whether the lock
    /// became free with tasks waiting for it, so that [`Locks::wake`] must run.
    pub fn unlock(&mut self, id: LockId, now: u64) -> bool {
        let Some(i) = self.held.iter().position(|h| h.id == id) else {
            return false;
        };
        let h = &mut self.held[i];
        if h.readers > 1 {
            h.readers -= 1;
            return false;
        }
        self.stats[id.class as usize].hold_ns += now.saturating_sub(h.since);
        self.held.swap_remove(i);
        self.has_waiters(id)
    }

    /// Whether tasks wait for `id`.
    pub fn has_waiters(&self, id: LockId) -> bool {
        self.queues.iter().any(|q| q.id == id)
    }

    /// Takes the waiters of `id` that a release wakes under `policy` out of its queue,
    /// in queue order, calling `woken(task, since)` for each (the caller makes them run
    /// and accounts the wait). Waiters not woken keep their places.
    pub fn wake(&mut self, id: LockId, policy: WakePolicy, mut woken: impl FnMut(u16, u64)) {
        let Some(qi) = self.queues.iter().position(|q| q.id == id) else {
            return;
        };
        let q = self.queues[qi];
        let first_writer = !self.waiters[q.head as usize].read;
        let (mut prev, mut cur) = (NO_TASK, q.head);
        let mut tail = NO_TASK;
        let mut readers = 0;
        while cur != NO_TASK {
            let w = self.waiters[cur as usize];
            let take = match policy {
                WakePolicy::All => true,
                WakePolicy::Rwsem if first_writer => cur == q.head,
                WakePolicy::Rwsem => w.read && readers < MAX_READERS_WAKEUP,
            };
            readers += u32::from(take && w.read);
            if take {
                if prev == NO_TASK {
                    self.queues[qi].head = w.next;
                } else {
                    self.waiters[prev as usize].next = w.next;
                }
                self.waiters[cur as usize] = Waiter::default();
                woken(cur, w.since);
            } else {
                prev = cur;
                tail = cur;
            }
            cur = w.next;
        }
        if self.queues[qi].head == NO_TASK {
            self.queues.swap_remove(qi);
        } else {
            self.queues[qi].tail = tail;
        }
    }

    /// Adds a finished wait of `ns` to `class`.
    pub fn waited(&mut self, class: LockClass, ns: u64) {
        self.stats[class as usize].wait_ns += ns;
    }

    /// The holder of `id`, if held.
    pub fn holder(&self, id: LockId) -> Option<CpuId> {
        self.held.iter().find(|h| h.id == id).map(|h| h.holder)
    }

    /// The CPU and task holding `id` for write (a plain lock, or a rwsem not held for
    /// read), if it is held so.
    pub fn writer(&self, id: LockId) -> Option<(CpuId, u16)> {
        self.held.iter().find(|h| h.id == id && h.readers == 0).map(|h| (h.holder, h.task))
    }

    /// Whether `task` is queued to read (a rwsem reader) rather than to write.
    pub fn waits_to_read(&self, task: u16) -> bool {
        self.waiters.get(task as usize).is_some_and(|w| w.queued && w.read)
    }

    /// Whether `id` is held.
    pub fn is_held(&self, id: LockId) -> bool {
        self.held.iter().any(|h| h.id == id)
    }

    /// Locks held now, as `(id, holder)`.
    pub fn held(&self) -> impl Iterator<Item = (LockId, CpuId)> + '_ {
        self.held.iter().map(|h| (h.id, h.holder))
    }

    /// The tasks waiting for `id`, in queue order.
    pub fn queue(&self, id: LockId) -> impl Iterator<Item = u16> + '_ {
        let mut cur = self.queues.iter().find(|q| q.id == id).map_or(NO_TASK, |q| q.head);
        std::iter::from_fn(move || {
            (cur != NO_TASK).then(|| {
                let t = cur;
                cur = self.waiters[t as usize].next;
                t
            })
        })
    }

    /// Totals of `class`.
    pub fn stats(&self, class: LockClass) -> LockStats {
        self.stats[class as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wake_all(l: &mut Locks, id: LockId, policy: WakePolicy) -> Vec<u16> {
        let mut v = Vec::new();
        l.wake(id, policy, |t, _| v.push(t));
        v
    }

    #[test]
    fn a_held_lock_is_contended_and_accounts_hold_time() {
        let mut l = Locks::with_capacity(4, 4);
        let id = LockId::ptl(0, 1000);
        assert!(l.try_lock(id, 1, 1, 100));
        assert!(l.try_lock(id, 1, 1, 110), "the holder may take it again");
        assert!(!l.try_lock(id, 2, 2, 120));
        assert!(!l.try_lock(id, 2, 2, 125), "a retry before the release does not queue twice");
        assert_eq!(l.holder(id), Some(1));
        assert_eq!(l.queue(id).collect::<Vec<_>>(), vec![2]);
        assert!(l.unlock(id, 150), "task 2 waited: its release must wake it");
        assert_eq!(wake_all(&mut l, id, WakePolicy::All), vec![2]);
        assert!(!l.has_waiters(id));
        assert!(l.try_lock(id, 2, 2, 160));
        assert!(!l.unlock(id, 170), "nobody waited this time");
        let s = l.stats(LockClass::Ptl);
        assert_eq!((s.acquired, s.contended, s.hold_ns), (2, 1, 60));
    }

    #[test]
    fn spin_waiters_are_all_woken_in_queue_order() {
        let mut l = Locks::with_capacity(4, 8);
        let id = LockId::ptl(0, 0);
        assert!(l.try_lock(id, 0, 0, 0));
        for t in [5, 3, 7] {
            assert!(!l.try_lock(id, t, t, u64::from(t)));
        }
        assert!(l.unlock(id, 10));
        assert_eq!(wake_all(&mut l, id, WakePolicy::All), vec![5, 3, 7]);
        assert_eq!(l.queue(id).count(), 0);
    }

    #[test]
    fn readers_share_a_rwsem_and_keep_a_writer_out() {
        let mut l = Locks::with_capacity(4, 4);
        let id = LockId {
            class: LockClass::MmapLock,
            a: 0,
            b: 0,
        };
        assert!(l.try_read(id, 0, 0, 0));
        assert!(l.try_read(id, 1, 1, 0));
        assert!(!l.try_lock(id, 2, 2, 0));
        assert!(!l.unlock(id, 5), "one reader left");
        assert!(l.unlock(id, 9));
        assert_eq!(wake_all(&mut l, id, WakePolicy::Rwsem), vec![2]);
        assert!(l.try_lock(id, 2, 2, 10));
        assert!(!l.try_read(id, 0, 0, 10));
    }

    #[test]
    fn a_rwsem_release_wakes_the_first_writer_alone_or_every_reader() {
        let mut l = Locks::with_capacity(4, 8);
        let id = LockId {
            class: LockClass::MmapLock,
            a: 0,
            b: 0,
        };
        assert!(l.try_lock(id, 0, 0, 0));
        assert!(!l.try_lock(id, 1, 1, 1)); // writer
        assert!(!l.try_read(id, 2, 2, 2));
        assert!(!l.try_lock(id, 3, 3, 3)); // writer
        assert!(!l.try_read(id, 4, 4, 4));
        assert!(l.unlock(id, 10));
        assert_eq!(
            wake_all(&mut l, id, WakePolicy::Rwsem),
            vec![1],
            "a writer heads the queue: it alone"
        );
        assert_eq!(l.queue(id).collect::<Vec<_>>(), vec![2, 3, 4]);
        assert!(l.try_lock(id, 1, 1, 11));
        assert!(l.unlock(id, 20));
        assert_eq!(
            wake_all(&mut l, id, WakePolicy::Rwsem),
            vec![2, 4],
            "a reader heads it: every reader"
        );
        assert_eq!(l.queue(id).collect::<Vec<_>>(), vec![3]);
        assert!(l.try_read(id, 2, 2, 21) && l.try_read(id, 4, 4, 21));
        assert!(!l.try_lock(id, 3, 3, 22), "the writer left behind still waits, queued once");
        assert_eq!(l.queue(id).collect::<Vec<_>>(), vec![3]);
        assert_eq!(l.stats(LockClass::MmapLock).contended, 4);
    }
}
