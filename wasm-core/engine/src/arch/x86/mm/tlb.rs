//! `arch/x86/mm/tlb.c`: per-CPU TLBs, `flush_tlb_mm_range` and the shootdown IPIs.
//!
//! Follows Linux v5.12 (`flush_tlb_mm_range`, `flush_tlb_others` ->
//! `native_flush_tlb_others`, `flush_tlb_func_remote`): a range above
//! `tlb_single_page_flush_ceiling` pages becomes a full flush; the sender flushes
//! locally if it has the mm loaded, then IPIs every *other, non-lazy* CPU in
//! `mm_cpumask(mm)` and waits for all of them. Left out: PCID/ASID switching, the
//! per-CPU generation fast paths (a receiver always flushes what it is asked to), and
//! `freed_tables` (which would also IPI lazy CPUs).

use crate::counters::Counter;
use crate::engine::{say, Sim};
use crate::state::{Ipi, Wait, FLUSH_ALL};
use crate::topology::CpuId;
use crate::trace::{Ev, EventKind};

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

/// Where a `flush_tlb_mm_range` call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushPc {
    /// F1-F3: ceiling check, generation bump, local flush.
    Local,
    /// F4: send the IPIs.
    Send,
    /// F5: all acknowledgements are in.
    Acked,
}

/// A `flush_tlb_mm_range` call in progress on a CPU (nested inside its flow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlushOp {
    /// mm index.
    pub mm: u16,
    /// First vpn.
    pub start: u32,
    /// Pages asked for (`FLUSH_ALL` = everything).
    pub pages: u32,
    /// Progress.
    pub pc: FlushPc,
    /// Number of IPIs sent.
    pub sent: u16,
}

impl Sim {
    /// Starts `flush_tlb_mm_range(mm, start, start + pages)` on `cpu`; the flush's own
    /// steps run before the caller's flow continues.
    pub(crate) fn start_flush(&mut self, cpu: CpuId, mm: u16, start: u32, pages: u32) {
        self.st.cpus[cpu as usize].flush = Some(FlushOp {
            mm,
            start,
            pages,
            pc: FlushPc::Local,
            sent: 0,
        });
    }

    /// Other CPUs in `mm_cpumask(mm)` that would get an IPI (not lazy), and the lazy ones skipped.
    pub(crate) fn flush_targets(&self, cpu: CpuId, mm: u16) -> (Vec<CpuId>, Vec<CpuId>) {
        let mut targets = Vec::new();
        let mut lazy = Vec::new();
        for c in self.st.mms[mm as usize].cpumask.iter() {
            if c == cpu {
                continue;
            }
            if self.st.cpus[c as usize].lazy {
                lazy.push(c);
            } else {
                targets.push(c);
            }
        }
        (targets, lazy)
    }

