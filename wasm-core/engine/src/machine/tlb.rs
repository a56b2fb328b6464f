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
    /// The frame's owner generation when the entry was filled (`Frames::owner_gen`): a
    /// different one now means the frame was freed since (and maybe reused).
    pub frame_gen: u32,
    /// The mm's `tlb_gen` when the entry was filled (low 32 bits): a flush that asked for a
    /// later generation and returned had to remove it.
    pub fill_gen: u32,
    /// Whether a flush that covered this entry has returned while it stayed cached
    /// ([`Doom`]): the protocol's promise broken.
    pub doomed: Doom,
}

/// Whether a TLB entry outlived a flush that covered it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Doom {
    /// No completed flush covered it.
    #[default]
    No,
    /// A flush covered it and returned while its CPU was lazy or had the mm unloaded: it
    /// is a finding if the CPU uses it before dropping it.
    Owed,
    /// Counted as a finding already.
    Counted,
}

/// No slot (the end of the LRU list, of a bucket's chain, or an empty bucket).
const NIL: u16 = u16::MAX;

/// A finite, fully associative TLB with LRU replacement, in O(1) per operation: the
/// entries sit in fixed slots, a hash table with chaining (a bucket holds its first slot,
/// each slot the next one of its bucket) maps `mm << 32 | vpn` to a slot, and a doubly
/// linked list over the slots keeps them in order of last use (head: least recently
/// used, the victim; tail: most recent). A lookup hit moves its slot to the tail.
/// (An earlier version scanned flat arrays of tags and LRU stamps, and a later one used
/// open addressing with backward-shift deletion; they all agree on every hit, miss and
/// victim, which a test checks against the scanning version.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tlb {
    slots: Vec<TlbEntry>,
    used: Vec<bool>,
    prev: Vec<u16>,
    next: Vec<u16>,
    head: u16,
    tail: u16,
    /// Free slots; the lowest is taken first.
    free: Vec<u16>,
    /// Each slot's key, `mm << 32 | vpn` (compared on lookup).
    keys: Vec<u64>,
    /// The first slot of each hash bucket's chain, or [`NIL`]; a power of two at least
    /// twice the capacity, so chains stay short.
    buckets: Vec<u16>,
    /// Each slot's successor in its bucket's chain, or [`NIL`].
    chain: Vec<u16>,
    /// `64 - log2(buckets.len())`: the hash's shift.
    shift: u32,
    len: usize,
}

#[inline]
fn key(mm: u16, vpn: u32) -> u64 {
    u64::from(mm) << 32 | u64::from(vpn)
}

