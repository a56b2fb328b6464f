//! The only crate that sees `JsValue`: a thin wasm-bindgen layer over the engine.
//!
//! One exported handle, [`Simulation`], plus the registry getters. Structured data
//! crosses as serde values (camelCase, see `web/src/engine/types.ts`), a frame's bulk
//! state as typed arrays (`web/src/engine/bulk.ts`); every failure
//! is a real JS `Error` built by [`js_error`]; nothing here can panic on bad input.

use mmviz_engine::run::sweep::{self, SweepPlan, SweepProblem, SweepReport, SweepRequest, SweepRunValues};
use mmviz_engine::view::{builtin_views, patch_views, FrameBulk, FrameWindow, SeriesView};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

/// Converts any engine error into a JS `Error` carrying the engine's message.
fn js_error(msg: impl std::fmt::Display) -> JsValue {
    JsError::new(&msg.to_string()).into()
}

/// Serialises for JS: maps as plain objects, 64-bit numbers as JS numbers, `None` as
/// `null` (the generated types in `web/src/engine/generated/` say `T | null`).
fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
    let ser = serde_wasm_bindgen::Serializer::new()
        .serialize_maps_as_objects(true)
        .serialize_missing_as_null(true)
        .serialize_large_number_types_as_bigints(false);
    v.serialize(&ser).map_err(js_error)
}

/// Reads `{id: bool | string}` into `(id, text)` pairs.
fn toggles_from_js(v: JsValue) -> Result<Vec<(String, String)>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(Vec::new());
    }
    let map: BTreeMap<String, serde_json_like::Toggle> = serde_wasm_bindgen::from_value(v)
        .map_err(|e| js_error(format!("toggles must be an object of id: true/false or id: \"value\" ({e})")))?;
    Ok(map.into_iter().map(|(k, v)| (k, v.text())).collect())
}

/// Reads `{name: number}` into `(name, value)` pairs, rejecting non-integers.
fn params_from_js(v: JsValue) -> Result<Vec<(String, i64)>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(Vec::new());
    }
    let map: BTreeMap<String, f64> =
        serde_wasm_bindgen::from_value(v).map_err(|e| js_error(format!("params must be an object of name: number ({e})")))?;
    map.into_iter()
        .map(|(k, x)| {
            if x.fract() != 0.0 || !x.is_finite() || x.abs() > 9.0e15 {
                return Err(js_error(format!("`param {k}`: {x} is not a whole number")));
            }
            Ok((k, x as i64))
        })
        .collect()
}

mod serde_json_like {
    use serde::Deserialize;

    /// A toggle value as JS gives it.
    #[derive(Deserialize)]
    #[serde(untagged)]
    pub enum Toggle {
        Bool(bool),
        Text(String),
    }

    impl Toggle {
        /// As the engine reads it from text (`on`, `off` or an enum value).
        pub fn text(self) -> String {
            match self {
                Toggle::Bool(b) => if b { "on" } else { "off" }.to_string(),
                Toggle::Text(s) => s,
            }
        }
    }
}

/// The fields of a frame window, as JS names them.
const FRAME_WINDOW_FIELDS: [&str; 7] = ["pid", "vpnStart", "vpnEnd", "pteOffset", "pteCount", "pfnStart", "pfnCount"];

/// Reads a frame window (`undefined`, `null` or `{pid?, vpnStart?, vpnEnd?, pteOffset?,
/// pteCount?, pfnStart?, pfnCount?}`).
fn window_from_js(v: JsValue) -> Result<FrameWindow, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(FrameWindow::default());
    }
    // serde-wasm-bindgen reads only the fields it knows: refuse the others (a typo would
    // otherwise silently give the default window).
    if let Some(obj) = v.dyn_ref::<js_sys::Object>() {
        for key in js_sys::Object::keys(obj).iter() {
            let key = key.as_string().unwrap_or_default();
            if !FRAME_WINDOW_FIELDS.contains(&key.as_str()) {
                return Err(js_error(format!(
                    "a frame window has no field `{key}` (it has {})",
                    FRAME_WINDOW_FIELDS.join(", ")
                )));
            }
        }
    }
    serde_wasm_bindgen::from_value(v).map_err(|e| {
        js_error(format!(
            "a frame window is {{pid?, vpnStart?, vpnEnd?, pteOffset?, pteCount?, pfnStart?, pfnCount?}} of whole numbers ({e})"
        ))
    })
}

