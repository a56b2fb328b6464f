//! Mechanism declarations: one file per mechanism saying what it brings to the engine
//! (frames, toggles, counters, event kinds, workload operations, listings, invariants,
//! views). The kernel functions themselves live in kernel-shaped modules (`mm/…`,
//! `kernel/…`, `arch/…`); `registry.rs` lists the mechanisms, one line each.

pub mod core;
pub mod fork;
pub mod migrate;
pub mod mremap;
pub mod numa;
pub mod numa_view;
pub mod page_alloc;
pub mod page_alloc_view;
pub mod thp;
pub mod writeback;
