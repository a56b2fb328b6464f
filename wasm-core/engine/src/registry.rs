//! The one list that registers every mechanism (`mechanisms!` below: one line each),
//! and what a mechanism declares: its frames (one per modelled kernel function), toggles,
//! counters, event kinds, costs, knobs, workload operations, listings, invariants, views,
//! task_work and what its kernel threads do.
//!
//! A mechanism lives in `mech/<id>.rs` (its declaration) plus the kernel-shaped modules
//! its functions live in (`mm/…`, `kernel/…`, `arch/…`). Counters, event kinds, toggles,
//! costs and knobs are declared there with [`crate::counters!`], [`crate::events!`],
//! [`crate::toggles!`], [`crate::costs!`] and [`crate::knobs!`], which give each a typed
//! handle (an index into the tables built here at compile time), and its frames with
//! [`crate::frames!`].

use crate::core::{Flow, Ret};
use crate::counters::{Counter, CounterDef};
use crate::engine::Sim;
use crate::patches::{Listing, Patch, ToggleSet};
use crate::scenario::OpDef;
use crate::topology::CpuId;
use crate::trace::{Ev, EventDef, EventKind};

/// A modelled kernel function: one struct holding its locals and its program counter.
pub trait Function {
    /// Runs one line.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>);
    /// A callee returned `r` (or, for a user thread, it was woken). Functions that keep
    /// nothing from their callees leave it alone: the return only lets them run on.
    fn resume(&mut self, _sim: &mut Sim, _task: u16, _r: Ret) {}
    /// Whether the frame is an interrupt handler (pushed between two steps of whatever
    /// the CPU was running, not called by it).
    fn is_interrupt(&self) -> bool {
        false
    }
    /// The frame has cleared a PTE of this page but not yet dropped its rmap (the
    /// mapcount may count one more than the PTEs), for the invariants.
    fn unmapping(&self) -> Option<u32> {
        None
    }
    /// The frame has changed PTEs of `mm` whose TLB flush is still to come, for the
    /// invariants.
    fn flush_under_way(&self, _mm: u16) -> bool {
        false
    }
}

