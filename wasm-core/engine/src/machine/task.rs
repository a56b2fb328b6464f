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
    /// `numa_faults[]` per node: `[mem, membuf, cpu, cpubuf]` x `[shared, private]`
    /// (indexes in `kernel/sched/numa_group.rs`; allocated at the first hint fault, as the
    /// kernel's `kzalloc` in `task_numa_fault`).
    pub faults: Vec<[u64; 8]>,
    /// `total_numa_faults`: the decayed memory faults over all nodes.
    pub total_faults: u64,
    /// `numa_group`: the slot of the task's group in `State::numa_groups`.
    pub group: Option<u16>,
    /// `last_task_numa_placement` (the task's clock at its last placement) and
    /// `last_sum_exec_runtime`, for `numa_get_avg_runtime`.
    pub last_placement: Option<(u64, u64)>,
    /// `numa_pages_migrated`.
    pub pages_migrated: u64,
    /// Runtime when the task's current `task_numa_work` pass started (for the 32x
    /// overhead charge to `node_stamp`).
    pub scan_runtime0: u64,
    /// The task's last hint-fault decision and its outcome, for the lab's NUMA panel
    /// (nothing in the model reads it).
    pub hint: HintRecord,
    /// Real pages each modelled page stands for while the task handles a hint fault
    /// (`numa_mem_scale`; 0 or 1 outside): the CPU time it is charged counts that many
    /// times (see `Sim::charge`).
    pub weight: u32,
    /// CPU time owed for weighted kernel work beyond the time already charged, paid at the
    /// task's next return to user space (where it holds no lock).
    pub debt: u64,
}

/// A task's last NUMA hint fault as `should_numa_migrate_memory` decided it and
/// `migrate_misplaced_page` ended it: plain data kept for the lab (`mech/numa_view.rs`),
/// written where each fact is decided, read by nothing in the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HintRecord {
    /// Step of the decision (`None`: the task never decided one).
    pub step: Option<u64>,
    /// The faulting CPU.
    pub cpu: CpuId,
    /// The faulting page (filled in by `mpol_misplaced`).
    pub vpn: u32,
    /// Its frame.
    pub pfn: u32,
    /// The page's node at the decision.
    pub page_nid: u8,
    /// The faulting CPU's node (`mpol_misplaced`'s `polnid`).
    pub cpu_nid: u8,
    /// `page_cpupid_xchg_last`'s old value.
    pub last_cpupid: u32,
    /// The task's `numa_preferred_nid` at the decision.
    pub preferred_nid: Option<u8>,
    /// The task's `numa_scan_seq` at the decision.
    pub scan_seq: u32,
    /// The branch of `should_numa_migrate_memory` that decided.
    pub rule: FilterRule,
    /// `mpol_misplaced`'s answer: the node to migrate to.
    pub target: Option<u8>,
    /// What came of it.
    pub outcome: HintOutcome,
    /// Shootdown IPIs the migration's unmap was about to send (`try_to_unmap` found an
    /// accessible PTE), and why.
    pub unmap_ipis: u16,
    /// Why the unmap flushed (meaningful when `unmap_ipis` > 0 or a flush happened).
    pub unmap_cause: UnmapCause,
}

/// The branch of v5.12 `should_numa_migrate_memory` that decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FilterRule {
    /// No decision yet.
    #[default]
    None,
    /// Early-lifetime shortcut: no preferred node yet (or `numa_scan_seq` ≤ 4) and the
    /// page's last cpupid unset or this thread's: migrate.
    Early,
    /// Two-stage filter: the last fault came from another node: wait.
    TwoStage,
    /// Private fault (same pid as the last one): migrate.
    Private,
    /// Shared fault, last one from this node, no numa_group: migrate.
    Shared,
    /// Shared fault in a numa_group whose CPUs fault more than 3x as often on this node
    /// as on the page's: migrate.
    GroupBusier,
    /// Shared fault in a numa_group, decided by CPU and memory faults per node with 3/4
    /// hysteresis: migrate if `true`.
    GroupHysteresis(bool),
}

