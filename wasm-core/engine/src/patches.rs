//! The patch registry: one entry per toggle id (ids are a public contract, used in
//! URLs and on the CLI; an id never changes meaning once released), with the facts a
//! reviewer needs and our own pseudo-code of every function the patch changes.
//!
//! The listings are written for mmviz; they follow the named kernel function at the
//! named version, simplified, and their line ids are what events point to.

use serde::Serialize;
use std::fmt;

/// A toggle's value: a bool switch or an enum variant name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum ToggleValue {
    /// A bool patch switch: `true` means the patch is applied.
    Bool(bool),
    /// An enum toggle's variant.
    Enum(String),
}

impl fmt::Display for ToggleValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToggleValue::Bool(b) => write!(f, "{}", if *b { "on" } else { "off" }),
            ToggleValue::Enum(s) => f.write_str(s),
        }
    }
}

/// One line of a listing.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CodeLine {
    /// Stable id events refer to.
    pub id: &'static str,
    /// Our pseudo-code.
    pub text: &'static str,
}

/// Our own pseudo-code of one kernel function as a given version behaves.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Listing {
    /// Kernel function name.
    pub function: &'static str,
    /// Version and file the listing follows.
    pub follows: &'static str,
    /// The lines.
    pub lines: &'static [CodeLine],
}

/// Listings of one function changed by a patch: `before` = off / first value.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ListingPair {
    /// Toggle off.
    pub before: Listing,
    /// Toggle on.
    pub after: Listing,
}

/// The kind of a toggle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ToggleKind {
    /// On/off.
    Bool,
    /// One of several named values.
    Enum,
}

/// One registry entry.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Patch {
    /// Toggle id (URL / CLI contract).
    pub id: &'static str,
    /// Bool or enum.
    pub kind: ToggleKind,
    /// The patch title as posted.
    pub title: &'static str,
    /// Author.
    pub author: &'static str,
    /// Date posted or merged.
    pub date: &'static str,
    /// Upstream commit id (or "not merged").
    pub commit: &'static str,
    /// First kernel version with the change.
    pub version: &'static str,
    /// Where to read it.
    pub link: &'static str,
    /// What changes and why it matters, in one paragraph.
    pub explanation: &'static str,
    /// Kernel functions the patch changes.
    pub functions: &'static [&'static str],
    /// Enum values in declaration order (empty for bools).
    #[serde(skip)]
    pub enum_values: &'static [&'static str],
    /// Default value index (bools: 0 = off, 1 = on).
    #[serde(skip)]
    pub default_index: usize,
    /// Short label per value, in the order of the values.
    pub value_labels: &'static [&'static str],
    /// Listings of the changed functions: `before` is the toggle off / first value.
    pub listings: &'static [ListingPair],
}

impl Patch {
    /// The values this toggle can take, in declaration order.
    pub fn values(&self) -> Vec<ToggleValue> {
        match self.kind {
            ToggleKind::Bool => vec![ToggleValue::Bool(false), ToggleValue::Bool(true)],
            ToggleKind::Enum => self.enum_values.iter().map(|v| ToggleValue::Enum((*v).into())).collect(),
        }
    }

    /// The default value.
    pub fn default_value(&self) -> ToggleValue {
        self.values().swap_remove(self.default_index)
    }

    /// Parses a value given as text (`on`/`off`/`true`/`false`/`1`/`0` or an enum name).
    pub fn parse_value(&self, text: &str) -> Result<ToggleValue, String> {
        match self.kind {
            ToggleKind::Bool => match text.trim() {
                "on" | "true" | "1" | "yes" => Ok(ToggleValue::Bool(true)),
                "off" | "false" | "0" | "no" => Ok(ToggleValue::Bool(false)),
                other => Err(format!("toggle `{}` is on/off, not `{other}`", self.id)),
            },
            ToggleKind::Enum => self
                .enum_values
                .iter()
                .find(|v| **v == text.trim())
                .map(|v| ToggleValue::Enum((*v).into()))
                .ok_or_else(|| format!("toggle `{}` takes one of {}, not `{text}`", self.id, self.enum_values.join(", "))),
        }
    }

