//! `--kernel`, `--preset` and `--set` on `mmviz run` and `mmviz compare`, end to end:
//! the JSON names what was chosen, `--set` wins over `--kernel`, and a bad choice is a
//! one-line message with exit 2.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::testkit::TestScenario;
use serde_json::Value;
use std::process::Command;

mod common;
use common::{json, mmviz};

#[test]
fn kernel_sets_every_toggle_and_set_wins_over_it() {
    let v = json(&["run", "numa-hint-fault-101", "--kernel", "v5.12", "--json"]);
    assert_eq!(v["toggles"]["numa_delay_map"], Value::Bool(false));
    assert_eq!(v["toggles"]["numa_skip_dirty_file"], Value::Bool(true));
    let v = json(&[
        "run",
        "numa-hint-fault-101",
        "--kernel",
        "v4.16",
        "--set",
        "numa_delay_map=on",
        "--json",
    ]);
    assert_eq!(v["toggles"]["numa_delay_map"], Value::Bool(true));
    assert_eq!(v["toggles"]["numa_skip_dirty_file"], Value::Bool(false));
}

#[test]
fn compare_varies_kernels_in_the_order_given() {
    let v = json(&["compare", "numa-hint-fault-101", "--kernel", "v5.13,v5.12", "--json"]);
    assert_eq!(v["kernels"], serde_json::json!(["v5.13", "v5.12"]));
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs[0]["toggles"]["numa_delay_map"], Value::Bool(true));
    assert_eq!(runs[1]["toggles"]["numa_delay_map"], Value::Bool(false));
    let ipis = |r: &Value| r["counters"]["irq_tlb_count"].as_u64().unwrap();
    assert!(ipis(&runs[1]) > ipis(&runs[0]), "v5.12 sends the shootdowns v5.13 avoids");
    // A toggle compare on top of a kernel.
    let v = json(&[
        "compare",
        "numa-hint-fault-101",
        "--toggle",
        "numa_delay_map",
        "--kernel",
        "v4.16",
        "--json",
    ]);
    assert_eq!(v["toggle"], "numa_delay_map");
    for r in v["runs"].as_array().unwrap() {
        assert_eq!(r["toggles"]["numa_skip_dirty_file"], Value::Bool(false));
    }
}

