//! Moving a task to its preferred node (`kernel/sched/fair.c`, Linux v5.12):
//! `numa_migrate_preferred` → `task_numa_migrate` → `task_numa_find_cpu` →
//! `task_numa_compare`, with `update_numa_stats`, `numa_classify`,
//! `adjust_numa_imbalance` and `load_too_imbalanced`. Before v4.19 (toggle
//! `numa_placement_v4_19` off) the search is v4.17's, in `v4_18` below.
//!
//! The search looks at the CPUs of the preferred node (and, when nothing fits there or the
//! task's group spans several nodes, at the other nodes where the task or its group would
//! be better off): an idle CPU if moving there keeps the nodes balanced, otherwise the
//! task running on a CPU there, to swap with when the exchange improves the two tasks'
//! (or groups') fault locality by at least `SMALLIMP`. The move itself is asked for here
//! and done at the task's next return to user space (`Task::move_to`); a swap moves both
//! tasks at once then, as `migrate_swap`'s `stop_two_cpus` does, or when the partner
//! leaves the kernel code it was running (`kernel::sched::core::migrate_swap`).
//!
//! Model stand-ins: a task's load (`task_h_load`) is `NICE_0_LOAD` whenever it is
//! runnable, a CPU's utilisation is full while it runs a task, and the NUMA domain's
//! `imbalance_pct` is v5.12 `sd_init`'s 117 (the search uses 100 + 17 / 2 = 108). Every
//! machine is `NUMA_DIRECT` (`score_nearby_nodes` adds nothing).

use crate::engine::Sim;
use crate::kernel::sched::numa_group::MEM;
use crate::topology::{CpuId, NodeId};

/// `NICE_0_LOAD` (and `SCHED_CAPACITY_SCALE`).
const LOAD: i64 = 1024;
/// `SMALLIMP`: an improvement smaller than this is not worth a swap.
const SMALLIMP: i64 = 30;
/// The NUMA domain's `imbalance_pct` halved above 100, as `task_numa_migrate` sets it.
const IMBALANCE_PCT: i64 = 108;

/// `enum numa_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeType {
    HasSpare,
    FullyBusy,
    Overloaded,
}

/// `struct numa_stats` of one node.
#[derive(Clone, Copy, Debug)]
struct NumaStats {
    load: i64,
    runnable: i64,
    util: i64,
    compute_capacity: i64,
    nr_running: i64,
    weight: i64,
    node_type: NodeType,
    /// An idle CPU the task may use (`-1` in the kernel: none).
    idle_cpu: Option<CpuId>,
}

/// What `task_numa_migrate` decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Move to an idle CPU.
    Move(CpuId),
    /// Swap with the task running on the CPU.
    Swap(CpuId, u16),
    /// Nothing better than where the task runs.
    Stay,
}

/// `struct task_numa_env`.
struct Env {
    p: usize,
    src_cpu: CpuId,
    src_nid: NodeId,
    dst_nid: NodeId,
    src_stats: NumaStats,
    dst_stats: NumaStats,
    best_task: Option<usize>,
    best_imp: i64,
    best_cpu: Option<CpuId>,
}

fn is_idle(sim: &Sim, cpu: CpuId) -> bool {
    let c = &sim.st.cpus[cpu as usize];
    c.curr == c.idle && c.rq.is_empty()
}

/// `rq->numa_migrate_on` of `cpu` (v5.12): a NUMA move or swap has chosen it and not yet
/// happened. The kernel sets it in `task_numa_assign` and clears it once the stopper has
/// moved the tasks; the model moves them at their next return to user space, so a CPU is
/// taken while a task is on its way there or the task running there is about to leave.
/// `update_numa_stats` does not offer it as the node's idle CPU and `task_numa_compare`
/// does not consider it, so two tasks cannot pick the same CPU or swap partner at once.
fn numa_migrate_on(sim: &Sim, cpu: CpuId) -> bool {
    let c = &sim.st.cpus[cpu as usize];
    (c.curr != c.idle && sim.st.tasks[c.curr as usize].move_to.is_some()) || sim.st.tasks.iter().any(|t| t.move_to == Some(cpu))
}

