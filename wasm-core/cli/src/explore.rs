//! `mmviz explore`: every interleaving of a small scenario's CPUs (the engine's
//! `explore.rs`: sleep sets and state caching), per value of a toggle: schedules explored,
//! distinct outcomes, and every bad outcome with the shortest schedule that reaches it, as
//! a `--schedule` that `mmviz run` and `trace` replay.

use super::{bad, load, stdout_failed, toggles, Choice, Fail};
use mmviz_engine::explore::{self, Budget, Exploration};
use mmviz_engine::patches::ToggleSet;
use serde_json::{json, Value};

/// What `mmviz explore` was asked.
pub(crate) struct ExploreArgs<'a> {
    pub scenario: &'a str,
    pub toggle: Option<&'a str>,
    pub choice: &'a Choice,
    pub param: &'a [String],
    pub budget: Option<u64>,
    pub delays: Option<super::DelayBound>,
    pub json: bool,
}

pub(crate) fn explore(a: &ExploreArgs) -> Result<(), Fail> {
    if a.choice.schedule.is_some() {
        return Err(bad("--schedule: explore tries every schedule; give none"));
    }
    let (name, s) = load(a.scenario, a.param)?;
    let base = toggles(a.choice)?;
    let toggle = a.toggle.or(s.explore.as_ref().and_then(|e| e.toggle.as_deref()));
    let cases = explore::toggle_values(&base, toggle).map_err(|e| bad(format!("--toggle: {e}")))?;
    let states = a
        .budget
        .or(s.explore.as_ref().map(|e| e.budget))
        .unwrap_or(mmviz_engine::scenario::EXPLORE_BUDGET);
    let budget = Budget {
        states,
        delays: match a.delays {
            Some(b) => b.0,
            None => s.explore.as_ref().and_then(|e| e.delays),
        },
        ..Budget::default()
    };
    let mut found = Vec::new();
    for case in &cases {
        let started = std::time::Instant::now();
        let x = explore::explore(&s, &case.toggles, budget, true);
        found.push((case, x, started.elapsed().as_secs_f64()));
    }
    if a.json {
        let v = json!({
            "scenario": s.id,
            "budget_states": states,
            "delays": budget.delays,
            "values": found.iter().map(|(case, x, secs)| value_json(case, toggle, x, *secs, a)).collect::<Vec<_>>(),
        });
        outln!("{}", super::to_json(&v));
        return Ok(());
    }
    match budget.delays {
        None => outln!("{name}: every interleaving of its CPUs (sleep sets + state caching; invariants checked at every step)"),
        Some(d) => outln!(
            "{name}: every interleaving of its CPUs with at most {d} deviation(s) from the default order (delay bounding + state caching; invariants checked at every step)"
        ),
    }
    for (case, x, secs) in &found {
        let (label, t) = (&case.label, &case.toggles);
        let bad_n = x.outcomes.iter().filter(|o| o.bad).count();
        outln!(
            "{label}: {}; {} schedules, {} states ({} seen before, {} taken alone, {} commuting pairs, {} paths ended asleep), {} outcomes, {} bad; {:.2} s",
            if x.exhaustive && x.delay_bound_reached {
                format!("exhaustive within {} deviation(s) (the bound left branches out)", x.delays.unwrap_or(0))
            } else if x.exhaustive {
                "exhaustive".to_string()
            } else {
                format!("NOT exhaustive: {}", x.cut.as_deref().unwrap_or(""))
            },
            x.runs,
            x.states,
            x.revisits,
            x.local_steps,
            x.commuting_checks,
            x.sleep_blocked,
            x.outcomes.len(),
            bad_n,
            secs
        );
        let varying = explore::varying_counters(&x.outcomes.iter().map(|o| o.counters).collect::<Vec<_>>());
        for o in &x.outcomes {
            let findings: Vec<String> = o
                .findings
                .iter()
                .map(|f| format!("{} (step{} {})", f.kind, if f.steps.len() == 1 { "" } else { "s" }, join(&f.steps)))
                .collect();
            let counters: Vec<String> = varying.iter().map(|c| format!("{} {}", c.name(), o.counters.get(*c))).collect();
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
            outln!(
                "      shortest ({} steps): {}",
                o.steps,
                replay(a, toggle, t, &o.schedule.to_string())
            );
        }
    }
    Ok(())
}

/// The command that replays one schedule.
fn replay(a: &ExploreArgs, toggle: Option<&str>, t: &ToggleSet, schedule: &str) -> String {
    let mut cmd = format!("mmviz trace {}", a.scenario);
    if let Some(id) = toggle {
        if let Some(v) = t.get(id) {
            cmd.push_str(&format!(" --set {id}={v}"));
        }
    }
    for s in &a.choice.set {
        // The explored toggle's value is the one above.
        if toggle.is_some_and(|id| s.split('=').next() == Some(id)) {
            continue;
        }
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

fn value_json(case: &explore::Case, toggle: Option<&str>, x: &Exploration, secs: f64, a: &ExploreArgs) -> Value {
    let report = explore::ValueReport::new(case, x);
    let mut v = serde_json::to_value(&report).unwrap_or(Value::Null);
    v["seconds"] = json!(secs);
    if let Some(outcomes) = v["outcomes"].as_array_mut() {
        for (o, r) in outcomes.iter_mut().zip(&report.outcomes) {
            o["replay"] = json!(replay(a, toggle, &case.toggles, &r.schedule));
        }
    }
    v
}
