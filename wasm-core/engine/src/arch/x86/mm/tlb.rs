//! `arch/x86/mm/tlb.c`: `flush_tlb_mm_range`, the shootdown IPI handler and
//! `switch_mm_irqs_off`.
//!
//! Four eras, chosen by the core toggles `tlb_lazy` and `tlb_flush_multi`:
//! - **up to v4.19** (`tlb_lazy` = `ipi` or `init_mm_with_pcid`): `flush_tlb_mm_range`
//!   flushes locally first,
//!   then `native_flush_tlb_others` counts `nr_tlb_remote_flush` and calls
//!   `smp_call_function_many(mm_cpumask)`: an IPI to *every* other CPU of the mask, lazy
//!   ones included (a lazy receiver switches to `init_mm`, v4.8 `leave_mm`), and nothing
//!   runs on the sender (`smp_call_function_many` skips the calling CPU), so the sender
//!   counts no `irq_tlb_count`. Read in v4.8 and v4.18 `arch/x86/mm/tlb.c`, and in Peter
//!   Zijlstra's "x86/mm/tlb: Revert the recent lazy TLB patches" (Aug 2018), which took
//!   Rik van Riel's first attempt back out of v4.19-rc1. From v4.14 (`init_mm_with_pcid`) a
//!   CPU with PCID (the core knob `pcid`) does not stay lazy: `enter_lazy_tlb` switches it
//!   to `init_mm` at once (`tlb_defer_switch_to_init_mm` is !PCID), so it leaves the mask
//!   and takes no shootdown ([`enter_lazy_tlb`]).
//! - **v4.20–v5.12** (`tlb_lazy` = `skip`, 145f573b89a6 "x86/mm/tlb: Make lazy TLB mode
//!   lazier", with 016c4d92cd16's `freed_tables`): `native_flush_tlb_others` calls
//!   `on_each_cpu_cond_mask(tlb_is_not_lazy, flush_tlb_func_remote, ..)`, which IPIs every
//!   other non-lazy CPU of the mask *and runs `flush_tlb_func_remote` on the sender
//!   itself* (v5.12 `kernel/smp.c`: the local call after `smp_call_function_many_cond`), so
//!   the sender counts one `irq_tlb_count` and one `nr_tlb_remote_flush_received` per op;
//!   its TLB is already at the new generation, so that call flushes nothing. A flush that
//!   frees page tables (`freed_tables`) still goes to every CPU of the mask through
//!   `smp_call_function_many`: a lazy CPU must not walk freed tables speculatively.
//! - **v5.13+** (`tlb_flush_multi` on, 4ce94eabac16 "x86/mm/tlb: Flush remote and local TLBs
//!   concurrently", with the unified `flush_tlb_func`): `flush_tlb_multi` sends the IPIs
//!   first and flushes locally while they fly; only remote CPUs count `irq_tlb_count`
//!   and `nr_tlb_remote_flush_received` (the latter before the loaded-mm check); lazy CPUs
//!   are skipped unless `freed_tables`.
//!
//! A flush function (`flush_tlb_func_common` in v4.14–v5.12) compares generations: nothing
//! when this CPU's `tlb_gen` already equals the mm's; a ranged flush only when the
//! request is exactly the next generation and the latest; otherwise a full flush. A CPU
//! that is lazy when the function runs switches to `init_mm` instead (leaving
//! `mm_cpumask`). Left out: a CPU switching back from `init_mm` to the mm reloads its TLB
//! for it in every era (v4.14+ with PCID may find its old ASID still current and keep it).