/// `update_numa_stats` + `numa_classify` for node `nid`, as seen by task `p`.
fn update_numa_stats(sim: &Sim, p: usize, nid: NodeId) -> NumaStats {
    let mut ns = NumaStats {
        load: 0,
        runnable: 0,
        util: 0,
        compute_capacity: 0,
        nr_running: 0,
        weight: 0,
        node_type: NodeType::HasSpare,
        idle_cpu: None,
    };
    for &cpu in &sim.cfg.topo.nodes[nid as usize].cpus {
        let c = &sim.st.cpus[cpu as usize];
        let running = i64::from(c.curr != c.idle) + c.rq.len() as i64;
        ns.load += running * LOAD;
        ns.runnable += running * LOAD;
        ns.util += i64::from(c.curr != c.idle) * LOAD;
        ns.nr_running += running;
        ns.compute_capacity += LOAD;
        ns.weight += 1;
        if ns.idle_cpu.is_none() && is_idle(sim, cpu) && sim.st.tasks[p].cpus_allowed.test(cpu) && !numa_migrate_on(sim, cpu) {
            ns.idle_cpu = Some(cpu);
        }
    }
    ns.node_type = if ns.nr_running > ns.weight
        && (ns.compute_capacity * 100 < ns.util * IMBALANCE_PCT || ns.compute_capacity * IMBALANCE_PCT < ns.runnable * 100)
    {
        NodeType::Overloaded
    } else if ns.nr_running < ns.weight
        || (ns.compute_capacity * 100 > ns.util * IMBALANCE_PCT && ns.compute_capacity * IMBALANCE_PCT > ns.runnable * 100)
    {
        NodeType::HasSpare
    } else {
        NodeType::FullyBusy
    };
    ns
}

/// `task_weight(p, nid, dist)`: the task's share of its memory faults on `nid`, in 1/1000.
fn task_weight(sim: &Sim, p: usize, nid: NodeId) -> i64 {
    let n = &sim.st.tasks[p].numa;
    if n.total_faults == 0 {
        return 0;
    }
    let f = n.faults.get(nid as usize).map_or(0, |f| f[MEM] + f[MEM + 1]);
    (1000 * f / n.total_faults) as i64
}

/// `group_weight(p, nid, dist)`: the group's share of its memory faults on `nid`.
fn group_weight(sim: &Sim, p: usize, nid: NodeId) -> i64 {
    let Some(g) = sim.st.tasks[p].numa.group.map(|g| &sim.st.numa_groups[g as usize]) else {
        return 0;
    };
    if g.total_faults == 0 {
        return 0;
    }
    (1000 * g.faults_mem(nid) / g.total_faults) as i64
}

/// `load_too_imbalanced`: would the move make the capacity-weighted imbalance worse?
fn load_too_imbalanced(src_load: i64, dst_load: i64, env: &Env) -> bool {
    let (sc, dc) = (env.src_stats.compute_capacity, env.dst_stats.compute_capacity);
    let imb = (dst_load * sc - src_load * dc).abs();
    let old = (env.dst_stats.load * sc - env.src_stats.load * dc).abs();
    imb > old
}