/// Declares a mechanism's frames: `pub enum Frames` with one variant per function (and
/// the kernel function name events use), its dispatch, and `From<Struct> for Frame` so
/// callers write `Flow::Call(DoNumaPage::new(..).into())`.
#[macro_export]
macro_rules! frames {
    ($mech:ident; $( $(#[doc = $doc:literal])* $v:ident($t:ty) => $func:literal, )*) => {
        /// This mechanism's functions in progress.
        #[derive(Clone, Debug)]
        pub enum Frames {
            $( $(#[doc = $doc])* $v($t), )*
        }

        #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
        #[repr(u16)]
        enum FunctionIndex { $($v,)* }

        impl Frames {
            /// The kernel function this frame runs.
            pub fn function(&self) -> &'static str {
                match self { $( Frames::$v(_) => $func, )* }
            }

            /// Its position in this mechanism's [`FRAME_FUNCTIONS`].
            #[inline]
            pub fn index(&self) -> u16 {
                match self { $( Frames::$v(_) => FunctionIndex::$v as u16, )* }
            }

            /// Runs one line.
            #[inline]
            pub fn step(&mut self, sim: &mut $crate::engine::Sim, cpu: $crate::topology::CpuId) -> ($crate::trace::Ev, $crate::core::Flow<$crate::registry::Frame>) {
                match self { $( Frames::$v(f) => $crate::registry::Function::step(f, sim, cpu), )* }
            }

            /// A callee returned.
            pub fn resume(&mut self, sim: &mut $crate::engine::Sim, task: u16, r: $crate::core::Ret) {
                match self { $( Frames::$v(f) => $crate::registry::Function::resume(f, sim, task, r), )* }
            }

            /// Whether this is an interrupt handler.
            pub fn is_interrupt(&self) -> bool {
                match self { $( Frames::$v(f) => $crate::registry::Function::is_interrupt(f), )* }
            }

            /// See [`$crate::registry::Function::unmapping`].
            pub fn unmapping(&self) -> Option<u32> {
                match self { $( Frames::$v(f) => $crate::registry::Function::unmapping(f), )* }
            }

            /// See [`$crate::registry::Function::flush_under_way`].
            pub fn flush_under_way(&self, mm: u16) -> bool {
                match self { $( Frames::$v(f) => $crate::registry::Function::flush_under_way(f, mm), )* }
            }
        }

        /// Every function this mechanism's frames run (listing coverage).
        pub const FRAME_FUNCTIONS: &[&str] = &[$($func,)*];

        $(
            impl From<$t> for $crate::registry::Frame {
                #[inline]
                fn from(f: $t) -> Self {
                    $crate::registry::Frame::$mech(Frames::$v(f))
                }
            }
        )*
    };
}

/// What every declaration macro ([`crate::counters!`], [`crate::events!`], …) expands
/// to first: an index enum over the names and one typed handle per name, `Handle::at(the
/// mechanism, its position)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __handles {
    ($index:ident, $handle:ty, $mech:ident; $( $(#[doc = $doc:literal])* $k:ident, )*) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
        #[repr(u16)]
        enum $index { $($k,)* }
        $(
            $(#[doc = $doc])*
            pub const $k: $handle = <$handle>::at($crate::registry::Mech::$mech, $index::$k as u16);
        )*
    };
}

/// The listings of one function: one per variant, and how toggles pick the variant.
#[derive(Clone, Copy, Debug)]
pub struct FunctionListings {
    /// Kernel function (as events name it).
    pub function: &'static str,
    /// Listings, one per variant.
    pub variants: &'static [Listing],
    /// Which variant a toggle set selects (an index into `variants`).
    pub select: fn(&ToggleSet) -> usize,
}

impl FunctionListings {
    /// A function with one listing whatever the toggles.
    pub const fn single(listing: &'static [Listing]) -> Self {
        FunctionListings {
            function: listing[0].function,
            variants: listing,
            select: |_| 0,
        }
    }
}

/// A property that holds after every step (checked in tests and by `mmviz check --invariants`).
#[derive(Clone, Copy, Debug)]
pub struct Invariant {
    /// Short name, shown when it breaks.
    pub name: &'static str,
    /// The check; the error says what broke and where.
    pub check: fn(&Sim) -> Result<(), String>,
}

/// A view a mechanism brings to the lab: `id` names the web panel that draws it
/// (`web/src/panels/registry.tsx`; a view with no panel of its own gets the generic
/// one), `plots` the counters the lab plots by default when this mechanism runs.
#[derive(Clone, Copy, Debug)]
pub struct ViewDef {
    /// Panel id.
    pub id: &'static str,
    /// Heading.
    pub title: &'static str,
    /// Counter names plotted by default (checked against the counters by a test).
    pub plots: &'static [&'static str],
    /// What the panel draws besides counters: a snapshot of the mechanism's state at the
    /// current step (its own serialisable struct, typed for the web by ts-rs), or None
    /// when the view has none or the run has nothing of it (no zone, no mremap yet). The
    /// frame carries it under the view's id (`FrameHeader::views`); it is built only when
    /// a frame is asked for, never on the step path.
    pub state: Option<ViewState>,
}

/// Builds a view's state snapshot (see [`ViewDef::state`]).
pub type ViewState = fn(&crate::engine::Sim) -> Option<serde_json::Value>;

/// A mechanism's task_work hook: the event and the function to call, if its work is due.
pub type TaskWork = fn(&mut Sim, CpuId) -> Option<(Ev, Frame)>;

/// A mechanism: everything it brings to the engine, in one place.
#[derive(Clone, Copy, Debug)]
pub struct Mechanism {
    /// Id (web panels register under it).
    pub id: &'static str,
    /// What it models.
    pub title: &'static str,
    /// Its toggles (patch registry entries), in the order their handles index.
    pub toggles: &'static [Patch],
    /// Its counters, in the order their handles index.
    pub counters: &'static [CounterDef],
    /// Its costs (`[costs]` entries), in the order their handles index.
    pub costs: &'static [crate::costs::CostDef],
    /// Its knobs (`[knobs]` entries), in the order their handles index.
    pub knobs: &'static [crate::knobs::KnobDef],
    /// Its event kinds, in the order their handles index.
    pub events: &'static [EventDef],
    /// Workload operations it adds to the scenario format.
    pub ops: &'static [OpDef],
    /// Its functions' listings.
    pub listings: &'static [FunctionListings],
    /// Every function its frames run (from [`crate::frames!`]).
    pub functions: &'static [&'static str],
    /// What must hold after every step.
    pub invariants: &'static [Invariant],
    /// Its views.
    pub views: &'static [ViewDef],
    /// Work it queues for a thread's return to user space (`task_work_add` from its
    /// tick; `exit_to_user_mode` runs it): the event and the function to call, if due.
    pub task_work: Option<TaskWork>,
    /// What it does once the machine and the scenario's state are built, before the
    /// first step (state the scenario says predates the run, such as pages already
    /// dirty, sets off what it would have set off by then).
    pub setup: Option<fn(&mut Sim)>,
    /// What it does when the scheduler moves a thread from one CPU to another (the
    /// kernel's `migrate_task_rq` class hook, which `set_task_cpu` calls): the thread's
    /// task index, the CPU it leaves and the one it goes to.
    pub task_moved: Option<fn(&mut Sim, usize, CpuId, CpuId)>,
    /// What its kernel threads do when woken (`kernel/kthread.rs`).
    pub kthreads: &'static [crate::kernel::kthread::KthreadDef],
    /// Named toggle sets (the rows of a series' published table).
    pub presets: &'static [crate::patches::PresetDef],
    /// Metrics computed from a finished run (`mmviz run`, `[[expect]]`).
    pub metrics: &'static [MetricDef],
}

impl Mechanism {
    /// A mechanism that declares nothing: a declaration names what it has and takes the
    /// rest from here (`..Mechanism::EMPTY`), so a new hook does not touch every file.
    pub const EMPTY: Mechanism = Mechanism {
        id: "",
        title: "",
        toggles: &[],
        counters: &[],
        costs: &[],
        knobs: &[],
        events: &[],
        ops: &[],
        listings: &[],
        functions: &[],
        invariants: &[],
        views: &[],
        task_work: None,
        setup: None,
        task_moved: None,
        kthreads: &[],
        presets: &[],
        metrics: &[],
    };
}

/// A metric: a number computed from a run's final state (a ratio of counters, a share
/// of time), named like a counter in `[[expect]]` and the CLI's output.
#[derive(Clone, Copy)]
pub struct MetricDef {
    /// Name (unique across counters and metrics).
    pub name: &'static str,
    /// What it measures and how.
    pub doc: &'static str,
    /// Its value, or `None` when undefined for this run (a ratio over zero).
    pub value: fn(&crate::engine::Sim) -> Option<f64>,
}

impl std::fmt::Debug for MetricDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricDef").field("name", &self.name).finish_non_exhaustive()
    }
}

/// Every declared metric, in registry order.
pub fn metrics() -> impl Iterator<Item = &'static MetricDef> {
    MECHANISMS.iter().flat_map(|m| m.metrics.iter())
}

