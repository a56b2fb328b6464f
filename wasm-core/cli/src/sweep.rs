//! `mmviz sweep`: a toggle's effect over seeds and over the values of one parameter. For
//! each (parameter value, seed) the scenario runs once per toggle value, and each later
//! value's counters are compared with the first's; the table gives, per parameter value,
//! toggle value and counter, the mean change with its range and every seed's. It is how a
//! scenario shows that a published number moves with a property of the run (its length,
//! the machine's size) the way the kernel's would, and that it is not one seed's luck.

use super::{bad, load, stdout_failed, toggles, warn, Choice, Fail};
use mmviz_engine::patches::ToggleValue;
use mmviz_engine::run::{self, RunResult};
use mmviz_engine::scenario::Scenario;
use serde_json::{json, Value};

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

/// One (parameter value, seed): the runs, one per toggle value.
struct Cell {
    value: Option<i64>,
    seed: u64,
    runs: Vec<(ToggleValue, RunResult)>,
}

/// `(after - before) / before` in percent; `None` when `before` is 0 or a value is missing.
fn change(before: Option<f64>, after: Option<f64>) -> Option<f64> {
    match (before, after) {
        (Some(b), Some(a)) if b != 0.0 => Some((a - b) / b * 100.0),
        _ => None,
    }
}

