//! What the lab's NUMA balancing panel (`web/src/panels/numa/`) draws at one step: per
//! process the scanner's sweep (each VMA as a bar of bins counting PROT_NONE hint PTEs not
//! yet faulted and present PTEs, the saved scan offset, the chunk `change_prot_numa` is
//! marking, `numa_scan_seq`, `numa_next_scan`, the threads' scan periods against
//! `task_scan_min`/`task_scan_max`, `mm_cpumask` split into running and lazy CPUs); the hint
//! faults in progress and each thread's last one, with the two-stage filter's branch and
//! reason (v5.12 `should_numa_migrate_memory`) and the outcome (migrated, stayed, failed and
//! why); and the TLB shootdowns in flight (sender, the CPUs still to acknowledge, the cause).
//!
//! Built from the `Sim` at the current step only (`NumaStats::hint` is the engine's own
//! record, checkpointed with the state), so time travel shows the step sought. A big run is
//! capped: at most [`MAX_PROCESSES`] processes, [`MAX_BINS`] bins per VMA, [`MAX_FAULTS`]
//! faults and [`MAX_SHOOTDOWNS`] shootdowns, and the snapshot says how many there were.

use crate::engine::Sim;
use crate::kernel::sched::numa::{cpupid_match_pid, cpupid_pid_unset, task_scan_max, task_scan_min};
use crate::machine::pgtable::{Pmd, PTRS_PER_PTE};
use crate::machine::task::{FilterRule, HintOutcome, MigrateFail, UnmapCause};
use crate::machine::{TaskKind, Wait};
use crate::registry::Frame;
use crate::scenario::VmaKind;
use serde::Serialize;

/// Processes drawn one by one (the rest are counted in [`NumaView::nr_processes`]).
pub const MAX_PROCESSES: usize = 8;
/// Bins of a VMA's bar: a longer VMA puts several pages in each bin.
pub const MAX_BINS: u32 = 64;
/// Hint-fault records listed (in progress first, then the latest finished).
pub const MAX_FAULTS: usize = 6;
/// Shootdowns in flight listed.
pub const MAX_SHOOTDOWNS: usize = 4;
/// CPUs listed in a mask (the rest counted).
pub const MAX_MASK_CPUS: usize = 32;

/// The NUMA panel's state at one step.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NumaView {
    /// Processes of the run.
    pub nr_processes: u16,
    /// The first [`MAX_PROCESSES`] of them.
    pub processes: Vec<NumaProcessView>,
    /// Hint faults in progress now (every thread), whether listed or not.
    pub nr_faults_in_progress: u16,
    /// Hint faults: those in progress, then each other thread's last one, latest first
    /// (at most [`MAX_FAULTS`]).
    pub faults: Vec<HintFaultView>,
    /// Shootdowns in flight (a sender waiting for acknowledgements), at most [`MAX_SHOOTDOWNS`].
    pub shootdowns: Vec<ShootdownView>,
    /// Shootdowns in flight, listed or not.
    pub nr_shootdowns: u16,
    /// `numa_delay_map` (v5.13 flow) is on.
    pub delay_map: bool,
    /// `numa_skip_dirty_file` is on.
    pub skip_dirty_file: bool,
    /// The automatic scanner (`kernel.numa_balancing`) is on.
    pub balancing: bool,
}

/// One process (mm) and its scanner.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NumaProcessView {
    /// Pid.
    pub pid: u16,
    /// Live threads.
    pub threads: u16,
    /// `mm->numa_scan_seq`: full passes over the address space.
    pub scan_seq: u32,
    /// `mm->numa_next_scan` (ns of simulated time; 0: not set yet).
    pub next_scan_ns: u64,
    /// The saved `numa_scan_offset` as a virtual page number (where the next pass starts).
    pub scan_offset_vpn: u32,
    /// `tlb_flush_pending`: scans with a flush still to come.
    pub flush_pending: u32,
    /// The smallest and largest `numa_scan_period` (ms) of its threads that started
    /// balancing (null: none has).
    pub scan_period_ms: Option<[u32; 2]>,
    /// `task_scan_min` / `task_scan_max` (ms) for its RSS now.
    pub scan_bounds_ms: [u64; 2],
    /// The pass in flight, if a thread is inside `task_numa_work`'s chunk now.
    pub scanning: Option<ScanCursorView>,
    /// VMAs in address order.
    pub vmas: Vec<ScanVmaView>,
    /// PTEs PROT_NONE (marked and not yet faulted) over every VMA.
    pub protnone: u32,
    /// Present PTEs over every VMA.
    pub present: u32,
    /// `mm_cpumask` CPUs not lazy (running the process, or in the kernel on its behalf).
    pub running_cpus: Vec<u16>,
    /// `mm_cpumask` CPUs in lazy TLB mode (a kernel thread or idle borrowed the mm).
    pub lazy_cpus: Vec<u16>,
    /// CPUs in `mm_cpumask`, listed or not.
    pub mask_weight: u16,
}