/// Sets `obj[key] = value`.
fn set(obj: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(obj, &JsValue::from_str(key), value).map(|_| ())
}

/// The bulk arrays as a JS object of typed arrays: views on one ArrayBuffer (so that a
/// Worker transfers one buffer), each array copied once out of wasm memory. The 4-byte
/// arrays come first, then the 2-byte, then the 1-byte ones, so every view is aligned.
fn bulk_to_js(b: &FrameBulk) -> Result<JsValue, JsValue> {
    let u32s: [(&str, &[u32]); 7] = [
        ("pteVpn", &b.pte_vpn),
        ("ptePfn", &b.pte_pfn),
        ("framePfn", &b.frame_pfn),
        ("frameMapVpn", &b.frame_map_vpn),
        ("tlbCpuStart", &b.tlb_cpu_start),
        ("tlbVpn", &b.tlb_vpn),
        ("tlbPfn", &b.tlb_pfn),
    ];
    let u16s: [(&str, &[u16]); 3] = [("ptePid", &b.pte_pid), ("frameMapPid", &b.frame_map_pid), ("tlbPid", &b.tlb_pid)];
    let u8s: [(&str, &[u8]); 4] = [
        ("pteFlags", &b.pte_flags),
        ("frameNode", &b.frame_node),
        ("frameFlags", &b.frame_flags),
        ("tlbFlags", &b.tlb_flags),
    ];
    let bytes = 4 * u32s.iter().map(|(_, a)| a.len()).sum::<usize>()
        + 2 * u16s.iter().map(|(_, a)| a.len()).sum::<usize>()
        + u8s.iter().map(|(_, a)| a.len()).sum::<usize>();
    let too_big = |_| js_error("a frame's bulk arrays are over 4 GiB");
    let buffer = js_sys::ArrayBuffer::new(u32::try_from(bytes).map_err(too_big)?);
    let o = js_sys::Object::new();
    let mut offset: u32 = 0;
    for (key, a) in u32s {
        let len = u32::try_from(a.len()).map_err(too_big)?;
        let view = js_sys::Uint32Array::new_with_byte_offset_and_length(&buffer, offset, len);
        view.copy_from(a);
        set(&o, key, &view)?;
        offset += 4 * len;
    }
    for (key, a) in u16s {
        let len = u32::try_from(a.len()).map_err(too_big)?;
        let view = js_sys::Uint16Array::new_with_byte_offset_and_length(&buffer, offset, len);
        view.copy_from(a);
        set(&o, key, &view)?;
        offset += 2 * len;
    }
    for (key, a) in u8s {
        let len = u32::try_from(a.len()).map_err(too_big)?;
        let view = js_sys::Uint8Array::new_with_byte_offset_and_length(&buffer, offset, len);
        view.copy_from(a);
        set(&o, key, &view)?;
        offset += len;
    }
    Ok(o.into())
}

/// A recorded simulation the UI steps through.
#[wasm_bindgen]
pub struct Simulation {
    inner: mmviz_engine::Simulation,
    /// The bulk arrays of the last frame, reused.
    bulk: FrameBulk,
    /// The JSON text of the last frame's header, reused.
    header_json: Vec<u8>,
}

#[wasm_bindgen]
impl Simulation {
    /// Parses `scenario_text`, applies toggles `{id: value}` and params `{name: n}`, and
    /// prepares the whole run.
    /// `seed` (optional) replaces the scenario's own.
    #[wasm_bindgen(constructor)]
    pub fn new(
        scenario_text: &str,
        toggles: JsValue,
        params: JsValue,
        seed: Option<f64>,
        schedule: Option<String>,
    ) -> Result<Simulation, JsValue> {
        let mut sim = Self::load(scenario_text, toggles, params, seed, schedule)?;
        sim.inner.prepare(u64::MAX).map_err(js_error)?;
        Ok(sim)
    }

