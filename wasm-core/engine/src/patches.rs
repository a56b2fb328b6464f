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
    /// Which value mainline kernels have, as `(first version, value)` in version order,
    /// the first from `""` (the oldest kernels). Empty for a bool toggle whose `on` is
    /// what `version` introduced: off before it, on from it (always off when `version`
    /// does not parse, e.g. "not merged"). A value no entry names (a proposal that was
    /// never merged) is never chosen by a kernel preset.
    pub history: &'static [(&'static str, &'static str)],
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
                other => Err(format!(
                    "toggle `{}` is on/off, not `{}`",
                    self.id,
                    crate::paste::quote_value(other)
                )),
            },
            ToggleKind::Enum => self
                .enum_values
                .iter()
                .find(|v| **v == text.trim())
                .map(|v| ToggleValue::Enum((*v).into()))
                .ok_or_else(|| {
                    format!(
                        "toggle `{}` takes one of {}, not `{}`",
                        self.id,
                        self.enum_values.join(", "),
                        crate::paste::quote_value(text)
                    )
                }),
        }
    }

    /// The value mainline kernel `k` has (see [`Patch::history`]); `None` for a toggle
    /// whose history says nothing.
    pub fn value_in(&self, k: Kernel) -> Option<ToggleValue> {
        if self.history.is_empty() {
            if self.kind != ToggleKind::Bool {
                return None;
            }
            let on = Kernel::parse(self.version).is_ok_and(|v| k >= v);
            return Some(ToggleValue::Bool(on));
        }
        let mut value = None;
        for (from, v) in self.history {
            if from.is_empty() || Kernel::parse(from).is_ok_and(|f| k >= f) {
                value = self.parse_value(v).ok();
            }
        }
        value
    }

    /// Index of `value` among [`Patch::values`], if it is one of them.
    pub fn index_of(&self, value: &ToggleValue) -> Option<usize> {
        self.values().iter().position(|v| v == value)
    }
}

/// A mainline kernel version, `vMAJOR.MINOR` (a stable suffix such as `.3` or an `-rc2`
/// is accepted and ignored: toggles change at major releases).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Kernel {
    /// Major number.
    pub major: u16,
    /// Minor number.
    pub minor: u16,
}

impl Kernel {
    /// Parses `v5.12`, `5.12`, `v4.19.3` or `v6.7-rc1`.
    pub fn parse(text: &str) -> Result<Kernel, String> {
        let t = text.trim();
        let bad = || {
            format!(
                "`{}` is not a kernel version (expected vMAJOR.MINOR, e.g. v5.12)",
                crate::paste::quote_value(t)
            )
        };
        let body = t.strip_prefix('v').unwrap_or(t);
        let body = body.split('-').next().unwrap_or("");
        let mut parts = body.split('.');
        let major = parts.next().and_then(|p| p.parse::<u16>().ok()).ok_or_else(bad)?;
        let minor = parts.next().and_then(|p| p.parse::<u16>().ok()).ok_or_else(bad)?;
        if parts.next().is_some_and(|p| p.parse::<u16>().is_err()) || parts.next().is_some() || !(2..=9).contains(&major) {
            return Err(bad());
        }
        Ok(Kernel { major, minor })
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}.{}", self.major, self.minor)
    }
}

/// Every version at which some toggle changes, in order: the kernels worth picking.
pub fn kernel_versions() -> Vec<Kernel> {
    let mut out: Vec<Kernel> = registry()
        .iter()
        .flat_map(|p| {
            let own = if p.history.is_empty() {
                vec![p.version]
            } else {
                p.history.iter().map(|(v, _)| *v).collect()
            };
            own.into_iter().filter_map(|v| Kernel::parse(v).ok())
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A named set of toggles (the rows of a patch series' published table): a kernel to
/// start from, then toggles on top. Mechanisms declare them (`Mechanism::presets`).
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PresetDef {
    /// Name (`--preset NAME`; a public contract like toggle ids).
    pub name: &'static str,
    /// What it is, e.g. the table row it reproduces.
    pub doc: &'static str,
    /// The kernel it starts from, if any.
    pub kernel: Option<&'static str>,
    /// Toggles set on top, `(id, value)`.
    pub set: &'static [(&'static str, &'static str)],
}

/// Every declared preset, in registry order.
pub fn presets() -> impl Iterator<Item = &'static PresetDef> {
    crate::registry::MECHANISMS.iter().flat_map(|m| m.presets.iter())
}

/// Looks a preset up by name.
pub fn find_preset(name: &str) -> Result<&'static PresetDef, String> {
    presets().find(|p| p.name == name).ok_or_else(|| {
        let known: Vec<&str> = presets().map(|p| p.name).collect();
        if known.is_empty() {
            format!("unknown preset `{name}` (no mechanism declares presets yet; --kernel vX.Y sets every toggle to a kernel's behaviour)")
        } else {
            format!("unknown preset `{name}` (known presets: {})", known.join(", "))
        }
    })
}

/// Looks a patch up by toggle id.
pub fn find(id: &str) -> Option<&'static Patch> {
    registry().iter().copied().find(|p| p.id == id)
}

/// A released toggle id that was replaced by another (an id never changes meaning, so a
/// toggle whose `on` did not mean "the patch applied" got a new id). Links, scenario files
/// and command lines that carry the old id keep their meaning: the old id is read as the
/// new one, with the value inverted where `inverted` says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenamedToggle {
    /// The id as released.
    pub old: &'static str,
    /// The registry id that replaces it.
    pub new: &'static str,
    /// Whether the old id's `on` is the new id's `off` (both bool toggles).
    pub inverted: bool,
}

