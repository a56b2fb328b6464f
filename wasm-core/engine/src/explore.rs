//! The interleaving explorer: every schedule of a small scenario's CPUs, with the outcomes
//! they reach and the shortest schedule to each bad one.
//!
//! A run's default order follows simulated time; here time is set aside and any CPU that
//! has something to do may take the next step (as on a machine whose CPUs run at any
//! relative speed). The search is a depth-first walk over those choices with two
//! reductions:
//! - **Sleep sets** (P. Godefroid, "Partial-Order Methods for the Verification of
//!   Concurrent Systems", LNCS 1032, 1996, ch. 5): after the subtree of CPU `t`'s step is
//!   explored, `t` goes to sleep for its siblings' subtrees and stays asleep there until a
//!   step that does not commute with it runs, so two orders of independent steps are not
//!   both explored to the end.
//! - **State caching** with the sleep set each state was explored under (ibid., the
//!   combination of sleep sets with a hash table of visited states): a state seen again is
//!   explored only for the steps that were asleep the first time and are awake now.
//!
//! Independence is checked, not declared: two steps `u`, `t` enabled in state `s` commute
//! there when each stays enabled after the other and `s·u·t` and `s·t·u` are the same state
//! ([`digest`]). That is the condition sleep sets need (independence in `s`), and it needs
//! no list of what each kernel function touches, which could miss something.
//!
//! A state's digest covers everything a later step can read: CPUs (clock, task, run queue,
//! CFS's min_vruntime, need_resched and skip, timers, TLB, wait, IPIs in flight), tasks,
//! their stacks, address spaces, rmap roots, the page cache, frames, the file's backing
//! store, free memory, the page allocator, locks, counters, the RNG. Left out are fields that only record *when* something happened for
//! the lab (the step a frame was pushed or an IPI was sent, the step of a hint-fault
//! record): two orders of the same steps give them different numbers and nothing reads
//! them to decide anything.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use crate::core::Schedule;
use crate::counters::Counters;
use crate::engine::Sim;
use crate::patches::ToggleSet;
use crate::scenario::Scenario;
use crate::topology::CpuId;
use serde::Serialize;

/// How far a search may go.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// States visited at most (each a step taken in the search).
    pub states: u64,
    /// Steps in one schedule at most (a run longer than this is cut and reported).
    pub depth: u64,
    /// Deviations from the default order one schedule may make at most (`None`: any).
    /// With a bound the search covers every schedule with at most that many picks
    /// (delay bounding: M. Emmi, S. Qadeer, Z. Rakamarić, "Delay-bounded scheduling",
    /// POPL 2011, with the run's order by simulated time as the deterministic scheduler
    /// and any other CPU counted as one delay), without sleep sets (they would leave out
    /// schedules the bound still allows) and with each state remembered with the fewest
    /// deviations it was reached with.
    pub delays: Option<u32>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            states: 200_000,
            depth: 5_000,
            delays: None,
        }
    }
}

/// The counters whose growth in a step is a finding: (counter, finding kind, what it is).
/// `mm/page_writeback.rs` `user_access` tells the stale-entry ones apart, the TLB flush's
/// return counts an entry that outlived it, `mm/truncate.rs` a dropped page whose data the
/// file never got.
const FINDINGS: &[(crate::counters::Counter, &str, &str)] = &[
    (
        crate::mech::writeback::LOST_WRITES,
        "lost_write",
        "a page dropped from the page cache held data the file never got",
    ),
    (
        crate::mech::core::TLB_OLD_FRAME_STORES,
        "lost_write",
        "a store through a stale TLB entry went to a frame that no longer backs the page",
    ),
    (
        crate::mech::core::TLB_USE_AFTER_FREE,
        "use_after_free",
        "a load or store went through a TLB entry to a frame freed since the entry was cached",
    ),
    (
        crate::mech::core::TLB_STALE_READS,
        "stale_read",
        "a load through a stale TLB entry read older data than the page's frame holds",
    ),
    (
        crate::mech::core::MIGRATION_STALE_STORES,
        "migration_write",
        "a store went through a stale TLB entry into a page under migration",
    ),
    (
        crate::mech::core::TLB_FLUSH_OUTLIVED,
        "tlb_outlived_flush",
        "a TLB entry stayed cached after a flush that covered it had returned",
    ),
    (
        crate::mech::writeback::STALE_TLB_STORES,
        "stale_tlb_store",
        "a store went through a TLB entry the page table no longer has",
    ),
];

