//! The workload shapes of the PCP series' benchmarks, as system-call operations whose
//! kernel side goes through the allocator's frames (`mm/page_alloc.rs`):
//!
//! - [`ProcessCycle`] (`process_cycle`): a short-lived process on the calling CPU, as a
//!   kbuild job's compiler or the spec's S-A1 loop: `copy_process` → `mm_alloc_pgd` (an
//!   order-1 PGD with page-table isolation, order 0 without), `pages` anonymous faults
//!   (`do_anonymous_page` → `alloc_page_vma`, then the first store to the page), optional
//!   order 1-3 slab allocations and frees in between, then `do_exit` → `exit_mmap` →
//!   `release_pages` → `free_unref_page_list` (order-0 frees with no allocation in between)
//!   and `__mmdrop` → `mm_free_pgd` (the PGD free the patch-1 changelog's call stack shows).
//!   The process is a shape, not a scenario process: it has no VMAs or PTEs (the fault's
//!   page-table work is the `page_fault_ns` cost); what matters here is the order of
//!   allocations and frees the allocator sees.
//! - [`SockPair`] (`sock_pair`): one side of an AF_UNIX (lmbench3 `bw_unix`) or SCTP stream
//!   pair: the sender allocates `frags` order-3 skb frag pages per message
//!   (`SKB_FRAG_PAGE_ORDER`) and copies into them; the receiver copies out, allocates and
//!   frees an order-0 skb head and frees the frag pages on its own CPU. The two threads swap
//!   roles every `sock_phase_msgs` messages (the benchmark's context switches).
//!
//! A page's first store (`copy`) costs `page_hot_ns` when its last touch was within 2 ms on
//! the same LLC (here: node), else `page_cold_ns`: the cache-miss proxy of spec A.9.

use crate::core::{Flow, Ret, Until};
use crate::engine::{say, Sim, NO_PAGE};
use crate::mech::core::ev as core_ev;
use crate::mech::page_alloc as m;
use crate::mech::page_alloc::ev;
use crate::mm::page_alloc::{AllocPages, FreeUnrefPage, MT_MOVABLE, MT_UNMOVABLE};
use crate::registry::{Frame, Function};
use crate::scenario::{ArgDef, ArgKind, OpDef, OpRun};
use crate::topology::CpuId;
use crate::trace::Ev;
use rand::Rng;

/// `SKB_FRAG_PAGE_ORDER`: skb frag pages are order 3 (32 KiB).
pub const SKB_FRAG_PAGE_ORDER: u8 = 3;
/// Messages a socket holds before the sender waits (AF_UNIX `wmem_default` 212,992 bytes
/// over 64 KiB writes: about 4).
pub const SOCK_QUEUE_MSGS: usize = 4;
/// How long a blocked socket side waits before looking again (the wakeup latency).
pub const SOCK_WAIT_NS: u64 = 1000;
/// Slab pages a CPU keeps cached before a slab allocation frees old ones.
pub const SLAB_KEEP: usize = 8;

/// Touches the first page of a new or received block: hot or cold, counted and charged.
fn touch(sim: &mut Sim, cpu: CpuId, pfn: u32, count: bool) -> bool {
    let now = sim.clock(cpu);
    let node = sim.cpu_node(cpu);
    let hot = sim.st.page_alloc.touch(pfn, now, node);
    if count {
        sim.st.counters.inc(if hot { m::PAGE_TOUCH_HOT } else { m::PAGE_TOUCH_COLD });
    }
    let ns = if hot {
        sim.cfg.costs[m::PAGE_HOT_NS]
    } else {
        sim.cfg.costs[m::PAGE_COLD_NS]
    };
    sim.charge(cpu, ns);
    hot
}

/// One workload operation completed: counted, and the time of the last one kept.
fn op_done(sim: &mut Sim, cpu: CpuId) {
    sim.st.page_alloc.ops_done += 1;
    sim.st.counters.inc(crate::mech::core::WORKLOAD_OPS);
    let now = sim.clock(cpu);
    let before = sim.st.counters.get(m::PCP_WORKLOAD_NS);
    if now > before {
        sim.st.counters.add(m::PCP_WORKLOAD_NS, now - before);
    }
}