    /// Parses and sets up without running; call `prepare` until `isPrepared()` (a Worker
    /// does this in slices so it can report progress and be cancelled). `seed` (optional)
    /// replaces the scenario's own; `schedule` (optional, `STEP:CPU,...` as `mmviz
    /// --schedule` and a link's `sched` carry it) says which CPU goes where the default
    /// order would pick another.
    pub fn load(
        scenario_text: &str,
        toggles: JsValue,
        params: JsValue,
        seed: Option<f64>,
        schedule: Option<String>,
    ) -> Result<Simulation, JsValue> {
        let (mut s, set) = scenario_at_seed(scenario_text, toggles, params, seed)?;
        if let Some(text) = schedule.as_deref().filter(|t| !t.trim().is_empty()) {
            let sched = mmviz_engine::core::Schedule::parse(text).map_err(|e| js_error(format!("schedule: {e}")))?;
            sched
                .check_cpus(s.topology.nr_cpus())
                .map_err(|e| js_error(format!("schedule: {e}")))?;
            s.schedule = sched;
        }
        let inner = mmviz_engine::Simulation::load_scenario(s, &set);
        Ok(Simulation {
            inner,
            bulk: FrameBulk::default(),
            header_json: Vec::new(),
        })
    }

    /// Runs up to `budget` more steps of the preparation pass; returns the steps prepared so far.
    pub fn prepare(&mut self, budget: f64) -> Result<f64, JsValue> {
        let b = whole(budget, "budget")?;
        Ok(self.inner.prepare(b).map_err(js_error)? as f64)
    }

    /// Whether the whole run is prepared (then `summary().totalSteps` is final).
    #[wasm_bindgen(js_name = isPrepared)]
    pub fn is_prepared(&self) -> bool {
        self.inner.is_prepared()
    }

    /// The steps of the event at `step` and of each event that caused it in turn, newest first.
    #[wasm_bindgen(js_name = causeChain)]
    pub fn cause_chain(&self, step: f64) -> Result<JsValue, JsValue> {
        let s = whole(step, "step")?;
        let st = &self.inner.sim().st;
        let evs: Vec<mmviz_engine::view::EventView> = self
            .inner
            .cause_chain(s)
            .iter()
            .map(|e| mmviz_engine::view::EventView::new(e, st))
            .collect();
        to_js(&evs)
    }

    /// Static facts about the scenario and run.
    pub fn summary(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.summary())
    }

    /// Advances `n` steps (clamped at the end); returns the new step.
    pub fn step(&mut self, n: f64) -> Result<f64, JsValue> {
        let n = whole(n, "step count")?;
        Ok(self.inner.step(n) as f64)
    }

    /// Goes to `step` (0..=totalSteps), forwards or backwards.
    pub fn seek(&mut self, step: f64) -> Result<(), JsValue> {
        let s = whole(step, "step")?;
        self.inner.seek(s).map_err(js_error)
    }

    /// The current step.
    #[wasm_bindgen(js_name = currentStep)]
    pub fn current_step(&self) -> f64 {
        self.inner.current_step() as f64
    }

    /// Everything the panels draw for the current step: the header (serde) with `bulk`,
    /// an object of typed arrays (see `web/src/engine/bulk.ts`). `window` (optional) picks
    /// the PTEs and frames; the header's `pteWindow` / `frameWindow` say which it holds.
    pub fn frame(&mut self, window: JsValue) -> Result<JsValue, JsValue> {
        let w = window_from_js(window)?;
        let header = self.inner.frame(&w, &mut self.bulk).map_err(js_error)?;
        // The header as JSON text parsed by the JS engine: for its 64 CPUs and their stacks
        // this is about 3x faster than building the objects through serde-wasm-bindgen.
        self.header_json.clear();
        serde_json::to_writer(&mut self.header_json, &header).map_err(js_error)?;
        let text = std::str::from_utf8(&self.header_json).map_err(js_error)?;
        let out = js_sys::JSON::parse(text)?;
        set(out.unchecked_ref(), "bulk", &bulk_to_js(&self.bulk)?)?;
        Ok(out)
    }

    /// Events with step in `[from, to)`.
    pub fn events(&self, from: f64, to: f64) -> Result<JsValue, JsValue> {
        let (a, b) = (whole(from, "from")?, whole(to, "to")?);
        let st = &self.inner.sim().st;
        let evs: Vec<mmviz_engine::view::EventView> = self
            .inner
            .events(a, b)
            .iter()
            .map(|e| mmviz_engine::view::EventView::new(e, st))
            .collect();
        to_js(&evs)
    }

    /// Counters sampled over the whole run (at most a few thousand points, evenly spaced
    /// in steps): `{ steps: number[], timeNs: number[], counters: { name: number[] } }`.
    pub fn series(&self) -> Result<JsValue, JsValue> {
        to_js(&SeriesView::new(self.inner.series()))
    }

    /// Counters at the current step.
    pub fn counters(&self) -> Result<JsValue, JsValue> {
        let c: BTreeMap<&str, u64> = self.inner.counters().iter().map(|(c, v)| (c.name(), v)).collect();
        to_js(&c)
    }

    /// Where the workload got further, for aligning two runs (the lab's A/B lock-step):
    /// `[step0, ops0, step1, ops1, ...]`, the positions at which `workload_ops` grew and its
    /// value there, in step order; empty until the run is prepared.
    #[wasm_bindgen(js_name = progressMarks)]
    pub fn progress_marks(&self) -> js_sys::Float64Array {
        let flat: Vec<f64> = self
            .inner
            .progress_marks()
            .iter()
            .flat_map(|&(step, ops)| [step as f64, ops as f64])
            .collect();
        js_sys::Float64Array::from(flat.as_slice())
    }
}

