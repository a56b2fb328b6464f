//! `kernel/sched/core.c`: per-CPU run queues, `__schedule` and `context_switch`, and
//! the exit path's last switch (`do_exit` → `do_task_dead`).
//!
//! Follows Linux v5.12 in what decides TLB behaviour: a switch to a kernel thread or
//! the idle task keeps the old mm loaded in lazy TLB mode (`enter_lazy_tlb`), a switch to
//! a user thread goes through `switch_mm_irqs_off`. The policy is round robin with a
//! fixed slice (`knobs.sched_slice_ns`).
//!
//! Placement and balancing follow v5.12 (`kernel/sched/fair.c`), with loads counted in
//! tasks (every task here is always runnable when awake) instead of PELT averages. A new
//! task (at start, or `wake_up_new_task` at fork) goes through `find_idlest_group` at the
//! NUMA level with the forking CPU's node preferred (`allow_numa_imbalance`: forks fill
//! the parent's node until a quarter of the machine's CPUs are busy there), then to the
//! node's least loaded CPU ([`select_task_rq`]). A CPU about to idle pulls a queued task
//! allowed on it from the busiest run queue, its own node first (`newidle_balance`); a
//! busy CPU whose slice ends with tasks queued hands one to an idle allowed CPU (the
//! tick's `nohz_balancer_kick` and the idle CPU's pull, in one step); a busy CPU alone
//! on its run queue balances its node periodically ([`rebalance`]); and the idle load
//! balancer evens the nodes out at the NUMA level, by active balancing of a running task
//! when nothing is queued ([`nohz_idle_balance`]). A woken sleeper goes back to the CPU
//! it slept on. `mm_cpumask` still changes only in `context_switch`. Pinned threads (one
//! allowed CPU) never move, so scenarios that pin every thread behave as before
//! balancing existed.

use super::fair;
use crate::arch::x86::mm::tlb::switch_mm_irqs_off;
use crate::engine::{say, Sim};
use crate::machine::{CpuMask, TaskKind, TaskState, Wait};
use crate::mech::core::ev as core_ev;
use crate::mech::core::{CTXT, NR_MIGRATIONS};
use crate::mech::core::{LOAD_BALANCE_NS, SWITCH_NS};
use crate::registry::Frame;
use crate::topology::{CpuId, NodeId};
use crate::trace::Ev;

/// `__schedule`: `prev` (the CPU's current task) has already been put where it belongs
/// (run queue, sleeping, dead); pick the next runnable task or the idle task and switch.
/// Returns the switch's event.
pub(crate) fn schedule(sim: &mut Sim, cpu: CpuId) -> Ev {
    schedule_pulling(sim, cpu).0
}

/// [`schedule`], also saying which task `newidle_balance` pulled from which CPU, if it did.
/// The next task is CFS's pick (`pick_next_entity`: the smallest vruntime).
pub(crate) fn schedule_pulling(sim: &mut Sim, cpu: CpuId) -> (Ev, Option<(u16, CpuId)>) {
    let c = cpu as usize;
    fair::update_curr(sim, cpu);
    let pulled = if sim.st.cpus[c].rq.is_empty() {
        newidle_balance(sim, cpu)
    } else {
        None
    };
    let next = fair::pick_next(sim, cpu).unwrap_or(sim.st.cpus[c].idle);
    (context_switch(sim, cpu, next, sim.cfg.costs[SWITCH_NS]), pulled)
}

/// What a step that left `cpu` with nothing to run adds to its narration when
/// `newidle_balance` pulled `task` from `from` (LB1, LB3 of `load_balance`).
pub(crate) fn say_pulled(sim: &Sim, cpu: CpuId, (task, from): (u16, CpuId)) -> String {
    let pid = sim.st.tasks[task as usize].pid;
    format!(
        "; CPU {cpu} would go idle, so newidle_balance pulls thread {pid}, queued on the busier CPU {from}, and runs it (nr_migrations += 1)"
    )
}

/// `context_switch(rq, prev, next)`: the mm switch, then the task switch, charging `ns`.
fn context_switch(sim: &mut Sim, cpu: CpuId, next: u16, ns: u64) -> Ev {
    let c = cpu as usize;
    let prev = sim.st.cpus[c].curr;
    // update_curr: the runtime task_tick_numa reads (se.sum_exec_runtime).
    let now = sim.clock(cpu);
    let p = &mut sim.st.tasks[prev as usize].numa;
    p.sum_exec_runtime += now.saturating_sub(p.exec_start);
    sim.charge(cpu, ns);
    sim.st.tasks[next as usize].numa.exec_start = sim.clock(cpu);
    let ev = match sim.st.tasks[next as usize].mm() {
        Some(mm) => switch_mm_irqs_off(sim, cpu, mm),
        None => {
            // enter_lazy_tlb: the old mm stays loaded and this CPU stays in its mm_cpumask
            // (in v4.14-v4.19 with PCID it switches to init_mm instead: arch tlb.rs).
            crate::arch::x86::mm::tlb::enter_lazy_tlb(sim, cpu);
            Ev::new(core_ev::SWITCH, "__schedule", "K3")
        }
    };
    if prev != next {
        sim.st.counters.inc(CTXT);
    }
    sim.st.cpus[c].curr = next;
    sim.st.cpus[c].need_resched = false;
    fair::set_next(sim, next);
    let t = &mut sim.st.tasks[next as usize];
    t.state = TaskState::Running;
    t.cpu = cpu;
    if prev != next && sim.st.tasks[prev as usize].state == TaskState::Running {
        sim.st.tasks[prev as usize].state = TaskState::Runnable;
    }
    fair::refresh_slice(sim, cpu);
    ev
}

/// A step of a CPU whose idle task runs: wake the tasks whose timers expired, and
/// switch to the first runnable one.
pub(crate) fn idle_step(sim: &mut Sim, cpu: CpuId) -> Ev {
    let c = cpu as usize;
    let (woken, created) = crate::kernel::time::hrtimer::wake_expired(sim, cpu);
    if sim.st.cpus[c].rq.is_empty() {
        let text = match (woken, created) {
            (0, 0) => say!(sim, "CPU {cpu} has nothing to run"),
            (w, n) => say!(
                sim,
                "CPU {cpu}'s timers end {w} sleep(s) and create {n} thread(s), all placed on other CPUs: it has nothing to run"
            ),
        };
        return Ev::new(core_ev::SWITCH, "__schedule", "K2").say(text);
    }
    let ev = schedule(sim, cpu);
    let text = say!(
        sim,
        "Thread {} is woken and scheduled on CPU {cpu}; {}",
        sim.task_name(cpu),
        ev.text
    );
    Ev { text, ..ev }
}

