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

/// The built-in scenario `scenarios/<id>.toml`, compiled in.
macro_rules! builtin {
    ($id:literal) => {
        Builtin {
            id: $id,
            file: concat!($id, ".toml"),
            text: include_str!(concat!("../../../scenarios/", $id, ".toml")),
        }
    };
}

/// Every built-in scenario, teaching ones first.
pub const BUILTINS: &[Builtin] = &[
    builtin!("numa-hint-fault-101"),
    builtin!("numa-dirty-file-101"),
    builtin!("numa-thread-race-101"),
    builtin!("sched-101"),
    builtin!("rmap-101"),
    builtin!("affinity-101"),
    builtin!("fork-cow-101"),
    builtin!("mremap-101"),
    builtin!("mremap-race-101"),
    builtin!("numa-delay-map-scale"),
    builtin!("mremap-2mb"),
    builtin!("mremap-mixed"),
    builtin!("pcp-101"),
    builtin!("pcp-exit-drain"),
    builtin!("pcp-autotune"),
    builtin!("pcp-unix-pairs"),
    builtin!("pcp-kbuild"),
    builtin!("pcp-sctp"),
];

/// Whether a scenario is a teaching one (`*-101`): small enough to record every step.
pub fn is_teaching(id: &str) -> bool {
    id.ends_with("-101")
}

/// Looks a built-in up by id.
pub fn find(id: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.id == id)
}
