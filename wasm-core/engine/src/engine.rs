//! The simulation loop. Every CPU runs the top frame of its current task's stack; CPUs
//! are interleaved by simulated time through the ready queue, one line per step. An IPI
//! pushes its handler frame on whatever the CPU runs, between any two steps; a frame
//! that blocks leaves its CPU spinning (locks, IPI acks) or gives the CPU to the
//! scheduler (sleep, yield, exit). Races therefore come from timing alone.

mod boot;

use crate::core::{Flow, LockId, Locks, ReadyQueue, Ret, Stack, Until, WakePolicy};
use crate::counters::Counters;
use crate::machine::{pg, Cpu, CpuMask, Frames, KthreadKind, Mm, RmapRoot, Task, TaskKind, TaskState, Wait};
use crate::mech::core::ev as core_ev;
use crate::patches::ToggleSet;
use crate::registry::Frame;
use crate::scenario::{Costs, Knobs, Op};
use crate::topology::{CpuId, NodeId, Topology};
use crate::trace::{Ev, Event, EventKind, NO_CAUSE};
use rand_chacha::ChaCha8Rng;
use std::fmt;
use std::rc::Rc;

/// Settings that do not change while a simulation runs.
#[derive(Debug)]
pub struct Config {
    /// The machine.
    pub topo: Topology,
    /// Knobs.
    pub knobs: Knobs,
    /// Costs.
    pub costs: Costs,
    /// Operation lists of the user threads (`Task::ops` indexes this).
    pub ops: Vec<Vec<Op>>,
    /// Toggles in effect.
    pub toggles: ToggleSet,
    /// CFS's tunables for this machine (`kernel/sched/fair.rs`).
    pub sched: crate::kernel::sched::fair::Tunables,
    /// Real pages per modelled page, model-wide (the `numa_mem_scale` knob, at least 1):
    /// per-page kernel work counts this many times (faults, zeroing, hint faults, scanner
    /// PTE updates) and byte-sized kernel limits are divided by it, whichever mechanism
    /// does the work.
    pub mem_scale: u64,
    /// The jiffies at time 0 modulo `HZ`, drawn from the seed (`mm/vmstat.rs`).
    pub jiffies0: u64,
    /// DRAM access cost from a CPU of node `a` to memory on node `b`, at `a * nodes + b`
    /// ([`Sim::dram_ns`], worked out once).
    dram: Vec<u64>,
    /// Simulated time at which the run stops (`window_ms`; `u64::MAX` when unset).
    window_end: u64,
    /// The steps where another CPU than the earliest ready one acts (`core/schedule.rs`;
    /// empty: the default order).
    pub schedule: crate::core::Schedule,
}

/// Everything that changes; cloned for checkpoints (the large parts share chunks).
#[derive(Clone, Debug)]
pub struct State {
    /// CPUs by id.
    pub cpus: Vec<Cpu>,
    /// Tasks: user threads, kernel threads, idle tasks.
    pub tasks: Vec<Task>,
    /// Each task's stack of frames.
    pub stacks: Vec<Stack<Frame>>,
    /// Address spaces (index = pid - 1).
    pub mms: Vec<Mm>,
    /// Reverse-map roots (anon_vmas and files).
    pub roots: Vec<RmapRoot>,
    /// The page cache of each file root, by file offset ([`NO_PAGE`] where not cached);
    /// empty for anon roots.
    pub page_cache: Vec<Vec<u32>>,
    /// Frames by pfn.
    pub frames: Frames,
    /// The backing store of each file root, by file offset: the content version last
    /// written out (`mm/page_writeback.rs`), grown on first write-out.
    pub backing: Vec<Vec<u32>>,
    /// Per node (`pg_data_t`): the v4.17 NUMA-migration rate-limit window.
    pub numa_pgdat: Vec<crate::mm::migrate::NumaPgdat>,
    /// Zones, buddy lists and per-CPU page lists (`mm/page_alloc.rs`): a frame in the free
    /// map is on a buddy list or a PCP list.
    pub page_alloc: crate::mm::page_alloc::PageAlloc,
    /// Held locks and lock statistics.
    pub locks: Locks,
    /// Counters.
    pub counters: Counters,
    /// Where CPU time went (only while [`Sim::profiling`]).
    pub prof: crate::profile::Profile,
    /// Steps taken.
    pub step: u64,
    /// Seeded RNG for workload generators.
    pub rng: ChaCha8Rng,
    /// Which CPU acts next.
    pub readyq: ReadyQueue,
    /// The CPU running the current step (`smp_processor_id()`: a wake-up's waking CPU).
    pub acting: CpuId,
    /// Scratch list of the sleepers a lock release wakes (kept, so a wake-up allocates
    /// nothing).
    woken: Vec<u16>,
    /// CPUs whose ready time may have changed during the current step.
    pub touched: CpuMask,
    /// What each CPU does at the time the ready queue holds for it, computed with that
    /// time (`refresh_ready`), so a step does not work it out a second time.
    ready_next: Vec<Next>,
    /// Whether each CPU had tasks queued at its last ready-queue refresh.
    cpu_queued: Vec<bool>,
    /// Per node: CPUs with tasks queued (a busy CPU alone on its run queue balances only
    /// while this is above 0).
    pub node_queued: Vec<u16>,
    /// `nohz.next_balance`: when a busy CPU's tick next kicks the idle load balancer.
    pub nohz_next_balance: u64,
    /// The schedule's next pick ([`Config::schedule`]).
    pub sched_pos: u32,
    /// Why the schedule could not be followed (the run stops there).
    pub sched_error: Option<String>,
    /// NUMA groups (`kernel/sched/numa_group.rs`), by slot.
    pub numa_groups: Vec<crate::kernel::sched::numa_group::NumaGroup>,
}

/// A running simulation.
#[derive(Clone, Debug)]
pub struct Sim {
    /// Static settings.
    pub cfg: Rc<Config>,
    /// Mutable state.
    pub st: State,
    /// Build narration and touched lists (off for counter-only runs).
    pub recording: bool,
    /// Charge CPU time to tasks and functions (`profile.rs`; off unless asked).
    pub profiling: bool,
}

