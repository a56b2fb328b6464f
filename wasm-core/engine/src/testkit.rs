//! Scenario text for tests: the lines every small test scenario repeats (the header, the
//! `[knobs]` table, a machine of nodes) built from what differs, so a test shows only what
//! it is about. The engine's unit tests, its integration tests and the CLI's tests use it.
//! Also two helpers of the integration tests: a counter by name, and stepping with the
//! invariants checked until a condition holds.
//!
//! ```
//! use mmviz_engine::testkit::TestScenario;
//! let text = TestScenario::new()
//!     .seed(3)
//!     .knob("scan_period_ms", 1)
//!     .two_nodes("cpus = [0]\nmem_pages = 64", "cpus = [1]\nmem_pages = 64")
//!     .then("[[process]]\nname = \"app\"\n[[process.thread]]\ncpu = 1\nops = [{ op = \"compute\", ns = 1000 }]\n")
//!     .text();
//! assert!(mmviz_engine::scenario::parse(&text, &[]).is_ok());
//! ```

use crate::engine::Sim;
use std::fmt::{Display, Write};

/// A counter's value by its name; a name no mechanism declares is a test's typo and panics.
#[allow(clippy::panic)] // reason: test support: a misspelt counter must stop the test
pub fn counter(sim: &Sim, name: &str) -> u64 {
    let Some(c) = crate::counters::Counter::from_name(name) else {
        panic!("no counter {name}");
    };
    sim.st.counters.get(c)
}

/// Steps `sim`, checking the invariants after each step, until `done` holds; panics if the
/// run ends first, an invariant breaks, or a million steps pass.
#[allow(clippy::panic)] // reason: test support: a test stops at the first surprise
pub fn step_checked_until(sim: &mut Sim, done: impl Fn(&Sim) -> bool) {
    for _ in 0..1_000_000 {
        if done(sim) {
            return;
        }
        if sim.step().is_none() {
            panic!("the run ended first");
        }
        if let Err(e) = crate::invariants::check(sim) {
            panic!("step {}: {e}", sim.st.step);
        }
    }
    panic!("never happened");
}

/// A scenario's text, built part by part (see the module's example).
#[derive(Clone, Debug, Default)]
pub struct TestScenario {
    seed: Option<u64>,
    kernel: Option<String>,
    knobs: Vec<(String, String)>,
    distance: Option<String>,
    tlb_entries: Option<u32>,
    nodes: Vec<String>,
    rest: String,
}

impl TestScenario {
    /// `format = 1`, `id = "t"`, `title = "t"` and nothing else yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The scenario's `seed` (left out: the scenario format's default).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The scenario's `kernel` preset (`"v5.12"`, ...).
    pub fn kernel(mut self, version: &str) -> Self {
        self.kernel = Some(version.to_string());
        self
    }

    /// One `[knobs]` entry, in the order given.
    pub fn knob(mut self, name: &str, value: impl Display) -> Self {
        self.knobs.push((name.to_string(), value.to_string()));
        self
    }

    /// `[machine]`'s `tlb_entries`.
    pub fn tlb_entries(mut self, n: u32) -> Self {
        self.tlb_entries = Some(n);
        self
    }

    /// One `[[machine.node]]`, given as its lines (`cpus = [0]\nmem_pages = 64`); the nodes
    /// are numbered in the order added. Without [`TestScenario::distance`] the format's
    /// default distances apply (10 on the diagonal, 20 elsewhere).
    pub fn node(mut self, lines: &str) -> Self {
        self.nodes.push(lines.trim().to_string());
        self
    }

    /// `[machine]`'s `distance` matrix, as its TOML text (`[[10, 21], [21, 10]]`).
    pub fn distance(mut self, matrix: &str) -> Self {
        self.distance = Some(matrix.to_string());
        self
    }

    /// A two-socket machine: two nodes at distance 21 (`numactl --hardware` on most
    /// two-socket x86 servers), each given as its `[[machine.node]]` lines.
    pub fn two_nodes(self, node0: &str, node1: &str) -> Self {
        self.distance("[[10, 21], [21, 10]]").node(node0).node(node1)
    }

    /// One process `app` with a `heap` VMA of `pages` pages and a thread per `(cpu, ops)`
    /// pair, pinned to that CPU and running `ops` (a TOML array of operations).
    pub fn heap_process(self, pages: u32, threads: &[(u32, &str)]) -> Self {
        let mut text = format!("[[process]]\nname = \"app\"\n[[process.vma]]\nname = \"heap\"\npages = {pages}\n");
        for (cpu, ops) in threads {
            let _ = write!(text, "[[process.thread]]\ncpu = {cpu}\nops = {ops}\n");
        }
        self.then(&text)
    }

    /// What follows the machine: processes, chapters, expectations (TOML text).
    pub fn then(mut self, text: &str) -> Self {
        self.rest.push_str(text.trim_start_matches('\n'));
        if !self.rest.ends_with('\n') {
            self.rest.push('\n');
        }
        self
    }

    /// The scenario's text.
    pub fn text(&self) -> String {
        let mut s = String::from("format = 1\nid = \"t\"\ntitle = \"t\"\n");
        if let Some(seed) = self.seed {
            let _ = writeln!(s, "seed = {seed}");
        }
        if let Some(k) = &self.kernel {
            let _ = writeln!(s, "kernel = \"{k}\"");
        }
        if !self.knobs.is_empty() {
            s.push_str("[knobs]\n");
            for (name, value) in &self.knobs {
                let _ = writeln!(s, "{name} = {value}");
            }
        }
        s.push_str("[machine]\n");
        if let Some(d) = &self.distance {
            let _ = writeln!(s, "distance = {d}");
        }
        if let Some(n) = self.tlb_entries {
            let _ = writeln!(s, "tlb_entries = {n}");
        }
        for node in &self.nodes {
            let _ = writeln!(s, "[[machine.node]]\n{node}");
        }
        s.push_str(&self.rest);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_has_every_part_in_the_order_a_scenario_file_has_it() {
        let t = TestScenario::new()
            .seed(7)
            .kernel("v5.12")
            .knob("window_ms", 40)
            .knob("scan_period_ms", 1)
            .tlb_entries(16)
            .two_nodes("cpus = [0]\nmem_pages = 64", "\ncpus = [1]\nmem_pages = 16\nhigh_wmark_pages = 8\n")
            .then("\n[[process]]\nname = \"p\"")
            .text();
        assert_eq!(
            t,
            "format = 1\nid = \"t\"\ntitle = \"t\"\nseed = 7\nkernel = \"v5.12\"\n[knobs]\nwindow_ms = 40\n\
             scan_period_ms = 1\n[machine]\ndistance = [[10, 21], [21, 10]]\ntlb_entries = 16\n\
             [[machine.node]]\ncpus = [0]\nmem_pages = 64\n[[machine.node]]\ncpus = [1]\nmem_pages = 16\n\
             high_wmark_pages = 8\n[[process]]\nname = \"p\"\n"
        );
        // The least: a header and a machine.
        assert_eq!(
            TestScenario::new().node("cpus = [0]\nmem_pages = 8").text(),
            "format = 1\nid = \"t\"\ntitle = \"t\"\n[machine]\n[[machine.node]]\ncpus = [0]\nmem_pages = 8\n"
        );
    }
}
