//! The documented maxima of what the engine takes, in one place: the scenario parser, the
//! importers of pasted text and the CLI enforce them with a message that names the field and the
//! limit; the lab reads the same numbers from `web/src/base/limits.generated.ts` (its link
//! decoder and paste boxes), and the table in the root README.md is generated from [`LIMITS`].
//! `tests/limits.rs` checks both files against this module (`MMVIZ_BLESS=1 cargo test -p
//! mmviz-engine --test limits` rewrites them).
//!
//! Each maximum is what the engine can run within the memory and time a browser tab has; the
//! measurements are in BENCHMARKS.md ("Limits").

/// CPUs of a machine: a CPU id is 0..MAX_CPUS. A cpumask is a fixed-size bitmap of this many
/// CPUs (`machine/cpumask.rs`), so every mask stays `Copy` and hashes in the explorer's digest.
pub const MAX_CPUS: usize = 256;

/// NUMA nodes of a machine (x86-64's `CONFIG_NODES_SHIFT` = 6 for `MAXSMP` kernels gives 64).
pub const MAX_NODES: usize = 64;

/// Simulated page frames of the whole machine, and of one node (2^26 pages: 256 GiB of 4 KiB
/// pages). The frame state costs about 29 bytes a page (1.93 GB peak RSS natively at 2^26), so
/// this is the largest power of two whose state fits the 4 GiB a wasm32 tab can address.
pub const MAX_PAGES: u32 = 1 << 26;

/// Pages of one VMA (page tables are sparse: a 2^26-page VMA touched twice runs in 6 MB).
pub const MAX_VMA_PAGES: u32 = 1 << 26;

/// Pages of all the VMAs of one process.
pub const MAX_PROCESS_PAGES: u64 = 1 << 28;

/// Processes of a scenario after every `count` is expanded.
pub const MAX_PROCESSES: usize = 1000;

/// VMAs of all the processes of a scenario after every `count` is expanded (each VMA keeps
/// its page-table and rmap state; the largest built-in has 768).
pub const MAX_VMAS: u64 = 1 << 16;

/// Threads of a scenario after every `count` is expanded (the largest built-in has 256).
pub const MAX_THREADS: u64 = 1 << 13;

/// Operations of all the threads of a scenario after every `count` is expanded (the largest
/// built-in has 1,024). Parsing holds each copy as the file's table, about 1.1 KB: 2^18 of them
/// took 0.70 s and 300 MB peak RSS, 2^20 took 2.6 s and 1.16 GB (`mmviz run`, debug build,
/// 8,192 threads of 32 or 128 `compute`s, BENCHMARKS.md "Limits").
pub const MAX_OPS: u64 = 1 << 18;

/// The largest `knobs.max_steps` (the step budget of a run; 5,000,000 by default). At the
/// 2.15 M steps/s wasm ran the largest built-in run at, 2^32 steps take about half an hour.
pub const MAX_STEPS: u64 = 1 << 32;

/// Bytes of a scenario's text (the largest built-in is 24 KB).
pub const MAX_SCENARIO_BYTES: usize = 1 << 20;

/// Bytes of one pasted text (`numactl --hardware`, `lscpu`, `/proc/zoneinfo`, `/proc/vmstat`;
/// a 2-socket machine's zoneinfo is about 20 KB).
pub const MAX_PASTE_BYTES: usize = 1 << 20;

/// Characters of a lab link's fragment (after `#`) the lab reads. A link carries a custom
/// scenario compressed with lz-string (the largest built-in, 24,148 bytes, takes 9,011
/// characters), so this carries any scenario a person writes; it stays well under the 2 MiB
/// URL Chromium navigates to because the decompressor's output is not bounded by its input.
pub const MAX_LINK_CHARS: usize = 200_000;

/// One row of the table: the TypeScript name, the value, what it bounds and where it is checked.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// The constant's name, in Rust and in TypeScript.
    pub name: &'static str,
    /// Its value.
    pub value: u64,
    /// What it bounds, for the docs table.
    pub what: &'static str,
    /// Where it is enforced, for the docs table.
    pub field: &'static str,
}

