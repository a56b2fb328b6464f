//! The engine core, which knows no kernel function: the frame protocol, locks with
//! accounting, the ready queue that orders CPUs by simulated time, and schedules that override that
//! order at named steps.

pub mod chunked;
pub mod frame;
pub mod lock;
pub mod readyq;
pub mod schedule;

pub use chunked::ChunkedVec;
pub use frame::{Flow, Ret, Stack, Until, VmFault};
pub use lock::{LockClass, LockId, LockStats, Locks, WakePolicy};
pub use readyq::ReadyQueue;
pub use schedule::Schedule;
