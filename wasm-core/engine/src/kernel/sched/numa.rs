//! NUMA balancing in the scheduler (`kernel/sched/fair.c`, Linux v5.12): the scan
//! trigger `task_tick_numa`, the scanner `task_numa_work` with `task_scan_min` /
//! `task_scan_max`, `should_numa_migrate_memory` (the two-stage filter), and
//! `task_numa_fault` with `task_numa_placement` and `update_task_scan_period`.
//!
//! NUMA groups (`task_numa_group`, the group statistics) are in `numa_group.rs`; the
//! group branches of the filter, of `task_numa_fault`, `task_numa_placement` and
//! `task_scan_max` are here.
//!
//! Moving a task to its preferred node (`task_numa_migrate`) is in `numa_migrate.rs`.
//!
//! Left out: the VMA skip tests of `task_numa_work` other than the explicit VMA list
//! (every modelled VMA is migratable, MOF and accessible), and `mmap_read_trylock` (the
//! scan never meets a writer). `task_tick_numa` runs at each return to user space
//! rather than at each tick; it compares runtime, so it fires at most one tick early.

use crate::core::{Flow, Ret};
use crate::engine::{say, Sim};
use crate::kernel::sched::numa_group::{self, Grouping, ACTIVE_NODE_FRACTION, CPU, CPUBUF, MEM, MEMBUF};
use crate::kernel::sched::numa_migrate::{task_numa_migrate, Placement};
use crate::machine::task::{FilterRule, HintOutcome, HintRecord, MigrateFail, UnmapCause};
use crate::machine::{TaskKind, CPUPID_UNSET};
use crate::mech::core::ev as core_ev;
use crate::mech::numa::ev as numa_ev;
use crate::mech::numa::{NUMA_ACCOUNT_NS, NUMA_WORK_NS, SCAN_SIZE_MB, SCAN_SIZE_PAGES};
use crate::mech::numa::{NUMA_EARLY_MIGRATE, NUMA_PLACEMENT_V4_19, NUMA_SCAN_RESET_ON_MOVE, NUMA_TASK_MIGRATED, NUMA_TASK_SWAPPED};
use crate::mech::numa::{NUMA_SCANS, SCAN_DELAY_MS, SCAN_PERIOD_MAX_MS, SCAN_PERIOD_MIN_MS, SCAN_PERIOD_NS};
use crate::mm::mprotect::ChangeProtNuma;
use crate::registry::{Frame, Function};
use crate::topology::{CpuId, NodeId};
use crate::trace::Ev;

/// `TICK_NSEC` at HZ = 250.
pub const TICK_NS: u64 = 4_000_000;
/// `MAX_SCAN_WINDOW`: at most 2560 MB scanned per second (v5.12), in 4 KiB pages.
const MAX_SCAN_WINDOW_PAGES: u64 = 2560 << 8;
/// `NUMA_PERIOD_SLOTS` and `NUMA_PERIOD_THRESHOLD` of `update_task_scan_period`.
const NUMA_PERIOD_SLOTS: i64 = 10;
const NUMA_PERIOD_THRESHOLD: i64 = 7;
/// `LAST__PID_SHIFT`: `page->flags` keeps the low 8 bits of the pid.
const LAST_PID_MASK: u32 = 0xff;
const NS_PER_MS: u64 = 1_000_000;

/// The memory scale divisor (`numa_mem_scale`).
fn mem_scale(sim: &Sim) -> u64 {
    sim.cfg.mem_scale
}

/// `sysctl_numa_balancing_scan_size` in pages: `scan_size_pages` if set, else the MB
/// sysctl divided by the memory scale.
pub fn scan_size_pages(sim: &Sim) -> u64 {
    match sim.cfg.knobs.get(SCAN_SIZE_PAGES) {
        Some(p) => p.max(1),
        None => ((sim.cfg.knobs.value(SCAN_SIZE_MB) << 8) / mem_scale(sim)).max(1),
    }
}

/// `sysctl_numa_balancing_scan_delay` (ms); `scan_period_ms` overrides it.
pub fn scan_delay_ms(sim: &Sim) -> u64 {
    match sim.cfg.knobs.get(SCAN_PERIOD_NS) {
        Some(ns) => ns / NS_PER_MS,
        None => sim.cfg.knobs.value(SCAN_DELAY_MS),
    }
}

/// `sysctl_numa_balancing_scan_period_min` (ms); `scan_period_ms` overrides it.
fn scan_period_min_ms(sim: &Sim) -> u64 {
    match sim.cfg.knobs.get(SCAN_PERIOD_NS) {
        Some(ns) => ns / NS_PER_MS,
        None => sim.cfg.knobs.value(SCAN_PERIOD_MIN_MS),
    }
}

/// `task_nr_scan_windows`: the mm's RSS in scan-size windows, rounded up (at least one).
fn task_nr_scan_windows(sim: &Sim, mm: u16) -> u64 {
    let n = scan_size_pages(sim);
    let rss = sim.st.mms[mm as usize].rss();
    let rss = if rss == 0 { n } else { rss };
    rss.div_ceil(n)
}

/// `task_scan_min` (ms): the scan-period floor, `scan_period_min` spread over the RSS's
/// windows, but no faster than `MAX_SCAN_WINDOW` allows.
pub fn task_scan_min(sim: &Sim, mm: u16) -> u64 {
    let size = scan_size_pages(sim);
    let max_window = MAX_SCAN_WINDOW_PAGES / mem_scale(sim);
    let windows = if size < max_window { max_window / size } else { 1 };
    let floor = 1000 / windows;
    let scan = scan_period_min_ms(sim) / task_nr_scan_windows(sim, mm);
    floor.max(scan)
}

