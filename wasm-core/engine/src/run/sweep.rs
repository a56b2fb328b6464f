//! Sweeps: a toggle's effect over seeds and over the values of one parameter, as
//! `mmviz sweep` prints it and the lab draws it. For each (parameter value, seed) the
//! scenario runs once per toggle value; each later value's counters are compared with the
//! first's. The CLI and the lab share everything here: [`plan`] checks the request and
//! lists what to run, [`SweepRunValues`] holds one run's numbers, [`SweepPlan::report`]
//! does the arithmetic (each seed's change, their mean, min and max) and
//! [`SweepReport::table`] the plain-text table. Only the running differs: the CLI runs
//! on its threads ([`super::compare`]), the lab on a pool of Web Workers, each run
//! through the wasm layer's `sweepRun`; the report of the same runs is the same.

use super::RunResult;
use crate::patches::{self, ToggleValue};
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Seeds a sweep may ask for at most (seeds 1 to N).
pub const MAX_SEEDS: u64 = 1000;

/// Widest line of [`SweepReport::table`], for a mailing-list reply.
pub const TABLE_WIDTH: usize = 72;

/// The part of a sweep's request a problem is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum SweepField {
    /// The scenario (with the parameters not varied) does not parse.
    Scenario,
    /// The toggle compared.
    Toggle,
    /// The parameter varied.
    Vary,
    /// The varied parameter's values.
    Values,
    /// The number of seeds.
    Seeds,
    /// The counters and metrics shown.
    Columns,
    /// The number of runs (values x seeds x toggle values).
    Runs,
}

/// What is wrong with a sweep's request, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SweepProblem {
    /// The part of the request.
    pub field: SweepField,
    /// What is wrong, for people (without the field's name: the CLI prefixes its flag,
    /// the lab shows it beside the field).
    pub message: String,
}

impl SweepProblem {
    fn new(field: SweepField, message: impl Into<String>) -> Self {
        SweepProblem {
            field,
            message: message.into(),
        }
    }
}

/// What a sweep asks: `mmviz sweep`'s arguments, the lab's sweep form.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SweepRequest {
    /// The toggle compared: its first value against each later one.
    pub toggle: String,
    /// The parameter varied, if any.
    #[serde(default)]
    pub vary: Option<String>,
    /// Its values as typed: whole numbers separated by commas or spaces.
    #[serde(default)]
    pub values: String,
    /// Run at seeds 1 to N; `None`: at the scenario's own seed only.
    #[serde(default)]
    pub seeds: Option<u64>,
    /// Counters or metrics shown; `None`: those the scenario's `[[expect]]` blocks name.
    #[serde(default)]
    pub columns: Option<Vec<String>>,
    /// The most runs allowed; `None`: no limit.
    #[serde(default)]
    pub max_runs: Option<u64>,
}

/// The parameter a sweep varies, with its values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SweepVary {
    /// Its name.
    pub name: String,
    /// Its values, in the order given.
    pub values: Vec<i64>,
}

/// A checked sweep: what runs, and what is shown.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SweepPlan {
    /// The scenario's id.
    pub scenario: String,
    /// The scenario's own seed (a run at another seed says so in its link).
    pub scenario_seed: u64,
    /// The toggle compared.
    pub toggle: String,
    /// Its values in the registry's order: the first is the one compared against.
    pub toggle_values: Vec<ToggleValue>,
    /// The parameter varied, if any.
    pub vary: Option<SweepVary>,
    /// The seeds each value runs at.
    pub seeds: Vec<u64>,
    /// The counters and metrics shown.
    pub columns: Vec<String>,
}

/// One run's numbers: which run it is and its counters and metrics by name (the CLI
/// keeps only the columns shown; the lab keeps all, so that a counter added to the
/// charts later needs no new run).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepRunValues {
    /// The varied parameter's value (`None` without one).
    pub value: Option<i64>,
    /// The seed.
    pub seed: u64,
    /// The toggle's value as text (`off`, `on`, or an enum value).
    pub toggle_value: String,
    /// Counters and metrics by name ([`RunResult::value`]).
    pub values: BTreeMap<String, f64>,
}

