//! The simulation loop: per-CPU kernel flows interleaved by simulated time, one
//! micro-step at a time, with recording, checkpoints and `seek`.
//!
//! Each CPU runs its pinned thread's operation stream. A step picks the CPU that is
//! ready earliest (ties by CPU id), and runs one action of its current flow: a TLB
//! lookup, a page walk, one line of `do_numa_page`, one IPI... Races therefore come from
//! timing: a second thread may touch a page while the first is migrating it.

use crate::arch::x86::mm::tlb::Tlb;
use crate::counters::{Counter, Counters};
use crate::mm::memory::FaultCtx;
use crate::mm::mprotect::ScanCtx;
use crate::patches::ToggleSet;
use crate::scenario::{Costs, Knobs, Op, Scenario, VmaKind};
use crate::state::{pg, Cpu, CpuMask, Mm, OpCursor, Page, Pte, Task, Vma, Wait, CPUPID_UNSET, NO_MM};
use crate::topology::{CpuId, NodeId, Topology};
use crate::trace::{Ev, Event, EventKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;
use std::rc::Rc;

/// What a CPU is doing.
#[derive(Clone, Debug)]
pub enum Flow {
    /// Between accesses: fetch the next one from the workload.
    User,
    /// A user access in progress.
    Access(AccessCtx),
    /// A page fault in progress.
    Fault(Box<FaultCtx>),
    /// A NUMA scan in progress.
    Scan(Box<ScanCtx>),
    /// No thread, or its thread has exited.
    Done,
}

/// A user access.
#[derive(Clone, Copy, Debug)]
pub struct AccessCtx {
    /// Virtual page.
    pub vpn: u32,
    /// Store.
    pub write: bool,
    /// The TLB lookup missed; the next step walks.
    pub missed: bool,
}

/// Settings that do not change while a simulation runs.
#[derive(Debug)]
pub struct Config {
    /// The machine.
    pub topo: Topology,
    /// Knobs.
    pub knobs: Knobs,
    /// Costs.
    pub costs: Costs,
    /// `numa_delay_map`.
    pub delay_map: bool,
    /// `numa_skip_dirty_file`.
    pub skip_dirty_file: bool,
    /// Operations per task.
    pub ops: Vec<Vec<Op>>,
    /// Toggles in effect.
    pub toggles: ToggleSet,
}

/// Everything that changes; cloned for checkpoints.
#[derive(Clone, Debug)]
pub struct State {
    /// CPUs by id.
    pub cpus: Vec<Cpu>,
    /// Address spaces (index = pid - 1).
    pub mms: Vec<Mm>,
    /// Threads.
    pub tasks: Vec<Task>,
    /// Frames by pfn.
    pub pages: Vec<Page>,
    /// Free pfns per node, highest first (allocation pops the lowest).
    pub free: Vec<Vec<u32>>,
    /// Counters.
    pub counters: Counters,
    /// Steps taken.
    pub step: u64,
    /// Held PTE locks: (mm, pmd, holder).
    pub ptl_held: Vec<(u16, u32, CpuId)>,
    /// Seeded RNG for workload generators.
    pub rng: ChaCha8Rng,
}

/// A running simulation.
#[derive(Clone, Debug)]
pub struct Sim {
    /// Static settings.
    pub cfg: Rc<Config>,
    /// Mutable state.
    pub st: State,
    /// Build narration and touched lists (off for large counter-only runs).
    pub recording: bool,
}

/// Why a run could not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// More steps than `knobs.max_steps`.
    TooManySteps(u64),
    /// Some CPU waits forever (a model bug or an impossible scenario).
    Deadlock(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::TooManySteps(n) => write!(
                f,
                "the run did not finish within {n} steps (raise knobs.max_steps if this is intended)"
            ),
            RunError::Deadlock(s) => write!(f, "the run stopped with CPUs still waiting: {s}"),
        }
    }
}

/// First vpn of the first VMA; VMAs are laid out PMD-aligned from here.
pub const VMA_BASE_VPN: u32 = 0x7f000;