/// `task_numa_compare` for `dst_cpu`; returns whether to stop the search.
fn task_numa_compare(sim: &Sim, env: &mut Env, dst_cpu: CpuId, taskimp: i64, groupimp: i64, maymove: bool) -> bool {
    let p_ng = sim.st.tasks[env.p].numa.group;
    let mut imp = if p_ng.is_some() { groupimp } else { taskimp };
    let moveimp = imp;
    if numa_migrate_on(sim, dst_cpu) {
        return false;
    }
    let c = &sim.st.cpus[dst_cpu as usize];
    let cur = (c.curr != c.idle).then_some(c.curr as usize);
    if cur == Some(env.p) {
        return true;
    }
    let assign_move = |sim: &Sim, env: &mut Env, imp: i64| {
        // One idle CPU per node is evaluated; a CPU that stopped being idle keeps an idle
        // earlier choice.
        let mut cpu = env.dst_stats.idle_cpu.unwrap_or(dst_cpu);
        if !is_idle(sim, cpu) && env.best_cpu.is_some_and(|b| is_idle(sim, b)) {
            cpu = env.best_cpu.unwrap_or(cpu);
        }
        env.best_task = None;
        env.best_imp = imp;
        env.best_cpu = Some(cpu);
        maymove && env.best_cpu.is_some_and(|b| is_idle(sim, b))
    };
    let Some(cur_t) = cur else {
        if maymove && moveimp >= env.best_imp {
            return assign_move(sim, env, moveimp);
        }
        return false;
    };
    let t = &sim.st.tasks[cur_t];
    // Skip a swap partner that may not run on the source CPU, or a kernel thread.
    if !t.cpus_allowed.test(env.src_cpu) || t.mm().is_none() {
        return false;
    }
    let best_pref = env.best_task.map(|b| sim.st.tasks[b].numa.preferred_nid);
    if best_pref == Some(Some(env.src_nid)) && t.numa.preferred_nid != Some(env.src_nid) {
        return false;
    }
    let cur_ng = t.numa.group;
    if cur_ng == p_ng {
        // No swap within a group (or between groupless tasks) while there is spare
        // capacity: it helps one task at the other's cost.
        if env.dst_stats.node_type == NodeType::HasSpare {
            return false;
        }
        imp = taskimp + task_weight(sim, cur_t, env.src_nid) - task_weight(sim, cur_t, env.dst_nid);
        if cur_ng.is_some() {
            imp -= imp / 16;
        }
    } else if cur_ng.is_some() && p_ng.is_some() {
        imp += group_weight(sim, cur_t, env.src_nid) - group_weight(sim, cur_t, env.dst_nid);
    } else {
        imp += task_weight(sim, cur_t, env.src_nid) - task_weight(sim, cur_t, env.dst_nid);
    }
    if t.numa.preferred_nid == Some(env.dst_nid) {
        imp -= imp / 16;
    }
    if t.numa.preferred_nid == Some(env.src_nid) {
        imp += imp / 8;
    }
    if maymove && moveimp > imp && moveimp > env.best_imp {
        return assign_move(sim, env, moveimp);
    }
    let prefer = env.best_task.is_some() && t.numa.preferred_nid == Some(env.src_nid) && best_pref != Some(Some(env.src_nid));
    // Below SMALLIMP a swap would only ping-pong the tasks (unless it sends the partner
    // to its preferred node and the best so far does not). Both tasks weigh NICE_0_LOAD,
    // so a swap leaves the loads as they are.
    if !prefer && (imp < SMALLIMP || imp <= env.best_imp + SMALLIMP / 2) {
        return false;
    }
    env.best_task = Some(cur_t);
    env.best_imp = imp;
    env.best_cpu = Some(dst_cpu);
    !maymove && sim.st.tasks[cur_t].numa.preferred_nid == Some(env.src_nid)
}

/// `task_numa_find_cpu`: an idle CPU on `env.dst_nid` if the move keeps the nodes
/// balanced, else the best swap there.
fn task_numa_find_cpu(sim: &Sim, env: &mut Env, taskimp: i64, groupimp: i64) {
    let mut maymove = false;
    if env.dst_stats.node_type == NodeType::HasSpare {
        // adjust_numa_imbalance: a pair of tasks may stay together on an almost idle node.
        let src_running = env.src_stats.nr_running - 1;
        let dst_running = env.dst_stats.nr_running + 1;
        let imbalance = (dst_running - src_running).max(0);
        let imbalance = if dst_running <= 2 { 0 } else { imbalance };
        if imbalance == 0 {
            maymove = true;
            if let Some(idle) = env.dst_stats.idle_cpu {
                env.best_task = None;
                env.best_imp = 0;
                env.best_cpu = Some(idle);
                return;
            }
        }
    } else {
        let src_load = env.src_stats.load - LOAD;
        let dst_load = env.dst_stats.load + LOAD;
        maymove = !load_too_imbalanced(src_load, dst_load, env);
    }
    for &cpu in &sim.cfg.topo.nodes[env.dst_nid as usize].cpus {
        if !sim.st.tasks[env.p].cpus_allowed.test(cpu) {
            continue;
        }
        if task_numa_compare(sim, env, cpu, taskimp, groupimp, maymove) {
            break;
        }
    }
}

