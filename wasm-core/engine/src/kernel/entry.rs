//! The user/kernel boundary of a user thread: its workload operations run in user mode
//! (loads and stores through the TLB and the MMU's page walk, computation, sleeps), a
//! translation the MMU cannot use raises a page fault, and on every return to user space
//! pending `task_work` runs (`exit_to_user_mode_loop`, Linux v5.12
//! `kernel/entry/common.c`), which is where the NUMA scan queued by `task_tick_numa`
//! happens, and where an expired slice gives the CPU up.
//!
//! This frame is the bottom of every user thread's stack; its locals are the thread's
//! position in its operation list.

use crate::core::{Flow, Ret, Until};
use crate::engine::{say, Sim};
use crate::machine::pg;
use crate::mech::core::ev as core_ev;
use crate::mech::core::{ACCESSES, TLB_MISSES, WORKLOAD_OPS};
use crate::mech::core::{FAULT_ENTRY_NS, PAGE_WALK_NS};
use crate::mm::memory::HandleMmFault;
use crate::registry::{Frame, Function};
use crate::scenario::{ArgDef, ArgKind, Op, OpDef, OpRun};
use crate::topology::CpuId;
use crate::trace::Ev;
use rand::Rng;

/// Where the thread is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Pc {
    /// Back in user space: run task_work, then start or continue the current operation.
    #[default]
    Fetch,
    /// Retry the access at `vpn` (after a fault): TLB lookup.
    Lookup,
    /// The TLB missed: the MMU walks the page table.
    Walk,
    /// A computation is over.
    ComputeDone,
    /// A computation was preempted at its slice end: go on with what is left.
    ComputeResume,
}

/// A user thread in user mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UserMode {
    pc: Pc,
    /// Index of the current operation.
    op: u16,
    /// Progress inside it.
    done: u64,
    /// Whether the current operation has started (scan, sleep and compute start once).
    started: bool,
    /// The access in progress.
    vpn: u32,
    write: bool,
    /// What is left of a preempted computation, ns.
    left: u64,
    /// Passes a `loop` operation has sent the thread back for.
    loops: u32,
}

impl UserMode {
    /// The index of the operation the thread is at.
    pub fn op_index(&self) -> u16 {
        self.op
    }

    /// The scheduler tick preempted this thread's computation with `left` ns of it to go.
    pub fn preempt(&mut self, left: u64) {
        if self.pc == Pc::ComputeDone {
            self.left = left;
            self.pc = Pc::ComputeResume;
        }
    }

    /// The operation list of `task`.
    fn ops(sim: &Sim, task: u16) -> &[Op] {
        let ops = sim.st.tasks[task as usize].ops as usize;
        sim.cfg.ops.get(ops).map_or(&[], |v| v.as_slice())
    }

    /// Moves `task` past one completed unit of its current operation.
    fn advance(&mut self, sim: &mut Sim, task: u16) {
        let Some(op) = Self::ops(sim, task).get(self.op as usize) else {
            return;
        };
        let mm = sim.st.tasks[task as usize].mm().unwrap_or(0);
        self.done += 1;
        let len = match *op {
            Op::Access { repeat, .. } => u64::from(repeat),
            Op::Touch { vma, .. } => u64::from(sim.st.mms[mm as usize].vmas[vma as usize].pages),
            Op::Random { count, .. } => count,
            Op::Sleep { .. } | Op::Compute { .. } | Op::Yield | Op::Exit | Op::Call { .. } | Op::Loop { .. } => 1,
        };
        if matches!(op, Op::Access { .. } | Op::Touch { .. } | Op::Random { .. } | Op::Call { .. }) {
            sim.st.counters.inc(WORKLOAD_OPS);
        }
        if self.done >= len {
            self.op += 1;
            self.done = 0;
            self.started = false;
            sim.st.tasks[task as usize].op_seq += 1;
        }
    }

