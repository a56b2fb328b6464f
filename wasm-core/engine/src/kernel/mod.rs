//! `kernel/`.
pub mod sched;