use crate::core::{Flow, Until};
use crate::engine::{say, Sim};
use crate::machine::{CpuMask, Ipi, FLUSH_ALL};
use crate::mech::core::ev as core_ev;
use crate::mech::core::{FULL_FLUSH_NS, INVLPG_NS, IPI_HANDLER_NS, IPI_LATENCY_NS, IPI_SEND_NS, TLB_FLUSH_MULTI, TLB_LAZY};
use crate::mech::core::{
    IRQ_TLB_COUNT, LAZY_TLB_IPIS, LAZY_TLB_SKIPS, NR_TLB_LOCAL_FLUSH_ALL, NR_TLB_LOCAL_FLUSH_ONE, NR_TLB_REMOTE_FLUSH,
    NR_TLB_REMOTE_FLUSH_RECEIVED,
};
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// Where a `flush_tlb_mm_range` call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pc {
    /// F1-F3: ceiling check, generation bump, (v5.12) local flush.
    Local,
    /// F4: count the remote flush, send the IPIs, run the flush function here too.
    Send,
    /// F5: every acknowledgement is in.
    Acked,
}

/// `flush_tlb_mm_range(mm, start, end, stride_shift, freed_tables)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlushTlbMmRange {
    mm: u16,
    start: u32,
    pages: u32,
    pc: Pc,
    /// Page tables were freed (`tlb->freed_tables`, v4.20): lazy CPUs get the IPI too.
    freed_tables: bool,
    sent: u16,
    /// The generation this flush asked for (`new_tlb_gen`).
    gen: u64,
}

impl FlushTlbMmRange {
    /// A call flushing `pages` pages (or [`FLUSH_ALL`]) of `mm` from `start`.
    pub fn frame(mm: u16, start: u32, pages: u32) -> Frame {
        Frame::from(FlushTlbMmRange {
            mm,
            start,
            pages,
            pc: Pc::Local,
            freed_tables: false,
            sent: 0,
            gen: 0,
        })
    }

    /// The flush `tlb_finish_mmu` makes after `free_pgtables` freed a page table
    /// (`freed_tables`, v4.20 016c4d92cd16): from v4.20 on, lazy CPUs are not skipped.
    pub fn frame_freed_tables(mm: u16, start: u32, pages: u32) -> Frame {
        Frame::from(FlushTlbMmRange {
            mm,
            start,
            pages,
            pc: Pc::Local,
            freed_tables: true,
            sent: 0,
            gen: 0,
        })
    }
}

/// What a flush function did on one CPU.
enum Flushed {
    /// This CPU's TLB was already at the mm's generation.
    UpToDate,
    /// INVLPG of the range; entries dropped.
    Range(usize),
    /// Full flush (CR3 reload); entries dropped.
    Full(usize),
    /// The CPU was lazy: it switched to `init_mm` and left `mm_cpumask`; entries dropped.
    InitMm(usize),
}

impl Flushed {
    fn say(&self, pages: u32) -> String {
        match *self {
            Flushed::UpToDate => "its TLB is already at the mm's tlb_gen: nothing to flush".into(),
            Flushed::Range(d) => format!("INVLPG of {pages} page(s), {d} entr{} dropped", if d == 1 { "y" } else { "ies" }),
            Flushed::Full(d) => format!("full flush (CR3 reload), {d} entr{} dropped", if d == 1 { "y" } else { "ies" }),
            Flushed::InitMm(d) => format!(
                "it is lazy, so it switches to init_mm and leaves mm_cpumask instead ({d} entr{} dropped)",
                if d == 1 { "y" } else { "ies" }
            ),
        }
    }
}