/// `migrate_degrades_locality(p, env)` (v5.12) for a load-balancing move of task `p` from
/// `src` to `dst`; `dst_idle` is `env->idle == CPU_IDLE`. 1: the move hurts NUMA locality
/// (`can_migrate_task` refuses it; the kernel gives in after `cache_nice_tries` failed
/// balances, which the model's single balancing level does not count); 0: it helps; -1:
/// NUMA balancing has no opinion (the model has no cache-hot test to fall back on, so the
/// task may move).
pub(crate) fn migrate_degrades_locality(sim: &Sim, p: usize, src: CpuId, dst: CpuId, dst_idle: bool) -> i8 {
    let t = &sim.st.tasks[p];
    if t.numa.faults.is_empty() || !sim.cfg.knobs.on(crate::mech::numa::NUMA_BALANCING) {
        return -1;
    }
    let (src_nid, dst_nid) = (sim.cpu_node(src), sim.cpu_node(dst));
    if src_nid == dst_nid {
        return -1;
    }
    if t.numa.preferred_nid == Some(src_nid) {
        // Away from the preferred node is bad, unless every task there runs on its own
        // preferred node anyway (nr_running > nr_preferred_running).
        let c = &sim.st.cpus[src as usize];
        let on_pref = |i: u16| sim.st.tasks[i as usize].numa.preferred_nid == Some(src_nid);
        let running = c.rq.iter().copied().chain((c.curr != c.idle).then_some(c.curr));
        let (n, pref) = running.fold((0, 0), |(n, k), i| (n + 1, k + usize::from(on_pref(i))));
        return if n > pref { 1 } else { -1 };
    }
    if t.numa.preferred_nid == Some(dst_nid) {
        return 0;
    }
    if dst_idle {
        return -1;
    }
    let (s, d) = if t.numa.group.is_some() {
        (group_weight(sim, p, src_nid), group_weight(sim, p, dst_nid))
    } else {
        (task_weight(sim, p, src_nid), task_weight(sim, p, dst_nid))
    };
    i8::from(d < s)
}

/// `task_numa_migrate(p)` for task `p` running on `cpu`: where it should go. It may also
/// change the task's preferred node (a task in a multi-node group adopts the node it
/// goes to, or stays preferring where it is).
pub(crate) fn task_numa_migrate(sim: &mut Sim, p: usize, cpu: CpuId) -> Placement {
    let nodes = sim.cfg.topo.nodes.len();
    let src_nid = sim.cpu_node(cpu);
    let Some(pref) = sim.st.tasks[p].numa.preferred_nid else {
        return Placement::Stay;
    };
    if nodes < 2 {
        return Placement::Stay;
    }
    if !sim.cfg.toggles.on(crate::mech::numa::NUMA_PLACEMENT_V4_19) {
        return v4_18::task_numa_migrate(sim, p, cpu, pref);
    }
    let taskweight = task_weight(sim, p, src_nid);
    let groupweight = group_weight(sim, p, src_nid);
    let mut env = Env {
        p,
        src_cpu: cpu,
        src_nid,
        dst_nid: pref,
        src_stats: update_numa_stats(sim, p, src_nid),
        dst_stats: update_numa_stats(sim, p, pref),
        best_task: None,
        best_imp: 0,
        best_cpu: None,
    };
    let taskimp = task_weight(sim, p, pref) - taskweight;
    let groupimp = group_weight(sim, p, pref) - groupweight;
    task_numa_find_cpu(sim, &mut env, taskimp, groupimp);
    let group = sim.st.tasks[p].numa.group.map(|g| sim.st.numa_groups[g as usize].active_nodes);
    if env.best_cpu.is_none() || group.is_some_and(|a| a > 1) {
        for nid in 0..nodes as NodeId {
            if nid == src_nid || nid == pref {
                continue;
            }
            let taskimp = task_weight(sim, p, nid) - taskweight;
            let groupimp = group_weight(sim, p, nid) - groupweight;
            if taskimp < 0 && groupimp < 0 {
                continue;
            }
            env.dst_nid = nid;
            env.dst_stats = update_numa_stats(sim, p, nid);
            task_numa_find_cpu(sim, &mut env, taskimp, groupimp);
        }
    }
    if group.is_some() {
        let nid = env.best_cpu.map_or(src_nid, |c| sim.cpu_node(c));
        sim.st.tasks[p].numa.preferred_nid = Some(nid);
    }
    finish(sim, p, cpu, env.best_cpu, env.best_task)
}

/// The end of `task_numa_migrate`: restart the scan period of a task about to move (v4.18
/// and earlier; from v4.19 every move across nodes does, in `update_scan_period`) and ask
/// for the move or the swap.
fn finish(sim: &mut Sim, p: usize, cpu: CpuId, best_cpu: Option<CpuId>, best_task: Option<usize>) -> Placement {
    if best_cpu.is_some() && !sim.cfg.toggles.on(crate::mech::numa::NUMA_SCAN_RESET_ON_MOVE) {
        if let Some(mm) = sim.st.tasks[p].mm() {
            let start = crate::kernel::sched::numa::task_scan_start(sim, p, mm);
            sim.st.tasks[p].numa.scan_period_ms = start as u32;
        }
    }
    match (best_cpu, best_task) {
        (None, _) => Placement::Stay,
        (Some(c), None) => {
            sim.st.tasks[p].move_to = Some(c);
            Placement::Move(c)
        }
        (Some(c), Some(t)) => {
            sim.st.tasks[p].move_to = Some(c);
            sim.st.tasks[t].move_to = Some(cpu);
            sim.st.tasks[p].swap_with = Some(t as u16);
            sim.st.tasks[t].swap_with = Some(p as u16);
            Placement::Swap(c, t as u16)
        }
    }
}

