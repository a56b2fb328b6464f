//! Headless runs: counters and metrics of one run, off/on comparisons, sweeps
//! ([`sweep`]) and `[[expect]]` checks. Used by the CLI, the wasm layer and the tests.

pub mod sweep;

use crate::counters::{Counter, Counters};
use crate::engine::Sim;
use crate::patches::{self, ToggleSet, ToggleValue};
use crate::scenario::{Expect, RunChoice, Scenario};
use crate::simulation::Error;
use std::collections::BTreeMap;

/// The outcome of one counter-only run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// Toggles in effect.
    pub toggles: ToggleSet,
    /// Final counters.
    pub counters: Counters,
    /// Steps taken.
    pub steps: u64,
    /// Metrics (`sim_time_ns`, `accesses_per_ms`, ...).
    pub metrics: BTreeMap<&'static str, f64>,
    /// Kernel functions by inclusive CPU time (they and their callees), ns, most first.
    pub profile: Vec<(&'static str, u64)>,
    /// The profile over each window asked for ([`run_with`]), in the order asked.
    pub windows: Vec<WindowResult>,
}

/// A stretch of simulated time whose profile is measured on its own (`mmviz run
/// --profile-window`, an `[[expect]]`'s `window`), as a profiler sampling part of a run
/// sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Window {
    /// Start, ns.
    pub start_ns: u64,
    /// End, ns (cut at the run's end).
    pub end_ns: u64,
}

impl Window {
    /// `START_S..END_S` in seconds (decimals allowed), checked.
    pub fn parse(text: &str) -> Result<Window, String> {
        let (a, b) = text
            .split_once("..")
            .ok_or_else(|| format!("`{text}`: expected START_S..END_S, e.g. 15..25 (seconds of simulated time)"))?;
        let secs = |x: &str| -> Result<u64, String> {
            let v: f64 = x
                .trim()
                .parse()
                .map_err(|_| format!("`{text}`: `{}` is not a number of seconds", x.trim()))?;
            if !(0.0..=1e6).contains(&v) {
                return Err(format!("`{text}`: {v} s is out of range 0..=1000000"));
            }
            Ok((v * 1e9).round() as u64)
        };
        let (start_ns, end_ns) = (secs(a)?, secs(b)?);
        if end_ns <= start_ns {
            return Err(format!("`{text}`: the window must end after it starts"));
        }
        Ok(Window { start_ns, end_ns })
    }

    /// `START..END` in seconds, as the tables print it.
    pub fn label(&self) -> String {
        format!("{}..{} s", self.start_ns as f64 / 1e9, self.end_ns as f64 / 1e9)
    }
}

/// What the profile gave inside a [`Window`].
#[derive(Clone, Debug, PartialEq)]
pub struct WindowResult {
    /// The window.
    pub window: Window,
    /// The metrics read from the profile (CPU times, `*_pct` shares), worked out from the
    /// window's profile and counters.
    pub metrics: BTreeMap<&'static str, f64>,
    /// Kernel functions by inclusive CPU time over the window, ns, most first.
    pub profile: Vec<(&'static str, u64)>,
}

impl RunResult {
    /// What the reader of this run's numbers must know before trusting them: threads the
    /// model stopped for want of memory (`oom_stops`), with what to change. Empty for a
    /// sound run. The CLI prints these on stderr, and the lab shows them.
    pub fn warnings(&self) -> Vec<String> {
        warnings(&self.counters)
    }

    /// A metric read from the profile, over `window` (which must be one of the run's).
    pub fn window_value(&self, window: Window, name: &str) -> Option<f64> {
        self.windows.iter().find(|w| w.window == window)?.metrics.get(name).copied()
    }

    /// A counter or metric by name; `NAME [START..END s]` (a row [`RunResult::window_rows`]
    /// gives) is a metric over one of the run's windows.
    pub fn value(&self, name: &str) -> Option<f64> {
        if let Some(c) = Counter::from_name(name) {
            return Some(self.counters.get(c) as f64);
        }
        if name == "steps" {
            return Some(self.steps as f64);
        }
        if let Some(v) = self.metrics.get(name) {
            return Some(*v);
        }
        let (metric, label) = name.strip_suffix(']')?.split_once(" [")?;
        let w = self.windows.iter().find(|w| w.window.label() == label)?;
        w.metrics.get(metric).copied()
    }

