//! `kernel/time/hrtimer.c`: the timer interrupt that ends a sleep (`nanosleep` →
//! `hrtimer_wakeup` → `wake_up_process`) while another task runs on the sleeper's CPU.
//!
//! Follows Linux v5.12 in what matters here: the woken task goes back on its CPU's run
//! queue at the timer's expiry, not when the CPU next goes idle, and waits there for the
//! running task's slice to end. Left out: wakeup preemption (`check_preempt_wakeup`),
//! which with CFS would often let the sleeper run at once; a woken task here always
//! waits for the slice end.

use crate::core::Ret;
use crate::engine::{say, Sim};
use crate::machine::TaskState;
use crate::mech::core::ev as core_ev;
use crate::topology::CpuId;
use crate::trace::Ev;

/// `hrtimer_interrupt` on `cpu`: wakes every sleeper of this CPU whose time is up.
pub(crate) fn hrtimer_interrupt(sim: &mut Sim, cpu: CpuId) -> Ev {
    let woken = wake_expired(sim, cpu);
    Ev::new(core_ev::WAKE, "hrtimer_wakeup", "T1").say(say!(
        sim,
        "A timer interrupt on CPU {cpu} ends {woken} sleep(s): the woken thread goes on CPU {cpu}'s run queue and waits for {}'s slice to end",
        sim.task_name(cpu)
    ))
}

/// `hrtimer_wakeup` for each sleeper of `cpu` whose time is up: back on the run queue,
/// its sleeping frame told it was woken. Returns how many woke.
pub(crate) fn wake_expired(sim: &mut Sim, cpu: CpuId) -> u32 {
    let c = cpu as usize;
    let now = sim.clock(cpu);
    let mut woken = 0;
    while let Some(&(t, task)) = sim.st.cpus[c].timers.first() {
        if t > now {
            break;
        }
        sim.st.cpus[c].timers.remove(0);
        sim.st.tasks[task as usize].state = TaskState::Runnable;
        sim.st.cpus[c].rq.push_back(task);
        sim.resume_top(task, Ret::Woken);
        woken += 1;
    }
    woken
}
