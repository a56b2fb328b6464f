//! `mmviz topology --numactl FILE [--json]` end to end: the binary over the engine's
//! numactl fixtures (JSON as expected, exit 0), the `bad-*` ones (exit 2, one line
//! `mmviz: FILE: line N: ...`), and `-` for stdin.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/numactl")
}

fn mmviz(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mmviz"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn every_fixture_exits_as_expected() {
    let mut seen = 0;
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".txt") || name.contains(".expected") {
            continue;
        }
        seen += 1;
        let stem = name.trim_end_matches(".txt");
        let file = path.to_string_lossy().to_string();
        let (code, out, err) = mmviz(&["topology", "--numactl", &file, "--json"], None);
        if stem.starts_with("bad-") {
            let want = std::fs::read_to_string(dir().join(format!("{stem}.expected-error.txt"))).unwrap();
            assert_eq!(code, 2, "{name}");
            assert_eq!(err, format!("mmviz: {file}: {want}"), "{name}");
            assert_eq!(err.lines().count(), 1, "{name}");
            assert!(out.is_empty(), "{name}");
        } else {
            let want = std::fs::read_to_string(dir().join(format!("{stem}.expected.json"))).unwrap();
            assert_eq!((code, out, err), (0, want, String::new()), "{name}");
            // The summary runs too.
            let (code, out, _) = mmviz(&["topology", "--numactl", &file], None);
            assert_eq!(code, 0, "{name}");
            assert!(out.contains("node(s)"), "{name}: {out}");
        }
    }
    assert!(seen >= 21, "{seen} fixtures");
}

#[test]
fn stdin_and_broken_input() {
    let text = std::fs::read_to_string(dir().join("single-node-8cpu-nodejs-bench.txt")).unwrap();
    let (code, out, _) = mmviz(&["topology", "--numactl", "-", "--json"], Some(&text));
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "{\"nodes\":[{\"id\":0,\"cpus\":[0,1,2,3,4,5,6,7],\"size_mb\":7957,\"free_mb\":2821}],\"distances\":[[10]]}\n"
    );
    let (code, out, _) = mmviz(&["topology", "--numactl", "-"], Some(&text));
    assert_eq!(code, 0);
    assert!(out.contains("node 0: cpus 0-7; 7957 MB, 2821 MB free"), "{out}");
    for (broken, line) in [
        ("", 1),
        ("node 0 cpus: 0 1\nnode 0 size: 12 GB\n", 2),
        ("node 0 size: 1 MB\n\u{fffd}\u{0}garbage\n", 2),
        ("node 0 size: 1 MB\nnode distances:\nnode 0 1\n0: 10 20\n", 3),
    ] {
        let (code, out, err) = mmviz(&["topology", "--numactl", "-"], Some(broken));
        assert_eq!(code, 2, "{broken:?}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("mmviz: -: line {line}: ")), "{broken:?}: {err}");
    }
}
