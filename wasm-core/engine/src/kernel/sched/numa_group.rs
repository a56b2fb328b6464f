//! NUMA groups (`struct numa_group` of `kernel/sched/fair.c`, Linux v5.12): tasks that
//! hint-fault on each other's pages pool their fault statistics, so a workload spread
//! over several processes or threads gets one preferred node and one view of where its
//! CPUs and memory are.
//!
//! - `task_numa_group`: a shared fault (the page's last cpupid names another task that is
//!   still running on that CPU) makes the faulting task join that task's group if the
//!   group is bigger (a tie goes to the older group), and only when the two share the mm
//!   or the fault was `TNF_SHARED` (a page of a `MAP_SHARED` mapping mapped more than
//!   once). Otherwise the fault is counted as private (false sharing).
//! - Group fault statistics: `task_numa_placement` adds each member's decayed memory
//!   faults and its runtime-weighted CPU faults to the group (`numa_group.rs` keeps the
//!   arrays, `numa.rs` the placement); the preferred node of every member is then the
//!   group's busiest node.
//! - `numa_group_count_active_nodes` and `numa_is_active_node`: nodes whose CPU faults
//!   are more than a third of the busiest node's.
//! - `task_numa_free` at exit.
//!
//! Left out: `preferred_group_nid` for machines whose distances have more than one remote
//! level (`NUMA_BACKPLANE` / `NUMA_GLUELESS_MESH`); every machine is treated as
//! `NUMA_DIRECT`, where it returns the busiest node. Instead of `kzalloc`, every task has
//! a group slot from the start (its index), used when the task creates its group, so a
//! running simulation does not allocate; a group whose last task left keeps its slot with
//! no tasks. The tie-break on the group's address is a tie-break on its slot.

use crate::engine::Sim;
use crate::topology::NodeId;

/// `ACTIVE_NODE_FRACTION`.
pub const ACTIVE_NODE_FRACTION: u64 = 3;

/// Index of the memory faults (`NUMA_MEM`) of a node in a task's `numa_faults` slots
/// (`[mem, membuf, cpu, cpubuf]` x `[shared, private]`).
pub const MEM: usize = 0;
/// `NUMA_MEMBUF`.
pub const MEMBUF: usize = 2;
/// `NUMA_CPU`.
pub const CPU: usize = 4;
/// `NUMA_CPUBUF`.
pub const CPUBUF: usize = 6;

/// `struct numa_group`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NumaGroup {
    /// `gid`: the pid of the task that created it.
    pub gid: u16,
    /// `nr_tasks`.
    pub nr_tasks: u32,
    /// `faults[NUMA_MEM]` per node: `[shared, private]`.
    pub faults: Vec<[u64; 2]>,
    /// `faults_cpu` per node: `[shared, private]`.
    pub faults_cpu: Vec<[u64; 2]>,
    /// `total_faults`.
    pub total_faults: u64,
    /// `active_nodes`.
    pub active_nodes: u32,
    /// `max_faults_cpu`.
    pub max_faults_cpu: u64,
}

impl NumaGroup {
    /// A group slot with no tasks, for a machine of `nodes` nodes.
    pub fn empty(nodes: usize) -> Self {
        NumaGroup {
            gid: 0,
            nr_tasks: 0,
            faults: vec![[0; 2]; nodes],
            faults_cpu: vec![[0; 2]; nodes],
            total_faults: 0,
            active_nodes: 1,
            max_faults_cpu: 0,
        }
    }

    /// `group_faults(p, nid)`: memory faults on `nid`.
    pub fn faults_mem(&self, nid: NodeId) -> u64 {
        self.faults.get(nid as usize).map_or(0, |f| f[0] + f[1])
    }

    /// `group_faults_cpu(group, nid)`: faults taken by CPUs of `nid`.
    pub fn faults_cpu(&self, nid: NodeId) -> u64 {
        self.faults_cpu.get(nid as usize).map_or(0, |f| f[0] + f[1])
    }

    /// `group_faults_shared` and `group_faults_priv`: memory faults of each kind.
    pub fn faults_shared_priv(&self) -> (u64, u64) {
        self.faults.iter().fold((0, 0), |(s, p), f| (s + f[0], p + f[1]))
    }

    /// `numa_is_active_node(nid, group)`.
    pub fn is_active_node(&self, nid: NodeId) -> bool {
        self.faults_cpu(nid) * ACTIVE_NODE_FRACTION > self.max_faults_cpu
    }