/// `task_scan_max` (ms) of task `task`: `scan_period_max` spread over the RSS's
/// windows, at least `task_scan_min`; a task in a NUMA group scales it by the group's
/// tasks and its share of shared faults.
pub fn task_scan_max(sim: &Sim, task: usize, mm: u16) -> u64 {
    let smin = task_scan_min(sim, mm);
    let mut smax = sim.cfg.knobs.value(SCAN_PERIOD_MAX_MS) / task_nr_scan_windows(sim, mm);
    if let Some(g) = sim.st.tasks[task].numa.group.map(|g| &sim.st.numa_groups[g as usize]) {
        let (shared, private) = g.faults_shared_priv();
        let period = smax * u64::from(g.nr_tasks) * (shared + 1) / (private + shared + 1);
        smax = smax.max(period);
    }
    smin.max(smax)
}

/// `task_scan_start` (ms; v4.14+, kernel/sched/fair.c): the period a task's scan (re)starts
/// from: `task_scan_min`, scaled up for a task in a NUMA group by the group's tasks and its
/// share of shared faults, as `task_scan_max` scales the maximum.
pub fn task_scan_start(sim: &Sim, task: usize, mm: u16) -> u64 {
    let smin = task_scan_min(sim, mm);
    match sim.st.tasks[task].numa.group.map(|g| &sim.st.numa_groups[g as usize]) {
        Some(g) => {
            let (shared, private) = g.faults_shared_priv();
            smin.max(smin * u64::from(g.nr_tasks) * (shared + 1) / (private + shared + 1))
        }
        None => smin,
    }
}

/// `update_scan_period(p, new_cpu)` (kernel/sched/fair.c v5.12; 3f9672baaa0d, v4.19), from
/// `migrate_task_rq_fair` when `task` leaves CPU `from` for CPU `to`: a move across nodes
/// restarts the scan period of a task with NUMA faults at `task_scan_start`, so its next
/// faults soon show how it is placed now. Not when it moves to its preferred node, nor,
/// once it has seen a scan pass, when it was away from its preferred node already. Before
/// v4.19 (the toggle off) only `task_numa_migrate` restarted the period, of the task it
/// moved.
pub(crate) fn update_scan_period(sim: &mut Sim, task: usize, from: CpuId, to: CpuId) {
    if !sim.cfg.toggles.on(NUMA_SCAN_RESET_ON_MOVE) {
        return;
    }
    let t = &sim.st.tasks[task];
    let Some(mm) = t.mm() else { return };
    let (src, dst) = (sim.cpu_node(from), sim.cpu_node(to));
    if t.numa.faults.is_empty() || src == dst {
        return;
    }
    let pref = t.numa.preferred_nid;
    if t.numa.scan_seq != 0 && (pref == Some(dst) || pref.is_some_and(|p| p != src)) {
        return;
    }
    let p = task_scan_start(sim, task, mm);
    sim.st.tasks[task].numa.scan_period_ms = p as u32;
}

/// `cpu_pid_to_cpupid(cpu, pid)`: the CPU above the low 8 bits of the thread's pid.
pub fn cpu_pid_to_cpupid(cpu: CpuId, pid: u16) -> u32 {
    (u32::from(cpu) << 8) | (u32::from(pid) & LAST_PID_MASK)
}

/// `cpupid_pid_unset`: the pid bits are all ones (a fresh page, or a pid ending in 0xff).
pub fn cpupid_pid_unset(cpupid: u32) -> bool {
    cpupid & LAST_PID_MASK == LAST_PID_MASK
}

/// `cpupid_match_pid(task, cpupid)`.
pub fn cpupid_match_pid(pid: u16, cpupid: u32) -> bool {
    u32::from(pid) & LAST_PID_MASK == cpupid & LAST_PID_MASK
}

/// `cpupid_to_cpu`.
fn cpupid_to_cpu(cpupid: u32) -> CpuId {
    (cpupid >> 8) as CpuId
}

/// The runtime (`se.sum_exec_runtime`) of the task running on `cpu`, now.
fn runtime(sim: &Sim, cpu: CpuId) -> u64 {
    let t = &sim.curr(cpu).numa;
    t.sum_exec_runtime + sim.clock(cpu).saturating_sub(t.exec_start)
}