impl SweepRunValues {
    /// The numbers of `r`, the run at (`value`, `seed`, `toggle_value`): the names in
    /// `names`, or every counter and metric.
    pub fn of(value: Option<i64>, seed: u64, toggle_value: &ToggleValue, r: &RunResult, names: Option<&[String]>) -> Self {
        let values = match names {
            Some(names) => names.iter().filter_map(|n| r.value(n).map(|v| (n.clone(), v))).collect(),
            None => r.named_values(),
        };
        SweepRunValues {
            value,
            seed,
            toggle_value: toggle_value.to_string(),
            values,
        }
    }
}

/// One (parameter value, seed): a column's value in each toggle value's run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SweepCell {
    /// The varied parameter's value.
    pub value: Option<i64>,
    /// The seed.
    pub seed: u64,
    /// Per column, its value in each toggle value's run (in the order of
    /// `toggle_values`; `null` for a run not done, or one without that metric).
    pub values: BTreeMap<String, Vec<Option<f64>>>,
}

/// A column's change from the first toggle value to a later one at one parameter value:
/// each seed's and their spread.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SweepChange {
    /// The varied parameter's value.
    pub value: Option<i64>,
    /// The later toggle value.
    pub toggle_value: String,
    /// The counter or metric.
    pub column: String,
    /// The seed of each entry of `changes_pct`.
    pub seeds: Vec<u64>,
    /// `(later - first) / first` in percent per seed; `null` where the first is 0.
    pub changes_pct: Vec<Option<f64>>,
    /// Mean of the changes that exist.
    pub mean_pct: Option<f64>,
    /// Smallest of them.
    pub min_pct: Option<f64>,
    /// Largest of them.
    pub max_pct: Option<f64>,
}

/// A column's value under one toggle value at one parameter value: each seed's and their
/// spread.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SweepLevel {
    /// The varied parameter's value.
    pub value: Option<i64>,
    /// The toggle value.
    pub toggle_value: String,
    /// The counter or metric.
    pub column: String,
    /// The seed of each entry of `values`.
    pub seeds: Vec<u64>,
    /// The value per seed (`null` for a run without that metric).
    pub values: Vec<Option<f64>>,
    /// Mean of the values that exist.
    pub mean: Option<f64>,
    /// Smallest of them.
    pub min: Option<f64>,
    /// Largest of them.
    pub max: Option<f64>,
}

/// A sweep's numbers: what `mmviz sweep --json` prints, and what the lab draws.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SweepReport {
    /// The scenario's id.
    pub scenario: String,
    /// The toggle compared.
    pub toggle: String,
    /// Its values as text, the first the one compared against.
    pub toggle_values: Vec<String>,
    /// The parameter varied, if any.
    pub vary: Option<SweepVary>,
    /// The seeds.
    pub seeds: Vec<u64>,
    /// The counters and metrics shown.
    pub columns: Vec<String>,
    /// Every (value, seed) with at least one run done, in order.
    pub results: Vec<SweepCell>,
    /// Per value, later toggle value and column: the change against the first toggle value.
    pub summary: Vec<SweepChange>,
    /// Per value, toggle value and column: the values themselves.
    pub absolute: Vec<SweepLevel>,
    /// Runs the sweep asks for.
    pub runs_planned: u64,
    /// Runs whose numbers the report holds (fewer when the sweep was cancelled).
    pub runs_done: u64,
}

