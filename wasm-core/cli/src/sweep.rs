//! `mmviz sweep`: a toggle's effect over seeds and over the values of one parameter. For
//! each (parameter value, seed) the scenario runs once per toggle value, and each later
//! value's counters are compared with the first's; the table gives, per parameter value,
//! toggle value and counter, the mean change with its range and every seed's. It is how a
//! scenario shows that a published number moves with a property of the run (its length,
//! the machine's size) the way the kernel's would, and that it is not one seed's luck.
//!
//! The checks, the arithmetic and the table are the engine's (`mmviz_engine::run::sweep`),
//! shared with the lab's sweep; here are the arguments, the runs and the printing.

use super::{bad, list, params, read, stdout_failed, toggles, warn, Choice, Fail};
use mmviz_engine::run;
use mmviz_engine::run::sweep::{self, SweepField, SweepProblem, SweepRequest, SweepRunValues};
use mmviz_engine::scenario::{self, Scenario};

/// What `mmviz sweep` was asked.
pub(crate) struct SweepArgs<'a> {
    pub scenario: &'a str,
    pub toggle: &'a str,
    pub choice: &'a Choice,
    pub param: &'a [String],
    pub vary: Option<&'a str>,
    pub seeds: Option<u64>,
    pub columns: Option<&'a str>,
    pub json: bool,
    pub windows: Vec<run::Window>,
}

/// A sweep problem as a one-line message naming the flag.
fn flagged(p: SweepProblem, name: &str, vary: Option<&str>) -> Fail {
    let m = p.message;
    bad(match p.field {
        SweepField::Scenario => format!("{name}: {m}"),
        SweepField::Toggle => format!("--toggle: {m}"),
        SweepField::Vary => format!("--vary: {m}"),
        SweepField::Values => format!("--vary {}: {m}", vary.unwrap_or_default()),
        SweepField::Seeds => format!("--seeds: {m}"),
        SweepField::Columns => format!("--columns: {m}"),
        SweepField::Runs => m,
    })
}

pub(crate) fn sweep(a: &SweepArgs) -> Result<(), Fail> {
    let (name, text) = read(a.scenario)?;
    let fixed = params(a.param)?;
    // The scenario as given must parse before anything else is checked.
    scenario::parse(&text, &fixed).map_err(|e| bad(format!("{name}: {e}")))?;
    let (vary, values) = match a.vary {
        Some(v) => {
            let (n, vs) = v
                .split_once('=')
                .ok_or_else(|| bad(format!("--vary `{v}`: expected NAME=V1,V2,...")))?;
            let n = n.trim();
            if fixed.iter().any(|(k, _)| k == n) {
                return Err(bad(format!("--vary {n}: also given with --param; give it in one place")));
            }
            (Some(n.to_string()), vs.to_string())
        }
        None => (None, String::new()),
    };
    let req = SweepRequest {
        toggle: a.toggle.to_string(),
        vary: vary.clone(),
        values,
        seeds: a.seeds,
        columns: a.columns.map(|c| list(c).into_iter().map(String::from).collect()),
        max_runs: None,
    };
    let (mut plan, scenarios) = sweep::plan(|p| scenario::parse(&text, p).map_err(|e| e.to_string()), &fixed, &req)
        .map_err(|p| flagged(p, &name, vary.as_deref()))?;
    if a.choice.schedule.is_some() {
        return Err(bad(
            "--schedule: a schedule names steps of one run, and a sweep makes many (use run, trace or compare)",
        ));
    }
    let toggles = toggles(a.choice)?;
    let mut runs = Vec::new();
    let mut windowed = false;
    for (value, s) in plan.values().into_iter().zip(&scenarios) {
        for &seed in &plan.seeds {
            let at = Scenario { seed, ..s.clone() };
            let results = run::compare_with(&at, &toggles, &plan.toggle, &a.windows).map_err(|e| bad(format!("{name}: {e}")))?;
            // Each column read from the profile is shown over every window too: the
            // windows' names are known once a run has them.
            if !windowed {
                windowed = true;
                if let Some((_, r)) = results.first() {
                    let extra: Vec<String> = r
                        .windows
                        .iter()
                        .flat_map(|w| {
                            plan.columns
                                .iter()
                                .filter(|col| w.metrics.contains_key(col.as_str()))
                                .map(move |col| format!("{col} [{}]", w.window.label()))
                        })
                        .collect();
                    plan.columns.extend(extra);
                }
            }
            for (v, r) in &results {
                let mut label = format!("{}={v}, seed {seed}", plan.toggle);
                if let (Some(vy), Some(x)) = (&plan.vary, value) {
                    label.push_str(&format!(", {}={x}", vy.name));
                }
                warn(&name, Some(&label), r);
                runs.push(SweepRunValues::of(value, seed, v, r, Some(&plan.columns)));
            }
        }
    }
    let report = plan.report(&runs);
    if a.json {
        let v = serde_json::to_value(&report).map_err(|e| Fail(1, e.to_string()))?;
        outln!("{}", super::to_json(&v));
    } else {
        out!("{}", report.table());
    }
    Ok(())
}
