//! The machine as plain data: page frames, page tables, mms and their VMAs, reverse-map
//! roots, tasks, CPUs and TLBs. Nothing here knows a kernel function; everything is
//! `Clone` for checkpoints, and the large arrays are copy-on-write chunks.

pub mod access_index;
pub mod cpu;
pub mod cpumask;
pub mod mm;
pub mod page;
pub mod pgtable;
pub mod pte;
pub mod task;
pub mod tlb;

pub use cpu::{Cpu, Ipi, Wait};
pub use cpumask::CpuMask;
pub use mm::{Mm, RmapKind, RmapRoot, Vma};
pub use page::{pg, Frames, Page, CPUPID_UNSET, NO_MAPPING};
pub use pte::Pte;
pub use task::{KthreadKind, Launch, NumaStats, SchedEntity, Task, TaskKind, TaskState};
pub use tlb::{Doom, Tlb, TlbEntry, FLUSH_ALL};
