//! `kernel/sched/`: run queues and context switches (`core.rs`) and NUMA balancing
//! (`numa.rs`, the NUMA half of `fair.c`).
pub mod core;
pub mod numa;