/// `format!` only when recording, so counter-only runs allocate nothing per step.
macro_rules! say {
    ($sim:expr, $($arg:tt)*) => {
        if $sim.recording { format!($($arg)*) } else { String::new() }
    };
}
pub(crate) use say;

impl Sim {
    /// Builds the initial state of `scenario` under `toggles`.
    pub fn new(scenario: &Scenario, toggles: &ToggleSet, recording: bool) -> Sim {
        let topo = scenario.topology.clone();
        let nr_cpus = topo.nr_cpus();
        let mut pages: Vec<Page> = (0..topo.total_pages())
            .map(|pfn| Page {
                flags: pg::FREE,
                nid: topo.pfn_to_nid(pfn),
                map_mm: NO_MM,
                map_vpn: 0,
                last_cpupid: CPUPID_UNSET,
            })
            .collect();
        let mut free: Vec<Vec<u32>> = topo
            .nodes
            .iter()
            .map(|n| (n.first_pfn..n.first_pfn + n.mem_pages).rev().collect())
            .collect();
        let mut mms = Vec::new();
        let mut tasks = Vec::new();
        let mut ops = Vec::new();
        for (pi, p) in scenario.processes.iter().enumerate() {
            let mut vmas = Vec::new();
            let mut next = VMA_BASE_VPN;
            for v in &p.vmas {
                let mut ptes = vec![Pte::NONE; v.pages as usize];
                if let Some(node) = v.node {
                    for (i, pte) in ptes.iter_mut().enumerate() {
                        // Populate on the requested node, falling back by distance when full.
                        let Some(pfn) = alloc_on(&topo, &mut free, node, true) else { break };
                        let page = &mut pages[pfn as usize];
                        page.flags = pg::LRU | if v.kind == VmaKind::File { pg::FILE } else { 0 } | if v.dirty { pg::DIRTY } else { 0 };
                        page.map_mm = pi as u16;
                        page.map_vpn = next + i as u32;
                        *pte = Pte::present(pfn, true, v.dirty, false);
                    }
                }
                vmas.push(Vma {
                    start: next,
                    kind: v.kind,
                    fs: v.fs,
                    ptes,
                });
                next = (next + v.pages).div_ceil(512) * 512 + 512;
            }
            let mut cpumask = CpuMask::new(nr_cpus);
            for t in &p.threads {
                cpumask.set(t.cpu);
            }
            mms.push(Mm {
                pid: pi as u16 + 1,
                cpumask,
                tlb_gen: 0,
                flush_pending: 0,
                vmas,
                numa_next_scan: scenario.knobs.scan_period_ns.unwrap_or(0),
                scan_offset: (0, 0),
                numa_scan_seq: 0,
            });
            for (ti, t) in p.threads.iter().enumerate() {
                tasks.push(Task {
                    mm: pi as u16,
                    tid: ti as u16,
                    cpu: t.cpu,
                    cursor: OpCursor::default(),
                    numa: Default::default(),
                });
                ops.push(t.ops.clone());
            }
        }
        let cpus = (0..nr_cpus)
            .map(|c| {
                let task = tasks.iter().position(|t| t.cpu as usize == c).map(|t| t as u16);
                Cpu {
                    id: c as CpuId,
                    node: topo.cpu_node[c],
                    clock: 0,
                    task,
                    running: task.is_some(),
                    loaded_mm: task.map(|t| tasks[t as usize].mm),
                    lazy: false,
                    seen_gen: 0,
                    tlb: Tlb::new(topo.tlb_entries),
                    flow: if task.is_some() { Flow::User } else { Flow::Done },
                    flush: None,
                    wait: Wait::None,
                    inbox: Default::default(),
                }
            })
            .collect();
        let mut toggles = toggles.clone();
        for (id, v) in &scenario.toggles {
            // Scenario defaults apply only where the caller left the registry default.
            if toggles.get(id) == crate::patches::find(id).map(|p| p.default_value()).as_ref() {
                let _ = toggles.set(id, v.clone());
            }
        }
        let cfg = Config {
            delay_map: toggles.is_on("numa_delay_map"),
            skip_dirty_file: toggles.is_on("numa_skip_dirty_file"),
            topo,
            knobs: scenario.knobs.clone(),
            costs: scenario.costs.clone(),
            ops,
            toggles,
        };
        Sim {
            cfg: Rc::new(cfg),
            st: State {
                cpus,
                mms,
                tasks,
                pages,
                free,
                counters: Counters::default(),
                step: 0,
                ptl_held: Vec::new(),
                rng: ChaCha8Rng::seed_from_u64(scenario.seed),
            },
            recording,
        }
    }

