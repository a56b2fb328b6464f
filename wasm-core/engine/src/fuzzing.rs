//! The fuzz targets: one function per reader of outside text, taking raw bytes. The
//! libFuzzer crate (`wasm-core/fuzz`, `cargo +nightly fuzz run TARGET`) calls them, and
//! `tests/fuzz.rs` replays the committed corpus and the regression inputs through the
//! same functions on stable (the short run in CI).
//!
//! Each target reads the bytes as the lab or the CLI would hand them over (UTF-8, bad bytes
//! replaced), and panics when a reader breaks its contract, so that libFuzzer reports it:
//! - an error must name a line that exists (1 to the text's lines + 1) with a message of one
//!   non-empty line;
//! - what a reader accepts must be within limits.rs (CPU ids below `MAX_CPUS`, at most
//!   `MAX_NODES` nodes);
//! - a scenario the parser accepts must boot, and its first steps must keep the invariants
//!   (small machines only, so that an input runs in milliseconds).
//!
//! Several texts travel in one input separated by NUL bytes (`zoneinfo\0numactl`), so
//! that the readers that combine texts (lscpu merged into numactl, zoneinfo against a
//! machine, two vmstat snapshots) are reached too.

#![allow(clippy::panic)] // reason: a fuzz target reports a broken contract by panicking

use crate::limits::{MAX_CPUS, MAX_NODES};
use crate::paste::PasteError;
use crate::patches::ToggleSet;

/// Steps a target runs of a scenario it accepted.
pub const STEPS: u64 = 300;

/// Steps the link target runs of a scenario a link names (the invariants checked at the end).
pub const LINK_STEPS: u64 = 40;

/// The largest machine (simulated pages) a target boots; larger ones are parsed only.
pub const BOOT_PAGES: u32 = 1 << 14;

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// The NUL-separated parts of an input (at most `n`; the last takes the rest).
fn parts(data: &[u8], n: usize) -> Vec<String> {
    data.splitn(n, |&b| b == 0).map(text).collect()
}

fn lines_of(text: &str) -> usize {
    text.lines().count()
}

fn one_line(what: &str, message: &str) {
    if message.trim().is_empty() {
        panic!("{what}: an empty error message");
    }
    if message.contains('\n') {
        panic!("{what}: an error message of more than one line: {message:?}");
    }
}

fn paste_error(what: &str, text: &str, e: &PasteError) {
    one_line(what, &e.message);
    if e.line == 0 || e.line > lines_of(text) + 1 {
        panic!("{what}: error at line {} of a {}-line text: {}", e.line, lines_of(text), e.message);
    }
}

fn cpus_in_limits(what: &str, cpus: &[u32]) {
    if let Some(c) = cpus.iter().find(|&&c| c as usize >= MAX_CPUS) {
        panic!("{what}: accepted CPU {c}, beyond limits.rs MAX_CPUS = {MAX_CPUS}");
    }
}

fn numactl_ok(what: &str, hw: &crate::numactl::NumaHardware) {
    if hw.nodes.len() > MAX_NODES {
        panic!(
            "{what}: accepted {} nodes, beyond limits.rs MAX_NODES = {MAX_NODES}",
            hw.nodes.len()
        );
    }
    let mut all: Vec<u32> = hw.nodes.iter().flat_map(|n| n.cpus.iter().copied()).collect();
    cpus_in_limits(what, &all);
    all.sort_unstable();
    if all.windows(2).any(|w| w[0] == w[1]) {
        panic!("{what}: a CPU on two nodes was accepted");
    }
    if let Some(d) = &hw.distances {
        if d.len() != hw.nodes.len() || d.iter().any(|r| r.len() != hw.nodes.len()) {
            panic!("{what}: a distance matrix that is not nodes x nodes");
        }
    }
}

/// `numactl --hardware` text (then, after a NUL, `lscpu` text merged into it).
pub fn numactl(data: &[u8]) {
    let p = parts(data, 2);
    match crate::numactl::parse(&p[0]) {
        Ok(hw) => {
            numactl_ok("numactl", &hw);
            if let Some(l) = p.get(1) {
                if let Ok(l) = crate::lscpu::parse(l) {
                    match crate::lscpu::merge(&hw, &l) {
                        Ok(m) => numactl_ok("numactl+lscpu", &m),
                        Err(e) => one_line("lscpu merge", &e.message),
                    }
                }
            }
        }
        Err(e) => {
            one_line("numactl", &e.message);
            if e.line == 0 || e.line > lines_of(&p[0]) + 1 {
                panic!("numactl: error at line {} of a {}-line text", e.line, lines_of(&p[0]));
            }
        }
    }
}

