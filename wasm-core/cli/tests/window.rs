//! Profile windows (`--profile-window`, an `[[expect]]`'s `window`) and expectations held on
//! a mean over seeds (`seeds = N`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::testkit::TestScenario;

mod common;
use common::{json, mmviz};

#[test]
fn two_windows_that_split_the_run_add_up_to_its_profile() {
    // numa-hint-fault-101 runs about 126 µs: windows 0..60 µs and 60 µs..1 s (cut at the
    // run's end) split it.
    let v = json(&[
        "run",
        "numa-hint-fault-101",
        "--set",
        "numa_delay_map=off",
        "--profile-window",
        "0..0.00006",
        "--profile-window",
        "0.00006..1",
        "--json",
    ]);
    let w = v["windows"].as_array().unwrap();
    assert_eq!(w.len(), 2);
    assert_eq!((w[0]["start_s"].as_f64(), w[0]["end_s"].as_f64()), (Some(0.0), Some(0.00006)));
    let sys = |m: &serde_json::Value| m["sys_time_ns"].as_f64().unwrap();
    let whole = sys(&v["metrics"]);
    let parts = sys(&w[0]["metrics"]) + sys(&w[1]["metrics"]);
    assert!(whole > 0.0 && (parts - whole).abs() <= 0.01 * whole, "{parts} vs {whole}");
    // Only the metrics read from the profile have a windowed value.
    assert!(w[0]["metrics"].get("try_to_unmap_pct").is_some());
    assert!(w[0]["metrics"].get("throughput").is_none() && w[0]["metrics"].get("local_hint_fault_pct").is_none());
    // The text table shows them as rows of their own.
    let (code, out, err) = mmviz(&[
        "compare",
        "numa-hint-fault-101",
        "--toggle",
        "numa_delay_map",
        "--profile-window",
        "0..0.00006",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("try_to_unmap_pct [0..0.00006 s]"), "{out}");
}

#[test]
fn a_bad_profile_window_is_named() {
    for (arg, msg) in [
        ("15", "expected START_S..END_S"),
        ("25..15", "must end after it starts"),
        ("a..2", "`a` is not a number of seconds"),
    ] {
        let (code, _, err) = mmviz(&["run", "numa-hint-fault-101", "--profile-window", arg]);
        assert_eq!(code, 2, "{arg}: {err}");
        assert!(err.contains("--profile-window") && err.contains(msg), "{arg}: {err}");
    }
}

/// A one-thread scenario touching `pages` pages at random, with `expect` appended.
fn random_toucher(expect: &str) -> String {
    TestScenario::new()
        .seed(1)
        .node("cpus = [0]\nmem_pages = 256")
        .heap_process(64, &[(0, r#"[{ op = "random", vma = "heap", count = 60 }]"#)])
        .then(expect)
        .text()
}

#[test]
fn an_expectation_over_seeds_holds_their_mean_and_lists_each() {
    let dir = std::env::temp_dir().join(format!("mmviz-seed-mean-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // How many of the 64 pages 60 random accesses touch depends on the seed.
    let faults: Vec<f64> = (1..=4)
        .map(|seed| {
            let f = dir.join(format!("probe{seed}.toml"));
            std::fs::write(&f, random_toucher("").replace("seed = 1", &format!("seed = {seed}"))).unwrap();
            json(&["run", f.to_str().unwrap(), "--json"])["counters"]["anon_faults"]
                .as_f64()
                .unwrap()
        })
        .collect();
    let mean = faults.iter().sum::<f64>() / 4.0;
    let file = dir.join("mean.toml");
    let expect = format!(
        "[[expect]]\nname = \"the mean over seeds 1-4\"\ncounter = \"anon_faults\"\nseeds = 4\nmin = {}\nmax = {}\n",
        mean - 0.01,
        mean + 0.01
    );
    std::fs::write(&file, random_toucher(&expect)).unwrap();
    let (code, out, err) = mmviz(&["check", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("mean of seeds 1-4"), "{out}");
    let each: Vec<String> = faults.iter().enumerate().map(|(i, f)| format!("{}: {f:.4}", i + 1)).collect();
    assert!(out.contains(&format!("seeds {}", each.join(", "))), "{out}");
    // --seeds does not run it again at other seeds: it is measured over seeds already.
    let (code, out, _) = mmviz(&["check", "--seeds", "3", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("other seeds"), "{out}");
    // A window names a metric of the profile; anything else is an error naming the line.
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        random_toucher("[[expect]]\ncounter = \"anon_faults\"\nwindow = { from_ms = 0, length_ms = 1 }\nmin = 0\n"),
    )
    .unwrap();
    let (code, _, err) = mmviz(&["check", bad.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("`anon_faults` has no value over a window"), "{err}");
    // And a count of seeds out of range is named by the parser.
    let zero = dir.join("zero.toml");
    std::fs::write(&zero, random_toucher("[[expect]]\ncounter = \"anon_faults\"\nseeds = 0\nmin = 0\n")).unwrap();
    let (code, _, err) = mmviz(&["check", zero.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("seeds"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