/// `do_exit` for a user thread: drop the mm reference and switch away for good. The CPU
/// keeps the mm loaded lazily (still in its `mm_cpumask`, skipped by flush IPIs). The
/// exit path's own time is not charged (as in the v1 model, whose golden counters the
/// core reproduces; an in-flight IPI reaches an exiting CPU when v1 had it arrive).
pub(crate) fn do_exit(sim: &mut Sim, cpu: CpuId, task: u16) -> Option<(u16, CpuId)> {
    crate::kernel::sched::numa_group::task_numa_free(sim, task as usize);
    let t = &mut sim.st.tasks[task as usize];
    t.state = TaskState::Dead;
    if let TaskKind::User { mm, .. } = t.kind {
        let m = &mut sim.st.mms[mm as usize];
        m.users = m.users.saturating_sub(1);
    }
    if let TaskKind::User { mm, .. } = sim.st.tasks[task as usize].kind {
        if sim.st.mms[mm as usize].users == 0 {
            crate::mm::mmap::exit_mmap(sim, cpu, mm);
        }
    }
    let c = cpu as usize;
    let pulled = if sim.st.cpus[c].rq.is_empty() {
        newidle_balance(sim, cpu)
    } else {
        None
    };
    let next = fair::pick_next(sim, cpu).unwrap_or(sim.st.cpus[c].idle);
    context_switch(sim, cpu, next, 0);
    pulled
}

/// `scheduler_tick` on a CPU whose user code (a `compute` operation or a run of accesses)
/// has used up its slice while another task is runnable (`check_preempt_tick`), or the
/// interrupt of a wake-up that preempts it (`check_preempt_wakeup` set `need_resched`):
/// `resched_curr`, and on the interrupt's return to user mode, `schedule()`. The
/// computation keeps what is left of it and goes on when the task runs again. Kernel code
/// is not preempted (a `PREEMPT_NONE` / voluntary kernel).
pub(crate) fn scheduler_tick(sim: &mut Sim, cpu: CpuId, task: u16) -> Ev {
    let c = cpu as usize;
    let now = sim.clock(cpu);
    let Wait::Busy(until) = sim.st.cpus[c].wait else {
        return Ev::new(core_ev::SWITCH, "scheduler_tick", "TK1");
    };
    let woken = sim.st.cpus[c].need_resched;
    // trigger_load_balance first: an idle CPU may take a task queued here, and with
    // nothing left waiting the computation goes on (check_preempt_tick finds no one to
    // give the CPU to).
    let balanced = if woken { None } else { tick_balance(sim, cpu) };
    if balanced.is_some() && sim.st.cpus[c].rq.is_empty() {
        let ev = balanced.unwrap_or_default();
        let text = say!(
            sim,
            "Tick on CPU {cpu}, whose slice is over: {}; nothing else waits here, so the computation goes on",
            ev.text
        );
        return Ev { text, ..ev };
    }
    sim.st.cpus[c].wait = Wait::None;
    let left = until.saturating_sub(now);
    if let Some(u) = sim.st.stacks[task as usize].top_mut().and_then(Frame::user_mode_mut) {
        if u.preempt(left) {
            sim.owe_again(cpu, task, left);
        }
    }
    let who = if sim.recording { sim.task_name(cpu) } else { String::new() };
    sim.st.tasks[task as usize].state = TaskState::Runnable;
    sim.st.cpus[c].rq.push_back(task);
    let ev = schedule(sim, cpu);
    let moved = balanced.map(|b| format!("{}; ", b.text)).unwrap_or_default();
    let text = if woken {
        say!(
            sim,
            "A woken task on CPU {cpu} is more than sched_wakeup_granularity behind {who} in vruntime (check_preempt_wakeup), so {who} is preempted with {left} ns of computing left; {}",
            ev.text
        )
    } else {
        say!(
            sim,
            "Tick on CPU {cpu}: {moved}{who}'s slice is over with {left} ns of computing left and another task is runnable, so it is preempted; {}",
            ev.text
        )
    };
    Ev {
        kind: Some(core_ev::SWITCH),
        function: "scheduler_tick",
        line: "TK1",
        text,
        ..ev
    }
}

/// Tasks running or queued on a CPU (`rq->nr_running`, the idle task not counted).
fn nr_running(c: &crate::machine::Cpu) -> usize {
    usize::from(c.curr != c.idle) + c.rq.len()
}

/// `sd->imbalance_pct` of a NUMA level (`sd_init` keeps the default 125 for `SD_NUMA`).
const NUMA_IMBALANCE_PCT: u64 = 125;
/// `sd->cache_nice_tries` of a NUMA level; active balancing after `+ 2` more failures.
const NUMA_CACHE_NICE_TRIES: u32 = 2;
/// `NUMA_IMBALANCE_MIN`: an imbalance of this many tasks or fewer may stay between nodes
/// while the busiest runs few tasks (`adjust_numa_imbalance`).
const NUMA_IMBALANCE_MIN: u64 = 2;

/// `enum group_type`, the three kinds the model can tell apart (no misfit, asymmetric
/// packing or imbalanced affinity): a node with a CPU to spare, every CPU busy, more
/// tasks than CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum GroupType {
    HasSpare,
    FullyBusy,
    Overloaded,
}

/// `struct sg_lb_stats` of one node (a NUMA-level group) over the CPUs in `mask`.
#[derive(Clone, Copy, Debug)]
struct NodeStats {
    node: NodeId,
    /// `sum_nr_running`.
    nr_running: u64,
    /// `idle_cpus`: CPUs running nothing.
    idle_cpus: u64,
    /// `group_weight`: CPUs.
    weight: u64,
}

impl NodeStats {
    fn of(cpus: &[crate::machine::Cpu], mask: CpuMask, node: NodeId) -> Self {
        let mut s = NodeStats {
            node,
            nr_running: 0,
            idle_cpus: 0,
            weight: 0,
        };
        for c in mask.iter().filter(|&c| (c as usize) < cpus.len() && cpus[c as usize].node == node) {
            let n = nr_running(&cpus[c as usize]) as u64;
            s.nr_running += n;
            s.idle_cpus += u64::from(n == 0);
            s.weight += 1;
        }
        s
    }
    /// `group_classify`, by task count (every task here is always runnable when awake,
    /// so its utilisation is a full CPU).
    fn group_type(&self) -> GroupType {
        match self.nr_running.cmp(&self.weight) {
            std::cmp::Ordering::Less => GroupType::HasSpare,
            std::cmp::Ordering::Equal => GroupType::FullyBusy,
            std::cmp::Ordering::Greater => GroupType::Overloaded,
        }
    }
    /// `avg_load`: the group's load per `SCHED_CAPACITY_SCALE` of capacity.
    fn avg_load(&self) -> u64 {
        self.nr_running * NICE_0_LOAD / self.weight.max(1)
    }
}

