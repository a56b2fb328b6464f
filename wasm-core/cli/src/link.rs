//! Lab links for what the CLI ran (`--link`): the same URL format the lab reads and writes
//! (`web/src/share/url.ts`, format v2), so a reviewer pastes the table and the link that opens
//! those runs, side by side for a comparison.
//!
//! A built-in scenario is named by id and the FNV-1a hash of its text (the lab opens that very
//! version, from its archive of shipped versions, if the scenario changes later); a scenario
//! file travels whole, compressed with lz-string as the lab compresses an edited scenario.

use mmviz_engine::patches::{ToggleSet, ToggleValue};

/// The lab's URL format version (`URL_FORMAT_VERSION` in `web/src/share/url.ts`).
pub const URL_FORMAT_VERSION: u32 = 2;

/// Where links point when neither `--base` nor `MMVIZ_PUBLIC_URL` says: the lab that
/// `bash scripts/start.sh` serves on this machine.
pub const LOCAL_LAB: &str = "http://127.0.0.1:5173/";

/// FNV-1a 32-bit over the UTF-16 code units of `text`, as 8 hex digits: the lab's `fnv1a32Hex`.
pub fn fnv1a32_hex(text: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for unit in text.encode_utf16() {
        hash ^= u32::from(unit);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{hash:08x}")
}

/// What a link opens: one run, or two side by side.
pub enum Compared {
    /// One run.
    One,
    /// A/B of one toggle's two values.
    Toggle { id: String, a: ToggleValue, b: ToggleValue },
    /// A/B of two kernels.
    Kernels { a: String, b: String },
    /// A/B of two presets, each `mechanism/name`.
    Presets { a: String, b: String },
}

/// The scenario a link names.
pub enum LinkScenario<'a> {
    /// A built-in, by id, with its text (hashed).
    Builtin { id: &'a str, text: &'a str },
    /// A scenario file's text.
    Custom { text: &'a str },
}

/// Percent-encodes a value as JavaScript's `encodeURIComponent` does.
fn encode(value: &str) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn value_text(v: &ToggleValue) -> String {
    match v {
        ToggleValue::Bool(b) => b.to_string(),
        ToggleValue::Enum(e) => e.clone(),
    }
}

/// The lab link (base URL + fragment) for `scenario` with the explicitly chosen toggles of
/// `toggles`, `params` and `compared`, under `schedule` (`STEP:CPU,...`, empty for the default
/// order; one schedule for both runs of a comparison, the lab's `sched=`), at `step` (A's step;
/// B's is the same point of the workload as A's in the lab, which is also step `step` before
/// the runs part).
pub fn lab_link(
    base: &str,
    scenario: &LinkScenario<'_>,
    toggles: &ToggleSet,
    params: &[(String, i64)],
    compared: &Compared,
    schedule: &str,
    step: u64,
) -> String {
    let mut parts = vec![format!("v={URL_FORMAT_VERSION}")];
    match scenario {
        LinkScenario::Builtin { id, text } => {
            parts.push(format!("sc={}", encode(id)));
            parts.push(format!("h={}", fnv1a32_hex(text)));
        }
        LinkScenario::Custom { text } => parts.push(format!("s={}", lz_str::compress_to_encoded_uri_component(text))),
    }
    // The lab sorts toggles and params by name; it drops those equal to the scenario's own.
    let compared_ids: Vec<&str> = match compared {
        Compared::Toggle { id, .. } => vec![id.as_str()],
        _ => Vec::new(),
    };
    let mut ts: Vec<(&str, String)> = toggles
        .iter()
        .filter(|(id, _)| toggles.is_explicit(id) && !compared_ids.contains(id))
        .map(|(id, v)| (id, value_text(v)))
        .collect();
    ts.sort();
    for (id, v) in ts {
        parts.push(format!("t.{id}={}", encode(&v)));
    }
    let mut ps: Vec<&(String, i64)> = params.iter().collect();
    ps.sort();
    for (k, v) in ps {
        parts.push(format!("p.{}={v}", encode(k)));
    }
    if !schedule.is_empty() {
        // ':' and ',' stay readable, as the lab writes them (`scheduleToUrl` in url.ts).
        parts.push(format!("sched={}", encode(schedule).replace("%3A", ":").replace("%2C", ",")));
    }
    parts.push(format!("step={step}"));
    match compared {
        Compared::One => {}
        Compared::Toggle { id, a, b } => parts.push(format!("ab=t.{id}:{},{}", encode(&value_text(a)), encode(&value_text(b)))),
        Compared::Kernels { a, b } => parts.push(format!("ab=k:{a},{b}")),
        Compared::Presets { a, b } => parts.push(format!("ab=p:{a},{b}")),
    }
    if !matches!(compared, Compared::One) {
        parts.push(format!("bstep={step}"));
    }
    let base = base.split('#').next().unwrap_or(base);
    format!("{base}#{}", parts.join("&"))
}

/// The base URL: `--base`, else `MMVIZ_PUBLIC_URL`, else the local lab (with a note on stderr).
pub fn base_url(flag: Option<&str>) -> String {
    if let Some(b) = flag.filter(|b| !b.is_empty()) {
        return b.to_string();
    }
    if let Ok(b) = std::env::var("MMVIZ_PUBLIC_URL") {
        if !b.is_empty() {
            return b;
        }
    }
    eprintln!(
        "mmviz: note: the link points to the lab on this machine ({LOCAL_LAB}); give --base URL or set MMVIZ_PUBLIC_URL to where the lab is published so that it reaches the recipient"
    );
    LOCAL_LAB.to_string()
}

/// `mechanism/name` of a preset, as the lab names it.
pub fn preset_key(name: &str) -> Option<String> {
    mmviz_engine::registry::MECHANISMS
        .iter()
        .find(|m| m.presets.iter().any(|p| p.name == name))
        .map(|m| format!("{}/{name}", m.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_text_as_the_lab_does() {
        // The lab's fnv1a32Hex of "" and of "a" (FNV-1a's published values for one byte).
        assert_eq!(fnv1a32_hex(""), "811c9dc5");
        assert_eq!(fnv1a32_hex("a"), "e40c292c");
        // Over UTF-16 code units, not UTF-8 bytes: "é" is one unit.
        assert_eq!(
            fnv1a32_hex("é"),
            format!("{:08x}", (0x811c_9dc5u32 ^ 0xe9).wrapping_mul(0x0100_0193))
        );
    }

    #[test]
    fn encodes_like_encode_uri_component() {
        assert_eq!(encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        assert_eq!(encode("v5.13-x_y!~*'()"), "v5.13-x_y!~*'()");
    }

    #[test]
    fn a_toggle_comparison_links_to_both_runs_at_their_start() {
        let mut t = ToggleSet::default();
        t.set_text("tlb_flush_multi", "off").unwrap_or_default();
        let link = lab_link(
            "https://lab.example/",
            &LinkScenario::Builtin {
                id: "numa-hint-fault-101",
                text: "a",
            },
            &t,
            &[("pages".to_string(), 8)],
            &Compared::Toggle {
                id: "numa_delay_map".to_string(),
                a: ToggleValue::Bool(false),
                b: ToggleValue::Bool(true),
            },
            "",
            0,
        );
        assert_eq!(
            link,
            "https://lab.example/#v=2&sc=numa-hint-fault-101&h=e40c292c&t.tlb_flush_multi=false&p.pages=8&step=0&ab=t.numa_delay_map:false,true&bstep=0"
        );
    }

    #[test]
    fn a_schedule_travels_as_sched_readable_before_the_step() {
        let link = lab_link(
            "x/",
            &LinkScenario::Builtin {
                id: "mremap-race-101",
                text: "a",
            },
            &ToggleSet::default(),
            &[],
            &Compared::Toggle {
                id: "mremap_flush".to_string(),
                a: ToggleValue::Enum("deferred".into()),
                b: ToggleValue::Enum("dirty".into()),
            },
            "4:1,9:3",
            0,
        );
        assert_eq!(
            link,
            "x/#v=2&sc=mremap-race-101&h=e40c292c&sched=4:1,9:3&step=0&ab=t.mremap_flush:deferred,dirty&bstep=0"
        );
    }

    #[test]
    fn a_scenario_file_travels_whole() {
        let link = lab_link(
            "x/",
            &LinkScenario::Custom {
                text: "id = \"mine\"\ntitle = \"Mine\"\n",
            },
            &ToggleSet::default(),
            &[],
            &Compared::One,
            "",
            3,
        );
        // The lab's lz-string gives this for the same text (its golden link of format 1).
        assert_eq!(link, "x/#v=2&s=JYEwBAvGBEC2wDsCm0BQAXY6A2TIwFlEVUg&step=3");
    }
}
