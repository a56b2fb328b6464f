//! A reader of `/proc/zoneinfo` as people paste it, from the 4.x layouts (per-zone
//! `numa_*`, `all_unreclaimable`) to the 5.x/6.x ones (`per-node stats`, `cma`, empty
//! zones printed, `high_min`/`high_max` in pagesets), with a prompt line, CRLF, a mail
//! client's quoting, lost indentation or hard-wrapped `protection:` lists.
//!
//! What it gives, per node and zone: free, min/low/high watermarks, spanned/present/
//! managed pages and each CPU's pageset (count, high, batch). Beside each zone the model
//! has (DMA, DMA32 and Normal: the lowmem zones `__setup_per_zone_wmarks` shares
//! `min_free_kbytes` over) it puts what the engine derives for a zone of that many managed
//! pages ([`crate::mm::page_alloc::watermarks`], [`crate::mm::page_alloc::pageset_batch`]),
//! so a pasted machine shows model and reality side by side. Every other line is named in
//! `unused`: read, not used by the model.
//!
//! A run uses it through [`node_zones`] (`[machine] zoneinfo` beside `numactl`): each node's
//! zones become the model's one zone of that node (sizes, watermarks, pageset sizes), at
//! the scenario's `mem_scale`; see there for what is scaled and what is not.
//!
//! Decisions: a line is `Node N, zone NAME`, `pagesets`, `per-node stats`, `cpu: N`, or a
//! `name value` / `name: value` line with a whole number (or a `(a, b, ...)` list); any
//! other line is an error naming it. Zone fields are told from pageset fields by the colon
//! (`high 7` is the watermark, `high: 6` a pageset's), so lost indentation does not matter.

use crate::paste::{err, is_bare_prompt, lines, quote, PasteError};
use serde::Serialize;

/// What `/proc/zoneinfo` says.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Zoneinfo {
    /// Zones in the order printed.
    pub zones: Vec<Zone>,
    /// Names of the lines read but not used by the model (`spanned`, `protection`,
    /// `per-node stats`, counters such as `nr_free_pages`), each once, in first-seen order.
    pub unused: Vec<String>,
    /// Managed pages of the lowmem zones (DMA, DMA32, Normal) over all nodes: what the
    /// model's `min_free_kbytes` is derived from.
    pub lowmem_managed: u64,
}

/// One zone of one node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Zone {
    /// Node id.
    pub node: u32,
    /// `DMA`, `DMA32`, `Normal`, `HighMem`, `Movable`, `Device`.
    pub name: String,
    /// The `Node N, zone NAME` line.
    pub line: usize,
    /// `pages free`.
    pub free: Option<u64>,
    /// `min` watermark, pages.
    pub min: u64,
    /// `low` watermark, pages.
    pub low: u64,
    /// `high` watermark, pages.
    pub high: u64,
    /// `spanned` pages.
    pub spanned: Option<u64>,
    /// `present` pages.
    pub present: Option<u64>,
    /// `managed` pages (kernels before 3.8 do not print it).
    pub managed: Option<u64>,
    /// Per-CPU pagesets.
    pub pagesets: Vec<Pageset>,
    /// What the model derives for a lowmem zone of `managed` pages; `None` for zones the
    /// model has no counterpart of (HighMem, Movable, Device) or without pages.
    pub model: Option<ZoneModel>,
}

/// One CPU's pageset of a zone.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pageset {
    /// CPU number.
    pub cpu: u32,
    /// Pages on its lists.
    pub count: u64,
    /// `high` (the current value when the kernel auto-tunes it).
    pub high: u64,
    /// `batch`.
    pub batch: u64,
    /// `high_min` (v6.7 and later), when printed.
    pub high_min: Option<u64>,
    /// `high_max` (v6.7 and later), when printed.
    pub high_max: Option<u64>,
}

/// What the engine derives for a zone of the same managed pages.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ZoneModel {
    /// Watermarks `[min, low, high]` (`watermarks`).
    pub wmarks: [u64; 3],
    /// The pagesets' `batch`: `max(1, zone_batchsize)` ([`crate::mm::page_alloc::pageset_batch`]).
    pub batch: u64,
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ' || c == '-')
}

fn is_list_tail(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_digit() || " ,()".contains(c))
}

