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
//!   pair. The sender allocates the pages one `write` of `bytes` needs and copies into them;
//!   the receiver copies out and frees them on its own CPU, in the order the skbs were
//!   queued. The pages' orders come from the kernel's arithmetic, [`message_page_order`]:
//!   an AF_UNIX stream write is cut into skbs of at most `SKB_MAX_HEAD(0)` +
//!   `UNIX_SKB_FRAGS_SZ` bytes whose paged part `alloc_skb_with_frags` fills with the
//!   largest order that the rest still fills (a 64 KiB write: orders 3 | 2, 1, 0); a linear
//!   skb (SCTP's DATA chunk) is one `kmalloc_large` block. With `sock_head_page` the
//!   receiver also allocates and frees an order-0 head per message (the spec's recipe). The
//!   two threads swap roles every `sock_phase_msgs` messages, or every `sock_phase_ms` of
//!   simulated time when that is set (the benchmark's context switches); a side whose turn
//!   to send has come first receives what is left of the messages sent to it, and each
//!   message is sent and received whole through one socket direction.
//!
//! A page's first store (`copy`) costs `page_hot_ns` when its last touch was within 2 ms on
//! the same LLC (here: node), else `page_cold_ns`: the cache-miss proxy of spec A.9. The
//! cost is per block, whatever its order (the copy's length is not in the cost model; the
//! socket scenarios' per-message protocol cost, `sock_msg_ns`, carries it), while the
//! `page_touch_hot`/`_cold` counts weigh a block by its pages, as a miss rate over the
//! lines copied would.

use crate::core::{Flow, Ret, Until};
use crate::engine::{say, Sim, NO_PAGE};
use crate::mech::core::ev as core_ev;
use crate::mech::page_alloc as m;
use crate::mech::page_alloc::ev;
use crate::mm::gfp::{Gfp, __GFP_COMP, GFP_HIGHUSER_MOVABLE, GFP_KERNEL, GFP_PGTABLE_USER};
use crate::mm::page_alloc::{AllocPages, FreeUnrefPage, MT_MOVABLE, MT_UNMOVABLE};
use crate::registry::{Frame, Function};
use crate::scenario::{ArgDef, ArgKind, OpDef, OpRun};
use crate::topology::CpuId;
use crate::trace::Ev;
use rand::Rng;

/// `get_order(UNIX_SKB_FRAGS_SZ)`: AF_UNIX asks `alloc_skb_with_frags` for order-3 (32 KiB)
/// pages at most (net/unix/af_unix.c, v6.6).
pub const UNIX_FRAG_ORDER: u8 = 3;
/// `UNIX_SKB_FRAGS_SZ`: the paged bytes of one AF_UNIX stream skb, 32 KiB.
pub const UNIX_SKB_FRAGS_SZ: u32 = 32768;
/// `SKB_MAX_HEAD(0)`: a page less the aligned `struct skb_shared_info` (320 bytes on x86-64),
/// the linear bytes of one skb: 4096 - 320.
pub const SKB_MAX_HEAD: u32 = 3776;
/// Bytes a linear skb's buffer holds besides the payload: protocol headers (`MAX_HEADER`,
/// the SCTP common and chunk headers) and the aligned `skb_shared_info`.
pub const LINEAR_SKB_OVERHEAD: u32 = 512;
/// Messages a socket holds before the sender waits (AF_UNIX `wmem_default` 212,992 bytes
/// over 64 KiB writes: about 4).
pub const SOCK_QUEUE_MSGS: usize = 4;
/// How long a blocked socket side waits before looking again (the wakeup latency).
pub const SOCK_WAIT_NS: u64 = 1000;
/// The migratetype of a socket's pages: `alloc_skb_with_frags` and `kmalloc_large` ask with
/// `GFP_KERNEL` (no `__GFP_MOVABLE`), so MIGRATE_UNMOVABLE, and `free_unref_page` puts a
/// freed page on the list of its pageblock's migratetype, which is the block an UNMOVABLE
/// allocation took (the model gives every block the migratetype it was allocated as).
pub const SOCK_MT: u8 = SOCK_GFP.migratetype();
/// What a socket asks for its pages: `GFP_KERNEL` with `__GFP_COMP` for the multi-page
/// `kmalloc_large` buffers.
pub const SOCK_GFP: Gfp = GFP_KERNEL.with(__GFP_COMP);
/// Slab pages a CPU keeps cached before a slab allocation frees old ones.
pub const SLAB_KEEP: usize = 8;