/// `allow_numa_imbalance(dst_running, dst_weight)` (v5.11, 23e6082a522e): a node may run
/// more than its share while fewer than a quarter of the domain's CPUs are busy there.
fn allow_numa_imbalance(dst_running: u64, dst_weight: u64) -> bool {
    dst_running < dst_weight >> 2
}

/// Nodes in order of their lowest CPU in `mask`, each once (no allocation: kernel
/// threads are placed at every wake-up).
fn nodes_of(cpus: &[crate::machine::Cpu], mask: CpuMask) -> impl Iterator<Item = NodeId> + '_ {
    let ok = move || mask.iter().filter(|&c| (c as usize) < cpus.len());
    ok().filter(move |&c| !ok().take_while(|&e| e < c).any(|e| cpus[e as usize].node == cpus[c as usize].node))
        .map(|c| cpus[c as usize].node)
}

/// `select_task_rq` for a new task, `find_idlest_cpu` as in kernel/sched/fair.c v5.12:
/// first the NUMA level (`SD_BALANCE_FORK` stays set below `RECLAIM_DISTANCE`), then the
/// node's least loaded allowed CPU (`find_idlest_group_cpu`: an idle one, lowest id first).
///
/// `find_idlest_group` at the NUMA level, with `this_cpu` the forking CPU: the idlest
/// other node is the one of the lowest `group_type`, then the most idle CPUs (equal: fewer
/// tasks), or for busy nodes the lowest `avg_load`; the first on a tie
/// (`update_pick_idlest`). The task stays on `this_cpu`'s node when that node is of a
/// lower type; when both have a CPU to spare, while fewer than a quarter of the machine's
/// CPUs are busy there (`allow_numa_imbalance`, v5.11) or it has at least as many idle
/// CPUs; when both are busy, while its `avg_load` is within `imbalance_pct` (125) of the
/// idlest's. So forks fill the parent's node up to a quarter of the machine before they
/// spread, and periodic balancing ([`nohz_idle_balance`]) evens the nodes out later.
///
/// `this_cpu` `None` (a kernel thread's wake-up): the idlest node outright, which is
/// where `select_idle_sibling`'s search would find an idle CPU first. Simplified: loads
/// are task counts, the nodes' CPUs are those the task may use.
pub(crate) fn select_task_rq(cpus: &[crate::machine::Cpu], allowed: CpuMask, this_cpu: Option<CpuId>) -> CpuId {
    let local = this_cpu.filter(|&c| (c as usize) < cpus.len()).map(|c| cpus[c as usize].node);
    let span = cpus.len() as u64;
    let mut local_sgs = None;
    let mut idlest: Option<NodeStats> = None;
    for node in nodes_of(cpus, allowed) {
        let s = NodeStats::of(cpus, allowed, node);
        if Some(node) == local {
            local_sgs = Some(s);
            continue;
        }
        let better = match idlest {
            None => true,
            Some(i) => match s.group_type().cmp(&i.group_type()) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Greater => false,
                std::cmp::Ordering::Equal => match s.group_type() {
                    GroupType::HasSpare => s.idle_cpus > i.idle_cpus || (s.idle_cpus == i.idle_cpus && s.nr_running < i.nr_running),
                    _ => s.avg_load() < i.avg_load(),
                },
            },
        };
        if better {
            idlest = Some(s);
        }
    }
    let node = match (local_sgs, idlest) {
        (l, None) => l.map(|l| l.node),
        (None, Some(i)) => Some(i.node),
        (Some(l), Some(i)) => {
            let stay = match l.group_type().cmp(&i.group_type()) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Greater => false,
                std::cmp::Ordering::Equal => match l.group_type() {
                    GroupType::HasSpare => allow_numa_imbalance(l.nr_running, span) || l.idle_cpus >= i.idle_cpus,
                    _ => {
                        let imbalance = NICE_0_LOAD * (NUMA_IMBALANCE_PCT - 100) / 100;
                        i.avg_load() + imbalance >= l.avg_load() || 100 * l.avg_load() <= NUMA_IMBALANCE_PCT * i.avg_load()
                    }
                },
            };
            Some(if stay { l.node } else { i.node })
        }
    };
    allowed
        .iter()
        .filter(|&c| (c as usize) < cpus.len() && Some(cpus[c as usize].node) == node)
        .min_by_key(|&c| (nr_running(&cpus[c as usize]), c))
        .unwrap_or(0)
}

/// `node_reclaim_distance` (`RECLAIM_DISTANCE`, 30): v5.12 `sd_init` clears
/// `SD_BALANCE_FORK` on a NUMA level whose distance exceeds it.
const RECLAIM_DISTANCE: u32 = 30;

/// `select_task_rq(p, WF_FORK)` for a task forked on `parent`: `find_idlest_group` runs in
/// the largest sched domain that still has `SD_BALANCE_FORK`, which spans the nodes within
/// `RECLAIM_DISTANCE` of the parent's node ([`select_task_rq`] over those CPUs). When the
/// task may run on none of them, the domain search finds nothing and `select_fallback_rq`
/// takes the first CPU the task may use (v5.12 kernel/sched/core.c). On a machine whose
/// nodes are all farther apart than that, forks stay on the parent's node and only load
/// balancing spreads them.
pub(crate) fn select_task_rq_fork(cpus: &[crate::machine::Cpu], distance: &[Vec<u32>], allowed: CpuMask, parent: CpuId) -> CpuId {
    let Some(home) = cpus.get(parent as usize).map(|c| c.node) else {
        return select_task_rq(cpus, allowed, Some(parent));
    };
    let near = |node: NodeId| {
        distance
            .get(home as usize)
            .and_then(|row| row.get(node as usize))
            .is_none_or(|&d| d <= RECLAIM_DISTANCE)
    };
    let mut span = CpuMask::EMPTY;
    for c in allowed.iter() {
        if cpus.get(c as usize).is_some_and(|x| near(x.node)) {
            span.set(c);
        }
    }
    if span.is_empty() {
        return allowed.iter().next().unwrap_or(parent);
    }
    select_task_rq(cpus, span, Some(parent))
}

/// `wake_up_new_task` for every thread of the forked process `mm`: each goes on the run
/// queue `select_task_rq` picks. An idle CPU's clock catches up with the fork (it was
/// not stepped while idle). Returns the CPUs used.
pub(crate) fn wake_up_new_task(sim: &mut Sim, cpu: CpuId, mm: u16) -> CpuMask {
    let now = sim.clock(cpu);
    let mut placed = CpuMask::EMPTY;
    for t in 0..sim.st.tasks.len() {
        let task = &sim.st.tasks[t];
        if task.mm() != Some(mm) || task.state != TaskState::Sleeping(None) {
            continue;
        }
        let target = select_task_rq_fork(&sim.st.cpus, &sim.cfg.topo.distance, task.cpus_allowed, cpu);
        let task = &mut sim.st.tasks[t];
        task.state = TaskState::Runnable;
        task.cpu = target;
        let c = &mut sim.st.cpus[target as usize];
        if c.curr == c.idle && c.rq.is_empty() {
            c.clock = c.clock.max(now);
        }
        fair::place_new(sim, cpu, target, t as u16);
        fair::enqueue(sim, target, t as u16);
        placed.set(target);
    }
    placed
}

