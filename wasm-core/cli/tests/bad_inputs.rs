//! The bad-input catalogue of the command line: scenario files, params, flags and pasted
//! machine output that are wrong in every way people get them wrong (syntax, types, unknown
//! ids, absurd sizes, empty, binary, 50 MB, markup, a run that never ends). Each must end with
//! exit status 2 and a one-line message that names what is wrong and where (the file, the line
//! or field, the limit), within a generous bound of time; never a panic.
//!
//! `MMVIZ_CATALOGUE_PRINT=1 cargo test -p mmviz-cli --test bad_inputs -- --nocapture` prints
//! every message.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A scenario that runs: one node, one CPU, a VMA of 4 pages, two accesses.
const GOOD: &str = r#"format = 1
id = "cat"
title = "Catalogue base"

[machine]
tlb_entries = 8
[[machine.node]]
cpus = [0, 1]
mem_pages = 64

[[process]]
name = "p"
[[process.vma]]
name = "heap"
pages = 4
[[process.thread]]
cpu = 0
ops = [
  { op = "access", vma = "heap", page = 0, write = true },
  { op = "access", vma = "heap", page = 1 },
]
"#;

/// `GOOD` with `from` replaced by `to` (which must occur).
fn edit(from: &str, to: &str) -> Vec<u8> {
    assert!(GOOD.contains(from), "{from}");
    GOOD.replacen(from, to, 1).into_bytes()
}

/// A machine's `numactl --hardware` output (2 nodes, 4 CPUs).
const NUMACTL: &str = "available: 2 nodes (0-1)\nnode 0 cpus: 0 1\nnode 0 size: 1024 MB\nnode 0 free: 512 MB\n\
node 1 cpus: 2 3\nnode 1 size: 1024 MB\nnode 1 free: 512 MB\nnode distances:\nnode   0   1\n  0:  10  20\n  1:  20  10\n";

/// What a case feeds the CLI: the file `{f}` in `args` stands for (if any) and stdin.
struct Case {
    name: &'static str,
    args: Vec<&'static str>,
    file: Option<Vec<u8>>,
    stdin: Option<Vec<u8>>,
    /// Every one of these must be in the message.
    says: Vec<&'static str>,
}

fn case(name: &'static str, args: &[&'static str], file: Option<Vec<u8>>, says: &[&'static str]) -> Case {
    Case {
        name,
        args: args.to_vec(),
        file,
        stdin: None,
        says: says.to_vec(),
    }
}

/// A scenario file run with `mmviz run`.
fn scenario(name: &'static str, text: Vec<u8>, says: &[&'static str]) -> Case {
    case(name, &["run", "{f}"], Some(text), says)
}

fn garbage(n: usize) -> Vec<u8> {
    // Deterministic bytes that are not UTF-8 (xorshift; 0xff never occurs in UTF-8).
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out: Vec<u8> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    out[3] = 0xff;
    out
}