/// The registry: one line per mechanism, `Variant => module`. It makes the [`Mech`]
/// ids, the [`Frame`] enum (one variant per mechanism, holding that mechanism's
/// `Frames`) and [`MECHANISMS`].
macro_rules! mechanisms {
    ($( $(#[doc = $doc:literal])* $v:ident => $m:ident, )*) => {
        /// A mechanism's position in [`MECHANISMS`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Mech { $( $(#[doc = $doc])* $v, )* }

        /// Every mechanism, in registry order.
        pub const MECHANISMS: &[&Mechanism] = &[$(&crate::mech::$m::MECHANISM,)*];

        /// A modelled kernel function in progress: its locals and its program counter.
        #[derive(Clone, Debug)]
        pub enum Frame {
            /// The bottom of an idle task's or a kernel thread's stack: nothing to run.
            Idle,
            $( $(#[doc = $doc])* $v(crate::mech::$m::Frames), )*
        }

        impl Frame {
            /// The kernel function this frame runs.
            pub fn function(&self) -> &'static str {
                match self {
                    Frame::Idle => "do_idle",
                    $( Frame::$v(f) => f.function(), )*
                }
            }

            /// Its function's position in [`frame_functions`] ([`NR_FUNCTIONS`] for idle).
            #[inline]
            pub fn fn_index(&self) -> u16 {
                match self {
                    Frame::Idle => NR_FUNCTIONS as u16,
                    $( Frame::$v(f) => function_base(Mech::$v) + f.index(), )*
                }
            }

            /// Runs one line.
            #[inline]
            pub fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
                match self {
                    Frame::Idle => (Ev::default(), Flow::Continue),
                    $( Frame::$v(f) => f.step(sim, cpu), )*
                }
            }

            /// A callee returned `r` (or, for a user thread, it was woken).
            pub fn resume(&mut self, sim: &mut Sim, task: u16, r: Ret) {
                match self {
                    Frame::Idle => {}
                    $( Frame::$v(f) => f.resume(sim, task, r), )*
                }
            }

            /// Whether the frame is an interrupt handler (pushed between two steps of
            /// whatever the CPU was running, not called by it).
            pub fn is_interrupt(&self) -> bool {
                match self {
                    Frame::Idle => false,
                    $( Frame::$v(f) => f.is_interrupt(), )*
                }
            }

            /// A page whose PTE the frame cleared before dropping its rmap.
            pub fn unmapping(&self) -> Option<u32> {
                match self {
                    Frame::Idle => None,
                    $( Frame::$v(f) => f.unmapping(), )*
                }
            }

            /// Whether the frame changed PTEs of `mm` and has yet to flush them.
            pub fn flush_under_way(&self, mm: u16) -> bool {
                match self {
                    Frame::Idle => false,
                    $( Frame::$v(f) => f.flush_under_way(mm), )*
                }
            }
        }
    };
}

mechanisms! {
    /// User mode, faults, the scheduler, locks, rmap and x86 TLB shootdowns.
    Core => core,
    /// Page migration (`migrate_pages` and its helpers).
    Migrate => migrate,
    /// Automatic NUMA balancing.
    Numa => numa,
    /// fork() and copy-on-write.
    Fork => fork,
    /// Writeback: the flusher, page_mkclean, the backing store.
    Writeback => writeback,
    /// mremap, its flush regimes and LATENCY_LIMIT.
    Mremap => mremap,
    /// The page allocator and per-CPU page lists.
    PageAlloc => page_alloc,
    /// Transparent huge pages.
    Thp => thp,
}

impl Frame {
    /// The user-mode frame at the base of a user thread's stack, if this is one.
    pub fn user_mode(&self) -> Option<&crate::kernel::entry::UserMode> {
        match self {
            Frame::Core(crate::mech::core::Frames::User(u)) => Some(u),
            _ => None,
        }
    }

    /// The same, to change.
    pub fn user_mode_mut(&mut self) -> Option<&mut crate::kernel::entry::UserMode> {
        match self {
            Frame::Core(crate::mech::core::Frames::User(u)) => Some(u),
            _ => None,
        }
    }
}

/// Sums `len` over the mechanisms before `m` (a declaration's handle base).
macro_rules! base {
    ($name:ident, $field:ident) => {
        /// Where mechanism `m`'s entries start in the flat table.
        pub const fn $name(m: Mech) -> u16 {
            let mut i = 0;
            let mut n = 0;
            while i < m as usize {
                n += MECHANISMS[i].$field.len();
                i += 1;
            }
            n as u16
        }
    };
}
base!(counter_base, counters);
base!(event_base, events);
base!(toggle_base, toggles);
base!(cost_base, costs);
base!(knob_base, knobs);
base!(function_base, functions);

const fn total(which: u8) -> usize {
    let mut i = 0;
    let mut n = 0;
    while i < MECHANISMS.len() {
        let m = MECHANISMS[i];
        n += match which {
            0 => m.counters.len(),
            1 => m.events.len(),
            2 => m.toggles.len(),
            3 => m.costs.len(),
            4 => m.knobs.len(),
            _ => m.functions.len(),
        };
        i += 1;
    }
    n
}

/// Number of counters across mechanisms.
pub const NR_COUNTERS: usize = total(0);
/// Number of event kinds across mechanisms.
pub const NR_EVENT_KINDS: usize = total(1);
/// Number of toggles across mechanisms.
pub const NR_TOGGLES: usize = total(2);
/// Number of costs across mechanisms.
pub const NR_COSTS: usize = total(3);
/// Number of knobs across mechanisms.
pub const NR_KNOBS: usize = total(4);
/// Number of functions frames run, across mechanisms.
pub const NR_FUNCTIONS: usize = total(5);

/// Flattens one declaration list of every mechanism into an array (compile time).
macro_rules! flat {
    ($fn:ident, $field:ident, $t:ty, $n:expr, $placeholder:expr) => {
        const fn $fn() -> [&'static $t; $n] {
            let mut out: [&'static $t; $n] = [$placeholder; $n];
            let (mut i, mut k) = (0, 0);
            while i < MECHANISMS.len() {
                let defs = MECHANISMS[i].$field;
                let mut j = 0;
                while j < defs.len() {
                    out[k] = &defs[j];
                    k += 1;
                    j += 1;
                }
                i += 1;
            }
            out
        }
    };
}
const NO_COUNTER: CounterDef = CounterDef {
    name: "",
    doc: "",
    kernel: false,
};
const NO_EVENT: EventDef = EventDef {
    name: "",
    doc: "",
    category: crate::trace::EventCategory::Other,
};
flat!(counter_defs, counters, CounterDef, NR_COUNTERS, &NO_COUNTER);
flat!(event_defs, events, EventDef, NR_EVENT_KINDS, &NO_EVENT);
flat!(toggle_defs, toggles, Patch, NR_TOGGLES, &crate::patches::NO_PATCH);
const NO_COST: crate::costs::CostDef = crate::costs::CostDef {
    name: "",
    default: 0,
    doc: "",
};
flat!(cost_defs, costs, crate::costs::CostDef, NR_COSTS, &NO_COST);
const NO_KNOB: crate::knobs::KnobDef = crate::knobs::KnobDef {
    name: "",
    doc: "",
    kind: crate::knobs::KnobKind::Bool,
    default: None,
};
flat!(knob_defs, knobs, crate::knobs::KnobDef, NR_KNOBS, &NO_KNOB);

/// Every counter's declaration, indexed by its handle.
pub static COUNTERS: [&CounterDef; NR_COUNTERS] = counter_defs();
/// Every event kind's declaration, indexed by its handle.
pub static EVENT_KINDS: [&EventDef; NR_EVENT_KINDS] = event_defs();
/// Every toggle (the patch registry), indexed by its handle.
pub static TOGGLES: [&Patch; NR_TOGGLES] = toggle_defs();
/// Every cost, indexed by its handle.
pub static COSTS: [&crate::costs::CostDef; NR_COSTS] = cost_defs();
/// Every knob, indexed by its handle.
pub static KNOBS: [&crate::knobs::KnobDef; NR_KNOBS] = knob_defs();

/// Counters in display order: the kernel's own first, then the model's, each group in
/// registry order.
pub static COUNTER_ORDER: [Counter; NR_COUNTERS] = {
    let defs = counter_defs();
    let mut out = [Counter::from_index(0); NR_COUNTERS];
    let mut k = 0;
    let mut pass = 0;
    while pass < 2 {
        let mut i = 0;
        while i < NR_COUNTERS {
            if defs[i].kernel == (pass == 0) {
                out[k] = Counter::from_index(i as u16);
                k += 1;
            }
            i += 1;
        }
        pass += 1;
    }
    out
};

/// Every event kind, in registry order.
pub fn event_kinds() -> impl Iterator<Item = EventKind> {
    (0..NR_EVENT_KINDS as u16).map(EventKind::from_index)
}

/// Every workload operation, across mechanisms.
pub fn ops() -> impl Iterator<Item = &'static OpDef> {
    MECHANISMS.iter().flat_map(|m| m.ops.iter())
}

/// Every function's listings, across mechanisms.
pub fn function_listings() -> impl Iterator<Item = &'static FunctionListings> {
    MECHANISMS.iter().flat_map(|m| m.listings.iter())
}

/// Every function a frame can run, across mechanisms.
pub fn frame_functions() -> impl Iterator<Item = &'static str> {
    MECHANISMS.iter().flat_map(|m| m.functions.iter().copied())
}