    /// Simulated time: the latest CPU clock.
    pub fn now(&self) -> u64 {
        self.st.cpus.iter().map(|c| c.clock).max().unwrap_or(0)
    }

    fn ready_time(&self, c: &Cpu) -> Option<(u64, bool)> {
        let ipi = c.inbox.front().map(|i| i.arrive.max(c.clock));
        let work = match c.wait {
            Wait::None if !matches!(c.flow, Flow::Done) || c.flush.is_some() => Some(c.clock),
            Wait::Sleep(until) | Wait::Compute(until) => Some(until.max(c.clock)),
            _ => None,
        };
        match (work, ipi) {
            (Some(w), Some(i)) if i <= w => Some((i, true)),
            (Some(w), _) => Some((w, false)),
            (None, Some(i)) => Some((i, true)),
            (None, None) => None,
        }
    }

    /// Whether every CPU is finished.
    pub fn finished(&self) -> bool {
        self.st.cpus.iter().all(|c| self.ready_time(c).is_none())
    }

    /// Runs one micro-step; returns the event (narrated only when recording), or `None`
    /// when nothing is left to do.
    pub fn step(&mut self) -> Option<Event> {
        let (cpu, time, ipi) = self
            .st
            .cpus
            .iter()
            .filter_map(|c| self.ready_time(c).map(|(t, i)| (c.id, t, i)))
            .min_by_key(|&(id, t, _)| (t, id))?;
        let before = self.st.counters;
        let c = cpu as usize;
        self.st.cpus[c].clock = self.st.cpus[c].clock.max(time);
        let ev = if ipi {
            self.flush_tlb_func_remote(cpu)
        } else if let Wait::Sleep(_) = self.st.cpus[c].wait {
            self.wake(cpu)
        } else if let Wait::Compute(_) = self.st.cpus[c].wait {
            self.compute_done(cpu)
        } else if self.st.cpus[c].flush.is_some() {
            self.flush_tlb_mm_range_step(cpu)
        } else {
            self.run_flow(cpu)
        };
        let step = self.st.step;
        self.st.step += 1;
        Some(Event {
            step,
            time_ns: time,
            cpu,
            kind: ev.kind.unwrap_or(EventKind::OpStart),
            function: ev.function,
            line: ev.line,
            narration: ev.text,
            ptes: ev.pte.map(|p| vec![p]).unwrap_or_default(),
            pfns: ev.pfns.iter().flatten().copied().collect(),
            cpus: ev.cpus,
            deltas: if self.recording {
                self.st.counters.delta_since(&before)
            } else {
                Vec::new()
            },
        })
    }

    fn run_flow(&mut self, cpu: CpuId) -> Ev {
        let c = cpu as usize;
        match std::mem::replace(&mut self.st.cpus[c].flow, Flow::Done) {
            Flow::User => self.next_access(cpu),
            Flow::Access(a) => self.access(cpu, a),
            Flow::Fault(f) => self.fault_step(cpu, f),
            Flow::Scan(s) => self.scan_step(cpu, s),
            Flow::Done => Ev::new(EventKind::Exit, "", "").say(say!(self, "CPU {cpu} has nothing to do")),
        }
    }

    /// Charges `ns` to a CPU's clock.
    pub(crate) fn charge(&mut self, cpu: CpuId, ns: u64) {
        self.st.cpus[cpu as usize].clock += ns;
    }

    /// DRAM access cost from `cpu` to memory on `nid`, scaled by node distance.
    pub(crate) fn dram_ns(&self, cpu: CpuId, nid: NodeId) -> u64 {
        let from = self.cfg.topo.cpu_node[cpu as usize];
        let d = u64::from(self.cfg.topo.distance[from as usize][nid as usize]);
        let (l, r) = (self.cfg.costs.dram_local_ns, self.cfg.costs.dram_remote_ns);
        // distance 10 = local, 21 = one hop (r); linear in between and beyond.
        l + (r.saturating_sub(l)) * d.saturating_sub(10) / 11
    }

