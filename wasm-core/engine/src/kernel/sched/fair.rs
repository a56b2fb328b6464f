//! `kernel/sched/fair.c`, the half of CFS that decides who runs next on a CPU and where a
//! woken task goes: virtual runtime and `min_vruntime` (`update_curr`,
//! `update_min_vruntime`), the slice (`sched_slice`, checked at every scheduler tick by
//! `check_preempt_tick`), `pick_next_entity`, `place_entity`, and at a wake-up
//! `select_task_rq_fair` (`wake_affine`, `select_idle_sibling`) and `check_preempt_wakeup`.
//!
//! Read in Linux v5.10 (kernel/sched/fair.c and core.c), which stands for v5.12 on these
//! paths. Every task has the weight of nice 0 (so virtual and real runtime advance alike,
//! and a slice is the period over the number of runnable tasks) and loads are counted in
//! tasks (`NICE_0_LOAD` each) instead of PELT averages, except that a sleeper's blocked
//! load on the CPU it left decays with PELT's 32 ms half-life. Left out: task groups (the
//! model's tasks share one `cfs_rq` per CPU, as tasks of one autogroup do), the next, last
//! and skip buddies except `sched_yield`'s skip (`LAST_BUDDY` acts only with
//! `sched_nr_latency` or more tasks on a CPU, `NEXT_BUDDY` is off by default), `wake_wide`
//! (the model's wakers do not wake many different tasks in turn), `recent_used_cpu`, and
//! `select_idle_cpu`'s `SIS_PROP` limit (with the default `avg_idle` of a CPU that never
//! idles it allows more CPUs than a node has).

use crate::engine::Sim;
use crate::kernel::sched::numa::TICK_NS;
use crate::knobs::Knobs;
use crate::machine::{TaskState, Wait};
use crate::mech::core::{SCHED_LATENCY_NS, SCHED_MIN_GRANULARITY_NS, SCHED_SLICE_NS, SCHED_WAKEUP_GRANULARITY_NS};
use crate::topology::CpuId;

/// `NICE_0_LOAD`: the load of one always-runnable nice-0 task.
const NICE_0_LOAD: u64 = 1024;
/// `imbalance_pct` of a node's (the LLC's) sched domain (`sd_init`, `SD_SHARE_PKG_RESOURCES`).
const LLC_IMBALANCE_PCT: u64 = 117;
/// `imbalance_pct` of a NUMA level (`sd_init` keeps the default 125 for `SD_NUMA`).
const NUMA_IMBALANCE_PCT: u64 = 125;
/// `node_reclaim_distance` (`RECLAIM_DISTANCE`): a NUMA level farther than this has no
/// `SD_WAKE_AFFINE` (`sd_init`).
const RECLAIM_DISTANCE: u32 = 30;
/// PELT's half-life (`LOAD_AVG_PERIOD`, 32 periods of 1024 µs), ns.
const PELT_HALFLIFE_NS: f64 = 32.0 * 1_024_000.0;

/// CFS's tunables for a machine (`sysctl_sched_*`, v5.12), ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunables {
    /// `sysctl_sched_latency`.
    pub latency: u64,
    /// `sysctl_sched_min_granularity`.
    pub min_granularity: u64,
    /// `sysctl_sched_wakeup_granularity`.
    pub wakeup_granularity: u64,
    /// `sched_nr_latency`: beyond this many runnable tasks the period grows.
    pub nr_latency: u64,
    /// `knobs.sched_slice_us`: a fixed slice, checked at every return to user space.
    pub fixed_slice: Option<u64>,
}

impl Tunables {
    /// The tunables `sched_init_granularity` sets for `nr_cpus` CPUs
    /// (`get_update_sysctl_factor`, `SCHED_TUNABLESCALING_LOG`: 1 + ilog2(min(CPUs, 8))),
    /// each overridden by its knob. `sched_nr_latency` is `latency / min_granularity`
    /// rounded up, as a write to either sysctl makes it (8 with the defaults).
    pub fn new(knobs: &Knobs, nr_cpus: usize) -> Self {
        let factor = 1 + u64::from((nr_cpus.clamp(1, 8) as u32).ilog2());
        let latency = knobs.get(SCHED_LATENCY_NS).unwrap_or(6_000_000 * factor).max(1);
        let min_granularity = knobs.get(SCHED_MIN_GRANULARITY_NS).unwrap_or(750_000 * factor).max(1);
        Tunables {
            latency,
            min_granularity,
            wakeup_granularity: knobs.get(SCHED_WAKEUP_GRANULARITY_NS).unwrap_or(1_000_000 * factor),
            nr_latency: latency.div_ceil(min_granularity).max(1),
            fixed_slice: knobs.get(SCHED_SLICE_NS),
        }
    }

