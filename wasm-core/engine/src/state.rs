//! Machine state: PTEs, page frames, mms, tasks and CPUs. Everything here is plain
//! data, `Clone` for checkpoints, and compact (a PTE is 8 bytes, a frame 12).

use crate::arch::x86::mm::tlb::Tlb;
use crate::scenario::{Fs, VmaKind};
use crate::topology::{CpuId, NodeId};
use std::collections::VecDeque;

/// A page-table entry, packed: flags in the low byte, pfn above.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pte(u64);

impl Pte {
    const PRESENT: u64 = 1;
    const PROTNONE: u64 = 2;
    const WRITE: u64 = 4;
    const DIRTY: u64 = 8;
    const ACCESSED: u64 = 16;
    const MIGRATION: u64 = 32;

    /// The empty PTE.
    pub const NONE: Pte = Pte(0);

    /// A present PTE.
    pub fn present(pfn: u32, write: bool, dirty: bool, accessed: bool) -> Pte {
        let mut v = Self::PRESENT | (u64::from(pfn) << 8);
        if write {
            v |= Self::WRITE;
        }
        if dirty {
            v |= Self::DIRTY;
        }
        if accessed {
            v |= Self::ACCESSED;
        }
        Pte(v)
    }

    /// A migration entry (non-present, swap-type) remembering write permission.
    pub fn migration(pfn: u32, write: bool) -> Pte {
        Pte(Self::MIGRATION | if write { Self::WRITE } else { 0 } | (u64::from(pfn) << 8))
    }

    /// `pte_none`.
    pub fn is_none(self) -> bool {
        self.0 == 0
    }
    /// Hardware-present (the MMU may use and cache it).
    pub fn hw_present(self) -> bool {
        self.0 & Self::PRESENT != 0
    }
    /// `pte_protnone`: a NUMA hint PTE.
    pub fn protnone(self) -> bool {
        self.0 & Self::PROTNONE != 0
    }
    /// A migration entry.
    pub fn is_migration(self) -> bool {
        self.0 & Self::MIGRATION != 0
    }
    /// `pte_write` (on x86 also the saved write bit of a protnone PTE).
    pub fn write(self) -> bool {
        self.0 & Self::WRITE != 0
    }
    /// `pte_dirty`.
    pub fn dirty(self) -> bool {
        self.0 & Self::DIRTY != 0
    }
    /// `pte_young`.
    pub fn accessed(self) -> bool {
        self.0 & Self::ACCESSED != 0
    }
    /// The frame.
    pub fn pfn(self) -> u32 {
        (self.0 >> 8) as u32
    }
    /// `pte_modify(pte, PAGE_NONE)`: not present to the MMU, pfn and write bit kept.
    pub fn mk_protnone(self) -> Pte {
        Pte((self.0 & !Self::PRESENT) | Self::PROTNONE)
    }
    /// `pte_modify(pte, vma->vm_page_prot)` + `pte_mkyoung`: present again, write if it was.
    pub fn mk_accessible(self) -> Pte {
        Pte((self.0 & !Self::PROTNONE) | Self::PRESENT | Self::ACCESSED)
    }
    /// Sets the accessed bit, and the dirty bit for a store (what the page walker does).
    pub fn mk_young(self, dirty: bool) -> Pte {
        Pte(self.0 | Self::ACCESSED | if dirty { Self::DIRTY } else { 0 })
    }
    /// Short name of the PTE's kind.
    pub fn kind_name(self) -> &'static str {
        if self.is_none() {
            "none"
        } else if self.is_migration() {
            "migration"
        } else if self.protnone() {
            "protnone"
        } else {
            "present"
        }
    }
}

/// Page flag bits.
pub mod pg {
    /// On the buddy free list.
    pub const FREE: u8 = 1;
    /// On an LRU list (isolatable).
    pub const LRU: u8 = 2;
    /// Isolated for migration.
    pub const ISOLATED: u8 = 4;
    /// `PG_locked`.
    pub const LOCKED: u8 = 8;
    /// `PG_dirty`.
    pub const DIRTY: u8 = 16;
    /// File-backed.
    pub const FILE: u8 = 32;
    /// Destination of a migration in progress.
    pub const MIGRATE_DST: u8 = 64;
}

/// "No cpupid recorded" (`page_cpupid_last` of a fresh page).
pub const CPUPID_UNSET: u32 = u32::MAX;
/// "Not mapped" in [`Page::map_mm`].
pub const NO_MM: u16 = u16::MAX;

/// A page frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// `pg::*` bits.
    pub flags: u8,
    /// Node (cached from the pfn layout).
    pub nid: NodeId,
    /// The one mapping's mm (rmap), or [`NO_MM`].
    pub map_mm: u16,
    /// The one mapping's vpn.
    pub map_vpn: u32,
    /// `page_cpupid_last`: cpu in the low 16 bits, pid above; [`CPUPID_UNSET`] if none.
    pub last_cpupid: u32,
}