/// Every renamed toggle id.
pub const RENAMED: &[RenamedToggle] = &[RenamedToggle {
    // Its `on` meant the kernel before the patch (37a4094e828f removed LATENCY_LIMIT).
    old: "mremap_latency_limit",
    new: "mremap_pmd_extents",
    inverted: true,
}];

/// The renamed toggle whose old id is `id`, if any.
pub fn renamed(id: &str) -> Option<&'static RenamedToggle> {
    RENAMED.iter().find(|r| r.old == id.trim())
}

impl RenamedToggle {
    /// The new id's value for the old id's `value` (text values are read as the old id's).
    pub fn translate(&self, value: &ToggleValue) -> Result<ToggleValue, String> {
        let patch = find(self.new).ok_or_else(|| format!("toggle `{}` is gone", self.new))?;
        let v = match value {
            ToggleValue::Enum(text) => patch.parse_value(text).map_err(|e| e.replacen(self.new, self.old, 1))?,
            b => b.clone(),
        };
        Ok(match v {
            ToggleValue::Bool(b) if self.inverted => ToggleValue::Bool(!b),
            other => other,
        })
    }

    /// What the old id is now, e.g. for a note on the command line.
    pub fn note(&self) -> String {
        if self.inverted {
            format!(
                "toggle `{}` is now `{}`, whose on means the patch applied (the opposite of the old id: {}=on is {}=off)",
                self.old, self.new, self.old, self.new
            )
        } else {
            format!("toggle `{}` is now `{}`", self.old, self.new)
        }
    }
}

/// Comma-separated list of known toggle ids, for error messages.
pub fn known_ids() -> String {
    registry().iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
}

/// The toggles in effect for one simulation, one value per registry entry, and which
/// of them were chosen explicitly (by `--set`, `--kernel`, a preset, a compare or an
/// `[[expect]]`): a scenario's own `kernel` and `[toggles]` apply only to the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToggleSet {
    values: Vec<ToggleValue>,
    explicit: Vec<bool>,
}