/// What a CPU does at its next ready time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Its current work (a step of the running task's top frame, or the idle task).
    Work,
    /// A TLB-flush IPI from its inbox.
    Ipi,
    /// The timer interrupt of a sleeper whose time is up, while another task runs.
    Timer,
    /// The scheduler tick that preempts user code whose slice is over.
    Tick,
    /// The periodic load balancing of a CPU running user code alone while another CPU
    /// of its node has tasks queued (`rebalance_domains` at `next_balance`).
    Balance,
}

/// Why a run could not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// More steps than `knobs.max_steps`.
    TooManySteps(u64),
    /// Some CPU or task waits forever (a model bug or an impossible scenario).
    Deadlock(String),
    /// The schedule asked for a CPU that had nothing to do, or outlived the run.
    Schedule(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::TooManySteps(n) => write!(
                f,
                "the run did not finish within {n} steps (raise knobs.max_steps if this is intended)"
            ),
            RunError::Deadlock(s) => write!(f, "the run stopped with CPUs or tasks still waiting: {s}"),
            RunError::Schedule(s) => write!(f, "the schedule does not fit this run: {s}"),
        }
    }
}

/// What one step did, cheaply (no heap): enough for chapter anchors and series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepInfo {
    /// The step's index.
    pub step: u64,
    /// The CPU that acted.
    pub cpu: CpuId,
    /// The task that acted.
    pub task: u16,
    /// What happened.
    pub kind: EventKind,
    /// When it started.
    pub time_ns: u64,
}

/// Where a step ran and what it touched ([`Sim::step_touched`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Touched {
    /// Kernel function.
    pub function: &'static str,
    /// Line id in its listing.
    pub line: &'static str,
    /// The PTE touched: (pid, vpn).
    pub pte: Option<(u16, u32)>,
    /// The frames touched.
    pub pfns: [Option<u32>; 2],
}