/// A pass of `task_numa_work` inside one `change_prot_numa` chunk.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ScanCursorView {
    /// The scanning thread ("pid/tid").
    pub task: String,
    /// Its CPU.
    pub cpu: u16,
    /// First page of the chunk.
    pub start_vpn: u32,
    /// Pages of the chunk.
    pub pages: u32,
    /// An explicit `scan` operation (not the periodic scanner).
    pub explicit: bool,
}

/// A VMA's bar.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ScanVmaView {
    /// Index in the process (the summary names it).
    pub index: u16,
    /// First page.
    pub start_vpn: u32,
    /// Pages.
    pub pages: u32,
    /// File-backed.
    pub file: bool,
    /// Pages per bin (the last bin may hold fewer).
    pub bin_pages: u32,
    /// Per bin: PROT_NONE PTEs.
    pub protnone: Vec<u32>,
    /// Per bin: present PTEs.
    pub present: Vec<u32>,
    /// Per bin: migration entries (the page is being migrated).
    pub migrating: Vec<u32>,
}

/// A hint fault: the page, the nodes, the filter's branch and the outcome.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HintFaultView {
    /// The faulting thread ("pid/tid").
    pub task: String,
    /// Its mm's pid.
    pub pid: u16,
    /// The fault is still being handled (the thread is inside `do_numa_page`).
    pub in_progress: bool,
    /// The kernel function on top of the thread's stack while in progress ("" otherwise).
    pub in_function: &'static str,
    /// Step of the decision.
    pub step: u64,
    /// The faulting CPU.
    pub cpu: u16,
    /// The page's virtual page number.
    pub vpn: u32,
    /// Its frame at the decision.
    pub pfn: u32,
    /// The page's node at the decision.
    pub page_nid: u8,
    /// The faulting CPU's node.
    pub cpu_nid: u8,
    /// First stage: the page's last cpupid before this fault ("CPU C, pid & 0xff = P": the
    /// page keeps the pid's low 8 bits; or "unset").
    pub last_cpupid: String,
    /// The node of the last fault (null: unset).
    pub last_nid: Option<u8>,
    /// The branch: "early" (early-lifetime shortcut), "two-stage" (the filter waits),
    /// "private", "shared" (no numa_group), "group-busier" (the group's CPUs fault mostly
    /// on this node), "group-hysteresis" (CPU and memory faults per node, 3/4 hysteresis).
    pub rule: &'static str,
    /// The filter let the page move.
    pub filter_migrate: bool,
    /// Why, in a sentence.
    pub reason: String,
    /// The node `mpol_misplaced` asked for (null: stay).
    pub target: Option<u8>,
    /// "pending", "migrated", "stay", "local", "failed".
    pub outcome: &'static str,
    /// Why a migration failed ("" otherwise).
    pub fail_reason: &'static str,
    /// Shootdown IPIs its unmap sent (accessible PTE) and the cause ("mapped", "race",
    /// "pending", "" when none).
    pub unmap_ipis: u16,
    /// See `unmap_ipis`.
    pub unmap_cause: &'static str,
}

/// A TLB shootdown in flight.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShootdownView {
    /// The sending CPU.
    pub from: u16,
    /// Its task.
    pub task: String,
    /// Pid of the mm flushed.
    pub pid: u16,
    /// CPUs that have not handled the IPI yet.
    pub pending: Vec<u16>,
    /// Acknowledgements still awaited.
    pub acks_pending: u16,
    /// "scan" (`change_prot_numa`'s range flush), "mapped", "race", "pending" (a migration's
    /// unmap; see `HintFaultView::unmap_cause`), "migrate" (an unmap of another kind) or
    /// "other".
    pub cause: &'static str,
    /// The function that asked for the flush.
    pub caller: &'static str,
}