/// Where [`ProcessCycle`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pc {
    Fork,
    PgdDone,
    Fault,
    Touch,
    SlabFree,
    SlabFree2,
    Exit,
    Pgd,
    Next,
}

/// A short-lived process's page traffic: fork (PGD), faults, exit (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessCycle {
    pages: u32,
    done: u32,
    rounds: u32,
    pti: bool,
    slab_permille: u16,
    pc: Pc,
    pgd: u32,
    pfn: u32,
    /// `pages` as given (the low end of `process_pages_max`'s range).
    base: u32,
}

impl ProcessCycle {
    /// `rounds` processes of `pages` faults each.
    pub fn frame(pages: u32, pti: bool, slab_permille: u16, rounds: u32) -> Frame {
        Frame::from(ProcessCycle {
            pages,
            done: 0,
            rounds,
            pti,
            slab_permille,
            pc: Pc::Fork,
            pgd: NO_PAGE,
            pfn: NO_PAGE,
            base: 0,
        })
    }

    fn pgd_order(&self) -> u8 {
        u8::from(self.pti)
    }
}

impl Function for ProcessCycle {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "process_cycle";
        let task = sim.st.cpus[cpu as usize].curr as usize;
        let node = sim.cpu_node(cpu);
        match self.pc {
            Pc::Fork => {
                if self.rounds == 0 {
                    return (Ev::new(core_ev::RETURN, F, "PC9"), Flow::Return(Ret::Unit));
                }
                if self.base == 0 {
                    self.base = self.pages.max(1);
                }
                if let Some(max) = sim.cfg.knobs.get(m::PROCESS_PAGES_MAX).map(|v| v as u32).filter(|&v| v > self.base) {
                    self.pages = sim.st.rng.random_range(self.base..=max);
                }
                self.pc = Pc::PgdDone;
                sim.charge(cpu, sim.cfg.costs[m::PROCESS_NS]);
                let ev = Ev::new(ev::PCP_WORKLOAD, F, "PC1").say(say!(
                    sim,
                    "A new process starts on CPU {cpu}: copy_process -> mm_alloc_pgd -> pgd_alloc asks for an order-{} PGD{}",
                    self.pgd_order(),
                    if self.pti {
                        " (page-table isolation: kernel and user copies, 8 KiB)"
                    } else {
                        ""
                    }
                ));
                (ev, Flow::Call(AllocPages::frame(node, self.pgd_order(), MT_UNMOVABLE)))
            }
            Pc::PgdDone => {
                self.pgd = self.pfn;
                self.pc = Pc::Fault;
                (Ev::new(core_ev::RETURN, F, "PC1"), Flow::Continue)
            }
            Pc::Fault => {
                if self.done >= self.pages {
                    self.pc = Pc::Exit;
                    let ev = Ev::new(ev::PCP_WORKLOAD, F, "PC5").say(say!(
                        sim,
                        "The process exits: exit_mmap -> tlb_finish_mmu -> release_pages -> free_unref_page_list frees its {} pages, with no allocation in between",
                        sim.st.page_alloc.held[task].len()
                    ));
                    return (ev, Flow::Continue);
                }
                self.pc = Pc::Touch;
                let ev = Ev::new(ev::PCP_WORKLOAD, F, "PC2").say(say!(
                    sim,
                    "Page fault {} of {}: do_anonymous_page -> alloc_page_vma (order 0, movable)",
                    self.done + 1,
                    self.pages
                ));
                (ev, Flow::Call(AllocPages::frame(node, 0, MT_MOVABLE)))
            }
            Pc::Touch => {
                self.done += 1;
                self.pc = Pc::Fault;
                if self.pfn == NO_PAGE {
                    return (Ev::new(ev::PCP_WORKLOAD, F, "PC3"), Flow::Continue);
                }
                sim.st.page_alloc.held[task].push(self.pfn);
                sim.charge(cpu, sim.cfg.costs[m::PAGE_FAULT_NS]);
                let hot = touch(sim, cpu, self.pfn, true);
                op_done(sim, cpu);
                let ev = Ev::new(ev::PCP_WORKLOAD, F, "PC3").pfn(self.pfn).say(say!(
                    sim,
                    "The page is mapped and stored to: {}",
                    if hot {
                        "cache hot (touched recently on this LLC)"
                    } else {
                        "cache cold"
                    }
                ));
                // Some kernel allocations in between (kbuild: slab pages of order 1-3).
                if self.slab_permille > 0 && sim.st.rng.random_range(0..1000u16) < self.slab_permille {
                    let order = sim.st.rng.random_range(1..=3u8);
                    self.pc = Pc::SlabFree;
                    return (ev, Flow::Call(AllocPages::frame(node, order, MT_UNMOVABLE)));
                }
                (ev, Flow::Continue)
            }
            Pc::SlabFree | Pc::SlabFree2 => {
                let c = cpu as usize;
                if self.pc == Pc::SlabFree && self.pfn != NO_PAGE {
                    let order = sim.st.page_alloc.order[self.pfn as usize];
                    sim.st.page_alloc.slab[c].push((self.pfn, order));
                }
                let pair = sim.cfg.knobs.value(m::SLAB_PAIR_PERCENT);
                let again = self.pc == Pc::SlabFree && sim.st.rng.random_range(0..100u64) < pair;
                self.pc = if again { Pc::SlabFree2 } else { Pc::Fault };
                if sim.st.page_alloc.slab[c].len() <= SLAB_KEEP {
                    self.pc = Pc::Fault;
                    return (Ev::new(ev::PCP_WORKLOAD, F, "PC4"), Flow::Continue);
                }
                let (pfn, order) = sim.st.page_alloc.slab[c].remove(0);
                let ev = Ev::new(ev::PCP_WORKLOAD, F, "PC4")
                    .pfn(pfn)
                    .say(say!(sim, "A slab cache frees an order-{order} page"));
                (ev, Flow::Call(FreeUnrefPage::frame(pfn, order, MT_UNMOVABLE)))
            }
            Pc::Exit => {
                if let Some(pfn) = sim.st.page_alloc.held[task].pop() {
                    return (
                        Ev::new(ev::PCP_WORKLOAD, F, "PC6").pfn(pfn),
                        Flow::Call(FreeUnrefPage::frame(pfn, 0, MT_MOVABLE)),
                    );
                }
                self.pc = Pc::Pgd;
                let ev = Ev::new(ev::PCP_WORKLOAD, F, "PC7").say(say!(
                    sim,
                    "exit_mm -> mmdrop -> __mmdrop -> mm_free_pgd frees the order-{} PGD",
                    self.pgd_order()
                ));
                if self.pgd == NO_PAGE {
                    return (ev, Flow::Continue);
                }
                (ev, Flow::Call(FreeUnrefPage::frame(self.pgd, self.pgd_order(), MT_UNMOVABLE)))
            }
            Pc::Pgd => {
                self.pc = Pc::Next;
                sim.st.counters.inc(m::EXITS);
                sim.charge(cpu, sim.cfg.costs[m::PROCESS_NS]);
                op_done(sim, cpu);
                (
                    Ev::new(ev::PCP_WORKLOAD, F, "PC8").say(say!(sim, "The process is gone")),
                    Flow::Continue,
                )
            }
            Pc::Next => {
                self.rounds -= 1;
                self.done = 0;
                self.pgd = NO_PAGE;
                self.pc = Pc::Fork;
                (Ev::new(core_ev::RETURN, F, "PC9"), Flow::Continue)
            }
        }
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        match r {
            Ret::Count(p) if matches!(self.pc, Pc::PgdDone | Pc::Touch | Pc::SlabFree) => self.pfn = p,
            _ => {}
        }
    }
}