    /// `sched_slice` for one of `nr` runnable nice-0 tasks: `__sched_period(nr)` (the
    /// latency, or `nr × min_granularity` beyond `sched_nr_latency` tasks) over `nr`.
    pub fn sched_slice(&self, nr: u64) -> u64 {
        let nr = nr.max(1);
        let period = if nr > self.nr_latency {
            nr * self.min_granularity
        } else {
            self.latency
        };
        period / nr
    }
}

/// The first scheduler tick strictly after `t` (ticks are `TICK_NS` apart on every CPU,
/// at the same jiffies: `skew_tick` is off by default).
fn tick_after(t: u64) -> u64 {
    (t / TICK_NS + 1) * TICK_NS
}

/// The first scheduler tick at or after `t`.
fn tick_at_or_after(t: u64) -> u64 {
    t.div_ceil(TICK_NS) * TICK_NS
}

/// Whether `cpu` runs a task CFS schedules (a user or kernel thread, not its idle task).
fn runs_fair(sim: &Sim, cpu: CpuId) -> bool {
    let c = &sim.st.cpus[cpu as usize];
    c.curr != c.idle
}

/// `update_curr`: the running task's time since `exec_start` goes to its runtime and its
/// vruntime.
pub(crate) fn update_curr(sim: &mut Sim, cpu: CpuId) {
    if !runs_fair(sim, cpu) {
        return;
    }
    let c = &sim.st.cpus[cpu as usize];
    let now = c.clock;
    let t = &mut sim.st.tasks[c.curr as usize];
    let d = now.saturating_sub(t.numa.exec_start);
    t.numa.sum_exec_runtime += d;
    t.se.vruntime += d;
    t.numa.exec_start = now;
}

/// `update_min_vruntime` of `cpu`'s run queue: the smaller of the running task's vruntime
/// (now) and the leftmost queued one's, never below its last value. Returns it.
pub(crate) fn update_min_vruntime(sim: &mut Sim, cpu: CpuId) -> u64 {
    let c = &sim.st.cpus[cpu as usize];
    let curr = (c.curr != c.idle && sim.st.tasks[c.curr as usize].state == TaskState::Running).then(|| {
        let t = &sim.st.tasks[c.curr as usize];
        t.se.vruntime + c.clock.saturating_sub(t.numa.exec_start)
    });
    let left = c.rq.iter().map(|&q| sim.st.tasks[q as usize].se.vruntime).min();
    let v = match (curr, left) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let c = &mut sim.st.cpus[cpu as usize];
    if let Some(v) = v {
        c.min_vruntime = c.min_vruntime.max(v);
    }
    c.min_vruntime
}

/// `pick_next_entity`: takes the queued task with the smallest vruntime off `cpu`'s run
/// queue (the first queued on a tie). After `sched_yield` the yielding task (`skip`) is
/// passed over when the next one is not more than the wake-up granularity behind it.
pub(crate) fn pick_next(sim: &mut Sim, cpu: CpuId) -> Option<u16> {
    let c = &sim.st.cpus[cpu as usize];
    let v = |i: usize| sim.st.tasks[c.rq[i] as usize].se.vruntime;
    let mut best = (0..c.rq.len()).min_by_key(|&i| (v(i), i))?;
    if let Some(skip) = c.skip {
        if c.rq[best] == skip {
            let second = (0..c.rq.len()).filter(|&i| i != best).min_by_key(|&i| (v(i), i));
            if let Some(s) = second.filter(|&s| v(s).saturating_sub(v(best)) <= sim.cfg.sched.wakeup_granularity) {
                best = s;
            }
        }
    }
    let c = &mut sim.st.cpus[cpu as usize];
    c.skip = None;
    c.rq.remove(best)
}