/// A finding: something the kernel's rules should have prevented.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// What kind: `lost_write`, `use_after_free`, `stale_read`, `migration_write`,
    /// `tlb_outlived_flush`, `stale_tlb_store`, `invariant`, `stuck`.
    pub kind: &'static str,
    /// What happened, for a person.
    pub detail: String,
    /// The steps involved (of the schedule that reaches it): for a use of a stale TLB
    /// entry, the walk that cached it, the last step of another CPU on that PTE before the
    /// use, and the use.
    pub steps: Vec<u64>,
}

/// Whether a finding makes an outcome bad. A store through a stale TLB entry whose frame
/// still holds the page is reported but is bad only when its data is lost (`lost_write`):
/// under a rule that flushes late on purpose (mremap's, until the flush) it lands in the
/// very page that is now mapped elsewhere.
pub fn is_bad(kind: &str) -> bool {
    kind != "stale_tlb_store"
}

/// One outcome: the final counters and findings that some schedules reach.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Counters at the end of its shortest schedule (outcomes are told apart by them, all
    /// but the `*_ns` counters of simulated time, and by the finding kinds).
    pub counters: Counters,
    /// Findings of the shortest schedule that reaches it.
    pub findings: Vec<Finding>,
    /// Whether any finding is bad.
    pub bad: bool,
    /// Complete schedules that reached it.
    pub runs: u64,
    /// The shortest schedule (fewest steps) that reaches it.
    pub schedule: Schedule,
    /// Its steps.
    pub steps: u64,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Exploration {
    /// Complete schedules run to their end (or to a finding that stops them).
    pub runs: u64,
    /// States visited (steps taken by the search).
    pub states: u64,
    /// States seen before and not explored again.
    pub revisits: u64,
    /// Steps found to commute (a sleep set kept a CPU asleep across them).
    pub commuting_checks: u64,
    /// Steps taken alone because no other CPU could observe them.
    pub local_steps: u64,
    /// Paths that ended with every enabled CPU asleep (their orders were covered elsewhere:
    /// work the sleep sets could not avoid).
    pub sleep_blocked: u64,
    /// Whether every schedule was covered (no budget ran out): with a delay bound, every
    /// schedule within it.
    pub exhaustive: bool,
    /// The delay bound searched under ([`Budget::delays`]).
    pub delays: Option<u32>,
    /// Whether the bound left out a branch (if not, the bounded search covered every
    /// schedule there is).
    pub delay_bound_reached: bool,
    /// Why not, when not.
    pub cut: Option<String>,
    /// The distinct outcomes, bad ones first, then by schedules that reach them.
    pub outcomes: Vec<Outcome>,
}

/// The CPUs that could take the next step: those with work, an IPI or a timer pending
/// before the run's window ends.
pub fn enabled(sim: &Sim) -> Vec<CpuId> {
    (0..sim.st.cpus.len() as CpuId).filter(|&c| sim.ready_at(c).is_some()).collect()
}

