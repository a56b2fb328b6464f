//! Knobs: the sysctls and tunables a scenario's `[knobs]` table sets. Each mechanism
//! declares its own with [`crate::knobs!`] (the TOML name, range, default and the scale to
//! the engine's unit: `scan_period_ms` is kept in ns).

use crate::registry::{Mech, KNOBS, NR_KNOBS};

/// A knob: a handle (index into [`crate::registry::KNOBS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Knob(u16);

impl Knob {
    /// Knob `i` of mechanism `m` (what [`crate::knobs!`] expands to).
    pub const fn at(m: Mech, i: u16) -> Knob {
        Knob(crate::registry::knob_base(m) + i)
    }
}

/// The values a knob takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnobKind {
    /// `true` or `false`.
    Bool,
    /// A whole number (or `"$param"`) within `min..=max`, in the unit of its name.
    Int {
        /// Smallest.
        min: i64,
        /// Largest.
        max: i64,
        /// Multiplier to the engine's unit (1000 for µs kept in ns).
        scale: u64,
    },
}

/// What a mechanism says about one of its knobs.
#[derive(Clone, Copy, Debug)]
pub struct KnobDef {
    /// Name in `[knobs]`.
    pub name: &'static str,
    /// What it sets.
    pub doc: &'static str,
    /// Its values.
    pub kind: KnobKind,
    /// Default, in the unit of its name (bools: 0 or 1); `None`: unset (off).
    pub default: Option<i64>,
}

/// Declares a mechanism's knobs, `NAME => KnobDef { .. },` each with a doc comment: a
/// `pub const NAME: Knob` handle per knob and `KNOBS` for the registry.
#[macro_export]
macro_rules! knobs {
    ($mech:ident; $( $(#[doc = $doc:literal])* $k:ident => $name:literal, $kind:expr, $default:expr, )*) => {
        $crate::__handles!(KnobIndex, $crate::knobs::Knob, $mech; $( $(#[doc = $doc])* $k, )*);
        /// This mechanism's knobs, in handle order.
        pub const KNOBS: &[$crate::knobs::KnobDef] = &[$(
            $crate::knobs::KnobDef { name: $name, doc: concat!($($doc),*), kind: $kind, default: $default },
        )*];
    };
}

/// Every knob of a run, in the engine's units (`None`: unset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knobs([Option<u64>; NR_KNOBS]);

impl Default for Knobs {
    fn default() -> Self {
        let mut v = [None; NR_KNOBS];
        for (i, k) in KNOBS.iter().enumerate() {
            v[i] = k.default.map(|d| scaled(k, d));
        }
        Knobs(v)
    }
}

/// `v` (in the knob's own unit) in the engine's unit.
fn scaled(k: &KnobDef, v: i64) -> u64 {
    match k.kind {
        KnobKind::Bool => u64::from(v != 0),
        KnobKind::Int { scale, .. } => v.max(0) as u64 * scale,
    }
}

impl Knobs {
    /// The value of `k`, if set.
    #[inline]
    pub fn get(&self, k: Knob) -> Option<u64> {
        self.0[k.0 as usize]
    }

    /// The value of `k` (0 if unset).
    #[inline]
    pub fn value(&self, k: Knob) -> u64 {
        self.get(k).unwrap_or(0)
    }

    /// Whether bool knob `k` is on.
    #[inline]
    pub fn on(&self, k: Knob) -> bool {
        self.value(k) != 0
    }

    /// Sets knob `name` to `v` (in its own unit, already range-checked); false if unknown.
    pub fn set(&mut self, name: &str, v: i64) -> bool {
        match KNOBS.iter().position(|k| k.name == name) {
            Some(i) => {
                self.0[i] = Some(scaled(KNOBS[i], v));
                true
            }
            None => false,
        }
    }
}
