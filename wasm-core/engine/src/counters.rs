//! Event counters. Where the kernel has a vmstat (or `/proc/interrupts`) name for a
//! quantity, the counter carries that name; model-only counters are marked as such.

use crate::registry::Mech;
use std::fmt;

/// A counter: a handle (index into [`crate::registry::COUNTERS`]) a mechanism declares
/// with [`crate::counters!`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Counter(u16);

/// What a mechanism says about one of its counters.
#[derive(Clone, Copy, Debug)]
pub struct CounterDef {
    /// The name used in tables, JSON and scenario `[[expect]]` blocks (the kernel's, where it has one).
    pub name: &'static str,
    /// What it counts.
    pub doc: &'static str,
    /// Whether the kernel has this counter (vmstat, /proc/stat or /proc/interrupts).
    pub kernel: bool,
}

/// Declares a mechanism's counters: `kernel NAME => "vmstat_name",` for one the kernel
/// has, `model NAME => "name",` for one only the model keeps, each with a doc comment.
/// Makes a `pub const NAME: Counter` handle per counter and `COUNTERS` for the registry.
#[macro_export]
macro_rules! counters {
    ($mech:ident; $( $(#[doc = $doc:literal])* $kind:ident $c:ident => $name:literal, )*) => {
        $crate::__handles!(CounterIndex, $crate::counters::Counter, $mech; $( $(#[doc = $doc])* $c, )*);
        /// This mechanism's counters, in handle order.
        pub const COUNTERS: &[$crate::counters::CounterDef] = &[$(
            $crate::counters::CounterDef {
                name: $name,
                doc: concat!($($doc),*),
                kernel: $crate::__kernel_counter!($kind),
            },
        )*];
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_counter {
    (kernel) => {
        true
    };
    (model) => {
        false
    };
}

impl Counter {
    /// Counter `i` of mechanism `m` (what [`crate::counters!`] expands to).
    pub const fn at(m: Mech, i: u16) -> Counter {
        Counter(crate::registry::counter_base(m) + i)
    }

    /// The counter at `index` in the flat table.
    pub const fn from_index(index: u16) -> Counter {
        Counter(index)
    }

    /// Its index in the flat table.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Its declaration.
    pub fn def(self) -> &'static CounterDef {
        crate::registry::COUNTERS[self.index()]
    }

    /// The name used in tables, JSON and scenario `[[expect]]` blocks.
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// Every counter, in display order (kernel names first).
    pub fn all() -> &'static [Counter] {
        &crate::registry::COUNTER_ORDER
    }

    /// Looks a counter up by its name.
    pub fn from_name(name: &str) -> Option<Counter> {
        Counter::all().iter().copied().find(|c| c.name() == name)
    }

    /// Whether the kernel has this counter (vmstat or /proc/interrupts) rather than the model alone.
    pub fn is_kernel(self) -> bool {
        self.def().kernel
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Number of counters.
pub const NR_COUNTERS: usize = crate::registry::NR_COUNTERS;

/// A fixed array of counter values; copying it is cheap, so a step can diff before/after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counters([u64; NR_COUNTERS]);

impl Default for Counters {
    fn default() -> Self {
        Counters([0; NR_COUNTERS])
    }
}

impl Counters {
    /// Adds `n` to counter `c`.
    #[inline]
    pub fn add(&mut self, c: Counter, n: u64) {
        self.0[c.index()] += n;
    }

    /// Adds one to counter `c`.
    #[inline]
    pub fn inc(&mut self, c: Counter) {
        self.add(c, 1);
    }

    /// The value of counter `c`.
    #[inline]
    pub fn get(&self, c: Counter) -> u64 {
        self.0[c.index()]
    }

    /// `(counter, value)` pairs in display order.
    pub fn iter(&self) -> impl Iterator<Item = (Counter, u64)> + '_ {
        Counter::all().iter().map(|&c| (c, self.get(c)))
    }

    /// What was counted after `before` (a copy of these counters taken earlier): the
    /// counters of a window of the run.
    pub fn since(&self, before: &Counters) -> Counters {
        let mut out = *self;
        for (o, b) in out.0.iter_mut().zip(before.0.iter()) {
            *o = o.saturating_sub(*b);
        }
        out
    }

    /// Non-zero differences `self - before`, in display order.
    pub fn delta_since(&self, before: &Counters) -> Vec<(Counter, i64)> {
        Counter::all()
            .iter()
            .filter_map(|&c| {
                let d = self.get(c) as i64 - before.get(c) as i64;
                (d != 0).then_some((c, d))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mech::numa::NUMA_HINT_FAULTS;

    #[test]
    fn every_counter_name_round_trips() {
        for &c in Counter::all() {
            assert_eq!(Counter::from_name(c.name()), Some(c));
        }
        assert_eq!(Counter::from_name("no_such_counter"), None);
    }

    #[test]
    fn delta_lists_only_changed_counters() {
        let before = Counters::default();
        let mut after = before;
        after.add(NUMA_HINT_FAULTS, 2);
        assert_eq!(after.delta_since(&before), vec![(NUMA_HINT_FAULTS, 2)]);
    }
}