/// `wake_up_new_task` for a thread of a `sequential_launch` scenario, created at `now` by
/// `by` (the launcher on its CPU, or the process's first thread on the CPU it runs on):
/// fork placement from the creating CPU (`select_task_rq_fork`), `place_entity`'s
/// `START_DEBIT` and the run queue, and `check_preempt_curr` there. An idle CPU's clock
/// catches up with the creation.
pub(crate) fn wake_up_launched(sim: &mut Sim, task: u16, by: crate::machine::Launch, now: u64) -> CpuId {
    let parent = match by {
        crate::machine::Launch::Launcher(cpu) => cpu,
        crate::machine::Launch::Thread(first) => sim.st.tasks[first as usize].cpu,
    };
    let allowed = sim.st.tasks[task as usize].cpus_allowed;
    let target = select_task_rq_fork(&sim.st.cpus, &sim.cfg.topo.distance, allowed, parent);
    let t = &mut sim.st.tasks[task as usize];
    t.state = TaskState::Runnable;
    t.cpu = target;
    let c = &mut sim.st.cpus[target as usize];
    if c.curr == c.idle && c.rq.is_empty() {
        c.clock = c.clock.max(now);
    }
    fair::place_new(sim, parent, target, task);
    fair::enqueue(sim, target, task);
    fair::check_preempt_wakeup(sim, target, task);
    fair::refresh_slice(sim, target);
    sim.touch(parent);
    target
}

/// `migration_cpu_stop` → `__migrate_task`: the running `task` leaves `cpu` for `to`'s
/// run queue (an idle `to` catches up with the move and runs it at once); `cpu` schedules
/// another task. Returns what `newidle_balance` pulled to `cpu`, if anything.
pub(crate) fn move_current(sim: &mut Sim, cpu: CpuId, task: u16, to: CpuId) -> Option<(u16, CpuId)> {
    let now = sim.clock(cpu);
    fair::update_curr(sim, cpu);
    fair::renormalise(sim, task, cpu, to);
    task_moved(sim, task, cpu, to);
    let t = &mut sim.st.tasks[task as usize];
    t.state = TaskState::Runnable;
    t.cpu = to;
    t.move_to = None;
    sim.st.counters.inc(NR_MIGRATIONS);
    sim.touch(to);
    let c = &mut sim.st.cpus[to as usize];
    if c.curr == c.idle && c.rq.is_empty() {
        // An idle destination is woken and runs it at once (before this CPU's
        // newidle_balance could take it back).
        c.clock = c.clock.max(now);
        context_switch(sim, to, task, sim.cfg.costs[SWITCH_NS]);
    } else {
        fair::enqueue(sim, to, task);
    }
    schedule_pulling(sim, cpu).1
}

/// Whether the two tasks of a `migrate_swap` can change places now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SwapReady {
    /// `migrate_swap_stop` would find a task off the CPU the swap was chosen for, or not
    /// allowed on the other one (`-EAGAIN`): neither moves.
    Cancel,
    /// The partner is asleep, queued, in user mode (its CPU's stopper preempts it at
    /// once) or already waiting in its own stopper: both move now.
    Now,
    /// The partner runs kernel code, which a `PREEMPT_NONE` / voluntary kernel does not
    /// preempt: this CPU's stopper waits for its return to user space (or its sleep).
    Wait,
}

/// Whether `task`, asking to change places with its `migrate_swap` partner from the CPU
/// it runs on, can do so now. `migrate_swap` (kernel/sched/core.c; the same in v4.17,
/// where it takes the CPUs from `task_cpu`, and v5.12) hands `migrate_swap_stop` to
/// `stop_two_cpus`, whose stoppers, one per CPU, meet in `multi_cpu_stop` before either
/// moves a task: the first to get there spins until the other does. `migrate_swap_stop`
/// then checks that each task is still on its CPU (`task_cpu`) and allowed on the other,
/// and moves both (`__migrate_swap_task`): a queued one to the other run queue, one
/// asleep by setting where it will wake (`wake_cpu`).
pub(crate) fn swap_ready(sim: &Sim, task: u16) -> SwapReady {
    let t = &sim.st.tasks[task as usize];
    let Some(o) = t.swap_with else {
        return SwapReady::Cancel;
    };
    let other = &sim.st.tasks[o as usize];
    let (Some(to), Some(back)) = (t.move_to, other.move_to) else {
        return SwapReady::Cancel;
    };
    if other.swap_with != Some(task)
        || other.state == TaskState::Dead
        || other.cpu != to
        || t.cpu != back
        || !t.cpus_allowed.test(to)
        || !other.cpus_allowed.test(back)
    {
        return SwapReady::Cancel;
    }
    let oc = &sim.st.cpus[to as usize];
    if oc.curr != o {
        return SwapReady::Now;
    }
    let user = |debt_ok: bool| {
        let stack = &sim.st.stacks[o as usize];
        stack.len() == 1
            && stack
                .iter()
                .next()
                .and_then(Frame::user_mode)
                .is_some_and(|u| debt_ok || !u.paying_debt())
    };
    match oc.wait {
        Wait::Stop(_) => SwapReady::Now,
        // User code (not the owed kernel time a hint fault left, which stands for kernel
        // work) is preempted at once by the stopper's wake-up.
        Wait::Busy(_) if user(false) => SwapReady::Now,
        Wait::None if user(true) => SwapReady::Now,
        _ => SwapReady::Wait,
    }
}

/// `migrate_swap` for `task`, running on `cpu` at its return to user space (where the
/// model does what the kernel's caller, `task_numa_migrate`, asked for in the hint
/// fault): both tasks change places now, or `cpu`'s stopper waits for the partner's CPU
/// ([`SwapReady`]). A cancelled swap leaves both where they are.
pub(crate) fn migrate_swap(sim: &mut Sim, cpu: CpuId, task: u16) {
    match swap_ready(sim, task) {
        SwapReady::Now => {
            let other = sim.st.tasks[task as usize].swap_with.unwrap_or(task);
            swap_now(sim, task, other);
        }
        SwapReady::Wait => {
            let to = sim.st.tasks[task as usize].move_to.unwrap_or(cpu);
            sim.st.cpus[cpu as usize].wait = Wait::Stop(to);
        }
        SwapReady::Cancel => cancel_swap(sim, task, sim.clock(cpu)),
    }
}

