//! `kernel/sched/`: run queues and context switches (`core.rs`), CFS's slices, picks and
//! wake-up placement (`fair.rs`), and NUMA balancing
//! (`numa.rs`, the NUMA half of `fair.c`, with its groups in `numa_group.rs`).
pub mod core;
pub mod fair;
pub mod numa;
pub mod numa_group;
pub mod numa_migrate;
