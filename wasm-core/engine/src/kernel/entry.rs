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
use crate::kernel::sched::numa::TICK_NS;
use crate::machine::access_index::{AccessIndex, Pattern};
use crate::machine::pg;
use crate::mech::core::ev as core_ev;
use crate::mech::core::{ACCESSES, TLB_MISSES};
use crate::mech::core::{FAULT_ENTRY_NS, PAGE_WALK_NS};
use crate::mm::memory::HandleMmFault;
use crate::registry::{Frame, Function};
use crate::scenario::{ArgDef, ArgKind, Op, OpDef, OpRun};
use crate::topology::CpuId;
use crate::trace::Ev;
use rand::{Rng, RngCore};

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
    /// A run of `bulk` accesses is over (`left` accesses at `vpn` ps each; `write`: the
    /// run ends at an access that needs the walk or a fault).
    RunDone,
    /// A run of `bulk` accesses was preempted after `left` of them.
    RunPreempted,
    /// The owed weighted kernel time (`NumaStats::debt`) has passed.
    DebtDone,
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

    /// Whether the thread is paying owed kernel time (`NumaStats::debt`), which stands for
    /// kernel work, not user code.
    pub fn paying_debt(&self) -> bool {
        self.pc == Pc::DebtDone
    }

    /// The scheduler tick preempted this thread's computation with `left` ns of it to go.
    /// Returns true if that was owed kernel time (the caller puts `left` back in the debt).
    pub fn preempt(&mut self, left: u64) -> bool {
        if self.pc == Pc::DebtDone {
            self.pc = Pc::Fetch;
            return true;
        }
        if self.pc == Pc::ComputeDone {
            self.left = left;
            self.pc = Pc::ComputeResume;
        } else if self.pc == Pc::RunDone {
            // The accesses the rest of the run would have made are not made; a new run is
            // drawn when the thread is back (the draw is memoryless).
            let per_ps = u64::from(self.vpn.max(1));
            let undone = (u128::from(left) * 1000).div_ceil(u128::from(per_ps)) as u64;
            self.left = self.left.saturating_sub(undone);
            self.pc = Pc::RunPreempted;
        }
        false
    }

    /// The operation list of `task`.
    fn ops(sim: &Sim, task: u16) -> &[Op] {
        let ops = sim.st.tasks[task as usize].ops as usize;
        sim.cfg.ops.get(ops).map_or(&[], |v| v.as_slice())
    }

    /// Moves `task` past one completed unit of its current operation.
    fn advance(&mut self, sim: &mut Sim, task: u16) {
        self.advance_by(sim, task, 1);
    }

    /// Moves `task` past `n` completed units of its current operation.
    fn advance_by(&mut self, sim: &mut Sim, task: u16, n: u64) {
        let Some(op) = Self::ops(sim, task).get(self.op as usize) else {
            return;
        };
        let mm = sim.st.tasks[task as usize].mm().unwrap_or(0);
        self.done += n;
        let len = match *op {
            Op::Access { repeat, .. } => u64::from(repeat),
            Op::Touch { vma, .. } => u64::from(sim.st.mms[mm as usize].vmas[vma as usize].pages),
            Op::Random { count, .. } => count,
            Op::Sleep { .. } | Op::Compute { .. } | Op::Yield | Op::Exit | Op::Call { .. } | Op::Loop { .. } => 1,
        };
        if matches!(op, Op::Access { .. } | Op::Touch { .. } | Op::Random { .. } | Op::Call { .. }) {
            let cpu = sim.st.tasks[task as usize].cpu;
            crate::mech::core::ops_done(sim, cpu, n);
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
        // Weighted kernel work owed since the last return to user space passes now, as
        // busy time that takes interrupts (the kernel work it stands for runs with them on).
        if let Some(until) = sim.pay_debt(cpu) {
            self.pc = Pc::DebtDone;
            let ev = Ev::new(core_ev::OP_START, "exit_to_user_mode", "E0b").say(say!(
                sim,
                "Thread {} still owes {} ns of kernel time: the hint faults it handled each stood for numa_mem_scale real ones",
                sim.task_name(cpu),
                until - sim.clock(cpu)
            ));
            return (ev, Flow::Block(Until::Busy(until)));
        }
        // A swap asked for while the task ran kernel code (NUMA balancing's migrate_swap):
        // both tasks move at once, or this CPU's stopper waits for the partner's.
        let curr = sim.st.cpus[c].curr;
        if let Some(other) = sim.st.tasks[curr as usize].swap_with {
            use crate::kernel::sched::core::SwapReady;
            let to = sim.st.tasks[other as usize].cpu;
            let (me, them) = (sim.task_name(cpu), sim.st.tasks[other as usize].pid);
            match crate::kernel::sched::core::swap_ready(sim, curr) {
                SwapReady::Now => {
                    let ev = Ev::new(core_ev::SWITCH, "exit_to_user_mode", "E0").say(say!(
                        sim,
                        "Thread {me} changes places with thread {them} (migrate_swap: the stoppers of CPU {cpu} and CPU {to} move both at once): it goes to CPU {to} (node {}), thread {them} to CPU {cpu}",
                        sim.cpu_node(to)
                    ));
                    return (ev, Flow::Block(Until::Swap));
                }
                SwapReady::Wait => {
                    let ev = Ev::new(core_ev::SWITCH, "exit_to_user_mode", "E0").say(say!(
                        sim,
                        "Thread {me} is to change places with thread {them} (migrate_swap), which runs kernel code on CPU {to}: CPU {cpu}'s stopper spins until CPU {to}'s can run"
                    ));
                    return (ev, Flow::Block(Until::Swap));
                }
                // migrate_swap_stop's -EAGAIN: the partner is not where the swap wanted it.
                SwapReady::Cancel => crate::kernel::sched::core::migrate_swap(sim, cpu, curr),
            }
        }
        // A move asked for while the task ran kernel code (NUMA balancing's
        // migrate_task_to, or an active balance): the migration stopper moves it now.
        if let Some(to) = sim.st.tasks[curr as usize].move_to {
            let allowed = sim.st.tasks[curr as usize].cpus_allowed.test(to) && to != cpu;
            if allowed {
                let ev = Ev::new(core_ev::SWITCH, "exit_to_user_mode", "E0").say(say!(
                    sim,
                    "Thread {} was asked to move to CPU {to} (node {}): the migration stopper takes it off CPU {cpu} and queues it there",
                    sim.task_name(cpu),
                    sim.cpu_node(to)
                ));
                return (ev, Flow::Block(Until::Migrate(to)));
            }
            sim.st.tasks[curr as usize].move_to = None;
        }
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
        if let Some(ev) = crate::kernel::sched::core::nohz_idle_balance(sim, cpu) {
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
            if let Some(wait) = crate::mm::mmap::exit_mmap_wait(sim, cpu, "do_exit", "X1") {
                return wait;
            }
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
                        "Thread {} sleeps for {ns} ns: CPU {cpu} runs the idle task in lazy TLB mode (mm loaded, in mm_cpumask; {})",
                        sim.task_name(cpu),
                        match sim.cfg.toggles.index(crate::mech::core::TLB_LAZY) {
                            2 => "flush IPIs skip it unless page tables are freed",
                            1 if sim.cfg.knobs.on(crate::mech::core::PCID) =>
                                "v4.14-v4.19 with PCID: it switches to init_mm at once and leaves the mask",
                            _ => "before v4.20 the next flush IPI still reaches it",
                        }
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
                if let Some(wait) = crate::mm::mmap::exit_mmap_wait(sim, cpu, "do_exit", "X1") {
                    return wait;
                }
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
            Op::Random {
                vma,
                write_percent,
                count,
                bulk: true,
                weight,
                pattern,
            } => return self.run(sim, cpu, vma, pattern, write_percent, weight, count - self.done.min(count)),
            Op::Random {
                vma,
                write_percent,
                pattern,
                ..
            } => {
                let len = sim.st.mms[mm as usize].vmas[vma as usize].pages;
                let page = pattern.draw(len, &mut sim.st.rng);
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
                let found = crate::mm::page_writeback::user_access(sim, cpu, mm, self.vpn, e.pfn, self.write, Some(e));
                let found = found.map(|f| format!(": {f}")).unwrap_or_default();
                let ev = Ev::new(core_ev::ACCESS, "user code", "E6").pte(pid, self.vpn).pfn(e.pfn).say(say!(
                    sim,
                    "Thread {} {what} page {:#x}: TLB hit, pfn {} on node {nid} ({ns} ns){found}",
                    sim.task_name(cpu),
                    self.vpn,
                    e.pfn
                ));
                self.complete(sim, cpu, ns);
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
                    crate::mm::page_writeback::set_page_dirty(sim, pfn);
                    crate::mm::page_writeback::account_page_dirtied(sim);
                }
                crate::mm::page_writeback::user_access(sim, cpu, mm, self.vpn, pfn, true, None);
            }
            let entry = crate::machine::TlbEntry {
                mm,
                vpn: self.vpn,
                pfn,
                write: young.write(),
                dirty: young.dirty(),
                frame_gen: sim.st.frames.owner_gen(pfn),
                fill_gen: sim.st.mms[mm as usize].tlb_gen as u32,
                doomed: crate::machine::Doom::No,
            };
            sim.st.cpus[c].tlb.insert_entry(entry);
            let nid = sim.page_nid(pfn);
            let ns = sim.dram_ns(cpu, nid);
            sim.charge(cpu, ns);
            let ev = Ev::new(core_ev::PAGE_WALK, "mmu_walk", "MW1").pte(pid, self.vpn).pfn(pfn).say(say!(
                sim,
                "Walk: PTE of {:#x} is present (pfn {pfn}, node {nid}); the MMU sets A{} and caches it in CPU {cpu}'s TLB",
                self.vpn,
                if self.write { "+D" } else { "" }
            ));
            self.complete(sim, cpu, ns);
            return (ev, Flow::Continue);
        }
        // With numa_mem_scale N the modelled page stands for N real ones, each of which
        // takes this fault.
        sim.charge_weighted(cpu, sim.cfg.costs[FAULT_ENTRY_NS], sim.cfg.mem_scale);
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

    /// One access is done (its DRAM time `ns`): count it and move on. A weighted `bulk`
    /// access stands for `weight` real ones: the others take as long and count too.
    fn complete(&mut self, sim: &mut Sim, cpu: CpuId, ns: u64) {
        let task = sim.st.cpus[cpu as usize].curr;
        if let Some(&Op::Random { bulk: true, weight, .. }) = Self::ops(sim, task).get(self.op as usize) {
            let more = u64::from(weight.max(1)) - 1;
            sim.charge(cpu, more * ns);
            crate::mech::core::ops_done(sim, cpu, more);
        }
        sim.st.counters.inc(ACCESSES);
        self.advance(sim, task);
        self.pc = Pc::Fetch;
    }

    /// Starts a run of `bulk` random accesses to VMA `vma` (`left` still to make): as many
    /// as the time to the next tick holds, fewer when one before that finds its PTE slow
    /// (`machine/access_index.rs`). Each access of a run picks a page with `pattern`, is a
    /// store with `write_percent` % and is slow with the slow pages' share of the draws for
    /// its kind, so the fast accesses before the first slow one are geometric. A run costs
    /// what its accesses would on average: the DRAM latency of the node mix of the fast
    /// pages (weighed by their shares), and the walk of a TLB miss for the share of draws
    /// the TLB cannot hold (an LRU TLB of `e` entries holds at best the `e` likeliest
    /// pages: `e / n` of uniform accesses over `n` pages). PTE changes other
    /// CPUs make during a run are seen by the next one, at most a tick later. With a
    /// `weight` of `w`, each modelled access stands for `w` real ones to the working set
    /// the modelled pages sample: it takes `w` accesses' time and counts `w` workload
    /// operations, so each modelled page is accessed as often as a real one.
    #[allow(clippy::too_many_arguments)] // reason: the fields of one Op::Random, taken apart
    fn run(
        &mut self,
        sim: &mut Sim,
        cpu: CpuId,
        vma: u16,
        pattern: Pattern,
        write_percent: u8,
        weight: u32,
        left: u64,
    ) -> (Ev, Flow<Frame>) {
        let mm = sim.cpu_mm(cpu);
        let i = access_index(sim, mm, vma, pattern);
        let ix = &sim.st.mms[mm as usize].access[i];
        // Sums of shares (page counts when uniform).
        let pages = u64::from(ix.total().max(1));
        let wp = u64::from(write_percent);
        let slow = (100 - wp) * u64::from(ix.load_slow_share()) + wp * u64::from(ix.store_slow_share());
        let fast: u64 = ix.fast_on().iter().map(|&f| u64::from(f)).sum();
        let nodes = &sim.cfg.topo.nodes;
        let dram_ps: u64 = ix
            .fast_on()
            .iter()
            .zip(nodes)
            .map(|(&f, n)| u64::from(f) * sim.dram_ns(cpu, n.id) * 1000)
            .sum::<u64>()
            .checked_div(fast)
            .unwrap_or(0);
        let misses = pages.saturating_sub(u64::from(ix.tlb_held()));
        let walk_ps = (1 + sim.cfg.costs[PAGE_WALK_NS]) * 1000 * misses / pages;
        // Kept in `vpn` while the run lasts: up to 4.29 ms a modelled access (4096 accesses of
        // about 1 us at most, the `weight` limit).
        let per_ps = ((dram_ps + walk_ps) * u64::from(weight.max(1))).clamp(1, u64::from(u32::MAX));
        let clock = sim.clock(cpu);
        let tick_end = (clock / TICK_NS + 1) * TICK_NS;
        let room = ((tick_end - clock) * 1000 / per_ps).max(1).min(left);
        // Fast accesses before the first slow one: geometric with the slow share q,
        // floor(ln U / ln(1 - q)) for U uniform in (0, 1] (libm: the same bits natively
        // and in wasm).
        let fast_run = if slow == 0 {
            u64::MAX
        } else if slow >= 100 * pages {
            0
        } else {
            let q = slow as f64 / (100 * pages) as f64;
            let u = ((sim.st.rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
            let g = libm::log(u) / libm::log1p(-q);
            if g >= room as f64 {
                u64::MAX
            } else {
                g as u64
            }
        };
        let (k, then_slow) = if fast_run >= room { (room, false) } else { (fast_run, true) };
        if k == 0 {
            return self.slow_access(sim, cpu, String::new());
        }
        self.pc = Pc::RunDone;
        self.left = k;
        self.vpn = per_ps as u32;
        self.write = then_slow;
        let ns = (u128::from(k) * u128::from(per_ps)).div_ceil(1000) as u64;
        let ev = Ev::new(core_ev::OP_START, "user code", "E9").say(say!(
            sim,
            "Thread {} makes {k} random {} whose {} nothing from the MMU or the kernel ({ns} ns{}){}",
            sim.task_name(cpu),
            if k == 1 { "access" } else { "accesses" },
            if k == 1 { "PTE needs" } else { "PTEs need" },
            if weight > 1 {
                format!(
                    ", each standing for {weight} real accesses of {} ns",
                    per_ps / 1000 / u64::from(weight)
                )
            } else if k > 1 {
                format!(", {}.{:03} ns each on average", per_ps / 1000, per_ps % 1000)
            } else {
                String::new()
            },
            if then_slow { "; the next one finds its PTE slow" } else { "" }
        ));
        (ev, Flow::Block(crate::core::Until::Busy(clock + ns)))
    }

    /// A run is over: count it, then make the slow access it ended at, if any.
    fn run_done(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let task = sim.st.cpus[cpu as usize].curr;
        let n = self.left;
        self.count_run(sim, task, n);
        self.pc = Pc::Fetch;
        let text = say!(
            sim,
            "Thread {} has made {n} {}",
            sim.task_name(cpu),
            if n == 1 { "access" } else { "accesses" }
        );
        if self.write {
            return self.slow_access(sim, cpu, text);
        }
        // The run is over (at a tick, or at the operation's end): what a return to user space
        // does next (task_work, the slice end, the next run), in this same step.
        let (mut ev, flow) = self.fetch(sim, cpu);
        if sim.recording {
            ev.text = format!("{text}; then: {}", ev.text);
        }
        (ev, flow)
    }

    /// Counts `n` accesses of a run: the operation's progress, and the TLB misses the
    /// run's pages make on average.
    fn count_run(&mut self, sim: &mut Sim, task: u16, n: u64) {
        let mut weight = 1;
        if let Some(&Op::Random {
            vma, weight: w, pattern, ..
        }) = Self::ops(sim, task).get(self.op as usize)
        {
            let mm = sim.st.tasks[task as usize].mm().unwrap_or(0);
            let i = access_index(sim, mm, vma, pattern);
            let ix = &sim.st.mms[mm as usize].access[i];
            let pages = u64::from(ix.total().max(1));
            let misses = pages.saturating_sub(u64::from(ix.tlb_held()));
            sim.st.counters.add(TLB_MISSES, n * misses / pages);
            weight = u64::from(w.max(1));
        }
        sim.st.counters.add(ACCESSES, n);
        self.advance_by(sim, task, n);
        // The real accesses the modelled ones stand for count as workload operations.
        let cpu = sim.st.tasks[task as usize].cpu;
        crate::mech::core::ops_done(sim, cpu, n * (weight - 1));
    }

    /// The access a run ended at: a load or a store (weighed by the slow pages' shares of
    /// each kind) of a slow page drawn with the pattern, through the TLB and the walk.
    fn slow_access(&mut self, sim: &mut Sim, cpu: CpuId, before: String) -> (Ev, Flow<Frame>) {
        let task = sim.st.cpus[cpu as usize].curr;
        let Some(&Op::Random {
            vma,
            write_percent,
            pattern,
            ..
        }) = Self::ops(sim, task).get(self.op as usize)
        else {
            return (Ev::new(core_ev::OP_START, "user code", "E9").say(before), Flow::Continue);
        };
        let mm = sim.cpu_mm(cpu);
        let i = access_index(sim, mm, vma, pattern);
        let ix = &sim.st.mms[mm as usize].access[i];
        let wp = u64::from(write_percent);
        let (ls, ss) = (u64::from(ix.load_slow_share()), u64::from(ix.store_slow_share()));
        let total = (100 - wp) * ls + wp * ss;
        if total == 0 {
            // Another CPU has made every page fast since the run was drawn.
            return (Ev::new(core_ev::OP_START, "user code", "E9").say(before), Flow::Continue);
        }
        let store = sim.st.rng.random_range(0..total) < wp * ss;
        let slow = if store { ss } else { ls };
        let k = sim.st.rng.random_range(0..slow) as u32;
        let ix = &sim.st.mms[mm as usize].access[i];
        self.vpn = ix.slow_page(store, k);
        self.write = store;
        let (mut ev, flow) = self.lookup(sim, cpu);
        if sim.recording && !before.is_empty() {
            ev.text = format!("{before}; then: {}", ev.text);
        }
        (ev, flow)
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
            Pc::RunDone => self.run_done(sim, cpu),
            Pc::DebtDone => {
                self.pc = Pc::Fetch;
                self.fetch(sim, cpu)
            }
            Pc::RunPreempted => {
                let task = sim.st.cpus[cpu as usize].curr;
                let n = self.left;
                self.count_run(sim, task, n);
                self.pc = Pc::Fetch;
                let ev = Ev::new(core_ev::OP_START, "user code", "E9").say(say!(
                    sim,
                    "Thread {} is back on CPU {cpu}; it had made {n} access(es) of its run before the tick preempted it",
                    sim.task_name(cpu)
                ));
                (ev, Flow::Continue)
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
            ArgDef::optional(
                "bulk",
                ArgKind::Bool,
                0,
                "Draw the accesses that need nothing from the kernel in runs, one step per run of up to a tick: the same pages and faults in distribution, without an event or a TLB fill per access (for long runs).",
            ),
            ArgDef::optional(
                "weight",
                ArgKind::Int { min: 1, max: 4096 },
                1,
                "With `bulk`: real accesses each modelled one stands for (it takes their time and counts as that many operations), for a scenario whose pages sample a larger working set; up to 4096.",
            ),
            ArgDef::optional(
                "stdev",
                ArgKind::Int { min: 0, max: 1 << 31 },
                0,
                "0: pages are drawn uniformly. Else pmbench's `normal` pattern: page floor(n/2 + stdev * Z) of the VMA's n for a standard normal Z (n/2 when outside), `stdev` in pages.",
            ),
        ],
        run: OpRun::User(|a| Op::Random {
            vma: a[0] as u16,
            count: a[1],
            write_percent: a[2] as u8,
            bulk: a[3] != 0,
            weight: a[4] as u32,
            pattern: Pattern::from_stdev(a[5] as u32),
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

/// The position in `mm`'s access indexes of VMA `vma`'s for `pattern`, built from the page
/// table when there is none or the VMA has moved or changed size since (an index of another
/// range the VMA now overlaps is dropped).
fn access_index(sim: &mut Sim, mm: u16, vma: u16, pattern: Pattern) -> usize {
    let m = &sim.st.mms[mm as usize];
    let v = &m.vmas[vma as usize];
    let (start, pages) = (v.start, v.pages);
    if let Some(i) = m
        .access
        .iter()
        .position(|ix| ix.start == start && ix.pages == pages && ix.pattern == pattern)
    {
        return i;
    }
    let nodes = sim.cfg.topo.pfn_ranges();
    let tlb = sim.cfg.topo.tlb_entries;
    let m = &mut sim.st.mms[mm as usize];
    let ix = AccessIndex::build(start, pages, pattern, tlb, nodes, |vpn| m.pgtable.pte(vpn));
    m.access
        .retain(|ix| (ix.start == start && ix.pages == pages) || ix.start + ix.pages <= start || start + pages <= ix.start);
    m.access.push(std::rc::Rc::new(ix));
    m.access.len() - 1
}
