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
}

/// Every built-in scenario, teaching ones first.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        id: "numa-hint-fault-101",
        file: "numa-hint-fault-101.toml",
        text: include_str!("../../../scenarios/numa-hint-fault-101.toml"),
    },
    Builtin {
        id: "sched-101",
        file: "sched-101.toml",
        text: include_str!("../../../scenarios/sched-101.toml"),
    },
    Builtin {
        id: "rmap-101",
        file: "rmap-101.toml",
        text: include_str!("../../../scenarios/rmap-101.toml"),
    },
    Builtin {
        id: "affinity-101",
        file: "affinity-101.toml",
        text: include_str!("../../../scenarios/affinity-101.toml"),
    },
    Builtin {
        id: "fork-cow-101",
        file: "fork-cow-101.toml",
        text: include_str!("../../../scenarios/fork-cow-101.toml"),
    },
    Builtin {
        id: "numa-delay-map-scale",
        file: "numa-delay-map-scale.toml",
        text: include_str!("../../../scenarios/numa-delay-map-scale.toml"),
    },
];

/// Whether a scenario is a teaching one (`*-101`): small enough to record every step.
pub fn is_teaching(id: &str) -> bool {
    id.ends_with("-101")
}

/// Looks a built-in up by id.
pub fn find(id: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.id == id)
}
