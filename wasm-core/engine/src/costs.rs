//! Simulated costs: nanoseconds charged per micro-step. Each mechanism declares its own
//! with [`crate::costs!`] (name, default, meaning); a scenario's `[costs]` table overrides
//! them by name. Defaults are calibration values in the ranges of the behaviour notes (IPI
//! 1-5 us, hint fault 1-2 us, 4 KiB copy 1-2 us, DRAM 90 ns local / about 150 ns remote),
//! not kernel facts.

use crate::registry::{Mech, COSTS, NR_COSTS};
use std::ops::Index;

/// A cost: a handle (index into [`crate::registry::COSTS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cost(u16);

impl Cost {
    /// Cost `i` of mechanism `m` (what [`crate::costs!`] expands to).
    pub const fn at(m: Mech, i: u16) -> Cost {
        Cost(crate::registry::cost_base(m) + i)
    }
}

/// What a mechanism says about one of its costs.
#[derive(Clone, Copy, Debug)]
pub struct CostDef {
    /// Name in `[costs]`.
    pub name: &'static str,
    /// Default in ns.
    pub default: u64,
    /// What it is the cost of.
    pub doc: &'static str,
}

/// Declares a mechanism's costs, `NAME => "name" = default,` each with a doc comment: a
/// `pub const NAME: Cost` handle per cost and `COSTS` for the registry.
#[macro_export]
macro_rules! costs {
    ($mech:ident; $( $(#[doc = $doc:literal])* $c:ident => $name:literal = $default:expr, )*) => {
        $crate::__handles!(CostIndex, $crate::costs::Cost, $mech; $( $(#[doc = $doc])* $c, )*);
        /// This mechanism's costs, in handle order.
        pub const COSTS: &[$crate::costs::CostDef] = &[$(
            $crate::costs::CostDef { name: $name, default: $default, doc: concat!($($doc),*) },
        )*];
    };
}

/// Every cost of a run, in ns, indexed by handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Costs([u64; NR_COSTS]);

impl Default for Costs {
    fn default() -> Self {
        let mut v = [0; NR_COSTS];
        for (i, c) in COSTS.iter().enumerate() {
            v[i] = c.default;
        }
        Costs(v)
    }
}

impl Index<Cost> for Costs {
    type Output = u64;

    #[inline]
    fn index(&self, c: Cost) -> &u64 {
        &self.0[c.0 as usize]
    }
}

impl Costs {
    /// Sets cost `name`; false if there is none by that name.
    pub fn set(&mut self, name: &str, v: u64) -> bool {
        match COSTS.iter().position(|c| c.name == name) {
            Some(i) => {
                self.0[i] = v;
                true
            }
            None => false,
        }
    }

    /// Names of every cost, for validation messages.
    pub fn names() -> Vec<&'static str> {
        COSTS.iter().map(|c| c.name).collect()
    }
}
