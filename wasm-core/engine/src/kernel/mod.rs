//! `kernel/`: the scheduler and the user/kernel boundary.
pub mod entry;
pub mod fork;
pub mod kthread;
pub mod sched;
pub mod time;