fn catalogue() -> Vec<Case> {
    let fifty_mb = {
        let mut t = GOOD.as_bytes().to_vec();
        t.extend(std::iter::repeat_n(b'#', 50 << 20));
        t
    };
    let too_many_nodes: String = (0..65)
        .map(|i| format!("[[machine.node]]\ncpus = [{i}]\nmem_pages = 4\n"))
        .collect();
    vec![
        // Syntax and empty input.
        scenario("empty file", vec![], &["{f}", "format"]),
        scenario("only a comment", b"# nothing here\n".to_vec(), &["{f}", "format"]),
        scenario(
            "unclosed string",
            edit("title = \"Catalogue base\"", "title = \"Catalogue base"),
            &["{f}", "line 3"],
        ),
        scenario("unclosed table header", edit("[machine]", "[machine"), &["{f}", "line 5"]),
        scenario(
            "duplicate key",
            edit("id = \"cat\"", "id = \"cat\"\nid = \"dog\""),
            &["{f}", "line 3", "id"],
        ),
        scenario("binary garbage", garbage(4096), &["{f}", "not UTF-8", "line 1"]),
        scenario(
            "a NUL byte in the text",
            edit("name = \"p\"", "name = \"p\0\""),
            &["{f}", "line 12"],
        ),
        scenario("a 50 MB file", fifty_mb, &["{f}", "52,4", "at most 1,048,576"]),
        scenario("format 2", edit("format = 1", "format = 2"), &["{f}", "format"]),
        scenario("no format", edit("format = 1\n", ""), &["{f}", "line 1: missing field `format`"]),
        scenario("a section twice", edit("[machine]", "[machine]\n[machine]"), &["{f}", "machine"]),
        // Wrong types.
        scenario(
            "mem_pages is text",
            edit("mem_pages = 64", "mem_pages = \"lots\""),
            &["{f}", "line 9", "mem_pages"],
        ),
        scenario("cpus is not a list", edit("cpus = [0, 1]", "cpus = 0"), &["{f}", "line 8", "cpus"]),
        scenario("ops is a string", edit("ops = [", "ops = \"access\"\nxops = ["), &["{f}", "ops"]),
        scenario(
            "write is a string",
            edit("write = true", "write = \"yes\""),
            &["{f}", "line 19", "write"],
        ),
        scenario(
            "pages is a float",
            edit("pages = 4", "pages = 1.5"),
            &["{f}", "line 15", "pages", "whole number"],
        ),
        scenario("pages is negative", edit("pages = 4", "pages = -4"), &["{f}", "line 15", "pages"]),
        scenario(
            "title is a table",
            edit("title = \"Catalogue base\"", "[title]\nx = 1"),
            &["{f}", "line 3", "title", "expected a string"],
        ),
        // Unknown ids.
        scenario(
            "unknown field",
            edit("tlb_entries = 8", "tlb_entries = 8\nwat = 1"),
            &["{f}", "line 7", "wat"],
        ),
        scenario(
            "unknown op",
            edit("op = \"access\", vma = \"heap\", page = 1", "op = \"teleport\""),
            &["{f}", "line 20", "teleport"],
        ),
        scenario(
            "unknown VMA in an op",
            edit("vma = \"heap\", page = 1", "vma = \"stack\", page = 1"),
            &["{f}", "line 20", "stack"],
        ),
        scenario(
            "a thread on a CPU the machine lacks",
            edit("cpu = 0", "cpu = 7"),
            &["{f}", "line 17", "cpu"],
        ),
        scenario(
            "unknown toggle",
            edit("[[process]]", "[toggles]\nno_such_toggle = true\n\n[[process]]"),
            &["{f}", "no_such_toggle"],
        ),
        scenario(
            "unknown knob",
            edit("[[process]]", "[knobs]\nno_such_knob = 1\n\n[[process]]"),
            &["{f}", "no_such_knob"],
        ),
        scenario(
            "a CPU on two nodes",
            edit("mem_pages = 64\n", "mem_pages = 64\n[[machine.node]]\ncpus = [1]\nmem_pages = 64\n"),
            &["{f}", "CPU 1", "node"],
        ),
        // Out of range and absurd sizes.
        scenario(
            "10^9 pages",
            edit("mem_pages = 64", "mem_pages = 1000000000"),
            &["{f}", "line 9", "mem_pages", "67108864"],
        ),
        scenario(
            "10^5 CPUs",
            edit("cpus = [0, 1]", "cpus = [0, 100000]"),
            &["{f}", "line 8", "cpus", "256 CPUs"],
        ),
        scenario(
            "65 nodes",
            edit("[[machine.node]]\ncpus = [0, 1]\nmem_pages = 64\n", &too_many_nodes),
            &["{f}", "machine.node", "1 to 64 nodes"],
        ),
        scenario(
            "a VMA of 10^9 pages",
            edit("pages = 4", "pages = 1000000000"),
            &["{f}", "line 15", "pages", "67108864"],
        ),
        scenario(
            "a page beyond its VMA",
            edit("page = 1 }", "page = 10 }"),
            &["{f}", "line 20", "page"],
        ),
        scenario(
            "max_steps of 10^13",
            edit("[[process]]", "[knobs]\nmax_steps = 10000000000000\n\n[[process]]"),
            &["{f}", "max_steps", "4294967296"],
        ),
        scenario(
            "max_steps of 0",
            edit("[[process]]", "[knobs]\nmax_steps = 0\n\n[[process]]"),
            &["{f}", "max_steps"],
        ),
        scenario(
            "10^5 copies of a process",
            edit("name = \"p\"", "name = \"p{p}\"\ncount = 100000"),
            &["{f}", "count", "1024"],
        ),
        scenario(
            "10^6 threads from counts in a 300-byte file",
            GOOD.replacen("name = \"p\"", "name = \"p{p}\"\ncount = 1000", 1)
                .replacen("[[process.thread]]", "[[process.thread]]\ncount = 1024", 1)
                .into_bytes(),
            &["{f}", "process[0].thread[0].count", "8,192 threads"],
        ),
        scenario(
            "a node with no memory anywhere",
            edit("mem_pages = 64", "mem_pages = 0"),
            &["{f}", "mem_pages"],
        ),
        scenario(
            "a 2^40-page machine",
            edit("mem_pages = 64", "mem_pages = 1099511627776"),
            &["{f}", "mem_pages"],
        ),
        // Markup where an id belongs (a title may hold any text: the lab shows it as text).
        scenario(
            "markup as the scenario id",
            edit("id = \"cat\"", "id = \"<img src=x onerror=alert(1)>\""),
            &["{f}", "`id`", "letters, digits"],
        ),
        scenario(
            "markup as a VMA name in an op",
            edit("vma = \"heap\", page = 1", "vma = \"<script>\", page = 1"),
            &["{f}", "line 20", "<script>"],
        ),
        // A run that never ends: bounded by its step budget.
        scenario(
            "a run that never ends",
            edit(
                "{ op = \"access\", vma = \"heap\", page = 1 },",
                "{ op = \"random\", vma = \"heap\", count = 100000000 },",
            )
            .into_iter()
            .chain(b"[knobs]\nmax_steps = 2000\n".iter().copied())
            .collect(),
            &["{f}", "2000 steps", "max_steps"],
        ),
        // Params and flags.
        case(
            "unknown scenario id",
            &["run", "no-such-scenario"],
            None,
            &["no-such-scenario", "built-in"],
        ),
        case("a folder as the scenario", &["run", "."], None, &["folder"]),
        case(
            "unknown param",
            &["run", "{f}", "--param", "nosuch=3"],
            Some(GOOD.into()),
            &["nosuch"],
        ),
        case(
            "a param that is not a number",
            &["run", "numa-delay-map-scale", "--param", "accesses=many"],
            None,
            &["accesses", "many"],
        ),
        case(
            "a param without a value",
            &["run", "numa-delay-map-scale", "--param", "accesses"],
            None,
            &["accesses", "NAME=VALUE"],
        ),
        case(
            "a param of 10^12",
            &["run", "numa-delay-map-scale", "--param", "accesses=1000000000000"],
            None,
            &["accesses", "1000000000000"],
        ),
        case(
            "unknown toggle in --set",
            &["run", "{f}", "--set", "no_such_toggle=on"],
            Some(GOOD.into()),
            &["--set", "no_such_toggle"],
        ),
        case(
            "a toggle value that is no value",
            &["run", "{f}", "--set", "numa_delay_map=maybe"],
            Some(GOOD.into()),
            &["--set", "maybe"],
        ),
        case(
            "unknown kernel version",
            &["run", "{f}", "--kernel", "v99.1"],
            Some(GOOD.into()),
            &["--kernel", "v99.1"],
        ),
        case(
            "unknown preset",
            &["run", "{f}", "--preset", "nosuch/patch1"],
            Some(GOOD.into()),
            &["--preset", "nosuch"],
        ),
        case(
            "a schedule that is not one",
            &["run", "{f}", "--schedule", "garbage"],
            Some(GOOD.into()),
            &["--schedule", "garbage"],
        ),
        case(
            "a schedule on a CPU the machine lacks",
            &["run", "{f}", "--schedule", "0:99"],
            Some(GOOD.into()),
            &["--schedule", "99"],
        ),
        case("check of a missing folder", &["check", "no/such/folder"], None, &["no/such/folder"]),
        // Pasted machine output.
        case(
            "empty numactl output",
            &["topology", "--numactl", "{f}"],
            Some(vec![]),
            &["{f}", "numactl"],
        ),
        case(
            "numactl output that is binary garbage",
            &["topology", "--numactl", "{f}"],
            Some(garbage(2048)),
            &["{f}", "line"],
        ),
        case(
            "numactl output of 50 MB",
            &["topology", "--numactl", "{f}"],
            Some(vec![b'x'; 50 << 20]),
            &["{f}", "at most 1,048,576"],
        ),
        case(
            "numactl with 10^8 CPUs",
            &["topology", "--numactl", "{f}"],
            Some(NUMACTL.replace("cpus: 0 1", "cpus: 0-100000000").into()),
            &["{f}", "line 2", "too large"],
        ),
        case(
            "numactl with a ragged distance row",
            &["topology", "--numactl", "{f}"],
            Some(NUMACTL.replace("  1:  20  10", "  1:  20").into()),
            &["{f}", "line 11"],
        ),
        case(
            "lscpu that is not lscpu",
            &["topology", "--numactl", "{f}", "--lscpu", "{f}"],
            Some(NUMACTL.into()),
            &["{f}", "lscpu"],
        ),
        case(
            "zoneinfo that is markup",
            &["zoneinfo", "{f}"],
            Some(b"<html><body><script>alert(1)</script></body></html>\n".to_vec()),
            &["{f}", "line 1"],
        ),
        case(
            "vmstat with a word for a number",
            &["vmstat", "{f}", "{f}"],
            Some(b"nr_free_pages 12\npgfault lots\n".to_vec()),
            &["{f}", "line 2", "lots"],
        ),
        Case {
            name: "vmstat of 50 MB on stdin",
            args: vec!["vmstat", "-", "{f}"],
            file: Some(b"nr_free_pages 12\n".to_vec()),
            stdin: Some(b"nr_free_pages 1\n".repeat(4 << 20)),
            says: vec!["stdin", "1,048,576"],
        },
        scenario(
            "a scenario with a numactl text that is garbage",
            edit(
                "tlb_entries = 8\n[[machine.node]]\ncpus = [0, 1]\nmem_pages = 64\n",
                "numactl = '''\nnode zero cpus: everything\n'''\n",
            ),
            &["{f}", "numactl"],
        ),
    ]
}