/// `Node 0, zone   Normal` → (0, "Normal").
fn zone_header(s: &str) -> Option<Result<(u32, String), String>> {
    let rest = s.strip_prefix("Node")?.trim_start();
    let (id, zone) = rest.split_once(',')?;
    let name = zone.trim().strip_prefix("zone")?.trim();
    Some(match (id.trim().parse::<u32>(), name.is_empty()) {
        (Ok(id), false) => Ok((id, name.to_string())),
        _ => Err(format!("cannot read `{}`: expected `Node N, zone NAME`", quote(s))),
    })
}

enum Place {
    Start,
    PerNode,
    Zone,
    Pagesets,
}

fn note(unused: &mut Vec<String>, name: &str) {
    if !unused.iter().any(|u| u == name) {
        unused.push(name.to_string());
    }
}

/// Reads `/proc/zoneinfo` text.
pub fn parse(text: &str) -> Result<Zoneinfo, PasteError> {
    // Refused before it is read: a pasted text larger than any real machine prints (limits.rs).
    if let Err(message) = crate::limits::check_bytes("the /proc/zoneinfo text", text.len(), crate::limits::MAX_PASTE_BYTES) {
        return Err(PasteError { line: 1, message });
    }
    let all = lines(text);
    let last = all.last().map(|(n, _)| *n);
    let mut out = Zoneinfo::default();
    let mut place = Place::Start;
    // A name left alone on its line, waiting for its number on the next (a hard wrap).
    let mut pending: Option<(usize, String)> = None;
    for &(line, raw) in &all {
        let mut s = raw.trim().to_string();
        if let Some((_, name)) = pending.take() {
            s = format!("{name} {s}");
        }
        let s = s.as_str();
        if let Some(h) = zone_header(s) {
            let (node, name) = h.map_err(|m| PasteError { line, message: m })?;
            out.zones.push(Zone {
                node,
                name,
                line,
                ..Zone::default()
            });
            place = Place::Zone;
            continue;
        }
        if matches!(place, Place::Start) {
            if s.contains("zoneinfo") || is_bare_prompt(s) {
                continue; // a prompt line
            }
            return err(line, format!("cannot read `{}`: expected `Node N, zone NAME` first", quote(s)));
        }
        if Some(line) == last && is_bare_prompt(s) && !s.contains(':') {
            continue;
        }
        let Some(zone) = out.zones.last_mut() else {
            return err(line, "a line before the first `Node N, zone NAME`");
        };
        match s {
            "per-node stats" => {
                place = Place::PerNode;
                note(&mut out.unused, "per-node stats");
                continue;
            }
            "pagesets" => {
                place = Place::Pagesets;
                continue;
            }
            _ => {}
        }
        // `protection: (0, 2825, 7880)`, possibly wrapped over lines.
        if s.starts_with("protection:") || (is_list_tail(s) && s.contains(',')) {
            note(&mut out.unused, "protection");
            continue;
        }
        // A name whose number went to the next line (`pages free` / `53520`).
        if s == "pages free" || (is_name(s) && !s.contains(char::is_whitespace)) {
            pending = Some((line, s.to_string()));
            continue;
        }
        let (name, colon, value) = match s.split_once(':') {
            Some((n, v)) => (n.trim(), true, v.trim()),
            None => match s.rsplit_once(char::is_whitespace) {
                Some((n, v)) => (n.trim(), false, v.trim()),
                None => {
                    return err(
                        line,
                        format!("cannot read `{}`: expected a `name value` line of /proc/zoneinfo", quote(s)),
                    )
                }
            },
        };
        if !is_name(name) {
            return err(
                line,
                format!("cannot read `{}`: expected a `name value` line of /proc/zoneinfo", quote(s)),
            );
        }
        let Ok(v) = value.parse::<u64>() else {
            return err(line, format!("`{name}`: `{}` is not a whole number", quote(value)));
        };
        let zone_field = |z: &mut Zone, unused: &mut Vec<String>| match name {
            "pages free" => z.free = Some(v),
            "min" => z.min = v,
            "low" => z.low = v,
            "high" => z.high = v,
            "spanned" => z.spanned = Some(v),
            "present" => z.present = Some(v),
            "managed" => z.managed = Some(v),
            other => note(unused, other),
        };
        match (&place, colon) {
            (_, false)
                if name == "pages free"
                    || ["min", "low", "high", "spanned", "present", "managed"].contains(&name) && !matches!(place, Place::PerNode) =>
            {
                place = Place::Zone;
                zone_field(zone, &mut out.unused);
            }
            (Place::Pagesets, true) if name == "cpu" => {
                let Ok(cpu) = u32::try_from(v) else {
                    return err(line, format!("cpu `{v}` is too large"));
                };
                zone.pagesets.push(Pageset { cpu, ..Pageset::default() });
            }
            (Place::Pagesets, true) if ["count", "high", "batch", "high_min", "high_max"].contains(&name) => {
                let Some(p) = zone.pagesets.last_mut() else {
                    return err(line, format!("`{name}:` before any `cpu: N` line of the pagesets"));
                };
                match name {
                    "count" => p.count = v,
                    "high" => p.high = v,
                    "batch" => p.batch = v,
                    "high_min" => p.high_min = Some(v),
                    _ => p.high_max = Some(v),
                }
            }
            (Place::PerNode, false) => {} // a per-node counter (noted once as `per-node stats`)
            (Place::Zone, false) if name.starts_with("nr_") || name.starts_with("numa_") => {
                note(&mut out.unused, "zone counters (nr_*, numa_*)");
            }
            _ => note(&mut out.unused, name),
        }
    }
    if let Some((line, name)) = pending {
        return err(line, format!("`{}` has no value", quote(&name)));
    }
    if out.zones.is_empty() {
        return err(
            all.first().map_or(1, |(n, _)| *n),
            "no `Node N, zone NAME` lines: is this /proc/zoneinfo?",
        );
    }
    let lowmem = |z: &Zone| ["DMA", "DMA32", "Normal"].contains(&z.name.as_str());
    out.lowmem_managed = out.zones.iter().filter(|z| lowmem(z)).filter_map(|z| z.managed).sum();
    let total = out.lowmem_managed;
    for z in &mut out.zones {
        let managed = z.managed.filter(|&m| m > 0 && m <= u64::from(u32::MAX));
        if let (true, Some(m)) = (lowmem(z), managed) {
            let [min, low, high] = crate::mm::page_alloc::watermarks(m as u32, total);
            z.model = Some(ZoneModel {
                wmarks: [u64::from(min), u64::from(low), u64::from(high)],
                batch: u64::from(crate::mm::page_alloc::pageset_batch(m as u32)),
            });
        }
    }
    Ok(out)
}

