//! Results must not move by accident: these golden files are
//! `mmviz run SCENARIO --set numa_delay_map=off|on --json`. Counters must match exactly
//! and `sim_time_ns` within ±1 %; step counts may differ (a refactor may split work into
//! other micro-steps). A change meant to move these numbers re-records the files in the
//! same commit and says why. History: recorded on the v1 engine (6b29b10) for the core v2
//! port; re-recorded for the v5.12/v5.13 flush accounting (`tlb_flush_multi`: generation
//! logic, `nr_tlb_remote_flush` whenever another CPU is in the mask); `numa-delay-map-scale`
//! re-recorded when the rmap walk got its cost (`rmap_walk_ns`, 250 ns per VMA visited):
//! every migration's unmap and remap take 0.5 us longer, which moves when the scanner runs;
//! `numa-delay-map-scale` (on) re-recorded when NUMA groups came in (`task_numa_group`):
//! the six threads fault on each other's pages and form one group, whose statistics feed
//! the placement and the scan period (the run now has six scan passes instead of five);
//! `numa-delay-map-scale` re-recorded when the scheduler became CFS's (slices checked at
//! ticks, wake-up placement and preemption, a thread waiting for a page under migration
//! sleeps, the vmstat workers' wake-ups): the waits now switch their CPUs out and back
//! (`ctxt` 6 -> 42 and 46), and the unpatched run makes one more scan pass (9).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin;
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::{run, scenario};
use serde_json::Value;

const GOLDEN: &[(&str, &str, &str)] = &[
    (
        "numa-hint-fault-101",
        "off",
        include_str!("golden/numa-hint-fault-101.numa_delay_map=off.json"),
    ),
    (
        "numa-hint-fault-101",
        "on",
        include_str!("golden/numa-hint-fault-101.numa_delay_map=on.json"),
    ),
    (
        "numa-delay-map-scale",
        "off",
        include_str!("golden/numa-delay-map-scale.numa_delay_map=off.json"),
    ),
    (
        "numa-delay-map-scale",
        "on",
        include_str!("golden/numa-delay-map-scale.numa_delay_map=on.json"),
    ),
];

#[test]
fn the_ported_core_reproduces_the_v1_counters() {
    for (id, value, text) in GOLDEN {
        let golden: Value = serde_json::from_str(text).unwrap();
        let s = scenario::parse(builtin::find(id).unwrap().text, &[]).unwrap();
        let mut t = ToggleSet::default();
        t.set_text("numa_delay_map", value).unwrap();
        let mut s = s;
        s.toggles.retain(|(k, _)| k != "numa_delay_map");
        let r = run::run(&s, &t).unwrap();
        let mut diffs = Vec::new();
        for (name, want) in golden["counters"].as_object().unwrap() {
            let got = r.value(name);
            if got != want.as_f64() {
                diffs.push(format!("{name}: golden {want}, now {got:?}"));
            }
        }
        let want_t = golden["metrics"]["sim_time_ns"].as_f64().unwrap();
        let got_t = r.value("sim_time_ns").unwrap();
        if (got_t - want_t).abs() > 0.01 * want_t {
            diffs.push(format!("sim_time_ns: golden {want_t}, now {got_t} (more than 1 % apart)"));
        }
        assert!(diffs.is_empty(), "{id} numa_delay_map={value}:\n  {}", diffs.join("\n  "));
    }
}