    /// `numa_group_count_active_nodes`: the nodes the workload runs on, judged from where
    /// its hint faults are taken.
    pub fn count_active_nodes(&mut self) {
        let n = self.faults_cpu.len() as NodeId;
        let max = (0..n).map(|nid| self.faults_cpu(nid)).max().unwrap_or(0);
        self.max_faults_cpu = max;
        self.active_nodes = (0..n).filter(|&nid| self.faults_cpu(nid) * ACTIVE_NODE_FRACTION > max).count() as u32;
    }

    /// Adds (`sign` true) or removes a task's `MEM` and `CPU` slots and its total.
    fn carry(&mut self, faults: &[[u64; 8]], total: u64, add: bool) {
        let f = |a: u64, b: u64| if add { a + b } else { a.saturating_sub(b) };
        for (nid, t) in faults.iter().enumerate() {
            for k in 0..2 {
                self.faults[nid][k] = f(self.faults[nid][k], t[MEM + k]);
                self.faults_cpu[nid][k] = f(self.faults_cpu[nid][k], t[CPU + k]);
            }
        }
        self.total_faults = f(self.total_faults, total);
    }
}

/// What `task_numa_group` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    /// The task joined a group.
    Joined {
        /// Its slot in `State::numa_groups`.
        slot: u16,
        /// Its id (the creator's pid).
        gid: u16,
    },
    /// The other task's group is the task's own, or smaller: nothing to do.
    Stayed,
    /// The cpupid's task is no longer running on that CPU, or has no group.
    NoPartner,
    /// Same-size groups in different mms, and the page is not `TNF_SHARED`: the fault is
    /// counted as private.
    FalseSharing,
}

/// `task_numa_group(p, cpupid, flags, &priv)` for task `task`; `shared` is
/// `TNF_SHARED`. Returns whether the fault now counts as private, and what happened.
pub(crate) fn task_numa_group(sim: &mut Sim, task: usize, cpupid: u32, shared: bool) -> (bool, Grouping) {
    if sim.st.tasks[task].numa.group.is_none() {
        let n = &sim.st.tasks[task].numa;
        let g = &mut sim.st.numa_groups[task];
        g.gid = sim.st.tasks[task].pid;
        g.nr_tasks = 1;
        g.faults.iter_mut().chain(g.faults_cpu.iter_mut()).for_each(|f| *f = [0; 2]);
        g.total_faults = 0;
        g.active_nodes = 1;
        g.max_faults_cpu = 0;
        g.carry(&n.faults, n.total_faults, true);
        sim.st.tasks[task].numa.group = Some(task as u16);
    }
    let cpu = (cpupid >> 8) as usize;
    let Some(other) = sim.st.cpus.get(cpu).map(|c| c.curr as usize) else {
        return (false, Grouping::NoPartner);
    };
    if !super::numa::cpupid_match_pid(sim.st.tasks[other].pid, cpupid) {
        return (false, Grouping::NoPartner);
    }
    let Some(grp) = sim.st.tasks[other].numa.group else {
        return (false, Grouping::NoPartner);
    };
    let mine = sim.st.tasks[task].numa.group.unwrap_or(grp);
    if grp == mine {
        return (false, Grouping::Stayed);
    }
    let (gs, ms) = (&sim.st.numa_groups[grp as usize], &sim.st.numa_groups[mine as usize]);
    if ms.nr_tasks > gs.nr_tasks || (ms.nr_tasks == gs.nr_tasks && mine > grp) {
        return (false, Grouping::Stayed);
    }
    let same_mm = sim.st.tasks[other].mm() == sim.st.tasks[task].mm();
    let join = same_mm || shared;
    if !join {
        return (true, Grouping::FalseSharing);
    }
    let (faults, total) = (&sim.st.tasks[task].numa.faults, sim.st.tasks[task].numa.total_faults);
    let g = &mut sim.st.numa_groups[mine as usize];
    g.carry(faults, total, false);
    g.nr_tasks -= 1;
    let g = &mut sim.st.numa_groups[grp as usize];
    g.carry(faults, total, true);
    g.nr_tasks += 1;
    let gid = g.gid;
    sim.st.tasks[task].numa.group = Some(grp);
    (false, Grouping::Joined { slot: grp, gid })
}

/// `task_numa_free`: an exiting task takes its faults out of its group.
pub(crate) fn task_numa_free(sim: &mut Sim, task: usize) {
    let Some(g) = sim.st.tasks[task].numa.group.take() else {
        return;
    };
    let n = &sim.st.tasks[task].numa;
    let g = &mut sim.st.numa_groups[g as usize];
    g.carry(&n.faults, n.total_faults, false);
    g.nr_tasks = g.nr_tasks.saturating_sub(1);
}
