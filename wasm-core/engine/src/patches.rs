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
    registry().iter().copied().find(|p| p.id == id)
}

/// Comma-separated list of known toggle ids, for error messages.
pub fn known_ids() -> String {
    registry().iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
}

/// The toggles in effect for one simulation, one value per registry entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToggleSet {
    values: Vec<ToggleValue>,
}

impl Default for ToggleSet {
    fn default() -> Self {
        ToggleSet {
            values: registry().iter().map(|p| p.default_value()).collect(),
        }
    }
}

/// Every toggle the engine models (the patch registry), in handle order: each mechanism
/// declares its own with [`crate::toggles!`].
pub fn registry() -> &'static [&'static Patch] {
    &crate::registry::TOGGLES
}

/// A placeholder entry (never in the registry).
pub const NO_PATCH: Patch = Patch {
    id: "",
    kind: ToggleKind::Bool,
    title: "",
    author: "",
    date: "",
    commit: "",
    version: "",
    link: "",
    explanation: "",
    functions: &[],
    enum_values: &[],
    default_index: 0,
    value_labels: &[],
    listings: &[],
};

/// A toggle: engine code reads toggles through these typed handles (an index into
/// [`registry()`]), never by string on a hot path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tog(u16);

impl Tog {
    /// Toggle `i` of mechanism `m` (what [`crate::toggles!`] expands to).
    pub const fn at(m: crate::registry::Mech, i: u16) -> Tog {
        Tog(crate::registry::toggle_base(m) + i)
    }

    /// Its registry entry.
    pub fn patch(self) -> &'static Patch {
        registry()[self.0 as usize]
    }

    /// Its id.
    pub fn id(self) -> &'static str {
        self.patch().id
    }
}

/// Declares a mechanism's toggles, `NAME = Patch { .. },`: a `pub const NAME: Tog`
/// handle each and `TOGGLES` for the registry.
#[macro_export]
macro_rules! toggles {
    ($mech:ident; $( $(#[doc = $doc:literal])* $t:ident = $patch:expr, )*) => {
        $crate::__handles!(ToggleIndex, $crate::patches::Tog, $mech; $( $(#[doc = $doc])* $t, )*);
        /// This mechanism's toggles, in handle order.
        pub const TOGGLES: &[$crate::patches::Patch] = &[$($patch,)*];
    };
}

impl ToggleSet {
    /// Whether bool toggle `t` is on.
    #[inline]
    pub fn on(&self, t: Tog) -> bool {
        matches!(self.values.get(t.0 as usize), Some(ToggleValue::Bool(true)))
    }

    /// The value index of toggle `t` among its values (enums: declaration order).
    pub fn index(&self, t: Tog) -> usize {
        let i = t.0 as usize;
        registry()
            .get(i)
            .and_then(|p| self.values.get(i).and_then(|v| p.index_of(v)))
            .unwrap_or(0)
    }

    /// Sets toggle `id` to `value`, checking both.
    pub fn set(&mut self, id: &str, value: ToggleValue) -> Result<(), String> {
        let idx = registry()
            .iter()
            .position(|p| p.id == id)
            .ok_or_else(|| format!("unknown toggle `{id}` (known toggles: {})", known_ids()))?;
        let patch = registry()[idx];
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
        registry().iter().position(|p| p.id == id).map(|i| &self.values[i])
    }

    /// Whether bool toggle `id` is on (false for unknown ids or enums).
    pub fn is_on(&self, id: &str) -> bool {
        matches!(self.get(id), Some(ToggleValue::Bool(true)))
    }

    /// `(id, value)` pairs in registry order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &ToggleValue)> {
        registry().iter().map(|p| p.id).zip(self.values.iter())
    }
}

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
        for p in registry() {
            for pair in p.listings {
                assert_eq!(pair.before.function, pair.after.function);
                assert!(p.functions.contains(&pair.before.function), "{}", p.id);
            }
        }
    }
}