/// `task` left its CPU (asleep, queued or dead) while it has a swap pending: if its
/// partner's stopper waits for it, the stopper of `cpu` runs now, and the two change
/// places (a dead task cancels the swap). Otherwise the partner finds it asleep or queued
/// when it gets to its own stopper.
pub(crate) fn swap_partner_left(sim: &mut Sim, cpu: CpuId, task: u16) {
    let Some(o) = sim.st.tasks[task as usize].swap_with else {
        return;
    };
    let oc = &sim.st.cpus[sim.st.tasks[o as usize].cpu as usize];
    if oc.curr != o || !matches!(oc.wait, Wait::Stop(_)) {
        return;
    }
    if swap_ready(sim, o) == SwapReady::Now {
        swap_now(sim, o, task);
    } else {
        cancel_swap(sim, o, sim.clock(cpu));
    }
}

/// Drops the swap `task` is part of, at `now`: neither task moves, and a stopper waiting
/// for the other stops waiting.
fn cancel_swap(sim: &mut Sim, task: u16, now: u64) {
    let other = sim.st.tasks[task as usize].swap_with.take();
    sim.st.tasks[task as usize].move_to = None;
    for t in [Some(task), other].into_iter().flatten() {
        let x = &mut sim.st.tasks[t as usize];
        if t != task && x.swap_with == Some(task) {
            x.swap_with = None;
            x.move_to = None;
        }
        let c = x.cpu;
        if sim.st.cpus[c as usize].curr == t && matches!(sim.st.cpus[c as usize].wait, Wait::Stop(_)) {
            stopper_done(sim, c, now);
            sim.st.cpus[c as usize].wait = Wait::None;
            sim.touch(c);
        }
    }
}

/// `cpu`'s stopper, spinning since the CPU's clock, stops at `at`: that time is the
/// stopper's (kernel thread time), and the CPU's clock catches up.
fn stopper_done(sim: &mut Sim, cpu: CpuId, at: u64) {
    let c = cpu as usize;
    sim.charge_profile(c);
    if sim.profiling && at > sim.st.cpus[c].clock {
        sim.st
            .prof
            .charge(c, at, crate::profile::Who::Kthread, &crate::core::Stack::default());
    }
    sim.st.cpus[c].clock = sim.st.cpus[c].clock.max(at);
}

/// Takes `task` off `cpu` for a swap at time `at` (`deactivate_task` in
/// `__migrate_swap_task`): a running task is preempted (its user code keeps what is left,
/// as at a tick) and its CPU runs nothing until it schedules; a queued one leaves the run
/// queue; a sleeping one stays asleep. Returns whether it was running there.
fn swap_leave(sim: &mut Sim, task: u16, cpu: CpuId, at: u64) -> bool {
    let c = cpu as usize;
    if sim.st.cpus[c].curr != task {
        if sim.st.tasks[task as usize].state == TaskState::Runnable {
            fair::dequeue(sim, cpu, task);
        }
        return false;
    }
    if let Wait::Busy(until) = sim.st.cpus[c].wait {
        // User code ran until now.
        sim.st.cpus[c].clock = sim.st.cpus[c].clock.max(at);
        sim.charge_profile(c);
        let left = until.saturating_sub(at);
        if let Some(u) = sim.st.stacks[task as usize].top_mut().and_then(Frame::user_mode_mut) {
            if u.preempt(left) {
                sim.owe_again(cpu, task, left);
            }
        }
    } else {
        stopper_done(sim, cpu, at);
    }
    sim.st.cpus[c].wait = Wait::None;
    fair::update_curr(sim, cpu);
    sim.st.tasks[task as usize].state = TaskState::Runnable;
    // The switch away is the CPU's next `schedule` (its stopper ran meanwhile).
    sim.st.cpus[c].curr = sim.st.cpus[c].idle;
    true
}

/// `migrate_swap_stop` → `__migrate_swap_task` for both tasks: `a` goes to `b`'s CPU and
/// `b` to `a`'s, at the later of the two CPUs' clocks; each CPU whose task left schedules
/// (the newcomer, unless CFS prefers a task queued there), an idle one runs the newcomer,
/// a busy one may be preempted by it (`check_preempt_curr`).
fn swap_now(sim: &mut Sim, a: u16, b: u16) {
    let (ca, cb) = (sim.st.tasks[a as usize].cpu, sim.st.tasks[b as usize].cpu);
    let at = sim.clock(ca).max(sim.clock(cb));
    let left_a = swap_leave(sim, a, ca, at);
    let left_b = swap_leave(sim, b, cb, at);
    for (t, from, to) in [(a, ca, cb), (b, cb, ca)] {
        fair::renormalise(sim, t, from, to);
        task_moved(sim, t, from, to);
        let x = &mut sim.st.tasks[t as usize];
        x.cpu = to;
        x.move_to = None;
        x.swap_with = None;
        sim.st.counters.inc(NR_MIGRATIONS);
        if sim.st.tasks[t as usize].state == TaskState::Runnable {
            fair::enqueue(sim, to, t);
        }
    }
    for (c, left, came) in [(ca, left_a, b), (cb, left_b, a)] {
        let x = &mut sim.st.cpus[c as usize];
        if left || x.curr == x.idle {
            x.clock = x.clock.max(at);
            schedule(sim, c);
        } else if sim.st.tasks[came as usize].state == TaskState::Runnable {
            fair::check_preempt_wakeup(sim, c, came);
            fair::refresh_slice(sim, c);
        }
        sim.touch(c);
    }
}

/// `set_task_cpu` → `migrate_task_rq`: every mechanism that follows moves hears that
/// `task` leaves `from` for `to` (NUMA balancing restarts its scan period there).
pub(crate) fn task_moved(sim: &mut Sim, task: u16, from: CpuId, to: CpuId) {
    for m in crate::registry::MECHANISMS {
        if let Some(hook) = m.task_moved {
            hook(sim, task as usize, from, to);
        }
    }
}

/// Moves queued task `task` from `from`'s run queue to `to`'s (`detach_task` /
/// `attach_task`); the destination pays for the pull.
fn move_queued(sim: &mut Sim, task: u16, from: CpuId, to: CpuId, now: u64) {
    task_moved(sim, task, from, to);
    fair::dequeue(sim, from, task);
    sim.st.tasks[task as usize].cpu = to;
    let c = &mut sim.st.cpus[to as usize];
    c.clock = c.clock.max(now) + sim.cfg.costs[LOAD_BALANCE_NS];
    fair::renormalise(sim, task, from, to);
    fair::enqueue(sim, to, task);
    sim.st.counters.inc(NR_MIGRATIONS);
}