/// What a run takes from `/proc/zoneinfo` for one node: the model has one zone per node, so
/// the node's populated zones (DMA, DMA32, Normal, HighMem, Movable: every zone with managed
/// pages) become that one zone.
///
/// Scale: a real machine has millions of pages and the model runs at `mem_scale` real pages
/// per simulated page (as the node sizes of a `numactl` text do). Memory amounts are divided
/// by it: managed pages and the min/low/high watermarks, so a node reaches a watermark at the
/// same share of its memory as the real one. Pageset sizes (`batch`, `high`, `high_min`,
/// `high_max`) are per-CPU list lengths, not shares of memory: they are used as printed at
/// any scale, because the scenario's workloads (pages faulted and freed per CPU) are not
/// scaled either (the PCP scenarios keep their test box's batch 63 / high 367 on a smaller
/// machine for the same reason). At a large scale a node's CPUs can then hold more of its
/// simulated memory on their lists than the real ones could of the real memory; `pcp_share`
/// says how much.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeZone {
    /// Node id as the texts print it.
    pub node: u32,
    /// The zones merged, in the order printed (`["DMA", "DMA32", "Normal"]`).
    pub zones: Vec<String>,
    /// Their managed pages (real), summed; `present` for a kernel that prints no `managed`.
    pub managed: u64,
    /// Their `min`/`low`/`high` watermarks (real pages), summed.
    pub wmarks: [u64; 3],
    /// `managed / mem_scale` (at least 1): the model node's pages.
    pub sim_managed: u32,
    /// `wmarks / mem_scale`: the model zone's watermarks.
    pub sim_wmarks: [u32; 3],
    /// The zone whose pagesets are taken: the node's largest (most managed pages), where most
    /// of a workload's pages come from. `None` when it prints no pagesets.
    pub pageset_zone: Option<String>,
    /// Its pagesets' `batch` (the value most CPUs have); `None`: not printed.
    pub batch: Option<u32>,
    /// Its `high_min` when printed, else its `high` (kernels before v6.7 have one fixed
    /// `high`; a v6.7+ kernel that does not print `high_min` shows a tuned `high` here).
    pub high_min: Option<u32>,
    /// Its `high_max` when printed, else derived as the model derives it (`zone_highsize`
    /// with fraction 8) from the real zone and the node's CPUs, when `high_min` is pasted.
    pub high_max: Option<u32>,
    /// Whether `high_max` was printed (else derived, or `None`).
    pub high_max_pasted: bool,
    /// Pages the node's CPUs could hold on their lists at `high_min` (CPUs × high_min), per
    /// hundred simulated pages of the node.
    pub pcp_share: u32,
}

