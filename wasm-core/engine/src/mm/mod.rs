//! `mm/`: the core memory-management paths, one module per kernel file.
pub mod memory;
pub mod mempolicy;
pub mod migrate;
pub mod mprotect;
pub mod page_alloc;
pub mod pcp_workload;
pub mod pgtable_generic;
pub mod rmap;
