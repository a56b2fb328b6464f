//! The short fuzz run, on stable and without libFuzzer: the committed seed corpus and the
//! regression inputs of `wasm-core/fuzz` (each finding's input, kept after its fix) replayed
//! through the fuzz targets ([`mmviz_engine::fuzzing`]), and a property test per reader with a
//! bounded case count that feeds it damaged real inputs and text from the reader's own words.
//! The long runs are libFuzzer's (`wasm-core/fuzz/README.md`; figures in BENCHMARKS.md).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::fuzzing;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

type Target = fn(&[u8]);

const TARGETS: &[(&str, Target)] = &[
    ("scenario", fuzzing::scenario),
    ("link", fuzzing::link),
    ("numactl", fuzzing::numactl),
    ("lscpu", fuzzing::lscpu),
    ("zoneinfo", fuzzing::zoneinfo),
    ("vmstat", fuzzing::vmstat),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
    out.sort();
    out
}

/// Runs `target` on `data`, naming `what` when it panics.
fn replay(name: &str, target: Target, what: &str, data: &[u8]) {
    if let Err(e) = std::panic::catch_unwind(|| target(data)) {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("fuzz target {name} fails on {what}: {msg}");
    }
}

#[test]
fn the_committed_corpus_and_every_regression_input_replay_cleanly() {
    for (name, target) in TARGETS {
        let seeds = files(&fuzz_dir().join("seeds").join(name));
        assert!(
            seeds.len() >= 5,
            "{name}: only {} seed inputs in wasm-core/fuzz/seeds/{name}",
            seeds.len()
        );
        let regressions = files(&fuzz_dir().join("regressions").join(name));
        for p in seeds.iter().chain(&regressions) {
            let data = std::fs::read(p).unwrap();
            replay(name, *target, &p.display().to_string(), &data);
        }
    }
}

/// A pseudo-random edit of a real input: `ops` say where to cut, copy or insert one of
/// `words` (the reader's own vocabulary and numbers at the edges of its types and limits).
fn damage(text: &str, words: &[&str], ops: &[(u16, u16, u8)]) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for &(at, arg, kind) in ops {
        let at = if s.is_empty() { 0 } else { usize::from(at) % (s.len() + 1) };
        match kind % 5 {
            0 => {
                let end = (at + usize::from(arg) % 64).min(s.len());
                s.drain(at..end);
            }
            1 | 2 => {
                let w = words[usize::from(arg) % words.len()];
                s.splice(at..at, w.chars());
            }
            3 => {
                // Repeat a line: the same node, CPU or counter twice.
                let start = s[..at].iter().rposition(|&c| c == '\n').map_or(0, |i| i + 1);
                let end = s[at..].iter().position(|&c| c == '\n').map_or(s.len(), |i| at + i + 1);
                let line: Vec<char> = s[start..end].to_vec();
                s.splice(end..end, line);
            }
            _ => {
                // Replace the number at `at` by one of the edge numbers.
                let edges = [
                    "0",
                    "1",
                    "255",
                    "256",
                    "4294967295",
                    "4294967296",
                    "18446744073709551615",
                    "-1",
                    "99999999999999999999",
                ];
                let mut end = at;
                while end < s.len() && s[end].is_ascii_digit() {
                    end += 1;
                }
                s.splice(at..end, edges[usize::from(arg) % edges.len()].chars());
            }
        }
    }
    s.into_iter().collect()
}