    /// "pid/tid" of the task on `cpu`.
    pub(crate) fn task_name(&self, cpu: CpuId) -> String {
        match self.st.cpus[cpu as usize].task {
            Some(t) => {
                let t = &self.st.tasks[t as usize];
                format!("{}/{}", self.st.mms[t.mm as usize].pid, t.tid)
            }
            None => "idle".into(),
        }
    }

    /// The mm index of the task on `cpu`.
    pub(crate) fn cpu_mm(&self, cpu: CpuId) -> u16 {
        self.st.cpus[cpu as usize].task.map_or(0, |t| self.st.tasks[t as usize].mm)
    }

    /// Fetches the next access (or operation) of the thread on `cpu` and starts it.
    fn next_access(&mut self, cpu: CpuId) -> Ev {
        let c = cpu as usize;
        let Some(t) = self.st.cpus[c].task else {
            return Ev::new(EventKind::Exit, "", "");
        };
        let cfg = Rc::clone(&self.cfg);
        let task = &self.st.tasks[t as usize];
        let mm = task.mm;
        // Automatic NUMA scanning (task_tick_numa -> task_numa_work) at an op boundary.
        if let Some(period) = cfg.knobs.scan_period_ns {
            if cfg.knobs.numa_balancing && self.st.cpus[c].clock >= self.st.mms[mm as usize].numa_next_scan {
                // cmpxchg on numa_next_scan: only this thread wins the period.
                self.st.mms[mm as usize].numa_next_scan = self.st.cpus[c].clock + period;
                return self.task_numa_work_auto(cpu, mm);
            }
        }
        let cur = task.cursor.clone();
        let Some(op) = cfg.ops[t as usize].get(cur.op) else {
            self.st.cpus[c].flow = Flow::Done;
            self.st.cpus[c].running = false;
            self.st.cpus[c].lazy = true;
            return Ev::new(EventKind::Exit, "do_exit", "").say(say!(
                self,
                "Thread {} has finished its work; CPU {cpu} goes idle and keeps the mm loaded lazily (still in mm_cpumask, but no more flush IPIs)",
                self.task_name(cpu)
            ));
        };
        if !cur.started {
            self.st.tasks[t as usize].cursor.started = true;
            match op {
                Op::Scan { vma } => return self.task_numa_work_explicit(cpu, mm, *vma),
                Op::Sleep { ns } => return self.sleep(cpu, *ns),
                Op::Compute { ns } => return self.compute(cpu, *ns),
                _ => {}
            }
        }
        let vma_start = |v: u16| self.st.mms[mm as usize].vmas[v as usize].start;
        let (vpn, write) = match *op {
            Op::Access { vma, page, write, .. } => (vma_start(vma) + page, write),
            Op::Touch { vma, write } => (vma_start(vma) + cur.done as u32, write),
            Op::Random { vma, write_percent, .. } => {
                let len = self.st.mms[mm as usize].vmas[vma as usize].ptes.len() as u32;
                let page = self.st.rng.random_range(0..len);
                let write = self.st.rng.random_range(0..100u8) < write_percent;
                (vma_start(vma) + page, write)
            }
            Op::Scan { .. } | Op::Sleep { .. } | Op::Compute { .. } => {
                self.advance_cursor(t);
                self.st.cpus[c].flow = Flow::User;
                return Ev::new(EventKind::OpStart, "", "");
            }
        };
        self.access(cpu, AccessCtx { vpn, write, missed: false })
    }

    /// Moves the task's cursor past one completed access (or a finished operation).
    pub(crate) fn advance_cursor(&mut self, t: u16) {
        let cfg = Rc::clone(&self.cfg);
        let task = &mut self.st.tasks[t as usize];
        let Some(op) = cfg.ops[t as usize].get(task.cursor.op) else {
            return;
        };
        task.cursor.done += 1;
        let len = match *op {
            Op::Access { repeat, .. } => u64::from(repeat),
            Op::Touch { vma, .. } => self.st.mms[task.mm as usize].vmas[vma as usize].ptes.len() as u64,
            Op::Random { count, .. } => count,
            Op::Scan { .. } | Op::Sleep { .. } | Op::Compute { .. } => 1,
        };
        if task.cursor.done >= len {
            task.cursor = OpCursor {
                op: task.cursor.op + 1,
                done: 0,
                started: false,
            };
        }
    }