    /// A table row name per metric of each window (`NAME [START..END s]`).
    pub fn window_rows(&self) -> Vec<String> {
        self.windows
            .iter()
            .flat_map(|w| w.metrics.keys().map(move |m| format!("{m} [{}]", w.window.label())))
            .collect()
    }

    /// Every counter, `steps` and every metric the run has, by name: for each `name`,
    /// `named_values().get(name)` is [`RunResult::value`]`(name)`.
    pub fn named_values(&self) -> BTreeMap<String, f64> {
        let mut out: BTreeMap<String, f64> = self.metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        out.insert("steps".into(), self.steps as f64);
        out.extend(self.counters.iter().map(|(c, v)| (c.name().to_string(), v as f64)));
        out
    }
}

/// Metric names per lock class, in `LockClass::ALL` order: acquisitions, contended
/// acquisitions, wait ns, hold ns.
pub const LOCK_METRICS: [[&str; 4]; 7] = [
    ["lock_ptl_acquired", "lock_ptl_contended", "lock_ptl_wait_ns", "lock_ptl_hold_ns"],
    [
        "lock_page_lock_acquired",
        "lock_page_lock_contended",
        "lock_page_lock_wait_ns",
        "lock_page_lock_hold_ns",
    ],
    [
        "lock_zone_lock_acquired",
        "lock_zone_lock_contended",
        "lock_zone_lock_wait_ns",
        "lock_zone_lock_hold_ns",
    ],
    [
        "lock_lru_lock_acquired",
        "lock_lru_lock_contended",
        "lock_lru_lock_wait_ns",
        "lock_lru_lock_hold_ns",
    ],
    [
        "lock_mmap_lock_acquired",
        "lock_mmap_lock_contended",
        "lock_mmap_lock_wait_ns",
        "lock_mmap_lock_hold_ns",
    ],
    [
        "lock_anon_vma_acquired",
        "lock_anon_vma_contended",
        "lock_anon_vma_wait_ns",
        "lock_anon_vma_hold_ns",
    ],
    [
        "lock_i_mmap_acquired",
        "lock_i_mmap_contended",
        "lock_i_mmap_wait_ns",
        "lock_i_mmap_hold_ns",
    ],
];

/// The warnings a run's final `counters` call for ([`RunResult::warnings`]): threads the
/// model stopped because no node had a free page for their fault (`oom_stops`).
pub fn warnings(counters: &Counters) -> Vec<String> {
    let mut w = Vec::new();
    let stops = counters.get(crate::mech::core::OOM_STOPS);
    if stops > 0 {
        w.push(format!(
            "{stops} thread{} stopped: no node had a free page for a fault (the model has no reclaim and no OOM killer), so the run did less work than the scenario meant; give the nodes more memory (`mem_pages`) or the processes less",
            if stops == 1 { "" } else { "s" }
        ));
    }
    w
}

/// Runs `scenario` under `toggles` to the end, counters only.
pub fn run(scenario: &Scenario, toggles: &ToggleSet) -> Result<RunResult, Error> {
    run_with(scenario, toggles, &[])
}

/// [`run`], also measuring the profile over each of `windows`: the run is stopped at each
/// window's start and end (before the first step at or after it), the profile taken there
/// with every CPU's time charged up to it, and the window's the difference.
pub fn run_with(scenario: &Scenario, toggles: &ToggleSet, windows: &[Window]) -> Result<RunResult, Error> {
    let mut sim = Sim::new(scenario, toggles, false);
    sim.profiling = true;
    let max = sim.cfg.knobs.value(crate::mech::core::MAX_STEPS);
    let mut bounds: Vec<u64> = windows.iter().flat_map(|w| [w.start_ns, w.end_ns]).collect();
    bounds.sort_unstable();
    bounds.dedup();
    let mut snaps: Vec<(u64, crate::profile::Profile, Counters)> = Vec::new();
    for b in bounds {
        while !sim.window_closed() && sim.st.readyq.peek().is_some_and(|(t, _)| t < b) {
            if sim.step().is_none() {
                break;
            }
            if sim.st.step > max {
                return Err(Error::Run(crate::engine::RunError::TooManySteps(max)));
            }
        }
        let ended = sim.window_closed() || sim.st.readyq.peek().is_none();
        let at = if ended { b.min(crate::mech::core::run_time_ns(&sim)) } else { b };
        snaps.push((b, sim.profile_at(at), sim.st.counters));
    }
    sim.run_to_end().map_err(Error::Run)?;
    let mut metrics = BTreeMap::new();
    for m in crate::registry::metrics() {
        if let Some(v) = (m.value)(&sim) {
            metrics.insert(m.name, v);
        }
    }
    // Lock statistics per class that was used (what /proc/lock_stat reports).
    for (class, names) in crate::core::LockClass::ALL.iter().zip(LOCK_METRICS) {
        let st = sim.st.locks.stats(*class);
        if st.acquired > 0 {
            for (name, v) in names.iter().zip([st.acquired, st.contended, st.wait_ns, st.hold_ns]) {
                metrics.insert(name, v as f64);
            }
        }
    }
    let snap = |t: u64| snaps.iter().find(|(b, _, _)| *b == t).map(|(_, p, c)| (p.clone(), *c));
    let mut window_results = Vec::new();
    for &w in windows {
        let (Some(a), Some(b)) = (snap(w.start_ns), snap(w.end_ns)) else {
            continue;
        };
        let prof = b.0.since(&a.0);
        window_results.push(WindowResult {
            window: w,
            metrics: profile_metrics(&mut sim, prof.clone(), b.1.since(&a.1)),
            profile: prof.by_function(),
        });
    }
    Ok(RunResult {
        toggles: sim.cfg.toggles.clone(),
        counters: sim.st.counters,
        steps: sim.st.step,
        metrics,
        profile: sim.st.prof.by_function(),
        windows: window_results,
    })
}

/// The metrics read from the profile (those a run without profiling does not have), as
/// `prof` and `counters` (a window's) give them instead of the run's own.
fn profile_metrics(sim: &mut Sim, prof: crate::profile::Profile, counters: Counters) -> BTreeMap<&'static str, f64> {
    let whole = std::mem::replace(&mut sim.st.prof, prof);
    let whole_counters = std::mem::replace(&mut sim.st.counters, counters);
    let mut out = BTreeMap::new();
    for m in crate::registry::metrics() {
        let with = (m.value)(sim);
        sim.profiling = false;
        let without = (m.value)(sim);
        sim.profiling = true;
        if let (Some(v), None) = (with, without) {
            out.insert(m.name, v);
        }
    }
    sim.st.prof = whole;
    sim.st.counters = whole_counters;
    out
}