/// A digest of the state for the search (see the module's notes for what it covers).
pub fn digest(sim: &Sim) -> u64 {
    let st = &sim.st;
    let mut d = Hasher::default();
    for c in &st.cpus {
        let inbox: Vec<_> = c.inbox.iter().map(|i| (i.mm, i.start, i.pages, i.gen, i.arrive)).collect();
        let _ = write!(
            d,
            "{}|{}|{}|{:?}|{}|{}|{}|{:?}|{:?}|{:?}|{}|{}|{:?}|{:?}|{:?}|{}|{}|{:?}|{:?};",
            c.clock,
            c.curr,
            c.idle,
            c.rq,
            c.slice_end,
            c.min_vruntime,
            c.need_resched,
            c.skip,
            c.timers,
            c.loaded_mm,
            c.lazy,
            c.seen_gen,
            c.tlb,
            c.wait,
            inbox,
            c.acks_pending,
            c.acks_last,
            c.sd,
            c.sd_numa
        );
    }
    // Tasks carry the lab's hint records, whose step numbers are left out.
    let _ = d.write_str(&strip_step_records(&format!("{:?}", st.tasks)));
    for s in &st.stacks {
        for f in s.iter() {
            let _ = write!(d, "{f:?}");
        }
        d.word(u64::MAX);
    }
    let _ = write!(
        d,
        "{:?}{:?}{:?}{:?}{:?}{:?}{}{}{:?}{:?}{}{:?}{}",
        st.mms,
        st.roots,
        st.page_cache,
        st.backing,
        st.numa_pgdat,
        st.page_alloc,
        st.locks.canonical_text(),
        st.step,
        st.counters,
        st.rng,
        st.nohz_next_balance,
        st.numa_groups,
        st.sched_pos,
    );
    // The frames (the biggest part) as numbers, not text.
    for pfn in 0..st.frames.len() {
        let p = st.frames.get(pfn);
        d.word(u64::from(p.flags) | u64::from(p.mapcount) << 16 | u64::from(p.refcount) << 32 | u64::from(p.mapping) << 48);
        d.word(u64::from(p.index) | u64::from(p.last_cpupid) << 32);
        d.word(u64::from(st.frames.content(pfn)) | u64::from(st.frames.owner_gen(pfn)) << 32);
    }
    d.finish()
}

/// A 64-bit hash fed eight bytes at a time (a multiply-rotate mix): text is written to it
/// as it is formatted, through a small buffer, with no string built first.
struct Hasher {
    h: u64,
    buf: [u8; 1024],
    len: usize,
}

impl Default for Hasher {
    fn default() -> Self {
        Hasher {
            h: 0,
            buf: [0; 1024],
            len: 0,
        }
    }
}

