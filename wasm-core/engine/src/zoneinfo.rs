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

    #[test]
    fn errors_name_the_line() {
        let line = |t: &str| parse(t).unwrap_err().line;
        assert_eq!(line(&ONE.replace("low      6", "low      six")), 4);
        assert_eq!(line(&format!("{ONE}<img src=x onerror=alert(1)>\n")), 16);
        assert_eq!(line("hello\nNode 0, zone Normal\n"), 1);
        assert_eq!(line(""), 1);
    }
}
