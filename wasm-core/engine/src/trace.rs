//! Events: one per micro-step, with what it touched, where in the code it is, a
//! sentence of narration and the counters it moved.

use crate::counters::Counter;
use crate::machine::CpuMask;
use crate::topology::CpuId;
use serde::Serialize;

/// What a micro-step did: a handle (index into [`crate::registry::EVENT_KINDS`]) a
/// mechanism declares with [`crate::events!`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventKind(u16);

/// The family an event kind belongs to: the lab colours the timeline by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum EventCategory {
    /// Faults and the TLB misses that lead to them.
    Fault,
    /// Inter-processor interrupts.
    Ipi,
    /// TLB flushes.
    Flush,
    /// Page migration.
    Migration,
    /// Scheduling: switches, sleeps, wake-ups, placement.
    Sched,
    /// Lock traffic.
    Lock,
    /// Page allocation and freeing.
    Alloc,
    /// Everything else.
    Other,
}

/// What a mechanism says about one of its event kinds.
#[derive(Clone, Copy, Debug)]
pub struct EventDef {
    /// Stable name (scenario `event =` anchors, UI colours).
    pub name: &'static str,
    /// What happened.
    pub doc: &'static str,
    /// Its family.
    pub category: EventCategory,
}

/// Declares a mechanism's event kinds, `NAME => "name", Category,` each with a doc
/// comment: a `pub const NAME: EventKind` handle per kind and `EVENTS` for the registry.
#[macro_export]
macro_rules! events {
    ($mech:ident; $( $(#[doc = $doc:literal])* $k:ident => $name:literal, $cat:ident, )*) => {
        $crate::__handles!(EventIndex, $crate::trace::EventKind, $mech; $( $(#[doc = $doc])* $k, )*);
        /// This mechanism's event kinds, in handle order.
        pub const EVENTS: &[$crate::trace::EventDef] = &[$(
            $crate::trace::EventDef {
                name: $name,
                doc: concat!($($doc),*),
                category: $crate::trace::EventCategory::$cat,
            },
        )*];
    };
}

impl EventKind {
    /// Kind `i` of mechanism `m` (what [`crate::events!`] expands to).
    pub const fn at(m: crate::registry::Mech, i: u16) -> EventKind {
        EventKind(crate::registry::event_base(m) + i)
    }

    /// The kind at `index` in the flat table.
    pub const fn from_index(index: u16) -> EventKind {
        EventKind(index)
    }

    /// Its declaration.
    pub fn def(self) -> &'static EventDef {
        crate::registry::EVENT_KINDS[self.0 as usize]
    }

    /// Stable name (scenario `event =` anchors, UI colours).
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// Looks a kind up by name.
    pub fn from_name(name: &str) -> Option<EventKind> {
        crate::registry::event_kinds().find(|k| k.name() == name)
    }
}

/// "No cause": the event runs in a task's base frame (its workload) or the scheduler.
pub use crate::core::frame::NO_CAUSE;

/// One micro-step as recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Step index (0-based); the state after it is frame `step + 1`.
    pub step: u64,
    /// Simulated time the step started, in ns.
    pub time_ns: u64,
    /// CPU that acted.
    pub cpu: CpuId,
    /// Task that acted (its index).
    pub task: u16,
    /// Kind.
    pub kind: EventKind,
    /// Kernel function.
    pub function: &'static str,
    /// Listing line id.
    pub line: &'static str,
    /// Step of the event that started the frame this one runs in ([`NO_CAUSE`]: none).
    pub cause: u64,
    /// One sentence.
    pub narration: String,
    /// `(pid, vpn)` PTEs touched.
    pub ptes: Vec<(u16, u32)>,
    /// Frames touched.
    pub pfns: Vec<u32>,
    /// Other CPUs involved.
    pub cpus: Vec<CpuId>,
    /// Counter changes.
    pub deltas: Vec<(Counter, i64)>,
}

/// What a step reports. Built on every step, so it holds nothing on the heap unless
/// narration is on (`text` stays an empty `String`, which does not allocate).
#[derive(Debug, Default)]
pub struct Ev {
    /// Kind.
    pub kind: Option<EventKind>,
    /// Function.
    pub function: &'static str,
    /// Line id.
    pub line: &'static str,
    /// Narration (empty when not recording).
    pub text: String,
    /// PTE touched.
    pub pte: Option<(u16, u32)>,
    /// Frames touched.
    pub pfns: [Option<u32>; 2],
    /// CPUs involved.
    pub cpus: CpuMask,
}

impl Ev {
    /// A new event of `kind` in `function` at `line`.
    pub fn new(kind: EventKind, function: &'static str, line: &'static str) -> Self {
        Ev {
            kind: Some(kind),
            function,
            line,
            ..Ev::default()
        }
    }

    /// Sets the narration.
    pub fn say(mut self, text: String) -> Self {
        self.text = text;
        self
    }

    /// Adds the PTE touched.
    pub fn pte(mut self, pid: u16, vpn: u32) -> Self {
        self.pte = Some((pid, vpn));
        self
    }

    /// Adds a frame touched.
    pub fn pfn(mut self, pfn: u32) -> Self {
        if self.pfns[0].is_none() {
            self.pfns[0] = Some(pfn);
        } else {
            self.pfns[1] = Some(pfn);
        }
        self
    }

    /// Sets the other CPUs involved.
    pub fn cpus(mut self, m: CpuMask) -> Self {
        self.cpus = m;
        self
    }
}