    /// Index of `value` among [`Patch::values`], if it is one of them.
    pub fn index_of(&self, value: &ToggleValue) -> Option<usize> {
        self.values().iter().position(|v| v == value)
    }
}

/// Looks a patch up by toggle id.
pub fn find(id: &str) -> Option<&'static Patch> {
    REGISTRY.iter().find(|p| p.id == id)
}

/// Comma-separated list of known toggle ids, for error messages.
pub fn known_ids() -> String {
    REGISTRY.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
}

/// The toggles in effect for one simulation, one value per registry entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToggleSet {
    values: Vec<ToggleValue>,
}

impl Default for ToggleSet {
    fn default() -> Self {
        ToggleSet {
            values: REGISTRY.iter().map(Patch::default_value).collect(),
        }
    }
}

/// A toggle by its position in [`REGISTRY`]: engine code reads toggles through these
/// typed handles (an array index), never by string on a hot path. A test checks that each
/// handle names the registry entry it claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tog(pub usize, pub &'static str);

/// `numa_delay_map`.
pub const NUMA_DELAY_MAP: Tog = Tog(0, "numa_delay_map");
/// `numa_skip_dirty_file`.
pub const NUMA_SKIP_DIRTY_FILE: Tog = Tog(1, "numa_skip_dirty_file");
/// Every handle, for the consistency test.
pub const TOGS: &[Tog] = &[NUMA_DELAY_MAP, NUMA_SKIP_DIRTY_FILE];

impl ToggleSet {
    /// Whether bool toggle `t` is on.
    #[inline]
    pub fn on(&self, t: Tog) -> bool {
        matches!(self.values.get(t.0), Some(ToggleValue::Bool(true)))
    }

    /// The value index of toggle `t` among its values (enums: declaration order).
    pub fn index(&self, t: Tog) -> usize {
        REGISTRY
            .get(t.0)
            .and_then(|p| self.values.get(t.0).and_then(|v| p.index_of(v)))
            .unwrap_or(0)
    }

    /// Sets toggle `id` to `value`, checking both.
    pub fn set(&mut self, id: &str, value: ToggleValue) -> Result<(), String> {
        let idx = REGISTRY
            .iter()
            .position(|p| p.id == id)
            .ok_or_else(|| format!("unknown toggle `{id}` (known toggles: {})", known_ids()))?;
        let patch = &REGISTRY[idx];
        let value = match (&value, patch.kind) {
            (ToggleValue::Bool(_), ToggleKind::Bool) => value,
            (ToggleValue::Enum(s), _) => patch.parse_value(s)?,
            (ToggleValue::Bool(_), ToggleKind::Enum) => {
                return Err(format!("toggle `{id}` takes one of {}, not a bool", patch.enum_values.join(", ")))
            }
        };
        self.values[idx] = value;
        Ok(())
    }

    /// Sets toggle `id` from text (`ID=VALUE` on the CLI).
    pub fn set_text(&mut self, id: &str, text: &str) -> Result<(), String> {
        let patch = find(id).ok_or_else(|| format!("unknown toggle `{id}` (known toggles: {})", known_ids()))?;
        let v = patch.parse_value(text)?;
        self.set(id, v)
    }

    /// The value of toggle `id`.
    pub fn get(&self, id: &str) -> Option<&ToggleValue> {
        REGISTRY.iter().position(|p| p.id == id).map(|i| &self.values[i])
    }

    /// Whether bool toggle `id` is on (false for unknown ids or enums).
    pub fn is_on(&self, id: &str) -> bool {
        matches!(self.get(id), Some(ToggleValue::Bool(true)))
    }

    /// `(id, value)` pairs in registry order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &ToggleValue)> {
        REGISTRY.iter().map(|p| p.id).zip(self.values.iter())
    }
}

