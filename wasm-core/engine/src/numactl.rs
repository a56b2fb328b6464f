//! A parser of `numactl --hardware` text as people paste it: with or without a prompt
//! line, old formats (no `cpus:` lines, no distance table), CPU ranges (`0-3,8-11`) or
//! space-separated lists, lists hard-wrapped by a mail client, memory-less and CPU-less
//! nodes, sparse node ids, CRLF, tabs and odd spacing.
//!
//! Pure: text in, [`NumaHardware`] or a [`NumactlError`] naming the 1-based line out.
//!
//! Decisions:
//! - A line of only numbers, ranges and commas continues the `node N cpus:` line, the
//!   distance header or the distance row above it (a mail client's hard wrap).
//! - Lines before the first data line that mention `numactl` are prompts and skipped
//!   (`user@host:~> numactl --hardware`, `$ numactl -H`, `Command: numactl --hardware`).
//!   So is a last line ending in a prompt character (`$`, `#`, `>`, `%`: `user@host:~>`).
//!   Blank lines and Markdown code fences (```` ``` ````) are skipped anywhere.
//! - Nodes come out sorted by id, each node's CPUs sorted; the distance matrix is in
//!   that node order (row i, column j = distance from the i-th node to the j-th).
//! - Errors: a CPU listed twice (on one node or two), a node without a `size:` line, a
//!   size or distance that is not a number, a distance row for a node the header does
//!   not name, a missing, repeated or ragged row, a header that does not name exactly
//!   the nodes listed, an `available:` line disagreeing with the nodes listed.
//! - Accepted as is: any diagonal (the kernel prints 10 for local, but firmware tables
//!   may say otherwise), asymmetric distances, a missing `free:` line (→ `None`), a
//!   missing distance table or `No distance information available.` (→ `None`).

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// What `numactl --hardware` says about the machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NumaHardware {
    /// Nodes in id order.
    pub nodes: Vec<NumaNode>,
    /// `distances[i][j]`: from `nodes[i]` to `nodes[j]`; `None` without a distance table.
    pub distances: Option<Vec<Vec<u32>>>,
}

/// One node of a `numactl --hardware` listing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NumaNode {
    /// Node id (ids may be sparse: 0, 2, 5).
    pub id: u32,
    /// CPU numbers, ascending; empty for a CPU-less node or an old format without `cpus:`.
    pub cpus: Vec<u32>,
    /// `node N size:` in MB (0 for a memory-less node).
    pub size_mb: u64,
    /// `node N free:` in MB; `None` when the line is missing.
    pub free_mb: Option<u64>,
}

/// Why the text could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumactlError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong, one line.
    pub message: String,
}

impl fmt::Display for NumactlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for NumactlError {}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, NumactlError> {
    Err(NumactlError {
        line,
        message: message.into(),
    })
}

/// The CPUs a machine may have (limits.rs): a CPU id is below this, so a listing names at
/// most this many and a typo such as `0-4000000000` is an error, not an allocation.
const MAX_CPUS: u64 = crate::limits::MAX_CPUS as u64;
/// The nodes a machine may have (limits.rs): a distance header names at most this many.
const MAX_NODES: u64 = crate::limits::MAX_NODES as u64;

/// A token with the line it came from.
type Tok = (usize, String);

/// One logical line (with its wrapped continuations).
enum Rec {
    Available {
        line: usize,
        count: u64,
        list: Option<String>,
    },
    Cpus {
        line: usize,
        node: u32,
        toks: Vec<Tok>,
    },
    Size {
        line: usize,
        node: u32,
        field: &'static str,
        value: String,
    },
    Header {
        line: usize,
        toks: Vec<Tok>,
    },
    Row {
        line: usize,
        node: u32,
        toks: Vec<Tok>,
    },
    NoDistances,
}

/// A piece of the input for a message: at most 60 characters, so the message stays short.
fn quote(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(57).collect::<String>())
    }
}

fn tokens(line: usize, s: &str) -> Vec<Tok> {
    s.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(|t| (line, t.to_string()))
        .collect()
}

fn is_continuation(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit()) && s.chars().all(|c| c.is_ascii_digit() || c == '-' || c == ',' || c.is_whitespace())
}