/// `lscpu` text.
pub fn lscpu(data: &[u8]) {
    let t = text(data);
    match crate::lscpu::parse(&t) {
        Ok(l) => {
            for n in &l.nodes {
                cpus_in_limits("lscpu", &n.cpus);
            }
            if l.nodes.len() > MAX_NODES {
                panic!("lscpu: accepted {} nodes, beyond limits.rs MAX_NODES = {MAX_NODES}", l.nodes.len());
            }
        }
        Err(e) => paste_error("lscpu", &t, &e),
    }
}

/// `/proc/zoneinfo` text (then, after a NUL, `numactl --hardware` text of the machine it
/// shapes, and after another NUL the memory scale as a number).
pub fn zoneinfo(data: &[u8]) {
    let p = parts(data, 3);
    match crate::zoneinfo::parse(&p[0]) {
        Ok(z) => {
            let Some(hw) = p.get(1).and_then(|n| crate::numactl::parse(n).ok()) else {
                return;
            };
            let scale = p.get(2).and_then(|s| s.trim().parse::<u64>().ok()).unwrap_or(1).max(1);
            if let Err(e) = crate::zoneinfo::node_zones(&z, &hw, scale) {
                one_line("zoneinfo against numactl", &e.message);
            }
        }
        Err(e) => paste_error("zoneinfo", &p[0], &e),
    }
}

/// A `/proc/vmstat` snapshot (then, after a NUL, a second one: their difference).
pub fn vmstat(data: &[u8]) {
    let p = parts(data, 2);
    if let Err(e) = crate::vmstat::parse(&p[0]) {
        paste_error("vmstat", &p[0], &e);
    }
    if let Some(after) = p.get(1) {
        if let Err(e) = crate::vmstat::delta(&p[0], after) {
            one_line("vmstat delta", &e.message);
        }
    }
}

/// Boots `scenario` under `toggles` when its machine is small and runs its first `steps`
/// steps, checking the invariants after each when `every_step`, else after the last.
fn boot_and_step(what: &str, scenario: &crate::scenario::Scenario, toggles: &ToggleSet, steps: u64, every_step: bool) {
    if scenario.topology.total_pages() > BOOT_PAGES {
        return;
    }
    let mut sim = crate::engine::Sim::new(scenario, toggles, false);
    for i in 0..steps {
        let more = sim.step().is_some();
        if every_step || !more || i + 1 == steps {
            if let Err(e) = crate::invariants::check(&sim) {
                panic!("{what}: invariant broken after step {}: {e}", sim.st.step);
            }
        }
        if !more {
            break;
        }
    }
}

fn scenario_error(what: &str, text: &str, e: &crate::scenario::ScenarioError) {
    one_line(what, &e.message);
    if let Some(line) = e.line {
        if line == 0 || line > lines_of(text) + 1 {
            panic!("{what}: error at line {line} of a {}-line text: {}", lines_of(text), e.message);
        }
    }
}

/// A scenario file's text: parsed and validated; booted and stepped when accepted and small.
pub fn scenario(data: &[u8]) {
    let t = text(data);
    match crate::scenario::parse(&t, &[]) {
        Ok(s) => boot_and_step("scenario", &s, &ToggleSet::default(), STEPS, true),
        Err(e) => scenario_error("scenario", &t, &e),
    }
}