/// `flush_tlb_func_common` (v5.12; the body of v5.13's `flush_tlb_func`) on `cpu`, which
/// has `mm` loaded: the generation logic. `local` counts `nr_tlb_local_flush_*`.
fn flush_func(sim: &mut Sim, cpu: CpuId, mm: u16, start: u32, pages: u32, new_gen: u64, local: bool) -> Flushed {
    let c = cpu as usize;
    if sim.st.cpus[c].lazy {
        // switch_mm_irqs_off(NULL, &init_mm, NULL): cheaper than a minimal flush.
        sim.st.mms[mm as usize].cpumask.clear(cpu);
        let dropped = sim.st.cpus[c].tlb.flush_mm(mm);
        sim.st.cpus[c].loaded_mm = None;
        sim.st.cpus[c].lazy = false;
        sim.charge(cpu, sim.cfg.costs[FULL_FLUSH_NS]);
        return Flushed::InitMm(dropped);
    }
    let mm_gen = sim.st.mms[mm as usize].tlb_gen;
    let local_gen = sim.st.cpus[c].seen_gen;
    if local_gen == mm_gen {
        return Flushed::UpToDate;
    }
    let out = if pages != FLUSH_ALL && new_gen == local_gen + 1 && new_gen == mm_gen {
        let dropped = sim.st.cpus[c].tlb.flush_range(mm, start, pages);
        if local {
            sim.st.counters.add(NR_TLB_LOCAL_FLUSH_ONE, u64::from(pages));
        }
        sim.charge(cpu, sim.cfg.costs[INVLPG_NS] * u64::from(pages));
        Flushed::Range(dropped)
    } else {
        let dropped = sim.st.cpus[c].tlb.flush_mm(mm);
        if local {
            sim.st.counters.inc(NR_TLB_LOCAL_FLUSH_ALL);
        }
        sim.charge(cpu, sim.cfg.costs[FULL_FLUSH_NS]);
        Flushed::Full(dropped)
    };
    sim.st.cpus[c].seen_gen = mm_gen;
    out
}

/// `flush_tlb_mm_range` returns: the flush of generation `gen` promised that no CPU keeps a
/// translation of the range cached from before it. On a CPU running `mm` (in its mask, not
/// lazy) one left over breaks that promise now (`tlb_flush_outlived`); on a lazy CPU, or
/// one that left the mm, the kernel lets it stay until the CPU switches back
/// (v4.14-v5.12 `switch_mm_irqs_off` compares generations and flushes then), so it is a finding only if
/// it is used first ([`crate::mm::page_writeback::user_access`]). A check the model makes
/// of itself, in every run: the flush protocol it follows should never trip it.
fn flush_returned(sim: &mut Sim, mm: u16, start: u32, pages: u32, gen: u64) {
    for c in 0..sim.st.cpus.len() {
        let cpu = &mut sim.st.cpus[c];
        if cpu.tlb.is_empty() {
            continue;
        }
        let running = cpu.loaded_mm == Some(mm) && !cpu.lazy && sim.st.mms[mm as usize].cpumask.test(c as CpuId);
        let n = cpu.tlb.doom(mm, start, pages, gen as u32, running);
        if running && n > 0 {
            sim.st.counters.add(crate::mech::core::TLB_FLUSH_OUTLIVED, n as u64);
        }
    }
}

