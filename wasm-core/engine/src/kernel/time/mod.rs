//! `kernel/time/`: timers.
pub mod hrtimer;
