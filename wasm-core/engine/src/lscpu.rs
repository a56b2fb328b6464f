//! A reader of `lscpu` text as people paste it: the old flat layout (`NUMA node0 CPU(s):
//! 0-9,80-89`, `L3 cache: 30720K`) and the sectioned one of util-linux 2.37 and later
//! (`Caches (sum of all):` / `L3: 105 MiB (2 instances)`, `NUMA:` / `NUMA node2 CPU(s):`
//! empty for a CPU-less node), a prompt line, `...` where the poster cut a section,
//! long lines hard-wrapped by a mail client, CRLF.
//!
//! What it gives: CPUs, sockets, cores, threads, the NUMA nodes' CPU lists and the cache
//! sizes, and the last-level cache's share per CPU (`llc_slice_kb`, which the PCP model
//! uses). [`merge`] puts its CPU lists into the machine of a `numactl --hardware` text
//! (numactl gives node memory and distances; lscpu gives CPU lists).
//!
//! Decisions:
//! - A line without `Name:` continues the field above it when that field is free text
//!   (flags, model name, a vulnerability) or a CPU list and the line is only numbers;
//!   after any other field, or before the first field, it is an error naming the line.
//! - Lines before the first field that mention `lscpu` are prompts; a last line that is a
//!   bare prompt (`user@host:~>`) is skipped; lines of dots (`...`) are the poster's cuts.
//! - A CPU on two nodes, a count that is not a number and a `NUMA node(s):` count that
//!   disagrees with the node lines given are errors.

use crate::numactl::{NumaHardware, NumaNode};
use crate::paste::{err, is_bare_prompt, lines, quote, PasteError};
use serde::Serialize;
use std::collections::BTreeMap;

/// What `lscpu` says about the machine.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Lscpu {
    /// `CPU(s):`.
    pub cpus: Option<u32>,
    /// `Socket(s):`.
    pub sockets: Option<u32>,
    /// `Core(s) per socket:`.
    pub cores_per_socket: Option<u32>,
    /// `Thread(s) per core:`.
    pub threads_per_core: Option<u32>,
    /// `Model name:`.
    pub model_name: Option<String>,
    /// `NUMA node(s):`.
    pub numa_nodes: Option<u32>,
    /// `NUMA nodeN CPU(s):` lines, by node id (a CPU-less node has an empty list).
    pub nodes: Vec<LscpuNode>,
    /// Cache sizes, in the order given.
    pub caches: Vec<Cache>,
    /// The last-level data cache per CPU in KiB (what `zone_pcp_update_cacheinfo` reads),
    /// when the text gives enough to derive it.
    pub llc_slice_kb: Option<u64>,
    /// How `llc_slice_kb` was derived, for people.
    pub llc_note: Option<String>,
}

/// One `NUMA nodeN CPU(s):` line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LscpuNode {
    /// Node id.
    pub id: u32,
    /// CPU numbers, ascending.
    pub cpus: Vec<u32>,
    /// The 1-based line it came from.
    pub line: usize,
}

/// One cache line (`L3 cache: 30720K`, `L3: 105 MiB (2 instances)`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cache {
    /// `L1d`, `L1i`, `L2`, `L3`.
    pub level: String,
    /// Bytes as printed.
    pub bytes: u64,
    /// `(N instances)` when printed.
    pub instances: Option<u32>,
    /// Whether `bytes` is the sum over all instances (the sectioned layout, or a KiB/MiB
    /// size in the flat one) rather than one instance (the old `30720K` form).
    pub total: bool,
}

/// A field's value and how a wrapped line may continue it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    List,
    Number,
}

struct Field {
    line: usize,
    key: String,
    value: String,
    kind: Kind,
}

/// The key of a `Name: value` line, when the part before the colon can be one.
fn key_of(s: &str) -> Option<(&str, &str)> {
    let (k, v) = s.split_once(':')?;
    let k = k.trim();
    let ok = !k.is_empty()
        && k.len() <= 40
        && k.chars().all(|c| c.is_ascii_alphanumeric() || " ()-_./,+".contains(c))
        && k.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    ok.then_some((k, v.trim()))
}

fn kind_of(key: &str) -> Kind {
    let k = key.to_ascii_lowercase();
    if (k.starts_with("numa node") && k.ends_with("cpu(s)")) || k.contains("list") {
        Kind::List
    } else if ["cpu(s)", "socket(s)", "core(s) per socket", "thread(s) per core", "numa node(s)"].contains(&k.as_str()) {
        Kind::Number
    } else {
        Kind::Text
    }
}

/// Whether a line can be the rest of a hard-wrapped free-text value (flags, a vulnerability's
/// mitigation): words and their punctuation, nothing that looks like markup or a shell.
fn is_wrapped_text(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_alphanumeric() || " _-,.;:/()+%@'".contains(c))
}