/// The search up to v4.18 (`numa_placement_v4_19` off), as Linux v4.17
/// `kernel/sched/fair.c` has it: `update_numa_stats` with `task_capacity` and
/// `has_free_capacity`, `numa_has_capacity` before each node's search, v4.17's
/// `task_numa_compare` and `load_too_imbalanced`, and the preferred node taken from the
/// last node searched. Model stand-ins as above: a runnable task's load
/// (`weighted_cpuload`'s `runnable_load_avg`, `task_h_load`) is `NICE_0_LOAD`, every CPU's
/// capacity is `SCHED_CAPACITY_SCALE` (no SMT), and the CPU a move or swap has chosen is
/// taken until the move happens (`numa_migrate_on` above): v4.17's `migrate_task_to` and
/// `migrate_swap` call the stopper from the hint fault, where the model moves the tasks
/// at the faulting task's return to user space (both of a swap at once, as v4.17's
/// `migrate_swap_stop` does).
mod v4_18 {
    use super::{finish, group_weight, numa_migrate_on, task_weight, Placement, LOAD};
    use crate::engine::Sim;
    use crate::topology::{CpuId, NodeId};

    /// `sd_init` (v4.17) leaves a NUMA domain's `imbalance_pct` at 125; `task_numa_migrate`
    /// uses `100 + (125 - 100) / 2`.
    const IMBALANCE_PCT: i64 = 112;

    /// v4.17's `struct numa_stats`.
    #[derive(Clone, Copy, Debug, Default)]
    struct NumaStats {
        nr_running: i64,
        load: i64,
        compute_capacity: i64,
        task_capacity: i64,
        has_free_capacity: bool,
    }

    struct Env {
        p: usize,
        src_cpu: CpuId,
        src_nid: NodeId,
        dst_nid: NodeId,
        src_stats: NumaStats,
        dst_stats: NumaStats,
        best_task: Option<usize>,
        best_imp: i64,
        best_cpu: Option<CpuId>,
    }

    /// Tasks runnable on `cpu` (`rq->nr_running`).
    fn nr_running(sim: &Sim, cpu: CpuId) -> i64 {
        let c = &sim.st.cpus[cpu as usize];
        i64::from(c.curr != c.idle) + c.rq.len() as i64
    }

    /// `update_numa_stats` (v4.17): without SMT `smt` is 1, so `task_capacity` is the
    /// node's CPUs.
    fn update_numa_stats(sim: &Sim, nid: NodeId) -> NumaStats {
        let mut ns = NumaStats::default();
        let mut cpus = 0;
        for &cpu in &sim.cfg.topo.nodes[nid as usize].cpus {
            let running = nr_running(sim, cpu);
            ns.nr_running += running;
            ns.load += running * LOAD;
            ns.compute_capacity += LOAD;
            cpus += 1;
        }
        if cpus == 0 {
            return ns;
        }
        ns.task_capacity = cpus.min((ns.compute_capacity + LOAD / 2) / LOAD);
        ns.has_free_capacity = ns.nr_running < ns.task_capacity;
        ns
    }

    /// `numa_has_capacity`: only towards a node less busy than the source.
    fn numa_has_capacity(env: &Env) -> bool {
        let (src, dst) = (&env.src_stats, &env.dst_stats);
        if src.has_free_capacity && !dst.has_free_capacity {
            return false;
        }
        src.load * dst.compute_capacity * IMBALANCE_PCT > dst.load * src.compute_capacity * 100
    }