/// Where the runs' CPU time went, as text, a column pair per run (time in us, share of busy
/// CPU time): busy time split into user, system and kernel threads, then every kernel
/// function some run entered, with its inclusive time (it and its callees), most first in
/// the first run that has it. The shares of nested functions overlap, as in `perf report
/// --children`.
pub fn profile_table(runs: &[(String, &RunResult)]) -> String {
    use std::fmt::Write;
    let busy: Vec<f64> = runs
        .iter()
        .map(|(_, r)| {
            ["user_time_ns", "sys_time_ns", "kthread_time_ns"]
                .iter()
                .map(|n| r.metrics.get(n).copied().unwrap_or(0.0))
                .sum()
        })
        .collect();
    // A column pair per run, as wide as the run's name: time (us) and share (%).
    let widths: Vec<usize> = runs.iter().map(|(name, _)| name.len().max(25)).collect();
    let mut s = String::new();
    let _ = write!(s, "{:<40}", "CPU time (inclusive)");
    for ((name, _), w) in runs.iter().zip(&widths) {
        let _ = write!(s, " {name:>w$}");
    }
    s.push('\n');
    let _ = write!(s, "{:<40}", "");
    for w in &widths {
        let _ = write!(s, " {:>tw$} {:>7}", "us", "% busy", tw = w - 8);
    }
    s.push('\n');
    let line = |s: &mut String, label: &str, ns: &dyn Fn(&RunResult) -> f64| {
        let _ = write!(s, "{label:<40}");
        for (((_, r), b), w) in runs.iter().zip(&busy).zip(&widths) {
            let v = ns(r);
            let pct = if *b > 0.0 { 100.0 * v / b } else { 0.0 };
            let _ = write!(s, " {:>tw$.3} {:>7.2}", v / 1e3, pct, tw = w - 8);
        }
        s.push('\n');
    };
    for (label, name) in [
        ("user", "user_time_ns"),
        ("system", "sys_time_ns"),
        ("kernel threads", "kthread_time_ns"),
        ("iowait (not busy)", "iowait_time_ns"),
    ] {
        line(&mut s, label, &|r: &RunResult| r.metrics.get(name).copied().unwrap_or(0.0));
    }
    let mut functions: Vec<&'static str> = Vec::new();
    for (_, r) in runs {
        for &(f, _) in &r.profile {
            if !functions.contains(&f) {
                functions.push(f);
            }
        }
    }
    for f in functions {
        line(&mut s, &format!("  {f}"), &|r: &RunResult| {
            r.profile.iter().find(|&&(g, _)| g == f).map_or(0.0, |&(_, ns)| ns as f64)
        });
    }
    s
}