/// Every toggle the engine models, in the order [`Tog`] handles index.
pub static REGISTRY: &[Patch] = &[
    Patch {
        id: "numa_delay_map",
        kind: ToggleKind::Bool,
        title: "NUMA balancing: reduce TLB flush via delaying mapping on hint page fault",
        author: "Huang Ying (reviewed by Mel Gorman)",
        date: "2021-04-08",
        commit: "b99a342d4f11",
        version: "v5.13",
        link: "https://git.kernel.org/torvalds/c/b99a342d4f11",
        explanation: "Before this patch do_numa_page made the PROT_NONE hint PTE present again before \
            trying to migrate the page. From that moment any CPU running the process could cache the \
            translation, so when migration unmapped the page, ptep_clear_flush saw an accessible PTE and \
            had to flush the TLB: a local INVLPG plus an IPI to every other non-lazy CPU in the process's \
            mm_cpumask. With the patch the PTE stays PROT_NONE until migration is decided; \
            pte_accessible() is then false, so unmapping needs no flush and sends no IPI. The PTE is made \
            present only if the page is not migrated. Published: TLB shootdown interrupts -98% \
            (4.7e7 to 9.7e5) for 9.2e6 migrated pages, throughput +5.5%.",
        functions: &["do_numa_page"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v5.12: map, then migrate", "v5.13: migrate, map only on failure"],
        listings: &[ListingPair {
            before: crate::listings::DO_NUMA_PAGE_V5_12,
            after: crate::listings::DO_NUMA_PAGE_V5_13,
        }],
    },
    Patch {
        id: "numa_skip_dirty_file",
        kind: ToggleKind::Bool,
        title: "sched/numa: avoid trapping faults and attempting migration of file-backed dirty pages",
        author: "Mel Gorman (reviewed by Rik van Riel)",
        date: "2018-03-26",
        commit: "09a913a7",
        version: "v4.17",
        link: "https://git.kernel.org/torvalds/c/09a913a7",
        explanation: "The NUMA scanner used to mark dirty file-backed pages PROT_NONE like any other, \
            although asynchronous migration cannot move a dirty page on some filesystems (btrfs before \
            v5.8 has no migratepage callback and fails with -EBUSY after the page was already unmapped). \
            The patch makes change_pte_range leave such PTEs alone and migrate_misplaced_page bail out on \
            them, so no hint fault is taken and no unmap/remap cycle is wasted. Published (NPB, btrfs): \
            hint faults -13.5%, local hint faults 70% to 91%, system CPU -25%.",
        functions: &["change_pte_range", "migrate_misplaced_page"],
        enum_values: &[],
        default_index: 1,
        value_labels: &["v4.16: scan and migrate dirty file pages", "v4.17: skip dirty file pages"],
        listings: &[
            ListingPair {
                before: crate::listings::CHANGE_PTE_RANGE_V4_16,
                after: crate::listings::CHANGE_PTE_RANGE_V4_17,
            },
            ListingPair {
                before: crate::listings::MIGRATE_MISPLACED_PAGE_V4_16,
                after: crate::listings::MIGRATE_MISPLACED_PAGE_V4_17,
            },
        ],
    },
];

/// Every distinct listing (patched variants and static ones), for line-id validation.
pub fn all_listings() -> impl Iterator<Item = &'static Listing> {
    crate::registry::function_listings().flat_map(|f| f.variants.iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_toggle_is_rejected_with_the_known_ids() {
        let mut t = ToggleSet::default();
        let err = t.set_text("numa_dleay_map", "on").unwrap_err();
        assert!(err.contains("unknown toggle `numa_dleay_map`"), "{err}");
        assert!(err.contains("numa_delay_map"), "{err}");
    }

    #[test]
    fn every_typed_handle_names_its_registry_entry() {
        for t in TOGS {
            assert_eq!(REGISTRY[t.0].id, t.1);
        }
    }

    #[test]
    fn bool_toggle_parses_common_spellings() {
        let p = find("numa_delay_map").unwrap();
        assert_eq!(p.parse_value("off").unwrap(), ToggleValue::Bool(false));
        assert_eq!(p.parse_value("true").unwrap(), ToggleValue::Bool(true));
        assert!(p.parse_value("maybe").is_err());
    }

    #[test]
    fn listing_line_ids_are_unique_within_a_listing() {
        for l in all_listings() {
            let mut ids: Vec<_> = l.lines.iter().map(|c| c.id).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), l.lines.len(), "duplicate line id in {}", l.function);
        }
    }

    #[test]
    fn patch_listings_name_a_changed_function() {
        for p in REGISTRY {
            for pair in p.listings {
                assert_eq!(pair.before.function, pair.after.function);
                assert!(p.functions.contains(&pair.before.function), "{}", p.id);
            }
        }
    }
}