/// How a hint fault ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HintOutcome {
    /// Still in progress (or not decided yet).
    #[default]
    Pending,
    /// The filter said leave it.
    Stay,
    /// The page was already on the faulting CPU's node.
    Local,
    /// Migrated.
    Migrated,
    /// `migrate_misplaced_page` failed.
    Failed(MigrateFail),
}

/// Why `migrate_misplaced_page` failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MigrateFail {
    /// A dirty file page (09a913a7's bail-out).
    DirtyFile,
    /// v4.17's per-node rate limit.
    RateLimited,
    /// `migrate_balanced_pgdat`: the target node is at its high watermark.
    NodeFull,
    /// `isolate_lru_page`: not on an LRU (another CPU is migrating it).
    NotOnLru,
    /// No free page on the target node.
    NoPage,
    /// `trylock_page` failed.
    PageLocked,
    /// btrfs before v5.8 refused the dirty page after the unmap.
    BtrfsDirty,
    /// Another reason.
    Other,
}

/// Why a migration's unmap flushed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnmapCause {
    /// It did not (the PTE was not accessible).
    #[default]
    None,
    /// v5.12: `do_numa_page` made the PTE present itself.
    Mapped,
    /// Another thread made it present meanwhile.
    Race,
    /// PROT_NONE, but a scan's flush was pending on the mm.
    Pending,
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
    /// A move to another CPU asked for while it ran kernel code (NUMA balancing's
    /// `migrate_task_to` / `migrate_swap`): done at its next return to user space, where
    /// the kernel's migration stopper would have run.
    pub move_to: Option<CpuId>,
    /// The task it is to change places with (`migrate_swap`, asked for by either of the
    /// two): both move at once, when both can (`kernel::sched::core::swap_ready`).
    pub swap_with: Option<u16>,
    /// Index of its operation list in the configuration (user threads).
    pub ops: u16,
    /// Workload operations finished (`op_seq`), for aligning two runs.
    pub op_seq: u64,
    /// NUMA statistics.
    pub numa: NumaStats,
    /// CFS state (`struct sched_entity`).
    pub se: SchedEntity,
}

/// The parts of `struct sched_entity` CFS decides with (kernel/sched/fair.c v5.10, standing
/// for v5.12; every task has the weight of nice 0, so virtual and real runtime advance
/// alike). The runtime itself (`sum_exec_runtime`, `exec_start`) is kept in [`NumaStats`],
/// which NUMA balancing reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedEntity {
    /// `vruntime` (ns), up to the task's `exec_start` while it runs: absolute on the run
    /// queue of the CPU it is queued on or last ran on (the model keeps a sleeper's
    /// absolute too, and renormalises it when it wakes elsewhere, as
    /// `migrate_task_rq_fair` and `enqueue_entity` do).
    pub vruntime: u64,
    /// `prev_sum_exec_runtime`: the runtime when the task was last picked to run, so the
    /// runtime since then is what `check_preempt_tick` compares with its slice.
    pub prev_sum_exec_runtime: u64,
    /// When the task last went to sleep (its blocked load decays from then on).
    pub sleep_start: u64,
    /// It sleeps in `io_schedule` (waiting for a page under migration,
    /// `__migration_entry_wait`): the time until its wake-up is iowait.
    pub iowait: bool,
    /// Not created yet (a scenario with `sequential_launch`): who creates it when its
    /// timer on the launcher's CPU expires.
    pub launch: Option<Launch>,
}

/// Who creates a thread that does not exist at time 0 (`sequential_launch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launch {
    /// The launcher on this CPU forks its process (the process's first thread).
    Launcher(CpuId),
    /// The process's first thread (this task) creates it from the CPU it runs on.
    Thread(u16),
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