fn is_elision(s: &str) -> bool {
    let t = s.trim();
    !t.is_empty() && t.chars().all(|c| c == '.' || c == '…' || c == '[' || c == ']' || c == ' ')
}

fn number(f: &Field) -> Result<u32, PasteError> {
    f.value
        .parse::<u32>()
        .or_else(|_| err(f.line, format!("`{}:` `{}` is not a whole number", f.key, quote(&f.value))))
}

/// The CPUs a machine may have (limits.rs): every CPU id is below this.
const MAX_CPUS: u64 = crate::limits::MAX_CPUS as u64;

/// `0-9,80-89` as CPU numbers (empty for an empty list), each below limits.rs `MAX_CPUS`.
pub fn cpu_list(line: usize, s: &str, what: &str) -> Result<Vec<u32>, PasteError> {
    let mut out = Vec::new();
    for t in s.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
        let num = |x: &str| {
            x.parse::<u64>()
                .or_else(|_| err(line, format!("{what}: `{}` is not a CPU number or range", quote(t))))
        };
        let (a, b) = match t.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(t)?, num(t)?),
        };
        if a > b {
            return err(line, format!("{what}: range `{}` runs backwards", quote(t)));
        }
        if b >= MAX_CPUS {
            return err(
                line,
                format!(
                    "{what}: cpu {b} in `{}` is out of range 0..={} (the model runs machines of up to {MAX_CPUS} CPUs)",
                    quote(t),
                    MAX_CPUS - 1
                ),
            );
        }
        if b - a + 1 + out.len() as u64 > MAX_CPUS {
            return err(line, format!("{what}: `{}` names too many CPUs (at most {MAX_CPUS})", quote(t)));
        }
        out.extend((a..=b).map(|v| v as u32));
    }
    Ok(out)
}

/// `32K`, `30720K`, `256 KiB`, `1.5 MiB (52 instances)`: bytes, instances, and whether the
/// size is a sum (a binary unit) rather than one instance (the old one-letter unit).
fn cache_size(f: &Field) -> Result<(u64, Option<u32>, bool), PasteError> {
    let bad = || {
        err(
            f.line,
            format!(
                "`{}:` `{}` is not a cache size (`32K`, `1.5 MiB (2 instances)`)",
                f.key,
                quote(&f.value)
            ),
        )
    };
    let (size, rest) = match f.value.split_once('(') {
        Some((s, r)) => (s.trim(), Some(r)),
        None => (f.value.trim(), None),
    };
    let split = size.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(size.len());
    let (n, unit) = (size[..split].trim(), size[split..].trim());
    let Ok(n) = n.parse::<f64>() else { return bad() };
    let (mult, total) = match unit {
        "" | "B" => (1.0, false),
        "K" | "k" => (1024.0, false),
        "M" => (1024.0 * 1024.0, false),
        "KiB" | "kB" | "KB" => (1024.0, true),
        "MiB" | "MB" => (1024.0 * 1024.0, true),
        "GiB" | "GB" => (1024.0 * 1024.0 * 1024.0, true),
        _ => return bad(),
    };
    let instances = match rest {
        None => None,
        Some(r) => {
            let w = r.trim_end_matches(')').split_whitespace().next().unwrap_or("");
            match w.parse::<u32>() {
                Ok(v) => Some(v),
                Err(_) => return bad(),
            }
        }
    };
    Ok(((n * mult).round() as u64, instances, total || instances.is_some()))
}