/// Where [`SockPair`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sp {
    Next,
    Sent,
    HeadFree,
    FragFree,
}

/// One side of a stream socket pair (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SockPair {
    pair: u16,
    frags: u8,
    role: u8,
    pc: Sp,
    /// Frags of the current message done.
    frag: u8,
    msgs: u32,
    done: u32,
    pfn: u32,
}

impl SockPair {
    /// `msgs` messages of `frags` frag pages over pair `pair`; `role` 0 sends first.
    pub fn frame(pair: u16, frags: u8, msgs: u32, role: u8) -> Frame {
        Frame::from(SockPair {
            pair,
            frags: frags.max(1),
            role,
            pc: Sp::Next,
            frag: 0,
            msgs,
            done: 0,
            pfn: NO_PAGE,
        })
    }

    /// The socket of the current phase and whether this side sends in it.
    fn phase(&self, sim: &Sim) -> (usize, bool) {
        let p = sim.cfg.knobs.value(m::SOCK_PHASE_MSGS).max(1);
        let k = u64::from(self.done) / p;
        (2 * self.pair as usize + (k % 2) as usize, (k + u64::from(self.role)) % 2 == 0)
    }
}

impl Function for SockPair {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "sock_pair";
        let node = sim.cpu_node(cpu);
        let (q, sending) = self.phase(sim);
        if sim.st.page_alloc.pipes.len() <= q + 1 {
            sim.st.page_alloc.pipes.resize(q + 2, Default::default());
        }
        match self.pc {
            Sp::Next => {
                if self.done >= self.msgs {
                    return (Ev::new(core_ev::RETURN, F, "SP9"), Flow::Return(Ret::Unit));
                }
                if sending {
                    if sim.st.page_alloc.pipes[q].len() >= SOCK_QUEUE_MSGS * usize::from(self.frags) {
                        let until = sim.clock(cpu) + SOCK_WAIT_NS;
                        let ev = Ev::new(core_ev::SLEEP, F, "SP1").say(say!(sim, "The socket is full: the sender waits"));
                        return (ev, Flow::Block(Until::Sleep(until)));
                    }
                    self.pc = Sp::Sent;
                    let ev = Ev::new(ev::PCP_WORKLOAD, F, "SP2").say(say!(
                        sim,
                        "The sender on CPU {cpu} allocates an order-{SKB_FRAG_PAGE_ORDER} skb frag page (frag {} of {})",
                        self.frag + 1,
                        self.frags
                    ));
                    return (ev, Flow::Call(AllocPages::frame(node, SKB_FRAG_PAGE_ORDER, MT_MOVABLE)));
                }
                // Receiving: a whole message must be queued.
                if sim.st.page_alloc.pipes[q].len() < usize::from(self.frags) {
                    let until = sim.clock(cpu) + SOCK_WAIT_NS;
                    let ev = Ev::new(core_ev::SLEEP, F, "SP4").say(say!(sim, "Nothing to receive yet: the receiver waits"));
                    return (ev, Flow::Block(Until::Sleep(until)));
                }
                self.pc = Sp::HeadFree;
                sim.charge(cpu, sim.cfg.costs[m::SOCK_MSG_NS]);
                if !sim.cfg.knobs.on(m::SOCK_HEAD_PAGE) {
                    self.pfn = NO_PAGE;
                    let ev = Ev::new(ev::PCP_WORKLOAD, F, "SP5").say(say!(
                        sim,
                        "The receiver on CPU {cpu} takes a message (its skb head comes from a slab cache)"
                    ));
                    return (ev, Flow::Continue);
                }
                let ev = Ev::new(ev::PCP_WORKLOAD, F, "SP5").say(say!(
                    sim,
                    "The receiver on CPU {cpu} takes a message: the skb head is an order-0 allocation"
                ));
                (ev, Flow::Call(AllocPages::frame(node, 0, MT_UNMOVABLE)))
            }
            Sp::Sent => {
                self.pc = Sp::Next;
                if self.pfn != NO_PAGE {
                    touch(sim, cpu, self.pfn, true);
                    sim.st.page_alloc.pipes[q].push_back((self.pfn, SKB_FRAG_PAGE_ORDER));
                }
                self.frag += 1;
                if self.frag >= self.frags {
                    self.frag = 0;
                    sim.charge(cpu, sim.cfg.costs[m::SOCK_MSG_NS]);
                    self.done += 1;
                }
                let ev = Ev::new(ev::PCP_WORKLOAD, F, "SP3").say(say!(sim, "The sender copies the data into the page and queues it"));
                (ev, Flow::Continue)
            }
            Sp::HeadFree => {
                self.pc = Sp::FragFree;
                self.frag = 0;
                let ev = Ev::new(ev::PCP_WORKLOAD, F, "SP6").say(say!(sim, "The skb head is freed"));
                if self.pfn == NO_PAGE {
                    return (ev, Flow::Continue);
                }
                (ev, Flow::Call(FreeUnrefPage::frame(self.pfn, 0, MT_UNMOVABLE)))
            }
            Sp::FragFree => {
                if self.frag >= self.frags {
                    self.frag = 0;
                    self.pc = Sp::Next;
                    self.done += 1;
                    op_done(sim, cpu);
                    return (Ev::new(core_ev::RETURN, F, "SP8"), Flow::Continue);
                }
                self.frag += 1;
                let Some((pfn, order)) = sim.st.page_alloc.pipes[q].pop_front() else {
                    return (Ev::new(core_ev::RETURN, F, "SP8"), Flow::Continue);
                };
                // Copy out: the page was written by the sender on this LLC a moment ago.
                touch(sim, cpu, pfn, false);
                let ev = Ev::new(ev::PCP_WORKLOAD, F, "SP7").pfn(pfn).say(say!(
                    sim,
                    "The receiver copies the frag out and frees the order-{order} page on CPU {cpu}"
                ));
                (ev, Flow::Call(FreeUnrefPage::frame(pfn, order, MT_MOVABLE)))
            }
        }
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if let Ret::Count(p) = r {
            if matches!(self.pc, Sp::Sent | Sp::HeadFree) {
                self.pfn = p;
            }
        }
    }
}