/// The last queued task of `from` allowed on `to` (detach_tasks looks at the least
/// recently queued end first) that `can_migrate_task` lets go: not one NUMA balancing
/// wants to keep on its node (`migrate_degrades_locality`; `to_idle` is `CPU_IDLE`).
fn pullable(sim: &Sim, from: CpuId, to: CpuId, to_idle: bool) -> Option<u16> {
    sim.st.cpus[from as usize].rq.iter().rev().copied().find(|&t| {
        sim.st.tasks[t as usize].cpus_allowed.test(to)
            && sim.st.tasks[t as usize].mm().is_some()
            && crate::kernel::sched::numa_migrate::migrate_degrades_locality(sim, t as usize, from, to, to_idle) != 1
    })
}

/// `newidle_balance`: `cpu` is about to run its idle task: pull a queued task allowed
/// here from the busiest run queue (most tasks, lowest id on a tie). The domains are
/// walked from the bottom and the walk stops at the first pull, so a busiest run queue of
/// the CPU's own node wins over a busier one of another node.
pub(crate) fn newidle_balance(sim: &mut Sim, cpu: CpuId) -> Option<(u16, CpuId)> {
    let node = sim.st.cpus[cpu as usize].node;
    let mut best: Option<(bool, usize, CpuId, u16)> = None;
    for c in 0..sim.st.cpus.len() {
        let from = c as CpuId;
        if from == cpu {
            continue;
        }
        let Some(t) = pullable(sim, from, cpu, false) else { continue };
        let local = sim.st.cpus[c].node == node;
        let load = nr_running(&sim.st.cpus[c]);
        if best.is_none_or(|(l, n, _, _)| (local, load) > (l, n)) {
            best = Some((local, load, from, t));
        }
    }
    let (_, _, from, t) = best?;
    let now = sim.clock(cpu);
    move_queued(sim, t, from, cpu, now);
    Some((t, from))
}

/// `sd->busy_factor`: a busy CPU balances this many times less often (16 since v5.10).
pub(crate) const BUSY_FACTOR: u32 = 16;
/// `sd->imbalance_pct` of a cache-sharing level: the busiest must carry 17 % more load.
const IMBALANCE_PCT: u64 = 117;
/// `sd->cache_nice_tries` of a cache-sharing level; active balancing after `+ 2` more
/// failures.
const CACHE_NICE_TRIES: u32 = 1;
/// `NICE_0_LOAD` (`SCHED_CAPACITY_SCALE`): the load of one always-runnable nice-0 task.
const NICE_0_LOAD: u64 = 1024;

/// The periodic balancing of `this`, a CPU running a task alone while another CPU of its
/// node has tasks queued, at its `next_balance` (`rebalance_domains` → `load_balance`,
/// kernel/sched/fair.c v5.12). One domain level, the node; a task's load is `NICE_0_LOAD`
/// (every task here is always runnable when not asleep) and a CPU's load is `nr_running`
/// of them. The next attempt is `balance_interval × busy_factor` ms later.
///
/// The busiest CPU of the node with a queued task allowed on `this` (equal loads: the
/// first after `this` in the ring of the domain's groups, as `update_sd_pick_busiest`
/// keeps the first). Balanced (`nr_balance_failed = 0`, the interval doubles up to
/// `max_interval`) unless it runs more tasks than `this`, `this` is below the node's
/// average and `100 × busiest > 117 × this` (`find_busiest_group`). Otherwise `imbalance =
/// min(busiest − avg, avg − this)` (`calculate_imbalance`, `migrate_load`), and
/// `detach_tasks` moves the busiest's least recently run queued task only if `load >>
/// nr_balance_failed <= imbalance`: with 6 tasks on 4 CPUs (avg 1.5) the imbalance is 512,
/// so one attempt fails and the next moves a task. After `cache_nice_tries + 2` failures
/// the kernel's active balance moves the busiest's running task; here its queued one
/// moves instead. A moved task waits on `this`'s run queue, whose running task has long
/// used its slice, so the tick at once lets it run.
pub(crate) fn rebalance(sim: &mut Sim, this: CpuId) -> Ev {
    let now = sim.clock(this);
    let t = this as usize;
    let node = sim.cpu_node(this);
    let cpus: Vec<CpuId> = sim
        .cfg
        .topo
        .nodes
        .iter()
        .find(|n| n.id == node)
        .map(|n| n.cpus.clone())
        .unwrap_or_default();
    let weight = cpus.len().max(1) as u32;
    // max_load_balance_interval = HZ * num_online_cpus() / 10 (HZ = 1000: ms).
    let max_ms = (sim.st.cpus.len() as u32 * 100).max(1);
    let sd = sim.st.cpus[t].sd;
    let interval = (sd.balance_interval_ms * BUSY_FACTOR).clamp(1, max_ms);
    sim.st.cpus[t].sd.next_balance = now + u64::from(interval) * 1_000_000;
    sim.charge(this, sim.cfg.costs[LOAD_BALANCE_NS]);
    let total: u64 = cpus.iter().map(|&c| nr_running(&sim.st.cpus[c as usize]) as u64).sum();
    let avg = total * NICE_0_LOAD / u64::from(weight);
    let local = nr_running(&sim.st.cpus[t]) as u64;
    let pos = cpus.iter().position(|&c| c == this).unwrap_or(0);
    let busiest = (1..cpus.len())
        .map(|k| cpus[(pos + k) % cpus.len()])
        .filter_map(|c| pullable(sim, c, this, false).map(|task| (nr_running(&sim.st.cpus[c as usize]) as u64, c, task)))
        .fold(None, |best: Option<(u64, CpuId, u16)>, x| match best {
            Some(b) if b.0 >= x.0 => Some(b),
            _ => Some(x),
        });
    let unbalanced = busiest.filter(|&(b, _, _)| b > local && local * NICE_0_LOAD < avg && 100 * b > IMBALANCE_PCT * local);
    let avg_tasks = avg as f64 / NICE_0_LOAD as f64;
    let Some((b, from, task)) = unbalanced else {
        let sd = &mut sim.st.cpus[t].sd;
        sd.nr_balance_failed = 0;
        if sd.balance_interval_ms < 2 * weight {
            sd.balance_interval_ms *= 2;
        }
        return Ev::new(core_ev::LOAD_BALANCE, "load_balance", "LB4").say(say!(
            sim,
            "Periodic load balance of CPU {this} ({local} task(s), node average {avg_tasks:.2}): no CPU of the node is busier with a task that may move here; next try in {} ms",
            sim.st.cpus[t].sd.balance_interval_ms * BUSY_FACTOR
        ));
    };
    sim.st.cpus[t].sd.balance_interval_ms = weight;
    let imbalance = (b * NICE_0_LOAD - avg).min(avg - local * NICE_0_LOAD);
    let failed = sd.nr_balance_failed;
    let active = failed > CACHE_NICE_TRIES + 2;
    if (NICE_0_LOAD >> failed.min(63)) > imbalance && !active {
        sim.st.cpus[t].sd.nr_balance_failed += 1;
        return Ev::new(core_ev::LOAD_BALANCE, "load_balance", "LB4").say(say!(
            sim,
            "Periodic load balance of CPU {this} ({local} task(s), node average {avg_tasks:.2}): CPU {from} runs {b}, but a task's load {NICE_0_LOAD} >> {failed} failed attempts is more than the imbalance {imbalance}: nothing moves (nr_balance_failed {})",
            failed + 1
        ));
    }
    sim.st.cpus[t].sd.nr_balance_failed = 0;
    move_queued(sim, task, from, this, now);
    let pid = sim.st.tasks[task as usize].pid;
    let mut m = CpuMask::EMPTY;
    m.set(this);
    let why = if active {
        say!(sim, "after {failed} failed attempts the balance is active")
    } else {
        say!(
            sim,
            "the imbalance {imbalance} is at least a task's load {NICE_0_LOAD} >> {failed} failed attempts"
        )
    };
    Ev::new(core_ev::TASK_MIGRATE, "load_balance", "LB4").cpus(m).say(say!(
        sim,
        "Periodic load balance of CPU {this} ({local} task(s), node average {avg_tasks:.2}): CPU {from} runs {b}; {why}, so thread {pid} (queued on CPU {from}) moves here"
    ))
}