    /// v4.17's `load_too_imbalanced`: past the threshold, would the change make the
    /// imbalance worse than it is?
    fn load_too_imbalanced(src_load: i64, dst_load: i64, env: &Env) -> bool {
        let (sc, dc) = (env.src_stats.compute_capacity, env.dst_stats.compute_capacity);
        let (lo, hi) = if dst_load < src_load {
            (dst_load, src_load)
        } else {
            (src_load, dst_load)
        };
        let imb = hi * sc * 100 - lo * dc * IMBALANCE_PCT;
        if imb <= 0 {
            return false;
        }
        let (os, od) = (env.src_stats.load, env.dst_stats.load);
        let (lo, hi) = if od < os { (od, os) } else { (os, od) };
        let old_imb = hi * sc * 100 - lo * dc * IMBALANCE_PCT;
        imb > old_imb
    }

    /// `task_numa_assign`.
    fn assign(env: &mut Env, cpu: CpuId, task: Option<usize>, imp: i64) {
        env.best_task = task;
        env.best_imp = imp;
        env.best_cpu = Some(cpu);
    }

    /// v4.17's `task_numa_compare` for `dst_cpu`.
    fn task_numa_compare(sim: &Sim, env: &mut Env, dst_cpu: CpuId, taskimp: i64, groupimp: i64) {
        let p_ng = sim.st.tasks[env.p].numa.group;
        let mut imp = if p_ng.is_some() { groupimp } else { taskimp };
        let moveimp = imp;
        if numa_migrate_on(sim, dst_cpu) {
            return;
        }
        let c = &sim.st.cpus[dst_cpu as usize];
        let cur = (c.curr != c.idle).then_some(c.curr as usize);
        if cur == Some(env.p) {
            return;
        }
        if let Some(ct) = cur {
            let t = &sim.st.tasks[ct];
            // A partner that may not run on the source CPU (a bound kernel thread among
            // them) is skipped.
            if !t.cpus_allowed.test(env.src_cpu) || t.mm().is_none() {
                return;
            }
            if t.numa.group == p_ng {
                imp = taskimp + task_weight(sim, ct, env.src_nid) - task_weight(sim, ct, env.dst_nid);
                if t.numa.group.is_some() {
                    imp -= imp / 16;
                }
            } else if t.numa.group.is_some() {
                imp += group_weight(sim, ct, env.src_nid) - group_weight(sim, ct, env.dst_nid);
            } else {
                imp += task_weight(sim, ct, env.src_nid) - task_weight(sim, ct, env.dst_nid);
            }
        }
        if imp <= env.best_imp && moveimp <= env.best_imp {
            return;
        }
        match cur {
            None => {
                // Is there capacity at the destination?
                if env.src_stats.nr_running <= env.src_stats.task_capacity && !env.dst_stats.has_free_capacity {
                    return;
                }
            }
            Some(ct) => {
                // Balance does not matter much with a task per CPU.
                if imp > env.best_imp && nr_running(sim, env.src_cpu) == 1 && nr_running(sim, dst_cpu) == 1 {
                    assign(env, dst_cpu, Some(ct), imp);
                    return;
                }
            }
        }
        // In the overloaded case, keep the load balanced.
        let mut dst_load = env.dst_stats.load + LOAD;
        let mut src_load = env.src_stats.load - LOAD;
        if moveimp > imp && moveimp > env.best_imp && !load_too_imbalanced(src_load, dst_load, env) {
            // A move beats the swap: a slightly smaller score, so that an idle CPU wins.
            assign(env, dst_cpu, None, moveimp - 1);
            return;
        }
        if imp <= env.best_imp {
            return;
        }
        if cur.is_some() {
            dst_load -= LOAD;
            src_load += LOAD;
        }
        if load_too_imbalanced(src_load, dst_load, env) {
            return;
        }
        // Without a task there, dst_cpu is idle and select_idle_sibling(p, src_cpu,
        // dst_cpu) keeps it.
        assign(env, dst_cpu, cur, imp);
    }

    /// v4.17's `task_numa_find_cpu`.
    fn task_numa_find_cpu(sim: &Sim, env: &mut Env, taskimp: i64, groupimp: i64) {
        for &cpu in &sim.cfg.topo.nodes[env.dst_nid as usize].cpus {
            if sim.st.tasks[env.p].cpus_allowed.test(cpu) {
                task_numa_compare(sim, env, cpu, taskimp, groupimp);
            }
        }
    }

