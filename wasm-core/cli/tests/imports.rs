//! `mmviz topology --lscpu`, `mmviz zoneinfo` and `mmviz vmstat` end to end over the engine's
//! real fixtures: JSON equal to the engine's reading (exit 0), a summary, and the `bad-*` inputs
//! (exit 2, one line `mmviz: FILE: line N: ...`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use std::path::PathBuf;
use std::process::Command;

fn fixture(kind: &str, stem: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../engine/tests/fixtures")
        .join(kind)
        .join(format!("{stem}.txt"))
        .to_string_lossy()
        .to_string()
}

fn mmviz(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mmviz")).args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn lscpu_alone_and_merged_with_numactl() {
    let l = fixture("lscpu", "intel-xeon-max-9470c-aurora-hbm");
    let n = fixture("numactl", "intel-xeon-max-9470c-2s-hbm-cpuless");
    let (code, out, err) = mmviz(&["topology", "--lscpu", &l]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(
        out.starts_with("208 CPU(s), 4 NUMA node line(s)\n  node 0: cpus 0-51,104-155\n"),
        "{out}"
    );
    let (code, merged, _) = mmviz(&["topology", "--numactl", &n, "--lscpu", &l, "--json"]);
    let (_, alone, _) = mmviz(&["topology", "--numactl", &n, "--json"]);
    assert_eq!((code, merged), (0, alone));
    // Another machine's lscpu: the line that disagrees, in the lscpu file.
    let other = fixture("lscpu", "intel-xeon-e7-4870-8socket-160cpu");
    let (code, _, err) = mmviz(&["topology", "--numactl", &n, "--lscpu", &other]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("mmviz: {other}: line 22: NUMA node0 CPU(s) 0-9,80-89 differ")),
        "{err}"
    );
    let bad = fixture("lscpu", "bad-cpu-on-two-nodes");
    let (code, _, err) = mmviz(&["topology", "--lscpu", &bad]);
    assert_eq!((code, err.lines().count()), (2, 1));
    assert!(
        err.starts_with(&format!("mmviz: {bad}: line 5: cpu 3 is listed on node 0 and again on node 1")),
        "{err}"
    );
}

#[test]
fn zoneinfo_table_and_errors() {
    let z = fixture("zoneinfo", "pcp-qa-2node-8cpu-kernel5x-per-node-stats");
    let (code, out, _) = mmviz(&["zoneinfo", &z]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("0 ") || l.starts_with("1 ")).count(),
        10,
        "{out}"
    );
    assert!(
        out.contains("(not modelled)") && out.contains("read but not used by the model: per-node stats"),
        "{out}"
    );
    let (code, json, _) = mmviz(&["zoneinfo", &z, "--json"]);
    assert_eq!(code, 0);
    assert!(json.starts_with("{\"zones\":[{\"node\":0,\"name\":\"DMA\""), "{json}");
    let bad = fixture("zoneinfo", "bad-watermark-not-number");
    let (code, _, err) = mmviz(&["zoneinfo", &bad]);
    assert_eq!(code, 2);
    assert_eq!(err, format!("mmviz: {bad}: line 4: `low`: `lots` is not a whole number\n"));
}

#[test]
fn vmstat_delta_rates_and_errors() {
    let before = fixture("vmstat", "devbox-6.18-before");
    let after = fixture("vmstat", "devbox-6.18-after-10s");
    let (code, out, _) = mmviz(&["vmstat", &before, &after, "--interval", "10"]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.starts_with("pgfault ") && l.ends_with("/s")), "{out}");
    assert!(out.trim_end().lines().last().unwrap().contains("counter(s) in both"), "{out}");
    let bad = fixture("vmstat", "bad-markup-line");
    let (code, _, err) = mmviz(&["vmstat", &before, &bad]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("mmviz: {bad}: line 3: after: cannot read `<script>")),
        "{err}"
    );
    let (code, _, err) = mmviz(&["vmstat", &bad, &after]);
    assert_eq!(code, 2);
    assert!(err.starts_with(&format!("mmviz: {bad}: line 3: before: ")), "{err}");
    let (code, _, err) = mmviz(&["vmstat", &before, &after, "--interval", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--interval 0: expected seconds above 0"), "{err}");
}

#[test]
fn zoneinfo_with_numactl_prints_what_a_run_takes() {
    let z = fixture("zoneinfo", "pcp-qa-2node-8cpu-kernel5x-per-node-stats");
    let n = fixture("numactl", "pcp-qa-2node-8cpu-for-zoneinfo");
    let (code, out, err) = mmviz(&["zoneinfo", &z, "--numactl", &n, "--mem-scale", "32"]);
    assert_eq!(code, 0, "{err}");
    // Node 0: DMA + DMA32 + Normal, 1,015,248 pages / 32; watermarks summed / 32; Normal's
    // pagesets as printed, high_max derived (*).
    let row = out.lines().find(|l| l.starts_with("0 ")).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        vec![
            "0",
            "DMA+DMA32+Normal",
            "1015248",
            "31726",
            "349/437/524",
            "Normal",
            "63",
            "1764/15863*"
        ],
        "{out}"
    );
    let (code, json, _) = mmviz(&["zoneinfo", &z, "--numactl", &n, "--mem-scale", "32", "--json"]);
    assert_eq!(code, 0);
    assert!(
        json.starts_with("[{\"node\":0,\"zones\":[\"DMA\",\"DMA32\",\"Normal\"],\"managed\":1015248"),
        "{json}"
    );
    // Another machine's numactl: the zoneinfo line named, exit 2.
    let other = fixture("numactl", "aws-c5n-18xlarge-2s-intel-72cpu");
    let (code, _, err) = mmviz(&["zoneinfo", &z, "--numactl", &other]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "mmviz: {z}: line 1: node 0's zones manage 1015248 pages (3965 MB) but numactl says 94590 MB"
        )),
        "{err}"
    );
}