    /// A user access: TLB lookup, or (after a miss) the hardware page walk.
    fn access(&mut self, cpu: CpuId, a: AccessCtx) -> Ev {
        let c = cpu as usize;
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        let what = if a.write { "store to" } else { "load from" };
        if !a.missed {
            if let Some(e) = self.st.cpus[c].tlb.lookup(mm, a.vpn) {
                // A store through an entry that is read-only or not yet dirty makes the MMU walk.
                if !a.write || (e.write && e.dirty) {
                    let nid = self.cfg.topo.pfn_to_nid(e.pfn);
                    let ns = self.dram_ns(cpu, nid);
                    self.charge(cpu, ns);
                    self.complete_access(cpu);
                    return Ev::new(EventKind::Access, "user access", "").pte(pid, a.vpn).pfn(e.pfn).say(say!(
                        self,
                        "Thread {} {what} page {:#x}: TLB hit, pfn {} on node {nid} ({ns} ns)",
                        self.task_name(cpu),
                        a.vpn,
                        e.pfn
                    ));
                }
            }
            self.st.counters.inc(Counter::TlbMisses);
            self.charge(cpu, 1);
            self.st.cpus[c].flow = Flow::Access(AccessCtx { missed: true, ..a });
            return Ev::new(EventKind::TlbMiss, "user access", "").pte(pid, a.vpn).say(say!(
                self,
                "Thread {} {what} page {:#x}: TLB miss, the MMU walks the page table",
                self.task_name(cpu),
                a.vpn
            ));
        }
        // Hardware page walk.
        self.charge(cpu, self.cfg.costs.page_walk_ns);
        let pte = self.st.mms[mm as usize].pte(a.vpn);
        if pte.hw_present() && (pte.write() || !a.write) {
            let young = pte.mk_young(a.write);
            self.st.mms[mm as usize].set_pte(a.vpn, young);
            let pfn = pte.pfn();
            if a.write {
                let page = &mut self.st.pages[pfn as usize];
                if page.has(pg::FILE) {
                    // A store to a shared file page dirties it (fault_dirty_shared_page).
                    page.flags |= pg::DIRTY;
                }
            }
            self.st.cpus[c].tlb.insert(mm, a.vpn, pfn, young.write(), young.dirty());
            let nid = self.cfg.topo.pfn_to_nid(pfn);
            let ns = self.dram_ns(cpu, nid);
            self.charge(cpu, ns);
            self.complete_access(cpu);
            return Ev::new(EventKind::PageWalk, "page walk (MMU)", "")
                .pte(pid, a.vpn)
                .pfn(pfn)
                .say(say!(
                    self,
                    "Walk: PTE of {:#x} is present (pfn {pfn}, node {nid}); the MMU sets A{} and caches it in CPU {cpu}'s TLB",
                    a.vpn,
                    if a.write { "+D" } else { "" }
                ));
        }
        self.charge(cpu, self.cfg.costs.fault_entry_ns);
        let why = if pte.protnone() {
            "PROT_NONE (a NUMA hint PTE: the MMU treats it as not present)"
        } else if pte.is_migration() {
            "a migration entry"
        } else if pte.is_none() {
            "empty"
        } else {
            "read-only"
        };
        self.st.cpus[c].flow = Flow::Fault(Box::new(FaultCtx::new(a.vpn, a.write)));
        Ev::new(EventKind::FaultEntry, "page walk (MMU)", "").pte(pid, a.vpn).say(say!(
            self,
            "Walk: PTE of {:#x} is {why}: page fault on CPU {cpu}",
            a.vpn
        ))
    }

