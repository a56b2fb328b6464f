//! `kernel/kthread.c`: a kernel thread's main loop. Each kernel thread (kswapd,
//! kcompactd, khugepaged, the writeback flusher, the vmstat worker) is a task with no mm
//! of its own: switching to it leaves the CPU in lazy TLB mode on whatever mm it had
//! loaded (`context_switch`, x86 v5.12). Its loop, as in `kswapd()` or a worker's
//! `worker_thread()`: do the work its mechanism has for it, then
//! `set_current_state(TASK_INTERRUPTIBLE); schedule()` until `wake_up_process`.
//!
//! A mechanism says what its thread does with a [`KthreadDef`] (`Mechanism::kthreads`);
//! a thread no mechanism gives work to runs its loop once when woken and sleeps again.
//! The vmstat worker also wakes by itself once a second (`mm/vmstat.rs`).

use crate::core::{Flow, Ret, Until};
use crate::engine::{say, Sim};
use crate::machine::KthreadKind;
use crate::mech::core::ev as core_ev;
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// What a mechanism's kernel thread does each time it is woken: the function it calls
/// (kswapd's `balance_pgdat`, the flusher's `wb_workfn`…), or `None` when there is
/// nothing to do, and it sleeps again.
#[derive(Clone, Copy, Debug)]
pub struct KthreadDef {
    /// The thread.
    pub kind: KthreadKind,
    /// Its work, given the thread's task index.
    pub work: fn(&mut Sim, u16) -> Option<Frame>,
}

/// Where the loop is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kt {
    /// KT1: look for work.
    Work,
    /// KT2: the work returned: look again.
    Again,
}

/// A kernel thread's main loop, the base of its stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kthread {
    kind: KthreadKind,
    pc: Kt,
}

impl Kthread {
    /// The loop of a `kind` thread, about to look for work.
    pub fn new(kind: KthreadKind) -> Self {
        Kthread { kind, pc: Kt::Work }
    }
}

impl Function for Kthread {
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "kthread";
        let task = sim.st.cpus[cpu as usize].curr;
        let name = self.kind.name();
        if self.pc == Kt::Again {
            self.pc = Kt::Work;
            let ev = Ev::new(core_ev::RETURN, F, "KT2").say(say!(sim, "{name}'s work returned; it looks for more"));
            return (ev, Flow::Continue);
        }
        let work = crate::registry::MECHANISMS
            .iter()
            .flat_map(|m| m.kthreads.iter())
            .find(|k| k.kind == self.kind)
            .and_then(|k| (k.work)(sim, task));
        match work {
            Some(frame) => {
                self.pc = Kt::Again;
                let f = frame.function();
                let ev = Ev::new(core_ev::CALL, F, "KT1").say(say!(
                    sim,
                    "{name} runs on CPU {cpu} (a kernel thread: the CPU keeps its mm loaded lazily) and calls {f}"
                ));
                (ev, Flow::Call(frame))
            }
            // The vmstat worker's work queues itself again on the CPU's next whole second
            // (mm/vmstat.rs); the other threads sleep until woken.
            None if self.kind == KthreadKind::Vmstat => {
                let until = crate::mm::vmstat::next_update(sim, cpu, sim.clock(cpu));
                let ev = Ev::new(core_ev::SLEEP, F, "KT3").say(say!(
                    sim,
                    "{name} has folded CPU {cpu}'s counters (vmstat_update): it is queued again for {until} ns (round_jiffies_relative of a second), and CPU {cpu} schedules another task"
                ));
                (ev, Flow::Block(Until::Sleep(until)))
            }
            None => {
                let ev = Ev::new(core_ev::SLEEP, F, "KT3").say(say!(
                    sim,
                    "{name} has nothing to do: it sleeps until woken, and CPU {cpu} schedules another task"
                ));
                (ev, Flow::Block(Until::Wake))
            }
        }
    }

    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if r == Ret::Woken {
            self.pc = Kt::Work;
        }
    }
}