/// Touches the first page of a new or received block: hot or cold, counted and charged.
fn touch(sim: &mut Sim, cpu: CpuId, pfn: u32, count: bool) -> bool {
    let now = sim.clock(cpu);
    let node = sim.cpu_node(cpu);
    let hot = sim.st.page_alloc.touch(pfn, now, node);
    if count {
        // Weighted by the block's pages: the copy touches every line of it, so an order-3
        // block weighs eight times an order-0 page in the miss rate.
        let pages = 1u64 << sim.st.page_alloc.order[pfn as usize];
        sim.st.counters.add(if hot { m::PAGE_TOUCH_HOT } else { m::PAGE_TOUCH_COLD }, pages);
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
    crate::mech::core::ops_done(sim, cpu, 1);
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
                (ev, Flow::Call(AllocPages::frame(GFP_PGTABLE_USER, self.pgd_order(), node)))
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
                (ev, Flow::Call(AllocPages::frame(GFP_HIGHUSER_MOVABLE, 0, node)))
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
                    return (ev, Flow::Call(AllocPages::frame(GFP_KERNEL | __GFP_COMP, order, node)));
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
                let second = self.pc == Pc::SlabFree2;
                let again = !second && sim.st.rng.random_range(0..100u64) < pair;
                self.pc = if again { Pc::SlabFree2 } else { Pc::Fault };
                // The first free brings the cache back to SLAB_KEEP pages; a second one in a
                // row goes below it (a cache shrinking two empty slabs at once).
                let keep = if second { 0 } else { SLAB_KEEP };
                if sim.st.page_alloc.slab[c].len() <= keep {
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
                // The compiler is gone: do_exit ends in schedule(), so a task waiting on
                // this CPU (another worker's compiler, a kworker) runs before the next one.
                if !sim.st.cpus[cpu as usize].rq.is_empty() {
                    let ev = Ev::new(core_ev::SLEEP, F, "PC9")
                        .say(say!(sim, "The compiler has exited: CPU {cpu} runs the next task waiting for it"));
                    return (ev, Flow::Block(Until::Resched));
                }
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

/// The order of the `i`-th page (from 0) that one `write` of `bytes` allocates, or `None`
/// past its last page.
///
/// Paged (`linear == false`), as `unix_stream_sendmsg` and `alloc_skb_with_frags` in Linux
/// v6.6 cut a stream write: each skb takes `size = min(rest, SKB_MAX_HEAD(0) +
/// UNIX_SKB_FRAGS_SZ)` bytes (the `sk_sndbuf / 2` cap is larger with the default buffer);
/// its paged part is `min(size, PAGE_ALIGN(size - SKB_MAX_HEAD(0)))`, the head the rest; the
/// paged part is filled from order 3 down, an order used only while `PAGE_ALIGN(left)` still
/// fills it. Linear: one block of `get_order(bytes + overhead)` (`kmalloc_reserve` of more
/// than `KMALLOC_MAX_CACHE_SIZE` → `kmalloc_large`; smaller heads come from slab caches and
/// are no page-allocator call, so a linear write under 8 KiB has no page at all).
pub fn message_page_order(bytes: u32, linear: bool, i: u32) -> Option<u8> {
    const PAGE: u32 = 4096;
    let align = |n: u32| n.div_ceil(PAGE) * PAGE;
    if linear {
        let need = bytes + LINEAR_SKB_OVERHEAD;
        if i > 0 || need <= 2 * PAGE {
            return None;
        }
        let pages = need.div_ceil(PAGE);
        return Some(pages.next_power_of_two().trailing_zeros() as u8);
    }
    let mut rest = bytes;
    let mut n = 0;
    while rest > 0 {
        let size = rest.min(SKB_MAX_HEAD + UNIX_SKB_FRAGS_SZ);
        let mut data = size.min(align(size.saturating_sub(SKB_MAX_HEAD)));
        let mut order = UNIX_FRAG_ORDER;
        while data > 0 {
            while order > 0 && align(data) < PAGE << order {
                order -= 1;
            }
            if n == i {
                return Some(order);
            }
            n += 1;
            data -= data.min(PAGE << order);
        }
        rest -= size;
    }
    None
}

/// How many pages one `write` of `bytes` allocates (see [`message_page_order`]).
pub fn message_pages(bytes: u32, linear: bool) -> u32 {
    (0..).take_while(|&i| message_page_order(bytes, linear, i).is_some()).count() as u32
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
    /// Bytes per `write`.
    bytes: u32,
    /// A linear skb (one `kmalloc_large` block) instead of a paged one.
    linear: bool,
    /// Pages per message, from `bytes`.
    frags: u8,
    role: u8,
    pc: Sp,
    /// Frags of the current message done.
    frag: u8,
    msgs: u32,
    done: u32,
    pfn: u32,
    /// The socket direction (pipe) of the message under way.
    q: u16,
}

impl SockPair {
    /// `msgs` writes of `bytes` over pair `pair`; `role` 0 sends first.
    pub fn frame(pair: u16, bytes: u32, linear: bool, msgs: u32, role: u8) -> Frame {
        Frame::from(SockPair {
            pair,
            bytes,
            linear,
            frags: message_pages(bytes, linear).clamp(1, 255) as u8,
            role,
            pc: Sp::Next,
            frag: 0,
            msgs,
            done: 0,
            pfn: NO_PAGE,
            q: 0,
        })
    }

    /// The order of the page the sender allocates next.
    fn order(&self) -> u8 {
        message_page_order(self.bytes, self.linear, u32::from(self.frag)).unwrap_or(0)
    }

    /// The socket direction of the current phase and whether this side sends in it. Phases
    /// change every `sock_phase_msgs` messages this side handled, or every `sock_phase_ms`
    /// of its CPU's time; in a time phase where this side sends, a complete message still
    /// queued towards it from the phase before is received first.
    fn phase(&self, sim: &Sim, cpu: CpuId) -> (usize, bool) {
        let base = 2 * self.pair as usize;
        if let Some(p) = sim.cfg.knobs.get(m::SOCK_PHASE_NS).filter(|&p| p > 0) {
            let k = sim.clock(cpu) / p;
            let sending = (k + u64::from(self.role)) % 2 == 0;
            let (q, prev) = (base + (k % 2) as usize, base + ((k + 1) % 2) as usize);
            if sending
                && sim
                    .st
                    .page_alloc
                    .pipes
                    .get(prev)
                    .is_some_and(|x| x.len() >= usize::from(self.frags))
            {
                return (prev, false);
            }
            return (q, sending);
        }
        let p = sim.cfg.knobs.value(m::SOCK_PHASE_MSGS).max(1);
        let k = u64::from(self.done) / p;
        (base + (k % 2) as usize, (k + u64::from(self.role)) % 2 == 0)
    }
}

impl Function for SockPair {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "sock_pair";
        let node = sim.cpu_node(cpu);
        let base = 2 * self.pair as usize;
        if sim.st.page_alloc.pipes.len() <= base + 1 {
            sim.st.page_alloc.pipes.resize(base + 2, Default::default());
        }
        // A message goes whole through the direction it started in: the sender comes back
        // to `Next` for each page of it (`frag` > 0 until the last is queued).
        let (q, sending) = match self.pc {
            Sp::Next if self.frag == 0 => self.phase(sim, cpu),
            Sp::Next | Sp::Sent => (self.q as usize, true),
            Sp::HeadFree | Sp::FragFree => (self.q as usize, false),
        };
        self.q = q as u16;
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
                    let order = self.order();
                    let ev = Ev::new(ev::PCP_WORKLOAD, F, "SP2").say(say!(
                        sim,
                        "The sender on CPU {cpu} allocates an order-{order} page (page {} of {} for a {}-byte write)",
                        self.frag + 1,
                        self.frags,
                        self.bytes
                    ));
                    return (ev, Flow::Call(AllocPages::frame(SOCK_GFP, order, node)));
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
                (ev, Flow::Call(AllocPages::frame(GFP_KERNEL, 0, node)))
            }
            Sp::Sent => {
                self.pc = Sp::Next;
                if self.pfn != NO_PAGE {
                    touch(sim, cpu, self.pfn, true);
                    sim.st.page_alloc.pipes[q].push_back((self.pfn, self.order()));
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
                (ev, Flow::Call(FreeUnrefPage::frame(pfn, order, SOCK_MT)))
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
        doc: "One side of a stream socket pair (AF_UNIX / SCTP shape): `msgs` writes of `bytes`, whose pages the sender allocates and the receiver frees (orders as the kernel cuts the write: a 64 KiB AF_UNIX write is orders 3, 2, 1, 0); the sides swap sender and receiver every `sock_phase_msgs` messages.",
        args: &[
            ArgDef::required("pair", ArgKind::Int { min: 0, max: 4095 }, "The pair (both sides name the same one)."),
            ArgDef::optional(
                "bytes",
                ArgKind::Int { min: 8192, max: 262_144 },
                65536,
                "Bytes per write (lmbench3 bw_unix: 64 KiB; netperf SCTP_STREAM: the 16 KiB send buffer).",
            ),
            ArgDef::optional(
                "linear",
                ArgKind::Bool,
                0,
                "false: an AF_UNIX stream write, paged skbs (unix_stream_sendmsg -> alloc_skb_with_frags); true: one linear skb per write, a kmalloc_large block (SCTP's DATA chunk).",
            ),
            ArgDef::required("msgs", ArgKind::Int { min: 0, max: 1 << 30 }, "Messages this side handles (sent and received)."),
            ArgDef::optional("role", ArgKind::Int { min: 0, max: 1 }, 0, "0: sends first; 1: receives first."),
        ],
        run: OpRun::Call {
            start: |a| SockPair::frame(a[0] as u16, a[1] as u32, a[2] != 0, a[3] as u32, a[4] as u8),
            says: "streams messages over a socket pair",
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn orders(bytes: u32, linear: bool) -> Vec<u8> {
        (0..).map_while(|i| message_page_order(bytes, linear, i)).collect()
    }

    #[test]
    fn a_write_is_cut_into_pages_as_the_kernel_cuts_it() {
        // 64 KiB AF_UNIX write: skb 1 has 3,776 head bytes and 32 KiB paged (one order-3
        // page); skb 2 has the other 28,992 bytes: 320 head bytes and 28 KiB paged, filled
        // by orders 2, 1 and 0.
        assert_eq!(orders(65536, false), vec![3, 2, 1, 0]);
        // 36,544 bytes fill one skb exactly.
        assert_eq!(orders(SKB_MAX_HEAD + UNIX_SKB_FRAGS_SZ, false), vec![3]);
        // 8 KiB: no head bytes, one order-1 page.
        assert_eq!(orders(8192, false), vec![1]);
        // 128 KiB: three full skbs and 21,440 bytes (20 KiB paged: orders 2 and 0).
        assert_eq!(orders(131072, false), vec![3, 3, 3, 2, 0]);
        assert_eq!(message_pages(65536, false), 4);
        // SCTP's 16 KiB message: one linear skb, kmalloc_large of order 3.
        assert_eq!(orders(16384, true), vec![3]);
        // Over 8 KiB but under 16 KiB with headers: order 2.
        assert_eq!(orders(12000, true), vec![2]);
        // Every allowed size has at least one page, and no more than an skb's frags allow.
        for bytes in (8192..=262_144).step_by(1000) {
            for linear in [false, true] {
                let n = message_pages(bytes, linear);
                assert!((1..=64).contains(&n), "{bytes} {linear}: {n}");
            }
        }
    }
}
