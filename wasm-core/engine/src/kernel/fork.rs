//! `kernel/fork.c`: `fork()` as `kernel_clone` → `copy_process` → `dup_mm` →
//! `dup_mmap`, then `wake_up_new_task` (`kernel/sched/core.c`) places the child.
//!
//! Follows Linux v5.12. `dup_mmap` takes the parent's `mmap_lock` for writing, and per
//! VMA: `vm_area_dup`, then `anon_vma_fork` for an anonymous VMA (the child's VMA joins
//! the parent's anon_vma, so an rmap walk of a page still shared after the fork finds
//! both mappings) or an `i_mmap` insertion for a file VMA, then `copy_page_range`
//! (`mm/memory.c`). At the end, `flush_tlb_mm(oldmm)`: `copy_pte_range` write-protected
//! the parent's private writable PTEs, and other CPUs running the parent may still cache
//! them writable, so they get a shootdown IPI.
//!
//! Simplified: the task struct, files, signals and the rest of `copy_process` are one
//! cost (`costs.fork_ns`); the child's VMAs link to the parent's anon_vma itself rather
//! than to a new anon_vma chained below it (v5.12 gives the child its own anon_vma for
//! the pages it copies later; here those pages hang from the shared one, so an rmap walk
//! of them also looks at the parent's VMA and finds nothing there). The child's address
//! space exists from the start as an empty mm (its pid is fixed by the scenario file).
//! A fork allocates (VMAs, rmap links, page tables): only at the fork, never per step.

use crate::arch::x86::mm::tlb::FlushTlbMmRange;
use crate::core::{Flow, LockId, Ret, Until};
use crate::engine::{say, Sim};
use crate::machine::FLUSH_ALL;
use crate::mech::core::ev as core_ev;
use crate::mech::core::{PTE_WRITE_NS, PTL_NS};
use crate::mech::fork::ev as fork_ev;
use crate::mech::fork::FORK_NS;
use crate::mech::fork::PROCESSES;
use crate::mm::memory::CopyPageRange;
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// `kernel_clone(args)` for a plain `fork()` (no `CLONE_VM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelClone {
    /// The child's mm (= its process index).
    child: u16,
    called: bool,
}

impl KernelClone {
    /// A fork creating process `child`.
    pub fn frame(child: u16) -> Frame {
        Frame::from(KernelClone { child, called: false })
    }
}

impl Function for KernelClone {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "kernel_clone";
        let parent = sim.cpu_mm(cpu);
        if !self.called {
            self.called = true;
            let ev = Ev::new(core_ev::CALL, F, "KC1").say(say!(
                sim,
                "Thread {} calls fork(): kernel_clone -> copy_process duplicates the task and its address space",
                sim.task_name(cpu)
            ));
            return (
                ev,
                Flow::Call(Frame::from(CopyProcess {
                    old: parent,
                    child: self.child,
                    called: false,
                })),
            );
        }
        let placed = crate::kernel::sched::core::wake_up_new_task(sim, cpu, self.child);
        let pid = sim.st.mms[self.child as usize].pid;
        let ev = Ev::new(fork_ev::FORK, F, "KC2").cpus(placed).say(say!(
            sim,
            "wake_up_new_task: the child (pid {pid}) is runnable on CPU(s) {:?}; fork returns its pid to the parent",
            placed.iter().collect::<Vec<_>>()
        ));
        (ev, Flow::Return(Ret::Unit))
    }
}

/// `copy_process`: the new task; its memory comes from `copy_mm` → `dup_mm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyProcess {
    old: u16,
    child: u16,
    called: bool,
}

impl Function for CopyProcess {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "copy_process";
        if self.called {
            let ev = Ev::new(core_ev::RETURN, F, "CP3").say(say!(sim, "copy_process returns the new task"));
            return (ev, Flow::Return(Ret::Unit));
        }
        self.called = true;
        sim.charge(cpu, sim.cfg.costs[FORK_NS]);
        sim.st.counters.inc(PROCESSES);
        let ev = Ev::new(core_ev::CALL, F, "CP1").say(say!(
            sim,
            "copy_process: dup_task_struct and the rest of the task; copy_mm: no CLONE_VM, so dup_mm copies the address space"
        ));
        (
            ev,
            Flow::Call(Frame::from(DupMm {
                old: self.old,
                new: self.child,
                called: false,
            })),
        )
    }
}

/// `dup_mm`: a new mm, then `dup_mmap`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DupMm {
    old: u16,
    new: u16,
    called: bool,
}

impl Function for DupMm {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "dup_mm";
        if self.called {
            let ev = Ev::new(core_ev::RETURN, F, "DM3").say(say!(sim, "dup_mm returns the child's mm"));
            return (ev, Flow::Return(Ret::Unit));
        }
        self.called = true;
        let now = sim.clock(cpu);
        let period = sim.cfg.knobs.value(crate::mech::numa::SCAN_PERIOD_NS);
        let m = &mut sim.st.mms[self.new as usize];
        m.cpumask = crate::machine::CpuMask::EMPTY;
        m.tlb_gen = 0;
        m.flush_pending = 0;
        m.users = m.threads;
        m.numa_next_scan = now + period;
        let (ppid, pid) = (sim.st.mms[self.old as usize].pid, sim.st.mms[self.new as usize].pid);
        let ev = Ev::new(core_ev::CALL, F, "DM1").say(say!(
            sim,
            "dup_mm: allocate mm {pid} as a copy of mm {ppid}'s mm_struct, with empty page tables (mm_init); dup_mmap copies the mappings"
        ));
        (ev, Flow::Call(DupMmap::frame(self.old, self.new)))
    }
}