fn fixtures(kind: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(kind);
    files(&dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt") && !p.to_string_lossy().ends_with(".expected-error.txt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

fn scenario_texts() -> Vec<String> {
    mmviz_engine::builtin::BUILTINS.iter().map(|b| b.text.to_string()).collect()
}

fn edits() -> impl Strategy<Value = Vec<(u16, u16, u8)>> {
    proptest::collection::vec((any::<u16>(), any::<u16>(), any::<u8>()), 1..8)
}

const NUMACTL_WORDS: &[&str] = &[
    "node ",
    " cpus: ",
    " size: ",
    " free: ",
    " MB",
    "node distances:\n",
    "available: ",
    " nodes (0-1)",
    "\n",
    "0-255",
    "0-4095",
    ",",
    "-",
    " 10",
    " 21",
    "  0:",
    "\u{fffd}",
    "```",
    "$ numactl -H\n",
    "No distance information available.\n",
];
const LSCPU_WORDS: &[&str] = &[
    "CPU(s):",
    "NUMA node(s):",
    "NUMA node0 CPU(s):",
    "NUMA node7 CPU(s):",
    "Socket(s):",
    "Core(s) per socket:",
    "Thread(s) per core:",
    "L3 cache:",
    "L2:",
    "Caches (sum of all):\n",
    " 32 MiB (2 instances)",
    " 1.5 MiB",
    "K",
    "(",
    ")",
    "0-255",
    "0-300",
    "\n",
    ",",
    "...\n",
    "\u{2026}",
];
const ZONEINFO_WORDS: &[&str] = &[
    "Node 0, zone   Normal\n",
    "Node 1, zone      DMA\n",
    "Node 2, zone  Movable\n",
    "  pages free     ",
    "        min      ",
    "        low      ",
    "        high     ",
    "        spanned  ",
    "        present  ",
    "        managed  ",
    "  pagesets\n",
    "    cpu: 0\n",
    "              count: ",
    "              high:  ",
    "              batch: ",
    "  vm stats threshold: ",
    "per-node stats\n",
    "protection: (0, 0, 0)",
    "\n",
    " ",
];
const VMSTAT_WORDS: &[&str] = &[
    "nr_free_pages ",
    "numa_hit ",
    "numa_miss ",
    "pgfault ",
    "nr_tlb_remote_flush ",
    "numa_pages_migrated ",
    "pgmigrate_success ",
    "\n",
    "<b>",
    " ",
    "-5",
    "18446744073709551615",
];
const SCENARIO_WORDS: &[&str] = &[
    "\n[[process]]\nname = \"x\"\n",
    "\n[[process.thread]]\ncpu = 0\n",
    "\n[[process.vma]]\nname = \"h\"\npages = 4\n",
    "count = 1024\n",
    "mem_pages = 67108864\n",
    "nr_cpus = 1024\n",
    "\"$pages\"",
    "\"{i}\"",
    "\"{p} / 0\"",
    " = \"8 * $pages * $pages\"",
    "{ op = \"touch\", vma = \"h\" }",
    "{ op = \"loop\" }",
    "{ op = \"fork\", child = \"x\" }",
    "max_steps = 4294967297\n",
    "window_ms = 1\n",
    "[toggles]\nnuma_delay_map = true\n",
    "kernel = \"v99.99\"\n",
    "{cpu app/9}",
    "'''\n",
    "\"",
    "[",
    "]",
    "=",
    "\n",
];

fn words_text(words: &'static [&'static str]) -> impl Strategy<Value = String> {
    proptest::collection::vec((0..words.len(), 0u32..300), 0..60).prop_map(move |v| {
        v.into_iter()
            .map(|(i, n)| if n < 200 { words[i].to_string() } else { n.to_string() })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, rng_seed: proptest::test_runner::RngSeed::Fixed(34), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn numactl_damaged_or_made_of_its_words_reads_or_names_a_line(which in any::<usize>(), ops in edits(), words in words_text(NUMACTL_WORDS)) {
        let all = fixtures("numactl");
        fuzzing::numactl(damage(&all[which % all.len()], NUMACTL_WORDS, &ops).as_bytes());
        fuzzing::numactl(words.as_bytes());
    }

    #[test]
    fn lscpu_damaged_or_made_of_its_words_reads_or_names_a_line(which in any::<usize>(), ops in edits(), words in words_text(LSCPU_WORDS)) {
        let all = fixtures("lscpu");
        fuzzing::lscpu(damage(&all[which % all.len()], LSCPU_WORDS, &ops).as_bytes());
        fuzzing::lscpu(words.as_bytes());
        // Merged into a numactl machine of the same host.
        let n = fixtures("numactl");
        let merged = format!("{}\0{}", n[which % n.len()], damage(&all[which % all.len()], LSCPU_WORDS, &ops));
        fuzzing::numactl(merged.as_bytes());
    }

    #[test]
    fn zoneinfo_damaged_or_made_of_its_words_reads_or_names_a_line(which in any::<usize>(), ops in edits(), words in words_text(ZONEINFO_WORDS), scale in 1u32..512) {
        let all = fixtures("zoneinfo");
        let z = damage(&all[which % all.len()], ZONEINFO_WORDS, &ops);
        fuzzing::zoneinfo(z.as_bytes());
        fuzzing::zoneinfo(words.as_bytes());
        let n = fixtures("numactl");
        fuzzing::zoneinfo(format!("{z}\0{}\0{scale}", n[which % n.len()]).as_bytes());
    }

    #[test]
    fn vmstat_damaged_or_made_of_its_words_reads_or_names_a_line(which in any::<usize>(), ops in edits(), words in words_text(VMSTAT_WORDS)) {
        let all = fixtures("vmstat");
        let before = &all[which % all.len()];
        fuzzing::vmstat(format!("{before}\0{}", damage(before, VMSTAT_WORDS, &ops)).as_bytes());
        fuzzing::vmstat(words.as_bytes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, rng_seed: proptest::test_runner::RngSeed::Fixed(34), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_damaged_scenario_parses_or_names_a_line(which in any::<usize>(), ops in edits()) {
        let all = scenario_texts();
        fuzzing::scenario(damage(&all[which % all.len()], SCENARIO_WORDS, &ops).as_bytes());
    }

    #[test]
    fn a_damaged_link_reads_or_is_refused(which in any::<usize>(), ops in edits(), toggle in any::<usize>(), value in "(true|false|on|off|[a-z_]{1,12}|-?[0-9]{1,22})") {
        let ids: Vec<&str> = mmviz_engine::patches::registry().iter().map(|p| p.id).collect();
        let small: Vec<&str> = mmviz_engine::builtin::BUILTINS.iter().map(|b| b.id).filter(|id| id.ends_with("-101")).collect();
        let link = format!(
            "v=2&sc={}&t.{}={value}&p.pages={value}&sched=0:1,{value}:0&seed={value}&step=40",
            small[which % small.len()],
            ids[toggle % ids.len()]
        );
        let words = ["&", "=", "%", "%2", "%zz", "%E2%82", "ab=t.", "ab=k:v5.4,", "ab=p:", "sched=", ":", ",", "s=format%20%3D%201"];
        fuzzing::link(damage(&link, &words, &ops).as_bytes());
    }
}