impl Page {
    /// Tests a flag.
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// A VMA of an mm with its PTEs.
#[derive(Clone, Debug)]
pub struct Vma {
    /// First virtual page number.
    pub start: u32,
    /// Anon or file.
    pub kind: VmaKind,
    /// Filesystem (file VMAs).
    pub fs: Fs,
    /// One PTE per page.
    pub ptes: Vec<Pte>,
}

impl Vma {
    /// One past the last vpn.
    pub fn end(&self) -> u32 {
        self.start + self.ptes.len() as u32
    }
}

/// A set of CPUs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuMask(Vec<u64>);

impl CpuMask {
    /// An empty mask for `n` CPUs.
    pub fn new(n: usize) -> Self {
        CpuMask(vec![0; n.div_ceil(64)])
    }
    /// Adds a CPU.
    pub fn set(&mut self, c: CpuId) {
        self.0[c as usize / 64] |= 1 << (c % 64);
    }
    /// Removes a CPU.
    pub fn clear(&mut self, c: CpuId) {
        self.0[c as usize / 64] &= !(1 << (c % 64));
    }
    /// Membership.
    pub fn test(&self, c: CpuId) -> bool {
        self.0[c as usize / 64] & (1 << (c % 64)) != 0
    }
    /// Members in order.
    pub fn iter(&self) -> impl Iterator<Item = CpuId> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(w, &bits)| (0..64).filter(move |b| bits & (1 << b) != 0).map(move |b| (w * 64 + b) as CpuId))
    }
}

/// An address space.
#[derive(Clone, Debug)]
pub struct Mm {
    /// Process id (index + 1).
    pub pid: u16,
    /// `mm_cpumask`.
    pub cpumask: CpuMask,
    /// `context.tlb_gen`.
    pub tlb_gen: u64,
    /// `tlb_flush_pending`: a PROT_NONE change whose flush has not finished.
    pub flush_pending: u32,
    /// VMAs in address order.
    pub vmas: Vec<Vma>,
    /// `numa_next_scan` (ns of simulated time).
    pub numa_next_scan: u64,
    /// `numa_scan_offset` as (vma index, page index).
    pub scan_offset: (u16, u32),
    /// `numa_scan_seq`.
    pub numa_scan_seq: u32,
}

impl Mm {
    /// VMA index and page index of `vpn`.
    pub fn find_vma(&self, vpn: u32) -> Option<(usize, usize)> {
        self.vmas
            .iter()
            .position(|v| vpn >= v.start && vpn < v.end())
            .map(|i| (i, (vpn - self.vmas[i].start) as usize))
    }

    /// The PTE for `vpn` (none outside VMAs).
    pub fn pte(&self, vpn: u32) -> Pte {
        self.find_vma(vpn).map_or(Pte::NONE, |(v, i)| self.vmas[v].ptes[i])
    }

    /// Writes the PTE for `vpn` (ignored outside VMAs, which validation prevents).
    pub fn set_pte(&mut self, vpn: u32, pte: Pte) {
        if let Some((v, i)) = self.find_vma(vpn) {
            self.vmas[v].ptes[i] = pte;
        }
    }
}

/// What a thread is in the middle of, in its workload.
#[derive(Clone, Debug, Default)]
pub struct OpCursor {
    /// Index of the current operation.
    pub op: usize,
    /// Progress inside it (pages touched, repeats done, random accesses done).
    pub done: u64,
    /// Whether the `op_start` step of the current operation has happened.
    pub started: bool,
}

/// Per-task NUMA statistics (`task_numa_fault`).
#[derive(Clone, Debug, Default)]
pub struct NumaStats {
    /// `numa_faults_locality[local, remote, failed]`.
    pub locality: [u64; 3],
}

/// A thread.
#[derive(Clone, Debug)]
pub struct Task {
    /// mm index.
    pub mm: u16,
    /// Thread index in the process.
    pub tid: u16,
    /// Pinned CPU.
    pub cpu: CpuId,
    /// Workload position.
    pub cursor: OpCursor,
    /// NUMA stats.
    pub numa: NumaStats,
}

/// A shootdown IPI waiting in a CPU's inbox.
#[derive(Clone, Copy, Debug)]
pub struct Ipi {
    /// Sender.
    pub from: CpuId,
    /// The mm to flush.
    pub mm: u16,
    /// First vpn.
    pub start: u32,
    /// Pages, or [`FLUSH_ALL`].
    pub pages: u32,
    /// Arrival time.
    pub arrive: u64,
}

/// "Flush everything" for a page count.
pub const FLUSH_ALL: u32 = u32::MAX;

/// Why a CPU cannot run its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Runnable.
    None,
    /// Waiting for `pending` IPI acknowledgements; the last arrived at `last`.
    Acks {
        /// Outstanding.
        pending: u16,
        /// Time of the latest ack.
        last: u64,
    },
    /// Spinning on a PTE lock.
    Ptl {
        /// mm.
        mm: u16,
        /// PMD index (vpn / 512).
        pmd: u32,
    },
    /// Sleeping on a page lock (`migration_entry_wait`).
    PageLock(u32),
    /// Sleeping until a time.
    Sleep(u64),
    /// Running user code (not lazy) until a time; IPIs are taken meanwhile.
    Compute(u64),
}

/// A CPU.
#[derive(Clone, Debug)]
pub struct Cpu {
    /// Id.
    pub id: CpuId,
    /// Node.
    pub node: NodeId,
    /// Local clock (ns).
    pub clock: u64,
    /// Task pinned here, if any.
    pub task: Option<u16>,
    /// Whether that task is running (not asleep / exited).
    pub running: bool,
    /// `cpu_tlbstate.loaded_mm` (mm index).
    pub loaded_mm: Option<u16>,
    /// `cpu_tlbstate.is_lazy`.
    pub lazy: bool,
    /// The mm generation this TLB is up to date with.
    pub seen_gen: u64,
    /// The TLB.
    pub tlb: Tlb,
    /// What the CPU is doing.
    pub flow: crate::engine::Flow,
    /// A `flush_tlb_mm_range` in progress, nested in `flow`.
    pub flush: Option<crate::arch::x86::mm::tlb::FlushOp>,
    /// Blocked on what.
    pub wait: Wait,
    /// Shootdown IPIs not handled yet, in arrival order.
    pub inbox: VecDeque<Ipi>,
}