fn number(line: usize, s: &str, what: &str) -> Result<u64, NumactlError> {
    match s.parse::<u64>() {
        Ok(v) => Ok(v),
        Err(_) => err(line, format!("{what} `{}` is not a number", quote(s))),
    }
}

fn node_id(line: usize, s: &str) -> Result<u32, NumactlError> {
    match s.parse::<u32>() {
        Ok(v) => Ok(v),
        Err(_) => err(line, format!("node id `{}` is not a number", quote(s))),
    }
}

/// Expands a list of `N` and `A-B` tokens (ascending ranges) naming at most `max` items.
fn expand(toks: &[Tok], what: &str, max: u64) -> Result<Vec<(usize, u32)>, NumactlError> {
    let mut out = Vec::new();
    for (line, t) in toks {
        let (a, b) = match t.split_once('-') {
            Some((a, b)) => (number(*line, a, what)?, number(*line, b, what)?),
            None => {
                let v = number(*line, t, what)?;
                (v, v)
            }
        };
        if a > b {
            return err(*line, format!("{what} range `{}` runs backwards", quote(t)));
        }
        if b - a + 1 + out.len() as u64 > max || b > u64::from(u32::MAX) {
            return err(*line, format!("{what} range `{}` is too large (at most {max} in all)", quote(t)));
        }
        out.extend((a..=b).map(|v| (*line, v as u32)));
    }
    Ok(out)
}

/// Reads one line into a record; `Ok(None)` for a line that is not `numactl` data.
fn classify(line: usize, s: &str, in_distances: bool) -> Result<Option<Rec>, NumactlError> {
    let words: Vec<&str> = s.split_whitespace().collect();
    // Lower case with single spaces, for the sentence-like lines.
    let lower = words.join(" ").to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("available:") {
        let rest = rest.trim();
        let (count, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let count = number(line, count, "node count")?;
        let after = after.trim();
        let after = after
            .strip_prefix("nodes")
            .or_else(|| after.strip_prefix("node"))
            .map(str::trim)
            .unwrap_or(after);
        let list = match after.strip_prefix('(').and_then(|a| a.strip_suffix(')')) {
            Some(l) => Some(l.to_string()),
            None if after.is_empty() => None,
            None => return err(line, format!("cannot read `{}`: expected `available: N nodes (LIST)`", quote(s))),
        };
        return Ok(Some(Rec::Available { line, count, list }));
    }
    if lower.starts_with("no distance information") {
        return Ok(Some(Rec::NoDistances));
    }
    if lower.starts_with("no numa") {
        return err(line, "numactl says this machine has no NUMA");
    }
    if words.first().is_some_and(|w| w.eq_ignore_ascii_case("node")) {
        if words.len() == 2 && words[1].eq_ignore_ascii_case("distances:") {
            return Ok(None); // handled by the caller
        }
        // The distance header: `node 0 1 2 3`.
        if words.len() >= 2 && words[1..].iter().all(|w| w.chars().all(|c| c.is_ascii_digit())) {
            return Ok(Some(Rec::Header {
                line,
                toks: tokens(line, &words[1..].join(" ")),
            }));
        }
        // `node N field: value`.
        let rest = s.trim_start()[4..].trim_start();
        let (id, rest) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let rest = rest.trim_start();
        let Some((field, value)) = rest.split_once(':') else {
            return err(
                line,
                format!("cannot read `{}`: expected `node N cpus:`, `size:` or `free:`", quote(s)),
            );
        };
        let node = node_id(line, id)?;
        let value = value.trim();
        return match field.trim().to_ascii_lowercase().as_str() {
            "cpus" => Ok(Some(Rec::Cpus {
                line,
                node,
                toks: tokens(line, value),
            })),
            f @ ("size" | "free") => Ok(Some(Rec::Size {
                line,
                node,
                field: if f == "size" { "size" } else { "free" },
                value: value.to_string(),
            })),
            other => err(
                line,
                format!("unknown node field `{}:` (expected cpus, size or free)", quote(other)),
            ),
        };
    }
    // A distance row: `  0:  10  21`.
    if let Some((id, rest)) = s.trim().split_once(':') {
        if !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()) {
            if !in_distances {
                return err(line, "a distance row before `node distances:`");
            }
            return Ok(Some(Rec::Row {
                line,
                node: node_id(line, id)?,
                toks: tokens(line, rest),
            }));
        }
    }
    Ok(None)
}

