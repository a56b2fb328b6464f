//! `kernel/time/hrtimer.c`: the timer interrupt that ends a sleep (`nanosleep` →
//! `hrtimer_wakeup` → `wake_up_process`) while another task runs on the sleeper's CPU.
//!
//! Follows Linux v5.12 in what matters here: the sleeper is woken at the timer's expiry
//! (`try_to_wake_up` from the timer interrupt on its CPU, so `select_task_rq_fair` may put
//! it on an idle CPU of the node instead), not when the CPU next goes idle, and it
//! preempts the running task when it is far enough behind it in vruntime
//! (`check_preempt_wakeup`); otherwise it waits for the running task's slice to end.

use crate::core::Ret;
use crate::engine::{say, Sim};
use crate::mech::core::ev as core_ev;
use crate::topology::CpuId;
use crate::trace::Ev;

/// `hrtimer_interrupt` on `cpu`: wakes every sleeper of this CPU whose time is up.
pub(crate) fn hrtimer_interrupt(sim: &mut Sim, cpu: CpuId) -> Ev {
    let (woken, created) = wake_expired(sim, cpu);
    let preempts = if sim.st.cpus[cpu as usize].need_resched {
        format!("; far enough behind in vruntime, a woken thread preempts {}", sim.task_name(cpu))
    } else {
        String::new()
    };
    let text = match (woken, created) {
        (0, n) => say!(
            sim,
            "The launcher on CPU {cpu} creates {n} thread(s) (sequential_launch): each is placed as a new task (wake_up_new_task){preempts}"
        ),
        (n, 0) => say!(
            sim,
            "A timer interrupt on CPU {cpu} ends {n} sleep(s): try_to_wake_up queues the woken thread where select_task_rq_fair puts it{preempts}"
        ),
        (n, m) => say!(
            sim,
            "A timer interrupt on CPU {cpu} ends {n} sleep(s) and the launcher creates {m} thread(s){preempts}"
        ),
    };
    Ev::new(core_ev::WAKE, "hrtimer_wakeup", "T1").say(text)
}

/// `hrtimer_wakeup` for each sleeper of `cpu` whose time is up: `try_to_wake_up` from
/// this CPU, its sleeping frame told it was woken; and each thread of a
/// `sequential_launch` scenario whose creation time has come is created. Returns how many
/// woke and how many were created.
pub(crate) fn wake_expired(sim: &mut Sim, cpu: CpuId) -> (u32, u32) {
    let c = cpu as usize;
    let now = sim.clock(cpu);
    let (mut woken, mut created) = (0, 0);
    while let Some(&(t, task)) = sim.st.cpus[c].timers.first() {
        if t > now {
            break;
        }
        sim.st.cpus[c].timers.remove(0);
        if let Some(by) = sim.st.tasks[task as usize].se.launch.take() {
            crate::kernel::sched::core::wake_up_launched(sim, task, by, now);
            created += 1;
        } else {
            crate::kernel::sched::fair::try_to_wake_up(sim, task, cpu, now);
            sim.resume_top(task, Ret::Woken);
            woken += 1;
        }
    }
    (woken, created)
}
