//! `mmviz sweep`: a toggle's effect over seeds and the values of one parameter, as text and
//! JSON, and its bad-input messages.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::testkit::TestScenario;

mod common;
use common::{json, mmviz};

#[test]
fn every_value_and_seed_is_a_comparison_and_the_summary_is_their_spread() {
    let v = json(&[
        "sweep",
        "numa-hint-fault-101",
        "--toggle",
        "numa_delay_map",
        "--vary",
        "pages=2,4",
        "--seeds",
        "2",
        "--columns",
        "irq_tlb_count,numa_pages_migrated",
        "--json",
    ]);
    assert_eq!(v["toggle_values"], serde_json::json!(["off", "on"]));
    assert_eq!(v["vary"], serde_json::json!({ "name": "pages", "values": [2, 4] }));
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 4, "2 values x 2 seeds");
    // Each result holds what `compare` gives for that value and seed.
    for r in results {
        let pages = r["value"].as_i64().unwrap().to_string();
        let c = json(&[
            "compare",
            "numa-hint-fault-101",
            "--toggle",
            "numa_delay_map",
            "--param",
            &format!("pages={pages}"),
            "--json",
        ]);
        if r["seed"] == 1 {
            let ipis: Vec<f64> = c["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["counters"]["irq_tlb_count"].as_f64().unwrap())
                .collect();
            assert_eq!(r["values"]["irq_tlb_count"], serde_json::json!(ipis), "pages={pages}");
        }
    }
    // The summary: per value and column, each seed's change and their mean, min and max.
    let summary = v["summary"].as_array().unwrap();
    assert_eq!(summary.len(), 4, "2 values x 1 later toggle value x 2 columns");
    for s in summary {
        let value = &s["value"];
        let col = s["column"].as_str().unwrap();
        let changes: Vec<f64> = results
            .iter()
            .filter(|r| &r["value"] == value)
            .map(|r| {
                let x = r["values"][col].as_array().unwrap();
                let (a, b) = (x[0].as_f64().unwrap(), x[1].as_f64().unwrap());
                (b - a) / a * 100.0
            })
            .collect();
        let got: Vec<f64> = s["changes_pct"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        assert_eq!(got, changes, "{s}");
        let mean = changes.iter().sum::<f64>() / changes.len() as f64;
        assert!((s["mean_pct"].as_f64().unwrap() - mean).abs() < 1e-9, "{s}");
    }
    // IPIs fall with the patch at every value.
    assert!(summary
        .iter()
        .filter(|s| s["column"] == "irq_tlb_count")
        .all(|s| s["max_pct"].as_f64().unwrap() < -50.0));
}

#[test]
fn the_text_table_has_a_row_per_value_and_column_and_defaults_to_the_expectations() {
    let (code, out, err) = mmviz(&["sweep", "numa-hint-fault-101", "--toggle", "numa_delay_map", "--vary", "pages=2,4"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "numa-hint-fault-101: numa_delay_map off -> on, seed 1");
    // A block per counter the scenario's [[expect]] blocks name: its name, a header, a row
    // per value.
    assert_eq!(lines[1], "", "{out}");
    assert!(lines[2].ends_with(": change against off"), "{out}");
    assert!(lines[3].starts_with("pages  toggle") && lines[3].ends_with("per seed"), "{out}");
    assert!(out.contains("\nnr_tlb_remote_flush: change against off\n"), "{out}");
    let rows = |p: &str| lines.iter().filter(|l| l.starts_with(p)).count();
    assert_eq!(rows("2 "), rows("4 "));
    assert!(rows("2 ") >= 2, "{out}");
    // A counter that is 0 before the patch shows its count after it, not a percentage.
    assert!(out.contains("0->0"), "{out}");
    // It fits a mailing-list reply.
    assert!(lines.iter().all(|l| l.len() <= 72), "{out}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["--vary", "nope=1"], "--vary: the scenario has no parameter `nope` (it has: "),
        (&["--vary", "pages=2,x"], "--vary pages: `x` is not a whole number"),
        (&["--vary", "pages"], "--vary `pages`: expected NAME=V1,V2,..."),
        (&["--vary", "pages=2,999"], "pages"),
        (
            &["--vary", "pages=2", "--param", "pages=4"],
            "--vary pages: also given with --param",
        ),
        (&["--columns", "bogus"], "--columns: `bogus` is neither a counter nor a metric"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["sweep", "numa-hint-fault-101", "--toggle", "numa_delay_map"];
        args.extend_from_slice(extra);
        let (code, out, err) = mmviz(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(want) && err.lines().count() == 1, "{args:?}: {err}");
    }
    let (code, _, err) = mmviz(&["sweep", "numa-hint-fault-101", "--toggle", "nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown toggle `nope`"), "{err}");
    // No [[expect]] to take the columns from: say to give --columns.
    let dir = std::env::temp_dir().join(format!("mmviz-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bare = dir.join("bare.toml");
    let text = TestScenario::new()
        .node("cpus = [0]\nmem_pages = 64")
        .then("[[process]]\nname = \"app\"\n[[process.thread]]\ncpu = 0\nops = [{ op = \"compute\", ns = 1000 }]\n")
        .text();
    std::fs::write(&bare, text).unwrap();
    let (code, _, err) = mmviz(&["sweep", bare.to_str().unwrap(), "--toggle", "numa_delay_map"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--columns: no [[expect]] of the scenario names a counter to show"),
        "{err}"
    );
    let (code, out, err) = mmviz(&["sweep", bare.to_str().unwrap(), "--toggle", "numa_delay_map", "--columns", "ctxt"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ctxt"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
