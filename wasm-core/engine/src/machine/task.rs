//! Tasks (`struct task_struct`, the parts the model needs): user threads that belong
//! to an mm, kernel threads that have none, and one idle task per CPU.

use super::cpumask::CpuMask;
use crate::topology::CpuId;

/// What kind of task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskKind {
    /// A user thread of mm `mm`, thread `tid` of its process.
    User {
        /// mm index.
        mm: u16,
        /// Thread index inside the process.
        tid: u16,
    },
    /// A kernel thread (no mm of its own: it runs on whatever mm the CPU has loaded,
    /// lazily).
    Kernel(KthreadKind),
    /// The idle task (`swapper/N`) of a CPU.
    Idle,
}

/// The kernel threads the model knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KthreadKind {
    /// `kswapd` of a node: background reclaim.
    Kswapd,
    /// `kcompactd` of a node: background compaction.
    Kcompactd,
    /// `khugepaged`: THP collapse.
    Khugepaged,
    /// The writeback flusher (`kworker/u:…` running `wb_workfn`).
    Flusher,
    /// The per-CPU vmstat worker (`vmstat_update`, `refresh_cpu_vm_stats`).
    Vmstat,
}

impl KthreadKind {
    /// The name `ps` shows.
    pub fn name(self) -> &'static str {
        match self {
            KthreadKind::Kswapd => "kswapd",
            KthreadKind::Kcompactd => "kcompactd",
            KthreadKind::Khugepaged => "khugepaged",
            KthreadKind::Flusher => "kworker/flush",
            KthreadKind::Vmstat => "kworker/vmstat",
        }
    }
}

/// Scheduling state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskState {
    /// On a CPU.
    Running,
    /// On a run queue.
    Runnable,
    /// Asleep until a time (`None`: until something wakes it).
    Sleeping(Option<u64>),
    /// Finished (`do_exit`).
    Dead,
}

/// Per-task NUMA balancing state (`task_struct`'s `numa_*` fields and the runtime
/// `task_tick_numa` reads), as Linux v5.12 `kernel/sched/fair.c` keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NumaStats {
    /// `numa_faults_locality[remote, local, failed]` (v5.12: index 0 remote, 1 local,
    /// 2 failed migrations), cleared by `update_task_scan_period`.
    pub locality: [u64; 3],
    /// `se.sum_exec_runtime` up to the task's last switch-in (ns).
    pub sum_exec_runtime: u64,
    /// `se.exec_start`: the CPU clock when the task was last switched in (ns).
    pub exec_start: u64,
    /// `init_numa_balancing` has run (the model does it at the first return to user).
    pub init: bool,
    /// `numa_scan_period` (ms).
    pub scan_period_ms: u32,
    /// `numa_scan_period_max` (ms).
    pub scan_period_max_ms: u32,
    /// `node_stamp`: runtime (ns) after which the next scan period starts.
    pub node_stamp: u64,
    /// `numa_work` queued (`work->next != work`).
    pub work_queued: bool,
    /// The task's `numa_scan_seq` (the mm's as of its last `task_numa_placement`).
    pub scan_seq: u32,
    /// `numa_preferred_nid` (`None`: `NUMA_NO_NODE`).
    pub preferred_nid: Option<u8>,
    /// `numa_migrate_retry` (ns of simulated time).
    pub migrate_retry: u64,
    /// `numa_faults[]` per node: `[mem shared, mem private, membuf shared, membuf private]`
    /// (allocated at the first hint fault, as the kernel's `kzalloc` in `task_numa_fault`).
    pub faults: Vec<[u64; 4]>,
    /// `numa_pages_migrated`.
    pub pages_migrated: u64,
    /// Runtime when the task's current `task_numa_work` pass started (for the 32x
    /// overhead charge to `node_stamp`).
    pub scan_runtime0: u64,
}

/// A task.
#[derive(Clone, Debug)]
pub struct Task {
    /// Thread id (`task->pid`), unique across the machine.
    pub pid: u16,
    /// User thread, kernel thread or idle.
    pub kind: TaskKind,
    /// Node a per-node kernel thread serves, or the CPU an idle task belongs to.
    pub home: u16,
    /// Scheduling state.
    pub state: TaskState,
    /// `cpus_allowed`.
    pub cpus_allowed: CpuMask,
    /// The CPU it runs on or last ran on.
    pub cpu: CpuId,
    /// Index of its operation list in the configuration (user threads).
    pub ops: u16,
    /// Workload operations finished (`op_seq`), for aligning two runs.
    pub op_seq: u64,
    /// NUMA statistics.
    pub numa: NumaStats,
}

impl Task {
    /// The mm of a user thread.
    pub fn mm(&self) -> Option<u16> {
        match self.kind {
            TaskKind::User { mm, .. } => Some(mm),
            _ => None,
        }
    }
}