/// The value most of `v` have (the larger on a tie); `None` when `v` is empty.
fn most_common(v: impl Iterator<Item = u64>) -> Option<u64> {
    let mut all: Vec<u64> = v.collect();
    all.sort_unstable();
    let mut best: Option<(usize, u64)> = None;
    let mut i = 0;
    while i < all.len() {
        let j = all[i..].iter().position(|&x| x != all[i]).map_or(all.len(), |k| i + k);
        if best.is_none_or(|(n, _)| j - i >= n) {
            best = Some((j - i, all[i]));
        }
        i = j;
    }
    best.map(|(_, v)| v)
}

/// Each node of `hw` (the same machine's `numactl --hardware`, in its order) with what `z`
/// says of its zones, at `mem_scale` real pages per simulated page. Errors name the line of
/// the zoneinfo text: a node numactl gives memory but the zoneinfo no zone, a node the
/// zoneinfo has and numactl not, or sizes that disagree by more than 2 % (two machines, or a
/// 64 KiB-page kernel, whose zoneinfo counts 16 times fewer pages).
pub fn node_zones(z: &Zoneinfo, hw: &crate::numactl::NumaHardware, mem_scale: u64) -> Result<Vec<NodeZone>, PasteError> {
    let scale = mem_scale.max(1);
    if let Some(stray) = z.zones.iter().find(|zone| !hw.nodes.iter().any(|n| n.id == zone.node)) {
        let ids: Vec<String> = hw.nodes.iter().map(|n| n.id.to_string()).collect();
        return err(
            stray.line,
            format!(
                "node {} is not in the numactl text (its nodes: {}): paste both from one machine",
                stray.node,
                ids.join(", ")
            ),
        );
    }
    let online = hw.nodes.iter().map(|n| n.cpus.len() as u32).sum::<u32>();
    let mut out = Vec::new();
    for n in &hw.nodes {
        let mine: Vec<&Zone> = z.zones.iter().filter(|zone| zone.node == n.id).collect();
        let pages = |zone: &Zone| zone.managed.or(zone.present).unwrap_or(0);
        let populated: Vec<&Zone> = mine.iter().copied().filter(|zone| pages(zone) > 0).collect();
        let managed: u64 = populated.iter().map(|zone| pages(zone)).sum();
        let first_line = mine.first().map_or(1, |zone| zone.line);
        if mine.is_empty() && n.size_mb > 0 {
            return err(
                z.zones.last().map_or(1, |zone| zone.line),
                format!(
                    "the zoneinfo text has no zone of node {}, which numactl gives {} MB: paste both from one machine",
                    n.id, n.size_mb
                ),
            );
        }
        // numactl's size is the node's MemTotal, the sum of its zones' managed pages, in MB.
        let mb = managed / 256;
        if mb.abs_diff(n.size_mb) > n.size_mb / 50 + 1 {
            return err(
                first_line,
                format!(
                    "node {}'s zones manage {managed} pages ({mb} MB) but numactl says {} MB: paste both from one machine (a 64 KiB-page kernel counts 16 times fewer pages)",
                    n.id, n.size_mb
                ),
            );
        }
        let sum = |w: fn(&Zone) -> u64| populated.iter().map(|zone| w(zone)).sum::<u64>();
        let wmarks = [sum(|zone| zone.min), sum(|zone| zone.low), sum(|zone| zone.high)];
        let sim_managed = if managed > 0 { (managed / scale).max(1) } else { 0 };
        if sim_managed > 1 << 26 {
            return err(
                first_line,
                format!(
                    "node {} would have {sim_managed} simulated pages, above the model's 2^26 per node: raise mem_scale",
                    n.id
                ),
            );
        }
        let sim_managed = sim_managed as u32;
        let sim_wmarks = wmarks.map(|w| (w / scale).min(u64::from(sim_managed)) as u32);
        let big = populated
            .iter()
            .copied()
            .max_by_key(|zone| (pages(zone), std::cmp::Reverse(zone.line)));
        let sets = big.map(|zone| zone.pagesets.as_slice()).unwrap_or_default();
        let to32 = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        let batch = most_common(sets.iter().map(|p| p.batch)).map(to32);
        let high_min = most_common(sets.iter().map(|p| p.high_min.unwrap_or(p.high))).map(to32);
        let printed_max = most_common(sets.iter().filter_map(|p| p.high_max)).map(to32);
        let high_max = match (printed_max, high_min, big) {
            (Some(h), _, _) => Some(h),
            (None, Some(_), Some(zone)) => {
                let b = batch.unwrap_or_else(|| crate::mm::page_alloc::pageset_batch(to32(pages(zone))));
                Some(crate::mm::page_alloc::zone_highsize(
                    to32(pages(zone)),
                    to32(zone.low),
                    b,
                    n.cpus.len() as u32,
                    online,
                    8,
                ))
            }
            _ => None,
        };
        let held = u64::from(high_min.unwrap_or(0)) * n.cpus.len() as u64;
        out.push(NodeZone {
            node: n.id,
            zones: populated.iter().map(|zone| zone.name.clone()).collect(),
            managed,
            wmarks,
            sim_managed,
            sim_wmarks,
            pageset_zone: big.filter(|zone| !zone.pagesets.is_empty()).map(|zone| zone.name.clone()),
            batch,
            high_min,
            high_max,
            high_max_pasted: printed_max.is_some(),
            pcp_share: (held * 100).checked_div(u64::from(sim_managed)).map_or(0, to32),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = "Node 0, zone   Normal\n  pages free     100\n        min      5\n        low      6\n        high     7\n        spanned  300\n        present  300\n        managed  290\n        protection: (0, 0)\n  pagesets\n    cpu: 0\n              count: 2\n              high:  6\n              batch: 1\n  vm stats threshold: 4\n";

    #[test]
    fn reads_a_zone() {
        let z = parse(ONE).unwrap();
        let n = &z.zones[0];
        assert_eq!(
            (n.node, n.name.as_str(), n.free, n.min, n.low, n.high, n.managed),
            (0, "Normal", Some(100), 5, 6, 7, Some(290))
        );
        assert_eq!(
            n.pagesets,
            vec![Pageset {
                cpu: 0,
                count: 2,
                high: 6,
                batch: 1,
                high_min: None,
                high_max: None
            }]
        );
        assert_eq!(z.unused, vec!["protection", "vm stats threshold"]);
        assert!(n.model.is_some());
    }

    #[test]
    fn lost_indentation_crlf_and_wraps_read_the_same() {
        let flat: String = ONE.lines().map(|l| format!("{}\r\n", l.trim())).collect();
        assert_eq!(parse(&flat).unwrap(), parse(ONE).unwrap());
        let wrapped = ONE.replace("  pages free     100", "  pages free\n100");
        assert_eq!(parse(&wrapped).unwrap().zones[0].free, Some(100));
    }

    #[test]
    fn a_small_zone_gets_batch_1_not_0() {
        // The DMA zone of the real 5.x sample: 3,840 managed pages. zone_batchsize gives 0
        // (3,840 >> 10 = 3, / 4 = 0, raised to 1, rounddown_pow_of_two(1) - 1 = 0); the
        // pagesets get max(1, 0) = 1, which is what that machine prints.
        let dma = ONE
            .replace("managed  290", "managed  3840")
            .replace("present  300", "present  4096");
        let z = parse(&dma).unwrap();
        assert_eq!(crate::mm::page_alloc::zone_batchsize(3840), 0);
        assert_eq!(z.zones[0].model.as_ref().map(|m| m.batch), Some(1));
    }

    fn hw(sizes: &[(u32, u64, &[u32])]) -> crate::numactl::NumaHardware {
        crate::numactl::NumaHardware {
            nodes: sizes
                .iter()
                .map(|&(id, size_mb, cpus)| crate::numactl::NumaNode {
                    id,
                    cpus: cpus.to_vec(),
                    size_mb,
                    free_mb: None,
                })
                .collect(),
            distances: None,
        }
    }

    const TWO: &str = "Node 0, zone DMA\n pages free 10\n min 2\n low 3\n high 4\n managed 3840\n pagesets\n cpu: 0\n count: 0\n high: 0\n batch: 1\n\
        Node 0, zone Normal\n pages free 100\n min 40\n low 50\n high 60\n managed 40960\n pagesets\n cpu: 0\n count: 1\n high: 25\n batch: 7\n cpu: 1\n count: 1\n high: 25\n batch: 7\n\
        Node 1, zone Normal\n pages free 100\n min 40\n low 50\n high 60\n managed 40960\n pagesets\n cpu: 0\n count: 0\n high: 25\n batch: 7\n high_min: 20\n high_max: 900\n";

    #[test]
    fn node_zones_merge_a_nodes_zones_and_scale_memory_not_pagesets() {
        let z = parse(TWO).unwrap();
        // 44,800 pages = 175 MB; 40,960 = 160 MB.
        let machine = hw(&[(0, 175, &[0, 1]), (1, 160, &[2, 3])]);
        let n = node_zones(&z, &machine, 1).unwrap();
        assert_eq!(n[0].zones, vec!["DMA", "Normal"]);
        assert_eq!(
            (n[0].managed, n[0].wmarks, n[0].sim_managed, n[0].sim_wmarks),
            (44_800, [42, 53, 64], 44_800, [42, 53, 64])
        );
        // The pagesets of the largest zone, as printed; high_max derived from the real zone.
        assert_eq!(
            (n[0].pageset_zone.as_deref(), n[0].batch, n[0].high_min),
            (Some("Normal"), Some(7), Some(25))
        );
        assert_eq!((n[0].high_max, n[0].high_max_pasted), (Some(40_960 / 8 / 2), false));
        assert_eq!((n[1].high_min, n[1].high_max, n[1].high_max_pasted), (Some(20), Some(900), true));
        // At mem_scale 8: memory divided, pagesets not.
        let s = node_zones(&z, &machine, 8).unwrap();
        assert_eq!((s[0].sim_managed, s[0].sim_wmarks), (5_600, [5, 6, 8]));
        assert_eq!(
            (s[0].batch, s[0].high_min, s[0].high_max),
            (n[0].batch, n[0].high_min, n[0].high_max)
        );
        assert_eq!(s[0].pcp_share, 25 * 2 * 100 / 5_600);
    }

    #[test]
    fn node_zones_refuse_another_machine_naming_the_line() {
        let z = parse(TWO).unwrap();
        let e = node_zones(&z, &hw(&[(0, 175, &[0]), (1, 2000, &[1])]), 1).unwrap_err();
        assert_eq!(e.line, 27, "{e}"); // `Node 1, zone Normal`
        assert!(
            e.message
                .contains("node 1's zones manage 40960 pages (160 MB) but numactl says 2000 MB"),
            "{e}"
        );
        let e = node_zones(&z, &hw(&[(0, 175, &[0])]), 1).unwrap_err();
        assert!(e.message.contains("node 1 is not in the numactl text"), "{e}");
        let e = node_zones(&z, &hw(&[(0, 175, &[0]), (1, 160, &[1]), (2, 100, &[2])]), 1).unwrap_err();
        assert!(e.message.contains("no zone of node 2"), "{e}");
        // A memory-less node needs no zone.
        assert!(node_zones(&z, &hw(&[(0, 175, &[0]), (1, 160, &[1]), (2, 0, &[2])]), 1).is_ok());
    }

    #[test]
    fn errors_name_the_line() {
        let line = |t: &str| parse(t).unwrap_err().line;
        assert_eq!(line(&ONE.replace("low      6", "low      six")), 4);
        assert_eq!(line(&format!("{ONE}<img src=x onerror=alert(1)>\n")), 16);
        assert_eq!(line("hello\nNode 0, zone Normal\n"), 1);
        assert_eq!(line(""), 1);
    }
}