/// Whether the run has anything of NUMA balancing: a NUMA scan or hint fault happened, or
/// the scanner can run (on, with two nodes or more).
fn uses_numa(sim: &Sim) -> bool {
    let c = &sim.st.counters;
    sim.cfg.knobs.on(crate::mech::numa::NUMA_BALANCING)
        || c.get(crate::mech::numa::NUMA_PTE_UPDATES) > 0
        || c.get(crate::mech::numa::NUMA_HINT_FAULTS) > 0
        || sim.cfg.ops.iter().flatten().any(|op| {
            matches!(op, crate::scenario::Op::Call { op, .. }
                if crate::registry::ops().nth(usize::from(*op)).is_some_and(|o| o.name == "scan"))
        })
}

/// The snapshot (`ViewDef::state` of view "numa"); None when the run has nothing of NUMA
/// balancing.
pub fn state(sim: &Sim) -> Option<serde_json::Value> {
    uses_numa(sim).then(|| serde_json::to_value(view(sim)).ok()).flatten()
}

/// The snapshot as a struct (tests read it).
pub fn view(sim: &Sim) -> NumaView {
    let st = &sim.st;
    let processes = st
        .mms
        .iter()
        .take(MAX_PROCESSES)
        .enumerate()
        .map(|(mi, _)| process(sim, mi as u16))
        .collect();
    let (nr_faults_in_progress, faults) = faults(sim);
    let (nr_shootdowns, shootdowns) = shootdowns(sim);
    NumaView {
        nr_processes: st.mms.len() as u16,
        processes,
        nr_faults_in_progress,
        faults,
        shootdowns,
        nr_shootdowns,
        delay_map: sim.cfg.toggles.on(crate::mech::numa::NUMA_DELAY_MAP),
        skip_dirty_file: sim.cfg.toggles.on(crate::mech::numa::NUMA_SKIP_DIRTY_FILE),
        balancing: sim.cfg.knobs.on(crate::mech::numa::NUMA_BALANCING),
    }
}

/// PTE counts of a VMA's bins.
struct Bins {
    protnone: Vec<u32>,
    present: Vec<u32>,
    migrating: Vec<u32>,
}

/// Counts PROT_NONE, present and migration PTEs of `[start, start + pages)` into bins of
/// `bin_pages`, walking only the PTE tables that exist.
fn bin_ptes(sim: &Sim, mm: u16, start: u32, pages: u32, bin_pages: u32) -> Bins {
    let nbins = pages.div_ceil(bin_pages.max(1)) as usize;
    let mut b = Bins {
        protnone: vec![0u32; nbins],
        present: vec![0u32; nbins],
        migrating: vec![0u32; nbins],
    };
    let end = start.saturating_add(pages);
    for (idx, pmd) in sim.st.mms[mm as usize].pgtable.pmds() {
        let base = idx.saturating_mul(PTRS_PER_PTE);
        if base >= end || base.saturating_add(PTRS_PER_PTE) <= start {
            continue;
        }
        let pte_of = |vpn: u32| match pmd {
            Pmd::Table(t) => t[(vpn - base) as usize],
            Pmd::Huge(h) => h.nth(vpn - base),
            Pmd::None => crate::machine::Pte::NONE,
        };
        if matches!(pmd, Pmd::None) {
            continue;
        }
        let lo = start.max(base);
        let hi = end.min(base + PTRS_PER_PTE);
        for vpn in lo..hi {
            let pte = pte_of(vpn);
            let i = ((vpn - start) / bin_pages.max(1)) as usize;
            if pte.protnone() {
                b.protnone[i] += 1;
            } else if pte.hw_present() {
                b.present[i] += 1;
            } else if pte.is_migration() {
                b.migrating[i] += 1;
            }
        }
    }
    b
}

