//! `kernel/sched/`: run queues and context switches (`core.rs`) and NUMA balancing
//! (`numa.rs`, the NUMA half of `fair.c`, with its groups in `numa_group.rs`).
pub mod core;
pub mod numa;
pub mod numa_group;
pub mod numa_migrate;