/// "No page" in a page cache slot.
pub const NO_PAGE: u32 = u32::MAX;

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
    /// Simulated time: the latest CPU clock.
    pub fn now(&self) -> u64 {
        self.st.cpus.iter().map(|c| c.clock).max().unwrap_or(0)
    }

    /// When the CPU's current work (not its interrupts) can next run. An idle CPU wakes
    /// for its first timer that is not deferrable: the vmstat worker's timer (`mm/vmstat.rs`)
    /// waits until the CPU wakes for something else, as a deferrable timer does.
    #[inline]
    fn work_time(&self, c: &Cpu) -> Option<u64> {
        match c.wait {
            Wait::None => {
                if c.curr != c.idle || !c.rq.is_empty() {
                    Some(c.clock)
                } else {
                    c.timers
                        .iter()
                        .find(|&&(_, task)| !self.deferrable(task))
                        .map(|&(t, _)| t.max(c.clock))
                }
            }
            Wait::Busy(until) => Some(until.max(c.clock)),
            Wait::Acks | Wait::Lock(_) | Wait::Stop(_) => None,
        }
    }

    /// Whether `task`'s timer is deferrable: the vmstat worker asleep in its loop.
    #[inline]
    fn deferrable(&self, task: u16) -> bool {
        self.st.tasks[task as usize].kind == TaskKind::Kernel(KthreadKind::Vmstat) && self.st.stacks[task as usize].len() == 1
    }

    /// When the CPU next acts, and what it does then.
    #[inline(always)]
    fn ready_time(&self, c: &Cpu) -> Option<(u64, Next)> {
        // The common case first: a task runs with nothing pending (no IPI, no sleeper's
        // timer, not held up), so it works at its clock. The general rule below gives
        // the same answer for it.
        if c.wait == Wait::None && c.curr != c.idle && c.inbox.is_empty() && c.timers.is_empty() {
            return Some((c.clock, Next::Work));
        }
        let ipi = c.inbox.front().map(|i| i.arrive.max(c.clock));
        // A sleeper's timer while another task runs: the timer interrupt wakes it (an
        // idle CPU's own step wakes its sleepers, `idle_step`).
        let timer = if c.curr != c.idle {
            c.timers.first().map(|&(t, _)| t.max(c.clock))
        } else {
            None
        };
        let mut best = match c.wait {
            Wait::Busy(until) => {
                let mut b = (until.max(c.clock), Next::Work);
                // User code is preempted at the tick that ends its slice (or at once after a
                // wake-up preemption) when another task waits.
                if c.slice_end < until && !c.rq.is_empty() {
                    b = (c.slice_end.max(c.clock), Next::Tick);
                }
                // It balances at next_balance while its node has tasks waiting somewhere.
                if c.sd.next_balance < b.0 && self.st.node_queued.get(c.node as usize).is_some_and(|&q| q > 0) {
                    b = (c.sd.next_balance.max(c.clock), Next::Balance);
                }
                Some(b)
            }
            _ => self.work_time(c).map(|w| (w, Next::Work)),
        };
        for (t, next) in [(timer, Next::Timer), (ipi, Next::Ipi)] {
            if let Some(t) = t {
                if best.is_none_or(|(b, _)| t <= b) {
                    best = Some((t, next));
                }
            }
        }
        best
    }

    /// Marks `cpu` for a ready-queue update at the end of the step.
    #[inline]
    pub(crate) fn touch(&mut self, cpu: CpuId) {
        self.st.touched.set(cpu);
    }

    /// Puts every touched CPU at its new place in the ready queue (again while that
    /// touches more: a node's first or last queued task changes its CPUs' balancing).
    fn refresh_ready(&mut self) {
        while !self.st.touched.is_empty() {
            let touched = std::mem::take(&mut self.st.touched);
            for c in touched.iter() {
                self.refresh_one(c);
            }
        }
    }

    /// Keeps `node_queued` up to date with `cpu`'s run queue; when a node gets its first
    /// CPU with tasks queued or loses its last, its CPUs' ready times change (they balance
    /// only while some CPU has tasks waiting), so they are touched.
    #[inline(always)]
    fn note_queued(&mut self, cpu: CpuId) {
        let c = cpu as usize;
        let q = !self.st.cpus[c].rq.is_empty();
        if q != self.st.cpu_queued[c] {
            self.note_queued_changed(cpu, q);
        }
    }

    /// [`Sim::note_queued`] when `cpu`'s run queue went from empty to not, or back.
    #[inline(never)]
    fn note_queued_changed(&mut self, cpu: CpuId, q: bool) {
        let c = cpu as usize;
        self.st.cpu_queued[c] = q;
        let n = self.st.cpus[c].node as usize;
        let before = self.st.node_queued[n];
        self.st.node_queued[n] = if q { before + 1 } else { before.saturating_sub(1) };
        if (before == 0) != (self.st.node_queued[n] == 0) {
            for other in 0..self.st.cpus.len() {
                if other != c && self.st.cpus[other].node as usize == n {
                    self.st.touched.set(other as CpuId);
                }
            }
        }
    }

    /// Puts `cpu` at its new place in the ready queue, with what it does then.
    #[inline]
    fn refresh_one(&mut self, cpu: CpuId) {
        let c = cpu as usize;
        self.note_queued(cpu);
        match self.ready_time(&self.st.cpus[c]) {
            Some((t, next)) => {
                self.st.ready_next[c] = next;
                self.st.readyq.set(cpu, Some(t));
            }
            None => self.st.readyq.set(cpu, None),
        }
    }

    /// [`Sim::refresh_one`] for the CPU that just acted, which is at the top of the queue.
    #[inline]
    fn refresh_top(&mut self, cpu: CpuId) {
        let c = cpu as usize;
        self.note_queued(cpu);
        match self.ready_time(&self.st.cpus[c]) {
            Some((t, next)) => {
                self.st.ready_next[c] = next;
                self.st.readyq.set_top(cpu, Some(t));
            }
            None => self.st.readyq.set_top(cpu, None),
        }
    }

    /// Runs one micro-step and returns what it did, or `None` when nothing is left.
    /// Builds no event (use [`Sim::step_event`] for that).
    pub fn step(&mut self) -> Option<StepInfo> {
        self.step_with(|_| ()).map(|(info, (), _)| info)
    }

    /// Runs one micro-step and returns what it did with its code location and cause,
    /// without building an event (no allocation).
    pub fn step_located(&mut self) -> Option<(StepInfo, &'static str, &'static str, u64)> {
        self.step_with(|ev| (ev.function, ev.line))
            .map(|(info, (function, line), cause)| (info, function, line, cause))
    }

    /// Runs one micro-step and returns what it did with its code location and what it
    /// touched, without building an event (no allocation).
    pub fn step_touched(&mut self) -> Option<(StepInfo, Touched)> {
        self.step_with(|ev| Touched {
            function: ev.function,
            line: ev.line,
            pte: ev.pte,
            pfns: ev.pfns,
        })
        .map(|(info, touched, _)| (info, touched))
    }

    /// Runs one micro-step and returns its full event (narrated when recording).
    pub fn step_event(&mut self) -> Option<Event> {
        let before = self.recording.then_some(self.st.counters);
        let (info, ev, cause) = self.step_with(|ev| ev)?;
        let cpus = if self.recording { ev.cpus.iter().collect() } else { Vec::new() };
        Some(Event {
            step: info.step,
            time_ns: info.time_ns,
            cpu: info.cpu,
            task: info.task,
            kind: info.kind,
            function: ev.function,
            line: ev.line,
            cause,
            narration: ev.text,
            ptes: ev.pte.map(|p| vec![p]).unwrap_or_default(),
            pfns: ev.pfns.iter().flatten().copied().collect(),
            cpus,
            deltas: before.map(|b| self.st.counters.delta_since(&b)).unwrap_or_default(),
        })
    }

    /// Runs one micro-step; `keep` takes what the caller wants of its [`Ev`] as soon as
    /// the step made it, so a counters-only step copies no event around.
    #[inline(always)]
    fn step_with<R>(&mut self, keep: impl FnOnce(Ev) -> R) -> Option<(StepInfo, R, u64)> {
        self.step_picked(None, keep)
    }

    /// When `cpu` can next act, if it has something to do before the run's window ends.
    pub fn ready_at(&self, cpu: CpuId) -> Option<u64> {
        self.st.readyq.due(cpu).filter(|&t| t < self.cfg.window_end)
    }

    /// Runs one micro-step of `cpu` whatever the order says (the interleaving explorer's
    /// choice, `explore.rs`), or `None` when it has nothing to do.
    pub fn step_cpu(&mut self, cpu: CpuId) -> Option<StepInfo> {
        self.ready_at(cpu)?;
        self.step_picked(Some(cpu), |_| ()).map(|(info, (), _)| info)
    }

    /// [`Sim::step_cpu`] with what the step touched.
    pub fn step_cpu_touched(&mut self, cpu: CpuId) -> Option<(StepInfo, Touched)> {
        self.ready_at(cpu)?;
        self.step_picked(Some(cpu), |ev| Touched {
            function: ev.function,
            line: ev.line,
            pte: ev.pte,
            pfns: ev.pfns,
        })
        .map(|(info, touched, _)| (info, touched))
    }

    /// [`Sim::step_with`] with the acting CPU `force`d, else the schedule's pick at this
    /// step, else the CPU ready earliest.
    #[inline(always)]
    fn step_picked<R>(&mut self, force: Option<CpuId>, keep: impl FnOnce(Ev) -> R) -> Option<(StepInfo, R, u64)> {
        let want = match (force, self.cfg.schedule.get(self.st.sched_pos as usize)) {
            (Some(c), _) => Some(c),
            (None, Some((at, c))) if at == self.st.step => {
                self.st.sched_pos += 1;
                Some(c)
            }
            _ => None,
        };
        let picked = match want {
            Some(c) => Some(self.take_pick(c)?),
            None => None,
        };
        let (time, cpu) = match picked {
            Some(p) => p,
            None => self.st.readyq.peek()?,
        };
        if time >= self.cfg.window_end {
            // `window_ms`: the run is over, whatever is still working.
            return None;
        }
        let c = cpu as usize;
        self.st.acting = cpu;
        // An interrupt first when it is due no later than the CPU's own work: what the
        // CPU does at `time` was worked out with it (`refresh_ready`).
        let next = self.st.ready_next[c];
        debug_assert_eq!(
            Some((time, next)),
            self.ready_time(&self.st.cpus[c]),
            "CPU {cpu} changed since its ready time was computed, without `touch`"
        );
        let ipi = match next {
            Next::Ipi => self.st.cpus[c].inbox.front().copied(),
            _ => None,
        };
        self.st.cpus[c].clock = self.st.cpus[c].clock.max(time);
        // What the CPU did until now (user code, spinning, waiting for acks, idling).
        self.charge_profile(c);
        // The acting CPU's place in the ready queue is refreshed at the end of the step
        // whether the step touched it or not; other CPUs only when touched.
        let task = self.st.cpus[c].curr;
        let (kind, kept, cause) = if let Some(ipi) = ipi {
            // The interrupt lands on whatever the CPU runs: its handler frame goes on
            // top of the current task's stack.
            self.st.stacks[task as usize].push(crate::arch::x86::mm::tlb::FlushTlbFunc::frame(ipi), ipi.cause);
            self.run_top(cpu, task, keep)
        } else if next == Next::Timer {
            let ev = crate::kernel::time::hrtimer::hrtimer_interrupt(self, cpu);
            (ev.kind, keep(ev), NO_CAUSE)
        } else if next == Next::Tick {
            let ev = crate::kernel::sched::core::scheduler_tick(self, cpu, task);
            (ev.kind, keep(ev), NO_CAUSE)
        } else if next == Next::Balance {
            let ev = crate::kernel::sched::core::rebalance(self, cpu);
            (ev.kind, keep(ev), NO_CAUSE)
        } else if let Wait::Busy(_) = self.st.cpus[c].wait {
            self.st.cpus[c].wait = Wait::None;
            self.run_top(cpu, task, keep)
        } else if self.st.cpus[c].curr == self.st.cpus[c].idle {
            let ev = crate::kernel::sched::core::idle_step(self, cpu);
            (ev.kind, keep(ev), NO_CAUSE)
        } else {
            self.run_top(cpu, task, keep)
        };
        self.charge_profile(c);
        let step = self.st.step;
        self.st.step += 1;
        if picked.is_some() {
            // A picked CPU need not be at the top of the queue.
            self.refresh_one(cpu);
        } else {
            self.refresh_top(cpu);
        }
        if !self.st.touched.is_empty() {
            self.refresh_ready();
        }
        if self.st.readyq.peek().is_none_or(|(t, _)| t >= self.cfg.window_end) {
            // The run's last step: what each mechanism counts of the state it ends in.
            for m in crate::registry::MECHANISMS {
                if let Some(run_end) = m.run_end {
                    run_end(self);
                }
            }
        }
        Some((
            StepInfo {
                step,
                cpu,
                task,
                kind: kind.unwrap_or(core_ev::OP_START),
                time_ns: time,
            },
            kept,
            cause,
        ))
    }

    /// The schedule's pick of `want` at this step: its ready time, or `None` (the run
    /// stops, [`Sim::check_stuck`] says why) when it has nothing to do now.
    #[cold]
    fn take_pick(&mut self, want: CpuId) -> Option<(u64, CpuId)> {
        let pos = (self.st.sched_pos as usize).saturating_sub(1);
        let at = self.st.step;
        let due = (usize::from(want) < self.st.cpus.len()).then(|| self.st.readyq.due(want)).flatten();
        match due {
            Some(t) if t < self.cfg.window_end => Some((t, want)),
            _ => {
                let ready: Vec<String> = (0..self.st.cpus.len() as CpuId)
                    .filter(|&c| self.st.readyq.due(c).is_some_and(|t| t < self.cfg.window_end))
                    .map(|c| c.to_string())
                    .collect();
                let why = if usize::from(want) >= self.st.cpus.len() {
                    format!("this machine has CPUs 0 to {}", self.st.cpus.len().saturating_sub(1))
                } else {
                    format!("CPU {want} has nothing to do at step {at} (it waits, or has finished)")
                };
                self.st.sched_error = Some(format!(
                    "pick {} (`{at}:{want}`): {why}; ready then: {}",
                    pos + 1,
                    if ready.is_empty() {
                        "no CPU".to_string()
                    } else {
                        format!("CPU {}", ready.join(", "))
                    }
                ));
                None
            }
        }
    }

    /// Runs one line of the top frame of `task` on `cpu` and applies its flow; returns
    /// the step's kind, what `keep` took of its event, and its cause. The stack is taken
    /// out of the state while the frame steps (no frame is copied), and put back before
    /// anything that could look at it (blocking, scheduling).
    #[inline(always)]
    fn run_top<R>(&mut self, cpu: CpuId, task: u16, keep: impl FnOnce(Ev) -> R) -> (Option<EventKind>, R, u64) {
        let t = task as usize;
        let mut stack = std::mem::take(&mut self.st.stacks[t]);
        let Some((frame, cause)) = stack.top_entry_mut() else {
            self.st.stacks[t] = stack;
            return (None, keep(Ev::default()), NO_CAUSE);
        };
        let (mut ev, flow) = frame.step(self, cpu);
        let kind = ev.kind;
        let interrupt = frame.is_interrupt();
        if self.profiling {
            // The line's cost belongs to the stack that ran it, before any call or return.
            let who = who(&self.st.tasks[t]);
            self.st.prof.charge(cpu as usize, self.st.cpus[cpu as usize].clock, who, &stack);
            let extra = std::mem::take(&mut self.st.cpus[cpu as usize].extra);
            if extra > 0 {
                self.st.prof.charge_extra(who, &stack, extra);
            }
        } else {
            self.st.cpus[cpu as usize].extra = 0;
        }
        if let Flow::Block(until) = flow {
            self.st.stacks[t] = stack;
            // A CPU left with nothing to run may pull a queued task first: the step says so.
            if let Some(pulled) = self.block(cpu, task, until) {
                ev.cpus.set(pulled.1);
                if self.recording {
                    ev.text.push_str(&crate::kernel::sched::core::say_pulled(self, cpu, pulled));
                }
            }
            return (kind, keep(ev), cause);
        }
        let kept = keep(ev);
        let step = self.st.step;
        match flow {
            Flow::Continue => self.st.stacks[t] = stack,
            Flow::Call(callee) => {
                stack.push(callee, step);
                self.st.stacks[t] = stack;
            }
            Flow::Return(r) => {
                stack.pop();
                // An interrupt handler returns to whatever it interrupted, which is not its
                // caller and gets no value.
                if !interrupt {
                    if let Some(caller) = stack.top_mut() {
                        caller.resume(self, task, r);
                    }
                }
                self.st.stacks[t] = stack;
            }
            Flow::Block(_) => unreachable!("handled above"),
        }
        (kind, kept, cause)
    }

    /// The profile as it stands at time `t`: a copy of the run's, with every CPU's time up
    /// to `t` charged to what it runs now (the run's own profile is left as it is). A
    /// profile window is the difference of two of these.
    pub fn profile_at(&self, t: u64) -> crate::profile::Profile {
        let mut p = self.st.prof.clone();
        for (c, cpu) in self.st.cpus.iter().enumerate() {
            let task = cpu.curr as usize;
            p.charge(c, t, who(&self.st.tasks[task]), &self.st.stacks[task]);
        }
        p
    }

    /// Charges `cpu`'s time so far to its current task's stack (when profiling).
    #[inline(always)]
    pub(crate) fn charge_profile(&mut self, c: usize) {
        if self.profiling {
            let t = self.st.cpus[c].curr as usize;
            let who = who(&self.st.tasks[t]);
            self.st.prof.charge(c, self.st.cpus[c].clock, who, &self.st.stacks[t]);
        }
    }

    /// Hands `r` to the top frame of `task` (a callee returned, or the task was woken).
    pub(crate) fn resume_top(&mut self, task: u16, r: Ret) {
        let t = task as usize;
        if let Some((mut caller, cause)) = self.st.stacks[t].pop() {
            caller.resume(self, task, r);
            self.st.stacks[t].push(caller, cause);
        }
    }

    /// Holds `task` on `cpu` until `until`; says which task `newidle_balance` pulled from
    /// which CPU if the CPU, left with nothing to run, took one.
    fn block(&mut self, cpu: CpuId, task: u16, until: Until) -> Option<(u16, CpuId)> {
        let c = cpu as usize;
        let pulled = match until {
            // The task is in the lock's wait queue already (`Sim::lock`): a spinlock's
            // waiter spins on its CPU, a sleeping lock's waiter gives the CPU away.
            Until::Lock(id) if id.class.spins() || self.rwsem_spins(task, id) => {
                self.st.cpus[c].wait = Wait::Lock(id);
                None
            }
            Until::Lock(_) => {
                self.sleep(cpu, task, None, false);
                crate::kernel::sched::core::schedule_pulling(self, cpu).1
            }
            Until::Acks => {
                self.st.cpus[c].wait = Wait::Acks;
                None
            }
            // __migration_entry_wait → put_and_wait_on_page_locked: the task sleeps in
            // io_schedule until the page is unlocked, and its CPU runs something else.
            Until::PageUnlocked(pfn) => {
                let now = self.clock(cpu);
                self.st.locks.enqueue(LockId::page(pfn), task, false, now);
                self.sleep(cpu, task, None, true);
                crate::kernel::sched::core::schedule_pulling(self, cpu).1
            }
            Until::Busy(t) => {
                self.st.cpus[c].wait = Wait::Busy(t);
                None
            }
            Until::Sleep(t) => {
                self.sleep(cpu, task, Some(t), false);
                let timers = &mut self.st.cpus[c].timers;
                let pos = timers.partition_point(|&(x, _)| x <= t);
                timers.insert(pos, (t, task));
                crate::kernel::sched::core::schedule_pulling(self, cpu).1
            }
            Until::Resched => {
                self.st.tasks[task as usize].state = TaskState::Runnable;
                self.st.cpus[c].rq.push_back(task);
                crate::kernel::sched::core::schedule_pulling(self, cpu).1
            }
            Until::Migrate(to) => crate::kernel::sched::core::move_current(self, cpu, task, to),
            Until::Swap => {
                crate::kernel::sched::core::migrate_swap(self, cpu, task);
                None
            }
            Until::Exit => crate::kernel::sched::core::do_exit(self, cpu, task),
            Until::Wake => {
                self.sleep(cpu, task, None, false);
                crate::kernel::sched::core::schedule_pulling(self, cpu).1
            }
        };
        // A task that leaves its CPU while its swap partner's stopper waits for it: the
        // stopper of this CPU runs now and both change places.
        if self.st.tasks[task as usize].swap_with.is_some() && self.st.cpus[c].curr != task {
            crate::kernel::sched::core::swap_partner_left(self, cpu, task);
        }
        pulled
    }

    /// `task`, running on `cpu`, goes to sleep (until `timer`, or until woken; `io`: in
    /// `io_schedule`, so the time asleep is iowait).
    fn sleep(&mut self, cpu: CpuId, task: u16, timer: Option<u64>, io: bool) {
        let now = self.clock(cpu);
        let t = &mut self.st.tasks[task as usize];
        t.state = TaskState::Sleeping(timer);
        t.se.sleep_start = now;
        t.se.iowait = io;
    }

    /// Charges `ns` to a CPU's clock. While its task does weighted kernel work (a hint
    /// fault in a scenario whose modelled pages each stand for `numa_mem_scale` real ones)
    /// the work counts that many times: the rest is owed (`NumaStats::debt`, paid at the
    /// return to user space so no lock is held longer) and goes to the profile at once
    /// (`Cpu::extra`), under the functions that did the work.
    #[inline]
    pub(crate) fn charge(&mut self, cpu: CpuId, ns: u64) {
        let c = &mut self.st.cpus[cpu as usize];
        c.clock += ns;
        let w = self.st.tasks[c.curr as usize].numa.weight;
        if w > 1 {
            self.owe(cpu, u64::from(w - 1) * ns);
        }
    }

    /// Charges `ns` of work that stands for `w` times as much (`charge` with an explicit
    /// weight, for per-page work outside a hint fault: the scanner's PTE updates).
    #[inline]
    pub(crate) fn charge_weighted(&mut self, cpu: CpuId, ns: u64, w: u64) {
        self.st.cpus[cpu as usize].clock += ns;
        if w > 1 {
            self.owe(cpu, (w - 1) * ns);
        }
    }

    /// `cpu`'s current task owes `ns` more of weighted kernel time.
    #[cold]
    pub(crate) fn owe(&mut self, cpu: CpuId, ns: u64) {
        let c = &mut self.st.cpus[cpu as usize];
        c.extra += ns;
        self.st.tasks[c.curr as usize].numa.debt += ns;
    }

    /// At a return to user space: when the task owes kernel time, until when it is busy
    /// paying it (the profile has that time already, so it skips this stretch).
    pub(crate) fn pay_debt(&mut self, cpu: CpuId) -> Option<u64> {
        let t = self.st.cpus[cpu as usize].curr as usize;
        let d = std::mem::take(&mut self.st.tasks[t].numa.debt);
        if d == 0 {
            return None;
        }
        if self.profiling {
            self.st.prof.skip(cpu as usize, d);
        }
        Some(self.clock(cpu) + d)
    }

    /// A task preempted while paying owed kernel time still owes `left` of it.
    pub(crate) fn owe_again(&mut self, cpu: CpuId, task: u16, left: u64) {
        self.st.tasks[task as usize].numa.debt += left;
        if self.profiling {
            self.st.prof.unskip(cpu as usize, left);
        }
    }

    /// A CPU's clock.
    #[inline]
    pub(crate) fn clock(&self, cpu: CpuId) -> u64 {
        self.st.cpus[cpu as usize].clock
    }

    /// DRAM access cost from `cpu` to memory on `nid`, scaled by node distance.
    #[inline]
    pub(crate) fn dram_ns(&self, cpu: CpuId, nid: NodeId) -> u64 {
        let from = usize::from(self.cfg.topo.cpu_node[cpu as usize]);
        self.cfg.dram[from * self.cfg.topo.nodes.len() + usize::from(nid)]
    }

    /// The node of `pfn`.
    #[inline]
    pub(crate) fn page_nid(&self, pfn: u32) -> NodeId {
        self.cfg.topo.pfn_to_nid(pfn)
    }

    /// The task running on `cpu`.
    #[inline]
    pub(crate) fn curr(&self, cpu: CpuId) -> &Task {
        &self.st.tasks[self.st.cpus[cpu as usize].curr as usize]
    }

    /// "pid/tid" of the user thread on `cpu` (or the kernel thread's name).
    pub(crate) fn task_name(&self, cpu: CpuId) -> String {
        let t = self.curr(cpu);
        match t.kind {
            TaskKind::User { mm, tid } => format!("{}/{}", self.st.mms[mm as usize].pid, tid),
            TaskKind::Kernel(k) => k.name().to_string(),
            TaskKind::Idle => format!("swapper/{cpu}"),
        }
    }

    /// The mm of the user thread on `cpu`, else the mm the CPU has loaded (kernel
    /// threads run on it lazily), else mm 0.
    pub(crate) fn cpu_mm(&self, cpu: CpuId) -> u16 {
        self.curr(cpu).mm().or(self.st.cpus[cpu as usize].loaded_mm).unwrap_or(0)
    }

    /// Node of the CPU.
    #[inline]
    pub(crate) fn cpu_node(&self, cpu: CpuId) -> NodeId {
        self.cfg.topo.cpu_node[cpu as usize]
    }

    /// Takes lock `id` for `cpu`, charging `ns`; `false` means it is held elsewhere: the
    /// running task has joined its wait queue, and the caller must return
    /// `Flow::Block(Until::Lock(id))` and retry the same line when woken.
    pub(crate) fn lock(&mut self, cpu: CpuId, id: LockId, ns: u64) -> bool {
        let now = self.clock(cpu);
        let task = self.st.cpus[cpu as usize].curr;
        if self.st.locks.try_lock(id, cpu, task, now) {
            self.charge(cpu, ns);
            true
        } else {
            false
        }
    }

    /// Whether `task`, which found rwsem `id` held and joined its queue, spins rather than
    /// sleeps: `rwsem_optimistic_spin` (`CONFIG_RWSEM_SPIN_ON_OWNER`, 4fc828e24cd9, v3.16;
    /// read in v4.9 and v4.17 `kernel/locking/rwsem-xadd.c`) lets a *writer* spin while
    /// the lock is held for write by a task running on its CPU (`rwsem_can_spin_on_owner`,
    /// `rwsem_spin_on_owner`); it sleeps when readers hold it or the owner is not running.
    /// A spinning CPU keeps its mm loaded and non-lazy, so it takes the mm's shootdowns.
    /// Readers never spin before v5.3 (cf69482d62d9 let them); the model keeps them
    /// sleeping in every era. Decided when the wait starts: no owner in the model sleeps
    /// while holding a rwsem for write (mremap, munmap, mmap and fork's `dup_mmap` only
    /// spin on spinlocks and flush acknowledgements), so a spinner never has to give up.
    pub(crate) fn rwsem_spins(&self, task: u16, id: LockId) -> bool {
        id.class.is_rwsem()
            && !self.st.locks.waits_to_read(task)
            && self
                .st
                .locks
                .writer(id)
                .is_some_and(|(cpu, owner)| owner != task && self.st.cpus[cpu as usize].curr == owner)
    }

    /// Releases lock `id`, charging `ns`, and wakes the waiters the lock's class wakes:
    /// every spinner of a spinlock (they contend again from now on: a test-and-set
    /// spinlock, the v1 model), the first writer or every reader of a sleeping lock.
    pub(crate) fn unlock(&mut self, cpu: CpuId, id: LockId, ns: u64) {
        self.charge(cpu, ns);
        let now = self.clock(cpu);
        if self.st.locks.unlock(id, now) {
            let policy = if id.class.spins() { WakePolicy::All } else { WakePolicy::Rwsem };
            self.wake_queue(cpu, id, policy, now);
        }
    }

    /// Takes the waiters `policy` wakes out of `id`'s queue and makes each run again
    /// from `now`: a spinner stops spinning on its CPU, a sleeper is woken by `waker`
    /// (`try_to_wake_up`: placed by `select_task_rq_fair`, and it may preempt the task
    /// running there). Touches only the CPUs involved (no scan of the machine beyond a
    /// woken task's node).
    fn wake_queue(&mut self, waker: CpuId, id: LockId, policy: WakePolicy, now: u64) {
        let mut sleepers = std::mem::take(&mut self.st.woken);
        sleepers.clear();
        let st = &mut self.st;
        let mut waited = 0;
        st.locks.wake(id, policy, |task, since| {
            waited += now.saturating_sub(since);
            let t = &mut st.tasks[task as usize];
            if t.state == TaskState::Sleeping(None) {
                sleepers.push(task);
            } else {
                let c = &mut st.cpus[t.cpu as usize];
                c.wait = Wait::None;
                c.clock = c.clock.max(now);
                st.touched.set(t.cpu);
            }
        });
        self.st.locks.waited(id.class, waited);
        for &task in &sleepers {
            let se = &mut self.st.tasks[task as usize].se;
            if std::mem::take(&mut se.iowait) && self.profiling {
                self.st.prof.iowait_ns += now.saturating_sub(se.sleep_start);
            }
            crate::kernel::sched::fair::try_to_wake_up(self, task, waker, now);
        }
        self.st.woken = sleepers;
    }

    /// `unlock_page`: clears `PG_locked` and wakes the tasks waiting for it.
    pub(crate) fn unlock_page(&mut self, cpu: CpuId, pfn: u32) {
        self.st.frames.get_mut(pfn).flags &= !pg::LOCKED;
        let id = LockId::page(pfn);
        if self.st.locks.has_waiters(id) {
            let now = self.clock(cpu);
            self.wake_queue(cpu, id, WakePolicy::All, now);
        }
    }

    /// Runs to the end without keeping events (counters only).
    pub fn run_to_end(&mut self) -> Result<(), RunError> {
        let max = self.cfg.knobs.value(crate::mech::core::MAX_STEPS);
        while self.step().is_some() {
            if self.st.step > max {
                return Err(RunError::TooManySteps(max));
            }
        }
        self.check_stuck()
    }

    /// Whether the run stopped at its `window_ms` window (work still left is not stuck).
    pub fn window_closed(&self) -> bool {
        self.st.readyq.peek().is_some_and(|(t, _)| t >= self.cfg.window_end)
    }

    /// Errors if a CPU or user thread is left waiting when nothing can run.
    pub fn check_stuck(&self) -> Result<(), RunError> {
        if let Some(why) = &self.st.sched_error {
            return Err(RunError::Schedule(why.clone()));
        }
        if let Some((at, cpu)) = self.cfg.schedule.get(self.st.sched_pos as usize) {
            return Err(RunError::Schedule(format!(
                "pick {} (`{at}:{cpu}`): the run ended at step {}, before it",
                self.st.sched_pos + 1,
                self.st.step
            )));
        }
        if self.window_closed() {
            return Ok(());
        }
        let mut stuck: Vec<String> = self
            .st
            .cpus
            .iter()
            .filter(|c| !matches!(c.wait, Wait::None | Wait::Busy(_)))
            .map(|c| format!("CPU {} ({:?})", c.id, c.wait))
            .collect();
        stuck.extend(
            self.st
                .tasks
                .iter()
                .filter(|t| t.mm().is_some() && t.state != TaskState::Dead)
                .map(|t| format!("thread {} ({:?})", t.pid, t.state)),
        );
        if stuck.is_empty() {
            Ok(())
        } else {
            Err(RunError::Deadlock(stuck.join(", ")))
        }
    }
}

