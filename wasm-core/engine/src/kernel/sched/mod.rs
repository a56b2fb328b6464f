//! `kernel/sched/`: the NUMA-balancing half of the scheduler.
pub mod numa;