/// Reads `lscpu` text.
pub fn parse(text: &str) -> Result<Lscpu, PasteError> {
    // Refused before it is read: a pasted text larger than any real machine prints (limits.rs).
    if let Err(message) = crate::limits::check_bytes("the lscpu text", text.len(), crate::limits::MAX_PASTE_BYTES) {
        return Err(PasteError { line: 1, message });
    }
    let all = lines(text);
    let last = all.last().map(|(n, _)| *n);
    let mut fields: Vec<Field> = Vec::new();
    // The section a field sits in (`Caches (sum of all)`), for the sectioned layout.
    let mut section = String::new();
    let mut sections: Vec<String> = Vec::new();
    for &(line, raw) in &all {
        let s = raw.trim();
        if is_elision(s) {
            continue;
        }
        if fields.is_empty() && s.contains("lscpu") {
            continue; // a prompt line
        }
        if Some(line) == last && !fields.is_empty() && is_bare_prompt(s) && key_of(s).is_none() {
            continue;
        }
        if let Some((k, v)) = key_of(s) {
            let indented = raw.starts_with(char::is_whitespace);
            if v.is_empty() && !indented {
                section = k.to_string();
            } else if !indented {
                section.clear();
            }
            sections.push(section.clone());
            fields.push(Field {
                line,
                key: k.split_whitespace().collect::<Vec<_>>().join(" "),
                value: v.to_string(),
                kind: kind_of(k),
            });
            continue;
        }
        match fields.last_mut() {
            Some(f) if f.kind == Kind::Text && !f.value.is_empty() && is_wrapped_text(s) => {
                // A hard wrap: the mail client cut the line; the words go on.
                f.value.push(' ');
                f.value.push_str(s);
            }
            Some(f) if f.kind == Kind::List && s.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '-' || c == ' ') => {
                f.value.push(',');
                f.value.push_str(s);
            }
            _ => {
                return err(
                    line,
                    format!("cannot read `{}`: expected `Name: value` as lscpu prints it", quote(s)),
                )
            }
        }
    }
    if fields.is_empty() {
        return err(all.first().map_or(1, |(n, _)| *n), "no `Name: value` lines: is this lscpu output?");
    }
    let mut out = Lscpu::default();
    let mut numa_line = 0;
    let mut owner: BTreeMap<u32, u32> = BTreeMap::new();
    for (f, sec) in fields.iter().zip(&sections) {
        let k = f.key.to_ascii_lowercase();
        match k.as_str() {
            "cpu(s)" if sec.is_empty() => out.cpus = Some(number(f)?),
            "socket(s)" => out.sockets = Some(number(f)?),
            "core(s) per socket" => out.cores_per_socket = Some(number(f)?),
            "thread(s) per core" => out.threads_per_core = Some(number(f)?),
            "model name" => out.model_name = Some(f.value.clone()),
            "numa node(s)" => {
                out.numa_nodes = Some(number(f)?);
                numa_line = f.line;
            }
            _ => {}
        }
        if let Some(id) = k.strip_prefix("numa node").and_then(|r| r.strip_suffix(" cpu(s)")) {
            let Ok(id) = id.trim().parse::<u32>() else {
                return err(f.line, format!("`{}:` names no node number", quote(&f.key)));
            };
            if out.nodes.iter().any(|n| n.id == id) {
                return err(f.line, format!("a second `NUMA node{id} CPU(s):` line"));
            }
            if out.nodes.len() >= crate::limits::MAX_NODES {
                return err(
                    f.line,
                    format!(
                        "node {id} is one node too many (the model runs machines of up to {} nodes)",
                        crate::limits::MAX_NODES
                    ),
                );
            }
            let mut cpus = cpu_list(f.line, &f.value, &f.key)?;
            cpus.sort_unstable();
            for &c in &cpus {
                if let Some(other) = owner.insert(c, id) {
                    return err(f.line, format!("cpu {c} is listed on node {other} and again on node {id}"));
                }
            }
            out.nodes.push(LscpuNode { id, cpus, line: f.line });
        }
        // `L3 cache:` (flat) or `L3:` under `Caches (sum of all):`.
        let level = k
            .strip_suffix(" cache")
            .map(str::to_string)
            .or_else(|| (sec.to_ascii_lowercase().starts_with("caches") && k.starts_with('l')).then(|| k.clone()));
        if let Some(level) = level {
            if level.len() <= 4 && level.starts_with('l') && level.as_bytes().get(1).is_some_and(u8::is_ascii_digit) {
                let (bytes, instances, total) = cache_size(f)?;
                let name = format!("L{}", &f.key[1..level.len()]);
                out.caches.push(Cache {
                    level: name,
                    bytes,
                    instances,
                    total,
                });
            }
        }
    }
    out.nodes.sort_by_key(|n| n.id);
    if let Some(count) = out.numa_nodes {
        if !out.nodes.is_empty() && count as usize != out.nodes.len() {
            let ids: Vec<String> = out.nodes.iter().map(|n| n.id.to_string()).collect();
            return err(
                numa_line,
                format!(
                    "says {count} NUMA nodes but {} `NUMA nodeN CPU(s):` lines are given (nodes {})",
                    out.nodes.len(),
                    ids.join(", ")
                ),
            );
        }
    }
    if out.cpus.is_none() && out.nodes.is_empty() {
        return err(
            fields[0].line,
            "neither `CPU(s):` nor `NUMA nodeN CPU(s):` lines: is this lscpu output?",
        );
    }
    llc_slice(&mut out);
    Ok(out)
}