impl Hasher {
    fn mix(&mut self, w: u64) {
        self.h = (self.h.rotate_left(23) ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    /// Hashes the buffer's whole words; a partial word stays at the front.
    fn drain(&mut self) {
        let whole = self.len / 8 * 8;
        for i in (0..whole).step_by(8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(&self.buf[i..i + 8]);
            self.mix(u64::from_le_bytes(w));
        }
        self.buf.copy_within(whole..self.len, 0);
        self.len -= whole;
    }

    fn word(&mut self, w: u64) {
        if self.len + 8 > self.buf.len() {
            self.drain();
        }
        self.buf[self.len..self.len + 8].copy_from_slice(&w.to_le_bytes());
        self.len += 8;
    }

    fn finish(mut self) -> u64 {
        self.drain();
        let mut w = [0u8; 8];
        w[..self.len].copy_from_slice(&self.buf[..self.len]);
        let last = u64::from_le_bytes(w) ^ (self.len as u64) << 56;
        self.mix(last);
        let h = self.h;
        (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
    }
}

impl std::fmt::Write for Hasher {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let mut bytes = s.as_bytes();
        while !bytes.is_empty() {
            if self.len == self.buf.len() {
                self.drain();
            }
            let n = bytes.len().min(self.buf.len() - self.len);
            self.buf[self.len..self.len + n].copy_from_slice(&bytes[..n]);
            self.len += n;
            bytes = &bytes[n..];
        }
        Ok(())
    }
}

/// Kinds of step that act on the CPU's own task only: starting or ending a stretch of user
/// computation, calling a function or returning from one.
const LOCAL_KINDS: &[&str] = &["op_start", "compute_done", "call", "return"];

/// Whether the step `before` → `after` of `cpu` is one no other CPU can observe: a
/// [`LOCAL_KINDS`] step that names no PTE or frame (the engine names what a step reads or
/// writes there: a walk, a mapcount test) and changes no other CPU's next step (a wake-up
/// or an IPI would), with no lock taken or dropped, and that leaves the latest clock where
/// it was.
fn is_local(before: &Sim, after: &Sim, cpu: CpuId, kind: &str, touched: &crate::engine::Touched) -> bool {
    LOCAL_KINDS.contains(&kind)
        && touched.pte.is_none()
        && touched.pfns == [None, None]
        && (0..before.st.cpus.len() as CpuId)
            .filter(|&c| c != cpu)
            .all(|c| before.ready_at(c) == after.ready_at(c) && before.st.cpus[c as usize].inbox.len() == after.st.cpus[c as usize].inbox.len())
        && before.st.locks.same_as(&after.st.locks)
        // A step that moves the latest clock could change what a step reading it does
        // (`Sim::now`: the flusher's wake-up time).
        && after.now() == before.now()
}

pub use crate::mm::truncate::latent_lost_writes;

/// `step: Some(N)` (a hint record's step) with the number left out.
fn strip_step_records(text: &str) -> String {
    const KEY: &str = "step: Some(";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(KEY) {
        out.push_str(&rest[..i + KEY.len()]);
        rest = rest[i + KEY.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// One step of the search's current path.
#[derive(Clone, Copy)]
struct PathStep {
    step: u64,
    /// The CPU that acted.
    cpu: CpuId,
    /// The CPU the default order would have taken.
    default: Option<CpuId>,
    /// The PTE the step named (pid, vpn).
    pte: Option<(u16, u32)>,
    /// Its event kind.
    kind: &'static str,
}

/// The search's state along the current path.
struct Search {
    budget: Budget,
    invariants: bool,
    visited: HashMap<u64, Vec<CpuId>>,
    /// With a delay bound: each state's fewest deviations used on reaching it.
    visited_delays: HashMap<u64, u32>,
    /// With a delay bound: whether some branch was left out for it.
    bounded: bool,
    /// The steps of the current path.
    path: Vec<PathStep>,
    /// Findings along the path: (step, kind, index in [`FINDINGS`] or `usize::MAX`).
    marks: Vec<(u64, &'static str, usize)>,
    outcomes: BTreeMap<(Vec<u64>, Vec<&'static str>), Outcome>,
    runs: u64,
    states: u64,
    revisits: u64,
    commuting: u64,
    local: u64,
    blocked: u64,
    cut: Option<String>,
}

/// Explores every schedule of `scenario` under `toggles` within `budget`, checking the
/// engine's invariants after every step when `invariants` is set.
pub fn explore(scenario: &Scenario, toggles: &ToggleSet, budget: Budget, invariants: bool) -> Exploration {
    let mut plain = scenario.clone();
    plain.schedule = Schedule::default();
    let sim = Sim::new(&plain, toggles, false);
    let mut s = Search {
        budget,
        invariants,
        visited: HashMap::new(),
        visited_delays: HashMap::new(),
        bounded: false,
        path: Vec::new(),
        marks: Vec::new(),
        outcomes: BTreeMap::new(),
        runs: 0,
        states: 0,
        revisits: 0,
        commuting: 0,
        local: 0,
        blocked: 0,
        cut: None,
    };
    s.dfs(sim, Vec::new(), 0);
    let mut outcomes: Vec<Outcome> = s.outcomes.into_values().collect();
    outcomes.sort_by(|a, b| b.bad.cmp(&a.bad).then(b.runs.cmp(&a.runs)).then(a.steps.cmp(&b.steps)));
    Exploration {
        runs: s.runs,
        states: s.states,
        revisits: s.revisits,
        commuting_checks: s.commuting,
        local_steps: s.local,
        sleep_blocked: s.blocked,
        exhaustive: s.cut.is_none(),
        delays: budget.delays,
        delay_bound_reached: s.bounded,
        cut: s.cut,
        outcomes,
    }
}

impl Search {
    fn dfs(&mut self, sim: Sim, mut sleep: Vec<CpuId>, used: u32) {
        if self.cut.is_some() {
            return;
        }
        let mut enabled = enabled(&sim);
        // The default order's choice first: the first schedule explored is the default run.
        if let Some(first) = sim.st.readyq.peek().map(|p| p.1) {
            if let Some(i) = enabled.iter().position(|&c| c == first) {
                enabled[..=i].rotate_right(1);
            }
        }
        if enabled.is_empty() {
            let stuck = sim.check_stuck().err().map(|e| e.to_string());
            self.finish(&sim, stuck);
            return;
        }
        if self.path.len() as u64 >= self.budget.depth {
            self.cut = Some(format!("a schedule reached {} steps (the depth budget)", self.budget.depth));
            return;
        }
        let h = digest(&sim);
        let limit = self.budget.delays;
        if limit.is_some() {
            // Seen with no more deviations used: everything from here was explored.
            match self.visited_delays.get_mut(&h) {
                Some(u) if *u <= used => {
                    self.revisits += 1;
                    return;
                }
                Some(u) => *u = used,
                None => {
                    self.visited_delays.insert(h, used);
                }
            }
        } else {
            match self.visited.get_mut(&h) {
                Some(stored) => {
                    // Explored before with `stored` asleep: only those awake now are new.
                    let todo: Vec<CpuId> = stored.iter().copied().filter(|c| !sleep.contains(c)).collect();
                    stored.retain(|c| sleep.contains(c));
                    if todo.is_empty() {
                        self.revisits += 1;
                        return;
                    }
                    sleep = enabled.iter().copied().filter(|c| !todo.contains(c)).collect();
                }
                None => {
                    self.visited.insert(h, sleep.clone());
                }
            }
        }
        if enabled.iter().all(|c| sleep.contains(c)) {
            self.blocked += 1;
            return;
        }
        let default = sim.st.readyq.peek().map(|p| p.1);
        // A step no other CPU can observe commutes with every other step: it is taken
        // alone, with no branch (an ample set of one; the runs end, so no cycle can
        // postpone the others forever).
        for &t in &enabled {
            // Not under a delay bound: a schedule that takes the local step later may count
            // its deviations differently (the step moves its CPU's clock, so the default
            // order after it may differ).
            if sleep.contains(&t) || limit.is_some() {
                continue;
            }
            let mut next = sim.clone();
            let step = next.st.step;
            let Some((info, touched)) = next.step_cpu_touched(t) else {
                continue;
            };
            if !is_local(&sim, &next, t, info.kind.name(), &touched) {
                continue;
            }
            if self.states >= self.budget.states {
                self.cut = Some(format!("{} states visited (the state budget)", self.budget.states));
                return;
            }
            self.states += 1;
            self.local += 1;
            self.path.push(PathStep {
                step,
                cpu: t,
                default,
                pte: touched.pte,
                kind: info.kind.name(),
            });
            self.dfs(next, sleep, used);
            self.path.pop();
            return;
        }
        for &t in &enabled {
            if sleep.contains(&t) {
                continue;
            }
            let cost = u32::from(default.is_some_and(|d| d != t));
            if limit.is_some_and(|l| used + cost > l) {
                self.bounded = true;
                continue;
            }
            if self.states >= self.budget.states {
                self.cut = Some(format!("{} states visited (the state budget)", self.budget.states));
                return;
            }
            self.states += 1;
            let mut next = sim.clone();
            let before = next.st.counters;
            let step = next.st.step;
            let Some((info, touched)) = next.step_cpu_touched(t) else {
                continue;
            };
            self.path.push(PathStep {
                step,
                cpu: t,
                default,
                pte: touched.pte,
                kind: info.kind.name(),
            });
            let marks = self.marks.len();
            self.note(&before, &next, step);
            let broken = if self.invariants {
                crate::invariants::check(&next).err()
            } else {
                None
            };
            match broken {
                Some(why) => {
                    self.marks.push((step, "invariant", usize::MAX));
                    self.finish(&next, Some(format!("after step {step}: {why}")));
                }
                None if limit.is_some() => self.dfs(next, Vec::new(), used + cost),
                None => {
                    let asleep: Vec<CpuId> = sleep.iter().copied().filter(|&u| self.commute(&sim, u, t)).collect();
                    self.dfs(next, asleep, used);
                }
            }
            self.marks.truncate(marks);
            self.path.pop();
            if limit.is_none() {
                sleep.push(t);
            }
        }
    }

    /// Whether `u` and `t`, both enabled in `s`, commute there.
    fn commute(&mut self, s: &Sim, u: CpuId, t: CpuId) -> bool {
        let run = |first: CpuId, second: CpuId| -> Option<u64> {
            let mut x = s.clone();
            x.step_cpu(first)?;
            x.ready_at(second)?;
            x.step_cpu(second)?;
            Some(digest(&x))
        };
        let same = matches!((run(u, t), run(t, u)), (Some(a), Some(b)) if a == b);
        if same {
            self.commuting += 1;
        }
        same
    }

    /// Findings made by the step at `step` (counter changes that are findings).
    fn note(&mut self, before: &Counters, after: &Sim, step: u64) {
        for (i, &(counter, kind, _)) in FINDINGS.iter().enumerate() {
            if after.st.counters.get(counter) > before.get(counter) {
                self.marks.push((step, kind, i));
            }
        }
    }

    /// The steps a finding at path step `step` involves: for a use of a TLB entry, the
    /// walk that cached it (the same CPU's last `page_walk` of that PTE), the last step of
    /// another CPU that named the PTE after it, and the use itself.
    fn involved(&self, step: u64) -> Vec<u64> {
        let Some(i) = self.path.iter().rposition(|p| p.step == step) else {
            return vec![step];
        };
        let at = self.path[i];
        let mut steps = vec![step];
        if let (Some(pte), "access") = (at.pte, at.kind) {
            let fill = self.path[..i]
                .iter()
                .rposition(|p| p.cpu == at.cpu && p.pte == Some(pte) && p.kind == "page_walk");
            if let Some(f) = fill {
                steps.push(self.path[f].step);
                if let Some(c) = self.path[f + 1..i].iter().rev().find(|p| p.cpu != at.cpu && p.pte == Some(pte)) {
                    steps.push(c.step);
                }
            }
        }
        steps.sort_unstable();
        steps
    }

    /// A schedule ended (its last state `sim`; `stopped` says why when it did not finish).
    fn finish(&mut self, sim: &Sim, stopped: Option<String>) {
        self.runs += 1;
        let mut findings: Vec<Finding> = Vec::new();
        let latent = latent_lost_writes(sim);
        if !latent.is_empty() && !self.marks.iter().any(|m| m.1 == "lost_write") {
            let detail = latent
                .iter()
                .map(|(off, pfn, held, file)| {
                    format!("file offset {off} (pfn {pfn}) is clean and unmapped at the end but holds version {held}, the file {file}: reclaim or FADV_DONTNEED may drop it unwritten")
                })
                .collect::<Vec<_>>()
                .join("; ");
            let steps = self.path.last().map(|p| vec![p.step]).unwrap_or_default();
            findings.push(Finding {
                kind: "lost_write",
                detail,
                steps,
            });
        }
        let mut kinds: Vec<&'static str> = Vec::new();
        for &(_, kind, _) in FINDINGS {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        for kind in kinds {
            let marks: Vec<&(u64, &'static str, usize)> = self.marks.iter().filter(|m| m.1 == kind).collect();
            if marks.is_empty() {
                continue;
            }
            let mut details: Vec<&str> = Vec::new();
            let mut steps: Vec<u64> = Vec::new();
            for m in &marks {
                if let Some(&(_, _, d)) = FINDINGS.get(m.2) {
                    if !details.contains(&d) {
                        details.push(d);
                    }
                }
                for x in self.involved(m.0) {
                    if !steps.contains(&x) {
                        steps.push(x);
                    }
                }
            }
            steps.sort_unstable();
            findings.push(Finding {
                kind,
                detail: details.join("; "),
                steps,
            });
        }
        if let Some(why) = stopped {
            let kind = if self.marks.last().is_some_and(|m| m.1 == "invariant") {
                "invariant"
            } else {
                "stuck"
            };
            let steps = self.path.last().map(|p| vec![p.step]).unwrap_or_default();
            findings.push(Finding { kind, detail: why, steps });
        }
        let bad = findings.iter().any(|f| is_bad(f.kind));
        // Outcomes are told apart by what happened (event counts), not by when: with time
        // set aside, counters of simulated time (`*_ns`) differ from schedule to schedule.
        let key = (
            sim.st
                .counters
                .iter()
                .filter(|(c, _)| !c.name().ends_with("_ns"))
                .map(|(_, v)| v)
                .collect::<Vec<u64>>(),
            findings.iter().map(|f| f.kind).collect::<Vec<_>>(),
        );
        let steps = sim.st.step;
        let schedule = self.schedule();
        let e = self.outcomes.entry(key).or_insert_with(|| Outcome {
            counters: sim.st.counters,
            findings: findings.clone(),
            bad,
            runs: 0,
            schedule: schedule.clone(),
            steps,
        });
        e.runs += 1;
        if steps < e.steps || (steps == e.steps && schedule.picks().len() < e.schedule.picks().len()) {
            e.steps = steps;
            e.schedule = schedule;
            e.findings = findings;
        }
    }

    /// The current path as a schedule: the steps where it left the default order.
    fn schedule(&self) -> Schedule {
        let picks: Vec<(u64, CpuId)> = self
            .path
            .iter()
            .filter(|p| p.default != Some(p.cpu))
            .map(|p| (p.step, p.cpu))
            .collect();
        Schedule::new(picks).unwrap_or_default()
    }
}

/// One toggle set a search runs under.
#[derive(Clone, Debug)]
pub struct Case {
    /// `as set`, or `id=value`.
    pub label: String,
    /// The whole set.
    pub toggles: ToggleSet,
    /// The toggle varied and its value here (none for `as set`).
    pub varied: Option<(String, String)>,
}

/// The toggle sets a search runs under: `base` alone, or `base` with each value of the
/// toggle `id`.
pub fn toggle_values(base: &ToggleSet, id: Option<&str>) -> Result<Vec<Case>, String> {
    let Some(id) = id else {
        return Ok(vec![Case {
            label: "as set".to_string(),
            toggles: base.clone(),
            varied: None,
        }]);
    };
    let patch =
        crate::patches::find(id).ok_or_else(|| format!("unknown toggle `{id}` (known toggles: {})", crate::patches::known_ids()))?;
    patch
        .values()
        .into_iter()
        .map(|v| {
            let mut t = base.clone();
            t.set(id, v.clone()).map_err(|e| format!("{id}: {e}"))?;
            Ok(Case {
                label: format!("{id}={v}"),
                toggles: t,
                varied: Some((id.to_string(), v.to_string())),
            })
        })
        .collect()
}

/// The counters (not those of simulated time) whose final value differs between outcomes.
pub fn varying_counters(all: &[Counters]) -> Vec<crate::counters::Counter> {
    let Some(first) = all.first() else { return Vec::new() };
    first
        .iter()
        .filter(|(c, v)| !c.name().ends_with("_ns") && all.iter().any(|o| o.get(*c) != *v))
        .map(|(c, _)| c)
        .collect()
}

/// A search per toggle value, as `mmviz explore --json` prints it (which adds each
/// value's `seconds` and each outcome's `replay` command) and the lab reads it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExploreReport {
    /// The scenario's id.
    pub scenario: String,
    /// States visited at most per value.
    pub budget_states: u64,
    /// The delay bound ([`Budget::delays`]; none: every schedule).
    pub delays: Option<u32>,
    /// One search per toggle value.
    pub values: Vec<ValueReport>,
}

/// Explores `scenario` under each of `cases` with `budget`, invariants on.
pub fn report(scenario: &Scenario, cases: &[Case], budget: Budget) -> ExploreReport {
    ExploreReport {
        scenario: scenario.id.clone(),
        budget_states: budget.states,
        delays: budget.delays,
        values: cases
            .iter()
            .map(|c| ValueReport::new(c, &explore(scenario, &c.toggles, budget, true)))
            .collect(),
    }
}

/// One search as the CLI's `--json` and the lab show it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValueReport {
    /// `as set`, or `id=value`.
    pub value: String,
    /// The toggle varied and its value here, `{id: value}` (empty for `as set`): with the
    /// toggles the search started from, what a replay needs.
    pub toggles: BTreeMap<String, String>,
    /// See [`Exploration::exhaustive`].
    pub exhaustive: bool,
    /// See [`Exploration::delay_bound_reached`].
    pub delay_bound_reached: bool,
    /// See [`Exploration::cut`].
    pub cut: Option<String>,
    /// Complete schedules ([`Exploration::runs`]).
    pub schedules: u64,
    /// See [`Exploration::states`].
    pub states: u64,
    /// See [`Exploration::revisits`].
    pub revisits: u64,
    /// See [`Exploration::local_steps`].
    pub local_steps: u64,
    /// See [`Exploration::commuting_checks`].
    pub commuting_pairs: u64,
    /// See [`Exploration::sleep_blocked`].
    pub sleep_blocked: u64,
    /// The outcomes, bad ones first.
    pub outcomes: Vec<OutcomeReport>,
}

/// One outcome of a [`ValueReport`].
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OutcomeReport {
    /// Whether a finding is bad ([`is_bad`]).
    pub bad: bool,
    /// Complete schedules that reach it.
    pub schedules: u64,
    /// Its findings (of the shortest schedule).
    pub findings: Vec<FindingReport>,
    /// The counters that differ between this search's outcomes, by vmstat-style name.
    pub counters: BTreeMap<String, u64>,
    /// The shortest schedule that reaches it (`--schedule`, a link's `sched`).
    pub schedule: String,
    /// Steps of that schedule.
    pub steps: u64,
}

/// One finding of an [`OutcomeReport`].
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FindingReport {
    /// See [`Finding::kind`].
    pub kind: &'static str,
    /// See [`Finding::detail`].
    pub detail: String,
    /// See [`Finding::steps`].
    pub steps: Vec<u64>,
}

impl ValueReport {
    /// The report of search `x` under `case`.
    pub fn new(case: &Case, x: &Exploration) -> Self {
        let varying = varying_counters(&x.outcomes.iter().map(|o| o.counters).collect::<Vec<_>>());
        ValueReport {
            value: case.label.clone(),
            toggles: case.varied.iter().cloned().collect(),
            exhaustive: x.exhaustive,
            delay_bound_reached: x.delay_bound_reached,
            cut: x.cut.clone(),
            schedules: x.runs,
            states: x.states,
            revisits: x.revisits,
            local_steps: x.local_steps,
            commuting_pairs: x.commuting_checks,
            sleep_blocked: x.sleep_blocked,
            outcomes: x
                .outcomes
                .iter()
                .map(|o| OutcomeReport {
                    bad: o.bad,
                    schedules: o.runs,
                    findings: o
                        .findings
                        .iter()
                        .map(|f| FindingReport {
                            kind: f.kind,
                            detail: f.detail.clone(),
                            steps: f.steps.clone(),
                        })
                        .collect(),
                    counters: varying.iter().map(|c| (c.name().to_string(), o.counters.get(*c))).collect(),
                    schedule: o.schedule.to_string(),
                    steps: o.steps,
                })
                .collect(),
        }
    }
}
