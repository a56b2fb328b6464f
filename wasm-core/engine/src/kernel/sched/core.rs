//! `kernel/sched/core.c`: per-CPU run queues, `__schedule` and `context_switch`, and
//! the exit path's last switch (`do_exit` → `do_task_dead`).
//!
//! Follows Linux v5.12 in what decides TLB behaviour: a switch to a kernel thread or
//! the idle task keeps the old mm loaded in lazy TLB mode (`enter_lazy_tlb`), a switch to
//! a user thread goes through `switch_mm_irqs_off`. The policy is round robin with a
//! fixed slice (`knobs.sched_slice_ns`) and no load balancing: tasks stay on the CPUs
//! they were placed on, as pinned (`cpus_allowed`) benchmark threads do.

use crate::arch::x86::mm::tlb::switch_mm_irqs_off;
use crate::engine::{say, Sim};
use crate::machine::{TaskKind, TaskState, Wait};
use crate::registry::Frame;
use crate::topology::CpuId;
use crate::trace::{Ev, EventKind};

/// `__schedule`: `prev` (the CPU's current task) has already been put where it belongs
/// (run queue, sleeping, dead); pick the next runnable task or the idle task and switch.
/// Returns the switch's event.
pub(crate) fn schedule(sim: &mut Sim, cpu: CpuId) -> Ev {
    let c = cpu as usize;
    let next = sim.st.cpus[c].rq.pop_front().unwrap_or(sim.st.cpus[c].idle);
    context_switch(sim, cpu, next, sim.cfg.costs.switch_ns)
}

/// `context_switch(rq, prev, next)`: the mm switch, then the task switch, charging `ns`.
fn context_switch(sim: &mut Sim, cpu: CpuId, next: u16, ns: u64) -> Ev {
    let c = cpu as usize;
    let prev = sim.st.cpus[c].curr;
    sim.charge(cpu, ns);
    let ev = match sim.st.tasks[next as usize].mm() {
        Some(mm) => switch_mm_irqs_off(sim, cpu, mm),
        None => {
            // enter_lazy_tlb: the old mm stays loaded and this CPU stays in its mm_cpumask.
            if sim.st.cpus[c].loaded_mm.is_some() {
                sim.st.cpus[c].lazy = true;
            }
            Ev::new(EventKind::Switch, "__schedule", "K3")
        }
    };
    if prev != next {
        sim.st.counters.inc(crate::counters::Counter::Ctxt);
    }
    sim.st.cpus[c].curr = next;
    sim.st.cpus[c].slice_end = sim.clock(cpu) + sim.cfg.knobs.sched_slice_ns;
    let t = &mut sim.st.tasks[next as usize];
    t.state = TaskState::Running;
    t.cpu = cpu;
    if prev != next && sim.st.tasks[prev as usize].state == TaskState::Running {
        sim.st.tasks[prev as usize].state = TaskState::Runnable;
    }
    ev
}

/// A step of a CPU whose idle task runs: wake the tasks whose timers expired, and
/// switch to the first runnable one.
pub(crate) fn idle_step(sim: &mut Sim, cpu: CpuId) -> Ev {
    let c = cpu as usize;
    let now = sim.clock(cpu);
    while let Some(&(t, task)) = sim.st.cpus[c].timers.first() {
        if t > now {
            break;
        }
        sim.st.cpus[c].timers.remove(0);
        sim.st.tasks[task as usize].state = TaskState::Runnable;
        sim.st.cpus[c].rq.push_back(task);
        // The sleeping frame learns it was woken.
        sim.resume_top(task, crate::core::Ret::Woken);
    }
    if sim.st.cpus[c].rq.is_empty() {
        return Ev::new(EventKind::Switch, "__schedule", "K2").say(say!(sim, "CPU {cpu} has nothing to run"));
    }
    let ev = schedule(sim, cpu);
    let who = sim.task_name(cpu);
    let text = say!(sim, "Thread {who} is woken and scheduled on CPU {cpu}; {}", ev.text);
    Ev { text, ..ev }
}

/// `do_exit` for a user thread: drop the mm reference and switch away for good. The CPU
/// keeps the mm loaded lazily (still in its `mm_cpumask`, skipped by flush IPIs). The
/// exit path's own time is not charged (as in the v1 model, whose golden counters the
/// core reproduces; an in-flight IPI reaches an exiting CPU when v1 had it arrive).
pub(crate) fn do_exit(sim: &mut Sim, cpu: CpuId, task: u16) {
    let t = &mut sim.st.tasks[task as usize];
    t.state = TaskState::Dead;
    if let TaskKind::User { mm, .. } = t.kind {
        let m = &mut sim.st.mms[mm as usize];
        m.users = m.users.saturating_sub(1);
    }
    let c = cpu as usize;
    let next = sim.st.cpus[c].rq.pop_front().unwrap_or(sim.st.cpus[c].idle);
    context_switch(sim, cpu, next, 0);
}

/// `scheduler_tick` on a CPU whose user code (a `compute` operation) has used up its
/// slice while another task is runnable: `resched_curr`, and on the interrupt's return to
/// user mode, `schedule()`. The computation keeps what is left of it and goes on when the
/// task runs again. Kernel code is not preempted (a `PREEMPT_NONE` / voluntary kernel).
pub(crate) fn scheduler_tick(sim: &mut Sim, cpu: CpuId, task: u16) -> Ev {
    let c = cpu as usize;
    let now = sim.clock(cpu);
    let Wait::Busy(until) = sim.st.cpus[c].wait else {
        return Ev::new(EventKind::Switch, "scheduler_tick", "TK1");
    };
    sim.st.cpus[c].wait = Wait::None;
    let left = until.saturating_sub(now);
    if let Some(Frame::User(u)) = sim.st.stacks[task as usize].top_mut() {
        u.preempt(left);
    }
    let who = if sim.recording { sim.task_name(cpu) } else { String::new() };
    sim.st.tasks[task as usize].state = TaskState::Runnable;
    sim.st.cpus[c].rq.push_back(task);
    let ev = schedule(sim, cpu);
    let text = say!(
        sim,
        "Tick on CPU {cpu}: {who}'s slice is over with {left} ns of computing left and another task is runnable, so it is preempted; {}",
        ev.text
    );
    Ev {
        kind: Some(EventKind::Switch),
        function: "scheduler_tick",
        line: "TK1",
        text,
        ..ev
    }
}