/// One process's scanner state.
fn process(sim: &Sim, mm: u16) -> NumaProcessView {
    let st = &sim.st;
    let m = &st.mms[mm as usize];
    let vmas: Vec<ScanVmaView> = m
        .vmas
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let bin_pages = v.pages.div_ceil(MAX_BINS).max(1);
            let b = bin_ptes(sim, mm, v.start, v.pages, bin_pages);
            ScanVmaView {
                index: i as u16,
                start_vpn: v.start,
                pages: v.pages,
                file: v.kind == VmaKind::File,
                bin_pages,
                protnone: b.protnone,
                present: b.present,
                migrating: b.migrating,
            }
        })
        .collect();
    let (vi, off) = m.scan_offset;
    let scan_offset_vpn = m.vmas.get(vi as usize).map_or(0, |v| v.start + off.min(v.pages));
    let mut periods: Option<[u32; 2]> = None;
    let mut scanning = None;
    for (ti, t) in st.tasks.iter().enumerate() {
        if t.mm() != Some(mm) || t.state == crate::machine::TaskState::Dead {
            continue;
        }
        if t.numa.init {
            let p = t.numa.scan_period_ms;
            periods = Some(periods.map_or([p, p], |[a, b]| [a.min(p), b.max(p)]));
        }
        if scanning.is_some() {
            continue;
        }
        let Some(stack) = st.stacks.get(ti) else {
            continue;
        };
        let depth = stack.iter().count();
        for (k, f) in stack.iter().enumerate() {
            if let Frame::Numa(crate::mech::numa::Frames::TaskNumaWork(w)) = f {
                // Only while its callee runs: between the chunk's return and the next
                // chunk the frame's offset has already moved on.
                if k + 1 < depth {
                    if let Some((v, off, pages)) = w.chunk_in_flight() {
                        if let Some(vma) = m.vmas.get(v as usize) {
                            scanning = Some(ScanCursorView {
                                task: crate::view::task_label(st, ti as u16),
                                cpu: t.cpu,
                                start_vpn: vma.start + off,
                                pages,
                                explicit: !w.is_auto(),
                            });
                        }
                    }
                }
            }
        }
    }
    let (mut running_cpus, mut lazy_cpus) = (Vec::new(), Vec::new());
    let mut weight = 0u16;
    for c in m.cpumask.iter() {
        weight += 1;
        if running_cpus.len() + lazy_cpus.len() >= MAX_MASK_CPUS {
            continue;
        }
        if st.cpus.get(c as usize).is_some_and(|x| x.lazy) {
            lazy_cpus.push(c);
        } else {
            running_cpus.push(c);
        }
    }
    NumaProcessView {
        pid: m.pid,
        threads: m.threads,
        scan_seq: m.numa_scan_seq,
        next_scan_ns: m.numa_next_scan,
        scan_offset_vpn,
        flush_pending: m.flush_pending,
        scan_period_ms: periods,
        scan_bounds_ms: [
            task_scan_min(sim, mm),
            // The bound of the process's first thread (group scaling is per task).
            st.tasks
                .iter()
                .position(|t| t.mm() == Some(mm))
                .map_or(0, |t| task_scan_max(sim, t, mm)),
        ],
        scanning,
        protnone: vmas.iter().flat_map(|v| &v.protnone).sum(),
        present: vmas.iter().flat_map(|v| &v.present).sum(),
        vmas,
        running_cpus,
        lazy_cpus,
        mask_weight: weight,
    }
}

/// The function on top of task `t`'s stack if it is handling the hint fault its record
/// describes (a `do_numa_page` or `do_huge_pmd_numa_page` of the record's page is on
/// its stack), else None.
fn in_hint_fault(sim: &Sim, t: usize) -> Option<&'static str> {
    let stack = sim.st.stacks.get(t)?;
    let vpn = sim.st.tasks.get(t)?.numa.hint.vpn;
    let mut inside = false;
    let mut top = "";
    for f in stack.iter() {
        match f {
            Frame::Numa(crate::mech::numa::Frames::DoNumaPage(d)) => inside = d.vpn() == vpn,
            Frame::Thp(crate::mech::thp::Frames::DoHugePmdNumaPage(d)) => inside = d.vpn() == vpn,
            _ => {}
        }
        top = f.function();
    }
    inside.then_some(top)
}

/// The hint faults: in progress first, then the latest finished ones; and how many are in
/// progress.
fn faults(sim: &Sim) -> (u16, Vec<HintFaultView>) {
    let st = &sim.st;
    let mut all: Vec<(bool, u64, usize)> = Vec::new();
    for (ti, t) in st.tasks.iter().enumerate() {
        let Some(step) = t.numa.hint.step else {
            continue;
        };
        if !matches!(t.kind, TaskKind::User { .. }) {
            continue;
        }
        let live = in_hint_fault(sim, ti).is_some();
        all.push((live, step, ti));
    }
    let nr_live = all.iter().filter(|a| a.0).count() as u16;
    // In progress first, then latest first; ties by task for determinism.
    all.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let list = all
        .into_iter()
        .take(MAX_FAULTS)
        .map(|(live, _, ti)| fault_view(sim, ti, live))
        .collect();
    (nr_live, list)
}

