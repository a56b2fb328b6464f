//! `arch/x86/mm/tlb.c`: `flush_tlb_mm_range`, the shootdown IPI handler and
//! `switch_mm_irqs_off`.
//!
//! Follows Linux v5.12 (`flush_tlb_mm_range`, `flush_tlb_others` ->
//! `native_flush_tlb_others`, `flush_tlb_func_remote`, `switch_mm_irqs_off`): a range
//! above `tlb_single_page_flush_ceiling` pages becomes a full flush; the sender flushes
//! locally if it has the mm loaded, then IPIs every *other, non-lazy* CPU in
//! `mm_cpumask(mm)` and waits for all of them. Left out for now (the NUMA-fidelity work
//! adds them): `on_each_cpu_cond_mask` running the flush function on the sender too,
//! the `tlb_gen` comparison in `flush_tlb_func_common` (a receiver always flushes what
//! it is asked to), a lazy receiver switching to `init_mm`, and `freed_tables`.

use crate::core::{Flow, Until};
use crate::engine::{say, Sim};
use crate::machine::{CpuMask, Ipi, FLUSH_ALL};
use crate::mech::core::ev as core_ev;
use crate::mech::core::{
    IRQ_TLB_COUNT, LAZY_TLB_SKIPS, NR_TLB_LOCAL_FLUSH_ALL, NR_TLB_LOCAL_FLUSH_ONE, NR_TLB_REMOTE_FLUSH, NR_TLB_REMOTE_FLUSH_RECEIVED,
};
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// Where a `flush_tlb_mm_range` call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pc {
    /// F1-F3: ceiling check, generation bump, local flush.
    Local,
    /// F4: send the IPIs.
    Send,
    /// F5: every acknowledgement is in.
    Acked,
}

/// `flush_tlb_mm_range(mm, start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlushTlbMmRange {
    mm: u16,
    start: u32,
    pages: u32,
    pc: Pc,
    sent: u16,
}

impl FlushTlbMmRange {
    /// A call flushing `pages` pages (or [`FLUSH_ALL`]) of `mm` from `start`.
    pub fn frame(mm: u16, start: u32, pages: u32) -> Frame {
        Frame::from(FlushTlbMmRange {
            mm,
            start,
            pages,
            pc: Pc::Local,
            sent: 0,
        })
    }
}

