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

/// Per-task NUMA statistics (`task_numa_fault`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NumaStats {
    /// `numa_faults_locality[local, remote, failed]`.
    pub locality: [u64; 3],
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
