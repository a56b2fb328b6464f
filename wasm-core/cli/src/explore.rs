//! `mmviz explore`: every interleaving of a small scenario's CPUs (the engine's
//! `explore.rs`: sleep sets and state caching), per value of a toggle: schedules explored,
//! distinct outcomes, and every bad outcome with the shortest schedule that reaches it, as
//! a `--schedule` that `mmviz run` and `trace` replay.

use super::{bad, load, patches, stdout_failed, toggles, Choice, Fail};
use mmviz_engine::counters::Counters;
use mmviz_engine::explore::{self, Budget, Exploration};
use mmviz_engine::patches::ToggleSet;
use serde_json::{json, Value};

/// What `mmviz explore` was asked.
pub(crate) struct ExploreArgs<'a> {
    pub scenario: &'a str,
    pub toggle: Option<&'a str>,
    pub choice: &'a Choice,
    pub param: &'a [String],
    pub budget: u64,
    pub json: bool,
}

pub(crate) fn explore(a: &ExploreArgs) -> Result<(), Fail> {
    if a.choice.schedule.is_some() {
        return Err(bad("--schedule: explore tries every schedule; give none"));
    }
    let (name, s) = load(a.scenario, a.param)?;
    let base = toggles(a.choice)?;
    let runs: Vec<(String, ToggleSet)> = match a.toggle {
        None => vec![("as set".to_string(), base)],
        Some(id) => {
            let patch = patches::find(id)
                .ok_or_else(|| bad(format!("--toggle: unknown toggle `{id}` (known toggles: {})", patches::known_ids())))?;
            patch
                .values()
                .into_iter()
                .map(|v| {
                    let mut t = base.clone();
                    t.set(id, v.clone()).map_err(|e| bad(format!("--toggle {id}: {e}")))?;
                    Ok((format!("{id}={v}"), t))
                })
                .collect::<Result<_, Fail>>()?
        }
    };
    let budget = Budget {
        states: a.budget,
        ..Budget::default()
    };
    let mut found = Vec::new();
    for (label, t) in &runs {
        let started = std::time::Instant::now();
        let x = explore::explore(&s, t, budget, true);
        found.push((label.clone(), t.clone(), x, started.elapsed().as_secs_f64()));
    }
    if a.json {
        let v = json!({
            "scenario": s.id,
            "budget_states": a.budget,
            "values": found.iter().map(|(label, t, x, secs)| value_json(label, t, x, *secs, a)).collect::<Vec<_>>(),
        });
        outln!("{}", super::to_json(&v));
        return Ok(());
    }
    outln!("{name}: every interleaving of its CPUs (sleep sets + state caching; invariants checked at every step)");
    for (label, t, x, secs) in &found {
        let bad_n = x.outcomes.iter().filter(|o| o.bad).count();
        outln!(
            "{label}: {}; {} schedules, {} states ({} seen before, {} taken alone, {} commuting pairs), {} outcomes, {} bad; {:.2} s",
            if x.exhaustive {
                "exhaustive".to_string()
            } else {
                format!("NOT exhaustive: {}", x.cut.as_deref().unwrap_or(""))
            },
            x.runs,
            x.states,
            x.revisits,
            x.local_steps,
            x.commuting_checks,
            x.outcomes.len(),
            bad_n,
            secs
        );
        let varying = varying_counters(&x.outcomes.iter().map(|o| o.counters).collect::<Vec<_>>());
        for o in &x.outcomes {
            let findings: Vec<String> = o
                .findings
                .iter()
                .map(|f| format!("{} (step{} {})", f.kind, if f.steps.len() == 1 { "" } else { "s" }, join(&f.steps)))
                .collect();
            let counters: Vec<String> = varying.iter().map(|(n, c)| format!("{n} {}", o.counters.get(*c))).collect();
            outln!(
                "  {} {} schedule(s){}{}",
                if o.bad { "BAD" } else { "ok " },
                o.runs,
                if findings.is_empty() {
                    String::new()
                } else {
                    format!(": {}", findings.join(", "))
                },
                if counters.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", counters.join(", "))
                }
            );
            outln!("      shortest ({} steps): {}", o.steps, replay(a, t, &o.schedule.to_string()));
        }
    }
    Ok(())
}

/// The command that replays one schedule.
fn replay(a: &ExploreArgs, t: &ToggleSet, schedule: &str) -> String {
    let mut cmd = format!("mmviz trace {}", a.scenario);
    if let Some(id) = a.toggle {
        if let Some(v) = t.get(id) {
            cmd.push_str(&format!(" --set {id}={v}"));
        }
    }
    for s in &a.choice.set {
        cmd.push_str(&format!(" --set {s}"));
    }
    if let Some(k) = &a.choice.kernel {
        cmd.push_str(&format!(" --kernel {k}"));
    }
    if let Some(p) = &a.choice.preset {
        cmd.push_str(&format!(" --preset {p}"));
    }
    for p in a.param {
        cmd.push_str(&format!(" --param {p}"));
    }
    if schedule.is_empty() {
        cmd.push_str("  (the default order)");
    } else {
        cmd.push_str(&format!(" --schedule {schedule}"));
    }
    cmd
}

fn join(steps: &[u64]) -> String {
    steps.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// The counters (not those of simulated time) whose final value differs between outcomes.
fn varying_counters(all: &[Counters]) -> Vec<(&'static str, mmviz_engine::counters::Counter)> {
    let Some(first) = all.first() else { return Vec::new() };
    first
        .iter()
        .filter(|(c, v)| !c.name().ends_with("_ns") && all.iter().any(|o| o.get(*c) != *v))
        .map(|(c, _)| (c.name(), c))
        .collect()
}

fn value_json(label: &str, t: &ToggleSet, x: &Exploration, secs: f64, a: &ExploreArgs) -> Value {
    let varying = varying_counters(&x.outcomes.iter().map(|o| o.counters).collect::<Vec<_>>());
    json!({
        "value": label,
        "exhaustive": x.exhaustive,
        "cut": x.cut,
        "schedules": x.runs,
        "states": x.states,
        "revisits": x.revisits,
        "local_steps": x.local_steps,
        "commuting_pairs": x.commuting_checks,
        "seconds": secs,
        "outcomes": x.outcomes.iter().map(|o| json!({
            "bad": o.bad,
            "schedules": o.runs,
            "findings": o.findings.iter().map(|f| json!({"kind": f.kind, "detail": f.detail, "steps": f.steps})).collect::<Vec<_>>(),
            "counters": varying.iter().map(|(n, c)| ((*n).to_string(), json!(o.counters.get(*c)))).collect::<serde_json::Map<_, _>>(),
            "schedule": o.schedule.to_string(),
            "steps": o.steps,
            "replay": replay(a, t, &o.schedule.to_string()),
        })).collect::<Vec<_>>(),
    })
}