/// Two runs of one scenario under different toggles, stepped side by side until they
/// first do something different (`mmviz diverge`; the lab's "jump to first divergence").
#[wasm_bindgen]
pub struct DivergenceSearch {
    inner: mmviz_engine::diverge::DivergenceSearch,
}

#[wasm_bindgen]
impl DivergenceSearch {
    /// Sets up the two runs: one scenario and params, toggles `a` and `b`.
    pub fn load(scenario_text: &str, toggles_a: JsValue, toggles_b: JsValue, params: JsValue) -> Result<DivergenceSearch, JsValue> {
        let (s, a) = scenario_and_toggles(scenario_text, toggles_a, params)?;
        let mut b = mmviz_engine::patches::ToggleSet::default();
        for (id, v) in &toggles_from_js(toggles_b)? {
            b.set_text(id, v).map_err(js_error)?;
        }
        Ok(DivergenceSearch {
            inner: mmviz_engine::diverge::DivergenceSearch::new(&s, &a, &b),
        })
    }

    /// Compares up to `budget` more pairs of steps: `null` while the runs agree so far,
    /// then `{ step: number | null, compared, reason: string | null }` (step null: the
    /// runs never differ).
    pub fn advance(&mut self, budget: f64) -> Result<JsValue, JsValue> {
        let b = whole(budget, "budget")?;
        match self.inner.advance(b) {
            Some(d) => to_js(d),
            None => Ok(JsValue::NULL),
        }
    }

    /// Pairs of steps compared so far.
    pub fn compared(&self) -> f64 {
        self.inner.compared() as f64
    }
}

fn whole(x: f64, what: &str) -> Result<u64, JsValue> {
    if !x.is_finite() || x < 0.0 || x.fract() != 0.0 || x > 9.0e15 {
        return Err(js_error(format!("{what} must be a whole number >= 0, not {x}")));
    }
    Ok(x as u64)
}

/// Every interleaving of a small scenario's CPUs (`mmviz explore`): under the toggles and
/// params given, and with each value of toggle `toggle` when one is named, at most `budget`
/// states per value, within the scenario's `[explore] delays` bound when it sets one: an
/// `ExploreReport` (`mmviz explore --json` without each value's
/// `seconds` and each outcome's `replay`).
#[wasm_bindgen]
pub fn explore(scenario_text: &str, toggles: JsValue, params: JsValue, toggle: Option<String>, budget: f64) -> Result<JsValue, JsValue> {
    use mmviz_engine::explore;
    let states = whole(budget, "budget")?;
    if states == 0 {
        return Err(js_error("budget must be at least 1 state"));
    }
    let (s, base) = scenario_and_toggles(scenario_text, toggles, params)?;
    let cases = explore::toggle_values(&base, toggle.as_deref()).map_err(|e| js_error(format!("toggle: {e}")))?;
    let budget = explore::Budget {
        states,
        delays: s.explore.as_ref().and_then(|e| e.delays),
        ..explore::Budget::default()
    };
    to_js(&explore::report(&s, &cases, budget))
}

