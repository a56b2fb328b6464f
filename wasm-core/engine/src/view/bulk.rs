//! Per-step bulk state (PTEs, frames, TLB entries) as flat arrays, filled straight from
//! the engine state into reusable buffers: no per-PTE allocation, no per-PTE JS object.
//! The layout (names and bits) is `web/src/engine/bulk.ts`'s `FrameBulk`.
//!
//! A view of a large machine is windowed: [`FrameWindow`] picks which PTEs and frames go
//! into the arrays (by default at most [`DEFAULT_WINDOW`] of each) and [`BulkWindow`]
//! tells the UI what part of the whole that is. Nothing is dropped without saying so.

use crate::engine::Sim;
use crate::machine::pg;
use serde::{Deserialize, Serialize};

/// PTEs / frames in the arrays when the caller does not say how many.
pub const DEFAULT_WINDOW: u32 = 65_536;
/// The most PTEs / frames one call may ask for.
pub const MAX_WINDOW: u32 = 1 << 20;

/// `pte_flags` bits 0-1: no PTE.
pub const PTE_NONE: u8 = 0;
/// `pte_flags` bits 0-1: present.
pub const PTE_PRESENT: u8 = 1;
/// `pte_flags` bits 0-1: PROT_NONE (a NUMA hint).
pub const PTE_PROTNONE: u8 = 2;
/// `pte_flags` bits 0-1: a migration entry.
pub const PTE_MIGRATION: u8 = 3;
/// `pte_flags`: writable.
pub const PTE_WRITE: u8 = 1 << 2;
/// `pte_flags`: dirty.
pub const PTE_DIRTY: u8 = 1 << 3;
/// `pte_flags`: accessed.
pub const PTE_ACCESSED: u8 = 1 << 4;

/// `frame_flags` bits 0-1: free.
pub const FRAME_FREE: u8 = 0;
/// `frame_flags` bits 0-1: mapped (or otherwise in use).
pub const FRAME_MAPPED: u8 = 1;
/// `frame_flags` bits 0-1: isolated for migration.
pub const FRAME_ISOLATED: u8 = 2;
/// `frame_flags` bits 0-1: the destination of a migration.
pub const FRAME_MIGRATING: u8 = 3;
/// `frame_flags`: locked.
pub const FRAME_LOCKED: u8 = 1 << 2;
/// `frame_flags`: dirty.
pub const FRAME_DIRTY: u8 = 1 << 3;
/// `frame_map_pid` of a frame no PTE maps.
pub const NO_PID: u16 = 0xFFFF;

/// `tlb_flags`: writable.
pub const TLB_WRITE: u8 = 1;
/// `tlb_flags`: dirty.
pub const TLB_DIRTY: u8 = 1 << 1;

/// Which PTEs and frames a frame view carries. Every field is optional (JS may pass
/// `undefined`, `null` or `{}`): by default the first [`DEFAULT_WINDOW`] PTEs of all
/// processes and the first [`DEFAULT_WINDOW`] frames. (In TypeScript every field is
/// optional: `pid?: number`.)
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FrameWindow {
    /// Only the PTEs of this process.
    pub pid: Option<u16>,
    /// Only PTEs with vpn >= this.
    pub vpn_start: Option<u32>,
    /// Only PTEs with vpn < this.
    pub vpn_end: Option<u32>,
    /// Skip this many PTEs of the selection (ordered by pid, then vpn).
    pub pte_offset: Option<u32>,
    /// At most this many PTEs.
    pub pte_count: Option<u32>,
    /// First pfn.
    pub pfn_start: Option<u32>,
    /// At most this many frames.
    pub pfn_count: Option<u32>,
}

/// What part of the whole is in the arrays: `count` items from index `offset` of `total`.
/// For PTEs the whole is every PTE of every VMA the window's pid / vpn range selects
/// (all processes' when it selects none); for frames, every frame, and `offset` is a pfn.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BulkWindow {
    /// Items in the whole.
    pub total: u32,
    /// Index of the first item in the arrays.
    pub offset: u32,
    /// Items in the arrays.
    pub count: u32,
}