/// A hash of the run's whole event stream: every step's time, CPU, task, kind, function,
/// line and cause (FNV-1a, 64 bits). Native and wasm builds must agree on it.
pub fn event_hash(scenario: &Scenario, toggles: &ToggleSet) -> Result<u64, Error> {
    let mut sim = Sim::new(scenario, toggles, false);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    let max = sim.cfg.knobs.value(crate::mech::core::MAX_STEPS);
    while let Some((info, function, line, cause)) = sim.step_located() {
        eat(&info.step.to_le_bytes());
        eat(&info.time_ns.to_le_bytes());
        eat(&info.cpu.to_le_bytes());
        eat(&info.task.to_le_bytes());
        eat(info.kind.name().as_bytes());
        eat(function.as_bytes());
        eat(line.as_bytes());
        eat(&cause.to_le_bytes());
        if sim.st.step > max {
            return Err(Error::Run(crate::engine::RunError::TooManySteps(max)));
        }
    }
    sim.check_stuck().map_err(Error::Run)?;
    Ok(h)
}

/// Runs once per value of toggle `id`, in declaration order, on top of `base`.
pub fn compare(scenario: &Scenario, base: &ToggleSet, id: &str) -> Result<Vec<(ToggleValue, RunResult)>, Error> {
    compare_with(scenario, base, id, &[])
}

/// [`compare`], each run also measuring the profile over `windows`.
pub fn compare_with(scenario: &Scenario, base: &ToggleSet, id: &str, windows: &[Window]) -> Result<Vec<(ToggleValue, RunResult)>, Error> {
    let patch =
        patches::find(id).ok_or_else(|| Error::Toggle(format!("unknown toggle `{id}` (known toggles: {})", patches::known_ids())))?;
    let mut sets = Vec::new();
    for v in patch.values() {
        let mut t = base.clone();
        // Explicit: it wins over the scenario's own default.
        t.set(id, v.clone()).map_err(Error::Toggle)?;
        sets.push(t);
    }
    Ok(patch.values().into_iter().zip(run_many_with(scenario, &sets, windows)?).collect())
}

/// Runs `scenario` once per toggle set, results in the same order. Natively the runs
/// share the machine's cores (each run is independent and deterministic, so the results
/// are those of running them one after another); in wasm they run one after another.
pub fn run_many(scenario: &Scenario, sets: &[ToggleSet]) -> Result<Vec<RunResult>, Error> {
    run_many_with(scenario, sets, &[])
}

/// [`run_many`], each run also measuring the profile over `windows`.
pub fn run_many_with(scenario: &Scenario, sets: &[ToggleSet], windows: &[Window]) -> Result<Vec<RunResult>, Error> {
    let jobs: Vec<Job> = sets
        .iter()
        .map(|t| Job {
            scenario: scenario.clone(),
            toggles: t.clone(),
            windows: windows.to_vec(),
        })
        .collect();
    run_jobs(&jobs)
}

/// One run of a batch: a scenario (at its seed), toggles and profile windows.
#[derive(Clone, Debug)]
pub struct Job {
    /// The scenario, with the seed to run at.
    pub scenario: Scenario,
    /// Toggles.
    pub toggles: ToggleSet,
    /// Profile windows.
    pub windows: Vec<Window>,
}