/// The whole patch registry.
#[wasm_bindgen]
pub fn patches() -> Result<JsValue, JsValue> {
    to_js(&patch_views())
}

/// Every mechanism and what it declares: toggles, counters, event kinds, operations, views.
#[wasm_bindgen]
pub fn mechanisms() -> Result<JsValue, JsValue> {
    to_js(&mmviz_engine::view::mechanism_views())
}

/// The mainline kernel versions at which some toggle changes, oldest first (`"v4.17"`, ...).
#[wasm_bindgen(js_name = kernelVersions)]
pub fn kernel_versions() -> Result<JsValue, JsValue> {
    let v: Vec<String> = mmviz_engine::patches::kernel_versions().iter().map(|k| k.to_string()).collect();
    to_js(&v)
}

/// Every toggle a mainline kernel version sets, as `{id: value}` (the lab's kernel picker);
/// an error names what is wrong with `version`.
#[wasm_bindgen(js_name = kernelToggles)]
pub fn kernel_toggles(version: &str) -> Result<JsValue, JsValue> {
    let t = mmviz_engine::view::kernel_toggles(version).map_err(js_error)?;
    let map: BTreeMap<&str, mmviz_engine::patches::ToggleValue> = t.into_iter().collect();
    to_js(&map)
}

/// Reads `numactl --hardware` text: `{nodes: [{id, cpus, size_mb, free_mb}], distances}`
/// as `mmviz topology --numactl FILE --json` prints it, or an error naming the line.
#[wasm_bindgen(js_name = parseNumactl)]
pub fn parse_numactl(text: &str) -> Result<JsValue, JsValue> {
    let hw = mmviz_engine::numactl::parse(text).map_err(js_error)?;
    to_js(&hw)
}

/// Reads `lscpu` text: CPUs, sockets, NUMA nodes' CPU lists, caches and the LLC share per
/// CPU, as `mmviz topology --lscpu FILE --json` prints it, or an error naming the line.
#[wasm_bindgen(js_name = parseLscpu)]
pub fn parse_lscpu(text: &str) -> Result<JsValue, JsValue> {
    to_js(&mmviz_engine::lscpu::parse(text).map_err(js_error)?)
}

/// The machine of `numactl --hardware` text with the CPU lists of `lscpu` text merged in
/// (`{nodes, distances}` as [`parse_numactl`]); errors say which text and line.
#[wasm_bindgen(js_name = mergeLscpu)]
pub fn merge_lscpu(numactl: &str, lscpu: &str) -> Result<JsValue, JsValue> {
    let hw = mmviz_engine::numactl::parse(numactl).map_err(|e| js_error(format!("numactl text {e}")))?;
    let l = mmviz_engine::lscpu::parse(lscpu).map_err(|e| js_error(format!("lscpu text {e}")))?;
    to_js(&mmviz_engine::lscpu::merge(&hw, &l).map_err(|e| js_error(format!("lscpu text {e}")))?)
}

/// Reads `/proc/zoneinfo` text: per node and zone the watermarks, sizes and pagesets, with
/// what the model derives for a zone of that size (`mmviz zoneinfo FILE --json`).
#[wasm_bindgen(js_name = parseZoneinfo)]
pub fn parse_zoneinfo(text: &str) -> Result<JsValue, JsValue> {
    to_js(&mmviz_engine::zoneinfo::parse(text).map_err(js_error)?)
}