    /// One step of a `flush_tlb_mm_range` in progress on `cpu`.
    pub(crate) fn flush_tlb_mm_range_step(&mut self, cpu: CpuId) -> Ev {
        let c = cpu as usize;
        let Some(mut op) = self.st.cpus[c].flush else {
            return Ev::default();
        };
        let pid = self.st.mms[op.mm as usize].pid;
        match op.pc {
            FlushPc::Local => {
                let ceiling = self.cfg.knobs.tlb_single_page_flush_ceiling;
                if op.pages != FLUSH_ALL && op.pages > ceiling {
                    op.pages = FLUSH_ALL;
                }
                self.st.mms[op.mm as usize].tlb_gen += 1;
                let mut what = String::new();
                if self.st.cpus[c].loaded_mm == Some(op.mm) {
                    let dropped = self.st.cpus[c].tlb.flush_range(op.mm, op.start, op.pages);
                    if op.pages == FLUSH_ALL {
                        self.st.counters.inc(Counter::NrTlbLocalFlushAll);
                        self.charge(cpu, self.cfg.costs.full_flush_ns);
                        what = say!(self, "full local flush (CR3 reload), {dropped} entries dropped");
                    } else {
                        self.st.counters.add(Counter::NrTlbLocalFlushOne, u64::from(op.pages));
                        self.charge(cpu, self.cfg.costs.invlpg_ns * u64::from(op.pages));
                        what = say!(self, "INVLPG of {} page(s), {dropped} entries dropped", op.pages);
                    }
                    self.st.cpus[c].seen_gen = self.st.mms[op.mm as usize].tlb_gen;
                }
                let (targets, lazy) = self.flush_targets(cpu, op.mm);
                let range = if op.pages == FLUSH_ALL {
                    say!(self, "everything (range above the {ceiling}-page ceiling or a full flush)")
                } else {
                    say!(self, "{} page(s) at {:#x}", op.pages, op.start)
                };
                let lazy_note = if lazy.is_empty() {
                    String::new()
                } else {
                    say!(self, "; lazy CPU(s) {lazy:?} are skipped")
                };
                if targets.is_empty() {
                    self.st.cpus[c].flush = None;
                    let mut ev = Ev::new(EventKind::FlushLocal, "flush_tlb_mm_range", "F3").say(say!(
                        self,
                        "CPU {cpu} flushes {range} for mm {pid}: {what}; no other non-lazy CPU in mm_cpumask, so no IPI{lazy_note}"
                    ));
                    if self.recording {
                        ev.cpus = lazy;
                    }
                    return ev;
                }
                op.pc = FlushPc::Send;
                self.st.cpus[c].flush = Some(op);
                Ev::new(EventKind::FlushLocal, "flush_tlb_mm_range", "F3").say(say!(
                    self,
                    "CPU {cpu} flushes {range} for mm {pid}: {}; other CPUs in mm_cpumask may cache it too{lazy_note}",
                    if what.is_empty() {
                        "mm not loaded here, nothing local".to_string()
                    } else {
                        what
                    }
                ))
            }
            FlushPc::Send => {
                let (targets, _) = self.flush_targets(cpu, op.mm);
                if targets.is_empty() {
                    // The other CPUs went lazy (or left the mask) since the local flush.
                    self.st.cpus[c].flush = None;
                    return Ev::new(EventKind::FlushLocal, "flush_tlb_mm_range", "F4").say(say!(
                        self,
                        "No other CPU of mm {pid} is running non-lazily any more: no IPI is needed"
                    ));
                }
                self.st.counters.inc(Counter::NrTlbRemoteFlush);
                self.charge(cpu, self.cfg.costs.ipi_send_ns);
                let arrive = self.st.cpus[c].clock + self.cfg.costs.ipi_latency_ns;
                for &t in &targets {
                    self.st.cpus[t as usize].inbox.push_back(Ipi {
                        from: cpu,
                        mm: op.mm,
                        start: op.start,
                        pages: op.pages,
                        arrive,
                    });
                }
                op.sent = targets.len() as u16;
                op.pc = FlushPc::Acked;
                self.st.cpus[c].flush = Some(op);
                self.st.cpus[c].wait = Wait::Acks {
                    pending: op.sent,
                    last: arrive,
                };
                let mut ev = Ev::new(EventKind::IpiSend, "flush_tlb_mm_range", "F4").say(say!(
                    self,
                    "CPU {cpu} sends a TLB-shootdown IPI to CPU(s) {targets:?} and waits for them"
                ));
                if self.recording {
                    ev.cpus = targets;
                }
                ev
            }
            FlushPc::Acked => {
                self.st.cpus[c].flush = None;
                Ev::new(EventKind::IpiAcked, "flush_tlb_mm_range", "F5").say(say!(
                    self,
                    "All {} CPU(s) have flushed; CPU {cpu} returns from flush_tlb_mm_range",
                    op.sent
                ))
            }
        }
    }

    /// `flush_tlb_func_remote`: `cpu` handles the oldest IPI in its inbox.
    pub(crate) fn flush_tlb_func_remote(&mut self, cpu: CpuId) -> Ev {
        let c = cpu as usize;
        let Some(ipi) = self.st.cpus[c].inbox.pop_front() else {
            return Ev::default();
        };
        self.st.counters.inc(Counter::IrqTlbCount);
        self.charge(cpu, self.cfg.costs.ipi_handler_ns);
        // Cycles stolen from user code: the interrupted computation ends later.
        if let Wait::Compute(until) = self.st.cpus[c].wait {
            self.st.cpus[c].wait = Wait::Compute(until + self.cfg.costs.ipi_handler_ns);
        }
        let pid = self.st.mms[ipi.mm as usize].pid;
        let text;
        if self.st.cpus[c].loaded_mm == Some(ipi.mm) {
            self.st.counters.inc(Counter::NrTlbRemoteFlushReceived);
            let dropped = self.st.cpus[c].tlb.flush_range(ipi.mm, ipi.start, ipi.pages);
            self.st.cpus[c].seen_gen = self.st.mms[ipi.mm as usize].tlb_gen;
            text = say!(
                self,
                "CPU {cpu} takes the shootdown IPI from CPU {} and flushes mm {pid}'s {}: {dropped} TLB entr{} dropped (the kernel cannot know beforehand whether any were cached)",
                ipi.from,
                if ipi.pages == FLUSH_ALL { "whole TLB".to_string() } else { format!("{} page(s) at {:#x}", ipi.pages, ipi.start) },
                if dropped == 1 { "y" } else { "ies" }
            );
        } else {
            text = say!(
                self,
                "CPU {cpu} takes the shootdown IPI from CPU {}, but mm {pid} is no longer loaded here: nothing to flush",
                ipi.from
            );
        }
        // Acknowledge: the sender stops waiting once the last ack is in.
        let now = self.st.cpus[c].clock;
        let sender = &mut self.st.cpus[ipi.from as usize];
        if let Wait::Acks { pending, last } = sender.wait {
            let last = last.max(now);
            if pending <= 1 {
                sender.wait = Wait::None;
                sender.clock = sender.clock.max(last);
            } else {
                sender.wait = Wait::Acks {
                    pending: pending - 1,
                    last,
                };
            }
        }
        let mut ev = Ev::new(EventKind::IpiRecv, "flush_tlb_func_remote", "R3").say(text);
        if self.recording {
            ev.cpus = vec![ipi.from];
        }
        ev
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