/// Reads `numactl --hardware` text.
pub fn parse(text: &str) -> Result<NumaHardware, NumactlError> {
    // Refused before it is read: a pasted text larger than any real machine prints (limits.rs).
    if let Err(message) = crate::limits::check_bytes("the numactl --hardware text", text.len(), crate::limits::MAX_PASTE_BYTES) {
        return Err(NumactlError { line: 1, message });
    }
    let mut recs: Vec<Rec> = Vec::new();
    let mut in_distances = false;
    let mut last_line = 0;
    let all: Vec<&str> = text.lines().collect();
    // The last line with something on it (a shell prompt left at the end is skipped).
    let last_content = all
        .iter()
        .rposition(|l| !l.trim().is_empty() && !l.trim().starts_with("```"))
        .map_or(0, |i| i + 1);
    for (i, raw) in all.iter().enumerate() {
        let line = i + 1;
        last_line = line;
        let s = raw.trim_end_matches('\r').trim();
        // Blank lines, and the fences of a Markdown code block (```` ``` ````, ```` ```console ````).
        if s.is_empty() || s.starts_with("```") {
            continue;
        }
        if is_continuation(s) {
            let toks = tokens(line, s);
            match recs.last_mut() {
                Some(Rec::Cpus { toks: t, .. } | Rec::Header { toks: t, .. } | Rec::Row { toks: t, .. }) => {
                    t.extend(toks);
                    continue;
                }
                _ => {
                    return err(
                        line,
                        format!("numbers `{}` continue no `node N cpus:` line or distance row", quote(s)),
                    )
                }
            }
        }
        let words: Vec<&str> = s.split_whitespace().collect();
        if words.len() == 2 && words[0].eq_ignore_ascii_case("node") && words[1].eq_ignore_ascii_case("distances:") {
            in_distances = true;
            continue;
        }
        match classify(line, s, in_distances)? {
            Some(r) => {
                // A header without `node distances:` above it still opens the table.
                in_distances |= matches!(r, Rec::Header { .. });
                recs.push(r);
            }
            None if recs.is_empty() && !in_distances && s.contains("numactl") => {} // a prompt line
            None if line == last_content && !recs.is_empty() && s.ends_with(['$', '#', '>', '%']) => {} // the next prompt
            None => return err(line, format!("cannot read `{}` as numactl --hardware output", quote(s))),
        }
    }
    build(recs, last_line.max(1))
}

#[derive(Default)]
struct Partial {
    first_line: usize,
    cpus: Option<(usize, Vec<(usize, u32)>)>,
    size: Option<u64>,
    free: Option<u64>,
}

fn megabytes(line: usize, node: u32, field: &str, value: &str) -> Result<u64, NumactlError> {
    let mut parts = value.split_whitespace();
    let Some(n) = parts.next() else {
        return err(line, format!("node {node} {field}: no value"));
    };
    let Ok(v) = n.parse::<u64>() else {
        return err(line, format!("node {node} {field}: `{}` is not a number", quote(n)));
    };
    match parts.next() {
        None => Ok(v),
        Some(u) if u.eq_ignore_ascii_case("mb") && parts.next().is_none() => Ok(v),
        Some(_) => err(line, format!("node {node} {field}: `{}` is not `N MB`", quote(value))),
    }
}