/// Runs every job, results in the same order, sharing the machine's cores natively.
pub fn run_jobs(jobs: &[Job]) -> Result<Vec<RunResult>, Error> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if cores > 1 && jobs.len() > 1 {
            let next = std::sync::atomic::AtomicUsize::new(0);
            let slots: Vec<std::sync::Mutex<Option<Result<RunResult, Error>>>> = jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
            std::thread::scope(|s| {
                for _ in 0..cores.min(jobs.len()) {
                    s.spawn(|| loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(j) = jobs.get(i) else { break };
                        let r = run_with(&j.scenario, &j.toggles, &j.windows);
                        if let Ok(mut slot) = slots[i].lock() {
                            *slot = Some(r);
                        }
                    });
                }
            });
            return slots
                .into_iter()
                .map(|m| {
                    // A run that panicked has already ended the scope with its panic.
                    m.into_inner()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .unwrap_or_else(|| Err(Error::Step("a run of the batch did not finish".into())))
                })
                .collect();
        }
    }
    jobs.iter().map(|j| run_with(&j.scenario, &j.toggles, &j.windows)).collect()
}

/// Runs once per named preset, in the order given, each applied on top of `base`
/// and then `set` (the CLI's `--set` wins over a preset).
pub fn compare_presets(
    scenario: &Scenario,
    base: &ToggleSet,
    names: &[&str],
    set: &[(String, ToggleValue)],
) -> Result<Vec<RunResult>, Error> {
    compare_presets_with(scenario, base, names, set, &[])
}

/// [`compare_presets`], each run also measuring the profile over `windows`.
pub fn compare_presets_with(
    scenario: &Scenario,
    base: &ToggleSet,
    names: &[&str],
    set: &[(String, ToggleValue)],
    windows: &[Window],
) -> Result<Vec<RunResult>, Error> {
    let mut sets = Vec::new();
    for name in names {
        let mut t = base.clone();
        t.apply_preset(patches::find_preset(name).map_err(Error::Toggle)?)
            .map_err(Error::Toggle)?;
        for (id, v) in set {
            t.set(id, v.clone()).map_err(Error::Toggle)?;
        }
        sets.push(t);
    }
    run_many_with(scenario, &sets, windows)
}

/// One checked expectation.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectOutcome {
    /// The expectation.
    pub expect: Expect,
    /// Measured value.
    pub value: f64,
    /// Whether it holds.
    pub ok: bool,
    /// The warnings of the runs it was measured on ([`RunResult::warnings`]): a value from
    /// a run that stopped threads for want of memory says little.
    pub warnings: Vec<String>,
    /// With `seeds`: each seed's value, whose mean is `value`.
    pub per_seed: Vec<(u64, f64)>,
}

/// Runs every `[[expect]]` of `scenario` (each distinct toggle choice once per seed, with
/// every profile window its expectations name).
pub fn check(scenario: &Scenario) -> Result<Vec<ExpectOutcome>, Error> {
    check_with(scenario, true)
}