/// Checks `req` against the scenario and lists what it runs. `parse` reads the scenario
/// with parameters (name, value); `params` are the parameters that are not varied. Returns
/// the plan and the scenario at each of its values (one without a varied parameter).
pub fn plan(
    parse: impl Fn(&[(String, i64)]) -> Result<Scenario, String>,
    params: &[(String, i64)],
    req: &SweepRequest,
) -> Result<(SweepPlan, Vec<Scenario>), SweepProblem> {
    use SweepField as F;
    let toggle = req.toggle.trim();
    if toggle.is_empty() {
        return Err(SweepProblem::new(F::Toggle, "name the toggle to compare"));
    }
    let patch = patches::find(toggle).ok_or_else(|| {
        SweepProblem::new(
            F::Toggle,
            format!("unknown toggle `{toggle}` (known toggles: {})", patches::known_ids()),
        )
    })?;
    let base = parse(params).map_err(|e| SweepProblem::new(F::Scenario, e))?;
    let vary = match req.vary.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(name) => {
            let Some(p) = base.params.iter().find(|p| p.name == name) else {
                let known: Vec<&str> = base.params.iter().map(|p| p.name.as_str()).collect();
                return Err(SweepProblem::new(
                    F::Vary,
                    format!(
                        "the scenario has no parameter `{name}` ({})",
                        if known.is_empty() {
                            "it has none".to_string()
                        } else {
                            format!("it has: {}", known.join(", "))
                        }
                    ),
                ));
            };
            if params.iter().any(|(k, _)| k == name) {
                return Err(SweepProblem::new(
                    F::Vary,
                    format!("`{name}` is also given as a fixed parameter: give it in one place"),
                ));
            }
            Some(SweepVary {
                name: name.to_string(),
                values: parse_values(&req.values, p)?,
            })
        }
    };
    let seeds: Vec<u64> = match req.seeds {
        Some(n) if (1..=MAX_SEEDS).contains(&n) => (1..=n).collect(),
        Some(n) => {
            return Err(SweepProblem::new(
                F::Seeds,
                format!("{n} seeds: give a number from 1 to {MAX_SEEDS} (or none for the scenario's own seed)"),
            ))
        }
        None => vec![base.seed],
    };
    let columns = columns(req.columns.as_deref(), &base)?;
    let toggle_values = patch.values();
    let nvalues = vary.as_ref().map_or(1, |v| v.values.len()) as u64;
    let runs = nvalues * seeds.len() as u64 * toggle_values.len() as u64;
    if let Some(max) = req.max_runs {
        if runs > max {
            return Err(SweepProblem::new(
                F::Runs,
                format!(
                    "{nvalues} value{} x {} seed{} x {} toggle values are {runs} runs; at most {max}: give fewer values or seeds",
                    plural(nvalues),
                    seeds.len(),
                    plural(seeds.len() as u64),
                    toggle_values.len(),
                ),
            ));
        }
    }
    // The scenario at each value, all parsed (and so checked) before the first run.
    let scenarios = match &vary {
        None => vec![base.clone()],
        Some(v) => v
            .values
            .iter()
            .map(|&x| {
                let mut p = params.to_vec();
                p.push((v.name.clone(), x));
                parse(&p).map_err(|e| SweepProblem::new(F::Values, format!("{}={x}: {e}", v.name)))
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    let plan = SweepPlan {
        scenario: base.id.clone(),
        scenario_seed: base.seed,
        toggle: patch.id.to_string(),
        toggle_values,
        vary,
        seeds,
        columns,
    };
    Ok((plan, scenarios))
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The varied parameter's values as typed: whole numbers within its range, each once.
fn parse_values(text: &str, p: &crate::scenario::Param) -> Result<Vec<i64>, SweepProblem> {
    let mut out: Vec<i64> = Vec::new();
    for item in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()) {
        let v: i64 = item
            .parse()
            .map_err(|_| SweepProblem::new(SweepField::Values, format!("`{item}` is not a whole number")))?;
        if v < p.min || v > p.max {
            return Err(SweepProblem::new(
                SweepField::Values,
                format!("{v} is outside the range of `{}`, {} to {}", p.name, p.min, p.max),
            ));
        }
        if out.contains(&v) {
            return Err(SweepProblem::new(SweepField::Values, format!("{v} is given twice")));
        }
        out.push(v);
    }
    if out.is_empty() {
        return Err(SweepProblem::new(
            SweepField::Values,
            format!("give the values of `{}` to run, e.g. {},{}", p.name, p.min, p.max),
        ));
    }
    Ok(out)
}

/// The counters and metrics shown: those named, or those the scenario's `[[expect]]`
/// blocks name (their headline numbers), each once.
fn columns(named: Option<&[String]>, s: &Scenario) -> Result<Vec<String>, SweepProblem> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |c: &str| {
        if !out.iter().any(|o| o == c) {
            out.push(c.to_string());
        }
    };
    match named {
        Some(list) => list.iter().map(|c| c.trim()).filter(|c| !c.is_empty()).for_each(&mut add),
        None => {
            for e in &s.expects {
                add(&e.counter);
                if let Some(p) = &e.per {
                    add(p);
                }
            }
            if out.is_empty() {
                return Err(SweepProblem::new(
                    SweepField::Columns,
                    "no [[expect]] of the scenario names a counter to show: name one or more",
                ));
            }
        }
    }
    if let Some(b) = out.iter().find(|c| !super::is_value_name(c)) {
        return Err(SweepProblem::new(
            SweepField::Columns,
            format!("`{b}` is neither a counter nor a metric (`mmviz mechanisms` lists them)"),
        ));
    }
    if out.is_empty() {
        return Err(SweepProblem::new(SweepField::Columns, "name at least one counter or metric"));
    }
    Ok(out)
}

/// `(after - before) / before` in percent; `None` when `before` is 0 or a value is missing.
fn change(before: Option<f64>, after: Option<f64>) -> Option<f64> {
    match (before, after) {
        (Some(b), Some(a)) if b != 0.0 => Some((a - b) / b * 100.0),
        _ => None,
    }
}

/// Mean, min and max of the numbers that exist.
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

impl SweepPlan {
    /// The varied parameter's values, or one `None` without one.
    pub fn values(&self) -> Vec<Option<i64>> {
        match &self.vary {
            Some(v) => v.values.iter().map(|&x| Some(x)).collect(),
            None => vec![None],
        }
    }

    /// How many runs the sweep asks for.
    pub fn run_count(&self) -> u64 {
        (self.values().len() * self.seeds.len() * self.toggle_values.len()) as u64
    }

    /// The report of `runs` (any order; a run the plan does not ask for is ignored, and
    /// one missing leaves its numbers out: a cancelled sweep reports what it did).
    pub fn report(&self, runs: &[SweepRunValues]) -> SweepReport {
        let tvs: Vec<String> = self.toggle_values.iter().map(ToString::to_string).collect();
        let find =
            |value: Option<i64>, seed: u64, tv: &str| runs.iter().find(|r| r.value == value && r.seed == seed && r.toggle_value == tv);
        let values = self.values();
        let mut results = Vec::new();
        let mut done = 0;
        for &value in &values {
            for &seed in &self.seeds {
                let cell: Vec<Option<&SweepRunValues>> = tvs.iter().map(|tv| find(value, seed, tv)).collect();
                let n = cell.iter().flatten().count();
                if n == 0 {
                    continue;
                }
                done += n as u64;
                let per_col = self
                    .columns
                    .iter()
                    .map(|col| {
                        let xs = cell.iter().map(|r| r.and_then(|r| r.values.get(col).copied())).collect();
                        (col.clone(), xs)
                    })
                    .collect();
                results.push(SweepCell {
                    value,
                    seed,
                    values: per_col,
                });
            }
        }
        let at = |c: &SweepCell, col: &str, k: usize| c.values.get(col).and_then(|xs| xs.get(k).copied().flatten());
        let mut summary = Vec::new();
        let mut absolute = Vec::new();
        for &value in &values {
            let cells: Vec<&SweepCell> = results.iter().filter(|c| c.value == value).collect();
            let seeds: Vec<u64> = cells.iter().map(|c| c.seed).collect();
            for (k, tv) in tvs.iter().enumerate().skip(1) {
                for col in &self.columns {
                    let ch: Vec<Option<f64>> = cells.iter().map(|c| change(at(c, col, 0), at(c, col, k))).collect();
                    let sp = spread(&ch);
                    summary.push(SweepChange {
                        value,
                        toggle_value: tv.clone(),
                        column: col.clone(),
                        seeds: seeds.clone(),
                        changes_pct: ch,
                        mean_pct: sp.map(|s| s.0),
                        min_pct: sp.map(|s| s.1),
                        max_pct: sp.map(|s| s.2),
                    });
                }
            }
            for (k, tv) in tvs.iter().enumerate() {
                for col in &self.columns {
                    let xs: Vec<Option<f64>> = cells.iter().map(|c| at(c, col, k)).collect();
                    let sp = spread(&xs);
                    absolute.push(SweepLevel {
                        value,
                        toggle_value: tv.clone(),
                        column: col.clone(),
                        seeds: seeds.clone(),
                        values: xs,
                        mean: sp.map(|s| s.0),
                        min: sp.map(|s| s.1),
                        max: sp.map(|s| s.2),
                    });
                }
            }
        }
        SweepReport {
            scenario: self.scenario.clone(),
            toggle: self.toggle.clone(),
            toggle_values: tvs,
            vary: self.vary.clone(),
            seeds: self.seeds.clone(),
            columns: self.columns.clone(),
            results,
            summary,
            absolute,
            runs_planned: self.run_count(),
            runs_done: done,
        }
    }
}

/// A change as the table prints it, or `n/a`.
fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), |v| format!("{v:+.1}%"))
}