fn build(recs: Vec<Rec>, last_line: usize) -> Result<NumaHardware, NumactlError> {
    let mut nodes: BTreeMap<u32, Partial> = BTreeMap::new();
    let mut available = None;
    let mut header: Option<(usize, Vec<(usize, u32)>)> = None;
    let mut rows: BTreeMap<u32, (usize, Vec<Tok>)> = BTreeMap::new();
    let mut no_distances = false;
    // The last line of the distance table (a missing row is reported there).
    let mut table_end = last_line;
    let mut cpu_owner: BTreeMap<u32, u32> = BTreeMap::new();
    for r in recs {
        match r {
            Rec::Available { line, count, list } => {
                if available.is_some() {
                    return err(line, "a second `available:` line");
                }
                available = Some((line, count, list));
            }
            Rec::Cpus { line, node, toks } => {
                let n = nodes.entry(node).or_insert_with(|| Partial {
                    first_line: line,
                    ..Partial::default()
                });
                if n.cpus.is_some() {
                    return err(line, format!("a second `node {node} cpus:` line"));
                }
                let cpus = expand(&toks, "cpu", MAX_CPUS)?;
                for &(l, c) in &cpus {
                    if u64::from(c) >= MAX_CPUS {
                        return err(
                            l,
                            format!(
                                "cpu {c} is out of range 0..={} (the model runs machines of up to {MAX_CPUS} CPUs)",
                                MAX_CPUS - 1
                            ),
                        );
                    }
                    if let Some(other) = cpu_owner.insert(c, node) {
                        return err(l, format!("cpu {c} is listed on node {other} and again on node {node}"));
                    }
                    if cpu_owner.len() as u64 > MAX_CPUS {
                        return err(l, format!("more than {MAX_CPUS} CPUs"));
                    }
                }
                n.cpus = Some((line, cpus));
            }
            Rec::Size { line, node, field, value } => {
                let n = nodes.entry(node).or_insert_with(|| Partial {
                    first_line: line,
                    ..Partial::default()
                });
                let v = megabytes(line, node, field, &value)?;
                let slot = if field == "size" { &mut n.size } else { &mut n.free };
                if slot.replace(v).is_some() {
                    return err(line, format!("a second `node {node} {field}:` line"));
                }
            }
            Rec::Header { line, toks } => {
                table_end = toks.last().map_or(line, |t| t.0);
                if header.is_some() {
                    return err(line, "a second distance header");
                }
                let ids = expand(&toks, "node id", MAX_NODES)?;
                header = Some((line, ids));
            }
            Rec::Row { line, node, toks } => {
                table_end = toks.last().map_or(line, |t| t.0);
                let Some((_, ids)) = &header else {
                    return err(line, "a distance row before the header `node 0 1 ...`");
                };
                if !ids.iter().any(|&(_, id)| id == node) {
                    return err(line, format!("a distance row for node {node}, which the header does not name"));
                }
                if rows.insert(node, (line, toks)).is_some() {
                    return err(line, format!("a second distance row for node {node}"));
                }
            }
            Rec::NoDistances => no_distances = true,
        }
    }
    if nodes.is_empty() {
        return err(1, "no `node N size:` or `node N cpus:` lines: is this numactl --hardware output?");
    }
    if let Some((&id, n)) = nodes.iter().nth(MAX_NODES as usize) {
        return err(
            n.first_line,
            format!("node {id} is one node too many (the model runs machines of up to {MAX_NODES} nodes)"),
        );
    }
    let mut out = Vec::with_capacity(nodes.len());
    for (&id, n) in &nodes {
        let Some(size_mb) = n.size else {
            return err(n.first_line, format!("node {id} has no `size:` line"));
        };
        let mut cpus: Vec<u32> = n
            .cpus
            .as_ref()
            .map(|(_, c)| c.iter().map(|&(_, c)| c).collect())
            .unwrap_or_default();
        cpus.sort_unstable();
        out.push(NumaNode {
            id,
            cpus,
            size_mb,
            free_mb: n.free,
        });
    }
    if let Some((line, count, list)) = available {
        let ids: Vec<String> = nodes.keys().map(u32::to_string).collect();
        if count != nodes.len() as u64 {
            return err(
                line,
                format!("says {count} nodes but {} are listed ({})", nodes.len(), ids.join(", ")),
            );
        }
        if let Some(list) = list {
            let listed = expand(&tokens(line, &list), "node id", MAX_NODES)?;
            let mut listed: Vec<u32> = listed.into_iter().map(|(_, v)| v).collect();
            listed.sort_unstable();
            if !listed.iter().copied().eq(nodes.keys().copied()) {
                return err(
                    line,
                    format!("names nodes ({}) but the nodes listed are {}", quote(&list), ids.join(", ")),
                );
            }
        }
    }
    let distances = match header {
        None if !rows.is_empty() => return err(last_line, "distance rows without a header"),
        None => None,
        Some(_) if no_distances => return err(last_line, "both a distance table and `No distance information`"),
        Some((hline, ids)) => {
            let mut seen = std::collections::BTreeSet::new();
            for &(_, id) in &ids {
                if !seen.insert(id) {
                    return err(hline, format!("the distance header names node {id} twice"));
                }
                if !nodes.contains_key(&id) {
                    return err(
                        hline,
                        format!("the distance header names node {id}, which has no `node {id}` lines"),
                    );
                }
            }
            if let Some(missing) = nodes.keys().find(|id| !seen.contains(*id)) {
                return err(hline, format!("the distance header does not name node {missing}"));
            }
            // Column position in the header of each node (in id order).
            let cols: Vec<usize> = nodes.keys().filter_map(|id| ids.iter().position(|&(_, h)| h == *id)).collect();
            let mut matrix = Vec::with_capacity(nodes.len());
            for &id in nodes.keys() {
                let Some((line, toks)) = rows.get(&id) else {
                    return err(table_end, format!("the distance table has no row for node {id}"));
                };
                if toks.len() != ids.len() {
                    return err(
                        *line,
                        format!(
                            "distance row for node {id} has {} values, the header names {} nodes",
                            toks.len(),
                            ids.len()
                        ),
                    );
                }
                let mut vals = Vec::with_capacity(toks.len());
                for (l, t) in toks {
                    match t.parse::<u32>() {
                        Ok(v) => vals.push(v),
                        Err(_) => return err(*l, format!("distance `{}` is not a number", quote(t))),
                    }
                }
                matrix.push(cols.iter().map(|&c| vals[c]).collect());
            }
            Some(matrix)
        }
    };
    Ok(NumaHardware { nodes: out, distances })
}