/// Every invariant, across mechanisms.
pub fn invariants() -> impl Iterator<Item = &'static Invariant> {
    MECHANISMS.iter().flat_map(|m| m.invariants.iter())
}

/// The listing of `function` that `toggles` select.
pub fn listing(function: &str, toggles: &ToggleSet) -> Option<&'static Listing> {
    function_listings()
        .find(|f| f.function == function)
        .and_then(|f| f.variants.get((f.select)(toggles)).or(f.variants.first()))
}

/// Every listing `toggles` select, one per function.
pub fn active_listings(toggles: &ToggleSet) -> Vec<&'static Listing> {
    function_listings().filter_map(|f| f.variants.get((f.select)(toggles))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_frame_function_has_a_listing() {
        for f in frame_functions() {
            assert!(function_listings().any(|l| l.function == f), "no listing for {f}");
        }
    }

    #[test]
    fn every_listing_is_named_after_its_function() {
        for f in function_listings() {
            for v in f.variants {
                assert_eq!(v.function, f.function);
            }
        }
    }

    #[test]
    fn no_function_is_listed_twice() {
        let mut seen = HashSet::new();
        for f in function_listings() {
            assert!(seen.insert(f.function), "{} has listings in two places", f.function);
        }
    }

    #[test]
    fn names_are_unique_across_mechanisms() {
        let mut ids = HashSet::new();
        for m in MECHANISMS {
            assert!(ids.insert(m.id), "mechanism {}", m.id);
        }
        let mut names = HashSet::new();
        for c in COUNTERS {
            assert!(!c.name.is_empty() && names.insert(c.name), "counter {} declared twice", c.name);
        }
        let mut names = HashSet::new();
        for e in EVENT_KINDS {
            assert!(!e.name.is_empty() && names.insert(e.name), "event kind {} declared twice", e.name);
        }
        let mut names = HashSet::new();
        for t in TOGGLES {
            assert!(!t.id.is_empty() && names.insert(t.id), "toggle {} declared twice", t.id);
        }
        let mut names = HashSet::new();
        for c in COSTS {
            assert!(!c.name.is_empty() && names.insert(c.name), "cost {} declared twice", c.name);
        }
        let mut names = HashSet::new();
        for k in KNOBS {
            assert!(!k.name.is_empty() && names.insert(k.name), "knob {} declared twice", k.name);
        }
        let mut names = HashSet::new();
        for o in ops() {
            assert!(names.insert(o.name), "operation {} declared twice", o.name);
        }
        // A metric shares the `[[expect]]` namespace with the counters.
        let mut names: HashSet<&str> = COUNTERS.iter().map(|c| c.name).collect();
        names.insert("steps");
        for m in metrics() {
            assert!(names.insert(m.name), "metric {} clashes with a counter or another metric", m.name);
        }
        let mut names = HashSet::new();
        for p in crate::patches::presets() {
            assert!(names.insert(p.name), "preset {} declared twice", p.name);
        }
    }

    #[test]
    fn toggle_histories_and_presets_name_real_versions_and_values() {
        use crate::patches::{Kernel, ToggleKind};
        for t in TOGGLES {
            if t.history.is_empty() {
                assert_eq!(t.kind, ToggleKind::Bool, "{}: an enum toggle needs a history", t.id);
                continue;
            }
            assert_eq!(t.history[0].0, "", "{}: a history starts with the oldest kernels (\"\")", t.id);
            let mut last = None;
            for (from, v) in &t.history[1..] {
                let k = Kernel::parse(from).unwrap_or_else(|e| panic!("{}: {e}", t.id));
                assert!(last < Some(k), "{}: history out of order at {from}", t.id);
                last = Some(k);
                assert!(t.parse_value(v).is_ok(), "{}: `{v}` is not a value", t.id);
            }
            assert!(t.parse_value(t.history[0].1).is_ok(), "{}", t.id);
        }
        for p in crate::patches::presets() {
            let mut set = crate::patches::ToggleSet::default();
            set.apply_preset(p).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    #[test]
    fn handles_index_their_own_declarations() {
        use crate::mech::{core, fork, numa};
        assert_eq!(core::CTXT.name(), "ctxt");
        assert_eq!(numa::NUMA_HINT_FAULTS.name(), "numa_hint_faults");
        assert_eq!(fork::PGREUSE.name(), "pgreuse");
        assert_eq!(numa::ev::HINT_FAULT.name(), "hint_fault");
        assert_eq!(fork::ev::COW_COPY.name(), "cow_copy");
        assert_eq!(numa::NUMA_DELAY_MAP.id(), "numa_delay_map");
        assert_eq!(numa::NUMA_SKIP_DIRTY_FILE.id(), "numa_skip_dirty_file");
    }

    #[test]
    fn display_order_lists_each_counter_once_kernel_first() {
        let mut seen = HashSet::new();
        let mut model = false;
        for c in COUNTER_ORDER {
            assert!(seen.insert(c), "{c} twice");
            if !c.is_kernel() {
                model = true;
            }
            assert!(!(model && c.is_kernel()), "{c} (kernel) after a model counter");
        }
        assert_eq!(seen.len(), NR_COUNTERS);
    }

    #[test]
    fn views_plot_declared_counters() {
        for m in MECHANISMS {
            for v in m.views {
                for p in v.plots {
                    assert!(
                        Counter::from_name(p).is_some(),
                        "view {} of {} plots unknown counter {p}",
                        v.id,
                        m.id
                    );
                }
            }
        }
    }

    #[test]
    fn toggles_list_their_changed_functions_listings() {
        for m in MECHANISMS {
            for t in m.toggles {
                for f in t.functions {
                    let fl = m.listings.iter().find(|l| l.function == *f);
                    let fl = fl.unwrap_or_else(|| panic!("{}: {} has no listing in {}", t.id, f, m.id));
                    assert_eq!(fl.variants.len(), t.values().len(), "{}: one listing of {f} per value", t.id);
                }
            }
        }
    }

    #[test]
    fn every_operation_fits_its_arguments() {
        for op in ops() {
            assert!(
                op.args.len() <= crate::scenario::MAX_OP_ARGS,
                "{} takes {} arguments",
                op.name,
                op.args.len()
            );
        }
    }

    #[test]
    fn the_frame_stays_small() {
        assert!(std::mem::size_of::<Frame>() <= 48, "{} bytes", std::mem::size_of::<Frame>());
    }
}
