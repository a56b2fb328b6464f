//! `numactl --hardware` parsing over the fixtures in `tests/fixtures/numactl/` (real
//! outputs and hand-made edge cases; see its README.md), and a property: re-formatting
//! the text (spacing, tabs, CRLF, blank lines, hard-wrapped lists) parses the same.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::numactl::{self, parse};
use proptest::prelude::*;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/numactl")
}

/// `(stem, text)` of every fixture, sorted.
fn fixtures() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir())
        .expect("fixtures/numactl exists")
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

/// What each fixture parses to: the JSON `mmviz topology --json` prints, or the error.
fn outcome(text: &str) -> (bool, String) {
    match parse(text) {
        Ok(h) => (true, serde_json::to_string(&h).unwrap() + "\n"),
        Err(e) => (false, format!("{e}\n")),
    }
}

#[test]
fn fixtures_match_their_expected_output() {
    let bless = std::env::var_os("BLESS").is_some();
    let all = fixtures();
    assert!(all.len() >= 6 + 7 + 8, "fixtures missing: {}", all.len());
    for (stem, text) in &all {
        let (ok, got) = outcome(text);
        let json = dir().join(format!("{stem}.expected.json"));
        let error = dir().join(format!("{stem}.expected-error.txt"));
        assert_eq!(ok, !stem.starts_with("bad-"), "{stem}: {got}");
        let path = if ok { json } else { error };
        if bless {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1)", path.display()));
        assert_eq!(got, want, "{stem}");
    }
}

#[test]
fn real_samples_have_the_machines_the_readme_describes() {
    let get = |stem: &str| parse(&std::fs::read_to_string(dir().join(format!("{stem}.txt"))).unwrap()).unwrap();
    let cpus = |h: &numactl::NumaHardware| h.nodes.iter().map(|n| n.cpus.len()).collect::<Vec<_>>();
    let h = get("intel-xeon-max-9470c-2s-hbm-cpuless");
    assert_eq!(cpus(&h), vec![104, 104, 0, 0]);
    assert_eq!(h.nodes[2].size_mb, 65536);
    assert_eq!(h.distances.as_ref().unwrap()[0], vec![10, 21, 13, 23]);
    let h = get("amd-epyc-2s-64c-nps4-256cpu");
    assert_eq!(cpus(&h), vec![32; 8]);
    assert_eq!(h.distances.as_ref().unwrap()[4], vec![32, 32, 32, 32, 10, 12, 12, 12]);
    let h = get("intel-2s-cxl-expander-3node");
    assert_eq!(cpus(&h), vec![64, 64, 0]);
    assert_eq!(h.distances.as_ref().unwrap()[2], vec![24, 14, 10]);
    let h = get("intel-2s-optane-pmem-kmemdax-4node");
    assert_eq!(cpus(&h), vec![48, 48, 0, 0]);
    assert_eq!(h.nodes[3].free_mb, Some(1521664));
    let h = get("single-node-8cpu-nodejs-bench");
    assert_eq!(cpus(&h), vec![8]);
    assert_eq!(h.distances, Some(vec![vec![10]]));
    let h = get("aws-c5n-18xlarge-2s-intel-72cpu");
    assert_eq!(cpus(&h), vec![36, 36]);
    assert_eq!(h.nodes[1].size_mb, 94710);
}

/// A small deterministic generator (the proptest case supplies the seed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.next(xs.len() as u64) as usize]
    }
}

/// The same listing as a sloppier paste: random spacing and tabs, CRLF, blank lines,
/// and `cpus:` lists, distance headers and rows hard-wrapped at random points.
fn reformat(text: &str, seed: u64) -> String {
    let mut r = Lcg(seed);
    let mut out = String::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        // Where the numbers that may wrap start: after `cpus:` or after a row's `N:`.
        let wrap_from = words
            .iter()
            .position(|w| *w == "cpus:" || (w.ends_with(':') && w[..w.len() - 1].chars().all(|c| c.is_ascii_digit())))
            .map(|i| i + 1)
            // The distance header `node 0 1 2 3` wraps after its first id.
            .or_else(|| (words.len() > 2 && words[0] == "node" && words[1..].iter().all(|w| w.parse::<u32>().is_ok())).then_some(2));
        out.push_str(r.pick(&["", " ", "\t", "   "]));
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                let wrap = wrap_from.is_some_and(|f| i >= f) && r.next(4) == 0;
                if wrap {
                    out.push_str(r.pick(&["\n", "\r\n", " \n", "\r\n  "]));
                    out.push_str(r.pick(&["", " ", "\t"]));
                } else {
                    out.push_str(r.pick(&[" ", "  ", "\t", " \t "]));
                }
            }
            out.push_str(w);
        }
        out.push_str(r.pick(&["", " ", "  ", "\t"]));
        out.push_str(r.pick(&["\n", "\r\n"]));
        if r.next(6) == 0 {
            out.push_str(r.pick(&["\n", "\r\n", "  \n"]));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn reformatting_parses_the_same(seed in any::<u64>()) {
        for (stem, text) in fixtures() {
            if stem.starts_with("bad-") {
                continue;
            }
            let messy = reformat(&text, seed);
            prop_assert_eq!(parse(&messy), parse(&text), "{}:\n{}", stem, messy);
        }
    }
}

#[test]
fn reformat_really_wraps() {
    let text = std::fs::read_to_string(dir().join("amd-epyc-2s-64c-nps4-256cpu.txt")).unwrap();
    let messy = reformat(&text, 7);
    assert!(messy.lines().count() > text.lines().count() + 10);
    assert!(messy.contains('\r') && messy.contains('\t'));
}

/// An error names a line that exists (1 for empty text).
fn line_in_range(text: &str) -> Result<(), TestCaseError> {
    if let Err(e) = parse(text) {
        let lines = text.lines().count().max(1);
        prop_assert!(e.line >= 1 && e.line <= lines, "line {} of {}: {}", e.line, lines, e);
        prop_assert!(!e.message.contains('\n'), "{}", e.message);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Never a panic on any text, and an error names a real line.
    #[test]
    fn any_text_parses_or_names_a_line(text in "(node |cpus: |size: |free: |MB|distances:|available: |[0-9]{1,3}|[-,: \t\r\n]|[a-z]|\u{fffd}){0,80}") {
        line_in_range(&text)?;
    }

    /// Damaged real outputs (a line dropped, repeated or cut short) parse or name a real line.
    #[test]
    fn damaged_fixtures_parse_or_name_a_line(seed in any::<u64>()) {
        let mut r = Lcg(seed);
        for (_, text) in fixtures() {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            let i = r.next(lines.len() as u64) as usize;
            match r.next(3) {
                0 => { lines.remove(i); }
                1 => { let l = lines[i].clone(); lines.insert(i, l); }
                _ => { let cut = r.next(lines[i].len() as u64 + 1) as usize; lines[i] = lines[i].chars().take(cut).collect(); }
            }
            line_in_range(&lines.join("\n"))?;
        }
    }
}