impl Default for ToggleSet {
    fn default() -> Self {
        ToggleSet {
            values: registry().iter().map(|p| p.default_value()).collect(),
            explicit: vec![false; registry().len()],
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
    history: &[],
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
        // Without building the value list: stepping reads enum toggles and must not allocate.
        match (registry().get(i), self.values.get(i)) {
            (Some(_), Some(ToggleValue::Bool(b))) => usize::from(*b),
            (Some(p), Some(ToggleValue::Enum(v))) => p.enum_values.iter().position(|e| e == v).unwrap_or(0),
            _ => 0,
        }
    }

    /// Sets toggle `id` to `value`, checking both (a renamed id sets its successor to the
    /// value meaning the same, see [`RENAMED`]).
    pub fn set(&mut self, id: &str, value: ToggleValue) -> Result<(), String> {
        if let Some(r) = renamed(id) {
            return self.set(r.new, r.translate(&value)?);
        }
        let idx = registry().iter().position(|p| p.id == id).ok_or_else(|| {
            format!(
                "unknown toggle `{}` (known toggles: {})",
                crate::paste::quote_value(id),
                known_ids()
            )
        })?;
        let patch = registry()[idx];
        let value = match (&value, patch.kind) {
            (ToggleValue::Bool(_), ToggleKind::Bool) => value,
            (ToggleValue::Enum(s), _) => patch.parse_value(s)?,
            (ToggleValue::Bool(_), ToggleKind::Enum) => {
                return Err(format!("toggle `{id}` takes one of {}, not a bool", patch.enum_values.join(", ")))
            }
        };
        self.values[idx] = value;
        self.explicit[idx] = true;
        Ok(())
    }

    /// Whether toggle `id` was chosen explicitly.
    pub fn is_explicit(&self, id: &str) -> bool {
        registry().iter().position(|p| p.id == id).is_some_and(|i| self.explicit[i])
    }

    /// Sets every toggle with a history to what kernel `k` has, explicitly (`--kernel`).
    pub fn set_kernel(&mut self, k: Kernel) {
        for (i, p) in registry().iter().enumerate() {
            if let Some(v) = p.value_in(k) {
                self.values[i] = v;
                self.explicit[i] = true;
            }
        }
    }

    /// Like [`ToggleSet::set_kernel`], but only where nothing was chosen explicitly and
    /// without marking anything (a scenario's own `kernel`).
    pub fn default_kernel(&mut self, k: Kernel) {
        for (i, p) in registry().iter().enumerate() {
            if !self.explicit[i] {
                if let Some(v) = p.value_in(k) {
                    self.values[i] = v;
                }
            }
        }
    }

    /// Sets toggle `id` to `value` unless it was chosen explicitly (a scenario's own
    /// `[toggles]`), without marking it.
    pub fn default_to(&mut self, id: &str, value: ToggleValue) -> Result<(), String> {
        if let Some(r) = renamed(id) {
            return self.default_to(r.new, r.translate(&value)?);
        }
        let Some(i) = registry().iter().position(|p| p.id == id) else {
            return Err(format!(
                "unknown toggle `{}` (known toggles: {})",
                crate::paste::quote_value(id),
                known_ids()
            ));
        };
        if !self.explicit[i] {
            self.set(id, value)?;
            self.explicit[i] = false;
        }
        Ok(())
    }

    /// Applies a named preset: its kernel first, then its toggles, all explicitly.
    pub fn apply_preset(&mut self, p: &PresetDef) -> Result<(), String> {
        if let Some(k) = p.kernel {
            self.set_kernel(Kernel::parse(k).map_err(|e| format!("preset `{}`: {e}", p.name))?);
        }
        for (id, v) in p.set {
            self.set_text(id, v).map_err(|e| format!("preset `{}`: {e}", p.name))?;
        }
        Ok(())
    }

    /// Applies a comma-separated list of preset names, in order (`--preset a,b`).
    pub fn apply_presets(&mut self, names: &str) -> Result<(), String> {
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            self.apply_preset(find_preset(name)?)?;
        }
        Ok(())
    }

    /// Sets toggle `id` from text (`ID=VALUE` on the CLI).
    pub fn set_text(&mut self, id: &str, text: &str) -> Result<(), String> {
        if renamed(id).is_some() {
            return self.set(id, ToggleValue::Enum(text.into()));
        }
        let patch = find(id).ok_or_else(|| {
            format!(
                "unknown toggle `{}` (known toggles: {})",
                crate::paste::quote_value(id),
                known_ids()
            )
        })?;
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
    fn a_renamed_id_sets_its_successor_to_the_same_meaning() {
        for (old, new) in [("on", false), ("off", true), ("true", false), ("0", true)] {
            let mut t = ToggleSet::default();
            t.set_text("mremap_latency_limit", old).unwrap();
            assert_eq!(t.get("mremap_pmd_extents"), Some(&ToggleValue::Bool(new)), "{old}");
            assert!(t.is_explicit("mremap_pmd_extents"));
            let mut u = ToggleSet::default();
            u.set("mremap_latency_limit", ToggleValue::Bool(new)).unwrap();
            assert_eq!(u.get("mremap_pmd_extents"), Some(&ToggleValue::Bool(!new)));
        }
        let err = ToggleSet::default().set_text("mremap_latency_limit", "maybe").unwrap_err();
        assert!(err.contains("`mremap_latency_limit` is on/off"), "{err}");
        // Never a registry id, and the successor's on is the patch (applied from its version).
        for r in RENAMED {
            assert!(find(r.old).is_none() && find(r.new).is_some(), "{}", r.old);
        }
        let p = find("mremap_pmd_extents").unwrap();
        assert_eq!(p.value_in(Kernel::parse("v4.17").unwrap()), Some(ToggleValue::Bool(false)));
        assert_eq!(p.value_in(Kernel::parse("v4.18").unwrap()), Some(ToggleValue::Bool(true)));
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