/// `should_numa_migrate_memory(current, page, src_nid, dst_cpu)`: returns (verdict,
/// listing line, reason).
pub(crate) fn should_numa_migrate_memory(sim: &mut Sim, cpu: CpuId, pfn: u32) -> (bool, &'static str, String) {
    let task = sim.st.cpus[cpu as usize].curr as usize;
    let pid = sim.st.tasks[task].pid;
    let this = cpu_pid_to_cpupid(cpu, pid);
    let last = std::mem::replace(&mut sim.st.frames.get_mut(pfn).last_cpupid, this);
    let dst = sim.cpu_node(cpu);
    let unset = cpupid_pid_unset(last);
    let ours = cpupid_match_pid(pid, last);
    let page_nid = sim.page_nid(pfn);
    let n = &mut sim.st.tasks[task].numa;
    n.hint = HintRecord {
        step: Some(sim.st.step),
        cpu,
        vpn: n.hint.vpn,
        pfn,
        page_nid,
        cpu_nid: dst,
        last_cpupid: last,
        preferred_nid: n.preferred_nid,
        scan_seq: n.scan_seq,
        rule: FilterRule::None,
        target: None,
        outcome: HintOutcome::Pending,
        unmap_ipis: 0,
        unmap_cause: UnmapCause::None,
    };
    // v4.19 (37355bdc5a12) added the early-lifetime shortcut; before it every fault
    // went through the two-stage filter.
    let early = sim.cfg.toggles.on(NUMA_EARLY_MIGRATE) && (n.preferred_nid.is_none() || n.scan_seq <= 4) && (unset || ours);
    let last_nid = (!unset).then(|| sim.cpu_node(cpupid_to_cpu(last).min(sim.cfg.topo.cpu_node.len().saturating_sub(1) as CpuId)));
    sim.st.tasks[task].numa.hint.rule = if early {
        FilterRule::Early
    } else if last_nid.is_some_and(|l| l != dst) {
        FilterRule::TwoStage
    } else if ours {
        FilterRule::Private
    } else {
        // Refined below for a task in a group.
        FilterRule::Shared
    };
    let n = &sim.st.tasks[task].numa;
    if early {
        let why = if n.preferred_nid.is_none() {
            say!(sim, "thread {who} (pid {pid}) has no preferred node yet", who = sim.task_name(cpu))
        } else {
            say!(
                sim,
                "thread {who} (pid {pid}) has seen only {} scan pass(es)",
                n.scan_seq,
                who = sim.task_name(cpu)
            )
        };
        let who = if unset {
            say!(sim, "no thread hint-faulted on the page before")
        } else {
            say!(sim, "the last fault on it was this thread's")
        };
        return (true, "S2", say!(sim, "early in the task's life ({why}) and {who}"));
    }
    if let Some(last_nid) = last_nid {
        if last_nid != dst {
            return (
                false,
                "S3",
                say!(
                    sim,
                    "the previous hint fault came from node {last_nid}, not {dst}: the two-stage filter says wait for a second fault from node {dst}"
                ),
            );
        }
    }
    if ours {
        return (
            true,
            "S4",
            say!(
                sim,
                "a private fault (thread {who}, pid {pid}, faulted on it last, from node {dst})",
                who = sim.task_name(cpu)
            ),
        );
    }
    let Some(g) = sim.st.tasks[task].numa.group.map(|g| &sim.st.numa_groups[g as usize]) else {
        return (
            true,
            "S5",
            say!(
                sim,
                "{}, and thread {who} (pid {pid}) has no numa_group",
                if unset {
                    say!(sim, "the page's first hint fault (it has no last cpupid)")
                } else {
                    say!(sim, "a shared fault, the last one also from node {dst}")
                },
                who = sim.task_name(cpu)
            ),
        );
    };
    let (cpu_dst, cpu_src) = (g.faults_cpu(dst), g.faults_cpu(page_nid));
    let gid = g.gid;
    if cpu_dst > cpu_src * ACTIVE_NODE_FRACTION {
        sim.st.tasks[task].numa.hint.rule = FilterRule::GroupBusier;
        return (
            true,
            "S6",
            say!(
                sim,
                "a shared fault; group {gid} takes {cpu_dst} of its weighted faults on node {dst}'s CPUs, more than {ACTIVE_NODE_FRACTION} x node {page_nid}'s {cpu_src}"
            ),
        );
    }
    let (mem_dst, mem_src) = (g.faults_mem(dst), g.faults_mem(page_nid));
    let ok = cpu_dst * mem_src * 3 > cpu_src * mem_dst * 4;
    sim.st.tasks[task].numa.hint.rule = FilterRule::GroupHysteresis(ok);
    (
        ok,
        "S7",
        say!(
            sim,
            "a shared fault in group {gid}: CPU faults / memory faults are {cpu_dst}/{mem_dst} on node {dst} and {cpu_src}/{mem_src} on node {page_nid}; {}",
            if ok {
                "node {dst} is more than 4/3 as busy per page, so the page moves"
            } else {
                "within the 3/4 hysteresis, so the page stays"
            }
        ),
    )
}

/// The lab's record of the hint fault of the task on `cpu` (`NumaStats::hint`).
fn hint_mut(sim: &mut Sim, cpu: CpuId) -> Option<&mut HintRecord> {
    let t = sim.st.cpus.get(cpu as usize)?.curr as usize;
    sim.st.tasks.get_mut(t).map(|t| &mut t.numa.hint)
}

/// `mpol_misplaced` answered for the page at `vpn`: `target` (None: stay, because the
/// filter said so or the page is already local). Only the lab reads it.
pub(crate) fn note_hint_target(sim: &mut Sim, cpu: CpuId, vpn: u32, target: Option<NodeId>) {
    if let Some(h) = hint_mut(sim, cpu) {
        h.vpn = vpn;
        h.target = target;
        h.outcome = match (h.rule, target) {
            (_, Some(_)) => HintOutcome::Pending,
            (FilterRule::TwoStage, None) => HintOutcome::Stay,
            (FilterRule::GroupHysteresis(false), None) if h.page_nid != h.cpu_nid => HintOutcome::Stay,
            (_, None) => HintOutcome::Local,
        };
    }
}

/// The migration of the current hint fault of the task on `cpu` failed because of
/// `why`, unless an earlier call already said how it ended. Only the lab reads it.
pub(crate) fn note_hint_outcome(sim: &mut Sim, cpu: CpuId, why: MigrateFail) {
    if let Some(h) = hint_mut(sim, cpu) {
        if h.outcome == HintOutcome::Pending {
            h.outcome = HintOutcome::Failed(why);
        }
    }
}

/// `migrate_misplaced_page` of task `task`'s hint fault returned `ok`, unless an earlier
/// call already said how it ended. Only the lab reads it.
pub(crate) fn note_hint_end(sim: &mut Sim, task: u16, ok: bool) {
    if let Some(h) = sim.st.tasks.get_mut(task as usize).map(|t| &mut t.numa.hint) {
        if h.outcome == HintOutcome::Pending {
            h.outcome = if ok {
                HintOutcome::Migrated
            } else {
                HintOutcome::Failed(MigrateFail::Other)
            };
        }
    }
}

/// The migration's `try_to_unmap` is about to send `ipis` shootdown IPIs per cause
/// (`[mapped, race, pending]`). Only the lab reads it.
pub(crate) fn note_unmap_ipis(sim: &mut Sim, cpu: CpuId, ipis: [u64; 3]) {
    if let Some(h) = hint_mut(sim, cpu) {
        let causes = [UnmapCause::Mapped, UnmapCause::Race, UnmapCause::Pending];
        h.unmap_ipis = ipis.iter().sum::<u64>().min(u64::from(u16::MAX)) as u16;
        h.unmap_cause = (0..3)
            .filter(|&i| ipis[i] > 0)
            .max_by_key(|&i| ipis[i])
            .map_or(UnmapCause::None, |i| causes[i]);
    }
}

