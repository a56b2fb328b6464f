//! A CPU's TLB as hardware keeps it: a finite, fully associative cache of
//! translations tagged by address space (as with PCID), with LRU replacement. What the
//! kernel does to it (flushes, shootdowns) is in `arch/x86/mm/tlb.rs`.

/// "Flush everything" as a page count.
pub const FLUSH_ALL: u32 = u32::MAX;

/// One cached translation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlbEntry {
    /// mm index.
    pub mm: u16,
    /// Virtual page.
    pub vpn: u32,
    /// Frame.
    pub pfn: u32,
    /// Writable.
    pub write: bool,
    /// Dirty bit already set (a store needs no walk).
    pub dirty: bool,
    /// LRU stamp.
    stamp: u32,
}

/// A finite, fully associative TLB with LRU replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tlb {
    entries: Vec<TlbEntry>,
    capacity: usize,
    clock: u32,
}

impl Tlb {
    /// An empty TLB of `capacity` entries.
    pub fn new(capacity: u32) -> Self {
        Tlb {
            entries: Vec::with_capacity(capacity as usize),
            capacity: capacity as usize,
            clock: 0,
        }
    }

    /// Looks a translation up, refreshing its LRU stamp.
    pub fn lookup(&mut self, mm: u16, vpn: u32) -> Option<TlbEntry> {
        self.clock = self.clock.wrapping_add(1);
        let now = self.clock;
        let e = self.entries.iter_mut().find(|e| e.mm == mm && e.vpn == vpn)?;
        e.stamp = now;
        Some(*e)
    }

    /// Caches a translation, evicting the least recently used entry when full.
    pub fn insert(&mut self, mm: u16, vpn: u32, pfn: u32, write: bool, dirty: bool) {
        self.clock = self.clock.wrapping_add(1);
        let e = TlbEntry {
            mm,
            vpn,
            pfn,
            write,
            dirty,
            stamp: self.clock,
        };
        if let Some(old) = self.entries.iter_mut().find(|x| x.mm == mm && x.vpn == vpn) {
            *old = e;
        } else if self.entries.len() < self.capacity {
            self.entries.push(e);
        } else if let Some(victim) = self.entries.iter_mut().min_by_key(|x| x.stamp) {
            *victim = e;
        }
    }

    /// Drops every entry of `mm` in `[start, start + pages)`; `FLUSH_ALL` drops all of `mm`'s.
    /// Returns how many entries went.
    pub fn flush_range(&mut self, mm: u16, start: u32, pages: u32) -> usize {
        let before = self.entries.len();
        if pages == FLUSH_ALL {
            self.entries.retain(|e| e.mm != mm);
        } else {
            let end = start.saturating_add(pages);
            self.entries.retain(|e| e.mm != mm || e.vpn < start || e.vpn >= end);
        }
        before - self.entries.len()
    }

    /// Drops every entry of `mm`.
    pub fn flush_mm(&mut self, mm: u16) -> usize {
        self.flush_range(mm, 0, FLUSH_ALL)
    }

    /// The entries, in slot order.
    pub fn entries(&self) -> &[TlbEntry] {
        &self.entries
    }

    /// Capacity.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_tlb_evicts_the_least_recently_used_entry() {
        let mut t = Tlb::new(2);
        t.insert(0, 1, 10, true, false);
        t.insert(0, 2, 20, true, false);
        assert!(t.lookup(0, 1).is_some());
        t.insert(0, 3, 30, true, false);
        assert!(t.lookup(0, 2).is_none(), "entry 2 was least recently used");
        assert!(t.lookup(0, 1).is_some());
        assert!(t.lookup(0, 3).is_some());
    }

    #[test]
    fn a_range_flush_keeps_other_mms_and_pages() {
        let mut t = Tlb::new(8);
        t.insert(0, 1, 10, true, false);
        t.insert(0, 2, 20, true, false);
        t.insert(1, 1, 30, true, false);
        assert_eq!(t.flush_range(0, 1, 1), 1);
        assert!(t.lookup(0, 2).is_some());
        assert!(t.lookup(1, 1).is_some());
        assert_eq!(t.flush_mm(0), 1);
    }
}
