//! The engine core, which knows no kernel function: the frame protocol, locks with
//! accounting, and the ready queue that orders CPUs by simulated time.

pub mod chunked;
pub mod frame;
pub mod lock;
pub mod readyq;

pub use chunked::ChunkedVec;
pub use frame::{Flow, Ret, Stack, Until};
pub use lock::{LockClass, LockId, LockStats, Locks, WakePolicy};
pub use readyq::ReadyQueue;