/// What `task` is, for the profile.
fn who(task: &Task) -> crate::profile::Who {
    match task.kind {
        TaskKind::User { .. } => crate::profile::Who::User,
        TaskKind::Kernel(_) => crate::profile::Who::Kthread,
        TaskKind::Idle => crate::profile::Who::Idle,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // reason: a test may stop at the first surprise
    use super::*;
    use crate::core::LockClass;

    /// Two threads of one process, one per CPU, that only compute.
    const TWO_THREADS: &str = r#"
format = 1
id = "lock-test"
title = "t"
description = "t"
seed = 1
[machine]
[[machine.node]]
cpus = [0, 1]
mem_pages = 16
[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 2
node = 0
[[process.thread]]
cpu = 0
ops = [{ op = "compute", ns = 100000 }]
[[process.thread]]
cpu = 1
ops = [{ op = "compute", ns = 100000 }]
"#;

    fn sim() -> Sim {
        let s = crate::scenario::parse(TWO_THREADS, &[]).unwrap();
        let mut sim = Sim::new(&s, &ToggleSet::default(), false);
        // Let both threads get onto their CPUs.
        while sim.st.cpus.iter().any(|c| c.curr == c.idle) {
            sim.step().unwrap();
        }
        sim
    }

    fn mmap_lock() -> LockId {
        LockId {
            class: LockClass::MmapLock,
            a: 0,
            b: 0,
        }
    }

    #[test]
    fn a_sleeping_lock_waiter_leaves_its_cpu_and_is_woken_onto_its_run_queue() {
        let mut sim = sim();
        let id = mmap_lock();
        let waiter = sim.st.cpus[1].curr;
        assert!(sim.lock(0, id, 0));
        // A reader (a page fault) never spins on a rwsem before v5.3: it sleeps.
        assert!(!sim.st.locks.try_read(id, 1, waiter, 0));
        assert!(!sim.rwsem_spins(waiter, id));
        sim.block(1, waiter, Until::Lock(id));
        let c1 = &sim.st.cpus[1];
        assert_eq!(c1.curr, c1.idle, "the waiter gave CPU 1 away");
        assert_eq!(c1.wait, Wait::None, "nothing spins on CPU 1");
        assert!(c1.lazy, "CPU 1 idles in lazy TLB mode with the mm still loaded");
        assert_eq!(sim.st.tasks[waiter as usize].state, TaskState::Sleeping(None));
        sim.charge(0, 5_000);
        sim.unlock(0, id, 0);
        assert_eq!(sim.st.tasks[waiter as usize].state, TaskState::Runnable);
        assert_eq!(sim.st.cpus[1].rq.front(), Some(&waiter));
        assert!(sim.st.cpus[1].clock >= sim.st.cpus[0].clock, "the wake-up is not in CPU 1's past");
        let s = sim.st.locks.stats(LockClass::MmapLock);
        assert_eq!((s.acquired, s.contended), (1, 1));
        assert!(s.wait_ns >= 5_000, "the wait is accounted: {}", s.wait_ns);
    }

    #[test]
    fn a_writer_spins_on_a_rwsem_while_its_writer_owner_runs() {
        let mut sim = sim();
        let id = mmap_lock();
        let waiter = sim.st.cpus[1].curr;
        assert!(sim.lock(0, id, 0), "CPU 0's running thread takes mmap_lock for writing");
        assert!(!sim.lock(1, id, 0));
        assert!(sim.rwsem_spins(waiter, id), "its owner runs: RWSEM_SPIN_ON_OWNER");
        sim.block(1, waiter, Until::Lock(id));
        let c1 = &sim.st.cpus[1];
        assert_eq!(c1.curr, waiter, "the spinner keeps CPU 1");
        assert_eq!(c1.wait, Wait::Lock(id));
        assert!(!c1.lazy, "and stays non-lazy in mm_cpumask, so it takes the mm's shootdowns");
        sim.charge(0, 2_000);
        sim.unlock(0, id, 0);
        assert_eq!(sim.st.cpus[1].wait, Wait::None, "the release ends the spin");
        assert!(sim.lock(1, id, 0));
        // Held for read (a fault holds it), a writer sleeps: no owner to spin on.
        sim.unlock(1, id, 0);
        let reader = sim.st.cpus[0].curr;
        assert!(sim.st.locks.try_read(id, 0, reader, 0));
        assert!(!sim.lock(1, id, 0));
        assert!(!sim.rwsem_spins(waiter, id));
    }

    #[test]
    fn a_spinlock_waiter_spins_on_its_cpu_until_the_release() {
        let mut sim = sim();
        let id = LockId::ptl(0, 0);
        let waiter = sim.st.cpus[1].curr;
        assert!(sim.lock(0, id, 0));
        assert!(!sim.lock(1, id, 0));
        sim.block(1, waiter, Until::Lock(id));
        assert_eq!(sim.st.cpus[1].curr, waiter, "a spinner keeps its CPU");
        assert_eq!(sim.st.cpus[1].wait, Wait::Lock(id));
        sim.charge(0, 3_000);
        sim.unlock(0, id, 0);
        assert_eq!(sim.st.cpus[1].wait, Wait::None);
        assert_eq!(
            sim.st.cpus[1].clock, sim.st.cpus[0].clock,
            "it stops spinning when the lock is released"
        );
        assert!(sim.lock(1, id, 0), "and now takes it");
    }

    /// A thread waiting for a page under migration sleeps (`__migration_entry_wait` →
    /// io_schedule): its CPU idles meanwhile, its time asleep is iowait, not system time
    /// and no function's, and the unlock wakes it onto its idle CPU; a spinning waiter's
    /// time stays system time.
    #[test]
    fn a_wait_for_a_page_under_migration_sleeps_as_iowait_and_spinning_is_system_time() {
        let mut sim = sim();
        sim.profiling = true;
        let pfn = 0;
        sim.st.frames.get_mut(pfn).flags |= pg::LOCKED;
        let waiter = sim.st.cpus[1].curr;
        // The waiter is in the kernel (a fault) when it waits.
        sim.st.stacks[waiter as usize].push(crate::mm::memory::HandleMmFault::frame(0, false), NO_CAUSE);
        sim.charge_profile(1);
        let (sys0, io0, idle0) = (sim.st.prof.sys_ns, sim.st.prof.iowait_ns, sim.st.prof.idle_ns);
        let fault0 = sim.st.prof.time_in("handle_pte_fault");
        sim.block(1, waiter, Until::PageUnlocked(pfn));
        assert_eq!(sim.st.tasks[waiter as usize].state, TaskState::Sleeping(None), "the waiter sleeps");
        assert_eq!(sim.st.cpus[1].curr, sim.st.cpus[1].idle, "and CPU 1 idles");
        sim.charge(0, 7_000);
        sim.unlock_page(0, pfn);
        assert_eq!(sim.st.tasks[waiter as usize].state, TaskState::Runnable, "woken by the unlock");
        assert_eq!(sim.st.cpus[1].rq.front(), Some(&waiter), "onto its idle CPU");
        sim.charge_profile(1);
        assert!(
            sim.st.prof.iowait_ns - io0 >= 7_000,
            "the wait is iowait: {}",
            sim.st.prof.iowait_ns - io0
        );
        assert!(sim.st.prof.idle_ns - idle0 >= 7_000, "CPU 1 was idle meanwhile");
        assert_eq!(sim.st.prof.sys_ns, sys0, "and not system time");
        assert_eq!(sim.st.prof.time_in("handle_pte_fault"), fault0, "nor any function's");
        crate::kernel::sched::core::schedule(&mut sim, 1);
        assert_eq!(sim.st.cpus[1].curr, waiter);
        // The same wait spinning on a lock is system time of the waiting function.
        let id = LockId::ptl(0, 0);
        assert!(sim.lock(0, id, 0));
        assert!(!sim.lock(1, id, 0));
        sim.block(1, waiter, Until::Lock(id));
        sim.charge(0, 4_000);
        sim.unlock(0, id, 0);
        sim.charge_profile(1);
        assert!(sim.st.prof.sys_ns - sys0 >= 4_000, "spinning is system time");
        assert!(sim.st.prof.time_in("handle_pte_fault") - fault0 >= 4_000);
    }
}
