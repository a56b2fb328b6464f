//! NUMA balancing in the scheduler (`kernel/sched/fair.c`): `task_numa_work`,
//! `should_numa_migrate_memory`, `task_numa_fault`.
//!
//! Follows Linux v5.12 in shape. Kept from the v1 model until the NUMA-fidelity work
//! replaces them (they change published numbers, so they move with that work): the scan
//! period is a fixed knob (no `task_scan_min`/`task_scan_max`, no adaptive period); the
//! cpupid uses the process pid (the kernel uses the thread's); `task_numa_fault`'s
//! locality slots are indexed local = 0, remote = 1; no numa_group statistics or task
//! placement.

use crate::core::{Flow, Ret};
use crate::engine::{say, Sim};
use crate::machine::CPUPID_UNSET;
use crate::mech::core::ev as core_ev;
use crate::mech::numa::ev as numa_ev;
use crate::mm::mprotect::ChangeProtNuma;
use crate::registry::{Frame, Function};
use crate::topology::{CpuId, NodeId};
use crate::trace::Ev;

/// `should_numa_migrate_memory`: returns (verdict, listing line, reason).
pub(crate) fn should_numa_migrate_memory(sim: &mut Sim, cpu: CpuId, pfn: u32) -> (bool, &'static str, String) {
    let mm = sim.cpu_mm(cpu);
    let pid = u32::from(sim.st.mms[mm as usize].pid);
    let this = (pid << 16) | u32::from(cpu);
    let last = std::mem::replace(&mut sim.st.frames.get_mut(pfn).last_cpupid, this);
    let dst = sim.cpu_node(cpu);
    let unset = last == CPUPID_UNSET;
    let same_pid = !unset && last >> 16 == pid;
    if sim.st.mms[mm as usize].numa_scan_seq <= 4 && (unset || same_pid) {
        return (
            true,
            "S2",
            say!(sim, "early in the task's life and no other task touched the page last"),
        );
    }
    if !unset {
        let last_nid = sim.cpu_node((last & 0xffff) as CpuId);
        if last_nid != dst {
            return (
                false,
                "S3",
                say!(
                    sim,
                    "the previous hint fault came from node {last_nid}, not {dst}: two-stage filter says wait"
                ),
            );
        }
    }
    (true, "S4", say!(sim, "two consecutive faults from node {dst}"))
}

/// `task_numa_fault(last_cpupid, node, pages, flags)`: record the fault's locality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskNumaFault {
    nid: NodeId,
    migrated: Option<bool>,
    vpn: u32,
}

impl TaskNumaFault {
    /// A fault accounted to node `nid`; `migrated` is the outcome if migration was tried.
    pub fn frame(nid: NodeId, migrated: Option<bool>, vpn: u32) -> Frame {
        Frame::from(TaskNumaFault { nid, migrated, vpn })
    }
}

impl Function for TaskNumaFault {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let here = sim.cpu_node(cpu);
        sim.charge(cpu, sim.cfg.costs.numa_account_ns);
        let t = sim.st.cpus[cpu as usize].curr as usize;
        let loc = &mut sim.st.tasks[t].numa.locality;
        loc[usize::from(self.nid != here)] += 1;
        if self.migrated == Some(false) {
            loc[2] += 1;
        }
        let outcome = match self.migrated {
            Some(true) => "migrated",
            Some(false) => "migration failed",
            None => "not migrated",
        };
        let ev = Ev::new(numa_ev::NUMA_FAULT_ACCOUNT, "task_numa_fault", "Q1")
            .pte(pid, self.vpn)
            .say(say!(
                sim,
                "task_numa_fault: thread {} records a {} fault on node {} ({outcome})",
                sim.task_name(cpu),
                if self.nid == here { "local" } else { "remote" },
                self.nid
            ));
        (ev, Flow::Return(Ret::Unit))
    }
}

/// What a `task_numa_work` pass covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Window {
    /// The periodic scan: `scan_size_pages` from `numa_scan_offset`.
    Auto,
    /// An explicit `scan` operation: one VMA, or all of them.
    Explicit(Option<u16>),
}

/// Where a pass is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tnw {
    Start,
    Next,
    Done,
}

/// `task_numa_work`: mark the next window of the mm PROT_NONE, one `change_prot_numa`
/// call per VMA piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskNumaWork {
    window: Window,
    pc: Tnw,
    /// The next piece starts at page `off` of VMA `vi`.
    vi: u16,
    off: u32,
    /// Pages left in the window.
    left: u32,
    /// Last VMA of the window (explicit scans).
    last_vi: u16,
}

impl TaskNumaWork {
    /// The periodic pass.
    pub fn auto() -> Frame {
        Frame::from(Self::new(Window::Auto))
    }

    /// An explicit pass over one VMA or all.
    pub fn explicit(vma: Option<u16>) -> Frame {
        Frame::from(Self::new(Window::Explicit(vma)))
    }

