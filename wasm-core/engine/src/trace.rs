//! Events: one per micro-step, with what it touched, where in the code it is, a
//! sentence of narration and the counters it moved.

use crate::counters::Counter;
use crate::machine::CpuMask;
use crate::topology::CpuId;

macro_rules! kinds {
    ($( $(#[doc = $doc:literal])* $v:ident => $name:literal, )*) => {
        /// What a micro-step did.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EventKind { $( $(#[doc = $doc])* $v, )* }

        impl EventKind {
            /// Every kind.
            pub const ALL: &'static [EventKind] = &[$(EventKind::$v,)*];
            /// Stable name (scenario `event =` anchors, UI colours).
            pub const fn name(self) -> &'static str {
                match self { $(EventKind::$v => $name,)* }
            }
        }
    };
}

kinds! {
    /// A thread starts its next workload operation.
    OpStart => "op_start",
    /// A user access hit the TLB.
    Access => "access",
    /// A user access missed the TLB.
    TlbMiss => "tlb_miss",
    /// The MMU walked the page table.
    PageWalk => "page_walk",
    /// A page fault entered the kernel.
    FaultEntry => "fault_entry",
    /// First-touch allocation.
    AnonFault => "anon_fault",
    /// A file page already in the page cache is mapped.
    FileFault => "file_fault",
    /// A PTE lock was taken.
    PtlLock => "ptl_lock",
    /// A PTE lock was released.
    PtlUnlock => "ptl_unlock",
    /// A CPU found a lock held and waits.
    LockWait => "lock_wait",
    /// A PTE was written.
    PteUpdate => "pte_update",
    /// A NUMA hint fault was counted.
    HintFault => "hint_fault",
    /// The migrate/no-migrate decision.
    MigrateDecision => "migrate_decision",
    /// Page isolated from the LRU (or not).
    Isolate => "isolate",
    /// A destination page was allocated.
    AllocPage => "alloc_page",
    /// Page lock taken.
    PageLock => "page_lock",
    /// A PTE was cleared for unmapping, with the flush decision.
    PteClear => "pte_clear",
    /// The initiating CPU flushed its own TLB.
    FlushLocal => "flush_local",
    /// Shootdown IPIs were sent.
    IpiSend => "ipi_send",
    /// A CPU handled a shootdown IPI.
    IpiRecv => "ipi_recv",
    /// The initiator saw every acknowledgement.
    IpiAcked => "ipi_acked",
    /// A migration entry was installed.
    MigrationEntry => "migration_entry",
    /// Page contents copied to the new page.
    MigrateCopy => "migrate_copy",
    /// Migration entries replaced by real PTEs.
    RemoveMigrationPtes => "remove_migration_ptes",
    /// Migration finished successfully.
    MigrateDone => "migrate_done",
    /// Migration gave up.
    MigrateFail => "migrate_fail",
    /// `task_numa_fault` bookkeeping.
    NumaFaultAccount => "numa_fault_account",
    /// A NUMA scan started.
    ScanStart => "scan_start",
    /// The scanner turned a PTE PROT_NONE.
    ScanPte => "scan_pte",
    /// The scanner skipped a PTE.
    ScanSkip => "scan_skip",
    /// A NUMA scan finished.
    ScanEnd => "scan_end",
    /// A thread went to sleep (lazy TLB).
    Sleep => "sleep",
    /// A thread woke up.
    Wake => "wake",
    /// A thread finished its operations.
    Exit => "exit",
    /// Waiting for a page under migration.
    MigrationWait => "migration_wait",
    /// A line that calls another modelled function.
    Call => "call",
    /// A function returns to its caller.
    Return => "return",
    /// `task_work` runs on the way back to user space.
    TaskWork => "task_work",
    /// The scheduler switches tasks on a CPU.
    Switch => "context_switch",
    /// A user thread finishes computing.
    ComputeDone => "compute_done",
    /// `fork`: a VMA is duplicated, or the child is placed on a CPU.
    Fork => "fork",
    /// `copy_pte_range` copies a PTE into the child (write-protecting a COW page).
    PteCopy => "pte_copy",
    /// `wp_page_copy`: a write to a shared COW page gets its own copy.
    CowCopy => "cow_copy",
    /// `wp_page_reuse`: a write to a COW page nobody else maps reuses it in place.
    CowReuse => "cow_reuse",
    /// Load balancing moves a queued task to another CPU.
    TaskMigrate => "task_migrate",
}

/// "No cause": the event runs in a task's base frame (its workload) or the scheduler.
pub use crate::core::frame::NO_CAUSE;

/// One micro-step as recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Step index (0-based); the state after it is frame `step + 1`.
    pub step: u64,
    /// Simulated time the step started, in ns.
    pub time_ns: u64,
    /// CPU that acted.
    pub cpu: CpuId,
    /// Task that acted (its index).
    pub task: u16,
    /// Kind.
    pub kind: EventKind,
    /// Kernel function.
    pub function: &'static str,
    /// Listing line id.
    pub line: &'static str,
    /// Step of the event that started the frame this one runs in ([`NO_CAUSE`]: none).
    pub cause: u64,
    /// One sentence.
    pub narration: String,
    /// `(pid, vpn)` PTEs touched.
    pub ptes: Vec<(u16, u32)>,
    /// Frames touched.
    pub pfns: Vec<u32>,
    /// Other CPUs involved.
    pub cpus: Vec<CpuId>,
    /// Counter changes.
    pub deltas: Vec<(Counter, i64)>,
}

/// What a step reports. Built on every step, so it holds nothing on the heap unless
/// narration is on (`text` stays an empty `String`, which does not allocate).
#[derive(Debug, Default)]
pub struct Ev {
    /// Kind.
    pub kind: Option<EventKind>,
    /// Function.
    pub function: &'static str,
    /// Line id.
    pub line: &'static str,
    /// Narration (empty when not recording).
    pub text: String,
    /// PTE touched.
    pub pte: Option<(u16, u32)>,
    /// Frames touched.
    pub pfns: [Option<u32>; 2],
    /// CPUs involved.
    pub cpus: CpuMask,
}

impl Ev {
    /// A new event of `kind` in `function` at `line`.
    pub fn new(kind: EventKind, function: &'static str, line: &'static str) -> Self {
        Ev {
            kind: Some(kind),
            function,
            line,
            ..Ev::default()
        }
    }

    /// Sets the narration.
    pub fn say(mut self, text: String) -> Self {
        self.text = text;
        self
    }

    /// Adds the PTE touched.
    pub fn pte(mut self, pid: u16, vpn: u32) -> Self {
        self.pte = Some((pid, vpn));
        self
    }

    /// Adds a frame touched.
    pub fn pfn(mut self, pfn: u32) -> Self {
        if self.pfns[0].is_none() {
            self.pfns[0] = Some(pfn);
        } else {
            self.pfns[1] = Some(pfn);
        }
        self
    }

    /// Sets the other CPUs involved.
    pub fn cpus(mut self, m: CpuMask) -> Self {
        self.cpus = m;
        self
    }
}