/// Where `dup_mmap` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dp {
    /// DP1: `mmap_write_lock_killable(oldmm)`.
    Lock,
    /// DP2: the next VMA.
    Vma,
    /// DP4: `flush_tlb_mm(oldmm)`.
    Flush,
    /// DP5: unlock, return.
    Unlock,
}

/// `dup_mmap(mm, oldmm)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DupMmap {
    old: u16,
    new: u16,
    vma: u16,
    pc: Dp,
}

impl DupMmap {
    /// Copy `old`'s mappings into `new`.
    pub fn frame(old: u16, new: u16) -> Frame {
        Frame::from(DupMmap {
            old,
            new,
            vma: 0,
            pc: Dp::Lock,
        })
    }

    /// The mm being copied (its PTEs may be write-protected while TLBs still cache them
    /// writable, until the flush at the end).
    pub fn oldmm(&self) -> u16 {
        self.old
    }
}

impl Function for DupMmap {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        const F: &str = "dup_mmap";
        let (old, new) = (self.old, self.new);
        let ppid = sim.st.mms[old as usize].pid;
        let pid = sim.st.mms[new as usize].pid;
        let id = LockId {
            class: crate::core::lock::LockClass::MmapLock,
            a: u32::from(old),
            b: 0,
        };
        match self.pc {
            Dp::Lock => {
                if !sim.lock(cpu, id, sim.cfg.costs[PTL_NS]) {
                    let ev = Ev::new(core_ev::LOCK_WAIT, F, "DP1").say(say!(sim, "mm {ppid}'s mmap_lock is held: fork waits for it"));
                    return (ev, Flow::Block(Until::Lock(id)));
                }
                self.pc = Dp::Vma;
                let ev = Ev::new(core_ev::CALL, F, "DP1").say(say!(
                    sim,
                    "dup_mmap takes mm {ppid}'s mmap_lock for writing: no fault or munmap of the parent runs while its mappings are copied"
                ));
                (ev, Flow::Continue)
            }
            Dp::Vma => {
                let vi = self.vma;
                let Some(v) = sim.st.mms[old as usize].vmas.get(vi as usize).cloned() else {
                    self.pc = Dp::Flush;
                    return self.step(sim, cpu);
                };
                self.vma += 1;
                let root = v.rmap_root;
                let file = v.kind == crate::scenario::VmaKind::File;
                sim.st.mms[new as usize].vmas.push(v);
                let ci = sim.st.mms[new as usize].vmas.len() as u16 - 1;
                // The copy is linked to the parent's anon_vma (or the file's i_mmap), so
                // the rmap walk of every page the two share finds both mappings.
                sim.st.roots[root as usize].vmas.push((new, ci));
                if !file {
                    // anon_vma_fork: the child's VMA also gets an anon_vma of its own, which
                    // pages it faults in or copies later point to: their rmap walks visit
                    // the child alone.
                    sim.st.roots.push(crate::machine::RmapRoot {
                        kind: crate::machine::RmapKind::Anon,
                        vmas: vec![(new, ci)],
                        dirtied_when: None,
                    });
                    sim.st.page_cache.push(Vec::new());
                    sim.st.mms[new as usize].vmas[ci as usize].rmap_root = sim.st.roots.len() as u16 - 1;
                }
                sim.charge(cpu, sim.cfg.costs[PTE_WRITE_NS]);
                let how = if file {
                    "a file mapping: the copy is inserted in the file's i_mmap next to the parent's"
                } else {
                    "anon_vma_fork: the copy joins the parent's anon_vma, so the rmap walk of every page the two share finds both, and gets its own anon_vma for the pages it will fault in or copy"
                };
                let ev = Ev::new(fork_ev::FORK, F, "DP2")
                    .say(say!(sim, "dup_mmap: vm_area_dup of VMA {vi} for mm {pid}; {how}; copy_page_range"));
                (ev, Flow::Call(CopyPageRange::frame(old, new, vi)))
            }
            Dp::Flush => {
                self.pc = Dp::Unlock;
                let ev = Ev::new(core_ev::CALL, F, "DP4").say(say!(
                    sim,
                    "dup_mmap: flush_tlb_mm(oldmm): PTEs of mm {ppid} were write-protected, and CPUs running it may still cache them writable"
                ));
                (ev, Flow::Call(FlushTlbMmRange::frame(old, 0, FLUSH_ALL)))
            }
            Dp::Unlock => {
                sim.unlock(cpu, id, sim.cfg.costs[PTL_NS]);
                let ev = Ev::new(core_ev::RETURN, F, "DP5").say(say!(sim, "dup_mmap releases mm {ppid}'s mmap_lock and returns"));
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }

    /// The parent's PTEs are write-protected as they are copied; one flush at the end.
    fn flush_under_way(&self, mm: u16) -> bool {
        self.oldmm() == mm
    }
}

/// fork's workload operation.
pub const OPS: &[crate::scenario::OpDef] = &[crate::scenario::OpDef {
    name: "fork",
    doc: "fork(): create the `child` process (listed later with `forked = true`) with a copy-on-write copy of this address space.",
    args: &[crate::scenario::ArgDef::required(
        "child",
        crate::scenario::ArgKind::NewProcess,
        "Name of the `forked = true` process this fork creates.",
    )],
    run: crate::scenario::OpRun::Call {
        start: |a| KernelClone::frame(a[0] as u16),
        says: "calls fork(): the child gets a copy-on-write copy of the address space",
    },
}];
