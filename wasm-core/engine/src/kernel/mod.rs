//! `kernel/`: the scheduler and the user/kernel boundary.
pub mod entry;
pub mod sched;
pub mod time;