/// `per_cpu_data_slice_size` of drivers/base/cacheinfo.c (`update_per_cpu_data_slice_size_cpu`,
/// v6.7): the last-level data/unified cache's size over the CPUs sharing it. From lscpu: the
/// sum over instances divided by all CPUs (each instance shared by an equal share of them);
/// the old one-instance form needs the instances, taken as one per socket.
fn llc_slice(out: &mut Lscpu) {
    let cpus = out.cpus.map(u64::from).or_else(|| {
        let n: usize = out.nodes.iter().map(|n| n.cpus.len()).sum();
        (n > 0).then_some(n as u64)
    });
    let Some(cpus) = cpus.filter(|&c| c > 0) else { return };
    let Some(llc) = out.caches.iter().filter(|c| c.level != "L1i").max_by_key(|c| c.level.clone()) else {
        return;
    };
    let (sum, how) = if llc.total {
        (llc.bytes, format!("{} in all / {cpus} CPUs", llc.level))
    } else if let Some(sockets) = out.sockets {
        (
            llc.bytes * u64::from(sockets),
            format!(
                "{} per instance x {sockets} sockets (one per socket assumed) / {cpus} CPUs",
                llc.level
            ),
        )
    } else {
        return;
    };
    out.llc_slice_kb = Some(sum / cpus / 1024);
    out.llc_note = Some(how);
}

/// The machine of `hw` (numactl: node memory and distances) with the CPU lists of `l`: a
/// node numactl gives no CPUs takes lscpu's list (an old numactl without `cpus:` lines);
/// when both list CPUs they must agree. An lscpu without node lines changes nothing.
pub fn merge(hw: &NumaHardware, l: &Lscpu) -> Result<NumaHardware, PasteError> {
    let mut out = hw.clone();
    if l.nodes.is_empty() {
        return Ok(out);
    }
    let ids: Vec<String> = hw.nodes.iter().map(|n| n.id.to_string()).collect();
    for ln in &l.nodes {
        let Some(n) = out.nodes.iter_mut().find(|n| n.id == ln.id) else {
            return err(
                ln.line,
                format!("NUMA node{} is not in the numactl text (its nodes: {})", ln.id, ids.join(", ")),
            );
        };
        if n.cpus.is_empty() {
            n.cpus.clone_from(&ln.cpus);
        } else if n.cpus != ln.cpus {
            return err(
                ln.line,
                format!(
                    "NUMA node{} CPU(s) {} differ from node {} cpus {} in the numactl text: paste both from one machine",
                    ln.id,
                    quote(&crate::numactl::ranges(&ln.cpus)),
                    n.id,
                    quote(&crate::numactl::ranges(&n.cpus))
                ),
            );
        }
    }
    if let Some(missing) = out.nodes.iter().find(|n: &&NumaNode| !l.nodes.iter().any(|ln| ln.id == n.id)) {
        let line = l.nodes.first().map_or(1, |n| n.line);
        return err(
            line,
            format!(
                "the lscpu text has no `NUMA node{} CPU(s):` line for numactl's node {}",
                missing.id, missing.id
            ),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAT: &str = "CPU(s):              4\nSocket(s):           1\nNUMA node(s):        2\nL3 cache:            8192K\nNUMA node0 CPU(s):   0,1\nNUMA node1 CPU(s):   2-3\n";

    #[test]
    fn reads_the_flat_layout() {
        let l = parse(FLAT).unwrap();
        assert_eq!(l.cpus, Some(4));
        assert_eq!(
            l.nodes.iter().map(|n| n.cpus.clone()).collect::<Vec<_>>(),
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(l.caches[0].bytes, 8 << 20);
        assert!(!l.caches[0].total);
        assert_eq!(l.llc_slice_kb, Some(2048));
    }

    #[test]
    fn errors_name_the_line() {
        let line = |t: &str| parse(t).unwrap_err().line;
        assert_eq!(line(&FLAT.replace("CPU(s):              4", "CPU(s): four")), 1);
        assert_eq!(line(&FLAT.replace("2-3", "1-3")), 6);
        assert_eq!(line(&FLAT.replace("NUMA node(s):        2", "NUMA node(s): 3")), 3);
        assert_eq!(line(&format!("{FLAT}<script>alert(1)</script>\n")), 7);
        assert_eq!(line(&format!("{FLAT}Flags: fpu vme\nsse sse2\n<img src=x onerror=alert(1)>\n")), 9);
        assert_eq!(line("hello\n"), 1);
        assert_eq!(line(""), 1);
    }

    #[test]
    fn crlf_prompt_and_wraps() {
        let t = format!(
            "$ lscpu\r\n{}Flags: fpu vme\r\nsse sse2\r\nuser@host:~>\r\n",
            FLAT.replace('\n', "\r\n")
        );
        let l = parse(&t).unwrap();
        assert_eq!(
            l.nodes,
            parse(FLAT)
                .unwrap()
                .nodes
                .iter()
                .map(|n| LscpuNode {
                    line: n.line + 1,
                    ..n.clone()
                })
                .collect::<Vec<_>>()
        );
    }
}