/// The arrays; see `web/src/engine/bulk.ts` for the layout. Reused from call to call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameBulk {
    /// Pid of each PTE (PTEs ordered by pid, then vpn).
    pub pte_pid: Vec<u16>,
    /// Vpn of each PTE.
    pub pte_vpn: Vec<u32>,
    /// Pfn of each PTE (0 when it has none).
    pub pte_pfn: Vec<u32>,
    /// Bits 0-1 kind, bit 2 write, bit 3 dirty, bit 4 accessed.
    pub pte_flags: Vec<u8>,
    /// Pfn of each frame (increasing, contiguous).
    pub frame_pfn: Vec<u32>,
    /// Node of each frame.
    pub frame_node: Vec<u8>,
    /// Bits 0-1 state, bit 2 locked, bit 3 dirty.
    pub frame_flags: Vec<u8>,
    /// Pid of the first mapping the rmap walk finds, or [`NO_PID`].
    pub frame_map_pid: Vec<u16>,
    /// Vpn of that mapping (0 when none).
    pub frame_map_vpn: Vec<u32>,
    /// CPU c's TLB entries are `[tlb_cpu_start[c], tlb_cpu_start[c + 1])` (one more than CPUs).
    pub tlb_cpu_start: Vec<u32>,
    /// Pid of each TLB entry.
    pub tlb_pid: Vec<u16>,
    /// Vpn of each TLB entry.
    pub tlb_vpn: Vec<u32>,
    /// Pfn of each TLB entry.
    pub tlb_pfn: Vec<u32>,
    /// Bit 0 write, bit 1 dirty.
    pub tlb_flags: Vec<u8>,
}

/// `count`, or the default, checked against [`MAX_WINDOW`].
fn window_count(count: Option<u32>, what: &str) -> Result<u32, String> {
    match count {
        None => Ok(DEFAULT_WINDOW),
        Some(c) if c > MAX_WINDOW => Err(format!("a frame view holds at most {MAX_WINDOW} {what}, not {c}")),
        Some(c) => Ok(c),
    }
}

/// The part of `[start, end)` inside `[lo, hi)`, as `(start, end)` with `start <= end`.
fn overlap(start: u32, end: u32, lo: u32, hi: u32) -> (u32, u32) {
    let a = start.max(lo);
    let b = end.min(hi);
    (a, b.max(a))
}

impl FrameBulk {
    /// Empties every array (keeping their capacity).
    pub fn clear(&mut self) {
        self.pte_pid.clear();
        self.pte_vpn.clear();
        self.pte_pfn.clear();
        self.pte_flags.clear();
        self.frame_pfn.clear();
        self.frame_node.clear();
        self.frame_flags.clear();
        self.frame_map_pid.clear();
        self.frame_map_vpn.clear();
        self.tlb_cpu_start.clear();
        self.tlb_pid.clear();
        self.tlb_vpn.clear();
        self.tlb_pfn.clear();
        self.tlb_flags.clear();
    }

    /// Bytes the arrays hold.
    pub fn byte_len(&self) -> usize {
        2 * (self.pte_pid.len() + self.frame_map_pid.len() + self.tlb_pid.len())
            + 4 * (self.pte_vpn.len()
                + self.pte_pfn.len()
                + self.frame_pfn.len()
                + self.frame_map_vpn.len()
                + self.tlb_cpu_start.len()
                + self.tlb_vpn.len()
                + self.tlb_pfn.len())
            + self.pte_flags.len()
            + self.frame_node.len()
            + self.frame_flags.len()
            + self.tlb_flags.len()
    }