    fn fetch(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let c = cpu as usize;
        let mm = sim.cpu_mm(cpu);
        // task_work queued by a mechanism's tick (task_tick_numa's scan, for one).
        for m in crate::registry::MECHANISMS {
            if let Some(work) = m.task_work.and_then(|hook| hook(sim, cpu)) {
                return (work.0, Flow::Call(work.1));
            }
        }
        // The tick's load balancing: an idle CPU may take a task queued here; a CPU
        // running alone balances periodically while its node has tasks waiting.
        if let Some(ev) = crate::kernel::sched::core::tick_balance(sim, cpu) {
            return (ev, Flow::Continue);
        }
        if let Some(ev) = crate::kernel::sched::core::maybe_rebalance(sim, cpu) {
            return (ev, Flow::Continue);
        }
        // need_resched: the slice is over and another task waits for this CPU.
        if sim.clock(cpu) >= sim.st.cpus[c].slice_end && !sim.st.cpus[c].rq.is_empty() {
            let ev = Ev::new(core_ev::SWITCH, "exit_to_user_mode", "E2").say(say!(
                sim,
                "Thread {}'s slice is over and another task is runnable on CPU {cpu}: schedule()",
                sim.task_name(cpu)
            ));
            return (ev, Flow::Block(Until::Resched));
        }
        let Some(op) = Self::ops(sim, sim.st.cpus[c].curr).get(self.op as usize).cloned() else {
            let ev = Ev::new(core_ev::EXIT, "do_exit", "X1").say(say!(
                sim,
                "Thread {} has finished its work and exits; CPU {cpu} goes idle and keeps the mm loaded lazily (still in mm_cpumask, but no more flush IPIs)",
                sim.task_name(cpu)
            ));
            return (ev, Flow::Block(Until::Exit));
        };
        let vma_start = |sim: &Sim, v: u16| sim.st.mms[mm as usize].vmas[v as usize].start;
        let (vpn, write) = match op {
            Op::Call { op, args } => {
                self.started = true;
                let Some(def) = crate::registry::ops().nth(op as usize) else {
                    unreachable!("the scenario parser only builds declared operations");
                };
                let OpRun::Call { start, says } = def.run else {
                    unreachable!("`{}` is built as user mode's own operation", def.name);
                };
                let ev = Ev::new(core_ev::CALL, "user code", "E3").say(say!(sim, "Thread {} {says}", sim.task_name(cpu)));
                return (ev, Flow::Call(start(&args)));
            }
            Op::Sleep { ns } => {
                self.started = true;
                let until = sim.clock(cpu) + ns;
                let text = if sim.st.cpus[c].rq.is_empty() {
                    say!(
                        sim,
                        "Thread {} sleeps for {ns} ns: CPU {cpu} runs the idle task in lazy TLB mode (mm still loaded, still in mm_cpumask, skipped by flush IPIs)",
                        sim.task_name(cpu)
                    )
                } else {
                    say!(
                        sim,
                        "Thread {} sleeps for {ns} ns: CPU {cpu} switches to the next runnable task",
                        sim.task_name(cpu)
                    )
                };
                let ev = Ev::new(core_ev::SLEEP, "switch_mm_irqs_off", "W1").say(text);
                return (ev, Flow::Block(Until::Sleep(until)));
            }
            Op::Compute { ns } => {
                self.started = true;
                self.pc = Pc::ComputeDone;
                let until = sim.clock(cpu) + ns;
                let ev = Ev::new(core_ev::OP_START, "user code", "E4").say(say!(
                    sim,
                    "Thread {} runs user code for {ns} ns without touching modelled memory; CPU {cpu} stays in mm_cpumask and is not lazy, so it gets every flush IPI for this mm",
                    sim.task_name(cpu)
                ));
                return (ev, Flow::Block(Until::Busy(until)));
            }
            Op::Yield => {
                self.advance(sim, sim.st.cpus[c].curr);
                let ev = Ev::new(core_ev::SWITCH, "user code", "E7").say(say!(
                    sim,
                    "Thread {} calls sched_yield(): CPU {cpu} runs the next runnable task, if any",
                    sim.task_name(cpu)
                ));
                return (ev, Flow::Block(Until::Resched));
            }
            Op::Exit => {
                let ev = Ev::new(core_ev::EXIT, "do_exit", "X1").say(say!(
                    sim,
                    "Thread {} calls exit(); CPU {cpu} keeps the mm loaded lazily if nothing else runs",
                    sim.task_name(cpu)
                ));
                return (ev, Flow::Block(Until::Exit));
            }
            Op::Loop { times } => {
                let task = sim.st.cpus[c].curr;
                let again = times == 0 || self.loops < times;
                let ev = if again {
                    self.loops += 1;
                    self.op = 0;
                    self.done = 0;
                    self.started = false;
                    sim.st.tasks[task as usize].op_seq += 1;
                    Ev::new(core_ev::CALL, "user code", "E8").say(say!(
                        sim,
                        "Thread {} goes back to its first operation (pass {})",
                        sim.task_name(cpu),
                        self.loops + 1
                    ))
                } else {
                    self.advance(sim, task);
                    Ev::new(core_ev::CALL, "user code", "E8").say(say!(sim, "Thread {} has made its last pass", sim.task_name(cpu)))
                };
                return (ev, Flow::Continue);
            }
            Op::Access {
                vma,
                page,
                write,
                old: false,
                ..
            } => (vma_start(sim, vma) + page, write),
            Op::Access {
                vma,
                page,
                write,
                old: true,
                ..
            } => (sim.st.mms[mm as usize].vmas[vma as usize].prev.0 + page, write),
            Op::Touch { vma, write, stores_pct } => {
                let pages = u64::from(sim.st.mms[mm as usize].vmas[vma as usize].pages);
                let stores = (pages * u64::from(stores_pct)).div_ceil(100);
                (vma_start(sim, vma) + self.done as u32, write && self.done < stores)
            }
            Op::Random { vma, write_percent, .. } => {
                let len = sim.st.mms[mm as usize].vmas[vma as usize].pages;
                let page = sim.st.rng.random_range(0..len);
                let write = sim.st.rng.random_range(0..100u8) < write_percent;
                (vma_start(sim, vma) + page, write)
            }
        };
        self.vpn = vpn;
        self.write = write;
        self.lookup(sim, cpu)
    }