/// `task_numa_placement(p)`: once per mm scan sequence, decay the memory fault
/// statistics, take the node with most faults as the preferred node (`sched_setnuma`)
/// and adapt the scan period. Returns (old period, new period, preferred node) if it ran.
fn task_numa_placement(sim: &mut Sim, task: usize, mm: u16, now: u64) -> Option<(u64, u64, Option<NodeId>)> {
    let seq = sim.st.mms[mm as usize].numa_scan_seq;
    if sim.st.tasks[task].numa.scan_seq == seq {
        return None;
    }
    let smax = task_scan_max(sim, task, mm);
    // numa_get_avg_runtime: the task's runtime since the last placement over the time
    // since then (the first time, over the task's life: the kernel uses its load average).
    let (clock, runtime) = {
        let t = &sim.st.tasks[task];
        let run = t.numa.sum_exec_runtime + now.saturating_sub(t.numa.exec_start);
        (now, run)
    };
    let n = &mut sim.st.tasks[task].numa;
    let (delta, period) = match n.last_placement {
        Some((at, run)) => (runtime - run, clock - at),
        None => (runtime, clock),
    };
    n.last_placement = Some((clock, runtime));
    n.scan_seq = seq;
    n.scan_period_max_ms = smax as u32;
    let total_faults = n.locality[0] + n.locality[1];
    let f_weight = (delta << 16) / (period + 1);
    // The task and its group (a separate field, so both can be updated in one pass).
    let mut group = n.group.map(|g| &mut sim.st.numa_groups[g as usize]);
    let n = &mut sim.st.tasks[task].numa;
    let mut fault_types = [0u64; 2];
    let (mut max_faults, mut max_nid) = (0u64, None);
    let mut total_diff = 0i64;
    for (nid, f) in n.faults.iter_mut().enumerate() {
        let (mut faults, mut group_faults) = (0, 0);
        for private in 0..2 {
            // Decay the window, add the faults since the last scan.
            let buf = std::mem::take(&mut f[MEMBUF + private]);
            fault_types[private] += buf;
            let diff = buf as i64 - (f[MEM + private] / 2) as i64;
            // CPU faults count by the task's share of CPU time.
            let w = f_weight * std::mem::take(&mut f[CPUBUF + private]) / (total_faults + 1);
            let f_diff = w as i64 - (f[CPU + private] / 2) as i64;
            f[MEM + private] = (f[MEM + private] as i64 + diff) as u64;
            f[CPU + private] = (f[CPU + private] as i64 + f_diff) as u64;
            faults += f[MEM + private];
            total_diff += diff;
            if let Some(g) = group.as_deref_mut() {
                g.faults[nid][private] = (g.faults[nid][private] as i64 + diff).max(0) as u64;
                g.faults_cpu[nid][private] = (g.faults_cpu[nid][private] as i64 + f_diff).max(0) as u64;
                group_faults += g.faults[nid][private];
            }
        }
        // A task in a group goes by the group's faults.
        let by = if group.is_some() { group_faults } else { faults };
        if by > max_faults {
            max_faults = by;
            max_nid = Some(nid as NodeId);
        }
    }
    n.total_faults = (n.total_faults as i64 + total_diff).max(0) as u64;
    if let Some(g) = group {
        g.total_faults = (g.total_faults as i64 + total_diff).max(0) as u64;
        // preferred_group_nid: the busiest node (NUMA_DIRECT).
        g.count_active_nodes();
    }
    let n = &mut sim.st.tasks[task].numa;
    if max_faults > 0 && max_nid != n.preferred_nid {
        n.preferred_nid = max_nid;
    }
    let old = u64::from(n.scan_period_ms);
    update_task_scan_period(sim, task, mm, fault_types[0], fault_types[1], now);
    let n = &sim.st.tasks[task].numa;
    Some((old, u64::from(n.scan_period_ms), n.preferred_nid))
}

/// `update_task_scan_period(p, shared, private)`: a failed migration, or no local and no
/// shared fault, doubles the period (up to `numa_scan_period_max`) and pushes the mm's
/// next scan out; otherwise the private and local shares move it in tenths.
fn update_task_scan_period(sim: &mut Sim, task: usize, mm: u16, shared: u64, private: u64, now: u64) {
    let (smin, smax) = (task_scan_min(sim, mm), task_scan_max(sim, task, mm));
    let n = &mut sim.st.tasks[task].numa;
    let [remote, local, failed] = n.locality;
    let period = u64::from(n.scan_period_ms);
    if local + shared == 0 || failed > 0 {
        // v5.12 returns here without clearing numa_faults_locality, so one failed
        // migration keeps doubling the period at every later scan pass.
        let p = u64::from(n.scan_period_max_ms).min(period << 1);
        n.scan_period_ms = p as u32;
        sim.st.mms[mm as usize].numa_next_scan = now + p * NS_PER_MS;
        return;
    }
    let slot = period.div_ceil(NUMA_PERIOD_SLOTS as u64) as i64;
    let lr = (local as i64 * NUMA_PERIOD_SLOTS) / (local + remote) as i64;
    let ps = (private as i64 * NUMA_PERIOD_SLOTS) / (private + shared).max(1) as i64;
    let diff = if ps >= NUMA_PERIOD_THRESHOLD {
        (ps - NUMA_PERIOD_THRESHOLD).max(1) * slot
    } else if lr >= NUMA_PERIOD_THRESHOLD {
        (lr - NUMA_PERIOD_THRESHOLD).max(1) * slot
    } else {
        -(NUMA_PERIOD_THRESHOLD - lr.max(ps)) * slot
    };
    let p = (period as i64 + diff).clamp(smin as i64, smax.max(smin) as i64);
    n.scan_period_ms = p as u32;
    n.locality = [0; 3];
}

/// `task_numa_fault(last_cpupid, mem_node, 1, flags)`: record the fault's locality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskNumaFault {
    last_cpupid: u32,
    nid: NodeId,
    /// `TNF_FAULT_LOCAL`: the page was on the faulting CPU's node at `numa_migrate_prep`.
    local: bool,
    migrated: Option<bool>,
    vpn: u32,
    /// `TNF_SHARED` and `TNF_NO_GROUP`.
    flags: TnfFlags,
    /// Pages the fault stands for: 1, or `HPAGE_PMD_NR` for a huge PMD.
    pages: u32,
}