impl Function for FlushTlbMmRange {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "flush_tlb_mm_range";
        let c = cpu as usize;
        let pid = sim.st.mms[self.mm as usize].pid;
        match self.pc {
            Pc::Local => {
                let ceiling = sim.cfg.knobs.tlb_single_page_flush_ceiling;
                if self.pages != FLUSH_ALL && self.pages > ceiling {
                    self.pages = FLUSH_ALL;
                }
                sim.st.mms[self.mm as usize].tlb_gen += 1;
                let mut what = String::new();
                if sim.st.cpus[c].loaded_mm == Some(self.mm) {
                    let dropped = sim.st.cpus[c].tlb.flush_range(self.mm, self.start, self.pages);
                    if self.pages == FLUSH_ALL {
                        sim.st.counters.inc(NR_TLB_LOCAL_FLUSH_ALL);
                        sim.charge(cpu, sim.cfg.costs.full_flush_ns);
                        what = say!(sim, "full local flush (CR3 reload), {dropped} entries dropped");
                    } else {
                        sim.st.counters.add(NR_TLB_LOCAL_FLUSH_ONE, u64::from(self.pages));
                        sim.charge(cpu, sim.cfg.costs.invlpg_ns * u64::from(self.pages));
                        what = say!(sim, "INVLPG of {} page(s), {dropped} entries dropped", self.pages);
                    }
                    sim.st.cpus[c].seen_gen = sim.st.mms[self.mm as usize].tlb_gen;
                }
                let (targets, lazy) = flush_targets(sim, cpu, self.mm);
                sim.st.counters.add(LAZY_TLB_SKIPS, u64::from(lazy.weight()));
                let range = if self.pages == FLUSH_ALL {
                    say!(sim, "everything (range above the {ceiling}-page ceiling or a full flush)")
                } else {
                    say!(sim, "{} page(s) at {:#x}", self.pages, self.start)
                };
                let lazy_note = if lazy.is_empty() {
                    String::new()
                } else {
                    say!(sim, "; lazy CPU(s) {:?} are skipped", lazy.iter().collect::<Vec<_>>())
                };
                if targets.is_empty() {
                    let ev = Ev::new(core_ev::FLUSH_LOCAL, F, "F3").cpus(lazy).say(say!(
                        sim,
                        "CPU {cpu} flushes {range} for mm {pid}: {what}; no other non-lazy CPU in mm_cpumask, so no IPI{lazy_note}"
                    ));
                    return (ev, Flow::Return(crate::core::Ret::Unit));
                }
                self.pc = Pc::Send;
                let ev = Ev::new(core_ev::FLUSH_LOCAL, F, "F3").say(say!(
                    sim,
                    "CPU {cpu} flushes {range} for mm {pid}: {}; other CPUs in mm_cpumask may cache it too{lazy_note}",
                    if what.is_empty() {
                        "mm not loaded here, nothing local".to_string()
                    } else {
                        what
                    }
                ));
                (ev, Flow::Continue)
            }
            Pc::Send => {
                let (targets, _) = flush_targets(sim, cpu, self.mm);
                if targets.is_empty() {
                    // The other CPUs went lazy (or left the mask) since the local flush.
                    let ev = Ev::new(core_ev::FLUSH_LOCAL, F, "F4").say(say!(
                        sim,
                        "No other CPU of mm {pid} is running non-lazily any more: no IPI is needed"
                    ));
                    return (ev, Flow::Return(crate::core::Ret::Unit));
                }
                sim.st.counters.inc(NR_TLB_REMOTE_FLUSH);
                sim.charge(cpu, sim.cfg.costs.ipi_send_ns);
                let arrive = sim.clock(cpu) + sim.cfg.costs.ipi_latency_ns;
                let cause = sim.st.step;
                for t in targets.iter() {
                    sim.st.cpus[t as usize].inbox.push_back(Ipi {
                        from: cpu,
                        mm: self.mm,
                        start: self.start,
                        pages: self.pages,
                        arrive,
                        cause,
                    });
                    sim.touch(t);
                }
                self.sent = targets.weight() as u16;
                self.pc = Pc::Acked;
                sim.st.cpus[c].acks_pending = self.sent;
                sim.st.cpus[c].acks_last = arrive;
                let ev = Ev::new(core_ev::IPI_SEND, F, "F4").cpus(targets).say(say!(
                    sim,
                    "CPU {cpu} sends a TLB-shootdown IPI to CPU(s) {:?} and waits for them",
                    targets.iter().collect::<Vec<_>>()
                ));
                (ev, Flow::Block(Until::Acks))
            }
            Pc::Acked => {
                let ev = Ev::new(core_ev::IPI_ACKED, F, "F5").say(say!(
                    sim,
                    "All {} CPU(s) have flushed; CPU {cpu} returns from flush_tlb_mm_range",
                    self.sent
                ));
                (ev, Flow::Return(crate::core::Ret::Unit))
            }
        }
    }

    fn flush_under_way(&self, _mm: u16) -> bool {
        true
    }
}

/// Other CPUs in `mm_cpumask(mm)` that get an IPI (not lazy), and the lazy ones skipped.
fn flush_targets(sim: &Sim, cpu: CpuId, mm: u16) -> (CpuMask, CpuMask) {
    let mut targets = CpuMask::EMPTY;
    let mut lazy = CpuMask::EMPTY;
    for c in sim.st.mms[mm as usize].cpumask.iter() {
        if c == cpu {
            continue;
        }
        if sim.st.cpus[c as usize].lazy {
            lazy.set(c);
        } else {
            targets.set(c);
        }
    }
    (targets, lazy)
}

/// `flush_tlb_func_remote`: the shootdown IPI's handler, run on the receiving CPU on top
/// of whatever it was doing.
#[derive(Clone, Copy, Debug)]
pub struct FlushTlbFunc {
    ipi: Ipi,
}

impl FlushTlbFunc {
    /// The handler frame for `ipi`.
    pub fn frame(ipi: Ipi) -> Frame {
        Frame::from(FlushTlbFunc { ipi })
    }
}