    /// A load or store: the TLB first.
    fn lookup(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let c = cpu as usize;
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let what = if self.write { "store to" } else { "load from" };
        if let Some(e) = sim.st.cpus[c].tlb.lookup(mm, self.vpn) {
            // A store through an entry that is read-only or not yet dirty makes the MMU walk.
            if !self.write || (e.write && e.dirty) {
                let nid = sim.page_nid(e.pfn);
                let ns = sim.dram_ns(cpu, nid);
                sim.charge(cpu, ns);
                // What the store writes, and whether the translation is stale (mremap's
                // and writeback's findings).
                crate::mm::page_writeback::user_access(sim, mm, self.vpn, e.pfn, self.write, true);
                let ev = Ev::new(core_ev::ACCESS, "user code", "E6").pte(pid, self.vpn).pfn(e.pfn).say(say!(
                    sim,
                    "Thread {} {what} page {:#x}: TLB hit, pfn {} on node {nid} ({ns} ns)",
                    sim.task_name(cpu),
                    self.vpn,
                    e.pfn
                ));
                self.complete(sim, cpu);
                return (ev, Flow::Continue);
            }
        }
        sim.st.counters.inc(TLB_MISSES);
        sim.charge(cpu, 1);
        self.pc = Pc::Walk;
        let ev = Ev::new(core_ev::TLB_MISS, "user code", "E6").pte(pid, self.vpn).say(say!(
            sim,
            "Thread {} {what} page {:#x}: TLB miss, the MMU walks the page table",
            sim.task_name(cpu),
            self.vpn
        ));
        (ev, Flow::Continue)
    }