    /// v4.17's `task_numa_migrate` for task `p` on `cpu`, preferring node `pref`.
    pub(super) fn task_numa_migrate(sim: &mut Sim, p: usize, cpu: CpuId, pref: NodeId) -> Placement {
        let nodes = sim.cfg.topo.nodes.len();
        let src_nid = sim.cpu_node(cpu);
        let taskweight = task_weight(sim, p, src_nid);
        let groupweight = group_weight(sim, p, src_nid);
        let mut env = Env {
            p,
            src_cpu: cpu,
            src_nid,
            dst_nid: pref,
            src_stats: update_numa_stats(sim, src_nid),
            dst_stats: update_numa_stats(sim, pref),
            best_task: None,
            best_imp: 0,
            best_cpu: None,
        };
        let taskimp = task_weight(sim, p, pref) - taskweight;
        let groupimp = group_weight(sim, p, pref) - groupweight;
        if numa_has_capacity(&env) {
            task_numa_find_cpu(sim, &mut env, taskimp, groupimp);
        }
        let active = sim.st.tasks[p].numa.group.map(|g| sim.st.numa_groups[g as usize].active_nodes);
        if env.best_cpu.is_none() || active.is_some_and(|a| a > 1) {
            for nid in 0..nodes as NodeId {
                if nid == src_nid || nid == pref {
                    continue;
                }
                // Only nodes where the task or its group is better off.
                let taskimp = task_weight(sim, p, nid) - taskweight;
                let groupimp = group_weight(sim, p, nid) - groupweight;
                if taskimp < 0 && groupimp < 0 {
                    continue;
                }
                env.dst_nid = nid;
                env.dst_stats = update_numa_stats(sim, nid);
                if numa_has_capacity(&env) {
                    task_numa_find_cpu(sim, &mut env, taskimp, groupimp);
                }
            }
        }
        // A task of a workload spanning nodes takes the last node the search looked at as
        // its preferred node when the group is active there (v4.19 took best_cpu's node).
        if let Some(g) = sim.st.tasks[p].numa.group.map(|g| &sim.st.numa_groups[g as usize]) {
            if g.active_nodes > 1 && g.is_active_node(env.dst_nid) {
                sim.st.tasks[p].numa.preferred_nid = Some(env.dst_nid);
            }
        }
        finish(sim, p, cpu, env.best_cpu, env.best_task)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patches::ToggleSet;

    /// Two tasks on node 0 (CPUs 0 and 1) whose memory is all on node 1, where CPU 2 is
    /// idle and CPU 3 runs a task pinned there; returns the sim and the two tasks.
    fn two_tasks_away_from_home() -> (Sim, usize, usize) {
        two_tasks_away_from_home_under(true)
    }

    /// `two_tasks_away_from_home` with v4.19's placement (`true`) or v4.17's.
    fn two_tasks_away_from_home_under(v4_19: bool) -> (Sim, usize, usize) {
        let text = crate::testkit::TestScenario::new()
            .two_nodes("cpus = [0, 1]\nmem_pages = 64", "cpus = [2, 3]\nmem_pages = 64")
            .then(
                r#"
[[process]]
name = "c"
[[process.thread]]
cpu = 3
ops = [{ op = "compute", ns = 1000000 }]
[[process]]
name = "a"
[[process.thread]]
cpus = [0, 1, 2]
ops = [{ op = "compute", ns = 1000000 }]
[[process]]
name = "b"
[[process.thread]]
cpus = [0, 1, 2]
ops = [{ op = "compute", ns = 1000000 }]
"#,
            )
            .text();
        let s = crate::scenario::parse(&text, &[]).unwrap();
        let mut toggles = ToggleSet::default();
        toggles.set_text("numa_placement_v4_19", if v4_19 { "on" } else { "off" }).unwrap();
        let mut sim = Sim::new(&s, &toggles, false);
        let users: Vec<usize> = (0..sim.st.tasks.len()).filter(|&t| sim.st.tasks[t].mm().is_some()).collect();
        let (a, b) = (users[1], users[2]);
        assert_eq!((sim.st.tasks[a].cpu, sim.st.tasks[b].cpu), (0, 1), "forks fill node 0 first");
        for t in [a, b] {
            let n = &mut sim.st.tasks[t].numa;
            n.faults = vec![[0; 8]; 2];
            n.faults[1][MEM] = 100;
            n.total_faults = 100;
            n.preferred_nid = Some(1);
        }
        (sim, a, b)
    }

    #[test]
    fn a_cpu_one_task_is_moving_to_is_not_offered_to_another_until_it_arrives() {
        let (mut sim, a, b) = two_tasks_away_from_home();
        assert_eq!(task_numa_migrate(&mut sim, a, 0), Placement::Move(2));
        // v5.12 numa_migrate_on: CPU 2 is taken until a is there, and b cannot swap with
        // the task pinned to CPU 3.
        assert!(numa_migrate_on(&sim, 2));
        assert_eq!(task_numa_migrate(&mut sim, b, 1), Placement::Stay);
        assert_eq!(sim.st.tasks[b].move_to, None);
        // Once a has moved, nothing is pending.
        crate::kernel::sched::core::move_current(&mut sim, 0, a as u16, 2);
        assert!(!numa_migrate_on(&sim, 2));
    }

    /// Groupless tasks a on CPU 0 (node 0) and d on CPU 2 (node 1), CPUs 1 and 3 idle; a
    /// prefers node 1 (60 % of its faults there), d has 55 % of its faults on node 1.
    fn a_nearly_home_d_on_its_node(v4_19: bool) -> (Sim, usize, usize) {
        let text = crate::testkit::TestScenario::new()
            .two_nodes("cpus = [0, 1]\nmem_pages = 64", "cpus = [2, 3]\nmem_pages = 64")
            .then(
                r#"
[[process]]
name = "a"
[[process.thread]]
ops = [{ op = "compute", ns = 1000000 }]
[[process]]
name = "d"
[[process.thread]]
ops = [{ op = "compute", ns = 1000000 }]
"#,
            )
            .text();
        let s = crate::scenario::parse(&text, &[]).unwrap();
        let mut toggles = ToggleSet::default();
        toggles.set_text("numa_placement_v4_19", if v4_19 { "on" } else { "off" }).unwrap();
        let mut sim = Sim::new(&s, &toggles, false);
        let users: Vec<usize> = (0..sim.st.tasks.len()).filter(|&t| sim.st.tasks[t].mm().is_some()).collect();
        let (a, d) = (users[0], users[1]);
        assert_eq!(
            (sim.st.tasks[a].cpu, sim.st.tasks[d].cpu),
            (0, 2),
            "the second fork goes to the idle node"
        );
        assert!(is_idle(&sim, 1) && is_idle(&sim, 3));
        for (t, home) in [(a, 60), (d, 55)] {
            let n = &mut sim.st.tasks[t].numa;
            n.faults = vec![[0; 8]; 2];
            n.faults[0][MEM] = 100 - home;
            n.faults[1][MEM] = home;
            n.total_faults = 100;
            n.preferred_nid = Some(1);
        }
        (sim, a, d)
    }

    #[test]
    fn before_v4_19_a_task_alone_on_its_cpu_swaps_for_any_gain() {
        // v4.17: numa_has_capacity passes (equal loads), and with one task on each CPU
        // task_numa_compare takes the swap with d (gain 200 + 450 - 550 = 100) before the
        // idle CPU 3, which load_too_imbalanced refuses (2 tasks against none).
        let (mut sim, a, d) = a_nearly_home_d_on_its_node(false);
        assert_eq!(task_numa_migrate(&mut sim, a, 0), Placement::Swap(2, d as u16));
        // v5.12: node 1 has spare capacity and a pair may share it (adjust_numa_imbalance),
        // so a takes the idle CPU and d stays.
        let (mut sim, a, _) = a_nearly_home_d_on_its_node(true);
        assert_eq!(task_numa_migrate(&mut sim, a, 0), Placement::Move(3));
    }

    #[test]
    fn before_v4_19_no_search_towards_a_busier_node_without_a_free_cpu() {
        // b goes to node 1 (CPU 2, beside c on CPU 3) and prefers node 0, where all its
        // faults are; a, alone on node 0, still prefers node 1.
        for v4_19 in [false, true] {
            let (mut sim, a, b) = two_tasks_away_from_home_under(v4_19);
            crate::kernel::sched::core::move_current(&mut sim, 1, b as u16, 2);
            let n = &mut sim.st.tasks[b].numa;
            n.faults[1][MEM] = 0;
            n.faults[0][MEM] = 100;
            n.preferred_nid = Some(0);
            let got = task_numa_migrate(&mut sim, a, 0);
            if v4_19 {
                // v5.12: node 1 is fully busy, so a swap that gains both (2,000) goes ahead.
                assert_eq!(got, Placement::Swap(2, b as u16));
            } else {
                // v4.17: numa_has_capacity refuses a node without a free CPU to a task
                // whose node has one, so the swap is never looked at.
                assert_eq!(got, Placement::Stay);
            }
        }
    }
}