impl Function for FlushTlbMmRange {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "flush_tlb_mm_range";
        let c = cpu as usize;
        let pid = sim.st.mms[self.mm as usize].pid;
        let multi = sim.cfg.toggles.on(TLB_FLUSH_MULTI);
        match self.pc {
            Pc::Local => {
                let ceiling = sim.cfg.knobs.value(crate::mech::core::TLB_SINGLE_PAGE_FLUSH_CEILING) as u32;
                if self.pages != FLUSH_ALL && self.pages > ceiling {
                    self.pages = FLUSH_ALL;
                }
                sim.st.mms[self.mm as usize].tlb_gen += 1;
                self.gen = sim.st.mms[self.mm as usize].tlb_gen;
                let range = if self.pages == FLUSH_ALL {
                    say!(sim, "everything (range above the {ceiling}-page ceiling or a full flush)")
                } else {
                    say!(sim, "{} page(s) at {:#x}", self.pages, self.start)
                };
                let loaded = sim.st.cpus[c].loaded_mm == Some(self.mm);
                let others = sim.st.mms[self.mm as usize].cpumask.iter().any(|x| x != cpu);
                // v5.12 flushes here first; v5.13 flushes here only when no other CPU
                // is in the mask (else during the IPIs, F4).
                let what = if loaded && (!multi || !others) {
                    Some(flush_func(sim, cpu, self.mm, self.start, self.pages, self.gen, true))
                } else {
                    None
                };
                let here = match &what {
                    Some(w) => say!(
                        sim,
                        "CPU {cpu} flushes {range} of mm {pid} (tlb_gen {}): {}",
                        self.gen,
                        w.say(self.pages)
                    ),
                    None if loaded => say!(sim, "CPU {cpu} asks for a flush of {range} of mm {pid} (tlb_gen {})", self.gen),
                    None => say!(
                        sim,
                        "CPU {cpu} (mm {pid} not loaded here) asks for a flush of {range} (tlb_gen {})",
                        self.gen
                    ),
                };
                if !others {
                    let ev = Ev::new(core_ev::FLUSH_LOCAL, F, "F3").say(say!(
                        sim,
                        "{here}; no other CPU is in mm_cpumask, so nothing remote is counted or sent"
                    ));
                    flush_returned(sim, self.mm, self.start, self.pages, self.gen);
                    return (ev, Flow::Return(crate::core::Ret::Unit));
                }
                self.pc = Pc::Send;
                let ev = Ev::new(core_ev::FLUSH_LOCAL, F, "F3").say(say!(sim, "{here}; other CPUs are in mm_cpumask"));
                (ev, Flow::Continue)
            }
            Pc::Send => {
                // Up to v4.19 every CPU of the mask gets the IPI; from v4.20 lazy ones are
                // skipped unless page tables were freed.
                let skip_lazy = sim.cfg.toggles.index(TLB_LAZY) == LAZY_SKIP && !self.freed_tables;
                let (targets, lazy) = flush_targets(sim, cpu, self.mm, skip_lazy);
                sim.st.counters.add(LAZY_TLB_SKIPS, u64::from(lazy.weight()));
                // Once per op whenever another CPU is in the mask, even if every one of
                // them is lazy and gets no IPI.
                sim.st.counters.inc(NR_TLB_REMOTE_FLUSH);
                let lazy_note = if lazy.is_empty() {
                    String::new()
                } else {
                    say!(sim, "; lazy CPU(s) {:?} are skipped", lazy.iter().collect::<Vec<_>>())
                };
                if !targets.is_empty() {
                    sim.charge(cpu, sim.cfg.costs[IPI_SEND_NS]);
                    let arrive = sim.clock(cpu) + sim.cfg.costs[IPI_LATENCY_NS];
                    let cause = sim.st.step;
                    for t in targets.iter() {
                        sim.st.cpus[t as usize].inbox.push_back(Ipi {
                            from: cpu,
                            mm: self.mm,
                            start: self.start,
                            pages: self.pages,
                            gen: self.gen,
                            arrive,
                            cause,
                        });
                        sim.touch(t);
                    }
                    sim.st.cpus[c].acks_pending = targets.weight() as u16;
                    sim.st.cpus[c].acks_last = arrive;
                    // A weighted sender (a hint fault standing for numa_mem_scale real
                    // ones) also owes the other flushes' waits, each as long as an IPI
                    // that finds its receiver ready (latency and handler); its own wait
                    // below is timed as usual.
                    let w = sim.st.tasks[sim.st.cpus[c].curr as usize].numa.weight;
                    if w > 1 {
                        let wait = sim.cfg.costs[IPI_LATENCY_NS] + sim.cfg.costs[IPI_HANDLER_NS];
                        sim.owe(cpu, u64::from(w - 1) * wait);
                    }
                }
                self.sent = targets.weight() as u16;
                // The flush function on the sender, if it is in the mask and not lazy.
                let in_mask = sim.st.mms[self.mm as usize].cpumask.test(cpu) && !sim.st.cpus[c].lazy;
                let local = if !in_mask {
                    String::new()
                } else if multi {
                    let w = flush_func(sim, cpu, self.mm, self.start, self.pages, self.gen, true);
                    say!(sim, "; meanwhile it flushes locally: {}", w.say(self.pages))
                } else if skip_lazy {
                    // v4.20-v5.12 on_each_cpu_cond_mask: flush_tlb_func_remote runs here too.
                    sim.st.counters.inc(IRQ_TLB_COUNT);
                    sim.st.counters.inc(NR_TLB_REMOTE_FLUSH_RECEIVED);
                    let w = flush_func(sim, cpu, self.mm, self.start, self.pages, self.gen, false);
                    say!(
                        sim,
                        "; on_each_cpu_cond_mask also runs flush_tlb_func_remote on CPU {cpu} itself (irq_tlb_count and nr_tlb_remote_flush_received count it): {}",
                        w.say(self.pages)
                    )
                } else {
                    // smp_call_function_many skips the calling CPU: nothing runs or counts here.
                    String::new()
                };
                // Which function sends: v5.13's flush_tlb_multi, or flush_tlb_others ->
                // native_flush_tlb_others before it (its listing shows each era's rule).
                let (func, line) = if multi {
                    ("flush_tlb_mm_range", "F4")
                } else {
                    ("native_flush_tlb_others", "NF1")
                };
                let lazy_too = if !skip_lazy && !lazy_in(sim, targets).is_empty() {
                    say!(
                        sim,
                        " (lazy CPU(s) {:?} included: {})",
                        lazy_in(sim, targets).iter().collect::<Vec<_>>(),
                        if self.freed_tables {
                            "page tables were freed, so even a lazy CPU must flush"
                        } else {
                            "before v4.20 every CPU of the mask gets the IPI"
                        }
                    )
                } else {
                    String::new()
                };
                if targets.is_empty() {
                    let ev = Ev::new(core_ev::FLUSH_LOCAL, func, line).cpus(lazy).say(say!(
                        sim,
                        "nr_tlb_remote_flush += 1, but no other CPU of mm {pid} is running non-lazily: no IPI{lazy_note}{local}"
                    ));
                    flush_returned(sim, self.mm, self.start, self.pages, self.gen);
                    return (ev, Flow::Return(crate::core::Ret::Unit));
                }
                self.pc = Pc::Acked;
                let ev = Ev::new(core_ev::IPI_SEND, func, line).cpus(targets).say(say!(
                    sim,
                    "nr_tlb_remote_flush += 1: CPU {cpu} sends a TLB-shootdown IPI to CPU(s) {:?}{lazy_too} and waits for them{lazy_note}{local}",
                    targets.iter().collect::<Vec<_>>()
                ));
                (ev, Flow::Block(Until::Acks))
            }
            Pc::Acked => {
                let ev = Ev::new(core_ev::IPI_ACKED, F, "F5").say(say!(
                    sim,
                    "All {} CPU(s) have run the flush function; CPU {cpu} returns from flush_tlb_mm_range",
                    self.sent
                ));
                flush_returned(sim, self.mm, self.start, self.pages, self.gen);
                (ev, Flow::Return(crate::core::Ret::Unit))
            }
        }
    }

    fn flush_under_way(&self, _mm: u16) -> bool {
        true
    }
}