    /// Finishes the current access of the thread on `cpu`.
    pub(crate) fn complete_access(&mut self, cpu: CpuId) {
        self.st.counters.inc(Counter::Accesses);
        if let Some(t) = self.st.cpus[cpu as usize].task {
            self.advance_cursor(t);
        }
        self.st.cpus[cpu as usize].flow = Flow::User;
    }

    /// Retries the faulting access after a fault handled.
    pub(crate) fn retry_access(&mut self, cpu: CpuId, vpn: u32, write: bool) {
        self.st.cpus[cpu as usize].flow = Flow::Access(AccessCtx { vpn, write, missed: false });
    }

    fn sleep(&mut self, cpu: CpuId, ns: u64) -> Ev {
        let c = cpu as usize;
        let until = self.st.cpus[c].clock + ns;
        self.st.cpus[c].wait = Wait::Sleep(until);
        self.st.cpus[c].running = false;
        self.st.cpus[c].lazy = true;
        self.st.cpus[c].flow = Flow::User;
        self.charge(cpu, self.cfg.costs.switch_ns);
        Ev::new(EventKind::Sleep, "switch_mm_irqs_off", "W1").say(say!(
            self,
            "Thread {} sleeps for {ns} ns: CPU {cpu} runs the idle task in lazy TLB mode (mm still loaded, still in mm_cpumask, skipped by flush IPIs)",
            self.task_name(cpu)
        ))
    }

    fn compute(&mut self, cpu: CpuId, ns: u64) -> Ev {
        let c = cpu as usize;
        self.st.cpus[c].wait = Wait::Compute(self.st.cpus[c].clock + ns);
        self.st.cpus[c].flow = Flow::User;
        Ev::new(EventKind::OpStart, "user code", "").say(say!(
            self,
            "Thread {} runs user code for {ns} ns without touching modelled memory; CPU {cpu} stays in mm_cpumask and is not lazy, so it gets every flush IPI for this mm",
            self.task_name(cpu)
        ))
    }

    fn compute_done(&mut self, cpu: CpuId) -> Ev {
        let c = cpu as usize;
        self.st.cpus[c].wait = Wait::None;
        if let Some(t) = self.st.cpus[c].task {
            self.advance_cursor(t);
        }
        Ev::new(EventKind::OpStart, "user code", "").say(say!(self, "Thread {} finishes computing", self.task_name(cpu)))
    }

    fn wake(&mut self, cpu: CpuId) -> Ev {
        let c = cpu as usize;
        self.st.cpus[c].wait = Wait::None;
        self.st.cpus[c].running = true;
        self.st.cpus[c].lazy = false;
        if let Some(t) = self.st.cpus[c].task {
            self.advance_cursor(t);
        }
        self.charge(cpu, self.cfg.costs.switch_ns);
        let mm = self.cpu_mm(cpu);
        let stale = self.st.cpus[c].loaded_mm == Some(mm) && self.st.cpus[c].seen_gen < self.st.mms[mm as usize].tlb_gen;
        if stale || self.st.cpus[c].loaded_mm != Some(mm) {
            self.st.cpus[c].tlb.flush_mm(mm);
            self.st.cpus[c].seen_gen = self.st.mms[mm as usize].tlb_gen;
            self.st.cpus[c].loaded_mm = Some(mm);
            self.st.mms[mm as usize].cpumask.set(cpu);
            self.charge(cpu, self.cfg.costs.full_flush_ns);
        }
        Ev::new(EventKind::Wake, "switch_mm_irqs_off", "W2").say(if stale {
            say!(
                self,
                "Thread {} wakes; flushes happened while CPU {cpu} was lazy, so it flushes its whole TLB now (no IPI was needed)",
                self.task_name(cpu)
            )
        } else {
            say!(
                self,
                "Thread {} wakes; CPU {cpu} leaves lazy mode, its TLB is up to date",
                self.task_name(cpu)
            )
        })
    }