impl Function for FlushTlbFunc {
    /// The handler: one line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let c = cpu as usize;
        let ipi = self.ipi;
        sim.st.cpus[c].inbox.pop_front();
        sim.st.counters.inc(IRQ_TLB_COUNT);
        sim.charge(cpu, sim.cfg.costs.ipi_handler_ns);
        // Cycles stolen from user code: the interrupted computation ends later.
        if let crate::machine::Wait::Busy(until) = sim.st.cpus[c].wait {
            sim.st.cpus[c].wait = crate::machine::Wait::Busy(until + sim.cfg.costs.ipi_handler_ns);
        }
        let pid = sim.st.mms[ipi.mm as usize].pid;
        let text = if sim.st.cpus[c].loaded_mm == Some(ipi.mm) {
            sim.st.counters.inc(NR_TLB_REMOTE_FLUSH_RECEIVED);
            let dropped = sim.st.cpus[c].tlb.flush_range(ipi.mm, ipi.start, ipi.pages);
            sim.st.cpus[c].seen_gen = sim.st.mms[ipi.mm as usize].tlb_gen;
            say!(
                sim,
                "CPU {cpu} takes the shootdown IPI from CPU {} and flushes mm {pid}'s {}: {dropped} TLB entr{} dropped (the kernel cannot know beforehand whether any were cached)",
                ipi.from,
                if ipi.pages == FLUSH_ALL { "whole TLB".to_string() } else { format!("{} page(s) at {:#x}", ipi.pages, ipi.start) },
                if dropped == 1 { "y" } else { "ies" }
            )
        } else {
            say!(
                sim,
                "CPU {cpu} takes the shootdown IPI from CPU {}, but mm {pid} is no longer loaded here: nothing to flush",
                ipi.from
            )
        };
        // Acknowledge: the sender stops waiting once the last ack is in.
        let now = sim.clock(cpu);
        let sender = &mut sim.st.cpus[ipi.from as usize];
        sender.acks_last = sender.acks_last.max(now);
        sender.acks_pending = sender.acks_pending.saturating_sub(1);
        if sender.acks_pending == 0 && sender.wait == crate::machine::Wait::Acks {
            sender.wait = crate::machine::Wait::None;
            sender.clock = sender.clock.max(sender.acks_last);
            sim.touch(ipi.from);
        }
        let mut from = CpuMask::EMPTY;
        from.set(ipi.from);
        let ev = Ev::new(core_ev::IPI_RECV, "flush_tlb_func_remote", "R3").cpus(from).say(text);
        (ev, Flow::Return(crate::core::Ret::Unit))
    }

    fn is_interrupt(&self) -> bool {
        true
    }
}

/// `switch_mm_irqs_off(prev, next)` for a switch to a user thread of `next_mm`: back to
/// the lazily kept mm (catch up on flushes missed while lazy), or to another mm (leave
/// the old mm's `mm_cpumask`, join the new one's, and drop the new mm's possibly stale
/// entries as a fresh ASID would).
pub(crate) fn switch_mm_irqs_off(sim: &mut Sim, cpu: CpuId, next_mm: u16) -> Ev {
    const F: &str = "switch_mm_irqs_off";
    let c = cpu as usize;
    let gen = sim.st.mms[next_mm as usize].tlb_gen;
    let pid = sim.st.mms[next_mm as usize].pid;
    if sim.st.cpus[c].loaded_mm == Some(next_mm) {
        let was_lazy = std::mem::replace(&mut sim.st.cpus[c].lazy, false);
        if sim.st.cpus[c].seen_gen < gen {
            sim.st.cpus[c].tlb.flush_mm(next_mm);
            sim.st.cpus[c].seen_gen = gen;
            sim.charge(cpu, sim.cfg.costs.full_flush_ns);
            return Ev::new(core_ev::WAKE, F, "W2").say(say!(
                sim,
                "flushes happened while CPU {cpu} was lazy, so it flushes mm {pid}'s TLB entries now (no IPI was needed)"
            ));
        }
        return Ev::new(core_ev::WAKE, F, "W2").say(say!(
            sim,
            "CPU {cpu} {} mm {pid}; its TLB is up to date",
            if was_lazy { "leaves lazy mode on" } else { "stays on" }
        ));
    }
    if let Some(old) = sim.st.cpus[c].loaded_mm {
        sim.st.mms[old as usize].cpumask.clear(cpu);
    }
    sim.st.mms[next_mm as usize].cpumask.set(cpu);
    sim.st.cpus[c].tlb.flush_mm(next_mm);
    sim.st.cpus[c].loaded_mm = Some(next_mm);
    sim.st.cpus[c].lazy = false;
    sim.st.cpus[c].seen_gen = gen;
    sim.charge(cpu, sim.cfg.costs.full_flush_ns);
    Ev::new(core_ev::SWITCH, F, "W3").say(say!(
        sim,
        "CPU {cpu} loads mm {pid}: it leaves the old mm's mm_cpumask and joins mm {pid}'s"
    ))
}