/// `--vary NAME=V1,V2,...`, checked: the name is one of the scenario's parameters and
/// every value a whole number (its range is checked when the scenario is parsed with it).
fn parse_vary(text: &str, s: &Scenario) -> Result<(String, Vec<i64>), Fail> {
    let (name, values) = text
        .split_once('=')
        .ok_or_else(|| bad(format!("--vary `{text}`: expected NAME=V1,V2,...")))?;
    let name = name.trim();
    if !s.params.iter().any(|p| p.name == name) {
        let known: Vec<&str> = s.params.iter().map(|p| p.name.as_str()).collect();
        return Err(bad(format!(
            "--vary: the scenario has no parameter `{name}` ({})",
            if known.is_empty() {
                "it has none".to_string()
            } else {
                format!("it has: {}", known.join(", "))
            }
        )));
    }
    let values = values
        .split(',')
        .map(|v| {
            v.trim()
                .parse::<i64>()
                .map_err(|_| bad(format!("--vary {name}: `{}` is not a whole number", v.trim())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((name.to_string(), values))
}

/// The counters and metrics shown: `--columns`, or those the scenario's `[[expect]]`
/// blocks name (their headline numbers).
fn columns(arg: Option<&str>, s: &Scenario) -> Result<Vec<String>, Fail> {
    let named: Vec<String> = match arg {
        Some(list) => list.split(',').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect(),
        None => {
            let mut out: Vec<String> = Vec::new();
            for e in &s.expects {
                for c in std::iter::once(&e.counter).chain(e.per.as_ref()) {
                    if !out.contains(c) {
                        out.push(c.clone());
                    }
                }
            }
            if out.is_empty() {
                return Err(bad(format!(
                    "{}: no [[expect]] names a counter to show: give --columns NAME[,NAME]",
                    s.id
                )));
            }
            out
        }
    };
    if let Some(b) = named.iter().find(|c| !run::is_value_name(c)) {
        return Err(bad(format!(
            "--columns: `{b}` is neither a counter nor a metric (`mmviz mechanisms` lists them)"
        )));
    }
    if named.is_empty() {
        return Err(bad("--columns: name at least one counter or metric"));
    }
    Ok(named)
}

/// Mean, min and max of the changes that exist.
fn spread(xs: &[Option<f64>]) -> Option<(f64, f64, f64)> {
    let v: Vec<f64> = xs.iter().flatten().copied().collect();
    if v.is_empty() {
        return None;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((mean, min, max))
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), |v| format!("{v:+.1}%"))
}

/// One seed's change as text: the percentage, or `0->N` where the first run had none.
fn seed_change(before: Option<f64>, after: Option<f64>) -> String {
    match (before, after) {
        (Some(0.0), Some(a)) => format!("0->{a}"),
        _ => pct(change(before, after)),
    }
}

pub(crate) fn sweep(a: &SweepArgs) -> Result<(), Fail> {
    if a.toggle.is_empty() {
        return Err(bad("--toggle: name the toggle to compare"));
    }
    let (name, base) = load(a.scenario, a.param)?;
    let vary = a.vary.map(|v| parse_vary(v, &base)).transpose()?;
    if let Some((n, _)) = &vary {
        if a.param.iter().any(|p| p.split_once('=').is_some_and(|(k, _)| k.trim() == n)) {
            return Err(bad(format!("--vary {n}: also given with --param; give it in one place")));
        }
    }
    let cols = columns(a.columns, &base)?;
    let seeds: Vec<u64> = match a.seeds {
        Some(n) => (1..=n).collect(),
        None => vec![base.seed],
    };
    let values: Vec<Option<i64>> = match &vary {
        Some((_, vs)) => vs.iter().map(|&v| Some(v)).collect(),
        None => vec![None],
    };
    let toggles = toggles(a.choice)?;
    // The scenario at each value of the varied parameter, all parsed (their ranges checked)
    // before the first run.
    let scenarios = values
        .iter()
        .map(|&value| match (&vary, value) {
            (Some((n, _)), Some(v)) => {
                let mut p = a.param.to_vec();
                p.push(format!("{n}={v}"));
                Ok(load(a.scenario, &p)?.1)
            }
            _ => Ok(base.clone()),
        })
        .collect::<Result<Vec<_>, Fail>>()?;
    let mut cells = Vec::new();
    for (&value, s) in values.iter().zip(&scenarios) {
        for &seed in &seeds {
            let at = Scenario { seed, ..s.clone() };
            let runs = run::compare_with(&at, &toggles, a.toggle, &a.windows).map_err(|e| bad(format!("{name}: {e}")))?;
            for (v, r) in &runs {
                let mut label = format!("{}={v}, seed {seed}", a.toggle);
                if let (Some((n, _)), Some(x)) = (&vary, value) {
                    label.push_str(&format!(", {n}={x}"));
                }
                warn(&name, Some(&label), r);
            }
            cells.push(Cell { value, seed, runs });
        }
    }
    // Each column read from the profile is shown over every window too.
    let mut cols = cols;
    if let Some(c) = cells.first().and_then(|c| c.runs.first()) {
        let r = &c.1;
        let extra: Vec<String> = r
            .windows
            .iter()
            .flat_map(|w| {
                cols.iter()
                    .filter(|col| w.metrics.contains_key(col.as_str()))
                    .map(move |col| format!("{col} [{}]", w.window.label()))
            })
            .collect();
        cols.extend(extra);
    }
    // Per parameter value, later toggle value and column: every seed's change.
    let later: Vec<ToggleValue> = cells
        .first()
        .map(|c| c.runs.iter().skip(1).map(|(v, _)| v.clone()).collect())
        .unwrap_or_default();
    let first = cells.first().and_then(|c| c.runs.first().map(|(v, _)| v.clone()));
    let changes = |value: Option<i64>, k: usize, col: &str| -> Vec<Option<f64>> {
        cells
            .iter()
            .filter(|c| c.value == value)
            .map(|c| change(c.runs[0].1.value(col), c.runs.get(k + 1).and_then(|(_, r)| r.value(col))))
            .collect()
    };
    if a.json {
        let results: Vec<Value> = cells
            .iter()
            .map(|c| {
                let vals: serde_json::Map<String, Value> = cols
                    .iter()
                    .map(|col| (col.clone(), json!(c.runs.iter().map(|(_, r)| r.value(col)).collect::<Vec<_>>())))
                    .collect();
                json!({ "value": c.value, "seed": c.seed, "values": vals })
            })
            .collect();
        let mut summary = Vec::new();
        for &value in &values {
            for (k, tv) in later.iter().enumerate() {
                for col in &cols {
                    let ch = changes(value, k, col);
                    let sp = spread(&ch);
                    summary.push(json!({
                        "value": value, "toggle_value": tv.to_string(), "column": col,
                        "changes_pct": ch, "mean_pct": sp.map(|s| s.0), "min_pct": sp.map(|s| s.1), "max_pct": sp.map(|s| s.2),
                    }));
                }
            }
        }
        let out = json!({
            "scenario": base.id,
            "toggle": a.toggle,
            "toggle_values": cells.first().map(|c| c.runs.iter().map(|(v, _)| v.to_string()).collect::<Vec<_>>()),
            "vary": vary.as_ref().map(|(n, vs)| json!({ "name": n, "values": vs })),
            "seeds": seeds,
            "columns": cols,
            "results": results,
            "summary": summary,
        });
        outln!("{}", super::to_json(&out));
        return Ok(());
    }
    let from = first.map(|v| v.to_string()).unwrap_or_default();
    let seed_text = match a.seeds {
        Some(n) => format!("seeds 1-{n}"),
        None => format!("seed {}", base.seed),
    };
    let to: Vec<String> = later.iter().map(|v| v.to_string()).collect();
    outln!("{}: {} {from} -> {}, {seed_text}", base.id, a.toggle, to.join(", "));
    let vary_name = vary.as_ref().map(|(n, _)| n.as_str());
    let col_w = cols.iter().map(|c| c.len()).max().unwrap_or(8).max(8);
    let head_w = vary_name.map_or(0, |n| n.len().max(6) + 2);
    let head = vary_name.map_or(String::new(), |n| format!("{n:<w$}", w = head_w));
    outln!(
        "{head}{:<14}{:<col_w$}  {:>9} {:>9} {:>9}  per seed",
        "toggle",
        "counter",
        "mean",
        "min",
        "max"
    );
    for &value in &values {
        for (k, tv) in later.iter().enumerate() {
            for col in &cols {
                let ch = changes(value, k, col);
                let sp = spread(&ch);
                let v = value.map_or(String::new(), |x| format!("{x:<w$}", w = head_w));
                let per: Vec<String> = cells
                    .iter()
                    .filter(|c| c.value == value)
                    .map(|c| seed_change(c.runs[0].1.value(col), c.runs.get(k + 1).and_then(|(_, r)| r.value(col))))
                    .collect();
                outln!(
                    "{v}{:<14}{col:<col_w$}  {:>9} {:>9} {:>9}  {}",
                    tv.to_string(),
                    pct(sp.map(|s| s.0)),
                    pct(sp.map(|s| s.1)),
                    pct(sp.map(|s| s.2)),
                    per.join(" ")
                );
            }
        }
    }
    Ok(())
}