    /// Takes the PTE lock of (`mm`, `vpn`) for `cpu`, or makes `cpu` wait for it. Returns
    /// whether the lock was taken (on `false` the caller must retry the same step).
    pub(crate) fn ptl_lock(&mut self, cpu: CpuId, mm: u16, vpn: u32) -> bool {
        let pmd = vpn / 512;
        if let Some(&(_, _, holder)) = self.st.ptl_held.iter().find(|&&(m, p, _)| m == mm && p == pmd) {
            if holder != cpu {
                self.st.cpus[cpu as usize].wait = Wait::Ptl { mm, pmd };
                return false;
            }
            return true;
        }
        self.st.ptl_held.push((mm, pmd, cpu));
        self.charge(cpu, self.cfg.costs.ptl_ns);
        true
    }

    /// Releases a PTE lock and wakes CPUs spinning on it.
    pub(crate) fn ptl_unlock(&mut self, cpu: CpuId, mm: u16, vpn: u32) {
        let pmd = vpn / 512;
        self.st.ptl_held.retain(|&(m, p, h)| !(m == mm && p == pmd && h == cpu));
        self.charge(cpu, self.cfg.costs.ptl_ns);
        let now = self.st.cpus[cpu as usize].clock;
        for c in &mut self.st.cpus {
            if c.wait == (Wait::Ptl { mm, pmd }) {
                c.wait = Wait::None;
                c.clock = c.clock.max(now);
            }
        }
    }

    /// Wakes CPUs sleeping on the page lock of `pfn`.
    pub(crate) fn unlock_page(&mut self, cpu: CpuId, pfn: u32) {
        self.st.pages[pfn as usize].flags &= !pg::LOCKED;
        let now = self.st.cpus[cpu as usize].clock;
        for c in &mut self.st.cpus {
            if c.wait == Wait::PageLock(pfn) {
                c.wait = Wait::None;
                c.clock = c.clock.max(now);
            }
        }
    }

    /// Allocates a page on `nid` (`__GFP_THISNODE` when `fallback` is false).
    pub(crate) fn alloc_page(&mut self, nid: NodeId, fallback: bool) -> Option<u32> {
        let pfn = alloc_on(&self.cfg.topo, &mut self.st.free, nid, fallback)?;
        let p = &mut self.st.pages[pfn as usize];
        p.flags = 0;
        p.map_mm = NO_MM;
        p.last_cpupid = CPUPID_UNSET;
        Some(pfn)
    }

    /// Returns a page to its node's free list.
    pub(crate) fn free_page(&mut self, pfn: u32) {
        let p = &mut self.st.pages[pfn as usize];
        p.flags = pg::FREE;
        p.map_mm = NO_MM;
        p.last_cpupid = CPUPID_UNSET;
        let nid = p.nid as usize;
        // Keep the list sorted (highest first) so allocation stays deterministic and lowest-first.
        let list = &mut self.st.free[nid];
        let pos = list.partition_point(|&x| x > pfn);
        list.insert(pos, pfn);
    }

    /// Runs to the end without keeping events (counters only).
    pub fn run_to_end(&mut self) -> Result<(), RunError> {
        let max = self.cfg.knobs.max_steps;
        while self.step().is_some() {
            if self.st.step > max {
                return Err(RunError::TooManySteps(max));
            }
        }
        self.check_stuck()
    }

    /// Errors if a CPU is left waiting when nothing can run.
    pub fn check_stuck(&self) -> Result<(), RunError> {
        let stuck: Vec<String> = self
            .st
            .cpus
            .iter()
            .filter(|c| c.wait != Wait::None || c.flush.is_some())
            .map(|c| format!("CPU {} ({:?})", c.id, c.wait))
            .collect();
        if stuck.is_empty() {
            Ok(())
        } else {
            Err(RunError::Deadlock(stuck.join(", ")))
        }
    }

    /// Node of the CPU.
    pub(crate) fn cpu_node(&self, cpu: CpuId) -> NodeId {
        self.cfg.topo.cpu_node[cpu as usize]
    }
}

/// Pops the lowest free pfn on `nid`, or on the nearest node with memory when `fallback`.
fn alloc_on(topo: &Topology, free: &mut [Vec<u32>], nid: NodeId, fallback: bool) -> Option<u32> {
    if let Some(p) = free[nid as usize].pop() {
        return Some(p);
    }
    if !fallback {
        return None;
    }
    topo.nodes_by_distance(nid).into_iter().find_map(|n| free[n as usize].pop())
}