/// `set_next_entity` for `task`, about to run on `cpu`: its slice starts now.
pub(crate) fn set_next(sim: &mut Sim, task: u16) {
    let t = &mut sim.st.tasks[task as usize];
    t.se.prev_sum_exec_runtime = t.numa.sum_exec_runtime;
}

/// Works out when `cpu`'s running task gives the CPU up to a queued one ([`Cpu::slice_end`]):
/// never while nothing is queued; at once after `need_resched`; with a fixed slice, that
/// long after it was picked; else at the first scheduler tick where `check_preempt_tick`
/// finds either its runtime since it was picked above `sched_slice`, or (after at least
/// `min_granularity`) its vruntime more than a slice ahead of the leftmost queued task's.
///
/// [`Cpu::slice_end`]: crate::machine::Cpu::slice_end
pub(crate) fn refresh_slice(sim: &mut Sim, cpu: CpuId) {
    let tun = sim.cfg.sched;
    let c = &sim.st.cpus[cpu as usize];
    let end = if c.curr == c.idle || c.rq.is_empty() {
        u64::MAX
    } else if c.need_resched {
        0
    } else {
        let t = &sim.st.tasks[c.curr as usize];
        let ran = t.numa.sum_exec_runtime.saturating_sub(t.se.prev_sum_exec_runtime);
        let picked = t.numa.exec_start.saturating_sub(ran);
        match tun.fixed_slice {
            Some(s) => picked + s,
            None => {
                let ideal = tun.sched_slice(1 + c.rq.len() as u64);
                let by_runtime = tick_after(picked + ideal);
                let left = c.rq.iter().map(|&q| sim.st.tasks[q as usize].se.vruntime).min().unwrap_or(u64::MAX);
                // vruntime at time T is vruntime + (T - exec_start): ahead of the leftmost by
                // more than `ideal` once T > exec_start + ideal + left - vruntime.
                let ahead_at = (i128::from(t.numa.exec_start) + i128::from(ideal) + i128::from(left) - i128::from(t.se.vruntime)).max(0);
                let by_vruntime =
                    tick_at_or_after(picked + tun.min_granularity).max(tick_after(u64::try_from(ahead_at).unwrap_or(u64::MAX / 2)));
                by_runtime.min(by_vruntime)
            }
        }
    };
    sim.st.cpus[cpu as usize].slice_end = end;
    sim.touch(cpu);
}

/// `place_entity(cfs_rq, se, 0)` for a task woken onto `cpu`: a sleeper gets back at most
/// half a latency of credit (`GENTLE_FAIR_SLEEPERS`) and never gains by being placed back.
fn place_woken(sim: &mut Sim, cpu: CpuId, task: u16) {
    let min = update_min_vruntime(sim, cpu);
    let floor = min.saturating_sub(sim.cfg.sched.latency / 2);
    let se = &mut sim.st.tasks[task as usize].se;
    se.vruntime = se.vruntime.max(floor);
}

/// `task_fork_fair` → `place_entity(cfs_rq, se, 1)` for a new task forked on `parent`
/// and woken on `cpu` (`wake_up_new_task`): it starts a slice behind the parent's run
/// queue (`START_DEBIT`: `sched_vslice` with itself counted), relative to that queue's
/// `min_vruntime`, then absolute on its own queue.
pub(crate) fn place_new(sim: &mut Sim, parent: CpuId, cpu: CpuId, task: u16) {
    let pmin = update_min_vruntime(sim, parent);
    let pc = &sim.st.cpus[parent as usize];
    let parent_v = if pc.curr != pc.idle {
        sim.st.tasks[pc.curr as usize].se.vruntime
    } else {
        pmin
    };
    let nr = 1 + u64::from(pc.curr != pc.idle) + pc.rq.len() as u64;
    let rel = parent_v.max(pmin + sim.cfg.sched.sched_slice(nr)) - pmin;
    let min = update_min_vruntime(sim, cpu);
    sim.st.tasks[task as usize].se.vruntime = min + rel;
}

/// A task moving from `from`'s run queue (or sleep there) to `to`'s keeps its vruntime
/// relative to the queue's `min_vruntime` (`dequeue_entity` / `migrate_task_rq_fair`
/// subtract the old one, `enqueue_entity` adds the new one).
pub(crate) fn renormalise(sim: &mut Sim, task: u16, from: CpuId, to: CpuId) {
    if from == to {
        return;
    }
    let old = update_min_vruntime(sim, from);
    let new = update_min_vruntime(sim, to);
    let se = &mut sim.st.tasks[task as usize].se;
    se.vruntime = (se.vruntime + new).saturating_sub(old);
}