/// The grouping flags `do_numa_page` passes to `task_numa_fault`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TnfFlags {
    /// `TNF_SHARED`: the page is mapped more than once and the VMA is `VM_SHARED`.
    pub shared: bool,
    /// `TNF_NO_GROUP`: the PTE was not writable (read-only pages do not group tasks).
    pub no_group: bool,
}

impl TaskNumaFault {
    /// A fault accounted to node `nid` (where the page is now); `local` is
    /// `TNF_FAULT_LOCAL`; `migrated` is the outcome if migration was tried
    /// (`Some(false)`: `TNF_MIGRATE_FAIL`).
    pub fn frame(last_cpupid: u32, nid: NodeId, local: bool, migrated: Option<bool>, vpn: u32, flags: TnfFlags) -> Frame {
        Self::frame_pages(last_cpupid, nid, local, migrated, vpn, flags, 1)
    }

    /// `frame` for a fault that stands for `pages` pages (`task_numa_fault(..., pages,
    /// ...)`: a huge PMD's fault weighs 512 in the fault statistics and the locality).
    pub fn frame_pages(last_cpupid: u32, nid: NodeId, local: bool, migrated: Option<bool>, vpn: u32, flags: TnfFlags, pages: u32) -> Frame {
        Frame::from(TaskNumaFault {
            last_cpupid,
            nid,
            local,
            migrated,
            vpn,
            flags,
            pages,
        })
    }
}

impl Function for TaskNumaFault {
    /// One line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let mm = sim.cpu_mm(cpu);
        let now = sim.clock(cpu);
        sim.charge(cpu, sim.cfg.costs[NUMA_ACCOUNT_NS]);
        let t = sim.st.cpus[cpu as usize].curr as usize;
        let pid = sim.st.tasks[t].pid;
        let nodes = sim.cfg.topo.nodes.len();
        if sim.st.tasks[t].numa.faults.is_empty() {
            // The kernel allocates numa_faults at the first fault and clears the locality.
            sim.st.tasks[t].numa.faults = vec![[0; 8]; nodes];
            sim.st.tasks[t].numa.total_faults = 0;
            sim.st.tasks[t].numa.locality = [0; 3];
        }
        // v5.12: only a never-set cpupid counts as a first (private) access; a fault on a
        // page another task faulted last may join the two in a group.
        let mut private = self.last_cpupid == CPUPID_UNSET || cpupid_match_pid(pid, self.last_cpupid);
        let mut grouped = None;
        if !private && !self.flags.no_group {
            let (p, how) = numa_group::task_numa_group(sim, t, self.last_cpupid, self.flags.shared);
            private = p;
            grouped = Some(how);
        }
        // A shared fault between two nodes the group is active on counts as local, so a
        // settled multi-node workload scans slower.
        let cpu_node = sim.cpu_node(cpu);
        let mut local = self.local;
        if let Some(g) = sim.st.tasks[t].numa.group.map(|g| &sim.st.numa_groups[g as usize]) {
            if !private && !local && g.active_nodes > 1 && g.is_active_node(cpu_node) && g.is_active_node(self.nid) {
                local = true;
            }
        }
        let mut placed = None;
        let mut moved = None;
        if sim.cfg.toggles.on(NUMA_PLACEMENT_V4_19) {
            // v4.19+: both behind the retry timer.
            if now > sim.st.tasks[t].numa.migrate_retry {
                placed = task_numa_placement(sim, t, mm, now);
                moved = numa_migrate_preferred(sim, t, cpu, now);
            }
        } else {
            // v4.17: task_numa_placement at every fault (it runs once per scan sequence)
            // and, when it leaves the task off its preferred node, numa_migrate_preferred
            // at once; then the periodic retry.
            placed = task_numa_placement(sim, t, mm, now);
            let off = sim.st.tasks[t].numa.preferred_nid.is_some_and(|p| p != cpu_node);
            if placed.is_some() && off {
                moved = numa_migrate_preferred(sim, t, cpu, now);
            }
            if now > sim.st.tasks[t].numa.migrate_retry {
                moved = numa_migrate_preferred(sim, t, cpu, now).or(moved);
            }
        }
        let n = &mut sim.st.tasks[t].numa;
        let pages = u64::from(self.pages.max(1));
        if self.migrated == Some(true) {
            n.pages_migrated += pages;
        }
        if self.migrated == Some(false) {
            n.locality[2] += pages;
        }
        if let Some(f) = n.faults.get_mut(self.nid as usize) {
            f[MEMBUF + usize::from(private)] += pages;
        }
        if let Some(f) = n.faults.get_mut(cpu_node as usize) {
            f[CPUBUF + usize::from(private)] += pages;
        }
        n.locality[usize::from(local)] += pages;
        let outcome = match self.migrated {
            Some(true) => "migrated",
            Some(false) => "migration failed",
            None => "not migrated",
        };
        let mpid = sim.st.mms[mm as usize].pid;
        // Who restarts the scan period of a task that moves: before v4.19 task_numa_migrate
        // (just done), from v4.19 the move itself (update_scan_period).
        let restart = if sim.cfg.toggles.on(NUMA_SCAN_RESET_ON_MOVE) {
            say!(sim, " (the move restarts its scan period, update_scan_period)")
        } else {
            say!(
                sim,
                " (its scan period restarts at task_scan_start: {} ms)",
                sim.st.tasks[t].numa.scan_period_ms
            )
        };
        let moving = match moved {
            Some(Placement::Move(to)) => say!(
                sim,
                "; task_numa_migrate: node {} has an idle CPU {to} and moving keeps the nodes balanced, so the thread moves there on its way back to user space{restart}",
                sim.cpu_node(to)
            ),
            Some(Placement::Swap(to, other)) => say!(
                sim,
                "; task_numa_migrate: swap with thread {} on CPU {to} (node {}), which is better off here{restart}",
                sim.st.tasks[other as usize].pid,
                sim.cpu_node(to)
            ),
            Some(Placement::Stay) => say!(sim, "; task_numa_migrate: no better CPU on the preferred node, the thread stays"),
            None => String::new(),
        };
        let joined = match grouped {
            Some(Grouping::Joined { gid, .. }) => say!(sim, "task_numa_group: joins group {gid}; "),
            Some(Grouping::FalseSharing) => {
                say!(
                    sim,
                    "task_numa_group: the last faulter is in another process and the page is not MAP_SHARED, so it counts as private; "
                )
            }
            _ => String::new(),
        };
        let (line, text) = match placed {
            Some((old, new, pref)) => (
                "Q2",
                say!(
                    sim,
                    "task_numa_fault: {joined}mm {mpid} finished scan pass {}: task_numa_placement prefers {}; update_task_scan_period moves thread {who}'s (pid {pid}) scan period {old} -> {new} ms; then records a {} {} fault on node {} ({outcome})",
                    sim.st.mms[mm as usize].numa_scan_seq,
                    pref.map_or("no node".to_string(), |p| format!("node {p}")),
                    if local { "local" } else { "remote" },
                    if private { "private" } else { "shared" },
                    self.nid,
                    who = sim.task_name(cpu)
                ) + &moving,
            ),
            None => (
                if matches!(grouped, Some(Grouping::Joined { .. })) { "Q1" } else { "Q3" },
                say!(
                    sim,
                    "task_numa_fault: {joined}thread {who} (pid {pid}) records a {} {} fault on node {} ({outcome})",
                    if local { "local" } else { "remote" },
                    if private { "private" } else { "shared" },
                    self.nid,
                    who = sim.task_name(cpu)
                ) + &moving,
            ),
        };
        let ev = Ev::new(numa_ev::NUMA_FAULT_ACCOUNT, "task_numa_fault", line)
            .pte(mpid, self.vpn)
            .say(text);
        (ev, Flow::Return(Ret::Unit))
    }
}

