//! CPUs: the clock, the task running, the run queue, the TLB state x86 keeps per CPU
//! (`cpu_tlbstate`: `loaded_mm`, `is_lazy`, the generation it is up to date with),
//! pending shootdown IPIs and what the CPU is spinning on.

use super::tlb::Tlb;
use crate::core::lock::LockId;
use crate::topology::{CpuId, NodeId};
use std::collections::VecDeque;

/// A shootdown IPI waiting in a CPU's inbox (`flush_tlb_info` + the call-function queue).
#[derive(Clone, Copy, Debug)]
pub struct Ipi {
    /// Sender.
    pub from: CpuId,
    /// The mm to flush.
    pub mm: u16,
    /// First vpn.
    pub start: u32,
    /// Pages, or [`super::tlb::FLUSH_ALL`].
    pub pages: u32,
    /// The generation the flush asked for (`flush_tlb_info.new_tlb_gen`).
    pub gen: u64,
    /// Arrival time.
    pub arrive: u64,
    /// Step of the send event (the cause of the handler's events).
    pub cause: u64,
}

/// What a CPU is held up by, while its task stays on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Runnable.
    None,
    /// Waiting for IPI acknowledgements (`smp_call_function_many` with `wait`).
    Acks,
    /// Spinning on a lock.
    Lock(LockId),
    /// Running user code until a time; interrupts are taken meanwhile and push it back.
    Busy(u64),
    /// Its stopper spins in `multi_cpu_stop` for the other CPU of a `stop_two_cpus`
    /// (`migrate_swap`): the task here waits to change places with the one on that CPU,
    /// which runs kernel code until it can be preempted.
    Stop(crate::topology::CpuId),
}

/// A CPU.
#[derive(Clone, Debug)]
pub struct Cpu {
    /// Id.
    pub id: CpuId,
    /// Node.
    pub node: NodeId,
    /// Local clock (ns).
    pub clock: u64,
    /// The task running (its idle task when nothing else is).
    pub curr: u16,
    /// The idle task.
    pub idle: u16,
    /// Runnable tasks waiting for this CPU, in order.
    pub rq: VecDeque<u16>,
    /// When the running task gives the CPU up to a queued one: the scheduler tick at which
    /// `check_preempt_tick` finds its slice used (or at once, after `need_resched`);
    /// `u64::MAX` while nothing else is runnable here. Kept up to date by every change of
    /// the running task or the run queue (`kernel/sched/fair.rs`).
    pub slice_end: u64,
    /// `cfs_rq->min_vruntime` (ns): never decreases.
    pub min_vruntime: u64,
    /// `TIF_NEED_RESCHED` of the running task, set by a wake-up that preempts it
    /// (`check_preempt_wakeup`): it gives the CPU up at its next return to user space, or at
    /// once when the interrupt lands in user code.
    pub need_resched: bool,
    /// `cfs_rq->skip`: the task that called `sched_yield`, passed over by the next pick
    /// when that is not too unfair.
    pub skip: Option<u16>,
    /// Sleeping tasks of this CPU with a wake-up time, earliest first.
    pub timers: Vec<(u64, u16)>,
    /// `cpu_tlbstate.loaded_mm` (mm index).
    pub loaded_mm: Option<u16>,
    /// `cpu_tlbstate.is_lazy`.
    pub lazy: bool,
    /// The loaded mm's generation this TLB is up to date with.
    pub seen_gen: u64,
    /// The TLB.
    pub tlb: Tlb,
    /// Held up by what.
    pub wait: Wait,
    /// Shootdown IPIs not handled yet, in arrival order.
    pub inbox: VecDeque<Ipi>,
    /// Acknowledgements still owed to this CPU's flush.
    pub acks_pending: u16,
    /// Time of the latest acknowledgement received.
    pub acks_last: u64,
    /// Weighted kernel time of the current step not yet in the profile (`Sim::charge`).
    pub extra: u64,
    /// This CPU's node-level scheduling domain's balancing state.
    pub sd: SdState,
    /// Its NUMA-level domain's (all the nodes; balanced from here while this CPU idles).
    pub sd_numa: SdState,
}

/// The load-balancing state of a CPU's node-level `struct sched_domain` (one level: the
/// node is the LLC; kernel/sched/topology.c `sd_init`, v5.12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SdState {
    /// `rq->next_balance`, ns.
    pub next_balance: u64,
    /// `sd->balance_interval`, ms (between `min_interval` = the node's CPUs and twice that).
    pub balance_interval_ms: u32,
    /// `sd->nr_balance_failed`: balancing attempts in a row that found an imbalance and
    /// moved nothing.
    pub nr_balance_failed: u32,
}