/// `mremap_latency_limit` (on = before the patch) became `mremap_pmd_extents` (on = the
/// patch applied): the old id still works on the command line, meaning what it meant,
/// with a note naming the new one.
#[test]
fn the_renamed_mremap_toggle_runs_as_its_successor_with_a_note() {
    let new_id = "mremap_pmd_extents";
    for (old, new) in [("on", false), ("off", true)] {
        let set = format!("mremap_latency_limit={old}");
        let (code, out, err) = mmviz(&["run", "mremap-101", "--set", &set, "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["toggles"][new_id], Value::Bool(new), "{set}");
        assert!(v["toggles"].get("mremap_latency_limit").is_none());
        assert!(
            err.contains("note: toggle `mremap_latency_limit` is now `mremap_pmd_extents`"),
            "{err}"
        );
        assert!(
            err.contains(&format!("runs mremap_pmd_extents={}", if new { "on" } else { "off" })),
            "{err}"
        );
        assert_eq!(err.lines().filter(|l| l.contains("note:")).count(), 1, "{err}");
    }
    // The same run under either id.
    let a = json(&["run", "mremap-101", "--set", "mremap_latency_limit=on", "--json"]);
    let b = json(&["run", "mremap-101", "--set", "mremap_pmd_extents=off", "--json"]);
    assert_eq!(a, b);
    // --toggle with the old id compares the new id's values, off then on.
    let (code, out, err) = mmviz(&["compare", "mremap-101", "--toggle", "mremap_latency_limit", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["toggle"], new_id);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs[0]["toggles"][new_id], Value::Bool(false));
    assert_eq!(runs[1]["toggles"][new_id], Value::Bool(true));
    assert!(
        err.contains("note: toggle `mremap_latency_limit` is now `mremap_pmd_extents`"),
        "{err}"
    );
    // A bad value names the id it was given under.
    let (code, _, err) = mmviz(&["run", "mremap-101", "--set", "mremap_latency_limit=maybe"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`mremap_latency_limit` is on/off, not `maybe`"), "{err}");
}

#[test]
fn a_bad_choice_is_one_line_and_exit_2() {
    for (args, want) in [
        (
            vec!["run", "numa-hint-fault-101", "--kernel", "five"],
            "--kernel: `five` is not a kernel version",
        ),
        (vec!["run", "numa-hint-fault-101", "--preset", "nope"], "unknown preset `nope`"),
        (
            vec!["run", "numa-hint-fault-101", "--set", "numa_delay_map=maybe"],
            "--set numa_delay_map=maybe",
        ),
        (vec!["compare", "numa-hint-fault-101"], "compare needs what to vary"),
        (
            vec![
                "compare",
                "numa-hint-fault-101",
                "--toggle",
                "numa_delay_map",
                "--columns",
                "irq_tlb_count,nope",
            ],
            "--columns: `nope`",
        ),
        (
            vec![
                "compare",
                "numa-hint-fault-101",
                "--toggle",
                "numa_delay_map",
                "--kernel",
                "v5.12,v5.13",
            ],
            "compare varies one thing",
        ),
    ] {
        let (code, _, err) = mmviz(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

/// `--columns` prints the changelog's shape: a row per run, counts relative to the first
/// run, percentages as they are; the default table leaves out counters no run moved.
#[test]
fn compare_columns_print_one_row_per_run() {
    let (code, out, err) = mmviz(&[
        "compare",
        "numa-hint-fault-101",
        "--toggle",
        "numa_delay_map",
        "--columns",
        "irq_tlb_count,numa_pages_migrated,local_hint_fault_pct",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    let cells = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(cells(lines[2]), ["numa_delay_map=off", "100.0", "100.0", "0.0"], "{out}");
    // The patch removes 4 of the 5 shootdowns; the same pages move.
    assert_eq!(cells(lines[3]), ["numa_delay_map=on", "20.0", "100.0", "0.0"], "{out}");
    let (_, table, _) = mmviz(&["compare", "numa-hint-fault-101", "--toggle", "numa_delay_map"]);
    assert!(table.contains("irq_tlb_count") && !table.contains("pgmigrate_fail"), "{table}");
    let (_, all, _) = mmviz(&["compare", "numa-hint-fault-101", "--toggle", "numa_delay_map", "--all"]);
    assert!(all.contains("pgmigrate_fail"), "{all}");
}

#[test]
fn a_reader_that_stops_early_ends_the_output_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    // `mmviz trace pcp-unix-pairs | head -2`: the pipe closes long before the trace ends.
    let mut child = Command::new(env!("CARGO_BIN_EXE_mmviz"))
        .args(["trace", "pcp-unix-pairs"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The read end is dropped here.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_trace_cut_by_limit_is_not_a_run_left_waiting() {
    // The window of a long run stops at --limit with every thread still working: that is
    // the window asked for, not a run that ended with work left (exit 0, nothing on stderr).
    let (code, out, err) = mmviz(&["trace", "pcp-unix-pairs", "--from", "1000", "--limit", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert_eq!(out.lines().count(), 3, "{out}");
}

#[test]
fn profile_lists_kernel_functions_inclusively_and_follows_the_toggle() {
    let time_in = |set: &str, f: &str| -> u64 {
        let v = json(&["run", "numa-hint-fault-101", "--set", set, "--profile", "--json"]);
        v["profile_ns"][f].as_u64().unwrap_or(0)
    };
    // Inclusive: a caller's time holds its callees'.
    let v = json(&["run", "numa-hint-fault-101", "--set", "numa_delay_map=off", "--profile", "--json"]);
    let p = &v["profile_ns"];
    let ns = |f: &str| p[f].as_u64().unwrap();
    assert!(ns("handle_pte_fault") >= ns("do_numa_page"));
    assert!(ns("do_numa_page") >= ns("migrate_misplaced_page"));
    assert!(ns("try_to_unmap") >= ns("try_to_unmap_one"), "{p}");
    assert!(ns("try_to_unmap_one") >= ns("ptep_clear_flush"), "{p}");
    // The whole system time is no more than the sum of the outermost kernel functions'.
    let sys = v["metrics"]["sys_time_ns"].as_f64().unwrap() as u64;
    assert!(ns("handle_pte_fault") <= sys);
    // v5.13 unmaps a PROT_NONE PTE: try_to_unmap no longer waits for a flush.
    assert!(time_in("numa_delay_map=on", "flush_tlb_mm_range") < time_in("numa_delay_map=off", "flush_tlb_mm_range"));
    // Without --profile the JSON has no profile; the text form has the table.
    let v = json(&["run", "numa-hint-fault-101", "--json"]);
    assert!(v.get("profile_ns").is_none());
    let (code, out, err) = mmviz(&["run", "numa-hint-fault-101", "--profile"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("CPU time (inclusive)") && out.contains("  do_numa_page"), "{out}");
    // compare: a column pair per run, and a profile per run in the JSON.
    let (code, out, err) = mmviz(&["compare", "numa-hint-fault-101", "--toggle", "numa_delay_map", "--profile"]);
    assert_eq!(code, 0, "{err}");
    let header = out.lines().find(|l| l.starts_with("CPU time (inclusive)")).unwrap();
    assert!(
        header.contains("numa_delay_map=off") && header.contains("numa_delay_map=on"),
        "{out}"
    );
    let v = json(&[
        "compare",
        "numa-hint-fault-101",
        "--toggle",
        "numa_delay_map",
        "--profile",
        "--json",
    ]);
    for r in v["runs"].as_array().unwrap() {
        assert!(r["profile_ns"]["do_numa_page"].as_u64().unwrap() > 0);
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
fn check_seeds_finds_an_expectation_that_holds_only_at_the_files_seed() {
    let dir = std::env::temp_dir().join(format!("mmviz-seeds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // How many of the 64 pages 60 random accesses touch depends on the seed.
    let probe = dir.join("probe.toml");
    std::fs::write(&probe, random_toucher("")).unwrap();
    let v = json(&["run", probe.to_str().unwrap(), "--json"]);
    let faults = v["counters"]["anon_faults"].as_u64().unwrap();
    let exact = dir.join("exact.toml");
    let text = random_toucher(&format!(
        "[[expect]]\nname = \"as many faults as at seed 1\"\ncounter = \"anon_faults\"\neq = {faults}\n"
    ));
    std::fs::write(&exact, text).unwrap();
    // It holds at the file's seed, so a plain check passes ...
    let (code, out, err) = mmviz(&["check", exact.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    // ... and --seeds names the seeds where it does not.
    let (code, out, _) = mmviz(&["check", "--seeds", "8", exact.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("other seeds: ") && out.contains("fails at seed"), "{out}");
    assert!(out.contains("1 passed, 0 failed; 1 fail at another seed"), "{out}");
    // A band every seed meets holds at all of them.
    let band = dir.join("band.toml");
    std::fs::write(
        &band,
        random_toucher("[[expect]]\nname = \"some faults\"\ncounter = \"anon_faults\"\nmin = 1\nmax = 64\n"),
    )
    .unwrap();
    let (code, out, _) = mmviz(&["check", "--seeds", "8", band.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("other seeds: 7/7 hold"), "{out}");
    // Out of range: a clear message, exit 2.
    let (code, _, err) = mmviz(&["check", "--seeds", "0", band.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_whose_threads_run_out_of_memory_says_so_on_stderr_and_in_json() {
    let dir = std::env::temp_dir().join(format!("mmviz-oom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sound = dir.join("sound.toml");
    std::fs::write(&sound, random_toucher("")).unwrap();
    // The same thread on a node of 16 pages: its heap (64) cannot fit, and the model, with
    // no reclaim, stops the thread at the first fault it cannot serve.
    let small = dir.join("small.toml");
    std::fs::write(&small, random_toucher("").replace("mem_pages = 256", "mem_pages = 16")).unwrap();
    let (code, _, err) = mmviz(&["run", sound.to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (0, ""));
    let v = json(&["run", sound.to_str().unwrap(), "--json"]);
    assert_eq!(v["counters"]["oom_stops"], 0);
    assert!(v.get("warnings").is_none(), "{v}");
    let (code, _, err) = mmviz(&["run", small.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("mmviz: warning: ") && err.contains("1 thread stopped: no node had a free page"),
        "{err}"
    );
    let v = json(&["run", small.to_str().unwrap(), "--json"]);
    assert_eq!(v["counters"]["oom_stops"], 1);
    assert!(v["warnings"][0].as_str().unwrap().contains("`mem_pages`"), "{v}");
    // A comparison names the run the warning is about.
    let (code, _, err) = mmviz(&["compare", small.to_str().unwrap(), "--toggle", "numa_delay_map"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(numa_delay_map=off)") && err.contains("(numa_delay_map=on)"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_names_an_expectation_measured_on_a_run_that_ran_out_of_memory() {
    let dir = std::env::temp_dir().join(format!("mmviz-oom-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let expect = "[[expect]]\nname = \"some faults\"\ncounter = \"anon_faults\"\nmin = 1\n";
    let small = dir.join("small.toml");
    std::fs::write(&small, random_toucher(expect).replace("mem_pages = 256", "mem_pages = 16")).unwrap();
    let (code, out, _) = mmviz(&["check", small.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\n       warning: 1 thread stopped: no node had a free page"), "{out}");
    let sound = dir.join("sound.toml");
    std::fs::write(&sound, random_toucher(expect)).unwrap();
    let (code, out, _) = mmviz(&["check", sound.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("warning"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