/// [`check`]; without `seed_means`, the expectations measured over several seeds
/// (`seeds`) are left out (`mmviz check --seeds` runs the others at other seeds).
pub fn check_with(scenario: &Scenario, seed_means: bool) -> Result<Vec<ExpectOutcome>, Error> {
    let expects: Vec<&Expect> = scenario.expects.iter().filter(|e| seed_means || e.seeds.is_none()).collect();
    let seeds_of = |e: &Expect| -> Vec<u64> {
        match e.seeds {
            Some(n) => (1..=u64::from(n)).collect(),
            None => vec![scenario.seed],
        }
    };
    // Every distinct (seed, choice), in order of first use, with the windows it needs.
    let mut keys: Vec<(u64, RunChoice, Vec<Window>)> = Vec::new();
    for e in &expects {
        let window = e.window.map(|(a, b)| Window { start_ns: a, end_ns: b });
        for seed in seeds_of(e) {
            for c in std::iter::once(&e.choice).chain(e.vs.as_ref()) {
                let i = match keys.iter().position(|(s, k, _)| *s == seed && k == c) {
                    Some(i) => i,
                    None => {
                        keys.push((seed, c.clone(), Vec::new()));
                        keys.len() - 1
                    }
                };
                if let Some(w) = window {
                    if !keys[i].2.contains(&w) {
                        keys[i].2.push(w);
                    }
                }
            }
        }
    }
    let jobs = keys
        .iter()
        .map(|(seed, c, w)| {
            Ok(Job {
                scenario: Scenario {
                    seed: *seed,
                    ..scenario.clone()
                },
                toggles: c.toggles().map_err(Error::Toggle)?,
                windows: w.clone(),
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let results = run_jobs(&jobs)?;
    let measure = |seed: u64, choice: &RunChoice, e: &Expect, warnings: &mut Vec<String>| -> Result<f64, Error> {
        // Every (seed, choice) an expectation names is in `keys`, so it has a result.
        let result = keys
            .iter()
            .position(|(s, k, _)| *s == seed && k == choice)
            .and_then(|i| results.get(i))
            .ok_or_else(|| Error::Step("an expectation's run is missing from the batch".into()))?;
        for w in result.warnings() {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        let get = |name: &str| -> Result<f64, Error> {
            match e.window {
                Some((a, b)) => result.window_value(Window { start_ns: a, end_ns: b }, name).ok_or_else(|| {
                    Error::Step(format!(
                        "line {}: `{name}` has no value over a window (only the metrics read from the profile do: CPU times and *_pct shares)",
                        e.line
                    ))
                }),
                None => Ok(result.value(name).unwrap_or(f64::NAN)),
            }
        };
        let num = get(&e.counter)?;
        Ok(match &e.per {
            Some(p) => ratio(num, get(p)?),
            None => num,
        })
    };
    let mut out = Vec::new();
    for e in expects {
        let mut warnings = Vec::new();
        let mut per_seed = Vec::new();
        for seed in seeds_of(e) {
            let mut value = measure(seed, &e.choice, e, &mut warnings)?;
            if let Some(vs) = &e.vs {
                value = ratio(value, measure(seed, vs, e, &mut warnings)?);
            }
            per_seed.push((seed, value));
        }
        let value = per_seed.iter().map(|&(_, v)| v).sum::<f64>() / per_seed.len().max(1) as f64;
        let ok = !value.is_nan()
            && e.eq.is_none_or(|x| (value - x).abs() <= 1e-9 * x.abs().max(1.0))
            && e.min.is_none_or(|x| value >= x)
            && e.max.is_none_or(|x| value <= x);
        out.push(ExpectOutcome {
            expect: e.clone(),
            value,
            ok,
            warnings,
            per_seed: if e.seeds.is_some() { per_seed } else { Vec::new() },
        });
    }
    Ok(out)
}

/// `a / b`, NaN when `b` is 0 (an undefined ratio fails every expectation).
fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        f64::NAN
    } else {
        a / b
    }
}

/// A plain-text comparison table in the style of the seeds' tables: one column per
/// run, absolute values, and the change against the first run in percent.
pub fn compare_table(title: &str, runs: &[(String, &RunResult)], rows: &[&str]) -> String {
    let name_w = rows.iter().map(|r| r.len()).max().unwrap_or(8).max(title.len().min(40));
    let mut out = String::new();
    out.push_str(&format!("{:<name_w$}", title));
    for (label, _) in runs {
        out.push_str(&format!("  {:>22}", label));
    }
    out.push('\n');
    for row in rows {
        let base = runs.first().and_then(|(_, r)| r.value(row));
        out.push_str(&format!("{:<name_w$}", row));
        for (i, (_, r)) in runs.iter().enumerate() {
            let v = r.value(row).unwrap_or(f64::NAN);
            let num = table_number(v);
            let cell = match (i, base) {
                (0, _) => num,
                (_, Some(b)) if b != 0.0 => format!("{num} ({:>+8.2}%)", (v - b) / b * 100.0),
                (_, Some(_)) if v == 0.0 => format!("{num} ({:>+8.2}%)", 0.0),
                _ => format!("{num} (     n/a)"),
            };
            out.push_str(&format!("  {:>22}", cell));
        }
        out.push('\n');
    }
    out
}

/// A value as the tables print it: whole numbers as they are, others with two decimals,
/// or four significant digits when that would show nothing (`0.0012`, not `0.00`).
fn table_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.abs() < 0.01 {
        let digits = (3 - v.abs().log10().floor() as i32).clamp(2, 12) as usize;
        format!("{v:.digits$}")
    } else {
        format!("{v:.2}")
    }
}

/// Whether `name` is a counter or a metric some run may report (core, lock or declared).
pub fn is_value_name(name: &str) -> bool {
    Counter::from_name(name).is_some() || crate::scenario::metric_names().contains(&name)
}

/// A table shaped like a patch series' results: one row per run, one column per counter
/// or metric. Counts and rates are shown relative to the first run (= 100.0), metrics that
/// are already percentages (`*_pct`) as they are, so a row reads like the changelog's.
/// A value a run does not have is `-`.
pub fn runs_table(title: &str, runs: &[(String, &RunResult)], columns: &[&str]) -> String {
    let label_w = runs.iter().map(|(l, _)| l.len()).max().unwrap_or(4).max(title.len().min(40));
    let widths: Vec<usize> = columns.iter().map(|c| c.len().max(8)).collect();
    let mut out = format!("{title:<label_w$}");
    for (c, w) in columns.iter().zip(&widths) {
        out.push_str(&format!("  {c:>w$}"));
    }
    out.push('\n');
    out.push_str(&"-".repeat(label_w));
    for w in &widths {
        out.push_str(&format!("  {}", "-".repeat(*w)));
    }
    out.push('\n');
    for (label, r) in runs {
        out.push_str(&format!("{label:<label_w$}"));
        for (c, w) in columns.iter().zip(&widths) {
            let base = runs.first().and_then(|(_, b)| b.value(c));
            let cell = match (r.value(c), base) {
                (Some(v), _) if c.ends_with("_pct") => format!("{v:.1}"),
                (Some(v), Some(b)) if b != 0.0 => format!("{:.1}", 100.0 * v / b),
                (Some(0.0), Some(_)) => "100.0".into(),
                (Some(_), _) => "n/a".into(),
                (None, _) => "-".into(),
            };
            out.push_str(&format!("  {cell:>w$}"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_table_is_relative_to_the_first_run_except_percentages() {
        let s = crate::scenario::parse(crate::builtin::find("sched-101").unwrap().text, &[]).unwrap();
        let mut a = run(&s, &crate::patches::ToggleSet::default()).unwrap();
        let mut b = a.clone();
        a.metrics.remove("zone_lock_contention_pct");
        let ctxt = Counter::from_name("ctxt").unwrap();
        b.counters.add(ctxt, a.counters.get(ctxt));
        b.metrics.insert("zone_lock_contention_pct", 12.5);
        let t = runs_table(
            "sched-101",
            &[("base".into(), &a), ("twice".into(), &b)],
            &["ctxt", "zone_lock_contention_pct", "steps"],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(
            lines[2].starts_with("base") && lines[2].contains("100.0") && lines[2].contains(" - "),
            "{t}"
        );
        assert!(lines[3].contains("200.0") && lines[3].contains("12.5"), "{t}");
        assert!(is_value_name("pgfree") && is_value_name("throughput") && !is_value_name("nope"));
        assert_eq!(
            [0.0012, 0.5, 3.0, 1234.5678, 0.000_012_34].map(table_number),
            ["0.001200", "0.50", "3", "1234.57", "0.00001234"]
        );
    }

    #[test]
    fn named_values_hold_every_counter_and_metric_as_value_reads_it() {
        let s = crate::scenario::parse(crate::builtin::find("numa-hint-fault-101").unwrap().text, &[]).unwrap();
        let r = run(&s, &crate::patches::ToggleSet::default()).unwrap();
        let all = r.named_values();
        for name in Counter::all().iter().map(|c| c.name()).chain(crate::scenario::metric_names()) {
            assert_eq!(all.get(name).copied(), r.value(name), "{name}");
        }
        assert!(all.contains_key("throughput") && all.contains_key("irq_tlb_count"));
    }

    #[test]
    fn lock_metric_names_follow_the_lock_class_names() {
        for (class, names) in crate::core::LockClass::ALL.iter().zip(LOCK_METRICS) {
            for (name, what) in names.iter().zip(["acquired", "contended", "wait_ns", "hold_ns"]) {
                assert_eq!(*name, format!("lock_{}_{what}", class.name()));
            }
        }
    }
}
