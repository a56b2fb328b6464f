//! The importers of pasted `lscpu`, `/proc/zoneinfo` and `/proc/vmstat` over every real
//! sample in `tests/fixtures/{lscpu,zoneinfo,vmstat}/` (see each README for the sources) and
//! the hand-made bad inputs: each parses to its blessed JSON or fails with its blessed
//! `line N: ...`; the real samples have the machines their READMEs describe; re-formatting
//! a sample as pastes damage it (CRLF, `> ` quoting, a prompt, lost indentation) reads the same.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::{lscpu, numactl, vmstat, zoneinfo};
use std::path::PathBuf;

fn dir(kind: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(kind)
}

fn read(kind: &str, stem: &str) -> String {
    std::fs::read_to_string(dir(kind).join(format!("{stem}.txt"))).unwrap()
}

/// `(stem, text)` of every fixture of a kind, sorted.
fn fixtures(kind: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir(kind))
        .expect("fixture folder exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt") && !p.to_string_lossy().contains(".expected"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            (stem, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect();
    out.sort();
    out
}

/// Each fixture against its blessed outcome (`BLESS=1` rewrites them).
fn check(kind: &str, min: usize, outcome: impl Fn(&str, &str) -> (bool, String)) {
    let bless = std::env::var_os("BLESS").is_some();
    let all = fixtures(kind);
    assert!(all.len() >= min, "{kind}: fixtures missing: {}", all.len());
    for (stem, text) in &all {
        let (ok, got) = outcome(stem, text);
        assert_eq!(ok, !stem.starts_with("bad-"), "{kind}/{stem}: {got}");
        let path = dir(kind).join(if ok {
            format!("{stem}.expected.json")
        } else {
            format!("{stem}.expected-error.txt")
        });
        if bless {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1)", path.display()));
        assert_eq!(got, want, "{kind}/{stem}");
    }
}

fn json<T: serde::Serialize, E: std::fmt::Display>(r: Result<T, E>) -> (bool, String) {
    match r {
        Ok(v) => (true, serde_json::to_string_pretty(&v).unwrap() + "\n"),
        Err(e) => (false, format!("{e}\n")),
    }
}

/// The runs of a vmstat file that holds two (split at the second run's heading), or the whole file.
fn vmstat_runs(stem: &str, text: &str) -> Vec<String> {
    let marker = match stem {
        "intel-dram-pmem-tiering-mglru-v9-excerpt" => "MGLRU enabled",
        "qemu-16vcpu-tiering-v6.6-rc5-nr_tlb-excerpt" => "commit applied",
        _ => return vec![text.to_string()],
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let at = lines.iter().position(|l| l.contains(marker)).unwrap();
    // The heading starts at the rule line above the marker, when there is one.
    let at = if at > 0 && lines[at - 1].trim().starts_with("---") {
        at - 1
    } else {
        at
    };
    vec![lines[..at].concat(), lines[at..].concat()]
}

#[test]
fn lscpu_fixtures_match_their_expected_output() {
    check("lscpu", 4 + 2, |_, t| json(lscpu::parse(t)));
}

#[test]
fn zoneinfo_fixtures_match_their_expected_output() {
    check("zoneinfo", 4 + 1, |_, t| json(zoneinfo::parse(t)));
}

#[test]
fn vmstat_fixtures_match_their_expected_output() {
    check("vmstat", 6 + 2, |stem, t| {
        let runs: Result<Vec<_>, _> = vmstat_runs(stem, t).iter().map(|r| vmstat::parse(r)).collect();
        json(runs)
    });
}

#[test]
fn lscpu_real_samples_have_the_machines_the_readme_describes() {
    let cpus = |l: &lscpu::Lscpu| l.nodes.iter().map(|n| n.cpus.len()).collect::<Vec<_>>();
    let l = lscpu::parse(&read("lscpu", "intel-xeon-e7-4870-8socket-160cpu")).unwrap();
    assert_eq!((l.cpus, l.sockets, l.numa_nodes), (Some(160), Some(8), Some(8)));
    assert_eq!(cpus(&l), vec![20; 8]);
    assert_eq!(l.nodes[7].cpus.first(), Some(&70));
    // 30720K per socket x 8 sockets / 160 CPUs.
    assert_eq!(l.llc_slice_kb, Some(30720 * 8 / 160));
    let l = lscpu::parse(&read("lscpu", "intel-xeon-max-9470c-aurora-hbm")).unwrap();
    assert_eq!(
        (l.cpus, l.sockets, l.cores_per_socket, l.threads_per_core),
        (Some(208), Some(2), Some(52), Some(2))
    );
    assert_eq!(cpus(&l), vec![104, 104, 0, 0]);
    assert_eq!(l.model_name.as_deref(), Some("Intel(R) Xeon(R) CPU Max 9470C"));
    let l = lscpu::parse(&read("lscpu", "amd-epyc-2s-64c-nps4-snippet")).unwrap();
    assert_eq!((l.cpus, l.numa_nodes), (None, Some(8)));
    assert_eq!(cpus(&l), vec![32; 8]);
    let l = lscpu::parse(&read("lscpu", "laptop-hp-pavilion-aero13-ryzen7-5800u")).unwrap();
    assert_eq!((l.cpus, l.numa_nodes), (Some(16), Some(1)));
    assert_eq!(cpus(&l), vec![16]);
    // L3: 16 MiB (1 instance) over 16 CPUs.
    assert_eq!(l.llc_slice_kb, Some(1024));
    assert_eq!(
        l.caches.iter().map(|c| c.level.as_str()).collect::<Vec<_>>(),
        vec!["L1d", "L1i", "L2", "L3"]
    );
}

#[test]
fn lscpu_merges_into_the_numactl_machine_of_the_same_host() {
    let hw = numactl::parse(&read("numactl", "intel-xeon-max-9470c-2s-hbm-cpuless")).unwrap();
    let l = lscpu::parse(&read("lscpu", "intel-xeon-max-9470c-aurora-hbm")).unwrap();
    assert_eq!(lscpu::merge(&hw, &l).unwrap(), hw);
    // numactl without CPU lists takes lscpu's.
    let mut bare = hw.clone();
    for n in &mut bare.nodes {
        n.cpus.clear();
    }
    assert_eq!(lscpu::merge(&bare, &l).unwrap(), hw);
    let hw = numactl::parse(&read("numactl", "amd-epyc-2s-64c-nps4-256cpu")).unwrap();
    let l = lscpu::parse(&read("lscpu", "amd-epyc-2s-64c-nps4-snippet")).unwrap();
    assert_eq!(lscpu::merge(&hw, &l).unwrap(), hw);
    // Two machines: the first node line that disagrees is named.
    let other = lscpu::parse(&read("lscpu", "intel-xeon-e7-4870-8socket-160cpu")).unwrap();
    let e = lscpu::merge(&hw, &other).unwrap_err();
    assert_eq!(e.line, 22, "{e}");
    assert!(e.message.contains("differ"), "{e}");
}

#[test]
fn zoneinfo_real_samples_have_the_zones_the_readme_describes() {
    let names = |z: &zoneinfo::Zoneinfo| z.zones.iter().map(|z| format!("{}:{}", z.node, z.name)).collect::<Vec<_>>();
    let z = zoneinfo::parse(&read("zoneinfo", "ppc64-2node-hotplug-movable-node1-v4.11")).unwrap();
    assert_eq!(names(&z), vec!["0:DMA", "1:Movable"]);
    assert_eq!(
        (z.zones[0].free, z.zones[0].min, z.zones[0].low, z.zones[0].high),
        (Some(53520), 63, 128, 193)
    );
    assert_eq!(z.zones[0].pagesets.len(), 1);
    assert!(z.zones[1].model.is_none(), "no Movable zone in the model");
    let z = zoneinfo::parse(&read("zoneinfo", "arm32-4cpu-highmem-v4.14")).unwrap();
    assert_eq!(names(&z), vec!["0:DMA", "0:Normal", "0:HighMem", "0:Movable"]);
    assert_eq!(
        z.zones[0].pagesets[0],
        zoneinfo::Pageset {
            cpu: 0,
            count: 16,
            high: 186,
            batch: 31,
            high_min: None,
            high_max: None
        }
    );
    assert_eq!(z.zones[0].pagesets.len(), 4);
    let z = zoneinfo::parse(&read("zoneinfo", "pcp-qa-xeon-e5-2690-2node-32cpu-kernel4x")).unwrap();
    assert_eq!(names(&z), vec!["0:DMA", "0:DMA32", "0:Normal", "1:Normal"]);
    assert!(z.zones.iter().all(|z| z.pagesets.len() == 32));
    let z = zoneinfo::parse(&read("zoneinfo", "pcp-qa-2node-8cpu-kernel5x-per-node-stats")).unwrap();
    assert_eq!(z.zones.len(), 10);
    assert_eq!(
        (z.zones[0].min, z.zones[0].low, z.zones[0].high, z.zones[0].managed),
        (42, 52, 62, Some(3840))
    );
    assert!(z.unused.iter().any(|u| u == "per-node stats") && z.unused.iter().any(|u| u == "cma"));
}

#[test]
fn zoneinfo_real_gaps_between_watermarks_follow_the_models_formula() {
    // The engine's `watermarks` puts low and high `tmp = max(min / 4, managed * 10 / 10000)`
    // apart (watermark_scale_factor 10, v4.6+). On the real zones of kernels that have it, the
    // printed gaps are exactly that, whatever min the machine chose. The mins themselves are
    // often above the model's: THP raises min_free_kbytes (khugepaged's
    // set_recommended_min_free_kbytes), which the lab shows beside the model's value.
    for stem in [
        "pcp-qa-2node-8cpu-kernel5x-per-node-stats",
        "ppc64-2node-hotplug-movable-node1-v4.11",
    ] {
        let z = zoneinfo::parse(&read("zoneinfo", stem)).unwrap();
        let mut checked = 0;
        for zone in z.zones.iter().filter(|z| z.managed.unwrap_or(0) > 0) {
            let tmp = (zone.min / 4).max(zone.managed.unwrap() * 10 / 10_000);
            assert_eq!(
                (zone.low - zone.min, zone.high - zone.low),
                (tmp, tmp),
                "{stem} node {} {}",
                zone.node,
                zone.name
            );
            checked += 1;
        }
        assert!(checked >= 2, "{stem}");
    }
    // Kernel 4.x before watermark_scale_factor: low = min + min / 4.
    let z = zoneinfo::parse(&read("zoneinfo", "pcp-qa-xeon-e5-2690-2node-32cpu-kernel4x")).unwrap();
    let normal: Vec<_> = z.zones.iter().filter(|z| z.name == "Normal").collect();
    assert!(normal.iter().all(|z| z.low - z.min == z.min / 4), "{normal:?}");
    // The model's column: lowmem zones only, from the lowmem pages pasted.
    assert!(z.zones.iter().all(|z| z.model.is_some()));
    assert_eq!(z.lowmem_managed, z.zones.iter().filter_map(|z| z.managed).sum::<u64>());
}

#[test]
fn vmstat_real_samples_and_their_deltas() {
    let c = vmstat::parse(&read("vmstat", "pcp-qa-xeon-e5-2690-2node-32cpu-kernel4x")).unwrap();
    assert_eq!(c.len(), 114);
    assert_eq!(c.iter().find(|c| c.name == "numa_hint_faults").map(|c| c.value), Some(123_649_353));
    let c = vmstat::parse(&read("vmstat", "pcp-qa-2node-8cpu-kernel5x")).unwrap();
    assert_eq!(c.len(), 159);
    let t = read("vmstat", "qemu-16vcpu-tiering-v6.6-rc5-nr_tlb-excerpt");
    let runs = vmstat_runs("qemu-16vcpu-tiering-v6.6-rc5-nr_tlb-excerpt", &t);
    let d = vmstat::delta(&runs[0], &runs[1]).unwrap();
    assert_eq!(d.changes.len(), 20);
    let flush = d.changes.iter().find(|c| c.name == "nr_tlb_remote_flush").unwrap();
    assert_eq!(
        (flush.before, flush.after, flush.delta),
        (8_080_092, 2_151_945, 2_151_945 - 8_080_092)
    );
    // Two snapshots of the development machine 10 s apart.
    let d = vmstat::delta(&read("vmstat", "devbox-6.18-before"), &read("vmstat", "devbox-6.18-after-10s")).unwrap();
    assert!(d.changes.len() > 150, "{}", d.changes.len());
    assert!(d.changes.iter().find(|c| c.name == "pgfault").unwrap().delta > 0);
}

/// Paste damage that must not change what is read: CRLF, `> ` quoting, a prompt above.
fn damaged(text: &str, prompt: &str) -> Vec<String> {
    vec![
        text.replace('\n', "\r\n"),
        text.lines().map(|l| format!("> {l}\n")).collect(),
        format!("{prompt}\n{text}"),
    ]
}

#[test]
fn paste_damage_reads_the_same() {
    for (stem, text) in fixtures("lscpu").into_iter().filter(|(s, _)| !s.starts_with("bad-")) {
        let want = lscpu::parse(&text).unwrap();
        for t in damaged(&text, "user@host:~$ lscpu") {
            let got = lscpu::parse(&t).unwrap_or_else(|e| panic!("{stem}: {e}"));
            assert_eq!(
                (
                    got.cpus,
                    got.caches.clone(),
                    got.nodes.iter().map(|n| n.cpus.clone()).collect::<Vec<_>>()
                ),
                (
                    want.cpus,
                    want.caches.clone(),
                    want.nodes.iter().map(|n| n.cpus.clone()).collect::<Vec<_>>()
                ),
                "{stem}"
            );
        }
    }
    for (stem, text) in fixtures("zoneinfo").into_iter().filter(|(s, _)| !s.starts_with("bad-")) {
        let want = zoneinfo::parse(&text).unwrap();
        let mut variants = damaged(&text, "$ cat /proc/zoneinfo");
        variants.push(text.lines().map(|l| format!("{}\n", l.trim())).collect());
        for t in variants {
            let mut got = zoneinfo::parse(&t).unwrap_or_else(|e| panic!("{stem}: {e}"));
            for (g, w) in got.zones.iter_mut().zip(&want.zones) {
                g.line = w.line;
            }
            assert_eq!(got, want, "{stem}");
        }
    }
    for (stem, text) in fixtures("vmstat").into_iter().filter(|(s, _)| !s.starts_with("bad-")) {
        for run in vmstat_runs(&stem, &text) {
            let names = |c: Vec<vmstat::Counter>| c.into_iter().map(|c| (c.name, c.value)).collect::<Vec<_>>();
            let want = names(vmstat::parse(&run).unwrap());
            for t in damaged(&run, "$ cat /proc/vmstat") {
                assert_eq!(names(vmstat::parse(&t).unwrap_or_else(|e| panic!("{stem}: {e}"))), want, "{stem}");
            }
        }
    }
}