#[test]
fn every_bad_input_gets_a_clear_message_and_no_panic() {
    let dir = std::env::temp_dir().join(format!("mmviz-bad-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = catalogue();
    let mut names = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        assert!(names.insert(c.name), "two cases are named {}", c.name);
        let file = dir.join(format!("case-{i}.toml"));
        let f = file.to_str().unwrap().to_string();
        if let Some(bytes) = &c.file {
            std::fs::write(&file, bytes).unwrap();
        }
        let args: Vec<String> = c.args.iter().map(|a| a.replace("{f}", &f)).collect();
        let start = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_mmviz"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let input = c.stdin.clone();
        let writer = std::thread::spawn(move || {
            let mut stdin = stdin;
            if let Some(b) = input {
                // The CLI may stop reading at its limit: a broken pipe here is the point.
                let _ = stdin.write_all(&b);
            }
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        let took = start.elapsed();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        if std::env::var("MMVIZ_CATALOGUE_PRINT").is_ok() {
            println!(
                "{:>2} {:<48} {:>6} ms  {}",
                i + 1,
                c.name,
                took.as_millis(),
                err.trim().replace(&f, "{f}")
            );
        }
        let mut problems = Vec::new();
        if out.status.code() != Some(2) {
            problems.push(format!("exit status {:?}, not 2", out.status.code()));
        }
        if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
            problems.push("panicked".into());
        }
        for want in &c.says {
            let want = want.replace("{f}", &f);
            if !err.contains(&want) {
                problems.push(format!("the message does not say `{}`", want.replace(&f, "{f}")));
            }
        }
        if err.trim().lines().count() != 1 {
            problems.push("the message is not one line".into());
        }
        // Generous: a debug build on a loaded 2-core machine; the point is "no hang".
        if took > Duration::from_secs(10) {
            problems.push(format!("took {took:?}"));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{} ({}): {}\n    stderr: {}",
                c.name,
                args.join(" ").replace(&f, "{f}"),
                problems.join("; "),
                err.trim().replace(&f, "{f}")
            ));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