/// `numa_migrate_preferred(p)` for task `t` on `cpu`: when it has a preferred node, the
/// next retry in `numa_scan_period / 16` (at most a second); away from that node,
/// `task_numa_migrate` looks for a CPU there. Returns what the search decided, if it ran.
fn numa_migrate_preferred(sim: &mut Sim, t: usize, cpu: CpuId, now: u64) -> Option<Placement> {
    let n = &mut sim.st.tasks[t].numa;
    let pref = n.preferred_nid?;
    n.migrate_retry = now + (u64::from(n.scan_period_ms) * NS_PER_MS / 16).min(1_000_000_000);
    // A task whose swap is pending asks for nothing else until it has moved.
    if sim.cpu_node(cpu) == pref || sim.st.tasks[t].swap_with.is_some() {
        return None;
    }
    let placement = task_numa_migrate(sim, t, cpu);
    match placement {
        Placement::Move(_) => sim.st.counters.inc(NUMA_TASK_MIGRATED),
        Placement::Swap(..) => sim.st.counters.inc(NUMA_TASK_SWAPPED),
        Placement::Stay => {}
    }
    Some(placement)
}

/// What a `task_numa_work` pass covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Window {
    /// The periodic scan (`task_numa_work` queued by `task_tick_numa`).
    Auto,
    /// An explicit `scan` operation: one VMA, or all of them, without gate or budget.
    Explicit(Option<u16>),
}

/// Where a pass is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tnw {
    /// TN0/TN1: the gate, the budget.
    Start,
    /// TN2: the next chunk.
    Next,
    /// TN4: save the offset, charge the overhead, return.
    Done,
}

