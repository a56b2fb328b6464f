//! `mm/`: the core memory-management paths, one module per kernel file.
pub mod gfp;
pub mod huge_memory;
pub mod memory;
pub mod mempolicy;
pub mod migrate;
pub mod mmap;
pub mod mprotect;
pub mod mremap;
pub mod page_alloc;
pub mod page_writeback;
pub mod pcp_workload;
pub mod pgtable_generic;
pub mod rmap;
pub mod truncate;
pub mod vmstat;
