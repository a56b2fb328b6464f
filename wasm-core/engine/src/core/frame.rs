//! The frame protocol: every modelled kernel function is a frame (its locals and a
//! program counter that is a line of its listing) on a per-task stack. One step runs one
//! line of the top frame and says what happens next.

use super::lock::LockId;
use crate::topology::NodeId;

/// What a step of a frame asks the core to do next.
#[derive(Clone, Debug)]
pub enum Flow<F> {
    /// Run this frame's next line (its pc) on the next step.
    Continue,
    /// Push a callee; its first line runs on the next step, then the caller gets its
    /// return value through `resume`.
    Call(F),
    /// Pop this frame and hand the value to the caller.
    Return(Ret),
    /// Hold the task until something happens; the same frame runs its pc afterwards.
    Block(Until),
}

/// What a blocked task waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// A spinlock: the CPU spins (its time is lost) until the holder releases it.
    Lock(LockId),
    /// Every IPI this CPU sent has been acknowledged.
    Acks,
    /// A page is unlocked (`wait_on_page_locked`).
    PageUnlocked(u32),
    /// User code runs until this time; interrupts are taken meanwhile.
    Busy(u64),
    /// The task sleeps until this time: the CPU schedules another task or idles.
    Sleep(u64),
    /// The task gives the CPU up but stays runnable (`sched_yield`, or its slice is over).
    Resched,
    /// The task moves to this CPU's run queue (the migration stopper's
    /// `__migrate_task`): this CPU schedules another task or idles.
    Migrate(crate::topology::CpuId),
    /// The task changes places with its `migrate_swap` partner (`Task::swap_with`): both
    /// move now, or this CPU's stopper waits for the partner's CPU
    /// (`kernel::sched::core::migrate_swap`).
    Swap,
    /// The task exits (`do_exit`).
    Exit,
    /// The task sleeps until something wakes it (`set_current_state(TASK_INTERRUPTIBLE)`;
    /// `schedule()`, as a kernel thread with nothing to do; `wake_up_process` ends it).
    Wake,
}

/// A value a callee returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    /// `void`.
    Unit,
    /// A boolean result (`migrate_misplaced_page`'s "migrated").
    Bool(bool),
    /// A node or `NUMA_NO_NODE`.
    Node(Option<NodeId>),
    /// A count (pages changed).
    Count(u32),
    /// A PTE value (`ptep_clear_flush` returns the one it cleared).
    Pte(crate::machine::Pte),
    /// The task was woken from a sleep.
    Woken,
    /// A fault handler's result other than "handled" (the kernel's `vm_fault_t` bits).
    Fault(VmFault),
}

/// What a fault handler asks of its caller (`handle_pte_fault` / `__handle_mm_fault`) when
/// it did not handle the fault (a handled fault returns [`Ret::Unit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VmFault {
    /// `VM_FAULT_FALLBACK`: the huge-page handler could not map a huge page; take the
    /// 4 KiB path.
    Fallback,
    /// The PTE changed while the handler waited for its lock: look at it again (the
    /// kernel returns 0 and the access faults again; the model classifies at once).
    Retry,
}

impl Ret {
    /// The boolean inside, `false` for other shapes.
    pub fn as_bool(self) -> bool {
        matches!(self, Ret::Bool(true))
    }
    /// The node inside.
    pub fn as_node(self) -> Option<NodeId> {
        match self {
            Ret::Node(n) => n,
            _ => None,
        }
    }
    /// The count inside, 0 for other shapes.
    pub fn as_count(self) -> u32 {
        match self {
            Ret::Count(n) => n,
            _ => 0,
        }
    }
}

/// The cause of a frame nothing pushed (a task's base frame).
pub const NO_CAUSE: u64 = u64::MAX;

/// A task's stack: frames with the step of the event that pushed each (its cause).
/// Capacity is reserved up front, so pushing and popping never allocates once warm.
#[derive(Clone, Debug)]
pub struct Stack<F> {
    frames: Vec<(F, u64)>,
}

/// Frames a stack holds without growing (the deepest modelled chain is about 12).
pub const STACK_RESERVE: usize = 24;

impl<F> Default for Stack<F> {
    /// An empty stack (a placeholder while a task's stack is taken out to step it).
    fn default() -> Self {
        Stack { frames: Vec::new() }
    }
}

impl<F> Stack<F> {
    /// The top frame with its cause, mutably.
    pub fn top_entry_mut(&mut self) -> Option<(&mut F, u64)> {
        self.frames.last_mut().map(|(f, c)| (f, *c))
    }

    /// A stack with `base` at the bottom.
    pub fn new(base: F) -> Self {
        let mut frames = Vec::with_capacity(STACK_RESERVE);
        frames.push((base, NO_CAUSE));
        Stack { frames }
    }
    /// Pushes `f`, caused by the event at step `cause`.
    pub fn push(&mut self, f: F, cause: u64) {
        self.frames.push((f, cause));
    }
    /// Pops the top frame.
    pub fn pop(&mut self) -> Option<(F, u64)> {
        self.frames.pop()
    }
    /// The top frame, mutably.
    pub fn top_mut(&mut self) -> Option<&mut F> {
        self.frames.last_mut().map(|(f, _)| f)
    }
    /// Frames from the bottom up.
    pub fn iter(&self) -> impl Iterator<Item = &F> + '_ {
        self.frames.iter().map(|(f, _)| f)
    }
    /// Depth.
    pub fn len(&self) -> usize {
        self.frames.len()
    }
    /// Whether the stack is empty.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}