/// What a run on the machine of `numactl` (and `lscpu`, when not blank) takes from the same
/// machine's `/proc/zoneinfo` at `mem_scale` real pages per simulated page (a whole number
/// as text): per node the zones merged, sizes and watermarks real and simulated, the
/// pageset sizes and which were printed ([`mmviz_engine::zoneinfo::node_zones`]). Errors
/// say which text and line (`zoneinfo text line N: ...`).
#[wasm_bindgen(js_name = nodeZones)]
pub fn node_zones(numactl: &str, lscpu: &str, zoneinfo: &str, mem_scale: &str) -> Result<JsValue, JsValue> {
    let hw = mmviz_engine::numactl::parse(numactl).map_err(|e| js_error(format!("numactl text {e}")))?;
    let hw = if lscpu.trim().is_empty() {
        hw
    } else {
        let l = mmviz_engine::lscpu::parse(lscpu).map_err(|e| js_error(format!("lscpu text {e}")))?;
        mmviz_engine::lscpu::merge(&hw, &l).map_err(|e| js_error(format!("lscpu text {e}")))?
    };
    let z = mmviz_engine::zoneinfo::parse(zoneinfo).map_err(|e| js_error(format!("zoneinfo text {e}")))?;
    let scale: u64 = match mem_scale.trim().parse() {
        Ok(v) if v >= 1 => v,
        _ => {
            return Err(js_error(format!(
                "memory scale `{}`: expected a whole number from 1",
                mem_scale.trim()
            )))
        }
    };
    to_js(&mmviz_engine::zoneinfo::node_zones(&z, &hw, scale).map_err(|e| js_error(format!("zoneinfo text {e}")))?)
}

/// The difference of two `/proc/vmstat` snapshots (`mmviz vmstat BEFORE AFTER --json`); an
/// error names the snapshot (`before:`/`after:`) and the line.
#[wasm_bindgen(js_name = vmstatDelta)]
pub fn vmstat_delta(before: &str, after: &str) -> Result<JsValue, JsValue> {
    to_js(&mmviz_engine::vmstat::delta(before, after).map_err(js_error)?)
}

/// The built-in scenarios (id, title, TOML text).
#[wasm_bindgen(js_name = builtinScenarios)]
pub fn builtin_scenarios() -> Result<JsValue, JsValue> {
    to_js(&builtin_views())
}

/// Parses a scenario with params and a toggle set from their JS forms.
fn scenario_and_toggles(
    scenario_text: &str,
    toggles: JsValue,
    params: JsValue,
) -> Result<(mmviz_engine::scenario::Scenario, mmviz_engine::patches::ToggleSet), JsValue> {
    let toggles = toggles_from_js(toggles)?;
    let params = params_from_js(params)?;
    let s = mmviz_engine::scenario::parse(scenario_text, &params).map_err(js_error)?;
    let mut set = mmviz_engine::patches::ToggleSet::default();
    for (id, v) in &toggles {
        set.set_text(id, v).map_err(js_error)?;
    }
    Ok((s, set))
}

/// Parses a scenario with params and a toggle set from their JS forms, at `seed` (a whole
/// number) instead of the scenario's own when given.
fn scenario_at_seed(
    scenario_text: &str,
    toggles: JsValue,
    params: JsValue,
    seed: Option<f64>,
) -> Result<(mmviz_engine::scenario::Scenario, mmviz_engine::patches::ToggleSet), JsValue> {
    let (mut s, set) = scenario_and_toggles(scenario_text, toggles, params)?;
    if let Some(seed) = seed {
        s.seed = whole(seed, "seed")?;
    }
    Ok((s, set))
}

/// Reads a sweep's request (`SweepRequest`, camelCase fields).
fn sweep_request_from_js(v: JsValue) -> Result<SweepRequest, JsValue> {
    serde_wasm_bindgen::from_value(v).map_err(|e| {
        js_error(format!(
            "a sweep request is {{toggle, vary?, values?, seeds?, columns?, maxRuns?}} ({e})"
        ))
    })
}

/// A sweep's plan or what is wrong with its request.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum PlanOutcome {
    Plan(SweepPlan),
    Problem(SweepProblem),
}

/// Checks a sweep (`request`: `{toggle, vary, values, seeds, columns, maxRuns}`) of a
/// scenario with the parameters that are not varied, as `mmviz sweep` does: `{plan}` with
/// what it runs and shows, or `{problem: {field, message}}` naming what is wrong.
#[wasm_bindgen(js_name = sweepPlan)]
pub fn sweep_plan(scenario_text: &str, params: JsValue, request: JsValue) -> Result<JsValue, JsValue> {
    let params = params_from_js(params)?;
    let req = sweep_request_from_js(request)?;
    let parse = |p: &[(String, i64)]| mmviz_engine::scenario::parse(scenario_text, p).map_err(|e| e.to_string());
    match sweep::plan(parse, &params, &req) {
        Ok((plan, _)) => to_js(&PlanOutcome::Plan(plan)),
        Err(problem) => to_js(&PlanOutcome::Problem(problem)),
    }
}