/// `0-3,8-11`: a sorted CPU list as ranges.
pub fn ranges(cpus: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        out.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "available: 2 nodes (0-1)
node 0 cpus: 0 1 2 3
node 0 size: 1024 MB
node 0 free: 512 MB
node 1 cpus: 4 5 6 7
node 1 size: 2048 MB
node 1 free: 1000 MB
node distances:
node   0   1
  0:  10  21
  1:  21  10
";

    fn line_of(text: &str) -> usize {
        match parse(text) {
            Ok(h) => panic!("expected an error, got {h:?}"),
            Err(e) => e.line,
        }
    }

    #[test]
    fn reads_the_plain_format() {
        let h = parse(TWO).unwrap();
        assert_eq!(h.nodes.len(), 2);
        assert_eq!(h.nodes[1].cpus, vec![4, 5, 6, 7]);
        assert_eq!(h.nodes[1].size_mb, 2048);
        assert_eq!(h.nodes[0].free_mb, Some(512));
        assert_eq!(h.distances, Some(vec![vec![10, 21], vec![21, 10]]));
    }

    #[test]
    fn prompt_lines_crlf_ranges_and_wraps() {
        let t = "user@host:~> numactl --hardware\r\navailable: 2 nodes (0-1)\r\nnode 0 cpus: 0-1,\r\n2 3\r\nnode 0 size: 1024 MB\r\nnode 0 free: 512 MB\r\nnode 1 cpus:\t4-7\r\nnode 1 size: 2048 MB  \r\nnode 1 free: 1000 MB\r\n\r\nnode distances:\r\nnode 0 1\r\n0: 10 21\r\n1: 21 10\r\n";
        assert_eq!(parse(t).unwrap(), parse(TWO).unwrap());
    }

    #[test]
    fn old_format_without_cpus_or_distances() {
        let h = parse("available: 1 nodes (0)\nnode 0 size: 100 MB\nnode 0 free: 50 MB\n").unwrap();
        assert_eq!(h.nodes[0].cpus, Vec::<u32>::new());
        assert_eq!(h.distances, None);
        let h = parse("node 0 size: 100 MB\nNo distance information available.\n").unwrap();
        assert_eq!(h.nodes[0].free_mb, None);
        assert_eq!(h.distances, None);
    }

    #[test]
    fn sparse_ids_and_asymmetric_distances_follow_the_header() {
        let t = "node 5 size: 1 MB\nnode 0 size: 2 MB\nnode 2 size: 0 MB\nnode 2 cpus:\nnode distances:\nnode 5 0 2\n 2: 30 20 10\n 0: 12 10 20\n 5: 10 11 33\n";
        let h = parse(t).unwrap();
        assert_eq!(h.nodes.iter().map(|n| n.id).collect::<Vec<_>>(), vec![0, 2, 5]);
        // Row/column order is node id order: 0, 2, 5.
        assert_eq!(h.distances, Some(vec![vec![10, 20, 12], vec![20, 10, 30], vec![11, 33, 10]]));
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            line_of("node 0 cpus: 0 1\nnode 0 size: 1 MB\nnode 1 cpus: 1\nnode 1 size: 1 MB\n"),
            3
        );
        assert_eq!(line_of("node 0 size: lots MB\n"), 1);
        assert_eq!(line_of(&TWO.replace("  1:  21  10", "  1:  21")), 11);
        assert_eq!(line_of(&TWO.replace("  1:  21  10", "  7:  21  10")), 11);
        assert_eq!(line_of(&TWO.replace("  1:  21  10\n", "")), 10);
        assert_eq!(line_of(&TWO.replace("  1:  21  10\n", "\n\n")), 10);
        assert_eq!(line_of(&TWO.replace("2 nodes", "3 nodes")), 1);
        assert_eq!(line_of(&TWO.replace("(0-1)", "(0,2)")), 1);
        assert_eq!(line_of(&TWO.replace("  0:  10  21", "  0:  10  2x")), 10);
        assert_eq!(line_of("hello\nnode 0 size: 1 MB\n"), 1);
        assert_eq!(line_of("node 0 size: 1 MB\nnode 0 bogus: 3\n"), 2);
        assert_eq!(line_of("node 0 cpus: 0\nnode 0 size: 1 MB\n3 4\n"), 3);
        assert_eq!(line_of("node 0 cpus: 0 1\n"), 1);
        assert_eq!(line_of(""), 1);
        assert_eq!(line_of("node 0 cpus: 3-1\nnode 0 size: 1 MB"), 1);
        assert_eq!(line_of("node 0 cpus: 0-99999999999\nnode 0 size: 1 MB"), 1);
        // More CPUs than limits.rs allows, over a wrapped line or on a second node.
        assert_eq!(line_of("node 0 cpus: 0-200\n201-400\nnode 0 size: 1 MB"), 2);
        assert_eq!(line_of("node 0 cpus: 0-200\nnode 1 cpus: 201-400\nnode 0 size: 1 MB"), 2);
    }

    #[test]
    fn markdown_fences_are_skipped() {
        let t = format!("```console\n$ numactl -H\n{TWO}```\n");
        assert_eq!(parse(&t).unwrap(), parse(TWO).unwrap());
    }

    #[test]
    fn a_header_opens_the_table_without_its_title() {
        let t = TWO.replace("node distances:\n", "");
        assert_eq!(parse(&t).unwrap(), parse(TWO).unwrap());
    }

    #[test]
    fn long_lines_are_cut_in_messages() {
        let e = parse(&format!("node 0 size: 1 MB\n{}\n", "x".repeat(5000))).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.len() < 120, "{}", e.message);
    }

    #[test]
    fn a_trailing_prompt_is_skipped_but_not_other_text() {
        for prompt in ["user@host:~>", "$", "[root@h ~]#", "host%"] {
            assert_eq!(parse(&format!("{TWO}{prompt}\n\n")).unwrap(), parse(TWO).unwrap());
        }
        assert_eq!(line_of(&format!("{TWO}$\nmore\n")), 12);
        assert_eq!(line_of(&format!("{TWO}more\n")), 12);
    }

    #[test]
    fn ranges_compress() {
        assert_eq!(ranges(&[0, 1, 2, 3, 8, 9, 11]), "0-3,8-9,11");
        assert_eq!(ranges(&[]), "");
    }
}