    /// The hardware page walk after a TLB miss.
    fn walk(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let c = cpu as usize;
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        sim.charge(cpu, sim.cfg.costs[PAGE_WALK_NS]);
        let pte = sim.st.mms[mm as usize].pte(self.vpn);
        if pte.hw_present() && (pte.write() || !self.write) {
            let young = pte.mk_young(self.write);
            // Setting bits that are set already writes nothing (and copies no PTE table a
            // checkpoint shares).
            if young != pte {
                sim.st.mms[mm as usize].set_pte(self.vpn, young);
            }
            let pfn = pte.pfn();
            if self.write {
                let page = sim.st.frames.get(pfn);
                if page.has(pg::FILE) && !page.has(pg::DIRTY) {
                    // A store to a shared file page dirties it (fault_dirty_shared_page).
                    sim.st.frames.get_mut(pfn).flags |= pg::DIRTY;
                    crate::mm::page_writeback::account_page_dirtied(sim);
                }
                crate::mm::page_writeback::user_access(sim, mm, self.vpn, pfn, true, false);
            }
            sim.st.cpus[c].tlb.insert(mm, self.vpn, pfn, young.write(), young.dirty());
            let nid = sim.page_nid(pfn);
            let ns = sim.dram_ns(cpu, nid);
            sim.charge(cpu, ns);
            let ev = Ev::new(core_ev::PAGE_WALK, "mmu_walk", "MW1").pte(pid, self.vpn).pfn(pfn).say(say!(
                sim,
                "Walk: PTE of {:#x} is present (pfn {pfn}, node {nid}); the MMU sets A{} and caches it in CPU {cpu}'s TLB",
                self.vpn,
                if self.write { "+D" } else { "" }
            ));
            self.complete(sim, cpu);
            return (ev, Flow::Continue);
        }
        sim.charge(cpu, sim.cfg.costs[FAULT_ENTRY_NS]);
        let why = if pte.protnone() {
            "PROT_NONE (a NUMA hint PTE: the MMU treats it as not present)"
        } else if pte.is_migration() {
            "a migration entry"
        } else if pte.is_none() {
            "empty"
        } else {
            "read-only"
        };
        self.pc = Pc::Lookup;
        let ev = Ev::new(core_ev::FAULT_ENTRY, "mmu_walk", "MW2").pte(pid, self.vpn).say(say!(
            sim,
            "Walk: PTE of {:#x} is {why}: page fault on CPU {cpu}",
            self.vpn
        ));
        (ev, Flow::Call(HandleMmFault::frame(self.vpn, self.write)))
    }

    /// One access is done: count it and move on.
    fn complete(&mut self, sim: &mut Sim, cpu: CpuId) {
        sim.st.counters.inc(ACCESSES);
        self.advance(sim, sim.st.cpus[cpu as usize].curr);
        self.pc = Pc::Fetch;
    }
}

impl Function for UserMode {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        match self.pc {
            Pc::Fetch => self.fetch(sim, cpu),
            Pc::Lookup => self.lookup(sim, cpu),
            Pc::Walk => self.walk(sim, cpu),
            Pc::ComputeResume => {
                self.pc = Pc::ComputeDone;
                let until = sim.clock(cpu) + self.left;
                let ev = Ev::new(core_ev::OP_START, "user code", "E4").say(say!(
                    sim,
                    "Thread {} is back on CPU {cpu} and goes on computing ({} ns left)",
                    sim.task_name(cpu),
                    self.left
                ));
                (ev, Flow::Block(Until::Busy(until)))
            }
            Pc::ComputeDone => {
                self.advance(sim, sim.st.cpus[cpu as usize].curr);
                self.pc = Pc::Fetch;
                let ev =
                    Ev::new(core_ev::COMPUTE_DONE, "user code", "E5").say(say!(sim, "Thread {} finishes computing", sim.task_name(cpu)));
                (ev, Flow::Continue)
            }
        }
    }

    /// The thread was woken from a sleep, or a scan or fault it called returned.
    fn resume(&mut self, sim: &mut Sim, task: u16, r: Ret) {
        match (r, self.pc) {
            (Ret::Woken, _) => {
                self.advance(sim, task);
                self.pc = Pc::Fetch;
            }
            (_, Pc::Fetch) if self.started => {
                // A system-call operation's kernel function returned.
                self.advance(sim, task);
            }
            _ => {}
        }
    }
}