/// Puts `task` at the back of `cpu`'s run queue (`enqueue_task`) and updates when the
/// running task's slice ends.
pub(crate) fn enqueue(sim: &mut Sim, cpu: CpuId, task: u16) {
    sim.st.cpus[cpu as usize].rq.push_back(task);
    refresh_slice(sim, cpu);
}

/// Takes `task` off `cpu`'s run queue (`dequeue_task`), if it is there.
pub(crate) fn dequeue(sim: &mut Sim, cpu: CpuId, task: u16) {
    let rq = &mut sim.st.cpus[cpu as usize].rq;
    if let Some(i) = rq.iter().position(|&t| t == task) {
        rq.remove(i);
    }
    refresh_slice(sim, cpu);
}

/// `available_idle_cpu`: `cpu` runs its idle task with nothing queued or pending.
pub(crate) fn idle(sim: &Sim, cpu: CpuId) -> bool {
    let c = &sim.st.cpus[cpu as usize];
    c.curr == c.idle && c.rq.is_empty() && c.wait == Wait::None
}

/// `cpu_load` in tasks' loads: the runnable tasks, plus the blocked load of `sleeper` if
/// it last ran on `cpu` (its share decays with PELT's half-life while it sleeps).
fn cpu_load(sim: &Sim, cpu: CpuId, sleeper: Option<u16>, now: u64) -> u64 {
    let c = &sim.st.cpus[cpu as usize];
    let running = (u64::from(c.curr != c.idle) + c.rq.len() as u64) * NICE_0_LOAD;
    let blocked = sleeper.filter(|&s| sim.st.tasks[s as usize].cpu == cpu).map_or(0, |s| {
        let slept = now.saturating_sub(sim.st.tasks[s as usize].se.sleep_start) as f64;
        (NICE_0_LOAD as f64 * libm::exp2(-slept / PELT_HALFLIFE_NS)) as u64
    });
    running + blocked
}

/// `wake_affine(sd, p, this_cpu, prev_cpu, sync = 0)`: the waking CPU when it is idle and
/// shares the cache with `prev` (unless `prev` is idle too: `wake_affine_idle`), or when
/// its load with the task is below `prev`'s without it, `prev` given half the domain's
/// imbalance margin (`wake_affine_weight`, `WA_BIAS`); else `prev`.
fn wake_affine(sim: &Sim, task: u16, this: CpuId, prev: CpuId, imbalance_pct: u64, now: u64) -> CpuId {
    let same_llc = sim.st.cpus[this as usize].node == sim.st.cpus[prev as usize].node;
    if idle(sim, this) && same_llc {
        return if idle(sim, prev) { prev } else { this };
    }
    let task_load = cpu_load(sim, prev, Some(task), now) - cpu_load(sim, prev, None, now);
    let task_load = task_load.max(1);
    let this_eff = (cpu_load(sim, this, None, now) + task_load) * 100;
    let prev_eff = cpu_load(sim, prev, Some(task), now).saturating_sub(task_load) * (100 + (imbalance_pct - 100) / 2);
    if this_eff < prev_eff {
        this
    } else {
        prev
    }
}

/// `select_idle_sibling(p, prev, target)`: `target` if idle, else `prev` if it shares the
/// cache and is idle, else the first idle CPU of `target`'s node the task may use, from
/// `target` on and wrapping (`select_idle_cpu`; the model has no SMT siblings, so
/// `select_idle_core` and `select_idle_smt` find nothing), else `target`.
fn select_idle_sibling(sim: &Sim, task: u16, prev: CpuId, target: CpuId) -> CpuId {
    if idle(sim, target) {
        return target;
    }
    let node = sim.st.cpus[target as usize].node;
    if prev != target && sim.st.cpus[prev as usize].node == node && idle(sim, prev) {
        return prev;
    }
    let allowed = sim.st.tasks[task as usize].cpus_allowed;
    let n = sim.st.cpus.len();
    (0..n)
        .map(|k| ((target as usize + k) % n) as CpuId)
        .find(|&c| sim.st.cpus[c as usize].node == node && allowed.test(c) && idle(sim, c))
        .unwrap_or(target)
}

