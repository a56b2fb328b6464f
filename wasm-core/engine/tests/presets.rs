//! Kernel presets, explicit choices over a scenario's own defaults, the fixed window
//! and `[[expect]]` comparisons between runs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::engine::Sim;
use mmviz_engine::mech::core::WORKLOAD_OPS;
use mmviz_engine::mech::numa::{NUMA_DELAY_MAP, NUMA_SKIP_DIRTY_FILE};
use mmviz_engine::patches::{self, Kernel, ToggleSet, ToggleValue};
use mmviz_engine::{run, scenario};

/// One thread on node 1 touching a heap on node 0 after a scan: `extra` goes in at the top.
fn mini(extra: &str, ops: &str) -> String {
    format!(
        r#"
format = 1
id = "presets-test"
title = "t"
{extra}
[machine]
tlb_entries = 8
distance = [[10, 21], [21, 10]]
[[machine.node]]
cpus = [0]
mem_pages = 32
[[machine.node]]
cpus = [1]
mem_pages = 32
[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = 4
node = 0
[[process.thread]]
cpu = 1
ops = [{ops}]
"#
    )
}

const TOUCH: &str = r#"{ op = "touch", vma = "heap" }"#;

fn value(t: &ToggleSet, id: &str) -> ToggleValue {
    t.get(id).unwrap().clone()
}

fn effective(s: &scenario::Scenario, t: &ToggleSet) -> ToggleSet {
    Sim::new(s, t, false).cfg.toggles.clone()
}

#[test]
fn kernel_versions_parse_and_order_like_releases() {
    let k = |t| Kernel::parse(t).unwrap();
    assert!(k("v4.9") < k("v4.19"), "4.9 is older than 4.19 (numeric, not text, order)");
    assert!(k("v4.19") < k("v5.0"));
    assert_eq!(k("5.12"), k("v5.12.3"));
    assert_eq!(k("v6.7-rc1"), k("v6.7"));
    assert_eq!(k("v5.13").to_string(), "v5.13");
    for bad in ["", "5", "v5", "v5.x", "latest", "v5.12.3.4", "v10.1", "v5.12 extra"] {
        let e = Kernel::parse(bad).unwrap_err();
        assert!(e.contains("not a kernel version"), "{bad}: {e}");
    }
}

#[test]
fn a_bool_toggle_is_off_before_the_version_it_landed_in_and_on_from_it() {
    let p = NUMA_DELAY_MAP.patch();
    assert_eq!(p.version, "v5.13");
    assert_eq!(p.value_in(Kernel::parse("v5.12").unwrap()), Some(ToggleValue::Bool(false)));
    assert_eq!(p.value_in(Kernel::parse("v5.13").unwrap()), Some(ToggleValue::Bool(true)));
    assert_eq!(p.value_in(Kernel::parse("v6.6").unwrap()), Some(ToggleValue::Bool(true)));
    let mut t = ToggleSet::default();
    t.set_kernel(Kernel::parse("v4.16").unwrap());
    assert!(!t.on(NUMA_DELAY_MAP) && !t.on(NUMA_SKIP_DIRTY_FILE), "v4.16 has neither patch");
    t.set_kernel(Kernel::parse("v4.17").unwrap());
    assert!(!t.on(NUMA_DELAY_MAP) && t.on(NUMA_SKIP_DIRTY_FILE), "v4.17 has 09a913a7 only");
    let versions = patches::kernel_versions();
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
    assert!(versions.contains(&Kernel::parse("v5.13").unwrap()));
}

#[test]
fn a_scenarios_kernel_sets_defaults_its_toggles_and_the_caller_win_in_that_order() {
    // The scenario says v5.12: no delayed mapping.
    let s = scenario::parse(&mini("kernel = \"v5.12\"", TOUCH), &[]).unwrap();
    let t = effective(&s, &ToggleSet::default());
    assert_eq!(value(&t, "numa_delay_map"), ToggleValue::Bool(false));
    assert_eq!(value(&t, "numa_skip_dirty_file"), ToggleValue::Bool(true));
    // Its own [toggles] win over its kernel.
    let s2 = scenario::parse(&mini("kernel = \"v5.12\"\n[toggles]\nnuma_delay_map = true", TOUCH), &[]).unwrap();
    assert_eq!(
        value(&effective(&s2, &ToggleSet::default()), "numa_delay_map"),
        ToggleValue::Bool(true)
    );
    // An explicit choice wins over both, even when it equals the registry default
    // (the old rule, "the caller left the default", could not tell).
    let mut on = ToggleSet::default();
    on.set_text("numa_delay_map", "on").unwrap();
    assert_eq!(value(&effective(&s, &on), "numa_delay_map"), ToggleValue::Bool(true));
    let mut k = ToggleSet::default();
    k.set_kernel(Kernel::parse("v5.13").unwrap());
    let mut s3 = s2.clone();
    s3.toggles = vec![("numa_delay_map".into(), ToggleValue::Bool(false))];
    assert_eq!(
        value(&effective(&s3, &k), "numa_delay_map"),
        ToggleValue::Bool(true),
        "--kernel sets every toggle with a history, over the scenario's own"
    );
}

#[test]
fn a_bad_kernel_or_preset_in_a_scenario_names_its_line_and_field() {
    let e = scenario::parse(&mini("kernel = \"5\"", TOUCH), &[]).unwrap_err().to_string();
    assert!(
        e.contains("line 5") && e.contains("kernel") && e.contains("not a kernel version"),
        "{e}"
    );
    let text = mini("", TOUCH) + "[[expect]]\ncounter = \"accesses\"\npreset = \"nope\"\nmin = 1\n";
    let e = scenario::parse(&text, &[]).unwrap_err().to_string();
    assert!(e.contains("expect[0].preset") && e.contains("unknown preset `nope`"), "{e}");
    let text = mini("", TOUCH) + "[[expect]]\ncounter = \"accesses\"\nvs = { kernel = \"v5\" }\nmin = 1\n";
    let e = scenario::parse(&text, &[]).unwrap_err().to_string();
    assert!(e.contains("expect[0].vs.kernel"), "{e}");
}

#[test]
fn the_window_cuts_the_run_and_throughput_counts_the_work_inside_it() {
    let looped = r#"{ op = "touch", vma = "heap" }, { op = "compute", ns = 1000 }, { op = "loop" }"#;
    // A loop with no end needs a window.
    let e = scenario::parse(&mini("", looped), &[]).unwrap_err().to_string();
    assert!(e.contains("window_ms") && e.contains("ops[2]"), "{e}");
    let short = scenario::parse(&mini("[knobs]\nwindow_ms = 1", looped), &[]).unwrap();
    let long = scenario::parse(&mini("[knobs]\nwindow_ms = 2", looped), &[]).unwrap();
    let (a, b) = (
        run::run(&short, &ToggleSet::default()).unwrap(),
        run::run(&long, &ToggleSet::default()).unwrap(),
    );
    assert_eq!(a.value("sim_time_ns"), Some(1e6), "the run time is the window");
    assert_eq!(b.value("sim_time_ns"), Some(2e6));
    let (oa, ob) = (a.counters.get(WORKLOAD_OPS), b.counters.get(WORKLOAD_OPS));
    assert!(oa > 100, "the loop keeps the thread working: {oa}");
    assert!(
        ob > oa * 19 / 10 && ob < oa * 21 / 10,
        "twice the window, about twice the work: {oa} {ob}"
    );
    let (ta, tb) = (a.value("throughput").unwrap(), b.value("throughput").unwrap());
    assert!((ta / tb - 1.0).abs() < 0.05, "throughput is per second, so steady: {ta} {tb}");
    // A finite loop ends by itself: 1 + 2 passes of 4 pages.
    let three = scenario::parse(&mini("", r#"{ op = "touch", vma = "heap" }, { op = "loop", times = 2 }"#), &[]).unwrap();
    let r = run::run(&three, &ToggleSet::default()).unwrap();
    assert_eq!(r.value("accesses"), Some(12.0));
    assert_eq!(r.value("workload_ops"), Some(12.0));
}

#[test]
fn an_expectation_can_divide_by_another_run() {
    let text = mini("kernel = \"v5.13\"", TOUCH)
        + r#"
[[expect]]
name = "the same accesses under v5.12"
counter = "accesses"
vs = { kernel = "v5.12" }
eq = 1
[[expect]]
name = "an explicit set against the scenario's defaults"
counter = "accesses"
set = { numa_delay_map = false }
vs = {}
eq = 1
[[expect]]
name = "a failing ratio fails"
counter = "accesses"
vs = { set = { numa_delay_map = false } }
min = 2
"#;
    let s = scenario::parse(&text, &[]).unwrap();
    let out = run::check(&s).unwrap();
    assert!(out[0].ok && out[1].ok, "{:?}", out.iter().map(|o| o.value).collect::<Vec<_>>());
    assert!(!out[2].ok && (out[2].value - 1.0).abs() < 1e-12, "{}", out[2].value);
    assert_eq!(out[0].expect.vs.as_ref().unwrap().label(), "kernel=v5.12");
}

#[test]
fn the_profile_charges_every_cpu_nanosecond_once_and_sees_the_flush_wait() {
    use mmviz_engine::builtin;
    let s = scenario::parse(builtin::find("numa-hint-fault-101").unwrap().text, &[]).unwrap();
    let mut shares = Vec::new();
    for delay in ["off", "on"] {
        let mut t = ToggleSet::default();
        t.set_text("numa_delay_map", delay).unwrap();
        let mut sim = Sim::new(&s, &t, false);
        sim.profiling = true;
        sim.run_to_end().unwrap();
        let p = &sim.st.prof;
        let clocks: u64 = sim.st.cpus.iter().map(|c| c.clock).sum();
        assert_eq!(
            p.total_ns(),
            clocks,
            "delay {delay}: each CPU's time is charged once, up to its clock"
        );
        assert!(p.sys_ns > 0 && p.user_ns > 0);
        // Inclusive: the migration contains its unmap, which contains the flush.
        let (mig, unmap) = (p.time_in("migrate_misplaced_page"), p.time_in("try_to_unmap"));
        assert!(mig >= unmap && unmap > 0, "delay {delay}: {mig} {unmap}");
        // User code is at the bottom of every user thread's stack: it contains all their time.
        assert_eq!(p.time_in("user code"), p.user_ns + p.sys_ns, "delay {delay}");
        assert!(p.time_in("user code") > mig);
        shares.push(p.share_pct("try_to_unmap").unwrap());
        // An unprofiled run charges nothing.
        let mut quiet = Sim::new(&s, &t, false);
        quiet.run_to_end().unwrap();
        assert_eq!(quiet.st.prof.total_ns(), 0);
    }
    // Without the patch the unmap waits for the IPI's acknowledgement.
    assert!(
        shares[0] > 2.0 * shares[1],
        "try_to_unmap share off {} vs on {}",
        shares[0],
        shares[1]
    );
    let r = run::run(&s, &ToggleSet::default()).unwrap();
    assert!(r.value("sys_time_ns").unwrap() > 0.0);
}