    fn new(window: Window) -> Self {
        TaskNumaWork {
            window,
            pc: Tnw::Start,
            vi: 0,
            off: 0,
            left: 0,
            last_vi: 0,
        }
    }

    /// The next VMA piece of the window, as a vpn range.
    fn next_range(&mut self, sim: &Sim, mm: u16) -> Option<(u32, u32)> {
        let vmas = &sim.st.mms[mm as usize].vmas;
        while self.left > 0 && (self.vi as usize) < vmas.len() && self.vi <= self.last_vi {
            let v = &vmas[self.vi as usize];
            let n = (v.pages - self.off).min(self.left);
            let range = (v.start + self.off, v.start + self.off + n);
            self.left -= n;
            self.off += n;
            if self.off >= v.pages {
                self.vi += 1;
                self.off = 0;
            }
            if n > 0 {
                return Some(range);
            }
        }
        None
    }

    fn done(&mut self, sim: &Sim) -> (Ev, Flow<Frame>) {
        let ev =
            Ev::new(numa_ev::SCAN_END, "task_numa_work", "TN4").say(say!(sim, "task_numa_work is done; the thread returns to user space"));
        (ev, Flow::Return(Ret::Unit))
    }
}

impl Function for TaskNumaWork {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "task_numa_work";
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        match self.pc {
            Tnw::Start => {
                sim.charge(cpu, sim.cfg.costs.numa_work_ns);
                let nvmas = sim.st.mms[mm as usize].vmas.len() as u16;
                let text;
                match self.window {
                    Window::Explicit(v) => {
                        (self.vi, self.last_vi) = match v {
                            Some(v) => (v, v),
                            None => (0, nvmas.saturating_sub(1)),
                        };
                        self.left = u32::MAX;
                        let pages: u32 = sim.st.mms[mm as usize].vmas[self.vi as usize..=self.last_vi as usize]
                            .iter()
                            .map(|v| v.pages)
                            .sum();
                        text = say!(
                            sim,
                            "task_numa_work on CPU {cpu}: the NUMA scanner of mm {pid} marks {pages} page(s) PROT_NONE so that the next access traps"
                        );
                    }
                    Window::Auto => {
                        let budget = sim.cfg.knobs.scan_size_pages;
                        let m = &mut sim.st.mms[mm as usize];
                        (self.vi, self.off) = m.scan_offset;
                        self.left = budget;
                        self.last_vi = u16::MAX;
                        // Advance numa_scan_offset past the window now, as the kernel
                        // does before it starts changing PTEs.
                        let (mut vi, mut off, mut left) = (self.vi, self.off, budget);
                        while left > 0 && (vi as usize) < m.vmas.len() {
                            let len = m.vmas[vi as usize].pages;
                            let n = (len - off).min(left);
                            left -= n;
                            off += n;
                            if off >= len {
                                vi += 1;
                                off = 0;
                            }
                        }
                        if vi as usize >= m.vmas.len() {
                            // reset_ptenuma_scan: wrap around, a new scan sequence.
                            vi = 0;
                            off = 0;
                            m.numa_scan_seq += 1;
                        }
                        m.scan_offset = (vi, off);
                        text = say!(
                            sim,
                            "The scan period of mm {pid} has passed: task_numa_work on CPU {cpu} marks up to {budget} more page(s) PROT_NONE"
                        );
                    }
                }
                self.pc = Tnw::Next;
                let ev = Ev::new(numa_ev::SCAN_START, F, "TN1").say(text);
                match self.next_range(sim, mm) {
                    Some((s, e)) => (ev, Flow::Call(ChangeProtNuma::frame(mm, s, e))),
                    None => {
                        self.pc = Tnw::Done;
                        (ev, Flow::Continue)
                    }
                }
            }
            Tnw::Next => match self.next_range(sim, mm) {
                Some((s, e)) => {
                    let ev = Ev::new(core_ev::CALL, F, "TN2").say(say!(sim, "task_numa_work: change_prot_numa({s:#x}..{e:#x})"));
                    (ev, Flow::Call(ChangeProtNuma::frame(mm, s, e)))
                }
                None => self.done(sim),
            },
            Tnw::Done => self.done(sim),
        }
    }
}

/// NUMA balancing's workload operation: run the scanner now.
pub const OPS: &[crate::scenario::OpDef] = &[crate::scenario::OpDef {
    name: "scan",
    doc: "Run task_numa_work now over one VMA (or every VMA), as if the scan period had expired.",
    args: &[crate::scenario::ArgDef::optional(
        "vma",
        crate::scenario::ArgKind::Vma,
        0,
        "Name of a VMA of this process; default: every VMA.",
    )],
    run: crate::scenario::OpRun::Call {
        start: |a| TaskNumaWork::explicit((a[0] != crate::scenario::NO_ARG).then_some(a[0] as u16)),
        says: "runs the NUMA scanner now (an explicit scan operation)",
    },
}];