/// Every limit, in the order of the docs table.
pub const LIMITS: &[Limit] = &[
    Limit {
        name: "MAX_CPUS",
        value: MAX_CPUS as u64,
        what: "CPUs of a machine (ids 0 to this - 1)",
        field: "`machine.node[].cpus`, a machine from numactl/lscpu",
    },
    Limit {
        name: "MAX_NODES",
        value: MAX_NODES as u64,
        what: "NUMA nodes of a machine",
        field: "`machine.node`, a machine from numactl",
    },
    Limit {
        name: "MAX_PAGES",
        value: MAX_PAGES as u64,
        what: "simulated pages of the machine (and of one node)",
        field: "`machine.node[].mem_pages` (summed)",
    },
    Limit {
        name: "MAX_VMA_PAGES",
        value: MAX_VMA_PAGES as u64,
        what: "pages of one VMA",
        field: "`process[].vma[].pages`",
    },
    Limit {
        name: "MAX_PROCESS_PAGES",
        value: MAX_PROCESS_PAGES,
        what: "pages of all the VMAs of one process",
        field: "`process[].vma[].pages` (summed)",
    },
    Limit {
        name: "MAX_PROCESSES",
        value: MAX_PROCESSES as u64,
        what: "processes, `count`s expanded",
        field: "`process`",
    },
    Limit {
        name: "MAX_VMAS",
        value: MAX_VMAS,
        what: "VMAs of all processes, `count`s expanded",
        field: "`process[].vma`",
    },
    Limit {
        name: "MAX_THREADS",
        value: MAX_THREADS,
        what: "threads of all processes, `count`s expanded",
        field: "`process[].thread`",
    },
    Limit {
        name: "MAX_OPS",
        value: MAX_OPS,
        what: "operations of all threads, `count`s expanded",
        field: "`process[].thread[].ops`",
    },
    Limit {
        name: "MAX_STEPS",
        value: MAX_STEPS,
        what: "the step budget of a run",
        field: "`knobs.max_steps`",
    },
    Limit {
        name: "MAX_SCENARIO_BYTES",
        value: MAX_SCENARIO_BYTES as u64,
        what: "bytes of a scenario's text",
        field: "a scenario file, the editor, a link's `s=`",
    },
    Limit {
        name: "MAX_PASTE_BYTES",
        value: MAX_PASTE_BYTES as u64,
        what: "bytes of one pasted text",
        field: "numactl, lscpu, zoneinfo, vmstat boxes and `machine.*` texts",
    },
    Limit {
        name: "MAX_LINK_CHARS",
        value: MAX_LINK_CHARS as u64,
        what: "characters of a lab link after `#`",
        field: "the lab's address, `--link`",
    },
];

/// `Err` naming `what`, its size and the limit when `bytes` is over `max`.
pub fn check_bytes(what: &str, bytes: usize, max: usize) -> Result<(), String> {
    if bytes > max {
        Err(format!(
            "{what} is {} bytes; at most {} ({}) are read",
            group(bytes as u64),
            group(max as u64),
            human_bytes(max as u64)
        ))
    } else {
        Ok(())
    }
}

/// `n` with thousands separated by commas (1,048,576).
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count as KiB/MiB when it is a whole number of them.
fn human_bytes(n: u64) -> String {
    if n >= 1 << 20 && n % (1 << 20) == 0 {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n % (1 << 10) == 0 {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_named_with_the_limit() {
        assert_eq!(group(1_048_576), "1,048,576");
        assert_eq!(group(999), "999");
        let e = check_bytes("the scenario", 52_428_800, MAX_SCENARIO_BYTES).unwrap_err();
        assert_eq!(e, "the scenario is 52,428,800 bytes; at most 1,048,576 (1 MiB) are read");
        assert!(check_bytes("x", MAX_SCENARIO_BYTES, MAX_SCENARIO_BYTES).is_ok());
    }

    #[test]
    fn the_cpumask_holds_every_cpu_the_parser_allows() {
        assert_eq!(crate::machine::cpumask::MAX_CPUS, MAX_CPUS);
    }
}
