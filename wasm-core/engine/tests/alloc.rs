//! Counters-only stepping makes no heap allocation (the "zero allocation per step" target
//! of engine core v2). A counting global allocator wraps the system one in this test
//! binary; only the measuring thread, and only between `start` and `stop`, is counted.
//! On a failure the message gives the allocations per step and the engine frames of the
//! first few allocating call stacks.
#![allow(unsafe_code)] // reason: a `#[global_allocator]` is an `unsafe impl GlobalAlloc`; test binary only
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin;
use mmviz_engine::engine::Sim;
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::scenario;
use std::alloc::{GlobalAlloc, Layout, System};
use std::backtrace::Backtrace;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Call stacks kept at most (the first allocations after the warm-up).
const MAX_TRACES: usize = 6;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static REALLOCS: AtomicUsize = AtomicUsize::new(0);
static TRACES: Mutex<Vec<Backtrace>> = Mutex::new(Vec::new());

thread_local! {
    /// This thread is being measured.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    /// This thread is inside the allocator's own bookkeeping (a backtrace allocates).
    static IN_HOOK: Cell<bool> = const { Cell::new(false) };
}

struct Counting;

impl Counting {
    fn note(counter: &AtomicUsize) {
        if !COUNTING.with(Cell::get) || IN_HOOK.with(Cell::get) {
            return;
        }
        let n = counter.fetch_add(1, Ordering::Relaxed);
        let r = REALLOCS.load(Ordering::Relaxed);
        let a = ALLOCS.load(Ordering::Relaxed);
        if n < MAX_TRACES && a + r <= MAX_TRACES {
            IN_HOOK.with(|h| h.set(true));
            let bt = Backtrace::force_capture();
            if let Ok(mut t) = TRACES.lock() {
                if t.len() < MAX_TRACES {
                    t.push(bt);
                }
            }
            IN_HOOK.with(|h| h.set(false));
        }
    }
}

// SAFETY: every call is forwarded unchanged to `System`; the bookkeeping only touches
// atomics and thread-locals (and, guarded against re-entry, a mutex-protected vector).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::note(&ALLOCS);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::note(&ALLOCS);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::note(&REALLOCS);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn start() {
    ALLOCS.store(0, Ordering::Relaxed);
    REALLOCS.store(0, Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
}

/// Stops counting; returns (allocations, reallocations).
fn stop() -> (usize, usize) {
    COUNTING.with(|c| c.set(false));
    (ALLOCS.load(Ordering::Relaxed), REALLOCS.load(Ordering::Relaxed))
}

/// The engine frames of a call stack (`file:line` of each `mmviz_engine` function).
fn engine_frames(bt: &Backtrace) -> String {
    let text = bt.to_string();
    let mut out = Vec::new();
    let mut keep = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("at ") {
            if keep {
                out.push(format!("        {l}"));
            }
        } else {
            keep = l.contains("mmviz_engine::");
            if keep {
                out.push(format!("    {l}"));
            }
        }
    }
    if out.is_empty() {
        text
    } else {
        out.join("\n")
    }
}

const WARM_UP: u64 = 100_000;
const MEASURED: u64 = 100_000;

#[test]
fn counters_only_steps_make_no_allocation() {
    let b = builtin::find("numa-delay-map-scale").expect("built-in");
    let s = scenario::parse(b.text, &[]).expect("parses");
    let mut sim = Sim::new(&s, &ToggleSet::default(), false);
    for _ in 0..WARM_UP {
        assert!(sim.step().is_some(), "the run ended during the warm-up");
    }
    start();
    let mut steps = 0u64;
    for _ in 0..MEASURED {
        if sim.step().is_none() {
            break;
        }
        steps += 1;
    }
    let (allocs, reallocs) = stop();
    assert_eq!(steps, MEASURED, "the run ended during the measurement");
    if allocs + reallocs > 0 {
        let traces = TRACES
            .lock()
            .map(|t| t.iter().map(engine_frames).collect::<Vec<_>>())
            .unwrap_or_default();
        panic!(
            "counters-only stepping allocated: {allocs} allocations and {reallocs} reallocations in {steps} steps \
             after a {WARM_UP}-step warm-up ({:.2e} allocations + {:.2e} reallocations per step).\n\
             First allocating call stacks (engine frames):\n{}",
            allocs as f64 / steps as f64,
            reallocs as f64 / steps as f64,
            traces
                .iter()
                .enumerate()
                .map(|(i, t)| format!("--- #{i}\n{t}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