    /// Fills the arrays from `sim`'s state for window `w`; returns the PTE and frame
    /// windows. A bad window is an error and leaves the arrays empty.
    pub fn fill(&mut self, sim: &Sim, w: &FrameWindow) -> Result<(BulkWindow, BulkWindow), String> {
        self.clear();
        let st = &sim.st;
        // Check the whole window before filling anything.
        if let Some(pid) = w.pid {
            if !st.mms.iter().any(|m| m.pid == pid) {
                return Err(format!("the frame window asks for pid {pid}, but there is no such process"));
            }
        }
        let (lo, hi) = (w.vpn_start.unwrap_or(0), w.vpn_end.unwrap_or(u32::MAX));
        if lo > hi {
            return Err(format!("the frame window's vpn range is backwards ({lo} > {hi})"));
        }
        let pte_count = window_count(w.pte_count, "PTEs")?;
        let pfn_count = window_count(w.pfn_count, "frames")?;
        let selected = |pid: u16| w.pid.is_none_or(|p| p == pid);
        let pte_total: u64 = st
            .mms
            .iter()
            .filter(|m| selected(m.pid))
            .flat_map(|m| m.vmas.iter())
            .map(|v| {
                let (a, b) = overlap(v.start, v.end(), lo, hi);
                u64::from(b - a)
            })
            .sum();
        let pte_total = u32::try_from(pte_total).map_err(|_| format!("{pte_total} PTEs are too many for a frame view"))?;
        let pte_offset = w.pte_offset.unwrap_or(0);
        if pte_offset > pte_total {
            return Err(format!(
                "the frame window starts at PTE {pte_offset}, but there are only {pte_total}"
            ));
        }
        let frames_total = st.frames.len();
        let pfn_start = w.pfn_start.unwrap_or(0);
        if pfn_start > frames_total {
            return Err(format!(
                "the frame window starts at pfn {pfn_start}, but there are only {frames_total} frames"
            ));
        }
        let ptes = BulkWindow {
            total: pte_total,
            offset: pte_offset,
            count: pte_count.min(pte_total - pte_offset),
        };
        let frames = BulkWindow {
            total: frames_total,
            offset: pfn_start,
            count: pfn_count.min(frames_total - pfn_start),
        };

        // PTEs: skip whole VMAs up to the offset, then walk vpns.
        let mut skip = ptes.offset;
        let mut left = ptes.count;
        self.pte_pid.reserve(left as usize);
        self.pte_vpn.reserve(left as usize);
        self.pte_pfn.reserve(left as usize);
        self.pte_flags.reserve(left as usize);
        'mms: for m in st.mms.iter().filter(|m| selected(m.pid)) {
            // In address order: mremap moves a VMA without changing its index.
            let mut vmas: Vec<&crate::machine::Vma> = m.vmas.iter().collect();
            vmas.sort_by_key(|v| v.start);
            for v in vmas {
                if left == 0 {
                    break 'mms;
                }
                let (a, b) = overlap(v.start, v.end(), lo, hi);
                let len = b - a;
                if skip >= len {
                    skip -= len;
                    continue;
                }
                let first = a + skip;
                skip = 0;
                let n = (b - first).min(left);
                left -= n;
                for vpn in first..first + n {
                    let p = m.pte(vpn);
                    let kind = if p.is_none() {
                        PTE_NONE
                    } else if p.is_migration() {
                        PTE_MIGRATION
                    } else if p.protnone() {
                        PTE_PROTNONE
                    } else {
                        PTE_PRESENT
                    };
                    let flags = kind
                        | if p.write() { PTE_WRITE } else { 0 }
                        | if p.dirty() { PTE_DIRTY } else { 0 }
                        | if p.accessed() { PTE_ACCESSED } else { 0 };
                    self.pte_pid.push(m.pid);
                    self.pte_vpn.push(vpn);
                    self.pte_pfn.push(if kind == PTE_NONE { 0 } else { p.pfn() });
                    self.pte_flags.push(flags);
                }
            }
        }

        // Frames.
        let n = frames.count as usize;
        self.frame_pfn.reserve(n);
        self.frame_node.reserve(n);
        self.frame_flags.reserve(n);
        self.frame_map_pid.reserve(n);
        self.frame_map_vpn.reserve(n);
        for pfn in frames.offset..frames.offset + frames.count {
            let p = st.frames.get(pfn);
            // The first mapping the rmap walk finds.
            let mapped_by = (p.mapcount > 0).then(|| st.roots.get(p.mapping as usize)).flatten().and_then(|r| {
                r.vmas.iter().find_map(|&(mm, vi)| {
                    let m = &st.mms[mm as usize];
                    let vpn = m.vmas[vi as usize].address_of(p)?;
                    let pte = m.pte(vpn);
                    (!pte.is_none() && !pte.is_migration() && pte.pfn() == pfn).then_some((m.pid, vpn))
                })
            });
            let state = if p.has(pg::FREE) {
                FRAME_FREE
            } else if p.has(pg::MIGRATE_DST) {
                FRAME_MIGRATING
            } else if p.has(pg::ISOLATED) {
                FRAME_ISOLATED
            } else {
                FRAME_MAPPED
            };
            self.frame_pfn.push(pfn);
            self.frame_node.push(sim.page_nid(pfn));
            self.frame_flags
                .push(state | if p.has(pg::LOCKED) { FRAME_LOCKED } else { 0 } | if p.has(pg::DIRTY) { FRAME_DIRTY } else { 0 });
            self.frame_map_pid.push(mapped_by.map_or(NO_PID, |(pid, _)| pid));
            self.frame_map_vpn.push(mapped_by.map_or(0, |(_, vpn)| vpn));
        }

        // TLBs: every CPU's, whole (bounded by `tlb_entries`).
        self.tlb_cpu_start.reserve(st.cpus.len() + 1);
        for c in &st.cpus {
            self.tlb_cpu_start.push(self.tlb_pid.len() as u32);
            for e in c.tlb.entries() {
                self.tlb_pid.push(st.mms[e.mm as usize].pid);
                self.tlb_vpn.push(e.vpn);
                self.tlb_pfn.push(e.pfn);
                self.tlb_flags
                    .push(if e.write { TLB_WRITE } else { 0 } | if e.dirty { TLB_DIRTY } else { 0 });
            }
        }
        self.tlb_cpu_start.push(self.tlb_pid.len() as u32);
        Ok((ptes, frames))
    }
}