/// `tlb_lazy`'s value from v4.20: lazy CPUs skipped unless page tables are freed.
const LAZY_SKIP: usize = 2;
/// `tlb_lazy`'s value for v4.14–v4.19: with PCID a CPU going lazy switches to `init_mm`.
const LAZY_INIT_MM_WITH_PCID: usize = 1;

/// `enter_lazy_tlb(mm, tsk)` on `cpu`, which switches to a task without an mm (a kernel
/// thread or idle): it keeps the old mm loaded in lazy TLB mode and stays in its
/// `mm_cpumask` (v4.8 `TLBSTATE_LAZY`; v4.20+ `is_lazy`), except in v4.14–v4.19 on a CPU
/// with PCID, which switches to `init_mm` at once and leaves the mask
/// (`tlb_defer_switch_to_init_mm()` is `!PCID`; read in the v4.18 state that Peter
/// Zijlstra's August 2018 revert restored). Returns whether it left the mm.
pub(crate) fn enter_lazy_tlb(sim: &mut Sim, cpu: CpuId) -> bool {
    let c = cpu as usize;
    let Some(mm) = sim.st.cpus[c].loaded_mm else {
        return false;
    };
    if sim.cfg.toggles.index(TLB_LAZY) == LAZY_INIT_MM_WITH_PCID && sim.cfg.knobs.on(crate::mech::core::PCID) {
        // switch_mm(NULL, &init_mm, NULL): a CR3 write to the kernel's page tables.
        sim.st.mms[mm as usize].cpumask.clear(cpu);
        sim.st.cpus[c].loaded_mm = None;
        sim.st.cpus[c].lazy = false;
        return true;
    }
    sim.st.cpus[c].lazy = true;
    false
}