/// [`rebalance`] for a CPU running user accesses (not `compute`) alone, when its
/// `next_balance` has come and its node has tasks queued; `None` otherwise.
pub(crate) fn maybe_rebalance(sim: &mut Sim, cpu: CpuId) -> Option<Ev> {
    let c = &sim.st.cpus[cpu as usize];
    if c.sd.next_balance > sim.clock(cpu) || sim.st.node_queued.get(c.node as usize).is_none_or(|&q| q == 0) {
        return None;
    }
    Some(rebalance(sim, cpu))
}

/// The idle load balancer at the NUMA level (`nohz_balancer_kick` from a busy CPU's tick,
/// then `_nohz_idle_balance` → `rebalance_domains` → `load_balance` on behalf of the
/// idle CPUs, kernel/sched/fair.c v5.12). Kicked by `cpu`, busy, at most once per
/// `nohz.next_balance`; each node's first idle CPU (`should_we_balance`) whose NUMA-level
/// `next_balance` has come balances in turn, and the first to move a task ends the kick.
/// `None` when nothing moved (the attempts still count their failures and intervals).
pub(crate) fn nohz_idle_balance(sim: &mut Sim, cpu: CpuId) -> Option<Ev> {
    let now = sim.clock(cpu);
    if now < sim.st.nohz_next_balance || sim.cfg.topo.nodes.len() < 2 {
        return None;
    }
    let n = sim.st.cpus.len();
    sim.st.nohz_next_balance = now + n as u64 * 1_000_000;
    let idle = |c: &crate::machine::Cpu| c.curr == c.idle && c.rq.is_empty() && c.wait == Wait::None;
    let cfg = std::rc::Rc::clone(&sim.cfg);
    for node in cfg.topo.nodes.iter().map(|nd| nd.id) {
        let Some(this) = (0..n).find(|&c| sim.st.cpus[c].node == node && idle(&sim.st.cpus[c])) else {
            continue;
        };
        let due = sim.st.cpus[this].sd_numa.next_balance;
        if due > now {
            sim.st.nohz_next_balance = sim.st.nohz_next_balance.min(due);
            continue;
        }
        if let Some(ev) = numa_load_balance(sim, this as CpuId, now) {
            return Some(ev);
        }
    }
    None
}