impl Tlb {
    /// An empty TLB of `capacity` entries (at most 65,534).
    pub fn new(capacity: u32) -> Self {
        let n = capacity.min(u32::from(NIL) - 1) as usize;
        let buckets = (2 * n).next_power_of_two().max(2);
        let blank = TlbEntry {
            mm: 0,
            vpn: 0,
            pfn: 0,
            write: false,
            dirty: false,
            frame_gen: 0,
            fill_gen: 0,
            doomed: Doom::No,
        };
        Tlb {
            slots: vec![blank; n],
            used: vec![false; n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            head: NIL,
            tail: NIL,
            free: (0..n as u16).rev().collect(),
            keys: vec![0; n],
            buckets: vec![NIL; buckets],
            chain: vec![NIL; n],
            shift: 64 - buckets.trailing_zeros(),
            len: 0,
        }
    }

    #[inline]
    fn home(&self, k: u64) -> usize {
        // Fibonacci hashing; the bucket count is a power of two.
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The slot holding `k`, if any.
    #[inline]
    fn find(&self, k: u64) -> Option<u16> {
        let mut s = self.buckets[self.home(k)];
        while s != NIL {
            if self.keys[s as usize] == k {
                return Some(s);
            }
            s = self.chain[s as usize];
        }
        None
    }

    /// Files slot `s` under key `k`.
    #[inline]
    fn hash(&mut self, k: u64, s: u16) {
        let b = self.home(k);
        self.keys[s as usize] = k;
        self.chain[s as usize] = self.buckets[b];
        self.buckets[b] = s;
    }

    /// Takes slot `s` out of its bucket's chain.
    #[inline]
    fn unhash(&mut self, s: u16) {
        let b = self.home(self.keys[s as usize]);
        let after = self.chain[s as usize];
        if self.buckets[b] == s {
            self.buckets[b] = after;
        } else {
            let mut p = self.buckets[b];
            while self.chain[p as usize] != s {
                p = self.chain[p as usize];
            }
            self.chain[p as usize] = after;
        }
        self.chain[s as usize] = NIL;
    }

    #[inline]
    fn unlink(&mut self, s: u16) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    #[inline]
    fn push_tail(&mut self, s: u16) {
        self.prev[s as usize] = self.tail;
        self.next[s as usize] = NIL;
        if self.tail == NIL {
            self.head = s;
        } else {
            self.next[self.tail as usize] = s;
        }
        self.tail = s;
    }

    #[inline]
    fn touch(&mut self, s: u16) {
        if self.tail != s {
            self.unlink(s);
            self.push_tail(s);
        }
    }

    /// Looks a translation up; a hit becomes the most recently used entry.
    #[inline]
    pub fn lookup(&mut self, mm: u16, vpn: u32) -> Option<TlbEntry> {
        let s = self.find(key(mm, vpn))?;
        self.touch(s);
        Some(self.slots[s as usize])
    }

    /// Caches a translation (replacing the same one if cached), evicting the least
    /// recently used entry when full.
    pub fn insert(&mut self, mm: u16, vpn: u32, pfn: u32, write: bool, dirty: bool) {
        self.insert_entry(TlbEntry {
            mm,
            vpn,
            pfn,
            write,
            dirty,
            frame_gen: 0,
            fill_gen: 0,
            doomed: Doom::No,
        });
    }

    /// Caches `e` (what a page walk fills, with its generations).
    pub fn insert_entry(&mut self, e: TlbEntry) {
        let k = key(e.mm, e.vpn);
        if let Some(s) = self.find(k) {
            self.slots[s as usize] = e;
            self.touch(s);
            return;
        }
        let s = match self.free.pop() {
            Some(s) => {
                self.len += 1;
                s
            }
            None if self.head == NIL => return, // a TLB of no entries
            None => {
                let v = self.head;
                self.unhash(v);
                self.unlink(v);
                v
            }
        };
        self.slots[s as usize] = e;
        self.used[s as usize] = true;
        self.hash(k, s);
        self.push_tail(s);
    }

    /// Drops every entry of `mm` in `[start, start + pages)`; `FLUSH_ALL` drops all of `mm`'s.
    /// Returns how many entries went.
    pub fn flush_range(&mut self, mm: u16, start: u32, pages: u32) -> usize {
        let (start, end) = if pages == FLUSH_ALL {
            (0, u64::MAX)
        } else {
            (start, u64::from(start) + u64::from(pages))
        };
        let mut dropped = 0;
        if end - u64::from(start) < self.slots.len() as u64 / 2 {
            // A few pages (a shootdown of one page is the common case): look each up
            // instead of scanning every slot. The same entries go either way.
            for vpn in u64::from(start)..end {
                let Ok(vpn) = u32::try_from(vpn) else { break };
                if let Some(s) = self.find(key(mm, vpn)) {
                    self.drop_slot(s);
                    dropped += 1;
                }
            }
        } else {
            for s in 0..self.slots.len() {
                let e = self.slots[s];
                if self.used[s] && e.mm == mm && e.vpn >= start && u64::from(e.vpn) < end {
                    self.drop_slot(s as u16);
                    dropped += 1;
                }
            }
        }
        if dropped > 0 {
            // Keep "lowest free slot first".
            self.free.sort_unstable_by(|a, b| b.cmp(a));
            self.len -= dropped;
        }
        dropped
    }

    /// A flush of `[start, start + pages)` of `mm` (or all of it) that asked for
    /// generation `gen` has returned: every entry in it filled before that generation
    /// should be gone. Marks those still cached ([`Doom::Counted`] when `counted`, else
    /// [`Doom::Owed`]) and returns how many there were. Entries marked before are left.
    pub fn doom(&mut self, mm: u16, start: u32, pages: u32, gen: u32, counted: bool) -> usize {
        let mark = if counted { Doom::Counted } else { Doom::Owed };
        let before = |e: &TlbEntry| (gen.wrapping_sub(e.fill_gen) as i32) > 0 && e.doomed == Doom::No;
        let mut n = 0;
        if self.len == 0 {
            return 0;
        }
        if pages != FLUSH_ALL && (pages as usize) < self.slots.len() / 2 {
            for vpn in u64::from(start)..u64::from(start) + u64::from(pages) {
                let Ok(vpn) = u32::try_from(vpn) else { break };
                if let Some(s) = self.find(key(mm, vpn)) {
                    let e = &mut self.slots[s as usize];
                    if before(e) {
                        e.doomed = mark;
                        n += 1;
                    }
                }
            }
        } else {
            let end = if pages == FLUSH_ALL {
                u64::MAX
            } else {
                u64::from(start) + u64::from(pages)
            };
            for s in 0..self.slots.len() {
                let e = &mut self.slots[s];
                if self.used[s] && e.mm == mm && e.vpn >= start && u64::from(e.vpn) < end && before(e) {
                    e.doomed = mark;
                    n += 1;
                }
            }
        }
        n
    }

    /// Marks the cached entry of `(mm, vpn)`, an owed one that was just used, as counted.
    pub fn set_counted(&mut self, mm: u16, vpn: u32) {
        if let Some(s) = self.find(key(mm, vpn)) {
            self.slots[s as usize].doomed = Doom::Counted;
        }
    }

    /// Empties slot `s` (the caller keeps `free` in order and `len`).
    #[inline]
    fn drop_slot(&mut self, s: u16) {
        self.unhash(s);
        self.unlink(s);
        self.used[s as usize] = false;
        self.free.push(s);
    }

    /// Drops every entry of `mm`.
    pub fn flush_mm(&mut self, mm: u16) -> usize {
        self.flush_range(mm, 0, FLUSH_ALL)
    }

    /// The cached entries, in slot order.
    pub fn entries(&self) -> impl Iterator<Item = &TlbEntry> + '_ {
        self.slots.iter().zip(&self.used).filter(|(_, &u)| u).map(|(e, _)| e)
    }

    /// Entries cached.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Capacity.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // reason: a test may stop at the first surprise
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

    /// The previous TLB: flat arrays, a scan per lookup, the oldest stamp evicted.
    struct Reference {
        keys: Vec<u64>,
        stamps: Vec<u32>,
        cap: usize,
        clock: u32,
    }

    impl Reference {
        fn lookup(&mut self, k: u64) -> bool {
            self.clock += 1;
            match self.keys.iter().position(|&x| x == k) {
                Some(i) => {
                    self.stamps[i] = self.clock;
                    true
                }
                None => false,
            }
        }
        fn insert(&mut self, k: u64) {
            self.clock += 1;
            if let Some(i) = self.keys.iter().position(|&x| x == k) {
                self.stamps[i] = self.clock;
            } else if self.keys.len() < self.cap {
                self.keys.push(k);
                self.stamps.push(self.clock);
            } else if self.cap > 0 {
                let (v, _) = self.stamps.iter().enumerate().min_by_key(|(_, &s)| s).unwrap_or((0, &0));
                self.keys[v] = k;
                self.stamps[v] = self.clock;
            }
        }
        fn flush(&mut self, mm: u16, start: u32, pages: u32) -> usize {
            let before = self.keys.len();
            let mut i = 0;
            while i < self.keys.len() {
                let (m, v) = ((self.keys[i] >> 32) as u16, self.keys[i] as u32);
                if m == mm && v >= start && u64::from(v) < u64::from(start) + u64::from(pages) {
                    self.keys.remove(i);
                    self.stamps.remove(i);
                } else {
                    i += 1;
                }
            }
            before - self.keys.len()
        }
    }

    proptest::proptest! {
        #[test]
        fn it_hits_misses_and_evicts_exactly_as_the_scanning_tlb(
            cap in 0u32..12,
            ops in proptest::collection::vec((0u8..4, 0u16..2, 0u32..24, 1u32..6), 1..400),
        ) {
            let mut t = Tlb::new(cap);
            let mut r = Reference { keys: Vec::new(), stamps: Vec::new(), cap: cap as usize, clock: 0 };
            for (op, mm, vpn, pages) in ops {
                match op {
                    0 | 1 => proptest::prop_assert_eq!(t.lookup(mm, vpn).is_some(), r.lookup(key(mm, vpn))),
                    2 => {
                        t.insert(mm, vpn, vpn + 100, true, false);
                        r.insert(key(mm, vpn));
                    }
                    _ => proptest::prop_assert_eq!(t.flush_range(mm, vpn, pages), r.flush(mm, vpn, pages)),
                }
                let mut a: Vec<u64> = t.entries().map(|e| key(e.mm, e.vpn)).collect();
                let mut b = r.keys.clone();
                a.sort_unstable();
                b.sort_unstable();
                proptest::prop_assert_eq!(a, b);
                proptest::prop_assert_eq!(t.len(), r.keys.len());
            }
        }
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