/// Other CPUs in `mm_cpumask(mm)` that get an IPI, and the lazy ones skipped: with
/// `skip_lazy` (v4.20+ `tlb_is_not_lazy`) only the non-lazy ones get it, else all.
fn flush_targets(sim: &Sim, cpu: CpuId, mm: u16, skip_lazy: bool) -> (CpuMask, CpuMask) {
    let mut targets = CpuMask::EMPTY;
    let mut lazy = CpuMask::EMPTY;
    for c in sim.st.mms[mm as usize].cpumask.iter() {
        if c == cpu {
            continue;
        }
        if skip_lazy && sim.st.cpus[c as usize].lazy {
            lazy.set(c);
        } else {
            targets.set(c);
        }
    }
    (targets, lazy)
}

/// The CPUs of `mask` in lazy TLB mode.
fn lazy_in(sim: &Sim, mask: CpuMask) -> CpuMask {
    let mut out = CpuMask::EMPTY;
    for c in mask.iter().filter(|&c| sim.st.cpus[c as usize].lazy) {
        out.set(c);
    }
    out
}

/// `flush_tlb_func_remote` (v5.12; `flush_tlb_func` on a remote CPU from v5.13): the
/// shootdown IPI's handler, run on the receiving CPU on top of whatever it was doing.
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
        let handler = sim.cfg.costs[IPI_HANDLER_NS];
        sim.st.cpus[c].clock += handler;
        // A flush sent from weighted work (a hint fault standing for numa_mem_scale real
        // ones) stands for that many IPIs: the interrupted task owes the rest of the
        // handlers' time (the acknowledgement goes out after the first).
        let sender_task = sim.st.cpus[ipi.from as usize].curr as usize;
        let w = sim.st.tasks[sender_task].numa.weight;
        if w > 1 {
            let rest = u64::from(w - 1) * handler;
            if sim.curr(cpu).mm().is_some() {
                sim.owe(cpu, rest);
            } else {
                // A kernel thread or the idle task never returns to user space to pay.
                sim.st.cpus[c].clock += rest;
            }
        }
        // Cycles stolen from user code: the interrupted computation ends later.
        if let crate::machine::Wait::Busy(until) = sim.st.cpus[c].wait {
            sim.st.cpus[c].wait = crate::machine::Wait::Busy(until + handler);
        }
        // v5.13 counts a received flush before the loaded-mm check; v5.12 after it.
        let multi = sim.cfg.toggles.on(TLB_FLUSH_MULTI);
        if multi {
            sim.st.counters.inc(NR_TLB_REMOTE_FLUSH_RECEIVED);
        }
        let pid = sim.st.mms[ipi.mm as usize].pid;
        if sim.st.cpus[c].lazy && sim.st.cpus[c].loaded_mm == Some(ipi.mm) {
            // Before v4.20 every flush reaches a lazy CPU; from v4.20 only a page-table free.
            sim.st.counters.inc(LAZY_TLB_IPIS);
        }
        let (line, text) = if sim.st.cpus[c].loaded_mm == Some(ipi.mm) {
            if !multi {
                sim.st.counters.inc(NR_TLB_REMOTE_FLUSH_RECEIVED);
            }
            let w = flush_func(sim, cpu, ipi.mm, ipi.start, ipi.pages, ipi.gen, false);
            (
                "R3",
                say!(
                    sim,
                    "CPU {cpu} takes the shootdown IPI from CPU {} for mm {pid}'s {} (tlb_gen {}): {} (the kernel cannot know beforehand whether anything was cached)",
                    ipi.from,
                    if ipi.pages == FLUSH_ALL { "whole TLB".to_string() } else { format!("{} page(s) at {:#x}", ipi.pages, ipi.start) },
                    ipi.gen,
                    w.say(ipi.pages)
                ),
            )
        } else {
            (
                "R2",
                say!(
                    sim,
                    "CPU {cpu} takes the shootdown IPI from CPU {}, but mm {pid} is no longer loaded here: nothing to flush",
                    ipi.from
                ),
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
        let ev = Ev::new(core_ev::IPI_RECV, "flush_tlb_func_remote", line).cpus(from).say(text);
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
            sim.charge(cpu, sim.cfg.costs[FULL_FLUSH_NS]);
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
    sim.charge(cpu, sim.cfg.costs[FULL_FLUSH_NS]);
    Ev::new(core_ev::SWITCH, F, "W3").say(say!(
        sim,
        "CPU {cpu} loads mm {pid}: it leaves the old mm's mm_cpumask and joins mm {pid}'s"
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // reason: a test may stop at the first surprise
    use super::*;
    use crate::patches::ToggleSet;

    /// Two threads of one process computing on CPUs 0 and 1, each with 2 heap pages cached.
    fn sim() -> Sim {
        let text = r#"
format = 1
id = "tlb-test"
title = "t"
[machine]
tlb_entries = 8
[[machine.node]]
cpus = [0, 1]
mem_pages = 16
[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 2
node = 0
[[process.thread]]
cpu = 0
ops = [{ op = "touch", vma = "heap" }, { op = "compute", ns = 100000 }]
[[process.thread]]
cpu = 1
ops = [{ op = "touch", vma = "heap" }, { op = "compute", ns = 100000 }]
"#;
        let s = crate::scenario::parse(text, &[]).unwrap();
        let mut sim = Sim::new(&s, &ToggleSet::default(), false);
        while sim.st.cpus.iter().any(|c| c.tlb.entries().count() < 2) {
            sim.step().unwrap();
        }
        sim
    }

    #[test]
    fn the_flush_function_follows_the_generations() {
        let mut sim = sim();
        let start = sim.st.mms[0].vmas[0].start;
        let base = sim.st.mms[0].tlb_gen;
        sim.st.cpus[1].seen_gen = base;
        // The next generation, and the latest: a ranged flush.
        sim.st.mms[0].tlb_gen = base + 1;
        assert!(matches!(flush_func(&mut sim, 1, 0, start, 1, base + 1, false), Flushed::Range(1)));
        assert_eq!(sim.st.cpus[1].seen_gen, base + 1);
        // Already current: nothing, even if asked again.
        assert!(matches!(flush_func(&mut sim, 1, 0, start, 1, base + 1, false), Flushed::UpToDate));
        // Two flushes behind (another CPU's flush came first): everything.
        sim.st.mms[0].tlb_gen = base + 3;
        assert!(matches!(
            flush_func(&mut sim, 1, 0, start + 1, 1, base + 2, false),
            Flushed::Full(1)
        ));
        assert_eq!(sim.st.cpus[1].seen_gen, base + 3, "a full flush catches up to the mm");
        assert_eq!(sim.st.cpus[1].tlb.entries().count(), 0);
    }

    #[test]
    fn an_entry_left_after_a_flush_returned_is_a_finding() {
        use crate::mech::core::TLB_FLUSH_OUTLIVED;
        let mut sim = sim();
        let start = sim.st.mms[0].vmas[0].start;
        // A flush of generation +1 over the first heap page returns while CPU 1 still caches
        // it (its flush function never ran): CPU 1 runs the mm, so that is a finding now.
        sim.st.mms[0].tlb_gen += 1;
        let gen = sim.st.mms[0].tlb_gen;
        flush_returned(&mut sim, 0, start, 1, gen);
        assert_eq!(
            sim.st.counters.get(TLB_FLUSH_OUTLIVED),
            2,
            "CPU 0's and CPU 1's entries of the page"
        );
        // Counted once: the same flush returning again (or a later one) adds nothing for them.
        flush_returned(&mut sim, 0, start, 1, gen);
        assert_eq!(sim.st.counters.get(TLB_FLUSH_OUTLIVED), 2);
        // The flush function ran (its entries are gone): nothing left to find.
        flush_func(&mut sim, 1, 0, start + 1, 1, gen, false);
        let before = sim.st.counters.get(TLB_FLUSH_OUTLIVED);
        sim.st.mms[0].tlb_gen += 1;
        let gen = sim.st.mms[0].tlb_gen;
        flush_returned(&mut sim, 0, start + 1, 1, gen);
        assert_eq!(
            sim.st.counters.get(TLB_FLUSH_OUTLIVED),
            before + 1,
            "only CPU 0's entry of the second page"
        );
    }

    #[test]
    fn a_lazy_cpus_leftover_is_a_finding_only_when_used() {
        use crate::mech::core::TLB_FLUSH_OUTLIVED;
        let mut sim = sim();
        let start = sim.st.mms[0].vmas[0].start;
        sim.st.cpus[1].lazy = true;
        sim.st.cpus[0].tlb.flush_mm(0);
        sim.st.mms[0].tlb_gen += 1;
        let gen = sim.st.mms[0].tlb_gen;
        flush_returned(&mut sim, 0, start, 1, gen);
        assert_eq!(
            sim.st.counters.get(TLB_FLUSH_OUTLIVED),
            0,
            "a lazy CPU may keep it until it switches back"
        );
        let e = sim.st.cpus[1].tlb.lookup(0, start).unwrap();
        assert_eq!(e.doomed, crate::machine::Doom::Owed);
        crate::mm::page_writeback::user_access(&mut sim, 1, 0, start, e.pfn, false, Some(e));
        assert_eq!(sim.st.counters.get(TLB_FLUSH_OUTLIVED), 1, "used before it was dropped");
        let e = sim.st.cpus[1].tlb.lookup(0, start).unwrap();
        crate::mm::page_writeback::user_access(&mut sim, 1, 0, start, e.pfn, false, Some(e));
        assert_eq!(sim.st.counters.get(TLB_FLUSH_OUTLIVED), 1, "counted once");
    }

    #[test]
    fn a_lazy_cpu_switches_to_init_mm_instead_of_flushing() {
        let mut sim = sim();
        let start = sim.st.mms[0].vmas[0].start;
        sim.st.cpus[1].lazy = true;
        sim.st.mms[0].tlb_gen += 1;
        let gen = sim.st.mms[0].tlb_gen;
        assert!(matches!(flush_func(&mut sim, 1, 0, start, 1, gen, false), Flushed::InitMm(2)));
        assert_eq!(sim.st.cpus[1].loaded_mm, None, "init_mm is loaded");
        assert!(!sim.st.mms[0].cpumask.test(1), "and CPU 1 left the mm's mask");
        assert!(!sim.st.cpus[1].lazy);
    }
}