/// `load_balance(this, sd_numa, CPU_IDLE)` for the idle CPU `this` (v5.12, one NUMA level;
/// loads are task counts). `find_busiest_group`: the busiest other node is of the highest
/// `group_type`, then the highest `avg_load` (busy nodes) or the fewest idle CPUs; the
/// domain is balanced if that node is not overloaded and has at most one idle CPU fewer
/// than this node (or runs a single task). `calculate_imbalance` with this node's spare
/// CPUs: half the difference in tasks (`prefer_sibling`, set by the node level below),
/// or one task towards an overloaded node's spare work; `adjust_numa_imbalance` lets up to
/// `NUMA_IMBALANCE_MIN` stand while the busiest node runs fewer tasks than a quarter of
/// its CPUs. `find_busiest_queue`: its CPU running most tasks. A queued task allowed here
/// that `can_migrate_task` lets go moves; with nothing to detach (the CPU runs its one
/// task) the attempt fails, and after `cache_nice_tries + 2` failures (2 + 2 at the NUMA
/// level) `need_active_balance` sends the migration stopper to push the running task here
/// (`active_load_balance_cpu_stop`, done at the task's next return to user space).
/// Intervals: balanced doubles `balance_interval` up to twice the domain's CPUs (ms);
/// otherwise it drops back to the minimum.
fn numa_load_balance(sim: &mut Sim, this: CpuId, now: u64) -> Option<Ev> {
    let n = sim.st.cpus.len();
    let all = CpuMask::first(n);
    let weight = n as u32;
    let local_node = sim.st.cpus[this as usize].node;
    let local = NodeStats::of(&sim.st.cpus, all, local_node);
    let mut busiest: Option<NodeStats> = None;
    for node in nodes_of(&sim.st.cpus, all).filter(|&x| x != local_node) {
        let s = NodeStats::of(&sim.st.cpus, all, node);
        let busier = busiest.is_none_or(|b| match s.group_type().cmp(&b.group_type()) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => match s.group_type() {
                GroupType::HasSpare => s.idle_cpus < b.idle_cpus,
                _ => s.avg_load() > b.avg_load(),
            },
        });
        if busier {
            busiest = Some(s);
        }
    }
    let imbalance = busiest.map_or(0, |b| {
        if b.nr_running == 0 || local.group_type() > b.group_type() {
            return 0;
        }
        if b.group_type() != GroupType::Overloaded && (local.idle_cpus <= b.idle_cpus + 1 || b.nr_running == 1) {
            return 0;
        }
        let imb = if b.group_type() == GroupType::Overloaded {
            local.idle_cpus.max(1)
        } else {
            b.nr_running.saturating_sub(local.nr_running) >> 1
        };
        if allow_numa_imbalance(b.nr_running, b.weight) && imb <= NUMA_IMBALANCE_MIN {
            0
        } else {
            imb
        }
    });
    let sd = &mut sim.st.cpus[this as usize].sd_numa;
    let Some(b) = busiest.filter(|_| imbalance > 0) else {
        sd.nr_balance_failed = 0;
        if sd.balance_interval_ms < 2 * weight {
            sd.balance_interval_ms *= 2;
        }
        sd.next_balance = now + u64::from(sd.balance_interval_ms) * 1_000_000;
        return None;
    };
    sd.balance_interval_ms = weight;
    sd.next_balance = now + u64::from(weight) * 1_000_000;
    let from = (0..n as CpuId)
        .filter(|&c| sim.st.cpus[c as usize].node == b.node)
        .max_by_key(|&c| (nr_running(&sim.st.cpus[c as usize]), std::cmp::Reverse(c)))?;
    let mut m = CpuMask::EMPTY;
    m.set(this);
    let head = say!(
        sim,
        "Idle load balance of CPU {this} at the NUMA level: node {} runs {} task(s) on {} CPU(s) ({} idle), node {local_node} runs {} ({} idle); imbalance {imbalance} task(s)",
        b.node,
        b.nr_running,
        b.weight,
        b.idle_cpus,
        local.nr_running,
        local.idle_cpus
    );
    if let Some(task) = pullable(sim, from, this, true) {
        sim.st.cpus[this as usize].sd_numa.nr_balance_failed = 0;
        move_queued(sim, task, from, this, now);
        let pid = sim.st.tasks[task as usize].pid;
        return Some(
            Ev::new(core_ev::TASK_MIGRATE, "load_balance", "LB5")
                .cpus(m)
                .say(say!(sim, "{head}: thread {pid}, queued on CPU {from}, moves here")),
        );
    }
    let curr = sim.st.cpus[from as usize].curr;
    let c = &sim.st.cpus[from as usize];
    let movable = c.curr != c.idle && sim.st.tasks[curr as usize].mm().is_some() && sim.st.tasks[curr as usize].cpus_allowed.test(this);
    let sd = &mut sim.st.cpus[this as usize].sd_numa;
    if !movable {
        // LBF_ALL_PINNED: nothing here may run on this CPU.
        if sd.balance_interval_ms < 2 * weight {
            sd.balance_interval_ms *= 2;
        }
        sd.next_balance = now + u64::from(sd.balance_interval_ms) * 1_000_000;
        return None;
    }
    sd.nr_balance_failed += 1;
    let failed = sd.nr_balance_failed;
    if failed <= NUMA_CACHE_NICE_TRIES + 2 || sim.st.tasks[curr as usize].move_to.is_some() {
        return None;
    }
    sd.nr_balance_failed = NUMA_CACHE_NICE_TRIES + 1;
    sim.st.tasks[curr as usize].move_to = Some(this);
    let pid = sim.st.tasks[curr as usize].pid;
    Some(Ev::new(core_ev::LOAD_BALANCE, "load_balance", "LB6").cpus(m).say(say!(
        sim,
        "{head}: CPU {from} runs thread {pid} alone, nothing to detach; after {failed} failed attempts the balance is active: the migration stopper will push thread {pid} to CPU {this}"
    )))
}

/// The balancing a busy CPU's tick triggers when its slice is over and tasks wait on its
/// run queue: an idle CPU (lowest id) pulls one that may run there. Returns the event,
/// or `None` when no task can move (always, for pinned threads).
pub(crate) fn tick_balance(sim: &mut Sim, cpu: CpuId) -> Option<Ev> {
    let c = &sim.st.cpus[cpu as usize];
    if c.rq.is_empty() || sim.clock(cpu) < c.slice_end {
        return None;
    }
    idle_pull(sim, cpu)
}

/// An idle CPU takes a task queued on `cpu` that may run there: one of `cpu`'s node if
/// any (the lowest domain balances first), else the lowest id.
fn idle_pull(sim: &mut Sim, cpu: CpuId) -> Option<Ev> {
    let node: NodeId = sim.st.cpus[cpu as usize].node;
    let n = sim.st.cpus.len() as CpuId;
    // Only a CPU some queued task may run on can take one: skip the others before looking
    // at their run queues (the same CPU is found, in the same order).
    let mut reach = CpuMask::EMPTY;
    for &t in &sim.st.cpus[cpu as usize].rq {
        reach.or(&sim.st.tasks[t as usize].cpus_allowed);
    }
    // One pass in id order: the first taker on this node wins at once; otherwise the first
    // taker of another node.
    let mut remote = None;
    let mut local = None;
    for to in (0..n).filter(|&c| reach.test(c)) {
        let x = &sim.st.cpus[to as usize];
        let here = x.node == node;
        if !here && remote.is_some() {
            continue;
        }
        let idle = to != cpu && x.curr == x.idle && x.rq.is_empty() && x.wait == crate::machine::Wait::None;
        if let Some(t) = idle.then(|| pullable(sim, cpu, to, true)).flatten() {
            if here {
                local = Some((to, t));
                break;
            }
            remote = Some((to, t));
        }
    }
    let (to, t) = local.or(remote)?;
    let now = sim.clock(cpu);
    move_queued(sim, t, cpu, to, now);
    let mut m = CpuMask::EMPTY;
    m.set(to);
    let pid = sim.st.tasks[t as usize].pid;
    Some(Ev::new(core_ev::TASK_MIGRATE, "load_balance", "LB3").cpus(m).say(say!(
        sim,
        "Load balance: CPU {cpu}'s slice is over with tasks queued, and CPU {to} is idle: thread {pid} (queued, not running) moves to CPU {to}'s run queue"
    )))
}

/// `wake_up_process` for a kernel thread waiting for work, at time `now` (the waker's
/// clock), by code running on `sim.st.acting`: `try_to_wake_up` (a per-CPU thread goes to
/// its CPU; any other where `select_task_rq_fair` puts it), and the thread may preempt the
/// task running there. A thread asleep in its loop until a timer (the vmstat worker's
/// next round) is woken early and its timer dropped, as `mod_delayed_work` would queue
/// the work now. Returns false if `task` is not a kernel thread asleep in its loop.
pub fn wake_up_process(sim: &mut Sim, now: u64, task: u16) -> bool {
    let t = &sim.st.tasks[task as usize];
    if !matches!(t.kind, TaskKind::Kernel(_)) {
        return false;
    }
    match t.state {
        TaskState::Sleeping(None) => {}
        TaskState::Sleeping(Some(_)) if sim.st.stacks[task as usize].len() == 1 => {
            let c = t.cpu as usize;
            sim.st.cpus[c].timers.retain(|&(_, x)| x != task);
            sim.touch(t.cpu);
        }
        _ => return false,
    }
    let waker = sim.st.acting;
    fair::try_to_wake_up(sim, task, waker, now);
    sim.resume_top(task, crate::core::Ret::Woken);
    true
}