/// `text` broken at spaces into lines of at most `width` characters, continued with
/// `indent` spaces (a word longer than a line stays whole).
fn wrap(text: &str, width: usize, indent: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let Some(line) = lines.last_mut() else { break };
        let fresh = line.trim().is_empty();
        if !fresh && line.len() + 1 + word.len() > width {
            lines.push(format!("{}{word}", " ".repeat(indent)));
        } else {
            if !fresh {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

impl SweepReport {
    /// The seeds as the title says them: `seed 11`, `seeds 1-8` or `seeds 2, 5`.
    fn seeds_text(&self) -> String {
        match self.seeds.as_slice() {
            [s] => format!("seed {s}"),
            s if s.iter().enumerate().all(|(i, &x)| x == i as u64 + 1) => format!("seeds 1-{}", s.len()),
            s => format!("seeds {}", s.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
        }
    }

    /// The plain-text table (at most [`TABLE_WIDTH`] columns, for a mailing-list reply):
    /// per counter, a row per parameter value and later toggle value with the change's
    /// mean, min and max over the seeds and each seed's (`0->N` where the first run had
    /// none).
    pub fn table(&self) -> String {
        use std::fmt::Write;
        let first = self.toggle_values.first().cloned().unwrap_or_default();
        let later: Vec<&str> = self.toggle_values.iter().skip(1).map(String::as_str).collect();
        let mut out = String::new();
        let title = format!(
            "{}: {} {first} -> {}, {}",
            self.scenario,
            self.toggle,
            later.join(", "),
            self.seeds_text()
        );
        for l in wrap(&title, TABLE_WIDTH, 4) {
            let _ = writeln!(out, "{l}");
        }
        if self.runs_done < self.runs_planned {
            let _ = writeln!(out, "partial: {} of {} runs done", self.runs_done, self.runs_planned);
        }
        // Columns: the value (headed by the parameter's name when it is short), the later
        // toggle value, mean, min, max, then each seed's change, wrapped under its column.
        let vary_head = self
            .vary
            .as_ref()
            .map(|v| if v.name.len() <= 14 { v.name.as_str() } else { "value" });
        let value_w = self.vary.as_ref().map_or(0, |v| {
            let widest = v.values.iter().map(|x| x.to_string().len()).max().unwrap_or(0);
            vary_head.map_or(0, str::len).max(widest) + 2
        });
        let toggle_w = later.iter().map(|t| t.len()).max().unwrap_or(0).max("toggle".len()) + 2;
        let fixed = value_w + toggle_w + 3 * 9 + 2 + 2;
        // Each seed's changes beside the row when at least two fit, else on lines of their own.
        let (seed_col, seed_room) = if TABLE_WIDTH.saturating_sub(fixed) >= 16 {
            (fixed, TABLE_WIDTH - fixed)
        } else {
            (4, TABLE_WIDTH - 4)
        };
        let values: Vec<Option<i64>> = match &self.vary {
            Some(v) => v.values.iter().map(|&x| Some(x)).collect(),
            None => vec![None],
        };
        let many = self.seeds.len() > 1;
        for col in &self.columns {
            let _ = writeln!(out);
            let over = if many { " (over the seeds)" } else { "" };
            for l in wrap(&format!("{col}: change against {first}{over}"), TABLE_WIDTH, 4) {
                let _ = writeln!(out, "{l}");
            }
            let mut head = String::new();
            if let Some(h) = vary_head {
                let _ = write!(head, "{h:<value_w$}");
            }
            let _ = write!(head, "{:<toggle_w$}{:>9} {:>9} {:>9}", "toggle", "mean", "min", "max");
            if seed_col == fixed {
                let _ = write!(head, "  per seed");
            }
            let _ = writeln!(out, "{}", head.trim_end());
            for &value in &values {
                for tv in &later {
                    let Some(row) = self
                        .summary
                        .iter()
                        .find(|s| s.value == value && s.toggle_value == *tv && &s.column == col)
                    else {
                        continue;
                    };
                    let mut line = String::new();
                    if let (Some(x), Some(_)) = (value, vary_head) {
                        let _ = write!(line, "{:<value_w$}", x.to_string());
                    }
                    let _ = write!(
                        line,
                        "{tv:<toggle_w$}{:>9} {:>9} {:>9}",
                        pct(row.mean_pct),
                        pct(row.min_pct),
                        pct(row.max_pct)
                    );
                    let k = self.toggle_values.iter().position(|t| t == tv).unwrap_or(1);
                    let per: Vec<String> = self
                        .results
                        .iter()
                        .filter(|c| c.value == value)
                        .map(|c| {
                            let xs = c.values.get(col);
                            let before = xs.and_then(|x| x.first().copied().flatten());
                            let after = xs.and_then(|x| x.get(k).copied().flatten());
                            match (before, after) {
                                (Some(0.0), Some(a)) => format!("0->{a}"),
                                _ => pct(change(before, after)),
                            }
                        })
                        .collect();
                    let seeds = wrap(&per.join(" "), seed_room, 0);
                    if seed_col == fixed {
                        let mut rest = seeds.iter();
                        if let Some(s) = rest.next() {
                            let _ = write!(line, "  {s}");
                        }
                        let _ = writeln!(out, "{}", line.trim_end());
                        for s in rest {
                            let _ = writeln!(out, "{}{s}", " ".repeat(seed_col));
                        }
                    } else {
                        let _ = writeln!(out, "{}", line.trim_end());
                        for s in seeds.iter().filter(|s| !s.is_empty()) {
                            let _ = writeln!(out, "{}{s}", " ".repeat(seed_col));
                        }
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse;

    fn hint_101() -> &'static str {
        crate::builtin::find("numa-hint-fault-101").map(|b| b.text).unwrap_or_default()
    }

    fn plan_of(req: &SweepRequest) -> Result<SweepPlan, SweepProblem> {
        plan(|p| parse(hint_101(), p).map_err(|e| e.to_string()), &[], req).map(|(p, _)| p)
    }

    fn req(vary: &str, values: &str) -> SweepRequest {
        SweepRequest {
            toggle: "numa_delay_map".into(),
            vary: Some(vary.into()),
            values: values.into(),
            ..SweepRequest::default()
        }
    }

    #[test]
    fn bad_requests_name_their_field() {
        let field = |r: &SweepRequest| plan_of(r).err().map(|p| p.field);
        assert_eq!(field(&SweepRequest::default()), Some(SweepField::Toggle));
        assert_eq!(field(&req("nope", "1")), Some(SweepField::Vary));
        assert_eq!(field(&req("pages", "2,x")), Some(SweepField::Values));
        assert_eq!(field(&req("pages", "")), Some(SweepField::Values));
        assert_eq!(field(&req("pages", "2,2")), Some(SweepField::Values));
        let out = plan_of(&req("pages", "2,99999")).err().map(|p| p.message).unwrap_or_default();
        assert!(out.starts_with("99999 is outside the range of `pages`"), "{out}");
        let seeds = SweepRequest {
            seeds: Some(MAX_SEEDS + 1),
            ..req("pages", "2")
        };
        assert_eq!(field(&seeds), Some(SweepField::Seeds));
        let cols = SweepRequest {
            columns: Some(vec!["bogus".into()]),
            ..req("pages", "2")
        };
        assert_eq!(field(&cols), Some(SweepField::Columns));
        let many = SweepRequest {
            seeds: Some(3),
            max_runs: Some(11),
            ..req("pages", "2,3")
        };
        let p = plan_of(&many).err();
        assert_eq!(p.as_ref().map(|p| p.field), Some(SweepField::Runs));
        assert!(p.is_some_and(|p| p
            .message
            .starts_with("2 values x 3 seeds x 2 toggle values are 12 runs; at most 11")));
    }

    #[test]
    fn a_plan_lists_values_seeds_and_the_expected_counters() {
        let p = plan_of(&SweepRequest {
            seeds: Some(2),
            ..req("pages", "2 4, 8")
        })
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(p.vary.as_ref().map(|v| v.values.clone()), Some(vec![2, 4, 8]));
        assert_eq!(p.seeds, vec![1, 2]);
        assert_eq!(p.toggle_values, vec![ToggleValue::Bool(false), ToggleValue::Bool(true)]);
        assert!(p.columns.iter().any(|c| c == "nr_tlb_remote_flush"), "{:?}", p.columns);
        assert_eq!(p.run_count(), 12);
    }

    /// A run's numbers made up for the arithmetic.
    fn fake(value: i64, seed: u64, tv: &str, x: f64) -> SweepRunValues {
        SweepRunValues {
            value: Some(value),
            seed,
            toggle_value: tv.into(),
            values: [("ctxt".to_string(), x)].into_iter().collect(),
        }
    }

    #[test]
    fn the_report_is_each_seeds_change_and_their_spread_and_says_what_is_missing() {
        let p = SweepPlan {
            scenario: "s".into(),
            scenario_seed: 7,
            toggle: "numa_delay_map".into(),
            toggle_values: vec![ToggleValue::Bool(false), ToggleValue::Bool(true)],
            vary: Some(SweepVary {
                name: "pages".into(),
                values: vec![2, 4],
            }),
            seeds: vec![1, 2],
            columns: vec!["ctxt".into()],
        };
        let runs = [
            fake(2, 1, "off", 100.0),
            fake(2, 1, "on", 50.0),
            fake(2, 2, "off", 200.0),
            fake(2, 2, "on", 300.0),
            fake(4, 1, "off", 0.0),
            fake(4, 1, "on", 5.0),
        ];
        let r = p.report(&runs);
        assert_eq!((r.runs_done, r.runs_planned), (6, 8));
        assert_eq!(r.results.len(), 3);
        let at2 = &r.summary[0];
        assert_eq!((at2.value, at2.seeds.clone()), (Some(2), vec![1, 2]));
        assert_eq!(at2.changes_pct, vec![Some(-50.0), Some(50.0)]);
        assert_eq!((at2.mean_pct, at2.min_pct, at2.max_pct), (Some(0.0), Some(-50.0), Some(50.0)));
        // 0 before the patch: no percentage, and the table says 0->N.
        assert_eq!(r.summary[1].changes_pct, vec![None]);
        assert_eq!(r.summary[1].mean_pct, None);
        let off2 = &r.absolute[0];
        assert_eq!(
            (off2.toggle_value.as_str(), off2.mean, off2.min, off2.max),
            ("off", Some(150.0), Some(100.0), Some(200.0))
        );
        let t = r.table();
        assert!(t.lines().all(|l| l.len() <= TABLE_WIDTH), "{t}");
        assert!(
            t.starts_with("s: numa_delay_map off -> on, seeds 1-2\npartial: 6 of 8 runs done\n"),
            "{t}"
        );
        assert!(t.contains("\npages  toggle       mean       min       max  per seed\n"), "{t}");
        assert!(t.contains("\n2      on          +0.0%    -50.0%    +50.0%  -50.0% +50.0%\n"), "{t}");
        assert!(t.contains("\n4      on            n/a       n/a       n/a  0->5\n"), "{t}");
    }

    #[test]
    fn the_table_stays_within_72_columns_with_many_seeds_and_long_names() {
        let runs: Vec<SweepRunValues> = (1..=20)
            .flat_map(|seed| {
                [
                    fake(123_456, seed, "deferred", 1000.0),
                    fake(123_456, seed, "dirty_file_or_swapcache", 1500.0 + seed as f64),
                ]
            })
            .collect();
        let p = SweepPlan {
            scenario: "a-scenario-with-a-long-name".into(),
            scenario_seed: 1,
            toggle: "mremap_flush".into(),
            toggle_values: vec![
                ToggleValue::Enum("deferred".into()),
                ToggleValue::Enum("dirty_file_or_swapcache".into()),
            ],
            vary: Some(SweepVary {
                name: "a_parameter_with_a_long_name".into(),
                values: vec![123_456],
            }),
            seeds: (1..=20).collect(),
            columns: vec!["ctxt".into()],
        };
        let t = p.report(&runs).table();
        assert!(t.lines().all(|l| l.len() <= TABLE_WIDTH), "{t}");
        // Every seed's change is there.
        assert_eq!(t.matches("%").count(), 3 + 20, "{t}");
    }
}
