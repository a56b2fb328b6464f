//! A reader of `/proc/vmstat` snapshots as people paste them, and the difference of two
//! ("model vs reality": a counter's change on a real machine beside the simulated counter
//! of the same name).
//!
//! The text is read as a stream of `name value` pairs, so a mail client that wrapped a
//! line between the name and its value, or a blog that ran lines together, reads the
//! same. Lines before the first pair (a prompt, `/proc/vmstat:`, a heading) are skipped,
//! as is a bare prompt at the end; anything else that is not a pair is an error naming
//! its line. CRLF, indentation, trailing blanks, Markdown fences and `> ` quoting are fine.

use crate::paste::{err, is_bare_prompt, lines, quote, PasteError};
use serde::Serialize;
use std::collections::BTreeMap;

/// One counter of a snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counter {
    /// The kernel's name (`pgfault`).
    pub name: String,
    /// Its value.
    pub value: u64,
    /// The 1-based line of its name.
    pub line: usize,
}

/// One counter in both snapshots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The kernel's name.
    pub name: String,
    /// In the first snapshot.
    pub before: u64,
    /// In the second.
    pub after: u64,
    /// `after - before` (negative for a gauge such as `nr_free_pages` that fell).
    pub delta: i64,
}

/// The difference of two snapshots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Delta {
    /// Counters both snapshots have, in the second one's order.
    pub changes: Vec<Change>,
    /// Names only the first has.
    pub only_before: Vec<String>,
    /// Names only the second has.
    pub only_after: Vec<String>,
}

fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_value(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// Whether a line is whole `name value` pairs.
fn is_pairs(s: &str) -> bool {
    let w: Vec<&str> = s.split_whitespace().collect();
    !w.is_empty() && w.len() % 2 == 0 && w.chunks(2).all(|p| is_name(p[0]) && is_value(p[1]))
}

/// Reads one `/proc/vmstat` snapshot.
pub fn parse(text: &str) -> Result<Vec<Counter>, PasteError> {
    // Refused before it is read: a pasted text larger than any real machine prints (limits.rs).
    if let Err(message) = crate::limits::check_bytes("the /proc/vmstat text", text.len(), crate::limits::MAX_PASTE_BYTES) {
        return Err(PasteError { line: 1, message });
    }
    let all = lines(text);
    let last = all.last().map(|(n, _)| *n);
    let mut out: Vec<Counter> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    // A name whose value is on a later line (a hard wrap).
    let mut name: Option<(usize, String)> = None;
    let mut started = false;
    for &(line, raw) in &all {
        let s = raw.trim();
        if !started {
            // A line of pairs, or a counter's name whose value was wrapped to the next line.
            let counters = is_pairs(s) || (is_name(s) && s.contains('_'));
            if !counters {
                continue; // a prompt or a heading before the counters
            }
            started = true;
        }
        if Some(line) == last && name.is_none() && is_bare_prompt(s) {
            continue;
        }
        for w in s.split_whitespace() {
            match name.take() {
                None if is_name(w) => name = Some((line, w.to_string())),
                None => {
                    return err(
                        line,
                        format!(
                            "cannot read `{}`: expected `name value` lines as /proc/vmstat prints them",
                            quote(s)
                        ),
                    )
                }
                Some((l, n)) if is_value(w) => {
                    let Ok(value) = w.parse::<u64>() else {
                        return err(line, format!("`{n}`: `{}` is too large for a counter", quote(w)));
                    };
                    if let Some(first) = seen.insert(n.clone(), l) {
                        return err(
                            l,
                            format!("a second `{n}` (the first is on line {first}): paste one snapshot per box"),
                        );
                    }
                    out.push(Counter { name: n, value, line: l });
                }
                Some((_, n)) => {
                    return err(
                        line,
                        format!("`{n}`: `{}` is not a whole number (`{}` expected a value)", quote(w), quote(&n)),
                    );
                }
            }
        }
    }
    if let Some((l, n)) = name {
        return err(l, format!("`{}` has no value", quote(&n)));
    }
    if out.is_empty() {
        return err(all.first().map_or(1, |(n, _)| *n), "no `name value` lines: is this /proc/vmstat?");
    }
    Ok(out)
}

/// `after - before` of every counter both snapshots have. Errors say which snapshot.
pub fn delta(before: &str, after: &str) -> Result<Delta, PasteError> {
    let b = parse(before).map_err(|e| PasteError {
        message: format!("before: {}", e.message),
        ..e
    })?;
    let a = parse(after).map_err(|e| PasteError {
        message: format!("after: {}", e.message),
        ..e
    })?;
    let bmap: BTreeMap<&str, u64> = b.iter().map(|c| (c.name.as_str(), c.value)).collect();
    let amap: BTreeMap<&str, u64> = a.iter().map(|c| (c.name.as_str(), c.value)).collect();
    let changes = a
        .iter()
        .filter_map(|c| {
            bmap.get(c.name.as_str()).map(|&bv| Change {
                name: c.name.clone(),
                before: bv,
                after: c.value,
                delta: (i128::from(c.value) - i128::from(bv)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
            })
        })
        .collect();
    Ok(Delta {
        changes,
        only_before: b
            .iter()
            .filter(|c| !amap.contains_key(c.name.as_str()))
            .map(|c| c.name.clone())
            .collect(),
        only_after: a
            .iter()
            .filter(|c| !bmap.contains_key(c.name.as_str()))
            .map(|c| c.name.clone())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_wraps_prompts_and_errors() {
        let c = parse("$ cat /proc/vmstat\r\nnr_free_pages 10\r\npgfault\r\n20 pgmajfault 3\r\nuser@h:~$\r\n").unwrap();
        assert_eq!(
            c.iter().map(|c| (c.name.as_str(), c.value, c.line)).collect::<Vec<_>>(),
            vec![("nr_free_pages", 10, 2), ("pgfault", 20, 3), ("pgmajfault", 3, 4)]
        );
        let line = |t: &str| parse(t).unwrap_err().line;
        assert_eq!(line("pgfault 1\npgfault 2\n"), 2);
        assert_eq!(line("pgfault 1\n<script>alert(1)</script>\n"), 2);
        assert_eq!(line("pgfault x\n"), 1);
        assert_eq!(line("pgfault\n"), 1);
        assert_eq!(line(""), 1);
    }

    #[test]
    fn delta_of_two() {
        let d = delta("pgfault 10\nnr_free_pages 50\ngone 1\n", "pgfault 25\nnr_free_pages 40\nnew 2\n").unwrap();
        assert_eq!(
            d.changes.iter().map(|c| (c.name.as_str(), c.delta)).collect::<Vec<_>>(),
            vec![("pgfault", 15), ("nr_free_pages", -10)]
        );
        assert_eq!((d.only_before, d.only_after), (vec!["gone".to_string()], vec!["new".to_string()]));
        let e = delta("pgfault 1\n", "pgfault y\n").unwrap_err();
        assert!(e.message.starts_with("after: "), "{e}");
    }
}