/// User mode's own workload operations (the other mechanisms add system calls).
pub const OPS: &[OpDef] = &[
    OpDef {
        name: "access",
        doc: "Load or store one page of a VMA, `repeat` times.",
        args: &[
            ArgDef::required("vma", ArgKind::Vma, "Name of a VMA of this process."),
            ArgDef::required("page", ArgKind::Page, "Page index inside the VMA."),
            ArgDef::optional("write", ArgKind::Bool, 0, "Store instead of load."),
            ArgDef::optional(
                "repeat",
                ArgKind::Int { min: 1, max: 1 << 32 },
                1,
                "How many times to access the page.",
            ),
        ],
        run: OpRun::User(|a| Op::Access {
            vma: a[0] as u16,
            page: a[1] as u32,
            write: a[2] != 0,
            repeat: a[3] as u32,
            old: false,
        }),
    },
    OpDef {
        name: "touch",
        doc: "Load or store every page of a VMA, in order.",
        args: &[
            ArgDef::required("vma", ArgKind::Vma, "Name of a VMA of this process."),
            ArgDef::optional("write", ArgKind::Bool, 0, "Store instead of load."),
            ArgDef::optional(
                "stores_pct",
                ArgKind::Int { min: 0, max: 100 },
                100,
                "With `write`: percent of the pages, from the first, that are stored to; the rest are loaded.",
            ),
        ],
        run: OpRun::User(|a| Op::Touch {
            vma: a[0] as u16,
            write: a[1] != 0,
            stores_pct: a[2] as u8,
        }),
    },
    OpDef {
        name: "random",
        doc: "Access seeded random pages of a VMA.",
        args: &[
            ArgDef::required("vma", ArgKind::Vma, "Name of a VMA of this process."),
            ArgDef::required("count", ArgKind::Int { min: 0, max: 1 << 40 }, "Number of accesses."),
            ArgDef::optional(
                "write_percent",
                ArgKind::Int { min: 0, max: 100 },
                0,
                "Percentage of the accesses that are stores, 0-100.",
            ),
        ],
        run: OpRun::User(|a| Op::Random {
            vma: a[0] as u16,
            count: a[1],
            write_percent: a[2] as u8,
        }),
    },
    OpDef {
        name: "sleep",
        doc: "Block for a while: the CPU runs another task or idles (lazy TLB).",
        args: &[ArgDef::required("ns", ArgKind::Int { min: 0, max: 1 << 50 }, "Nanoseconds.")],
        run: OpRun::User(|a| Op::Sleep { ns: a[0] }),
    },
    OpDef {
        name: "compute",
        doc: "Run user code that touches no modelled memory (interrupts and the tick may preempt it).",
        args: &[ArgDef::required("ns", ArgKind::Int { min: 0, max: 1 << 50 }, "Nanoseconds.")],
        run: OpRun::User(|a| Op::Compute { ns: a[0] }),
    },
    OpDef {
        name: "yield",
        doc: "sched_yield(): give the CPU to the next runnable task, if any.",
        args: &[],
        run: OpRun::User(|_| Op::Yield),
    },
    OpDef {
        name: "loop",
        doc: "Go back to the first operation: `times` more passes, or with no `times` until the \
              run's `window_ms` ends (a benchmark's main loop; needs `window_ms` then).",
        args: &[ArgDef::optional(
            "times",
            ArgKind::Int { min: 0, max: 1 << 31 },
            0,
            "Further passes (0 or absent: until the window ends).",
        )],
        run: OpRun::User(|a| Op::Loop { times: a[0] as u32 }),
    },
    OpDef {
        name: "exit",
        doc: "exit(): end the thread now, skipping any operations after this one.",
        args: &[],
        run: OpRun::User(|_| Op::Exit),
    },
];