/// `%XX` sequences decoded (bad ones kept as they are), as `decodeURIComponent` would.
fn percent_decode(s: &str) -> String {
    let hex = |c: u8| (c as char).to_digit(16);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A lab link's fragment (`v=2&sc=ID&t.X=on&p.pages=8&sched=0:1&seed=3&step=40&ab=...`):
/// every part the engine reads from a link, handed to it as the lab hands it over after
/// its own decoding (toggle values, params, the schedule, the seed, kernel versions and
/// presets of a comparison; `s=` as the scenario's text itself, the lab having undone the
/// lz-string compression). A link that names a scenario and reads is booted and stepped.
pub fn link(data: &[u8]) {
    let t = text(data);
    let body = t.strip_prefix('#').unwrap_or(&t);
    let mut scenario_text: Option<String> = None;
    let mut toggles = ToggleSet::default();
    let mut params: Vec<(String, i64)> = Vec::new();
    let mut schedule = crate::core::Schedule::default();
    let mut seed: Option<u64> = None;
    let mut builtin: Option<&'static crate::builtin::Builtin> = None;
    for part in body.split('&') {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let (k, v) = (percent_decode(k), percent_decode(v));
        let outcome: Result<(), String> = match k.as_str() {
            "sc" => match crate::builtin::find(&v) {
                Some(b) => {
                    scenario_text = Some(b.text.to_string());
                    builtin = Some(b);
                    Ok(())
                }
                None => Err(format!("no built-in scenario `{}`", crate::paste::quote_value(&v))),
            },
            "s" => {
                scenario_text = Some(v.clone());
                builtin = None;
                Ok(())
            }
            "sched" => crate::core::Schedule::parse(&v).map(|s| schedule = s),
            "seed" => v.parse::<u64>().map(|s| seed = Some(s)).map_err(|e| format!("seed: {e}")),
            "ab" => ab(&v, &mut toggles),
            _ => {
                if let Some(id) = k.strip_prefix("t.") {
                    toggles.set_text(id, &v)
                } else if let Some(name) = k.strip_prefix("p.") {
                    v.parse::<i64>()
                        .map(|n| params.push((name.to_string(), n)))
                        .map_err(|e| e.to_string())
                } else {
                    Ok(())
                }
            }
        };
        if let Err(e) = outcome {
            one_line("link part", &e);
        }
    }
    let Some(st) = scenario_text else { return };
    // A built-in without params parses the same every time: once per process (the scenario
    // target covers the parser; this one is about the link's parts).
    let parsed = match builtin {
        Some(b) if params.is_empty() => parsed_builtin(b),
        _ => crate::scenario::parse(&st, &params),
    };
    match parsed {
        Ok(mut s) => {
            s.schedule = schedule;
            if let Some(seed) = seed {
                s.seed = seed;
            }
            // The link's toggles, schedule and seed at work for a few steps: the scenario
            // target steps further with the invariants checked at every step.
            boot_and_step("link", &s, &toggles, LINK_STEPS, false);
        }
        Err(e) => scenario_error("link scenario", &st, &e),
    }
}

fn parsed_builtin(b: &'static crate::builtin::Builtin) -> Result<crate::scenario::Scenario, crate::scenario::ScenarioError> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Cache = Mutex<HashMap<&'static str, Result<crate::scenario::Scenario, crate::scenario::ScenarioError>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = match cache.lock() {
        Ok(m) => m,
        Err(poisoned) => poisoned.into_inner(),
    };
    map.entry(b.id).or_insert_with(|| crate::scenario::parse(b.text, &[])).clone()
}

/// A comparison: `t.ID:A,B` (a toggle's two values), `k:V1,V2` (two kernel versions),
/// `p:MECH/NAME,MECH/NAME` (two presets). The first side is applied to `toggles`.
fn ab(v: &str, toggles: &mut ToggleSet) -> Result<(), String> {
    let q = crate::paste::quote_value;
    let (what, pair) = v.split_once(':').ok_or_else(|| format!("`{}` has no `:`", q(v)))?;
    let (a, b) = pair.split_once(',').ok_or_else(|| format!("`{}` is not two values", q(pair)))?;
    if let Some(id) = what.strip_prefix("t.") {
        let mut other = toggles.clone();
        other.set_text(id, b)?;
        toggles.set_text(id, a)
    } else if what == "k" {
        let ka = crate::patches::Kernel::parse(a)?;
        crate::patches::Kernel::parse(b)?;
        toggles.set_kernel(ka);
        Ok(())
    } else if what == "p" {
        for p in [a, b] {
            let name = p.rsplit('/').next().unwrap_or(p);
            if !crate::registry::MECHANISMS.iter().any(|m| m.presets.iter().any(|x| x.name == name)) {
                return Err(format!("no preset `{}`", q(p)));
            }
        }
        Ok(())
    } else {
        Err(format!("`{}` is not a comparison", q(what)))
    }
}