/// One run of a sweep, counters only: every counter, `steps` and every metric by name
/// (what `mmviz sweep` reads of its runs), and the run's warnings. `seed` (optional)
/// replaces the scenario's own.
#[wasm_bindgen(js_name = sweepRun)]
pub fn sweep_run(scenario_text: &str, toggles: JsValue, params: JsValue, seed: Option<f64>) -> Result<JsValue, JsValue> {
    let (s, set) = scenario_at_seed(scenario_text, toggles, params, seed)?;
    let r = mmviz_engine::run::run(&s, &set).map_err(js_error)?;
    to_js(&SweepRunView {
        values: r.named_values(),
        steps: r.steps as f64,
        warnings: r.warnings(),
    })
}

/// One run's numbers as JS gives them back for a report.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SweepRunIn {
    value: Option<i64>,
    seed: u64,
    toggle_value: serde_json_like::Toggle,
    values: BTreeMap<String, f64>,
}

/// The report of a sweep's runs (`runs`: `[{value, seed, toggleValue, values}]`, from
/// `sweepRun`): `{report, table}`, the report as `mmviz sweep --json` prints it and the
/// table as it prints without `--json`; or `{problem}` when the request is not valid.
#[wasm_bindgen(js_name = sweepReport)]
pub fn sweep_report(scenario_text: &str, params: JsValue, request: JsValue, runs: JsValue) -> Result<JsValue, JsValue> {
    let params = params_from_js(params)?;
    let req = sweep_request_from_js(request)?;
    let runs: Vec<SweepRunIn> = serde_wasm_bindgen::from_value(runs)
        .map_err(|e| js_error(format!("a sweep's runs are [{{value, seed, toggleValue, values}}] ({e})")))?;
    let runs: Vec<SweepRunValues> = runs
        .into_iter()
        .map(|r| SweepRunValues {
            value: r.value,
            seed: r.seed,
            toggle_value: r.toggle_value.text(),
            values: r.values,
        })
        .collect();
    let parse = |p: &[(String, i64)]| mmviz_engine::scenario::parse(scenario_text, p).map_err(|e| e.to_string());
    match sweep::plan(parse, &params, &req) {
        Ok((plan, _)) => {
            let report = plan.report(&runs);
            let table = report.table();
            to_js(&ReportView { report, table })
        }
        Err(problem) => to_js(&PlanOutcome::Problem(problem)),
    }
}

/// A sweep's report and its plain-text table.
#[derive(Serialize)]
struct ReportView {
    report: SweepReport,
    table: String,
}

/// One run of a sweep.
#[derive(Serialize)]
struct SweepRunView {
    values: BTreeMap<String, f64>,
    steps: f64,
    warnings: Vec<String>,
}

/// Runs a scenario headless (counters only) — the same numbers as `mmviz run --json`'s counters.
#[wasm_bindgen(js_name = runCounters)]
pub fn run_counters(scenario_text: &str, toggles: JsValue, params: JsValue) -> Result<JsValue, JsValue> {
    let (s, set) = scenario_and_toggles(scenario_text, toggles, params)?;
    let r = mmviz_engine::run::run(&s, &set).map_err(js_error)?;
    let c: BTreeMap<&str, u64> = r.counters.iter().map(|(c, v)| (c.name(), v)).collect();
    to_js(&RunView {
        counters: c,
        steps: r.steps as f64,
    })
}

/// The hash of a headless run's event stream (hex), as `mmviz run --json` reports it.
#[wasm_bindgen(js_name = eventHash)]
pub fn event_hash(scenario_text: &str, toggles: JsValue, params: JsValue) -> Result<String, JsValue> {
    let (s, set) = scenario_and_toggles(scenario_text, toggles, params)?;
    let h = mmviz_engine::run::event_hash(&s, &set).map_err(js_error)?;
    Ok(format!("{h:016x}"))
}

/// Counters of a headless run.
#[derive(Serialize)]
struct RunView<'a> {
    counters: BTreeMap<&'a str, u64>,
    steps: f64,
}