/// The view of task `ti`'s hint record.
fn fault_view(sim: &Sim, ti: usize, live: bool) -> HintFaultView {
    let st = &sim.st;
    let t = &st.tasks[ti];
    let h = &t.numa.hint;
    let unset = cpupid_pid_unset(h.last_cpupid);
    let last_cpu = (h.last_cpupid >> 8) as usize;
    let last_nid = (!unset).then(|| st.cpus.get(last_cpu).map_or(0, |c| c.node));
    let ours = cpupid_match_pid(t.pid, h.last_cpupid);
    // Named as the engine's narration names it: "1/0 (pid 1000)".
    let who = match t.kind {
        crate::machine::TaskKind::User { mm, tid } => format!("{}/{tid} (pid {})", st.mms[mm as usize].pid, t.pid),
        _ => format!("pid {}", t.pid),
    };
    let last_cpupid = if unset {
        "unset".to_string()
    } else {
        format!("CPU {last_cpu}, pid & 0xff = {}", h.last_cpupid & 0xff)
    };
    // The badge names the branch; the reason says what made it apply.
    let (rule, reason) = match h.rule {
        FilterRule::Early => (
            "early",
            format!(
                "{} and {}: migrate",
                match h.preferred_nid {
                    None => format!("thread {who} has no preferred node yet"),
                    Some(_) => format!("only {} scan pass(es) so far (≤ 4)", h.scan_seq),
                },
                if unset {
                    "no thread hint-faulted on the page before"
                } else {
                    "its last fault was this thread's"
                }
            ),
        ),
        FilterRule::TwoStage => (
            "two-stage",
            format!(
                "the last fault came from node {}, this one from node {}: wait for a second fault from node {}",
                last_nid.unwrap_or(0),
                h.cpu_nid,
                h.cpu_nid
            ),
        ),
        FilterRule::Private => (
            "private",
            format!("thread {who} faulted on it last (from node {}): migrate", h.cpu_nid),
        ),
        FilterRule::Shared => (
            "shared",
            format!(
                "{} faulted last, also from node {}; no numa_group to compare: migrate",
                if ours { "this thread" } else { "another thread" },
                h.cpu_nid
            ),
        ),
        FilterRule::GroupBusier => (
            "group-busier",
            format!(
                "another task of thread {who}'s numa_group faulted last; the group's CPUs take more than 3x as many faults on node {} as on node {}: migrate",
                h.cpu_nid, h.page_nid
            ),
        ),
        FilterRule::GroupHysteresis(ok) => (
            "group-hysteresis",
            format!(
                "another task of thread {who}'s numa_group faulted last; weighing CPU faults against memory faults on nodes {} and {} with 3/4 hysteresis: {}",
                h.cpu_nid,
                h.page_nid,
                if ok { "migrate" } else { "stay" }
            ),
        ),
        FilterRule::None => ("", String::new()),
    };
    let (outcome, fail_reason) = match h.outcome {
        HintOutcome::Pending => ("pending", ""),
        HintOutcome::Stay => ("stay", ""),
        HintOutcome::Local => ("local", ""),
        HintOutcome::Migrated => ("migrated", ""),
        HintOutcome::Failed(f) => (
            "failed",
            match f {
                MigrateFail::DirtyFile => "dirty file page: migrate_misplaced_page bails out (09a913a7)",
                MigrateFail::RateLimited => "the target node's v4.17 rate limit (128 MB per 100 ms) is used up",
                MigrateFail::NodeFull => "the target node is at its high watermark (migrate_balanced_pgdat)",
                MigrateFail::NotOnLru => "isolate_lru_page failed: another thread is already migrating the page",
                MigrateFail::NoPage => "no free page on the target node",
                MigrateFail::PageLocked => "trylock_page failed (async migration never waits)",
                MigrateFail::BtrfsDirty => "btrfs (before v5.8) refuses a dirty page in async mode, after the unmap",
                MigrateFail::Other => "migration failed",
            },
        ),
    };
    let mpid = t.mm().and_then(|m| st.mms.get(m as usize)).map_or(0, |m| m.pid);
    HintFaultView {
        task: crate::view::task_label(st, ti as u16),
        pid: mpid,
        in_progress: live,
        in_function: if live { in_hint_fault(sim, ti).unwrap_or("") } else { "" },
        step: h.step.unwrap_or(0),
        cpu: h.cpu,
        vpn: h.vpn,
        pfn: h.pfn,
        page_nid: h.page_nid,
        cpu_nid: h.cpu_nid,
        last_cpupid,
        last_nid,
        rule,
        filter_migrate: !matches!(h.rule, FilterRule::TwoStage | FilterRule::GroupHysteresis(false)),
        reason,
        target: h.target,
        outcome,
        fail_reason,
        unmap_ipis: h.unmap_ipis,
        unmap_cause: match h.unmap_cause {
            UnmapCause::None => "",
            UnmapCause::Mapped => "mapped",
            UnmapCause::Race => "race",
            UnmapCause::Pending => "pending",
        },
    }
}

