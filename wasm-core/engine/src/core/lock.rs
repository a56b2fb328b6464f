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
    since: u64,
    /// Readers holding a rwsem for read (0 = held for write or a plain lock).
    readers: u16,
    /// Someone found it held since it was taken: its release must wake them.
    waiters: bool,
}

/// Every held lock and the per-class totals.
#[derive(Clone, Debug, Default)]
pub struct Locks {
    held: Vec<Held>,
    stats: [LockStats; LockClass::ALL.len()],
}

impl Locks {
    /// A table with room for `n` locks held at once without growing (a step never
    /// allocates once the table is sized for the machine).
    pub fn with_capacity(n: usize) -> Self {
        Locks {
            held: Vec::with_capacity(n),
            stats: Default::default(),
        }
    }

    /// Takes `id` for `cpu` at `now` if it is free (or already `cpu`'s); returns whether
    /// it was taken. A `false` is counted as contention: the caller blocks on it.
    pub fn try_lock(&mut self, id: LockId, cpu: CpuId, now: u64) -> bool {
        if let Some(h) = self.held.iter_mut().find(|h| h.id == id) {
            if h.holder == cpu && h.readers == 0 {
                return true;
            }
            h.waiters = true;
            self.stats[id.class as usize].contended += 1;
            return false;
        }
        self.held.push(Held {
            id,
            holder: cpu,
            since: now,
            readers: 0,
            waiters: false,
        });
        self.stats[id.class as usize].acquired += 1;
        true
    }

    /// Takes rwsem `id` for read: shared with other readers, not with a writer.
    pub fn try_read(&mut self, id: LockId, cpu: CpuId, now: u64) -> bool {
        match self.held.iter_mut().find(|h| h.id == id) {
            Some(h) if h.readers > 0 => {
                h.readers += 1;
                self.stats[id.class as usize].acquired += 1;
                true
            }
            Some(h) => {
                h.waiters = true;
                self.stats[id.class as usize].contended += 1;
                false
            }
            None => {
                self.held.push(Held {
                    id,
                    holder: cpu,
                    since: now,
                    readers: 1,
                    waiters: false,
                });
                self.stats[id.class as usize].acquired += 1;
                true
            }
        }
    }

    /// Releases `id` (one reader of a rwsem, or the holder); returns whether the lock
    /// became free with someone waiting for it, so that its waiters must be woken.
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
        let waiters = h.waiters;
        self.held.swap_remove(i);
        waiters
    }

    /// Adds a finished wait of `ns` to `class`.
    pub fn waited(&mut self, class: LockClass, ns: u64) {
        self.stats[class as usize].wait_ns += ns;
    }

    /// The holder of `id`, if held.
    pub fn holder(&self, id: LockId) -> Option<CpuId> {
        self.held.iter().find(|h| h.id == id).map(|h| h.holder)
    }

    /// Whether `id` is held.
    pub fn is_held(&self, id: LockId) -> bool {
        self.held.iter().any(|h| h.id == id)
    }

    /// Locks held now, as `(id, holder)`.
    pub fn held(&self) -> impl Iterator<Item = (LockId, CpuId)> + '_ {
        self.held.iter().map(|h| (h.id, h.holder))
    }

    /// Totals of `class`.
    pub fn stats(&self, class: LockClass) -> LockStats {
        self.stats[class as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_contended_and_accounts_hold_time() {
        let mut l = Locks::default();
        let id = LockId::ptl(0, 1000);
        assert!(l.try_lock(id, 1, 100));
        assert!(l.try_lock(id, 1, 110), "the holder may take it again");
        assert!(!l.try_lock(id, 2, 120));
        assert_eq!(l.holder(id), Some(1));
        assert!(l.unlock(id, 150), "CPU 2 waited: its release must wake it");
        assert!(l.try_lock(id, 2, 160));
        assert!(!l.unlock(id, 170), "nobody waited this time");
        let s = l.stats(LockClass::Ptl);
        assert_eq!((s.acquired, s.contended, s.hold_ns), (2, 1, 60));
    }

    #[test]
    fn readers_share_a_rwsem_and_keep_a_writer_out() {
        let mut l = Locks::default();
        let id = LockId {
            class: LockClass::MmapLock,
            a: 0,
            b: 0,
        };
        assert!(l.try_read(id, 0, 0));
        assert!(l.try_read(id, 1, 0));
        assert!(!l.try_lock(id, 2, 0));
        assert!(!l.unlock(id, 5), "one reader left");
        assert!(l.unlock(id, 9));
        assert!(l.try_lock(id, 2, 10));
        assert!(!l.try_read(id, 0, 10));
    }
}