/// `select_task_rq(p, prev_cpu, WF_TTWU)` for `task`, woken by code running on `this`:
/// its one allowed CPU if it may run on one only (`select_task_rq` in core.c); else
/// `select_task_rq_fair`: when `this` may run it, the lowest domain of `this` that spans
/// `prev` and has `SD_WAKE_AFFINE` (the node; or the NUMA level within
/// `RECLAIM_DISTANCE`) lets `wake_affine` choose between `this` and `prev`; no domain has
/// `SD_BALANCE_WAKE`, so the fast path `select_idle_sibling` finishes the choice.
pub(crate) fn select_task_rq_fair(sim: &Sim, task: u16, this: CpuId, now: u64) -> CpuId {
    let t = &sim.st.tasks[task as usize];
    let prev = t.cpu;
    let allowed = t.cpus_allowed;
    let mut it = allowed.iter().filter(|&c| (c as usize) < sim.st.cpus.len());
    let first = it.next().unwrap_or(prev);
    if it.next().is_none() {
        return first;
    }
    let prev = if allowed.test(prev) { prev } else { first };
    let mut target = prev;
    if allowed.test(this) && this != prev {
        let (a, b) = (sim.st.cpus[this as usize].node, sim.st.cpus[prev as usize].node);
        let distance = sim
            .cfg
            .topo
            .distance
            .get(a as usize)
            .and_then(|r| r.get(b as usize))
            .copied()
            .unwrap_or(10);
        if a == b {
            target = wake_affine(sim, task, this, prev, LLC_IMBALANCE_PCT, now);
        } else if distance <= RECLAIM_DISTANCE {
            target = wake_affine(sim, task, this, prev, NUMA_IMBALANCE_PCT, now);
        }
    }
    select_idle_sibling(sim, task, prev, target)
}

/// `check_preempt_wakeup` on `cpu` for `task`, just queued there: the running task is
/// marked to give the CPU up (`resched_curr`) when the woken one's vruntime is more than
/// `sched_wakeup_granularity` behind its own (`wakeup_preempt_entity`). An idle CPU runs
/// the woken task anyway.
pub(crate) fn check_preempt_wakeup(sim: &mut Sim, cpu: CpuId, task: u16) {
    let c = &sim.st.cpus[cpu as usize];
    if c.curr == c.idle || c.need_resched || c.curr == task {
        return;
    }
    update_curr(sim, cpu);
    let c = &sim.st.cpus[cpu as usize];
    let curr = sim.st.tasks[c.curr as usize].se.vruntime;
    let woken = sim.st.tasks[task as usize].se.vruntime;
    if curr.saturating_sub(woken) > sim.cfg.sched.wakeup_granularity {
        sim.st.cpus[cpu as usize].need_resched = true;
    }
}

/// `try_to_wake_up` for the sleeping `task`, woken by code running on `waker` at `now`:
/// the CPU [`select_task_rq_fair`] picks (its vruntime renormalised when that is not the
/// CPU it slept on, and every mechanism told of the move, as `set_task_cpu` does), then
/// `ttwu_do_activate`: `place_entity`, the run queue, `check_preempt_wakeup`. An idle
/// CPU's clock catches up with the wake-up. Returns the CPU.
pub(crate) fn try_to_wake_up(sim: &mut Sim, task: u16, waker: CpuId, now: u64) -> CpuId {
    let prev = sim.st.tasks[task as usize].cpu;
    let cpu = select_task_rq_fair(sim, task, waker, now);
    if cpu != prev {
        renormalise(sim, task, prev, cpu);
        crate::kernel::sched::core::task_moved(sim, task, prev, cpu);
        sim.st.counters.inc(crate::mech::core::NR_MIGRATIONS);
        sim.touch(prev);
    }
    let t = &mut sim.st.tasks[task as usize];
    t.state = TaskState::Runnable;
    t.cpu = cpu;
    let c = &mut sim.st.cpus[cpu as usize];
    if c.curr == c.idle && c.rq.is_empty() {
        c.clock = c.clock.max(now);
    }
    place_woken(sim, cpu, task);
    sim.st.cpus[cpu as usize].rq.push_back(task);
    check_preempt_wakeup(sim, cpu, task);
    refresh_slice(sim, cpu);
    cpu
}