/// The operations these shapes add to the scenario format.
pub const OPS: &[OpDef] = &[
    OpDef {
        name: "process_cycle",
        doc: "Run short-lived processes on this CPU, one after the other: each allocates its PGD (order 1 with `pti`), faults `pages` anonymous pages, then exits (exit_mmap frees the pages, then the PGD).",
        args: &[
            ArgDef::required("pages", ArgKind::Int { min: 0, max: 1 << 24 }, "Anonymous pages each process faults in."),
            ArgDef::optional("pti", ArgKind::Int { min: 0, max: 1 }, 1, "Page-table isolation: 1, the PGD is an order-1 page; 0, order 0."),
            ArgDef::optional(
                "slab_permille",
                ArgKind::Int { min: 0, max: 1000 },
                0,
                "Per fault, the chance (per mille) of an order 1-3 slab allocation; a CPU keeps 8 slab pages and frees the oldest (two in a row with `slab_pair_percent`).",
            ),
            ArgDef::optional("rounds", ArgKind::Int { min: 0, max: 1 << 20 }, 1, "How many processes, one after the other."),
        ],
        run: OpRun::Call {
            start: |a| ProcessCycle::frame(a[0] as u32, a[1] != 0, a[2] as u16, a[3] as u32),
            says: "runs short-lived processes (fork, faults, exit)",
        },
    },
    OpDef {
        name: "sock_pair",
        doc: "One side of a stream socket pair (AF_UNIX / SCTP shape): `msgs` messages of `frags` order-3 skb frag pages; the sides swap sender and receiver every `sock_phase_msgs` messages.",
        args: &[
            ArgDef::required("pair", ArgKind::Int { min: 0, max: 4095 }, "The pair (both sides name the same one)."),
            ArgDef::optional("frags", ArgKind::Int { min: 1, max: 64 }, 2, "Order-3 frag pages per message (64 KiB writes: 2)."),
            ArgDef::required("msgs", ArgKind::Int { min: 0, max: 1 << 30 }, "Messages this side handles (sent and received)."),
            ArgDef::optional("role", ArgKind::Int { min: 0, max: 1 }, 0, "0: sends first; 1: receives first."),
        ],
        run: OpRun::Call {
            start: |a| SockPair::frame(a[0] as u16, a[1] as u8, a[2] as u32, a[3] as u8),
            says: "streams messages over a socket pair",
        },
    },
];