/// `task_numa_work`: mark the next chunks of the mm PROT_NONE, one `change_prot_numa`
/// call per chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskNumaWork {
    window: Window,
    pc: Tnw,
    /// The next chunk starts at page `off` of VMA `vi`.
    vi: u16,
    off: u32,
    /// Last VMA of the window (explicit scans).
    last_vi: u16,
    /// `pages` and `virtpages` left (automatic scans).
    pages: i32,
    virtpages: i32,
    /// Pages of the chunk in flight.
    chunk: u32,
    /// The pass won `numa_next_scan` (else it returns at once).
    won: bool,
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
            last_vi: 0,
            pages: 0,
            virtpages: 0,
            chunk: 0,
            won: false,
        }
    }

    /// The chunk `change_prot_numa` is marking now, as (VMA index, first page in it,
    /// pages), if the pass is inside one (the lab's scan cursor).
    pub(crate) fn chunk_in_flight(&self) -> Option<(u16, u32, u32)> {
        (self.pc == Tnw::Next && self.chunk > 0).then_some((self.vi, self.off, self.chunk))
    }

    /// The pass is the periodic one (not an explicit `scan` operation).
    pub(crate) fn is_auto(&self) -> bool {
        self.window == Window::Auto
    }

    /// The next chunk: explicit scans take whole VMAs; automatic ones
    /// `ALIGN(start + pages, HPAGE_SIZE)` capped at the VMA's end.
    fn next_chunk(&mut self, sim: &Sim, mm: u16) -> Option<(u32, u32)> {
        let vmas = &sim.st.mms[mm as usize].vmas;
        while (self.vi as usize) < vmas.len() && self.vi <= self.last_vi {
            let v = &vmas[self.vi as usize];
            if self.off >= v.pages {
                self.vi += 1;
                self.off = 0;
                continue;
            }
            let start = v.start + self.off;
            let end = match self.window {
                Window::Explicit(_) => v.end(),
                Window::Auto => {
                    let want = u64::from(start) + u64::from(self.pages.max(0).unsigned_abs());
                    (want.div_ceil(512) * 512).min(u64::from(v.end())) as u32
                }
            };
            return Some((start, end));
        }
        None
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
                sim.charge(cpu, sim.cfg.costs[NUMA_WORK_NS]);
                let nvmas = sim.st.mms[mm as usize].vmas.len() as u16;
                let ev;
                match self.window {
                    Window::Explicit(v) => {
                        (self.vi, self.last_vi) = match v {
                            Some(v) => (v, v),
                            None => (0, nvmas.saturating_sub(1)),
                        };
                        let pages: u32 = sim.st.mms[mm as usize].vmas[self.vi as usize..=self.last_vi as usize]
                            .iter()
                            .map(|v| v.pages)
                            .sum();
                        ev = Ev::new(numa_ev::SCAN_START, F, "TN1").say(say!(
                            sim,
                            "task_numa_work on CPU {cpu}: the NUMA scanner of mm {pid} marks {pages} page(s) PROT_NONE so that the next access traps"
                        ));
                    }
                    Window::Auto => {
                        let now = sim.clock(cpu);
                        let t = sim.st.cpus[cpu as usize].curr as usize;
                        let period = u64::from(sim.st.tasks[t].numa.scan_period_ms);
                        let delay = scan_delay_ms(sim);
                        let m = &mut sim.st.mms[mm as usize];
                        if m.numa_next_scan == 0 {
                            m.numa_next_scan = now + delay * NS_PER_MS;
                        }
                        if now < m.numa_next_scan {
                            let next = m.numa_next_scan;
                            self.pc = Tnw::Done;
                            let ev = Ev::new(numa_ev::SCAN_END, F, "TN0").say(say!(
                                sim,
                                "task_numa_work: mm {pid}'s next scan is not due before {} ns (another thread scanned this period): return",
                                next
                            ));
                            return (ev, Flow::Continue);
                        }
                        // cmpxchg(numa_next_scan): this thread wins the period.
                        m.numa_next_scan = now + period * NS_PER_MS;
                        // find_vma(numa_scan_offset); none left: reset_ptenuma_scan first.
                        let (mut vi, mut off) = m.scan_offset;
                        while (vi as usize) < m.vmas.len() && off >= m.vmas[vi as usize].pages {
                            (vi, off) = (vi + 1, 0);
                        }
                        m.scan_offset = (vi, off);
                        if vi as usize >= m.vmas.len() {
                            m.scan_offset = (0, 0);
                            m.numa_scan_seq += 1;
                        }
                        (self.vi, self.off) = m.scan_offset;
                        self.last_vi = u16::MAX;
                        self.won = true;
                        // Both budgets fit an i32: scan sizes above 2^27 pages are capped.
                        self.pages = scan_size_pages(sim).min(1 << 27) as i32;
                        self.virtpages = self.pages * 8;
                        sim.st.tasks[t].numa.scan_runtime0 = runtime(sim, cpu);
                        sim.st.tasks[t].numa.node_stamp += 2 * TICK_NS;
                        sim.st.counters.inc(NUMA_SCANS);
                        ev = Ev::new(numa_ev::SCAN_START, F, "TN1").say(say!(
                            sim,
                            "mm {pid}'s scan is due: thread {} wins numa_next_scan (next in {period} ms) and marks up to {} page(s) PROT_NONE from offset {:?} (pass {})",
                            sim.task_name(cpu),
                            self.pages,
                            (self.vi, self.off),
                            sim.st.mms[mm as usize].numa_scan_seq
                        ));
                    }
                }
                self.pc = Tnw::Next;
                (ev, Flow::Continue)
            }
            Tnw::Next => match self.next_chunk(sim, mm) {
                Some((s, e)) => {
                    self.chunk = e - s;
                    let ev = Ev::new(core_ev::CALL, F, "TN2").say(say!(sim, "task_numa_work: change_prot_numa({s:#x}..{e:#x})"));
                    (ev, Flow::Call(ChangeProtNuma::frame(mm, s, e)))
                }
                None => {
                    self.pc = Tnw::Done;
                    self.step(sim, cpu)
                }
            },
            Tnw::Done => {
                let mut text = say!(sim, "task_numa_work is done; the thread returns to user space");
                if self.won {
                    let nvmas = sim.st.mms[mm as usize].vmas.len();
                    let m = &mut sim.st.mms[mm as usize];
                    if self.vi as usize >= nvmas {
                        // reset_ptenuma_scan: the whole address space was covered.
                        m.scan_offset = (0, 0);
                        m.numa_scan_seq += 1;
                        text = say!(
                            sim,
                            "task_numa_work reached the end of the address space: reset_ptenuma_scan (offset 0, numa_scan_seq {})",
                            sim.st.mms[mm as usize].numa_scan_seq
                        );
                    } else {
                        m.scan_offset = (self.vi, self.off);
                    }
                    // At least 32x the scan's own time runs other code before the next scan.
                    let t = sim.st.cpus[cpu as usize].curr as usize;
                    let diff = runtime(sim, cpu).saturating_sub(sim.st.tasks[t].numa.scan_runtime0);
                    sim.st.tasks[t].numa.node_stamp += 32 * diff;
                }
                let ev = Ev::new(numa_ev::SCAN_END, F, "TN4").say(text);
                (ev, Flow::Return(Ret::Unit))
            }
        }
    }

    /// `change_prot_numa` returned the PTEs it changed.
    fn resume(&mut self, _sim: &mut Sim, _task: u16, r: Ret) {
        if self.pc != Tnw::Next {
            return;
        }
        let len = self.chunk as i32;
        self.off += self.chunk;
        if let Window::Auto = self.window {
            if r.as_count() > 0 {
                self.pages -= len;
            }
            self.virtpages -= len;
            if self.pages <= 0 || self.virtpages <= 0 {
                // goto out: numa_scan_offset = end.
                self.pc = Tnw::Done;
            }
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

/// `task_tick_numa` (v5.12), checked when a user thread returns to user space: once the
/// thread's runtime passes `node_stamp + numa_scan_period` and the mm's `numa_next_scan`
/// has come, `task_numa_work` runs before the thread goes back to user code
/// (`task_work_add` → `exit_to_user_mode_loop` → `task_work_run`). The first call does
/// `init_numa_balancing`'s part: the period starts at the scan delay, and a thread other
/// than the first starts its `node_stamp` staggered (v5.12 mixes units there:
/// `task_scan_max` in ms is compared with a value in ns, so the stagger is about two ticks).
pub fn task_work(sim: &mut Sim, cpu: CpuId) -> Option<(Ev, Frame)> {
    if !sim.cfg.knobs.on(crate::mech::numa::NUMA_BALANCING) {
        return None;
    }
    let t = sim.st.cpus[cpu as usize].curr as usize;
    let TaskKind::User { mm, tid } = sim.st.tasks[t].kind else {
        return None;
    };
    if !sim.st.tasks[t].numa.init {
        let delay = scan_delay_ms(sim);
        let stagger = if tid == 0 {
            0
        } else {
            let users = u64::from(sim.st.mms[mm as usize].users.max(1));
            task_scan_max(sim, t, mm).min(delay * users * NS_PER_MS) + 2 * TICK_NS
        };
        let n = &mut sim.st.tasks[t].numa;
        n.init = true;
        n.scan_period_ms = delay as u32;
        n.node_stamp = stagger;
    }
    let now = runtime(sim, cpu);
    let n = &sim.st.tasks[t].numa;
    let period = u64::from(n.scan_period_ms) * NS_PER_MS;
    if now <= n.node_stamp + period {
        return None;
    }
    let first = n.node_stamp == 0;
    let start = if first { Some(task_scan_min(sim, mm)) } else { None };
    let n = &mut sim.st.tasks[t].numa;
    if let Some(p) = start {
        // task_scan_start: no numa_group, so task_scan_min.
        n.scan_period_ms = p as u32;
    }
    n.node_stamp += period;
    let clock = sim.clock(cpu);
    let next = sim.st.mms[mm as usize].numa_next_scan;
    if next != 0 && clock < next {
        return None;
    }
    let ev = Ev::new(core_ev::TASK_WORK, "task_tick_numa", "TT3").say(say!(
        sim,
        "Thread {} has run {} ms since its last scan period began and mm {}'s scan is due: task_work runs task_numa_work before user code",
        sim.task_name(cpu),
        period / NS_PER_MS,
        sim.st.mms[mm as usize].pid
    ));
    Some((ev, TaskNumaWork::auto()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patches::ToggleSet;

    /// One thread on a two-node machine (CPU 0 on node 0, CPU 1 on node 1), with NUMA
    /// fault statistics, a 5 s scan period and node 0 preferred; `v4_19` is the toggle.
    fn sim(v4_19: bool) -> (Sim, usize) {
        let text = crate::testkit::TestScenario::new()
            .two_nodes("cpus = [0]\nmem_pages = 64", "cpus = [1]\nmem_pages = 64")
            .then(
                r#"
[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 8
[[process.thread]]
cpus = [0, 1]
ops = [{ op = "touch", vma = "heap" }]
"#,
            )
            .text();
        let s = crate::scenario::parse(&text, &[]).unwrap();
        let mut t = ToggleSet::default();
        t.set_text("numa_scan_reset_on_move", if v4_19 { "true" } else { "false" }).unwrap();
        let mut sim = Sim::new(&s, &t, false);
        let task = sim.st.tasks.iter().position(|t| t.mm().is_some()).unwrap();
        let n = &mut sim.st.tasks[task].numa;
        n.faults = vec![[0; 8]; 2];
        n.scan_period_ms = 5000;
        n.scan_seq = 3;
        n.preferred_nid = Some(0);
        (sim, task)
    }

    #[test]
    fn a_move_across_nodes_restarts_the_scan_period_unless_it_goes_home_or_was_away() {
        let start = |sim: &Sim, t: usize| task_scan_start(sim, t, sim.st.tasks[t].mm().unwrap()) as u32;
        // v4.19: leaving the preferred node restarts the period.
        let (mut s, t) = sim(true);
        update_scan_period(&mut s, t, 0, 1);
        assert_eq!(s.st.tasks[t].numa.scan_period_ms, start(&s, t));
        assert_ne!(start(&s, t), 5000);
        // Going to the preferred node, or moving while away from it already: no restart.
        let (mut s, t) = sim(true);
        s.st.tasks[t].numa.preferred_nid = Some(1);
        update_scan_period(&mut s, t, 0, 1);
        assert_eq!(s.st.tasks[t].numa.scan_period_ms, 5000, "to the preferred node");
        let (mut s, t) = sim(true);
        s.st.tasks[t].numa.preferred_nid = Some(1);
        update_scan_period(&mut s, t, 1, 0);
        assert_ne!(s.st.tasks[t].numa.scan_period_ms, 5000, "leaving the preferred node");
        let (mut s, t) = sim(true);
        s.st.tasks[t].numa.preferred_nid = None;
        update_scan_period(&mut s, t, 0, 1);
        assert_ne!(s.st.tasks[t].numa.scan_period_ms, 5000, "no preferred node yet");
        // Before the first scan pass completes, any move across nodes restarts it.
        let (mut s, t) = sim(true);
        s.st.tasks[t].numa.preferred_nid = Some(1);
        s.st.tasks[t].numa.scan_seq = 0;
        update_scan_period(&mut s, t, 0, 1);
        assert_eq!(s.st.tasks[t].numa.scan_period_ms, start(&s, t), "first pass");
        // Within a node, without NUMA faults, or before v4.19: nothing.
        let (mut s, t) = sim(true);
        update_scan_period(&mut s, t, 0, 0);
        assert_eq!(s.st.tasks[t].numa.scan_period_ms, 5000, "same node");
        let (mut s, t) = sim(true);
        s.st.tasks[t].numa.faults.clear();
        update_scan_period(&mut s, t, 0, 1);
        assert_eq!(s.st.tasks[t].numa.scan_period_ms, 5000, "no NUMA faults");
        let (mut s, t) = sim(false);
        update_scan_period(&mut s, t, 0, 1);
        assert_eq!(s.st.tasks[t].numa.scan_period_ms, 5000, "v4.18");
    }
}