/// Shootdowns in flight: every CPU waiting for acknowledgements, with the IPIs still in the
/// receivers' inboxes; and how many there are.
fn shootdowns(sim: &Sim) -> (u16, Vec<ShootdownView>) {
    let st = &sim.st;
    let mut out = Vec::new();
    let mut n = 0u16;
    for c in &st.cpus {
        if c.wait != Wait::Acks {
            continue;
        }
        n += 1;
        if out.len() >= MAX_SHOOTDOWNS {
            continue;
        }
        let mut mm = None;
        let mut pending = Vec::new();
        for r in &st.cpus {
            if let Some(ipi) = r.inbox.iter().find(|i| i.from == c.id) {
                mm = Some(ipi.mm);
                pending.push(r.id);
            }
        }
        let stack: Vec<&'static str> = st
            .stacks
            .get(usize::from(c.curr))
            .map_or_else(Vec::new, |s| s.iter().map(Frame::function).collect());
        // The caller: the frame below flush_tlb_mm_range (and its wrappers).
        let caller = stack
            .iter()
            .rev()
            .find(|f| {
                !matches!(
                    **f,
                    "flush_tlb_mm_range" | "flush_tlb_range" | "flush_tlb_page" | "ptep_clear_flush"
                )
            })
            .copied()
            .unwrap_or("");
        let has = |name: &str| stack.contains(&name);
        let cause = if has("change_prot_numa") {
            "scan"
        } else if has("migrate_misplaced_page") {
            let h = &st.tasks[usize::from(c.curr)].numa.hint;
            match h.unmap_cause {
                UnmapCause::Mapped => "mapped",
                UnmapCause::Race => "race",
                UnmapCause::Pending => "pending",
                UnmapCause::None => "migrate",
            }
        } else {
            "other"
        };
        let pid = mm
            .or_else(|| st.tasks.get(usize::from(c.curr)).and_then(|t| t.mm()))
            .and_then(|m| st.mms.get(m as usize))
            .map_or(0, |m| m.pid);
        out.push(ShootdownView {
            from: c.id,
            task: crate::view::task_label(st, c.curr),
            pid,
            pending,
            acks_pending: c.acks_pending,
            cause,
            caller,
        });
    }
    (n, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim_of(id: &str, set: &[(&str, bool)]) -> Sim {
        let text = crate::builtin::find(id).expect("builtin").text;
        let sc = crate::scenario::parse(text, &[]).expect("parse");
        let mut toggles = crate::patches::ToggleSet::default();
        for (k, v) in set {
            toggles.set(k, crate::patches::ToggleValue::Bool(*v)).expect("toggle");
        }
        Sim::new(&sc, &toggles, false)
    }

    /// Steps until `pred` holds (at most `max` steps); the step reached.
    fn step_until(sim: &mut Sim, max: u64, pred: impl Fn(&NumaView) -> bool) -> Option<u64> {
        for _ in 0..max {
            if pred(&view(sim)) {
                return Some(sim.st.step);
            }
            sim.step()?;
        }
        None
    }

    #[test]
    fn hint_fault_101_decides_to_migrate_a_remote_page() {
        let mut sim = sim_of("numa-hint-fault-101", &[]);
        assert!(state(&sim).is_some());
        let at = step_until(&mut sim, 5_000, |v| v.faults.iter().any(|f| f.in_progress && f.target.is_some()));
        assert!(at.is_some(), "a hint fault decided to migrate");
        let v = view(&sim);
        let f = &v.faults[0];
        assert!(f.in_progress);
        assert_ne!(f.page_nid, f.cpu_nid);
        assert_eq!(f.target, Some(f.cpu_nid));
        assert!(f.filter_migrate);
        assert!(!f.reason.is_empty());
        assert_eq!(f.outcome, "pending");
        // Migration replaces the PTE with a migration entry before the copy.
        let entry = step_until(&mut sim, 5_000, |v| v.processes[0].vmas[0].migrating.iter().sum::<u32>() == 1);
        assert!(entry.is_some(), "a migration entry is drawn");
        // Run the fault to its end: it migrates.
        let done = step_until(&mut sim, 5_000, |v| v.faults.first().is_some_and(|f| f.outcome == "migrated"));
        assert!(done.is_some());
    }

    #[test]
    fn scanner_marks_ptes_protnone_and_the_bars_count_them() {
        let mut sim = sim_of("numa-hint-fault-101", &[]);
        let at = step_until(&mut sim, 5_000, |v| v.processes.iter().any(|p| p.protnone > 0));
        assert!(at.is_some(), "the scanner marked PTEs");
        let v = view(&sim);
        let p = v.processes.iter().find(|p| p.protnone > 0).expect("a process");
        let pt: u32 = p.vmas.iter().flat_map(|x| &x.protnone).sum();
        assert_eq!(pt, p.protnone);
        for x in &p.vmas {
            assert_eq!(x.protnone.len(), x.pages.div_ceil(x.bin_pages) as usize);
            assert!(x.protnone.len() <= MAX_BINS as usize);
        }
    }

    #[test]
    fn a_migrating_unmap_in_the_old_flow_is_a_shootdown_caused_by_mapping() {
        let mut sim = sim_of("numa-delay-map-scale", &[("numa_delay_map", false)]);
        let at = step_until(&mut sim, 400_000, |v| v.shootdowns.iter().any(|s| s.cause == "mapped"));
        assert!(at.is_some(), "a migration's flush in the v5.12 flow");
        let v = view(&sim);
        let s = v.shootdowns.iter().find(|s| s.cause == "mapped").expect("shootdown");
        assert!(s.acks_pending > 0);
        assert!(s.pending.len() <= usize::from(s.acks_pending));
        assert_eq!(s.pid, 1);
        let p = &v.processes[0];
        assert!(p.running_cpus.len() > 1, "several CPUs run the process");
    }

    /// 16 processes on two nodes: the first 8 are drawn, every one counted; CPU lists and
    /// bins stay within their caps.
    #[test]
    fn many_processes_are_capped_and_counted() {
        let sim = sim_of("pcp-unix-pairs", &[]);
        let v = view(&sim);
        assert_eq!(v.nr_processes, 16);
        assert_eq!(v.processes.len(), MAX_PROCESSES);
        for p in &v.processes {
            assert!(p.running_cpus.len() + p.lazy_cpus.len() <= MAX_MASK_CPUS);
            assert!(p.vmas.iter().all(|x| x.protnone.len() <= MAX_BINS as usize));
        }
    }

    /// The view is a function of the step: two runs stepped to the same step (the lab
    /// replays from a checkpoint when it seeks) show the same snapshot, hint records included.
    #[test]
    fn two_runs_at_one_step_show_the_same_snapshot() {
        let mut a = sim_of("numa-thread-race-101", &[]);
        let mut b = sim_of("numa-thread-race-101", &[]);
        // Steps 0..=58: the racing thread's unmap has sent its IPI (step 58), not yet taken.
        for _ in 0..59 {
            a.step().expect("a step");
        }
        let mut c = a.clone();
        for _ in 0..59 {
            b.step().expect("a step");
        }
        let json = |s: &Sim| serde_json::to_string(&view(s)).expect("json");
        assert_eq!(json(&a), json(&b));
        // Stepping a copy on does not change the snapshot of the step it left.
        for _ in 0..10 {
            c.step();
        }
        assert_ne!(json(&c), json(&a));
        assert_eq!(json(&a), json(&b));
        // The racing thread's unmap: one IPI to CPU 3 caused by the race.
        let v = view(&a);
        assert_eq!(v.shootdowns.len(), 1);
        assert_eq!((v.shootdowns[0].cause, v.shootdowns[0].from), ("race", 2));
        assert_eq!(v.shootdowns[0].pending, vec![3]);
        let failed = v.faults.iter().find(|f| f.outcome == "failed").expect("the racing thread's fault");
        assert_eq!(failed.rule, "shared");
        assert!(failed.fail_reason.starts_with("isolate_lru_page failed"));
    }
}
