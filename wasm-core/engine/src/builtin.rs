//! The scenario registry: every file in `scenarios/`, built in. One list feeds the
//! CLI, the tests, the UI picker and the end-to-end tests.

/// A built-in scenario.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// Id (the file stem).
    pub id: &'static str,
    /// File name inside `scenarios/`.
    pub file: &'static str,
    /// The TOML text.
    pub text: &'static str,
    /// Parameters that shrink a long reproduction run to a shorter one with the same
    /// mechanisms at work (about 0.3-1.5 M steps), for the tests that step through every
    /// built-in: under every toggle set (listing lines, frames), native against wasm, and
    /// in the lab (the Node tests read them from `builtinScenarios()`). The scenario's own
    /// expectations and tests run it as it is.
    pub quick: &'static [(&'static str, i64)],
}

impl Builtin {
    /// [`Builtin::quick`] as `--param` overrides.
    pub fn quick_params(&self) -> Vec<(String, i64)> {
        self.quick.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }
}

/// The built-in scenario `scenarios/<id>.toml`, compiled in.
macro_rules! builtin {
    ($id:literal) => {
        builtin!($id, quick = [])
    };
    ($id:literal, quick = [$(($k:literal, $v:literal)),*]) => {
        Builtin {
            id: $id,
            file: concat!($id, ".toml"),
            text: include_str!(concat!("../../../scenarios/", $id, ".toml")),
            quick: &[$(($k, $v)),*],
        }
    };
}

/// Every built-in scenario, teaching ones first.
pub const BUILTINS: &[Builtin] = &[
    builtin!("numa-hint-fault-101"),
    builtin!("numa-dirty-file-101"),
    builtin!("numa-thread-race-101"),
    builtin!("numa-two-stage-filter-101"),
    builtin!("numa-thp-101"),
    builtin!("sched-101"),
    builtin!("rmap-101"),
    builtin!("affinity-101"),
    builtin!("fork-cow-101"),
    builtin!("mremap-101"),
    builtin!("mremap-race-101"),
    builtin!("numa-delay-map-scale", quick = [("accesses", 20000)]),
    // 1.1e7 steps as it is; 4 processes of 2 threads on 4 CPUs for 15 s still migrate.
    builtin!(
        "numa-pmbench",
        quick = [("processes", 4), ("threads", 2), ("node1_cpus", 4), ("seconds", 15)]
    ),
    // 8 ranks for 5 s: scans, hint faults and migrations (5,376 and 672 at the defaults).
    builtin!(
        "numa-npb-btrfs",
        quick = [("cpus_per_node", 3), ("ranks_per_node", 2), ("private_pages", 256), ("seconds", 5)]
    ),
    builtin!(
        "numa-npb-xfs",
        quick = [("cpus_per_node", 3), ("ranks_per_node", 2), ("private_pages", 256), ("seconds", 5)]
    ),
    builtin!("mremap-2mb"),
    builtin!("mremap-mixed"),
    builtin!("pcp-101"),
    builtin!("pcp-exit-drain", quick = [("processes", 25)]),
    builtin!("pcp-autotune", quick = [("processes", 10)]),
    builtin!("pcp-unix-pairs"),
    builtin!("pcp-kbuild", quick = [("window_ms", 25)]),
    builtin!("pcp-sctp"),
    // Made for the interleaving explorer (`[explore]`), not a run to watch end to end.
    builtin!("mremap-race-explore"),
];

/// Whether a scenario is a teaching one (`*-101`): small enough to record every step.
pub fn is_teaching(id: &str) -> bool {
    id.ends_with("-101")
}

/// Looks a built-in up by id.
pub fn find(id: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.id == id)
}
