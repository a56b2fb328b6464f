//! mmviz engine: a deterministic, step-by-step model of what the Linux memory manager
//! does on a NUMA machine — NUMA hint faults, page migration, per-CPU TLBs and
//! TLB-shootdown IPIs — with a toggle per kernel patch.
//!
//! Modules mirror the kernel's files (`mm/memory.rs` holds `do_numa_page`,
//! `arch/x86/mm/tlb.rs` holds `flush_tlb_mm_range`). The engine is pure: no I/O, no
//! clock, no platform types; the wasm bindings and the `mmviz` CLI sit on top.

pub mod arch;
pub mod builtin;
pub mod core;
pub mod costs;
pub mod counters;
pub mod diverge;
pub mod engine;
pub mod explore;
pub mod fuzzing;
pub mod invariants;
pub mod kernel;
pub mod knobs;
pub mod lecture;
pub mod limits;
pub mod listings;
pub mod lscpu;
pub mod machine;
pub mod mech;
pub mod mm;
pub mod numactl;
pub mod paste;
pub mod patches;
pub mod profile;
pub mod registry;
pub mod run;
pub mod scenario;
pub mod simulation;
pub mod testkit;
pub mod topology;
pub mod trace;
pub mod view;
pub mod vmstat;
pub mod zoneinfo;

pub use simulation::{Error, Simulation};
