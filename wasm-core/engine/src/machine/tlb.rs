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
}

/// A finite, fully associative TLB with LRU replacement. The tags and the LRU stamps are
/// kept in flat arrays beside the entries so that a lookup or a victim search is a scan
/// over plain integers; the three arrays always have the same length and order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tlb {
    entries: Vec<TlbEntry>,
    /// `mm << 32 | vpn` of each entry.
    keys: Vec<u64>,
    /// Last use of each entry.
    stamps: Vec<u32>,
    capacity: usize,
    clock: u32,
}

#[inline]
fn key(mm: u16, vpn: u32) -> u64 {
    u64::from(mm) << 32 | u64::from(vpn)
}

impl Tlb {
    /// An empty TLB of `capacity` entries.
    pub fn new(capacity: u32) -> Self {
        let n = capacity as usize;
        Tlb {
            entries: Vec::with_capacity(n),
            keys: Vec::with_capacity(n),
            stamps: Vec::with_capacity(n),
            capacity: n,
            clock: 0,
        }
    }

    /// Looks a translation up, refreshing its LRU stamp.
    #[inline]
    pub fn lookup(&mut self, mm: u16, vpn: u32) -> Option<TlbEntry> {
        self.clock = self.clock.wrapping_add(1);
        let k = key(mm, vpn);
        let i = self.keys.iter().position(|&x| x == k)?;
        self.stamps[i] = self.clock;
        Some(self.entries[i])
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
        };
        let k = key(mm, vpn);
        // One pass finds the entry to replace: the same translation if cached, else the
        // first entry with the oldest stamp (the LRU victim, used only when full).
        let mut victim = 0;
        let mut oldest = u32::MAX;
        let mut found = None;
        for (i, (&x, &st)) in self.keys.iter().zip(&self.stamps).enumerate() {
            if x == k {
                found = Some(i);
                break;
            }
            if st < oldest {
                oldest = st;
                victim = i;
            }
        }
        let slot = match found {
            Some(i) => i,
            None if self.entries.len() < self.capacity => {
                self.entries.push(e);
                self.keys.push(k);
                self.stamps.push(self.clock);
                return;
            }
            None if self.entries.is_empty() => return,
            None => victim,
        };
        self.entries[slot] = e;
        self.keys[slot] = k;
        self.stamps[slot] = self.clock;
    }

    /// Drops every entry of `mm` in `[start, start + pages)`; `FLUSH_ALL` drops all of `mm`'s.
    /// Returns how many entries went. The others keep their order.
    pub fn flush_range(&mut self, mm: u16, start: u32, pages: u32) -> usize {
        let end = if pages == FLUSH_ALL {
            u32::MAX
        } else {
            start.saturating_add(pages)
        };
        let start = if pages == FLUSH_ALL { 0 } else { start };
        let before = self.entries.len();
        let mut w = 0;
        for r in 0..before {
            let e = self.entries[r];
            let drop = e.mm == mm && e.vpn >= start && (e.vpn < end || pages == FLUSH_ALL);
            if !drop {
                self.entries[w] = e;
                self.keys[w] = self.keys[r];
                self.stamps[w] = self.stamps[r];
                w += 1;
            }
        }
        self.entries.truncate(w);
        self.keys.truncate(w);
        self.stamps.truncate(w);
        before - w
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
