//! Scenario files (format 1, TOML): parsing, `[params]` substitution and validation.
//!
//! The serde types below own the schema (documented field by field in
//! `scenarios/README.md`, and as JSON Schema by [`json_schema`] for editors). Every
//! error names the line and the field it is about.

use crate::patches::{self, Kernel, ToggleValue};
use crate::topology::{CpuId, Node, NodeId, Topology};
use schemars::generate::SchemaSettings;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use toml::Spanned;

/// A problem with a scenario or with the values given to run it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// 1-based line in the scenario text, when the problem has a place there.
    pub line: Option<usize>,
    /// Dotted field path, e.g. `process[0].thread[1].cpu`.
    pub field: Option<String>,
    /// What is wrong, for a person.
    pub message: String,
}

impl ScenarioError {
    fn at(text: &str, span: std::ops::Range<usize>, field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            line: Some(line_of(text, span.start)),
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// An error about a value given from outside the file (CLI, URL, UI).
    pub fn input(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            line: None,
            field: Some(field.into()),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.line, &self.field) {
            (Some(l), Some(field)) => write!(f, "line {l}, field `{field}`: {}", self.message),
            (Some(l), None) => write!(f, "line {l}: {}", self.message),
            (None, Some(field)) => write!(f, "`{field}`: {}", self.message),
            (None, None) => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// 1-based line number of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes().iter().take(offset.min(text.len())).filter(|&&b| b == b'\n').count() + 1
}

/// A whole number, or `"$name"` referring to a `[params]` entry (or a product or quotient
/// of numbers and such names, `"$scale * 16384"`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum NumOrParam {
    /// A literal.
    Int(i64),
    /// A parameter reference, `"$name"`.
    Param(String),
}

/// What a `"$name"` reference looks like in the schema. The parser itself accepts any
/// `$`-prefixed key of `[params]`; the schema asks for identifier-like names so editors
/// can flag a stray quote or a missing `$`. `{i}` / `{p}` are a copy's index (`count`).
const PARAM_REF_PATTERN: &str = r"^((\$[A-Za-z_][A-Za-z0-9_]*|\{[ip]\})( *[*/] *(\$[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\{[ip]\}))*|[0-9]+( *[*/] *(\$[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\{[ip]\}))+)$";

impl JsonSchema for NumOrParam {
    fn schema_name() -> Cow<'static, str> {
        "NumOrParam".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A whole number, or \"$name\" naming an entry of [params] whose value is used instead, or, in a table with `count`, \"{i}\" (\"{p}\" in a [[process]]) for the copy's index; or a product or quotient of these and numbers, evaluated left to right in whole numbers (\"$scale * 16384\", \"{p} / $ranks\").",
            "anyOf": [
                { "type": "integer" },
                { "type": "string", "pattern": PARAM_REF_PATTERN },
            ],
        })
    }
}

/// A number with its place in the file.
pub type Num = Spanned<NumOrParam>;

/// `[params.NAME]`: a named whole number the rest of the file can use as `"$NAME"`
/// wherever a number goes; the CLI and the lab override it within `min..=max`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// Value when nothing overrides it; must lie within `min..=max`.
    #[schemars(with = "i64")]
    pub default: Spanned<i64>,
    /// Smallest allowed value (inclusive).
    pub min: i64,
    /// Largest allowed value (inclusive).
    pub max: i64,
    /// What the parameter means; shown beside its input in the lab.
    #[serde(default)]
    pub description: String,
}

/// `[machine]`: the NUMA nodes, their distances and the TLB size.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    /// `[[machine.node]]`, one per node in node-id order (1 to 64 nodes). Leave out when
    /// `numactl` gives the machine.
    #[serde(default)]
    pub node: Vec<NodeSpec>,
    /// The machine as `numactl --hardware` prints it (paste the output, prompt line and
    /// all): nodes, CPUs, sizes and distances come from it. Node ids are renumbered 0, 1,
    /// ... in the order it lists them (a sparse `node 0, 2` becomes nodes 0 and 1); CPU
    /// ids are kept and must be 0..N-1. Needs `mem_scale`.
    #[schemars(with = "Option<String>")]
    pub numactl: Option<Spanned<String>>,
    /// With `numactl`: the same machine's `lscpu` output. A node numactl lists without CPUs
    /// takes lscpu's list (both must agree where both give one), and the last-level cache's
    /// share per CPU sets the knob `llc_slice_kb` unless `[knobs]` sets it.
    #[schemars(with = "Option<String>")]
    pub lscpu: Option<Spanned<String>>,
    /// With `numactl`: the same machine's `/proc/zoneinfo`. Each node's populated zones
    /// become the model's one zone of that node: its managed pages (instead of numactl's
    /// size) and min/low/high watermarks divided by `mem_scale`, and the pageset `batch` and
    /// `high` (`high_min`/`high_max` where printed) of its largest zone as printed, per CPU
    /// (`[knobs]` pcp_batch, pcp_high_min, pcp_high_max still win). Sizes must agree with
    /// numactl's within 2 %.
    #[schemars(with = "Option<String>")]
    pub zoneinfo: Option<Spanned<String>>,
    /// With `numactl`: real 4 KiB pages per simulated page (a node of S MB gets
    /// S * 256 / mem_scale pages), so a 384 GB machine runs at a size a browser holds.
    #[schemars(with = "Option<NumOrParam>")]
    pub mem_scale: Option<Num>,
    /// Node distance matrix as `numactl --hardware` prints it: 10 on the diagonal,
    /// 11-254 elsewhere. Default: 10 on the diagonal and 20 elsewhere.
    #[schemars(with = "Option<Vec<Vec<u32>>>")]
    pub distance: Option<Spanned<Vec<Vec<u32>>>>,
    /// TLB entries per CPU (fully associative, LRU); default 64.
    #[schemars(with = "Option<NumOrParam>", extend("default" = 64))]
    pub tlb_entries: Option<Num>,
}

/// `[[machine.node]]`: one NUMA node.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// CPU ids on this node; over all nodes they must be 0..N-1, each exactly once.
    /// Give either this or `nr_cpus`.
    #[schemars(with = "Option<Vec<i64>>")]
    pub cpus: Option<Spanned<Vec<i64>>>,
    /// How many CPUs this node has (0 to 1024, or `"$param"`), numbered on from the
    /// previous nodes' CPUs; instead of `cpus`.
    #[schemars(with = "Option<NumOrParam>")]
    pub nr_cpus: Option<Num>,
    /// 4 KiB frames of memory on this node (0 to 2^26; 0 is a memory-less node, and
    /// some node must have memory).
    #[schemars(with = "NumOrParam")]
    pub mem_pages: Num,
    /// High watermark in pages: `migrate_balanced_pgdat` refuses a migration target at or
    /// below it (+1). Default: 1/64 of the node, at least 1.
    #[schemars(with = "Option<NumOrParam>")]
    pub high_wmark_pages: Option<Num>,
}

/// `[knobs]`: sysctls and tunables by name; each mechanism declares its own (see
/// [`mod@crate::knobs`]). Unknown names are refused by the resolver, with the line.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(transparent)]
pub struct KnobsSpec {
    /// Values by name.
    pub values: BTreeMap<String, Spanned<toml::Value>>,
}

impl JsonSchema for KnobsSpec {
    fn schema_name() -> Cow<'static, str> {
        "KnobsSpec".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut properties = serde_json::Map::new();
        for k in crate::registry::KNOBS {
            let mut schema: Value = match k.kind {
                crate::knobs::KnobKind::Bool => serde_json::json!({ "anyOf": [{ "type": "boolean" }, { "type": "string" }] }),
                crate::knobs::KnobKind::Int { .. } => generator.subschema_for::<NumOrParam>().to_value(),
            };
            if let Value::Object(m) = &mut schema {
                m.insert("description".into(), Value::String(k.doc.trim().into()));
                match (k.kind, k.default) {
                    (crate::knobs::KnobKind::Bool, Some(d)) => {
                        m.insert("default".into(), Value::Bool(d != 0));
                    }
                    (_, Some(d)) => {
                        m.insert("default".into(), Value::from(d));
                    }
                    _ => {}
                }
            }
            properties.insert(k.name.into(), schema);
        }
        json_schema!({
            "description": "`[knobs]`: sysctls and tunables, by name.",
            "type": "object",
            "properties": properties,
            "additionalProperties": false,
        })
    }
}

/// `[costs]`: nanoseconds charged per micro-step; each has a documented default.
// `transparent`, not `flatten`: a flattened map hands its values on without the spans
// `Spanned` needs, so every entry failed to parse. Unknown names are refused by the
// resolver, with the line.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(transparent)]
pub struct CostsSpec {
    /// Overrides by name (see [`Costs`]).
    pub values: BTreeMap<String, Num>,
}

// By hand rather than derived: the flattened map takes any key, but only the names of
// `Costs` are valid, and listing them lets an editor complete and check them.
impl JsonSchema for CostsSpec {
    fn schema_name() -> Cow<'static, str> {
        "CostsSpec".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut properties = serde_json::Map::new();
        for c in crate::registry::COSTS {
            let (name, default, doc) = (c.name, c.default, c.doc);
            let mut cost = generator.subschema_for::<NumOrParam>();
            cost.insert("description".into(), doc.trim().into());
            cost.insert("default".into(), default.into());
            properties.insert(name.into(), cost.into());
        }
        json_schema!({
            "description": "`[costs]`: simulated nanoseconds per micro-step, overridden by name. Defaults are \
                calibration values, not kernel facts.",
            "type": "object",
            "properties": properties,
            "additionalProperties": false,
        })
    }
}

/// One operation in a thread's stream, as written: `op` names an operation some
/// mechanism declares ([`OpDef`]), which decides the other fields it takes.
#[derive(Clone, Debug)]
pub struct OpSpec {
    /// The whole table.
    pub span: std::ops::Range<usize>,
    /// Every field but `op`, by name.
    pub fields: BTreeMap<String, Spanned<toml::Value>>,
    /// The field names with their places.
    pub names: Vec<Spanned<String>>,
    /// `op`, if given.
    pub op: Option<Spanned<String>>,
}

impl<'de> Deserialize<'de> for OpSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let table: Spanned<BTreeMap<Spanned<String>, Spanned<toml::Value>>> = Spanned::deserialize(d)?;
        let span = table.span();
        let mut spec = OpSpec {
            span,
            fields: BTreeMap::new(),
            names: Vec::new(),
            op: None,
        };
        for (k, v) in table.into_inner() {
            if k.get_ref() == "op" {
                let vspan = v.span();
                match v.into_inner() {
                    toml::Value::String(name) => spec.op = Some(Spanned::new(vspan, name)),
                    other => {
                        return Err(serde::de::Error::custom(format!(
                            "`op` must name an operation (a string), not {}",
                            other.type_str()
                        )))
                    }
                }
            } else {
                spec.names.push(k.clone());
                spec.fields.insert(k.into_inner(), v);
            }
        }
        Ok(spec)
    }
}

impl JsonSchema for OpSpec {
    fn schema_name() -> Cow<'static, str> {
        "OpSpec".into()
    }

    /// One alternative per operation the mechanisms declare, each with exactly its fields.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let num = generator.subschema_for::<NumOrParam>();
        let alternatives: Vec<Value> = crate::registry::ops()
            .map(|o| {
                let mut props = serde_json::Map::new();
                props.insert("op".into(), serde_json::json!({ "const": o.name, "description": o.doc }));
                let mut required = vec![Value::String("op".into())];
                for a in o.args {
                    let mut schema = match a.kind {
                        ArgKind::Vma | ArgKind::NewProcess => serde_json::json!({ "type": "string" }),
                        ArgKind::Bool => serde_json::json!({ "type": "boolean" }),
                        ArgKind::Page | ArgKind::Int { .. } => num.clone().to_value(),
                    };
                    if let Value::Object(m) = &mut schema {
                        m.insert("description".into(), Value::String(a.doc.into()));
                        if !a.required {
                            match a.kind {
                                ArgKind::Bool => m.insert("default".into(), Value::Bool(a.default != 0)),
                                ArgKind::Int { .. } => m.insert("default".into(), Value::from(a.default)),
                                _ => None,
                            };
                        }
                    }
                    props.insert(a.name.into(), schema);
                    if a.required {
                        required.push(Value::String(a.name.into()));
                    }
                }
                serde_json::json!({
                    "type": "object",
                    "properties": props,
                    "required": required,
                    "additionalProperties": false,
                })
            })
            .collect();
        json_schema!({
            "description": "One operation of a thread: `op` names it and decides its other fields.",
            "oneOf": alternatives,
        })
    }
}

/// What an operation argument takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// The name of a VMA of the thread's process (its index).
    Vma,
    /// A page index inside the VMA the operation's `vma` names.
    Page,
    /// `true` or `false`.
    Bool,
    /// A whole number (or `"$param"`) within `min..=max`.
    Int {
        /// Smallest.
        min: i64,
        /// Largest.
        max: i64,
    },
    /// The name of a `forked = true` process the operation creates (its index).
    NewProcess,
}

/// One argument of an operation.
#[derive(Clone, Copy, Debug)]
pub struct ArgDef {
    /// Field name.
    pub name: &'static str,
    /// What it means (the schema's description).
    pub doc: &'static str,
    /// Its kind.
    pub kind: ArgKind,
    /// Whether it must be given.
    pub required: bool,
    /// The value when left out (an optional VMA left out is [`NO_ARG`]).
    pub default: i64,
}

/// An optional argument left out (a `scan` of every VMA).
pub const NO_ARG: u64 = u64::MAX;

/// Arguments an operation can take at most.
pub const MAX_OP_ARGS: usize = 6;

/// An operation's arguments, in the order of its [`OpDef::args`].
pub type OpArgs = [u64; MAX_OP_ARGS];

/// How an operation runs.
#[derive(Clone, Copy, Debug)]
pub enum OpRun {
    /// User mode's own operation (an access, a sleep…), built from its arguments.
    User(fn(&OpArgs) -> Op),
    /// A system call: user mode calls the kernel function `start` makes.
    Call {
        /// The first frame.
        start: fn(&OpArgs) -> crate::registry::Frame,
        /// What user code does, for the narration ("runs the NUMA scanner now").
        says: &'static str,
    },
}

/// A workload operation a mechanism adds to the scenario format.
#[derive(Clone, Copy, Debug)]
pub struct OpDef {
    /// `op = "name"`.
    pub name: &'static str,
    /// What it does (the schema's description).
    pub doc: &'static str,
    /// Its arguments, in [`OpArgs`] order (at most four).
    pub args: &'static [ArgDef],
    /// How it runs.
    pub run: OpRun,
}

impl ArgDef {
    /// A required argument.
    pub const fn required(name: &'static str, kind: ArgKind, doc: &'static str) -> ArgDef {
        ArgDef {
            name,
            doc,
            kind,
            required: true,
            default: 0,
        }
    }

    /// An optional argument with its default.
    pub const fn optional(name: &'static str, kind: ArgKind, default: i64, doc: &'static str) -> ArgDef {
        ArgDef {
            name,
            doc,
            kind,
            required: false,
            default,
        }
    }
}

/// `[[process.vma]]`: one mapping; VMAs are laid out PMD-aligned from vpn 0x7f000.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VmaSpec {
    /// Name, unique within the process; operations refer to it.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// `anon` (anonymous memory) or `file` (a shared file mapping).
    #[serde(default = "default_kind")]
    #[schemars(with = "String", extend("enum" = ["anon", "file"]))]
    pub kind: Spanned<String>,
    /// Length in pages.
    #[schemars(with = "NumOrParam")]
    pub pages: Num,
    /// Populate every page at start on this node (falling back by distance when full).
    /// Default: not populated; first touch allocates on the toucher's node.
    #[schemars(with = "Option<NumOrParam>")]
    pub node: Option<Num>,
    /// File VMAs only: filesystem. `btrfs` means before v5.8 (no `migratepage`, so dirty
    /// pages fail async migration); `xfs` and `ext4` migrate them. Default `ext4`.
    #[schemars(with = "Option<String>", extend("enum" = ["btrfs", "xfs", "ext4"], "default" = "ext4"))]
    pub fs: Option<Spanned<String>>,
    /// File VMAs only: pages start dirty.
    #[serde(default)]
    pub dirty: bool,
    /// File VMAs only: the file's name. VMAs naming the same file, in any process, map
    /// the same page-cache pages (page `i` of each maps file offset `i`). Default: a file
    /// of this VMA's own.
    #[schemars(with = "Option<String>")]
    pub file: Option<Spanned<String>>,
    /// With `node`: the share of the populated pages, in percent and from the first one,
    /// whose PTE starts dirty as after a store (a file page is then dirty in the page
    /// cache too). Default 100 for a `dirty = true` file VMA, else 0.
    #[schemars(with = "Option<NumOrParam>")]
    pub dirty_pct: Option<Num>,
    /// Anon VMAs: `madvise(MADV_NOHUGEPAGE)` at start (`VM_NOHUGEPAGE`), so a first touch
    /// never gets a huge page, whatever its size and `thp_enabled`. Stands for memory that
    /// the real program has in mappings too small or too ragged for a 2 MiB page.
    #[serde(default)]
    pub nohugepage: bool,
    /// Make this many VMAs from this table: copy `i` (from 0) has every `{i}` in its
    /// `name`, `file` and `node` replaced by `i` (`name = "r{i}"`). Default: one, as written.
    #[schemars(with = "Option<NumOrParam>")]
    pub count: Option<Num>,
}

fn default_kind() -> Spanned<String> {
    Spanned::new(0..0, "anon".into())
}

/// `[[process.thread]]`: one thread and where it may run: pinned to one CPU (`cpu`), to a
/// set of CPUs (`cpus`), to the CPUs of a node (`node`), or anywhere (none of them).
/// Threads that share a CPU time-share it (round robin, `knobs.sched_slice_us`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreadSpec {
    /// CPU the thread is pinned to (`cpus_allowed` = this CPU alone).
    #[schemars(with = "Option<NumOrParam>")]
    pub cpu: Option<Num>,
    /// CPUs the thread may run on (`cpus_allowed`); it starts where a fork would put it
    /// (the forking CPU's node first, then its least loaded CPU) and load balancing may
    /// move it between them.
    #[schemars(with = "Option<Vec<i64>>")]
    pub cpus: Option<Spanned<Vec<i64>>>,
    /// Node the thread is bound to: it may run on every CPU of this node.
    #[schemars(with = "Option<NumOrParam>")]
    pub node: Option<Num>,
    /// Operations, run in order; the thread exits after the last.
    #[serde(default)]
    pub ops: Vec<OpSpec>,
    /// Make this many threads from this table: copy `i` (from 0) has every `{i}` in
    /// `cpu`, `node` and its operations' text replaced by `i` (`cpu = "{i}"`,
    /// `vma = "r{i}"`). Default: one, as written.
    #[schemars(with = "Option<NumOrParam>")]
    pub count: Option<Num>,
}

/// `[[process]]`: one process (one mm); pids are 1, 2, ... in file order.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessSpec {
    /// Name, unique among the processes.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// `[[process.vma]]`: the process's mappings.
    #[serde(default)]
    pub vma: Vec<VmaSpec>,
    /// `[[process.thread]]`: the process's threads.
    #[serde(default)]
    pub thread: Vec<ThreadSpec>,
    /// Created by another process's `fork` operation instead of at start. The child
    /// inherits the parent's VMAs (list them only to restate them: they must match) and
    /// page tables; its threads start when the fork is done.
    #[serde(default)]
    #[schemars(with = "bool", extend("default" = false))]
    pub forked: Option<Spanned<bool>>,
    /// Make this many processes from this table: copy `p` (from 0) has every `{p}` in its
    /// name, its VMAs' and threads' fields and its operations' text replaced by `p`
    /// (`name = "worker{p}"`). Not for a forked process. Default: one, as written.
    #[schemars(with = "Option<NumOrParam>")]
    pub count: Option<Num>,
}

/// `[explore]`: the scenario is a race small enough for `mmviz explore` and the lab's
/// Explore view, which try every interleaving of its CPUs.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExploreSpec {
    /// The toggle whose values are explored side by side (the flush rule under review);
    /// none: the toggles as set.
    #[schemars(with = "Option<String>")]
    pub toggle: Option<Spanned<String>>,
    /// States visited at most per toggle value (1 to 10^8; default 200000).
    #[schemars(with = "Option<NumOrParam>", extend("default" = 200000))]
    pub budget: Option<Num>,
    /// Search only schedules with at most this many deviations from the default order
    /// (delay bounding, 0 to 1000); none: every schedule.
    #[schemars(with = "Option<NumOrParam>")]
    pub delays: Option<Num>,
}

/// What `[explore]` says, checked.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExploreDef {
    /// See [`ExploreSpec::toggle`].
    pub toggle: Option<String>,
    /// See [`ExploreSpec::budget`].
    pub budget: u64,
    /// See [`ExploreSpec::delays`].
    pub delays: Option<u32>,
}

/// The explorer's budget when a scenario's `[explore]` names none.
pub const EXPLORE_BUDGET: u64 = 200_000;

/// `[[chapter]]`: where a lecture chapter starts: at operation `op` of a thread
/// (`process`, `thread`, `op`), at the first event of a kind (`event`), or, with none of
/// them, at step 0.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChapterSpec {
    /// Heading in the chapter list (a `[[question]]` names its chapter by it). May name
    /// CPUs and nodes of the run: `{cpu PROCESS/THREAD}`, `{node PROCESS/THREAD}`,
    /// `{node PROCESS.VMA}`, `{cpus PROCESS}`, resolved at the chapter's start.
    #[schemars(with = "String")]
    pub title: Spanned<String>,
    /// What to say while the chapter plays (the lecture's speaker notes); placeholders as
    /// in `title`.
    #[schemars(with = "Option<String>", extend("default" = ""))]
    pub narration: Option<Spanned<String>>,
    /// Start at an operation of the process with this name (needs `op`).
    #[schemars(with = "Option<String>")]
    pub process: Option<Spanned<String>>,
    /// Thread index within `process`; default 0.
    #[schemars(with = "Option<NumOrParam>", extend("default" = 0))]
    pub thread: Option<Num>,
    /// Operation index within that thread's `ops`.
    #[schemars(with = "Option<NumOrParam>")]
    pub op: Option<Num>,
    /// Or start at the first event of this kind (e.g. `pte_clear`, `ipi_send`, `migrate_done`).
    #[schemars(with = "Option<String>")]
    pub event: Option<Spanned<String>>,
}

/// `[[question]]`: predict, then reveal. Asked at the start of a chapter, before the
/// steps that answer it; the answer is computed from the run (so it follows the toggles),
/// never written here. Give exactly one of `counter` (a number to guess), `cpus_with`
/// (which CPUs) or `[[question.choice]]` (which statements hold).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionSpec {
    /// Title of the `[[chapter]]` at whose start the question is asked.
    #[schemars(with = "String")]
    pub chapter: Spanned<String>,
    /// The question, for the room. May name CPUs and nodes of the run with placeholders
    /// (`{cpu app/1}`), resolved at the chapter's start.
    #[schemars(with = "String")]
    pub prompt: Spanned<String>,
    /// Where the steps the question is about end: the title of a later chapter (its start),
    /// or `"end"` (the end of the run). Default: the start of the next chapter.
    #[schemars(with = "Option<String>")]
    pub until: Option<Spanned<String>>,
    /// A number to guess: the answer is how much this counter changes over the question's
    /// steps (e.g. `nr_tlb_remote_flush`).
    #[schemars(with = "Option<String>")]
    pub counter: Option<Spanned<String>>,
    /// Which CPUs: the answer is the CPUs that have an event of this kind in the
    /// question's steps (e.g. `ipi_recv`: the CPUs that receive an IPI).
    #[schemars(with = "Option<String>")]
    pub cpus_with: Option<Spanned<String>>,
    /// Statements to pick from (at least two); each is true or false on the run.
    #[serde(default)]
    pub choice: Vec<ChoiceSpec>,
}

/// `[[question.choice]]`: a statement, true on a run when its condition holds over the
/// question's steps: the change of `counter`, or the number of `event`s, compared with
/// `eq`, `min` and `max` (at least one; all given must hold).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChoiceSpec {
    /// The statement (placeholders as in `prompt`).
    #[schemars(with = "String")]
    pub text: Spanned<String>,
    /// The counter whose change over the question's steps is compared.
    #[schemars(with = "Option<String>")]
    pub counter: Option<Spanned<String>>,
    /// Or the event kind whose events in the question's steps are counted.
    #[schemars(with = "Option<String>")]
    pub event: Option<Spanned<String>>,
    /// The measure must equal this.
    pub eq: Option<i64>,
    /// The measure must be at least this.
    pub min: Option<i64>,
    /// The measure must be at most this.
    pub max: Option<i64>,
}

/// `[[expect]]`: an assertion on a counter (or ratio of counters) after a run; at least
/// one of `eq`, `min` and `max`, and all that are given must hold.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    /// Label in reports. Default: the counter name (and `per` divisor).
    pub name: Option<String>,
    /// Toggles for this run by id, e.g. `{ numa_delay_map = false }`; others keep the
    /// scenario's defaults.
    #[serde(default)]
    #[schemars(schema_with = "toggle_table_schema")]
    pub set: BTreeMap<String, Spanned<toml::Value>>,
    /// Run with every toggle as this mainline kernel has it (`"v5.12"`), before `preset`
    /// and `set`.
    #[schemars(with = "Option<String>")]
    pub kernel: Option<Spanned<String>>,
    /// Run with these named presets (comma-separated, applied in order), before `set`.
    #[schemars(with = "Option<String>")]
    pub preset: Option<Spanned<String>>,
    /// Compare against a second run: the value becomes this run's over that run's (so
    /// `min = 1.03, max = 1.08` reads "3 % to 8 % higher").
    pub vs: Option<VsSpec>,
    /// A counter (`numa_pages_migrated`, ...) or a metric (`sim_time_ns`, `steps`,
    /// `throughput`, ...; `mmviz mechanisms` lists them).
    #[schemars(with = "String")]
    pub counter: Spanned<String>,
    /// Divide by this counter or metric.
    #[schemars(with = "Option<String>")]
    pub per: Option<Spanned<String>>,
    /// The value must equal this.
    pub eq: Option<f64>,
    /// The value must be at least this.
    pub min: Option<f64>,
    /// The value must be at most this.
    pub max: Option<f64>,
    /// Measure at seeds 1 to N and hold the mean to the bounds (with `vs`: the mean of the
    /// seeds' ratios), instead of the file's own seed: for a figure whose seed-to-seed
    /// spread is as wide as the band (`mmviz sweep --seeds N` shows the same values).
    #[schemars(range(min = 1, max = 64))]
    pub seeds: Option<u32>,
    /// Measure the value over a stretch of the run only, as a profiler that samples a
    /// window does: the metrics read from the profile (CPU times, `*_pct` shares) over
    /// `from_ms` to `from_ms + length_ms` of simulated time (cut at the run's end). Other
    /// counters and metrics have no windowed value.
    pub window: Option<WindowSpec>,
}

/// `[[expect]]`'s `window`: where the measured stretch starts and how long it is, in ms
/// (numbers or parameter expressions, `"$seconds * 500"` for the middle of a run of
/// `seconds`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowSpec {
    /// Start, ms of simulated time.
    #[schemars(with = "NumOrParam")]
    pub from_ms: Num,
    /// Length, ms.
    #[schemars(with = "NumOrParam")]
    pub length_ms: Num,
}

/// `[[expect]]`'s `vs`: the run to compare against, chosen like the expectation's own.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VsSpec {
    /// Toggles by id.
    #[serde(default)]
    #[schemars(schema_with = "toggle_table_schema")]
    pub set: BTreeMap<String, Spanned<toml::Value>>,
    /// A mainline kernel (`"v5.12"`).
    #[schemars(with = "Option<String>")]
    pub kernel: Option<Spanned<String>>,
    /// Named presets, comma-separated.
    #[schemars(with = "Option<String>")]
    pub preset: Option<Spanned<String>>,
}

/// A scenario file as written (format 1): a machine, processes with VMAs and threads,
/// each thread's operations, lecture chapters and `[[expect]]` assertions.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Version of the file format; this mmviz reads format 1 only.
    #[schemars(with = "i64", extend("const" = 1))]
    pub format: Spanned<i64>,
    /// Stable id, by convention the file stem: letters, digits, `-` and `_`.
    #[schemars(regex(pattern = r"^[A-Za-z0-9_-]+$"))]
    pub id: String,
    /// One-line title.
    pub title: String,
    /// What the scenario shows (the lab's "About this scenario" and the lecture's first
    /// slide). May name CPUs and nodes of the run with placeholders (`{node app/0}`, as in
    /// `[[chapter]]`), resolved at step 0.
    #[schemars(with = "Option<String>", extend("default" = ""))]
    pub description: Option<Spanned<String>>,
    /// Seed of the RNG behind `random` operations; default 1.
    #[schemars(extend("default" = 1))]
    pub seed: Option<u64>,
    /// The machine: NUMA nodes, distances, TLB size.
    pub machine: MachineSpec,
    /// Kernel settings: NUMA balancing, flush ceiling, automatic scanning, step limit.
    #[serde(default)]
    pub knobs: KnobsSpec,
    /// Simulated costs in nanoseconds, overridden by name.
    #[serde(default)]
    pub costs: CostsSpec,
    /// The mainline kernel the scenario models (`"v4.17"`): every toggle defaults to
    /// that version's behaviour (before `[toggles]`); the CLI's `--kernel`, `--preset`
    /// and `--set` and the lab win over it.
    #[schemars(with = "Option<String>")]
    pub kernel: Option<Spanned<String>>,
    /// The scenario's defaults for patch toggles, by id (`numa_delay_map = true`); the CLI's
    /// `--set` and the lab win over them.
    #[serde(default)]
    #[schemars(schema_with = "toggle_table_schema")]
    pub toggles: BTreeMap<String, Spanned<toml::Value>>,
    /// Named whole numbers, used elsewhere as `"$NAME"`.
    #[serde(default)]
    pub params: BTreeMap<String, ParamSpec>,
    /// The processes.
    #[serde(default)]
    pub process: Vec<ProcessSpec>,
    /// Lecture chapters, in order.
    #[serde(default)]
    pub chapter: Vec<ChapterSpec>,
    /// Questions asked at chapters (predict, then reveal).
    #[serde(default)]
    pub question: Vec<QuestionSpec>,
    /// Assertions `mmviz check` and the tests run.
    #[serde(default)]
    pub expect: Vec<ExpectSpec>,
    /// Marks a race scenario as explorable (`mmviz explore`, the lab's Explore view).
    pub explore: Option<ExploreSpec>,
}

/// Toggle tables hold `toml::Value`s so that the resolver can name the toggle in its
/// error; what it accepts there is a bool or a value name.
fn toggle_table_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "additionalProperties": {
            "description": "true/false (or \"on\"/\"off\") for a patch switch, or the name of one of a toggle's values.",
            "type": ["boolean", "string"],
        },
    })
}

/// `$id` of the scenario schema: a name for it, not a place to fetch it from.
const SCHEMA_ID: &str = "urn:mmviz:scenario:format-1";

/// JSON Schema (draft-07) of scenario files, format 1: pretty JSON with sorted keys and a
/// trailing newline, the text checked in as `scenarios/scenario.schema.json`.
///
/// Draft-07 because it is the dialect TOML and YAML editor tooling supports most widely.
/// The schema checks shapes, names and types; cross-references (VMA and process names,
/// CPU ids, ranges, which fields each `op` takes) stay with [`parse`].
pub fn json_schema() -> String {
    let mut schema = SchemaSettings::draft07().into_generator().into_root_schema_for::<ScenarioFile>();
    schema.insert("$id".into(), SCHEMA_ID.into());
    schema.insert("title".into(), "mmviz scenario file (format = 1)".into());
    let mut value = schema.to_value();
    tidy(&mut value);
    format!("{value:#}\n")
}

/// TOML has no null, so the `null` schemars allows for `Option` fields would only mislead
/// an editor: drop it. Keys are sorted so that the text does not depend on whether some
/// crate in the build turned on serde_json's `preserve_order`.
fn tidy(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if let [only] = types.as_mut_slice() {
                    let only = only.take();
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(mut alternatives)) = map.remove("anyOf") {
                alternatives.retain(|a| a.get("type").is_none_or(|t| t != "null"));
                // A single alternative is the schema itself; `allOf` keeps any `$ref` in it
                // apart from this schema's description, as draft-07 requires.
                let key = if alternatives.len() == 1 && !map.contains_key("allOf") {
                    "allOf"
                } else {
                    "anyOf"
                };
                map.insert(key.into(), Value::Array(alternatives));
            }
            let sorted: BTreeMap<String, Value> = std::mem::take(map).into_iter().collect();
            *map = sorted.into_iter().collect();
            map.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

pub use crate::costs::Costs;

pub use crate::knobs::Knobs;

pub use crate::machine::mm::{Fs, VmaKind};

/// A validated VMA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VmaDef {
    /// Name.
    pub name: String,
    /// Anon or file.
    pub kind: VmaKind,
    /// Pages.
    pub pages: u32,
    /// Populate on this node at start.
    pub node: Option<NodeId>,
    /// Filesystem (file VMAs).
    pub fs: Fs,
    /// File pages start dirty.
    pub dirty: bool,
    /// The shared file's name (file VMAs that share a page cache).
    pub file: Option<String>,
    /// Percent of the populated pages (the first ones) whose PTE starts dirty.
    pub dirty_pct: u8,
    /// `VM_NOHUGEPAGE`: never a huge page.
    pub nohugepage: bool,
}

/// A node before validation, from `[[machine.node]]` or a numactl text.
struct RawNode {
    cpus: Vec<i64>,
    cpus_span: std::ops::Range<usize>,
    pages: u32,
    pages_span: std::ops::Range<usize>,
    wmark: Option<u32>,
    zone: Option<crate::topology::PastedZone>,
    field: String,
}

/// A validated operation; VMAs by index in the process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Access `page` of VMA `vma`, `repeat` times.
    Access {
        /// VMA index.
        vma: u16,
        /// Page index.
        page: u32,
        /// Store.
        write: bool,
        /// Times.
        repeat: u32,
        /// At the address the VMA had before its last `mremap` (a thread still using the
        /// old pointer).
        old: bool,
    },
    /// Every page of a VMA in order.
    Touch {
        /// VMA index.
        vma: u16,
        /// Store.
        write: bool,
        /// With `write`: percent of the pages (the first ones) stored to; the rest are loaded.
        stores_pct: u8,
    },
    /// Sleep.
    Sleep {
        /// Nanoseconds.
        ns: u64,
    },
    /// Compute without memory accesses.
    Compute {
        /// Nanoseconds.
        ns: u64,
    },
    /// `sched_yield()`: give the CPU to the next runnable task, if any.
    Yield,
    /// `exit()`: end the thread now, skipping any operations after this one.
    Exit,
    /// Go back to the first operation, `times` more times (0: until the run's
    /// `window_ms` ends).
    Loop {
        /// Further passes; 0 for no limit.
        times: u32,
    },
    /// A system call a mechanism declares: its index in `registry::ops()` and its arguments.
    Call {
        /// Index into `registry::ops()`.
        op: u16,
        /// Arguments.
        args: OpArgs,
    },
    /// Random accesses.
    Random {
        /// VMA index.
        vma: u16,
        /// Number.
        count: u64,
        /// Percent stores.
        write_percent: u8,
        /// Draw the accesses that need nothing from the kernel in runs
        /// (`machine/access_index.rs`).
        bulk: bool,
        /// With `bulk`: real accesses each modelled one stands for (a scenario that models
        /// a sample of a working set's pages keeps each page's access rate).
        weight: u32,
        /// How the pages are picked: uniformly, or pmbench's normal pattern.
        pattern: crate::machine::access_index::Pattern,
    },
}

/// A validated thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadDef {
    /// The CPU it is pinned to, or the first it may run on.
    pub cpu: CpuId,
    /// `cpus_allowed`, ascending (one CPU when pinned with `cpu`).
    pub allowed: Vec<CpuId>,
    /// Operations.
    pub ops: Vec<Op>,
}

/// A validated process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessDef {
    /// Name.
    pub name: String,
    /// VMAs.
    pub vmas: Vec<VmaDef>,
    /// Threads.
    pub threads: Vec<ThreadDef>,
    /// Created by a `fork` operation of this process (index), not at start.
    pub forked_by: Option<u16>,
}

/// Where a chapter starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChapterAnchor {
    /// When thread `thread` of process `process` starts operation `op`.
    Op {
        /// Process index.
        process: usize,
        /// Thread index.
        thread: usize,
        /// Operation index.
        op: usize,
    },
    /// At the first event of this kind.
    Event(String),
    /// At step 0.
    Start,
}

/// A validated chapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChapterDef {
    /// Heading.
    pub title: Text,
    /// Narration.
    pub narration: Text,
    /// Anchor.
    pub anchor: ChapterAnchor,
}

/// Text for people that may name CPUs and nodes of the run (a scenario's description, a
/// chapter's title and narration, a question): literal pieces and placeholders that the
/// run resolves (`crate::lecture::resolve`), so the text follows the machine it runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text(pub Vec<TextPart>);

/// One piece of a [`Text`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextPart {
    /// Written as is.
    Lit(String),
    /// `{cpu PROCESS/THREAD}`: the CPU the thread is on.
    Cpu {
        /// Index of the thread among every process's threads (the engine's task index).
        task: usize,
        /// As written, e.g. `app/0`.
        name: String,
    },
    /// `{node PROCESS/THREAD}`: the node of the CPU the thread is on.
    Node {
        /// Task index.
        task: usize,
        /// As written.
        name: String,
    },
    /// `{node PROCESS.VMA}`: the node holding most of the VMA's mapped pages (its `node`
    /// when none is mapped yet).
    VmaNode {
        /// Process index.
        process: usize,
        /// VMA index in the process.
        vma: usize,
        /// As written, e.g. `app.heap`.
        name: String,
    },
    /// `{cpus PROCESS}`: the CPUs the process's threads are on ("2 and 3").
    Cpus {
        /// Process index.
        process: usize,
        /// As written.
        name: String,
    },
}

impl Text {
    /// Plain text without placeholders.
    pub fn plain(s: &str) -> Self {
        Text(vec![TextPart::Lit(s.to_string())])
    }

    /// The text as written, placeholders included (for places without a run).
    pub fn raw(&self) -> String {
        self.0
            .iter()
            .map(|p| match p {
                TextPart::Lit(s) => s.clone(),
                TextPart::Cpu { name, .. } => format!("{{cpu {name}}}"),
                TextPart::Node { name, .. } | TextPart::VmaNode { name, .. } => format!("{{node {name}}}"),
                TextPart::Cpus { name, .. } => format!("{{cpus {name}}}"),
            })
            .collect()
    }

    /// Whether the text names something of the run.
    pub fn has_placeholders(&self) -> bool {
        self.0.iter().any(|p| !matches!(p, TextPart::Lit(_)))
    }
}

/// A validated question (`[[question]]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuestionDef {
    /// Index of the chapter at whose start it is asked.
    pub chapter: usize,
    /// The question.
    pub prompt: Text,
    /// Where its steps end.
    pub until: Until,
    /// What the run is asked.
    pub kind: QuestionKind,
    /// Line in the file.
    pub line: usize,
}

/// Where a question's steps end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// At the next chapter's start (or the end of the run).
    NextChapter,
    /// At this chapter's start.
    Chapter(usize),
    /// At the end of the run.
    End,
}

/// What a question asks of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QuestionKind {
    /// How much a counter changes.
    Counter(crate::counters::Counter),
    /// Which CPUs have an event of this kind.
    CpusWith(crate::trace::EventKind),
    /// Which statements hold.
    Choice(Vec<ChoiceDef>),
}

/// A validated `[[question.choice]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChoiceDef {
    /// The statement.
    pub text: Text,
    /// What is measured over the question's steps.
    pub measure: Measure,
    /// Must equal.
    pub eq: Option<i64>,
    /// At least.
    pub min: Option<i64>,
    /// At most.
    pub max: Option<i64>,
}

impl ChoiceDef {
    /// Whether `value` satisfies the choice's condition.
    pub fn holds(&self, value: i64) -> bool {
        self.eq.is_none_or(|e| value == e) && self.min.is_none_or(|m| value >= m) && self.max.is_none_or(|m| value <= m)
    }
}

/// What a choice measures over a question's steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// The change of a counter.
    Counter(crate::counters::Counter),
    /// The number of events of a kind.
    Events(crate::trace::EventKind),
}

/// A validated expectation.
#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    /// Label.
    pub name: String,
    /// Toggle settings for the run.
    pub set: Vec<(String, ToggleValue)>,
    /// The run's kernel and presets (applied before `set`).
    pub choice: RunChoice,
    /// The run to divide by, if any.
    pub vs: Option<RunChoice>,
    /// Counter or metric.
    pub counter: String,
    /// Divisor.
    pub per: Option<String>,
    /// Equality.
    pub eq: Option<f64>,
    /// Lower bound.
    pub min: Option<f64>,
    /// Upper bound.
    pub max: Option<f64>,
    /// Mean over seeds 1 to this many instead of the file's seed.
    pub seeds: Option<u32>,
    /// Measured over this stretch of simulated time only (start, end; ns).
    pub window: Option<(u64, u64)>,
    /// Line in the file.
    pub line: usize,
}

/// How a run's toggles are chosen on top of the scenario's: a kernel, then named
/// presets, then single toggles (each later one wins).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunChoice {
    /// `kernel`.
    pub kernel: Option<Kernel>,
    /// `preset`, in order.
    pub presets: Vec<String>,
    /// `set`.
    pub set: Vec<(String, ToggleValue)>,
}

impl RunChoice {
    /// The explicit toggles of this choice (the scenario's own apply to the rest).
    pub fn toggles(&self) -> Result<crate::patches::ToggleSet, String> {
        let mut t = crate::patches::ToggleSet::default();
        if let Some(k) = self.kernel {
            t.set_kernel(k);
        }
        for p in &self.presets {
            t.apply_preset(patches::find_preset(p)?)?;
        }
        for (id, v) in &self.set {
            t.set(id, v.clone())?;
        }
        Ok(t)
    }

    /// A short label (`kernel=v5.12 preset=patch1 numa_delay_map=off`), empty for none.
    pub fn label(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(k) = self.kernel {
            parts.push(format!("kernel={k}"));
        }
        if !self.presets.is_empty() {
            parts.push(format!("preset={}", self.presets.join(",")));
        }
        parts.extend(self.set.iter().map(|(k, v)| format!("{k}={v}")));
        parts.join(" ")
    }
}

/// A parameter after overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Name.
    pub name: String,
    /// Value in effect.
    pub value: i64,
    /// Default.
    pub default: i64,
    /// Minimum.
    pub min: i64,
    /// Maximum.
    pub max: i64,
    /// Meaning.
    pub description: String,
}

/// A scenario ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Description (placeholders resolved at step 0 by the run).
    pub description: Text,
    /// RNG seed.
    pub seed: u64,
    /// The machine.
    pub topology: Topology,
    /// Knobs.
    pub knobs: Knobs,
    /// Costs.
    pub costs: Costs,
    /// The mainline kernel the scenario models, if it names one.
    pub kernel: Option<Kernel>,
    /// Toggle defaults declared by the scenario.
    pub toggles: Vec<(String, ToggleValue)>,
    /// Parameters with values in effect.
    pub params: Vec<Param>,
    /// Processes.
    pub processes: Vec<ProcessDef>,
    /// Chapters.
    pub chapters: Vec<ChapterDef>,
    /// Questions asked at chapters.
    pub questions: Vec<QuestionDef>,
    /// Assertions.
    pub expects: Vec<Expect>,
    /// Which CPU acts where the run would otherwise follow simulated time
    /// (`core/schedule.rs`): given from outside the file (`--schedule`, a link's `sched`);
    /// empty by default.
    pub schedule: crate::core::Schedule,
    /// `[explore]`, when the scenario is made to be explored.
    pub explore: Option<ExploreDef>,
}

/// Names of metrics an `[[expect]]` may name besides counters: `steps`, the lock
/// statistics per class and every mechanism's declared metrics.
pub fn metric_names() -> Vec<&'static str> {
    let mut out = vec!["steps"];
    out.extend(crate::run::LOCK_METRICS.iter().flatten().copied());
    out.extend(crate::registry::metrics().map(|m| m.name));
    out
}

/// Parses and validates scenario text, with `params` (name, value) overriding defaults.
pub fn parse(text: &str, params: &[(String, i64)]) -> Result<Scenario, ScenarioError> {
    // Before the TOML parser sees it: a 50 MB text is refused at once, not parsed for seconds.
    crate::limits::check_bytes("the scenario text", text.len(), crate::limits::MAX_SCENARIO_BYTES).map_err(|message| ScenarioError {
        line: None,
        field: None,
        message,
    })?;
    let file: ScenarioFile = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    let resolver = Resolver {
        text,
        file: &file,
        params: BTreeMap::new(),
    };
    let resolved = resolver.params(params)?;
    let resolver = Resolver {
        params: resolved.iter().map(|p| (p.name.clone(), p.value)).collect(),
        ..resolver
    };
    // `count` makes copies of processes, VMAs and threads once the params are known; the
    // rest resolves the expanded file (copies keep their table's place for messages).
    let expanded = ScenarioFile {
        process: resolver.expand()?,
        ..file.clone()
    };
    Resolver {
        file: &expanded,
        ..resolver
    }
    .resolve(resolved)
}

/// The most copies one `count` makes.
const MAX_COPIES: i64 = 1024;

/// VMAs, threads and operations of the processes expanded so far ([`Resolver::expand`]).
#[derive(Clone, Copy, Debug, Default)]
struct Expanded {
    vmas: u64,
    threads: u64,
    ops: u64,
}

impl Expanded {
    /// A process's tables as written, each counted once.
    fn of_process(p: &ProcessSpec) -> Self {
        Expanded {
            vmas: p.vma.len() as u64,
            threads: p.thread.len() as u64,
            ops: p.thread.iter().map(|t| t.ops.len() as u64).sum(),
        }
    }

    /// Adds `times` copies of `each`; an error naming `field` and the limit when a total
    /// passes limits.rs `MAX_VMAS`, `MAX_THREADS` or `MAX_OPS`.
    fn add(&mut self, each: Expanded, times: u64, field: &str) -> Result<(), ScenarioError> {
        use crate::limits::{group, MAX_OPS, MAX_THREADS, MAX_VMAS};
        let next = Expanded {
            vmas: self.vmas + each.vmas * times,
            threads: self.threads + each.threads * times,
            ops: self.ops + each.ops * times,
        };
        for (what, n, max) in [
            ("VMAs", next.vmas, MAX_VMAS),
            ("threads", next.threads, MAX_THREADS),
            ("operations", next.ops, MAX_OPS),
        ] {
            if n > max {
                return Err(ScenarioError {
                    line: None,
                    field: Some(field.to_string()),
                    message: format!(
                        "the processes' `count`s make more than {} {what} in all (at least {}); at most {} are run",
                        group(max),
                        group(n),
                        group(max)
                    ),
                });
            }
        }
        *self = next;
        Ok(())
    }
}

/// Replaces every `{key}` in `s` by `index`.
fn subst(s: &str, key: &str, index: i64) -> String {
    s.replace(key, &index.to_string())
}

/// `{key}` replaced in a string.
fn subst_spanned(s: &Spanned<String>, key: &str, index: i64) -> Spanned<String> {
    Spanned::new(s.span(), subst(s.get_ref(), key, index))
}

/// `{key}` replaced in a `"$param"`/`"{i}"` number: a text that becomes a whole number is one.
fn subst_num(n: &Num, key: &str, index: i64) -> Num {
    match n.get_ref() {
        NumOrParam::Param(text) if text.contains(key) => {
            let text = subst(text, key, index);
            let v = text.parse::<i64>().map_or(NumOrParam::Param(text), NumOrParam::Int);
            Spanned::new(n.span(), v)
        }
        _ => n.clone(),
    }
}

/// `{key}` replaced in every string of an operation's fields.
fn subst_op(o: &OpSpec, key: &str, index: i64) -> OpSpec {
    fn value(v: &toml::Value, key: &str, index: i64) -> toml::Value {
        match v {
            toml::Value::String(s) => {
                let s = subst(s, key, index);
                // A field that was all index (`cpu = "{i}"`) is a number now.
                s.parse::<i64>().map_or(toml::Value::String(s), toml::Value::Integer)
            }
            toml::Value::Array(a) => toml::Value::Array(a.iter().map(|x| value(x, key, index)).collect()),
            toml::Value::Table(t) => toml::Value::Table(t.iter().map(|(k, x)| (k.clone(), value(x, key, index))).collect()),
            other => other.clone(),
        }
    }
    OpSpec {
        span: o.span.clone(),
        fields: o
            .fields
            .iter()
            .map(|(k, v)| {
                let new = match v.get_ref() {
                    // Only text that names the index changes (a plain "3" stays a string).
                    toml::Value::String(s) if !s.contains(key) => v.get_ref().clone(),
                    other => value(other, key, index),
                };
                (k.clone(), Spanned::new(v.span(), new))
            })
            .collect(),
        names: o.names.clone(),
        op: o.op.clone(),
    }
}

fn subst_vma(v: &VmaSpec, key: &str, index: i64) -> VmaSpec {
    VmaSpec {
        name: subst_spanned(&v.name, key, index),
        file: v.file.as_ref().map(|f| subst_spanned(f, key, index)),
        node: v.node.as_ref().map(|n| subst_num(n, key, index)),
        ..v.clone()
    }
}

fn subst_thread(t: &ThreadSpec, key: &str, index: i64) -> ThreadSpec {
    ThreadSpec {
        cpu: t.cpu.as_ref().map(|n| subst_num(n, key, index)),
        node: t.node.as_ref().map(|n| subst_num(n, key, index)),
        ops: t.ops.iter().map(|o| subst_op(o, key, index)).collect(),
        ..t.clone()
    }
}

fn toml_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    let mut message = e.message().trim().to_string();
    // serde names the Rust type of a number-or-reference field that got neither; say what it takes.
    if message.starts_with("data did not match any variant of untagged enum NumOrParam") {
        message = "expected a whole number or a \"$param\" reference".into();
    }
    match e.span() {
        Some(span) => {
            let line = line_of(text, span.start);
            let mut field = field_at(text, line);
            // A missing field belongs to the table, not to the key that happens to be on the line.
            if message.starts_with("missing field") {
                field = field.and_then(|f| f.rsplit_once('.').map(|(table, _)| table.to_string()));
            }
            ScenarioError {
                line: Some(line),
                field,
                message,
            }
        }
        None => ScenarioError {
            line: None,
            field: None,
            message,
        },
    }
}

/// Best-effort dotted field name for a line: the enclosing table header plus the key.
fn field_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let this = lines.get(line.checked_sub(1)?)?.trim();
    let key = this.split_once('=').map(|(k, _)| k.trim().to_string());
    let header = lines[..line.saturating_sub(1).min(lines.len())]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    if this.starts_with('[') && key.is_none() {
        // The line is a table header: the table is the field (`[title]` where a string belongs).
        return Some(this.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    }
    match (header, key) {
        (_, Some(k)) if this.starts_with('[') => Some(k),
        (Some(h), Some(k)) => Some(format!("{h}.{k}")),
        (None, Some(k)) => Some(k),
        (Some(h), None) => Some(h),
        (None, None) => None,
    }
}

struct Resolver<'a> {
    text: &'a str,
    file: &'a ScenarioFile,
    params: BTreeMap<String, i64>,
}

impl Resolver<'_> {
    fn err(&self, span: std::ops::Range<usize>, field: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
        ScenarioError::at(self.text, span, field, msg)
    }

    fn num(&self, n: &Num, field: &str, min: i64, max: i64) -> Result<i64, ScenarioError> {
        let v = match n.get_ref() {
            NumOrParam::Int(v) => *v,
            NumOrParam::Param(s) => self.expr(s).map_err(|m| self.err(n.span(), field, m))?,
        };
        if v < min || v > max {
            return Err(self.err(n.span(), field, format!("{v} is out of range {min}..={max}")));
        }
        Ok(v)
    }

    /// The value of `"$name"`, or of a product or quotient of numbers and parameters
    /// evaluated left to right in whole numbers (`"$scale * 16384"`, `"256 / $scale"`, or
    /// with a copy's index put in, `"13 / $ranks"`; `/` rounds down).
    fn expr(&self, s: &str) -> Result<i64, String> {
        if !s.contains(['$', '*', '/']) {
            return Err(format!("expected a number or \"$param\", found \"{s}\""));
        }
        let mut acc: i64 = 1;
        let mut op = '*';
        for (i, term) in s.split_inclusive(['*', '/']).enumerate() {
            let next = term.chars().last().filter(|c| *c == '*' || *c == '/');
            let t = term.trim_end_matches(['*', '/']).trim();
            let v = if let Some(name) = t.strip_prefix('$') {
                *self.params.get(name).ok_or_else(|| {
                    let known: Vec<&str> = self.params.keys().map(String::as_str).collect();
                    format!(
                        "unknown parameter `${}` (declared: {})",
                        crate::paste::quote_value(name),
                        if known.is_empty() { "none".into() } else { known.join(", ") }
                    )
                })?
            } else {
                t.parse::<i64>().map_err(|_| {
                    format!(
                        "expected \"$param\" or a product or quotient like \"$param * 4\", found \"{s}\" (term {} is `{t}`)",
                        i + 1
                    )
                })?
            };
            acc = match op {
                '*' => acc.checked_mul(v).ok_or_else(|| format!("\"{s}\" overflows"))?,
                _ if v == 0 => return Err(format!("\"{s}\" divides by zero")),
                _ => acc.div_euclid(v),
            };
            op = next.unwrap_or('*');
        }
        if s.trim_end().ends_with(['*', '/']) {
            return Err(format!("\"{s}\" ends with an operator"));
        }
        Ok(acc)
    }

    /// The `[params]` with the caller's overrides applied (and checked).
    fn params(&self, overrides: &[(String, i64)]) -> Result<Vec<Param>, ScenarioError> {
        let f = self.file;
        if *f.format.get_ref() != 1 {
            return Err(self.err(
                f.format.span(),
                "format",
                format!("unsupported format {} (this mmviz reads format 1)", f.format.get_ref()),
            ));
        }
        if f.id.is_empty() || !f.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(ScenarioError {
                line: None,
                field: Some("id".into()),
                message: format!("id `{}` must be non-empty and use only letters, digits, `-` and `_`", f.id),
            });
        }
        // Parameters first: everything else may refer to them.
        let mut params = Vec::new();
        for (name, p) in &f.params {
            let field = format!("params.{name}");
            if p.min > p.max {
                return Err(self.err(p.default.span(), &field, format!("min {} is above max {}", p.min, p.max)));
            }
            let d = *p.default.get_ref();
            if d < p.min || d > p.max {
                return Err(self.err(
                    p.default.span(),
                    format!("{field}.default"),
                    format!("{d} is out of range {}..={}", p.min, p.max),
                ));
            }
            params.push(Param {
                name: name.clone(),
                value: d,
                default: d,
                min: p.min,
                max: p.max,
                description: p.description.clone(),
            });
        }
        for (name, v) in overrides {
            let p = params.iter_mut().find(|p| &p.name == name).ok_or_else(|| {
                let known: Vec<&str> = f.params.keys().map(String::as_str).collect();
                ScenarioError::input(
                    format!("param {}", crate::paste::quote_value(name)),
                    format!(
                        "this scenario has no parameter `{}` (it has: {})",
                        crate::paste::quote_value(name),
                        if known.is_empty() { "none".into() } else { known.join(", ") }
                    ),
                )
            })?;
            if *v < p.min || *v > p.max {
                return Err(ScenarioError::input(
                    format!("param {name}"),
                    format!("{v} is out of range {}..={}", p.min, p.max),
                ));
            }
            p.value = *v;
        }
        Ok(params)
    }

    /// `items` with each one that has a `count` replaced by that many `copy(item, k)`, each
    /// copy charged to `used` as `charge` gives it (refused before it is made when over).
    fn copies<T: Clone>(
        &self,
        items: &[T],
        field: &str,
        count: impl Fn(&T) -> Option<&Num>,
        copy: impl Fn(&T, i64) -> T,
        used: &mut Expanded,
        charge: impl Fn(&T) -> Expanded,
    ) -> Result<Vec<T>, ScenarioError> {
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match count(item) {
                None => {
                    used.add(charge(item), 1, field)?;
                    out.push(item.clone());
                }
                Some(n) => {
                    let f = format!("{field}[{i}].count");
                    let c = self.num(n, &f, 0, MAX_COPIES)?;
                    used.add(charge(item), c as u64, &f)?;
                    out.extend((0..c).map(|k| copy(item, k)));
                }
            }
        }
        Ok(out)
    }

    /// The processes with every `count` expanded: processes first (`{p}`), then each
    /// one's VMAs and threads (`{i}`). An index left in a name after that is an error.
    fn expand(&self) -> Result<Vec<ProcessSpec>, ScenarioError> {
        let mut out = Vec::new();
        // What the copies made so far hold, checked against limits.rs before each is made:
        // `count`s multiply (1024 processes of 1024 threads of a long `ops` list), so a short
        // file could otherwise ask for gigabytes.
        let mut used = Expanded::default();
        for (pi, p) in self.file.process.iter().enumerate() {
            let pf = format!("process[{pi}]");
            let copies = match &p.count {
                None => None,
                Some(n) if p.forked.as_ref().is_some_and(|f| *f.get_ref()) => {
                    return Err(self.err(
                        n.span(),
                        format!("{pf}.count"),
                        "a forked process is made by its `fork` operation, one at a time: no `count`",
                    ))
                }
                Some(n) => Some(self.num(n, &format!("{pf}.count"), 0, MAX_COPIES)?),
            };
            // The process copies as written (before their own tables' `count`s): charged
            // to a scratch copy of `used`, so that the copies are not made when too many.
            let mut trial = used;
            trial.add(Expanded::of_process(p), copies.map_or(1, |c| c as u64), &format!("{pf}.count"))?;
            let procs: Vec<ProcessSpec> = match copies {
                None => vec![p.clone()],
                Some(c) => (0..c)
                    .map(|k| ProcessSpec {
                        name: subst_spanned(&p.name, "{p}", k),
                        vma: p.vma.iter().map(|v| subst_vma(v, "{p}", k)).collect(),
                        thread: p.thread.iter().map(|t| subst_thread(t, "{p}", k)).collect(),
                        count: None,
                        ..p.clone()
                    })
                    .collect(),
            };
            for mut q in procs {
                let vmas = self.copies(
                    &q.vma,
                    &format!("{pf}.vma"),
                    |v| v.count.as_ref(),
                    |v, k| VmaSpec {
                        count: None,
                        ..subst_vma(v, "{i}", k)
                    },
                    &mut used,
                    |_| Expanded {
                        vmas: 1,
                        ..Expanded::default()
                    },
                )?;
                let threads = self.copies(
                    &q.thread,
                    &format!("{pf}.thread"),
                    |t| t.count.as_ref(),
                    |t, k| ThreadSpec {
                        count: None,
                        ..subst_thread(t, "{i}", k)
                    },
                    &mut used,
                    |t| Expanded {
                        threads: 1,
                        ops: t.ops.len() as u64,
                        ..Expanded::default()
                    },
                )?;
                for key in ["{p}", "{i}"] {
                    let mut left = std::iter::once(&q.name).chain(vmas.iter().map(|v| &v.name));
                    if let Some(name) = left.find(|n| n.get_ref().contains(key)) {
                        return Err(self.err(
                            name.span(),
                            pf.clone(),
                            format!(
                                "`{key}` in `{}` is replaced only in a table with `count` ({} for {})",
                                name.get_ref(),
                                if key == "{p}" {
                                    "a [[process]]"
                                } else {
                                    "a [[process.vma]] or [[process.thread]]"
                                },
                                if key == "{p}" { "the process index" } else { "the copy's index" }
                            ),
                        ));
                    }
                }
                q.vma = vmas;
                q.thread = threads;
                out.push(q);
            }
        }
        if out.len() > crate::limits::MAX_PROCESSES {
            return Err(ScenarioError {
                line: None,
                field: Some("process".into()),
                message: format!(
                    "at most {} processes (the `count`s make {})",
                    crate::limits::MAX_PROCESSES,
                    out.len()
                ),
            });
        }
        Ok(out)
    }

    fn resolve(self, params: Vec<Param>) -> Result<Scenario, ScenarioError> {
        let f = self.file;
        let topology = self.topology()?;
        let knobs = self.knobs(&topology)?;
        let mut costs = Costs::default();
        for (name, n) in &f.costs.values {
            let field = format!("costs.{name}");
            let v = self.num(n, &field, 0, 1_000_000_000)?;
            if !costs.set(name, v as u64) {
                return Err(self.err(
                    n.span(),
                    field,
                    format!(
                        "unknown cost `{}` (known: {})",
                        crate::paste::quote_value(name),
                        Costs::names().join(", ")
                    ),
                ));
            }
        }
        let kernel = f.kernel.as_ref().map(|k| self.kernel(k, "kernel")).transpose()?;
        let mut toggles = Vec::new();
        for (id, v) in &f.toggles {
            toggles.push(self.toggle_value(id, v, &format!("toggles.{id}"))?);
        }
        let processes = self.processes(&topology)?;
        let chapters = self.chapters(&processes)?;
        let questions = self.questions(&processes)?;
        let description = match &f.description {
            Some(d) => self.text(d, "description", &processes)?,
            None => Text::default(),
        };
        let expects = self.expects()?;
        let explore = match &f.explore {
            None => None,
            Some(e) => {
                let toggle = match &e.toggle {
                    None => None,
                    Some(t) => {
                        if crate::patches::find(t.get_ref()).is_none() {
                            return Err(self.err(
                                t.span(),
                                "explore.toggle",
                                format!("unknown toggle `{}` (known toggles: {})", t.get_ref(), crate::patches::known_ids()),
                            ));
                        }
                        Some(t.get_ref().clone())
                    }
                };
                let budget = match &e.budget {
                    None => EXPLORE_BUDGET,
                    Some(n) => self.num(n, "explore.budget", 1, 100_000_000)? as u64,
                };
                let delays = match &e.delays {
                    None => None,
                    Some(n) => Some(self.num(n, "explore.delays", 0, 1000)? as u32),
                };
                Some(ExploreDef { toggle, budget, delays })
            }
        };
        Ok(Scenario {
            id: f.id.clone(),
            title: f.title.clone(),
            description,
            seed: f.seed.unwrap_or(1),
            topology,
            knobs,
            costs,
            kernel,
            toggles,
            params,
            processes,
            chapters,
            questions,
            expects,
            schedule: Default::default(),
            explore,
        })
    }

    fn kernel(&self, k: &Spanned<String>, field: &str) -> Result<Kernel, ScenarioError> {
        Kernel::parse(k.get_ref()).map_err(|e| self.err(k.span(), field, e))
    }

    /// A run's kernel, presets and toggles (`[[expect]]` and its `vs`).
    fn run_choice(
        &self,
        kernel: Option<&Spanned<String>>,
        preset: Option<&Spanned<String>>,
        set: &BTreeMap<String, Spanned<toml::Value>>,
        field: &str,
    ) -> Result<RunChoice, ScenarioError> {
        let kernel = kernel.map(|k| self.kernel(k, &format!("{field}.kernel"))).transpose()?;
        let mut presets = Vec::new();
        if let Some(p) = preset {
            for name in p.get_ref().split(',').map(str::trim).filter(|n| !n.is_empty()) {
                patches::find_preset(name).map_err(|e| self.err(p.span(), format!("{field}.preset"), e))?;
                presets.push(name.to_string());
            }
        }
        let mut out = Vec::new();
        for (id, v) in set {
            out.push(self.toggle_value(id, v, &format!("{field}.set.{id}"))?);
        }
        Ok(RunChoice { kernel, presets, set: out })
    }

    /// A toggle's id and value as a scenario gives them; a renamed id (an older file, or
    /// one an old link carries) is read as its successor with the value meaning the same.
    fn toggle_value(&self, id: &str, v: &Spanned<toml::Value>, field: &str) -> Result<(String, ToggleValue), ScenarioError> {
        let unknown = || {
            self.err(
                v.span(),
                field,
                format!("unknown toggle `{id}` (known toggles: {})", patches::known_ids()),
            )
        };
        let renamed = patches::renamed(id);
        let patch = match renamed {
            Some(r) => patches::find(r.new).ok_or_else(unknown)?,
            None => patches::find(id).ok_or_else(unknown)?,
        };
        let text = match v.get_ref() {
            toml::Value::Boolean(b) => b.to_string(),
            toml::Value::String(s) => s.clone(),
            other => {
                return Err(self.err(
                    v.span(),
                    field,
                    format!("expected true/false or a value name, found {}", other.type_str()),
                ))
            }
        };
        let value = match renamed {
            Some(r) => r.translate(&ToggleValue::Enum(text)),
            None => patch.parse_value(&text),
        };
        Ok((patch.id.to_string(), value.map_err(|m| self.err(v.span(), field, m))?))
    }

    fn topology(&self) -> Result<Topology, ScenarioError> {
        let m = &self.file.machine;
        let (raw, numactl_distance) = match (&m.numactl, &m.lscpu, &m.zoneinfo) {
            (Some(text), _, _) => self.numactl_nodes(text)?,
            (None, Some(l), _) => {
                return Err(self.err(
                    l.span(),
                    "machine.lscpu",
                    "lscpu gives no node memory sizes: give machine.numactl (numactl --hardware of the same machine) with it",
                ))
            }
            (None, None, Some(z)) => {
                return Err(self.err(
                    z.span(),
                    "machine.zoneinfo",
                    "zoneinfo gives no CPUs and no distances: give machine.numactl (numactl --hardware of the same machine) with it",
                ))
            }
            (None, None, None) => (self.spec_nodes()?, None),
        };
        if raw.is_empty() || raw.len() > crate::limits::MAX_NODES {
            return Err(ScenarioError {
                line: None,
                field: Some("machine.node".into()),
                message: format!("a machine needs 1 to {} nodes, not {}", crate::limits::MAX_NODES, raw.len()),
            });
        }
        if raw.iter().all(|n| n.pages == 0) {
            return Err(ScenarioError {
                line: None,
                field: Some("machine.node".into()),
                message: "no node has memory (mem_pages is 0 everywhere)".into(),
            });
        }
        let mut nodes = Vec::new();
        let mut cpu_node: Vec<Option<NodeId>> = Vec::new();
        let mut first_pfn = 0u32;
        for (i, n) in raw.iter().enumerate() {
            let field = &n.field;
            let pages = n.pages;
            let wmark = match &n.zone {
                Some(z) => z.wmark[2],
                None => n.wmark.unwrap_or((pages / 64).max(1).min(pages)),
            };
            let mut cpus = Vec::new();
            for &c in &n.cpus {
                if !(0..crate::limits::MAX_CPUS as i64).contains(&c) {
                    return Err(self.err(
                        n.cpus_span.clone(),
                        format!("{field}.cpus"),
                        format!(
                            "CPU id {c} is out of range 0..={} (the model runs machines of up to {} CPUs)",
                            crate::limits::MAX_CPUS - 1,
                            crate::limits::MAX_CPUS
                        ),
                    ));
                }
                let c = c as usize;
                if cpu_node.len() <= c {
                    cpu_node.resize(c + 1, None);
                }
                if let Some(other) = cpu_node[c] {
                    return Err(self.err(
                        n.cpus_span.clone(),
                        format!("{field}.cpus"),
                        format!("CPU {c} is already on node {other}"),
                    ));
                }
                cpu_node[c] = Some(i as NodeId);
                cpus.push(c as CpuId);
            }
            if first_pfn.checked_add(pages).is_none_or(|t| t > crate::limits::MAX_PAGES) {
                return Err(self.err(
                    n.pages_span.clone(),
                    format!("{field}.mem_pages"),
                    format!(
                        "the machine has too much memory for the model: its nodes add up to {} pages, at most {} (2^26)",
                        crate::limits::group(u64::from(first_pfn) + u64::from(pages)),
                        crate::limits::group(u64::from(crate::limits::MAX_PAGES))
                    ),
                ));
            }
            nodes.push(Node {
                id: i as NodeId,
                cpus,
                mem_pages: pages,
                first_pfn,
                high_wmark: wmark,
                zone: n.zone.clone(),
            });
            first_pfn += pages;
        }
        let mut cpu_nodes = Vec::new();
        for (c, n) in cpu_node.iter().enumerate() {
            match n {
                Some(n) => cpu_nodes.push(*n),
                None => {
                    return Err(ScenarioError {
                        line: None,
                        field: Some("machine.node.cpus".into()),
                        message: format!("CPU ids must be 0..{} without gaps, but CPU {c} is on no node", cpu_node.len()),
                    })
                }
            }
        }
        if cpu_nodes.is_empty() {
            return Err(ScenarioError {
                line: None,
                field: Some("machine.node.cpus".into()),
                message: "the machine has no CPU".into(),
            });
        }
        let nr = nodes.len();
        let distance = match (&m.distance, numactl_distance) {
            (Some(d), Some(_)) => {
                return Err(self.err(
                    d.span(),
                    "machine.distance",
                    "the numactl text already gives the distances: leave machine.distance out",
                ))
            }
            (None, Some(rows)) => {
                for (a, row) in rows.iter().enumerate() {
                    for (b, &v) in row.iter().enumerate() {
                        if (a == b && v != 10) || (a != b && !(11..=254).contains(&v)) {
                            let span = m.numactl.as_ref().map(|t| t.span()).unwrap_or_default();
                            return Err(self.err(
                                span,
                                "machine.numactl",
                                format!("node distance {a} -> {b} is {v}: the model needs 10 on the diagonal and 11..=254 elsewhere"),
                            ));
                        }
                    }
                }
                rows
            }
            (None, None) => (0..nr).map(|a| (0..nr).map(|b| if a == b { 10 } else { 20 }).collect()).collect(),
            (Some(d), None) => {
                let rows = d.get_ref();
                if rows.len() != nr || rows.iter().any(|r| r.len() != nr) {
                    return Err(self.err(
                        d.span(),
                        "machine.distance",
                        format!("expected a {nr}x{nr} matrix (one row and column per node)"),
                    ));
                }
                for (a, row) in rows.iter().enumerate() {
                    for (b, &v) in row.iter().enumerate() {
                        if (a == b && v != 10) || (a != b && !(11..=254).contains(&v)) {
                            return Err(self.err(
                                d.span(),
                                "machine.distance",
                                format!("distance[{a}][{b}] = {v}: the diagonal must be 10 and other entries 11..=254"),
                            ));
                        }
                    }
                }
                rows.clone()
            }
        };
        let tlb_entries = match &m.tlb_entries {
            Some(n) => self.num(n, "machine.tlb_entries", 1, 4096)? as u32,
            None => 64,
        };
        Ok(Topology {
            nodes,
            distance,
            cpu_node: cpu_nodes,
            tlb_entries,
        })
    }

    /// `[[machine.node]]` as written.
    fn spec_nodes(&self) -> Result<Vec<RawNode>, ScenarioError> {
        let m = &self.file.machine;
        let mut out: Vec<RawNode> = Vec::new();
        for (i, n) in m.node.iter().enumerate() {
            let field = format!("machine.node[{i}]");
            let pages = self.num(&n.mem_pages, &format!("{field}.mem_pages"), 0, i64::from(crate::limits::MAX_PAGES))? as u32;
            let (cpus, cpus_span) = match (&n.cpus, &n.nr_cpus) {
                (Some(c), None) => (c.get_ref().clone(), c.span()),
                (None, Some(k)) => {
                    let k = self.num(k, &format!("{field}.nr_cpus"), 0, 1024)?;
                    let first = out.iter().flat_map(|r| r.cpus.iter().map(|&c| c + 1)).max().unwrap_or(0);
                    ((first..first + k).collect(), n.mem_pages.span())
                }
                (Some(c), Some(_)) => {
                    return Err(self.err(c.span(), format!("{field}.cpus"), "give `cpus` or `nr_cpus`, not both"));
                }
                (None, None) => {
                    return Err(self.err(
                        n.mem_pages.span(),
                        field,
                        "a node needs its CPUs: `cpus = [...]` (ids) or `nr_cpus = N` (numbered on from the previous nodes; `cpus = []` for none)",
                    ));
                }
            };
            let wmark = match &n.high_wmark_pages {
                Some(w) => Some(self.num(w, &format!("{field}.high_wmark_pages"), 0, i64::from(pages))? as u32),
                None => None,
            };
            out.push(RawNode {
                cpus,
                cpus_span,
                pages,
                pages_span: n.mem_pages.span(),
                wmark,
                zone: None,
                field,
            });
        }
        Ok(out)
    }

    /// The nodes and distances of a pasted `numactl --hardware` text, scaled by `mem_scale`.
    #[allow(clippy::type_complexity)] // reason: nodes and the optional matrix, one private caller
    fn numactl_nodes(&self, text: &Spanned<String>) -> Result<(Vec<RawNode>, Option<Vec<Vec<u32>>>), ScenarioError> {
        let m = &self.file.machine;
        let span = text.span();
        if let Some(n) = m.node.first() {
            return Err(self.err(
                n.mem_pages.span(),
                "machine.node",
                "give the machine either as [[machine.node]] tables or as machine.numactl text, not both",
            ));
        }
        let hw = crate::numactl::parse(text.get_ref()).map_err(|e| self.pasted_err(text, "numactl", e.line, &e.message))?;
        let hw = match self.lscpu()? {
            Some((l, ltext)) => crate::lscpu::merge(&hw, &l).map_err(|e| self.pasted_err(ltext, "lscpu", e.line, &e.message))?,
            None => hw,
        };
        let total_mb: u64 = hw.nodes.iter().map(|n| n.size_mb).sum();
        let suggest = (total_mb * 256).div_ceil(1 << 16).max(1);
        let Some(scale) = &m.mem_scale else {
            return Err(self.err(
                span,
                "machine.mem_scale",
                format!(
                    "a machine given as numactl text needs machine.mem_scale (real 4 KiB pages per simulated page): this one has {total_mb} MB, so mem_scale = {suggest} gives about 65,536 simulated pages"
                ),
            ));
        };
        let scale = self.num(scale, "machine.mem_scale", 1, 1 << 40)? as u64;
        if hw.nodes.iter().all(|n| n.cpus.is_empty()) {
            return Err(self.err(
                span,
                "machine.numactl",
                "the numactl text lists no CPUs (an old numactl without `node N cpus:` lines?): describe the machine with [[machine.node]] instead",
            ));
        }
        let zones = match &m.zoneinfo {
            Some(t) => {
                let z = crate::zoneinfo::parse(t.get_ref()).map_err(|e| self.pasted_err(t, "zoneinfo", e.line, &e.message))?;
                Some(crate::zoneinfo::node_zones(&z, &hw, scale).map_err(|e| self.pasted_err(t, "zoneinfo", e.line, &e.message))?)
            }
            None => None,
        };
        let mut out = Vec::new();
        for (i, n) in hw.nodes.iter().enumerate() {
            let nz = zones.as_ref().and_then(|z| z.get(i));
            // The zoneinfo's managed pages, when pasted, are the node's size to the page.
            let pages = nz.map_or(n.size_mb * 256 / scale, |z| u64::from(z.sim_managed));
            if pages > u64::from(crate::limits::MAX_PAGES) {
                return Err(self.err(
                    span.clone(),
                    "machine.mem_scale",
                    format!(
                        "node {} ({} MB) would have {pages} simulated pages, above the model's 2^26 per node: raise mem_scale to at least {suggest}",
                        n.id, n.size_mb
                    ),
                ));
            }
            out.push(RawNode {
                cpus: n.cpus.iter().map(|&c| i64::from(c)).collect(),
                cpus_span: span.clone(),
                // A node with memory keeps at least one page at any scale.
                pages: if nz.is_some() || n.size_mb == 0 {
                    pages as u32
                } else {
                    pages.max(1) as u32
                },
                pages_span: span.clone(),
                wmark: None,
                zone: nz.filter(|z| z.sim_managed > 0).map(|z| crate::topology::PastedZone {
                    wmark: z.sim_wmarks,
                    batch: z.batch,
                    high_min: z.high_min,
                    high_max: z.high_max,
                }),
                field: format!("machine.numactl node {} (model node {i})", n.id),
            });
        }
        Ok((out, hw.distances))
    }

    /// The error of line `line` of a pasted text in `[machine]` (`numactl`, `lscpu`), at its
    /// line in the scenario file.
    fn pasted_err(&self, text: &Spanned<String>, what: &str, line: usize, message: &str) -> ScenarioError {
        // The text's line N is N - 1 lines below the opening quotes; TOML drops a
        // newline right after triple quotes.
        let span = text.span();
        let b = self.text.get(span.clone()).unwrap_or("").as_bytes();
        let skip = usize::from(b.len() > 3 && b[3] == b'\n' && (b[0] == b'"' || b[0] == b'\''));
        ScenarioError {
            line: Some(line_of(self.text, span.start) + skip + line - 1),
            field: Some(format!("machine.{what}")),
            message: format!("{what} text line {line}: {message}"),
        }
    }

    /// `[machine] lscpu`, read.
    fn lscpu(&self) -> Result<Option<(crate::lscpu::Lscpu, &Spanned<String>)>, ScenarioError> {
        let Some(text) = &self.file.machine.lscpu else { return Ok(None) };
        let l = crate::lscpu::parse(text.get_ref()).map_err(|e| self.pasted_err(text, "lscpu", e.line, &e.message))?;
        Ok(Some((l, text)))
    }

    fn knobs(&self, topo: &Topology) -> Result<Knobs, ScenarioError> {
        let mut knobs = Knobs::default();
        // The pasted machine's last-level cache share per CPU, unless [knobs] says otherwise.
        if let Some(kb) = self.lscpu()?.and_then(|(l, _)| l.llc_slice_kb) {
            if !self.file.knobs.values.contains_key("llc_slice_kb") {
                knobs.set("llc_slice_kb", kb.min(1 << 20) as i64);
            }
        }
        // check_numabalancing_enable (mm/mempolicy.c, v5.12): the default applies only
        // when more than one node is online; a one-node machine runs without NUMA
        // balancing unless told otherwise (the `numa_balancing=` override).
        if topo.nodes.len() < 2 && !self.file.knobs.values.contains_key("numa_balancing") {
            knobs.set("numa_balancing", 0);
        }
        for (name, v) in &self.file.knobs.values {
            let field = format!("knobs.{name}");
            let Some(def) = crate::registry::KNOBS.iter().find(|k| k.name == name) else {
                let known: Vec<&str> = crate::registry::KNOBS.iter().map(|k| k.name).collect();
                return Err(self.err(
                    v.span(),
                    field,
                    format!("unknown knob `{}` (known: {})", crate::paste::quote_value(name), known.join(", ")),
                ));
            };
            let value = match (def.kind, v.get_ref()) {
                (crate::knobs::KnobKind::Bool, toml::Value::Boolean(b)) => i64::from(*b),
                // A parameter's 0 or 1, so that a scenario can offer the knob as a parameter.
                (crate::knobs::KnobKind::Bool, toml::Value::String(p)) => {
                    self.num(&Spanned::new(v.span(), NumOrParam::Param(p.clone())), &field, 0, 1)?
                }
                (crate::knobs::KnobKind::Int { min, max, .. }, toml::Value::Integer(n)) => {
                    self.num(&Spanned::new(v.span(), NumOrParam::Int(*n)), &field, min, max)?
                }
                (crate::knobs::KnobKind::Int { min, max, .. }, toml::Value::String(p)) => {
                    self.num(&Spanned::new(v.span(), NumOrParam::Param(p.clone())), &field, min, max)?
                }
                (kind, other) => {
                    let want = if kind == crate::knobs::KnobKind::Bool {
                        "true, false or \"$param\" (0 or 1)"
                    } else {
                        "a whole number or \"$param\""
                    };
                    return Err(self.err(v.span(), field, format!("`{name}` must be {want}, not {}", other.type_str())));
                }
            };
            knobs.set(name, value);
        }
        Ok(knobs)
    }

    fn processes(&self, topo: &Topology) -> Result<Vec<ProcessDef>, ScenarioError> {
        let mut out: Vec<ProcessDef> = Vec::new();
        if self.file.process.len() > crate::limits::MAX_PROCESSES {
            return Err(ScenarioError {
                line: None,
                field: Some("process".into()),
                message: format!(
                    "at most {} processes, not {}",
                    crate::limits::MAX_PROCESSES,
                    self.file.process.len()
                ),
            });
        }
        let forker = self.forkers()?;
        for (pi, p) in self.file.process.iter().enumerate() {
            let pf = format!("process[{pi}]");
            if out.iter().any(|o| &o.name == p.name.get_ref()) {
                return Err(self.err(
                    p.name.span(),
                    format!("{pf}.name"),
                    format!("process name `{}` is used twice", p.name.get_ref()),
                ));
            }
            let mut vmas: Vec<VmaDef> = Vec::new();
            let mut total: u64 = 0;
            for (vi, v) in p.vma.iter().enumerate() {
                let vf = format!("{pf}.vma[{vi}]");
                if vmas.iter().any(|o| &o.name == v.name.get_ref()) {
                    return Err(self.err(
                        v.name.span(),
                        format!("{vf}.name"),
                        format!("VMA name `{}` is used twice in this process", v.name.get_ref()),
                    ));
                }
                let kind = match v.kind.get_ref().as_str() {
                    "anon" => VmaKind::Anon,
                    "file" => VmaKind::File,
                    other => {
                        return Err(self.err(
                            v.kind.span(),
                            format!("{vf}.kind"),
                            format!("expected `anon` or `file`, found `{other}`"),
                        ))
                    }
                };
                let pages = self.num(&v.pages, &format!("{vf}.pages"), 1, i64::from(crate::limits::MAX_VMA_PAGES))? as u32;
                total += u64::from(pages);
                let node = match &v.node {
                    Some(n) => Some(self.num(n, &format!("{vf}.node"), 0, topo.nodes.len() as i64 - 1)? as NodeId),
                    None => None,
                };
                let fs = match &v.fs {
                    None => Fs::Ext4,
                    Some(s) => match s.get_ref().as_str() {
                        "btrfs" => Fs::BtrfsPre58,
                        "xfs" => Fs::Xfs,
                        "ext4" => Fs::Ext4,
                        other => {
                            return Err(self.err(
                                s.span(),
                                format!("{vf}.fs"),
                                format!("expected `btrfs`, `xfs` or `ext4`, found `{other}`"),
                            ))
                        }
                    },
                };
                if kind == VmaKind::Anon && (v.fs.is_some() || v.dirty || v.file.is_some()) {
                    return Err(self.err(
                        v.name.span(),
                        vf.to_string(),
                        "`fs`, `dirty` and `file` apply only to `kind = \"file\"` VMAs",
                    ));
                }
                if kind == VmaKind::File && v.nohugepage {
                    return Err(self.err(
                        v.name.span(),
                        format!("{vf}.nohugepage"),
                        "`nohugepage` applies only to anonymous VMAs (file VMAs never get a huge page in the model)",
                    ));
                }
                let dirty_pct = match &v.dirty_pct {
                    Some(n) => self.num(n, &format!("{vf}.dirty_pct"), 0, 100)? as u8,
                    None if v.dirty => 100,
                    None => 0,
                };
                vmas.push(VmaDef {
                    name: v.name.get_ref().clone(),
                    kind,
                    pages,
                    node,
                    fs,
                    dirty: v.dirty,
                    file: v.file.as_ref().map(|f| f.get_ref().clone()),
                    dirty_pct,
                    nohugepage: v.nohugepage,
                });
            }
            if total > crate::limits::MAX_PROCESS_PAGES {
                return Err(self.err(
                    p.name.span(),
                    format!("{pf}.vma"),
                    format!(
                        "the VMAs are too large for the model: {} pages, at most {} (2^28) per process",
                        crate::limits::group(total),
                        crate::limits::group(crate::limits::MAX_PROCESS_PAGES)
                    ),
                ));
            }
            let forked_by = forker[pi].as_ref().map(|&(parent, _)| parent as u16);
            if let Some(parent) = forked_by {
                // The child's address space is a copy of the parent's: restated VMAs must match.
                let theirs = &out[parent as usize].vmas;
                if vmas.is_empty() {
                    vmas = theirs.iter().map(|v| VmaDef { node: None, ..v.clone() }).collect();
                } else {
                    let span = p.vma.first().map_or(p.name.span(), |v| v.name.span());
                    if vmas.len() != theirs.len() {
                        return Err(self.err(
                            span,
                            format!("{pf}.vma"),
                            format!(
                                "a forked process has its parent's VMAs: `{}` has {}, this one lists {} (leave `vma` out to inherit them)",
                                out[parent as usize].name,
                                theirs.len(),
                                vmas.len()
                            ),
                        ));
                    }
                    for (vi, (mine, theirs)) in vmas.iter().zip(theirs).enumerate() {
                        let same =
                            mine.name == theirs.name && mine.kind == theirs.kind && mine.pages == theirs.pages && mine.file == theirs.file;
                        if !same || mine.node.is_some() {
                            return Err(self.err(
                                p.vma[vi].name.span(),
                                format!("{pf}.vma[{vi}]"),
                                format!(
                                    "a forked process has its parent's VMAs: this one must be `{}` ({:?}, {} pages{}) as in `{}`, without `node`",
                                    theirs.name,
                                    theirs.kind,
                                    theirs.pages,
                                    theirs.file.as_ref().map(|f| format!(", file `{f}`")).unwrap_or_default(),
                                    out[parent as usize].name
                                ),
                            ));
                        }
                    }
                }
            }
            let mut threads = Vec::new();
            for (ti, t) in p.thread.iter().enumerate() {
                let tf = format!("{pf}.thread[{ti}]");
                let allowed = self.cpus_allowed(t, topo, &tf)?;
                let mut ops = Vec::new();
                for (oi, o) in t.ops.iter().enumerate() {
                    let op = self.op(o, &vmas, &format!("{tf}.ops[{oi}]"))?;
                    if op == (Op::Loop { times: 0 }) && !self.file.knobs.values.contains_key("window_ms") {
                        return Err(self.err(
                            o.span.clone(),
                            format!("{tf}.ops[{oi}]"),
                            "a `loop` without `times` runs until the window ends: set `[knobs] window_ms` (or give `times`)",
                        ));
                    }
                    ops.push(op);
                }
                threads.push(ThreadDef {
                    cpu: allowed[0],
                    allowed,
                    ops,
                });
            }
            out.push(ProcessDef {
                name: p.name.get_ref().clone(),
                vmas,
                threads,
                forked_by,
            });
        }
        Ok(out)
    }

    /// `cpus_allowed` of a thread from `cpu`, `cpus` or `node` (at most one; none: every CPU).
    fn cpus_allowed(&self, t: &ThreadSpec, topo: &Topology, tf: &str) -> Result<Vec<CpuId>, ScenarioError> {
        let nr = topo.nr_cpus();
        let given: Vec<(&str, std::ops::Range<usize>)> = [
            ("cpu", t.cpu.as_ref().map(|x| x.span())),
            ("cpus", t.cpus.as_ref().map(|x| x.span())),
            ("node", t.node.as_ref().map(|x| x.span())),
        ]
        .into_iter()
        .filter_map(|(n, s)| s.map(|s| (n, s)))
        .collect();
        if let [_, (second, span), ..] = given.as_slice() {
            return Err(self.err(
                span.clone(),
                format!("{tf}.{second}"),
                format!(
                    "give at most one of `cpu`, `cpus` and `node` (this thread has `{}` and `{second}`)",
                    given[0].0
                ),
            ));
        }
        if let Some(c) = &t.cpu {
            let cpu = self.num(c, &format!("{tf}.cpu"), 0, i64::MAX)?;
            if cpu as usize >= nr {
                return Err(self.err(
                    c.span(),
                    format!("{tf}.cpu"),
                    format!("CPU {cpu} does not exist (the machine has CPUs 0-{})", nr - 1),
                ));
            }
            return Ok(vec![cpu as CpuId]);
        }
        if let Some(list) = &t.cpus {
            let mut out: Vec<CpuId> = Vec::new();
            for &c in list.get_ref() {
                if c < 0 || c as usize >= nr {
                    return Err(self.err(
                        list.span(),
                        format!("{tf}.cpus"),
                        format!("CPU {c} does not exist (the machine has CPUs 0-{})", nr - 1),
                    ));
                }
                if out.contains(&(c as CpuId)) {
                    return Err(self.err(list.span(), format!("{tf}.cpus"), format!("CPU {c} is listed twice")));
                }
                out.push(c as CpuId);
            }
            if out.is_empty() {
                return Err(self.err(list.span(), format!("{tf}.cpus"), "a thread needs at least one CPU to run on"));
            }
            out.sort_unstable();
            return Ok(out);
        }
        if let Some(n) = &t.node {
            let node = self.num(n, &format!("{tf}.node"), 0, topo.nodes.len() as i64 - 1)? as usize;
            let mut out = topo.nodes[node].cpus.clone();
            if out.is_empty() {
                return Err(self.err(n.span(), format!("{tf}.node"), format!("node {node} has no CPU")));
            }
            out.sort_unstable();
            return Ok(out);
        }
        Ok((0..nr as CpuId).collect())
    }

    /// Who forks each process: `(parent process, span of the fork's child)`. Checks the
    /// `fork` operations against the `forked` flags: a child exists, is `forked = true`, is
    /// forked once and by a process earlier in the file; every `forked` process is forked.
    #[allow(clippy::type_complexity)] // reason: one private table, named in the doc comment
    fn forkers(&self) -> Result<Vec<Option<(usize, std::ops::Range<usize>)>>, ScenarioError> {
        let procs = &self.file.process;
        let mut forker: Vec<Option<(usize, std::ops::Range<usize>)>> = vec![None; procs.len()];
        for (pi, p) in procs.iter().enumerate() {
            for (ti, t) in p.thread.iter().enumerate() {
                for (oi, o) in t.ops.iter().enumerate() {
                    // An operation that creates a process names it in its `NewProcess` argument.
                    let def = o.op.as_ref().and_then(|op| crate::registry::ops().find(|d| d.name == op.get_ref()));
                    let Some(arg) = def.and_then(|d| d.args.iter().find(|a| a.kind == ArgKind::NewProcess)) else {
                        continue;
                    };
                    let Some(child) = o.fields.get(arg.name) else {
                        continue;
                    };
                    let toml::Value::String(name) = child.get_ref() else {
                        continue;
                    };
                    let child = Spanned::new(child.span(), name.clone());
                    let f = format!("process[{pi}].thread[{ti}].ops[{oi}].{}", arg.name);
                    let Some(ci) = procs.iter().position(|x| x.name.get_ref() == child.get_ref()) else {
                        let known: Vec<&str> = procs.iter().map(|x| x.name.get_ref().as_str()).collect();
                        return Err(self.err(
                            child.span(),
                            f,
                            format!("no process named `{}` (processes: {})", child.get_ref(), known.join(", ")),
                        ));
                    };
                    if !procs[ci].forked.as_ref().is_some_and(|x| *x.get_ref()) {
                        return Err(self.err(
                            child.span(),
                            f,
                            format!(
                                "process `{}` starts with the scenario; a fork's child must say `forked = true`",
                                child.get_ref()
                            ),
                        ));
                    }
                    if ci <= pi {
                        return Err(self.err(
                            child.span(),
                            f,
                            format!(
                                "process `{}` must come after `{}` in the file (a child is listed after the process that forks it)",
                                child.get_ref(),
                                p.name.get_ref()
                            ),
                        ));
                    }
                    if let Some((parent, _)) = &forker[ci] {
                        return Err(self.err(
                            child.span(),
                            f,
                            format!(
                                "process `{}` is already forked by `{}`: each child is forked once",
                                child.get_ref(),
                                procs[*parent].name.get_ref()
                            ),
                        ));
                    }
                    forker[ci] = Some((pi, child.span()));
                }
            }
        }
        for (pi, p) in procs.iter().enumerate() {
            if let Some(f) = p.forked.as_ref().filter(|f| *f.get_ref()) {
                if forker[pi].is_none() {
                    return Err(self.err(
                        f.span(),
                        format!("process[{pi}].forked"),
                        format!("process `{}` is `forked = true` but no `fork` operation names it", p.name.get_ref()),
                    ));
                }
                if p.thread.is_empty() {
                    return Err(self.err(f.span(), format!("process[{pi}].thread"), "a forked process needs a thread"));
                }
            }
        }
        Ok(forker)
    }

    fn vma_index(&self, name: &Spanned<String>, vmas: &[VmaDef], field: &str) -> Result<u16, ScenarioError> {
        vmas.iter()
            .position(|v| &v.name == name.get_ref())
            .map(|i| i as u16)
            .ok_or_else(|| {
                let known: Vec<&str> = vmas.iter().map(|v| v.name.as_str()).collect();
                self.err(
                    name.span(),
                    field,
                    format!(
                        "no VMA named `{}` in this process (it has: {})",
                        name.get_ref(),
                        if known.is_empty() { "none".into() } else { known.join(", ") }
                    ),
                )
            })
    }

    fn op(&self, o: &OpSpec, vmas: &[VmaDef], f: &str) -> Result<Op, ScenarioError> {
        let names = || crate::registry::ops().map(|d| d.name).collect::<Vec<_>>().join(", ");
        let Some(op) = o.op.as_ref() else {
            return Err(self.err(
                o.span.clone(),
                format!("{f}.op"),
                format!("an operation needs `op` (one of: {})", names()),
            ));
        };
        let kind = op.get_ref().as_str();
        let Some((index, def)) = crate::registry::ops().enumerate().find(|(_, d)| d.name == kind) else {
            return Err(self.err(
                op.span(),
                format!("{f}.op"),
                format!("unknown operation `{kind}` (known: {})", names()),
            ));
        };
        // Anything the operation does not take is a mistake worth naming.
        for name in &o.names {
            if !def.args.iter().any(|a| a.name == name.get_ref()) {
                let takes: Vec<&str> = def.args.iter().map(|a| a.name).collect();
                return Err(self.err(
                    name.span(),
                    format!("{f}.{}", name.get_ref()),
                    format!(
                        "`{kind}` takes no `{}` (it takes: {})",
                        name.get_ref(),
                        if takes.is_empty() { "nothing".into() } else { takes.join(", ") }
                    ),
                ));
            }
        }
        let mut args: OpArgs = [0; MAX_OP_ARGS];
        let mut vma: Option<u16> = None;
        for (i, a) in def.args.iter().enumerate() {
            let field = format!("{f}.{}", a.name);
            let Some(v) = o.fields.get(a.name) else {
                if a.required {
                    return Err(self.err(op.span(), field, format!("`{kind}` needs `{}`", a.name)));
                }
                args[i] = if a.kind == ArgKind::Vma { NO_ARG } else { a.default as u64 };
                continue;
            };
            let span = v.span();
            let wrong = |what: &str| {
                self.err(
                    span.clone(),
                    field.clone(),
                    format!("`{}` must be {what}, not {}", a.name, v.get_ref().type_str()),
                )
            };
            let num = |min: i64, max: i64| -> Result<i64, ScenarioError> {
                let n = match v.get_ref() {
                    toml::Value::Integer(n) => NumOrParam::Int(*n),
                    toml::Value::String(s) => NumOrParam::Param(s.clone()),
                    _ => return Err(wrong("a whole number or \"$param\"")),
                };
                self.num(&Spanned::new(span.clone(), n), &field, min, max)
            };
            args[i] = match a.kind {
                ArgKind::Vma => {
                    let toml::Value::String(name) = v.get_ref() else {
                        return Err(wrong("the name of a VMA"));
                    };
                    let vi = self.vma_index(&Spanned::new(span.clone(), name.clone()), vmas, &field)?;
                    vma = Some(vi);
                    u64::from(vi)
                }
                ArgKind::Page => {
                    let Some(vi) = vma else {
                        return Err(self.err(span.clone(), field, format!("`{}` needs a `vma` before it", a.name)));
                    };
                    num(0, vmas[vi as usize].pages as i64 - 1)? as u64
                }
                ArgKind::Bool => match v.get_ref() {
                    toml::Value::Boolean(b) => u64::from(*b),
                    _ => return Err(wrong("true or false")),
                },
                ArgKind::Int { min, max } => num(min, max)? as u64,
                ArgKind::NewProcess => {
                    let toml::Value::String(name) = v.get_ref() else {
                        return Err(wrong("the name of a process"));
                    };
                    // `forkers` has checked the name.
                    self.file.process.iter().position(|p| p.name.get_ref() == name).unwrap_or(0) as u64
                }
            };
        }
        Ok(match def.run {
            OpRun::User(build) => build(&args),
            OpRun::Call { .. } => Op::Call { op: index as u16, args },
        })
    }

    fn chapters(&self, processes: &[ProcessDef]) -> Result<Vec<ChapterDef>, ScenarioError> {
        let mut out = Vec::new();
        for (ci, c) in self.file.chapter.iter().enumerate() {
            let f = format!("chapter[{ci}]");
            let anchor = match (&c.process, &c.op, &c.event) {
                (_, None, None) if c.process.is_none() => ChapterAnchor::Start,
                (Some(p), Some(op), None) => {
                    let pi = processes
                        .iter()
                        .position(|x| &x.name == p.get_ref())
                        .ok_or_else(|| self.err(p.span(), format!("{f}.process"), format!("no process named `{}`", p.get_ref())))?;
                    let nthreads = processes[pi].threads.len() as i64;
                    if nthreads == 0 {
                        return Err(self.err(p.span(), format!("{f}.process"), "this process has no thread"));
                    }
                    let ti = match &c.thread {
                        Some(t) => self.num(t, &format!("{f}.thread"), 0, nthreads - 1)? as usize,
                        None => 0,
                    };
                    let nops = processes[pi].threads[ti].ops.len() as i64;
                    let oi = self.num(op, &format!("{f}.op"), 0, (nops - 1).max(0))? as usize;
                    ChapterAnchor::Op {
                        process: pi,
                        thread: ti,
                        op: oi,
                    }
                }
                (None, None, Some(e)) => {
                    if crate::trace::EventKind::from_name(e.get_ref()).is_none() {
                        let known: Vec<&str> = crate::registry::event_kinds().map(|k| k.name()).collect();
                        return Err(self.err(
                            e.span(),
                            format!("{f}.event"),
                            format!("unknown event kind `{}` (known: {})", e.get_ref(), known.join(", ")),
                        ));
                    }
                    ChapterAnchor::Event(e.get_ref().clone())
                }
                _ => {
                    return Err(ScenarioError {
                        line: None,
                        field: Some(f),
                        message: format!(
                            "chapter `{}` needs either `process` + `op` (+ `thread`), or `event`, or neither (start)",
                            c.title.get_ref()
                        ),
                    })
                }
            };
            out.push(ChapterDef {
                title: self.text(&c.title, &format!("{f}.title"), processes)?,
                narration: match &c.narration {
                    Some(n) => self.text(n, &format!("{f}.narration"), processes)?,
                    None => Text::default(),
                },
                anchor,
            });
        }
        Ok(out)
    }

    /// The 1-based line of byte `at` of the value of the string `s` (a multi-line string's
    /// lines counted; escapes inside the string can shift it a little).
    fn line_in(&self, s: &Spanned<String>, at: usize) -> usize {
        let raw = self.text.get(s.span()).unwrap_or("");
        // TOML drops a newline right after an opening `"""` or `'''`.
        let dropped = usize::from(
            raw.starts_with("\"\"\"\n") || raw.starts_with("\'\'\'\n") || raw.starts_with("\"\"\"\r\n") || raw.starts_with("\'\'\'\r\n"),
        );
        let before = s.get_ref().get(..at).unwrap_or("");
        line_of(self.text, s.span().start) + dropped + before.matches('\n').count()
    }

    /// Reads text that may name CPUs and nodes of the run: `{cpu P/T}`, `{node P/T}`,
    /// `{node P.VMA}` and `{cpus P}` (process `P` by name, thread `T` by index). A `{`
    /// followed by a lower-case word and a space starts a placeholder and must be one of
    /// these; any other `{` is text (`{0, 1}`).
    fn text(&self, s: &Spanned<String>, field: &str, processes: &[ProcessDef]) -> Result<Text, ScenarioError> {
        let value = s.get_ref();
        let fail = |at: usize, message: String| ScenarioError {
            line: Some(self.line_in(s, at)),
            field: Some(field.to_string()),
            message,
        };
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut rest = value.as_str();
        let mut offset = 0;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let word_len = after.find(|c: char| !(c.is_ascii_lowercase() || c == '_')).unwrap_or(after.len());
            let is_placeholder = word_len > 0 && after[word_len..].starts_with(' ');
            if !is_placeholder {
                lit.push_str(&rest[..=open]);
                offset += open + 1;
                rest = after;
                continue;
            }
            let at = offset + open;
            let word = &after[..word_len];
            // A placeholder ends on its line, before any other `{`.
            let Some(close) = after.find('}').filter(|&c| !after[..c].contains(['{', '\n'])) else {
                return Err(fail(at, format!("`{{{word} ...` has no closing `}}`")));
            };
            let arg = after[word_len..close].trim();
            let placeholder = &rest[open..open + close + 2];
            let part = self
                .placeholder(word, arg, processes)
                .map_err(|m| fail(at, format!("in `{placeholder}`: {m}")))?;
            lit.push_str(&rest[..open]);
            if !lit.is_empty() {
                parts.push(TextPart::Lit(std::mem::take(&mut lit)));
            }
            parts.push(part);
            offset += open + close + 2;
            rest = &rest[open + close + 2..];
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(TextPart::Lit(lit));
        }
        Ok(Text(parts))
    }

    /// One placeholder of [`Resolver::text`]: `word` (`cpu`, `node`, `cpus`) and its argument.
    fn placeholder(&self, word: &str, arg: &str, processes: &[ProcessDef]) -> Result<TextPart, String> {
        const KNOWN: &str = "`{cpu PROCESS/THREAD}`, `{node PROCESS/THREAD}`, `{node PROCESS.VMA}`, `{cpus PROCESS}`";
        let process = |name: &str| -> Result<usize, String> {
            processes.iter().position(|p| p.name == name).ok_or_else(|| {
                let names: Vec<&str> = processes.iter().map(|p| p.name.as_str()).collect();
                format!(
                    "no process named `{}` (processes: {})",
                    crate::paste::quote_value(name),
                    if names.is_empty() { "none".into() } else { names.join(", ") }
                )
            })
        };
        let thread = |arg: &str| -> Result<usize, String> {
            let (p, t) = arg
                .rsplit_once('/')
                .ok_or_else(|| format!("expected PROCESS/THREAD (e.g. `app/0`), found `{arg}`"))?;
            let pi = process(p)?;
            let n = processes[pi].threads.len();
            let ti: usize = t
                .parse()
                .map_err(|_| format!("the thread `{t}` is not a thread index (0, 1, ...)"))?;
            if ti >= n {
                return Err(format!("process `{p}` has {n} thread(s), so no thread {ti}"));
            }
            Ok(processes[..pi].iter().map(|p| p.threads.len()).sum::<usize>() + ti)
        };
        match word {
            "cpu" => Ok(TextPart::Cpu {
                task: thread(arg)?,
                name: arg.into(),
            }),
            "node" if arg.contains('/') => Ok(TextPart::Node {
                task: thread(arg)?,
                name: arg.into(),
            }),
            "node" => {
                // The process is the longest name before a `.` (names may hold dots).
                let split = arg
                    .match_indices('.')
                    .map(|(i, _)| i)
                    .rev()
                    .find(|&i| processes.iter().any(|p| p.name == arg[..i]))
                    .ok_or_else(|| {
                        format!("expected PROCESS/THREAD (a thread's node) or PROCESS.VMA (where a VMA's pages are), found `{arg}`")
                    })?;
                let pi = process(&arg[..split])?;
                let vma = &arg[split + 1..];
                let vi = processes[pi].vmas.iter().position(|v| v.name == vma).ok_or_else(|| {
                    let names: Vec<&str> = processes[pi].vmas.iter().map(|v| v.name.as_str()).collect();
                    format!(
                        "process `{}` has no VMA named `{vma}` (VMAs: {})",
                        processes[pi].name,
                        names.join(", ")
                    )
                })?;
                Ok(TextPart::VmaNode {
                    process: pi,
                    vma: vi,
                    name: arg.into(),
                })
            }
            "cpus" => Ok(TextPart::Cpus {
                process: process(arg)?,
                name: arg.into(),
            }),
            _ => Err(format!("unknown placeholder `{{{word} ...}}` (known: {KNOWN})")),
        }
    }

    /// The `[[question]]`s: each names a chapter by its title and asks one thing of the run.
    fn questions(&self, processes: &[ProcessDef]) -> Result<Vec<QuestionDef>, ScenarioError> {
        let titles: Vec<&str> = self.file.chapter.iter().map(|c| c.title.get_ref().as_str()).collect();
        // A chapter named by a question: by its title, which must be unique.
        let chapter = |name: &Spanned<String>, field: &str| -> Result<usize, ScenarioError> {
            let found: Vec<usize> = titles
                .iter()
                .enumerate()
                .filter(|(_, t)| **t == name.get_ref())
                .map(|(i, _)| i)
                .collect();
            match found.as_slice() {
                [one] => Ok(*one),
                [] => Err(self.err(
                    name.span(),
                    field,
                    format!(
                        "no chapter titled `{}` (chapters: {})",
                        name.get_ref(),
                        if titles.is_empty() {
                            "none".into()
                        } else {
                            titles.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
                        }
                    ),
                )),
                _ => Err(self.err(
                    name.span(),
                    field,
                    format!(
                        "{} chapters are titled `{}`: give them different titles",
                        found.len(),
                        name.get_ref()
                    ),
                )),
            }
        };
        let counter = |n: &Spanned<String>, field: &str| -> Result<crate::counters::Counter, ScenarioError> {
            crate::counters::Counter::from_name(n.get_ref()).ok_or_else(|| {
                let known: Vec<&str> = crate::counters::Counter::all().iter().map(|c| c.name()).collect();
                self.err(
                    n.span(),
                    field,
                    format!("unknown counter `{}` (known: {})", n.get_ref(), known.join(", ")),
                )
            })
        };
        let event = |n: &Spanned<String>, field: &str| -> Result<crate::trace::EventKind, ScenarioError> {
            crate::trace::EventKind::from_name(n.get_ref()).ok_or_else(|| {
                let known: Vec<&str> = crate::registry::event_kinds().map(|k| k.name()).collect();
                self.err(
                    n.span(),
                    field,
                    format!("unknown event kind `{}` (known: {})", n.get_ref(), known.join(", ")),
                )
            })
        };
        let mut out = Vec::new();
        for (qi, q) in self.file.question.iter().enumerate() {
            let f = format!("question[{qi}]");
            let ci = chapter(&q.chapter, &format!("{f}.chapter"))?;
            let until = match &q.until {
                None => Until::NextChapter,
                Some(u) if u.get_ref() == "end" => Until::End,
                Some(u) => {
                    let ui = chapter(u, &format!("{f}.until"))?;
                    if ui == ci {
                        return Err(self.err(
                            u.span(),
                            format!("{f}.until"),
                            "`until` names the question's own chapter: name a later one, or \"end\"",
                        ));
                    }
                    Until::Chapter(ui)
                }
            };
            let given = usize::from(q.counter.is_some()) + usize::from(q.cpus_with.is_some()) + usize::from(!q.choice.is_empty());
            if given != 1 {
                return Err(self.err(
                    q.prompt.span(),
                    f,
                    format!(
                        "a question needs exactly one of `counter` (a number to guess), `cpus_with` (which CPUs) or `[[question.choice]]` (statements to pick from); this one has {}",
                        if given == 0 { "none".to_string() } else { given.to_string() }
                    ),
                ));
            }
            let kind = if let Some(c) = &q.counter {
                QuestionKind::Counter(counter(c, &format!("{f}.counter"))?)
            } else if let Some(e) = &q.cpus_with {
                QuestionKind::CpusWith(event(e, &format!("{f}.cpus_with"))?)
            } else {
                if q.choice.len() < 2 {
                    return Err(self.err(
                        q.choice[0].text.span(),
                        format!("{f}.choice"),
                        "a question with choices needs at least two",
                    ));
                }
                let mut choices = Vec::new();
                for (ki, c) in q.choice.iter().enumerate() {
                    let cf = format!("{f}.choice[{ki}]");
                    let measure = match (&c.counter, &c.event) {
                        (Some(n), None) => Measure::Counter(counter(n, &format!("{cf}.counter"))?),
                        (None, Some(e)) => Measure::Events(event(e, &format!("{cf}.event"))?),
                        _ => {
                            return Err(self.err(
                                c.text.span(),
                                cf,
                                "a choice needs exactly one of `counter` (its change) or `event` (how many of that kind)",
                            ))
                        }
                    };
                    if c.eq.is_none() && c.min.is_none() && c.max.is_none() {
                        return Err(self.err(
                            c.text.span(),
                            cf,
                            "a choice needs `eq`, `min` or `max` (when the statement is true)",
                        ));
                    }
                    choices.push(ChoiceDef {
                        text: self.text(&c.text, &format!("{cf}.text"), processes)?,
                        measure,
                        eq: c.eq,
                        min: c.min,
                        max: c.max,
                    });
                }
                QuestionKind::Choice(choices)
            };
            out.push(QuestionDef {
                chapter: ci,
                prompt: self.text(&q.prompt, &format!("{f}.prompt"), processes)?,
                until,
                kind,
                line: line_of(self.text, q.prompt.span().start),
            });
        }
        Ok(out)
    }

    fn expects(&self) -> Result<Vec<Expect>, ScenarioError> {
        let mut out = Vec::new();
        for (ei, e) in self.file.expect.iter().enumerate() {
            let f = format!("expect[{ei}]");
            let check_name = |n: &Spanned<String>, field: &str| -> Result<(), ScenarioError> {
                let metrics = metric_names();
                if crate::counters::Counter::from_name(n.get_ref()).is_none() && !metrics.contains(&n.get_ref().as_str()) {
                    let known: Vec<&str> = crate::counters::Counter::all().iter().map(|c| c.name()).chain(metrics).collect();
                    return Err(self.err(
                        n.span(),
                        field,
                        format!("unknown counter `{}` (known: {})", n.get_ref(), known.join(", ")),
                    ));
                }
                Ok(())
            };
            check_name(&e.counter, &format!("{f}.counter"))?;
            if let Some(p) = &e.per {
                check_name(p, &format!("{f}.per"))?;
            }
            if e.eq.is_none() && e.min.is_none() && e.max.is_none() {
                return Err(self.err(e.counter.span(), f, "an expectation needs `eq`, `min` or `max`"));
            }
            let choice = self.run_choice(e.kernel.as_ref(), e.preset.as_ref(), &e.set, &f)?;
            let set = choice.set.clone();
            let vs = match &e.vs {
                Some(v) => Some(self.run_choice(v.kernel.as_ref(), v.preset.as_ref(), &v.set, &format!("{f}.vs"))?),
                None => None,
            };
            let line = line_of(self.text, e.counter.span().start);
            if let Some(n) = e.seeds {
                if !(1..=64).contains(&n) {
                    return Err(self.err(e.counter.span(), format!("{f}.seeds"), format!("{n} is out of range 1..=64")));
                }
            }
            let window = match &e.window {
                Some(w) => {
                    let from = self.num(&w.from_ms, &format!("{f}.window.from_ms"), 0, 100_000_000)?;
                    let len = self.num(&w.length_ms, &format!("{f}.window.length_ms"), 1, 100_000_000)?;
                    Some((from as u64 * 1_000_000, (from + len) as u64 * 1_000_000))
                }
                None => None,
            };
            let name = e.name.clone().unwrap_or_else(|| {
                let per = e.per.as_ref().map(|p| format!(" per {}", p.get_ref())).unwrap_or_default();
                format!("{}{per}", e.counter.get_ref())
            });
            out.push(Expect {
                name,
                set,
                choice,
                vs,
                counter: e.counter.get_ref().clone(),
                per: e.per.as_ref().map(|p| p.get_ref().clone()),
                eq: e.eq,
                min: e.min,
                max: e.max,
                seeds: e.seeds,
                window,
                line,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINI: &str = r#"
format = 1
id = "mini"
title = "Mini"

[params.pages]
default = 4
min = 1
max = 8

[machine]
tlb_entries = 8
[[machine.node]]
cpus = [0, 1]
mem_pages = 16
[[machine.node]]
cpus = [2, 3]
mem_pages = 16

[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = "$pages"
node = 0
[[process.thread]]
cpu = 2
ops = [ { op = "touch", vma = "heap" }, { op = "scan" } ]
"#;

    #[test]
    fn costs_override_by_name_and_an_unknown_name_is_refused_with_its_line() {
        let s = parse(&format!("{MINI}\n[costs]\nipi_send_ns = 1000\ncopy_page_ns = \"$pages\"\n"), &[]).unwrap();
        assert_eq!(s.costs[crate::mech::core::IPI_SEND_NS], 1000);
        assert_eq!(s.costs[crate::mech::migrate::COPY_PAGE_NS], 4);
        let text = format!("{MINI}\n[costs]\nipi_sned_ns = 1000\n");
        let e = parse(&text, &[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("costs.ipi_sned_ns"));
        assert_eq!(e.line, Some(text.lines().count()));
        assert!(e.message.contains("unknown cost `ipi_sned_ns`"), "{e}");
    }

    /// check_numabalancing_enable: the default (on) needs two online nodes; one node runs
    /// without NUMA balancing unless the scenario asks for it.
    #[test]
    fn numa_balancing_is_on_by_default_only_with_two_nodes() {
        let one = MINI
            .replacen("[[machine.node]]\ncpus = [2, 3]\nmem_pages = 16\n", "", 1)
            .replacen("cpu = 2", "cpu = 1", 1);
        assert!(parse(MINI, &[]).unwrap().knobs.on(crate::mech::numa::NUMA_BALANCING));
        assert!(!parse(&one, &[]).unwrap().knobs.on(crate::mech::numa::NUMA_BALANCING));
        let asked = format!("{one}\n[knobs]\nnuma_balancing = true\n");
        assert!(parse(&asked, &[]).unwrap().knobs.on(crate::mech::numa::NUMA_BALANCING));
    }

    #[test]
    fn knobs_are_set_by_name_and_a_bad_one_is_refused_with_its_line() {
        let s = parse(&format!("{MINI}\n[knobs]\nscan_period_ms = 2\nnuma_balancing = false\n"), &[]).unwrap();
        assert_eq!(s.knobs.get(crate::mech::numa::SCAN_PERIOD_NS), Some(2_000_000));
        assert!(!s.knobs.on(crate::mech::numa::NUMA_BALANCING));
        // A true/false knob may come from a parameter's 0 or 1.
        let with_param =
            format!("{MINI}\n[params.thp]\ndefault = 1\nmin = 0\nmax = 1\ndescription = \"t\"\n[knobs]\nthp_enabled = \"$thp\"\n");
        assert!(parse(&with_param, &[]).unwrap().knobs.on(crate::mech::thp::THP_ENABLED));
        assert!(!parse(&with_param, &[("thp".into(), 0)])
            .unwrap()
            .knobs
            .on(crate::mech::thp::THP_ENABLED));
        let e = parse(&with_param.replace("max = 1", "max = 2"), &[("thp".into(), 2)]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("knobs.thp_enabled"), "{e}");
        for (bad, field, says) in [
            ("scan_perod_ms = 2", "knobs.scan_perod_ms", "unknown knob `scan_perod_ms`"),
            ("numa_balancing = 3", "knobs.numa_balancing", "must be true, false"),
            ("scan_period_ms = 0", "knobs.scan_period_ms", "out of range"),
        ] {
            let text = format!("{MINI}\n[knobs]\n{bad}\n");
            let e = parse(&text, &[]).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{bad}");
            assert_eq!(e.line, Some(text.lines().count()), "{bad}");
            assert!(e.message.contains(says), "{bad}: {e}");
        }
    }

    /// `nr_cpus` numbers CPUs on; both or neither of `cpus`/`nr_cpus` is an error.
    #[test]
    fn nr_cpus_numbers_a_node_s_cpus_on_from_the_previous_nodes() {
        let text = |a: &str, b: &str| {
            format!(
                "format = 1\nid = \"n\"\ntitle = \"t\"\n[params.c]\ndefault = 3\nmin = 1\nmax = 8\n[machine]\n[[machine.node]]\n{a}\nmem_pages = 64\n[[machine.node]]\n{b}\nmem_pages = 64\n[[process]]\nname = \"p\"\n[[process.thread]]\ncpu = 0\nops = []\n"
            )
        };
        let s = parse(&text("nr_cpus = \"$c\"", "nr_cpus = 2"), &[]).unwrap();
        assert_eq!(s.topology.nodes[0].cpus, vec![0, 1, 2]);
        assert_eq!(s.topology.nodes[1].cpus, vec![3, 4]);
        let s = parse(&text("cpus = [0, 1]", "nr_cpus = \"$c\""), &[("c".into(), 4)]).unwrap();
        assert_eq!(s.topology.nodes[1].cpus, vec![2, 3, 4, 5]);
        // Both, or neither: an error naming the node.
        let e = parse(&text("cpus = [0]\nnr_cpus = 1", "nr_cpus = 1"), &[]).unwrap_err();
        assert!(
            e.to_string().contains("machine.node[0].cpus") && e.to_string().contains("not both"),
            "{e}"
        );
        let e = parse(&text("", "nr_cpus = 1"), &[]).unwrap_err();
        assert!(
            e.to_string().contains("machine.node[0]") && e.to_string().contains("nr_cpus"),
            "{e}"
        );
        let e = parse(&text("nr_cpus = 2000", "nr_cpus = 1"), &[]).unwrap_err();
        assert!(e.to_string().contains("machine.node[0].nr_cpus"), "{e}");
    }

    /// `count` makes copies with `{p}` / `{i}` replaced; a leftover index, a forked process
    /// with `count` and an out-of-range count are refused with their place.
    #[test]
    fn count_makes_processes_vmas_and_threads_with_their_index() {
        let text = r#"
format = 1
id = "gen"
title = "gen"
[params.n]
default = 3
min = 0
max = 8
[machine]
tlb_entries = 8
[[machine.node]]
cpus = [0, 1, 2, 3]
mem_pages = 256
[[process]]
name = "w{p}"
count = 2
[[process.vma]]
name = "r{i}"
count = "$n"
pages = 4
[[process.thread]]
count = "$n"
cpu = "{i}"
ops = [ { op = "touch", vma = "r{i}" } ]
"#;
        let s = parse(text, &[]).unwrap();
        assert_eq!(s.processes.len(), 2);
        assert_eq!(s.processes[1].name, "w1");
        let names: Vec<&str> = s.processes[0].vmas.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["r0", "r1", "r2"]);
        let cpus: Vec<_> = s.processes[0].threads.iter().map(|t| t.cpu).collect();
        assert_eq!(cpus, [0, 1, 2]);
        // Thread 2 touches its own VMA.
        assert!(
            matches!(s.processes[0].threads[2].ops[0], Op::Touch { vma: 2, .. }),
            "{:?}",
            s.processes[0].threads[2].ops[0]
        );
        // `n = 0`: no VMAs, no threads.
        let s = parse(text, &[("n".into(), 0)]).unwrap();
        assert!(s.processes[0].vmas.is_empty() && s.processes[0].threads.is_empty());
        // A CPU the machine lacks, from the index: named at the thread's `cpu`.
        let e = parse(text, &[("n".into(), 5)]).unwrap_err();
        assert!(e.to_string().contains("cpu"), "{e}");
        // `{i}` without `count`.
        let e = parse(&text.replacen("count = \"$n\"\npages", "pages", 1), &[]).unwrap_err();
        assert!(
            e.to_string().contains("{i}") && e.line == Some(line_of(text, text.find("name = \"r{i}\"").unwrap() + 8)),
            "{e}"
        );
        // Out of range.
        let e = parse(&text.replacen("count = 2", "count = 5000", 1), &[]).unwrap_err();
        assert!(e.to_string().contains("process[0].count"), "{e}");
    }

    /// A copy's index in a product or quotient: `"{p} / $per"` spreads copies over CPUs
    /// in runs of `per`, and numbers alone may be multiplied (`"{i} * 2"`).
    #[test]
    fn an_index_may_stand_in_an_expression() {
        let text = r#"
format = 1
id = "idx"
title = "idx"
[params.per]
default = 2
min = 1
max = 4
[machine]
[[machine.node]]
cpus = [0, 1, 2, 3, 4, 5, 6, 7]
mem_pages = 64
[[process]]
name = "w{p}"
count = "4 * $per"
[[process.thread]]
cpu = "{p} / $per"
ops = [ { op = "compute", ns = 1 } ]
[[process.thread]]
count = 2
cpu = "{i} * 3"
ops = [ { op = "compute", ns = 1 } ]
"#;
        let s = parse(text, &[]).unwrap();
        let cpus: Vec<_> = s.processes.iter().map(|p| p.threads[0].cpu).collect();
        assert_eq!(cpus, [0, 0, 1, 1, 2, 2, 3, 3]);
        let cpus: Vec<_> = s.processes[0].threads[1..].iter().map(|t| t.cpu).collect();
        assert_eq!(cpus, [0, 3]);
        let s = parse(text, &[("per".into(), 1)]).unwrap();
        let cpus: Vec<_> = s.processes.iter().map(|p| p.threads[0].cpu).collect();
        assert_eq!(cpus, [0, 1, 2, 3]);
        // The schema takes the same texts (editors flag what the parser would refuse).
        let schema = serde_json::json!({ "type": "string", "pattern": PARAM_REF_PATTERN });
        let re = |t: &str| jsonschema::is_valid(&schema, &serde_json::json!(t));
        for ok in ["{p} / $per", "{i} * 3", "4 * $per", "$a", "{p}", "256 / $scale"] {
            assert!(re(ok), "{ok}");
        }
        for bad in ["5", "{q}", "$per /", "{p} +1"] {
            assert!(!re(bad), "{bad}");
        }
    }

    #[test]
    fn a_minimal_scenario_parses_with_defaults() {
        let s = parse(MINI, &[]).unwrap();
        assert_eq!(s.topology.nr_cpus(), 4);
        assert_eq!(s.topology.distance[0][1], 20);
        assert_eq!(s.processes[0].vmas[0].pages, 4);
        assert_eq!(s.knobs.value(crate::mech::core::TLB_SINGLE_PAGE_FLUSH_CEILING), 33);
    }

    #[test]
    fn a_param_override_replaces_the_default() {
        let s = parse(MINI, &[("pages".into(), 8)]).unwrap();
        assert_eq!(s.processes[0].vmas[0].pages, 8);
    }

    #[test]
    fn an_out_of_range_param_override_is_rejected() {
        let e = parse(MINI, &[("pages".into(), 9)]).unwrap_err();
        assert!(e.to_string().contains("9 is out of range 1..=8"), "{e}");
        let e = parse(MINI, &[("nope".into(), 1)]).unwrap_err();
        assert!(e.to_string().contains("no parameter `nope`"), "{e}");
    }

    #[test]
    fn a_bad_cpu_names_its_line_and_field() {
        let text = MINI.replace("cpu = 2", "cpu = 9");
        let e = parse(&text, &[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("process[0].thread[0].cpu"));
        assert_eq!(e.line, Some(text.lines().position(|l| l.contains("cpu = 9")).unwrap() + 1));
        assert!(e.message.contains("CPU 9 does not exist"), "{e}");
    }

    #[test]
    fn an_unknown_field_names_its_line() {
        let text = MINI.replace("tlb_entries = 8", "tlb_entires = 8");
        let e = parse(&text, &[]).unwrap_err();
        assert_eq!(e.line, Some(text.lines().position(|l| l.contains("tlb_entires")).unwrap() + 1));
        assert!(e.message.contains("tlb_entires"), "{e}");
        assert_eq!(e.field.as_deref(), Some("machine.tlb_entires"));
    }

    #[test]
    fn malformed_toml_is_an_error_not_a_panic() {
        for bad in ["", "format = ", "[[[", "format = 1\nid = 3", "\u{0}"] {
            assert!(parse(bad, &[]).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_renamed_toggle_in_the_file_is_read_as_its_successor() {
        // Scenario texts written before `mremap_latency_limit` became `mremap_pmd_extents`
        // (the archive old links open) keep their meaning: on = LATENCY_LIMIT = off now.
        let text = MINI.replace("[[process]]", "[toggles]\nmremap_latency_limit = true\n\n[[process]]");
        let s = parse(
            &format!("{text}\n[[expect]]\nname = \"x\"\nset = {{ mremap_latency_limit = \"off\" }}\ncounter = \"accesses\"\nmin = 0\n"),
            &[],
        )
        .unwrap();
        assert_eq!(s.toggles, vec![("mremap_pmd_extents".to_string(), ToggleValue::Bool(false))]);
        assert_eq!(
            s.expects[0].choice.set,
            vec![("mremap_pmd_extents".to_string(), ToggleValue::Bool(true))]
        );
        let bad = MINI.replace("[[process]]", "[toggles]\nmremap_latency_limit = \"sometimes\"\n\n[[process]]");
        let e = parse(&bad, &[]).unwrap_err();
        assert!(e.message.contains("`mremap_latency_limit` is on/off"), "{e}");
    }

    #[test]
    fn unknown_toggle_in_the_file_is_rejected() {
        let text =
            format!("{MINI}\n[toggles]\nnuma_dealy_map = true\n").replace("[[process]]", "[toggles]\nnuma_dealy_map = true\n[[process]]");
        let e = parse(&text, &[]).unwrap_err();
        assert!(e.message.contains("unknown toggle") || e.message.contains("duplicate"), "{e}");
    }

    #[test]
    fn a_number_may_be_a_product_or_quotient_of_params_and_numbers() {
        let cost = |expr: &str| -> Result<u64, ScenarioError> {
            let s = parse(&format!("{MINI}\n[costs]\ncopy_page_ns = \"{expr}\"\n"), &[("pages".into(), 3)])?;
            Ok(s.costs[crate::mech::migrate::COPY_PAGE_NS])
        };
        assert_eq!(cost("$pages * 16384").unwrap(), 3 * 16384);
        assert_eq!(cost("256 / $pages").unwrap(), 85, "`/` rounds down");
        assert_eq!(cost("$pages*$pages / 2 * 10").unwrap(), 40, "left to right");
        let line = |text: &str| text.lines().position(|l| l.starts_with("copy_page_ns")).map(|i| i + 1);
        for (expr, says) in [
            ("$pages / 0", "divides by zero"),
            ("$pages * x", "term 2 is `x`"),
            ("$pages *", "ends with an operator"),
            ("$pagez * 2", "unknown parameter `$pagez`"),
            ("$pages * 9223372036854775807", "overflows"),
        ] {
            let text = format!("{MINI}\n[costs]\ncopy_page_ns = \"{expr}\"\n");
            let e = parse(&text, &[]).unwrap_err();
            assert!(e.message.contains(says), "{expr}: {e}");
            assert_eq!(e.line, line(&text), "{expr}");
            assert_eq!(e.field.as_deref(), Some("costs.copy_page_ns"));
        }
        // The result is range-checked like a literal.
        let e = parse(&MINI.replace("pages = \"$pages\"", "pages = \"$pages * 1000000000\""), &[]).unwrap_err();
        assert!(e.message.contains("out of range"), "{e}");
    }

    #[test]
    fn an_unknown_param_reference_is_rejected() {
        let text = MINI.replace("\"$pages\"", "\"$pagez\"");
        let e = parse(&text, &[]).unwrap_err();
        assert!(e.message.contains("unknown parameter `$pagez`"), "{e}");
    }

    /// MINI with two chapters and `extra` (questions) after them.
    fn lecture(extra: &str) -> String {
        format!(
            "{MINI}\n[[chapter]]\ntitle = \"Touch\"\nnarration = \"\"\"\nThe heap is on node {{node app.heap}};\napp/0 runs on CPU {{cpu app/0}} (node {{node app/0}}), all of app on {{cpus app}}; a set {{0, 1}}.\n\"\"\"\n\n[[chapter]]\ntitle = \"Scan\"\nprocess = \"app\"\nop = 1\n{extra}"
        )
    }

    #[test]
    fn placeholders_name_threads_and_vmas_and_a_plain_brace_stays_text() {
        let s = parse(&lecture(""), &[]).unwrap();
        let parts = &s.chapters[0].narration.0;
        assert!(matches!(parts[1], TextPart::VmaNode { process: 0, vma: 0, .. }), "{parts:?}");
        assert!(matches!(parts[3], TextPart::Cpu { task: 0, .. }), "{parts:?}");
        assert!(matches!(parts[5], TextPart::Node { task: 0, .. }), "{parts:?}");
        assert!(matches!(parts[7], TextPart::Cpus { process: 0, .. }), "{parts:?}");
        assert!(
            s.chapters[0].narration.raw().contains("a set {0, 1}."),
            "{}",
            s.chapters[0].narration.raw()
        );
        assert!(!s.chapters[1].narration.has_placeholders());
    }

    #[test]
    fn a_bad_placeholder_names_its_line_and_field() {
        let text = lecture("").replace("{cpu app/0}", "{cpux app/0}");
        let e = parse(&text, &[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("chapter[0].narration"));
        assert_eq!(e.line, Some(line_with(&text, "{cpux app/0}")), "{e}");
        assert!(e.message.contains("unknown placeholder `{cpux ...}`"), "{e}");
        for (bad, says) in [
            ("{cpu app/2}", "has 1 thread(s), so no thread 2"),
            ("{cpu db/0}", "no process named `db`"),
            ("{node app.stack}", "has no VMA named `stack`"),
            ("{node heap}", "expected PROCESS/THREAD"),
            ("{cpu app/0", "has no closing `}`"),
        ] {
            let e = parse(&lecture("").replace("{cpu app/0}", bad), &[]).unwrap_err();
            assert!(e.message.contains(says), "{bad}: {e}");
        }
        let e = parse(
            &MINI.replace("title = \"Mini\"", "title = \"Mini\"\ndescription = \"on {cpus ap}\""),
            &[],
        )
        .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("description"));
        assert_eq!(e.line, Some(line_with(MINI, "title = \"Mini\"") + 1));
    }

    #[test]
    fn questions_are_read_and_checked_with_their_line_and_field() {
        let ok = "[[question]]\nchapter = \"Scan\"\nprompt = \"How many PTEs on CPU {cpu app/0}?\"\ncounter = \"numa_pte_updates\"\n\n\
                  [[question]]\nchapter = \"Touch\"\nprompt = \"Which CPUs?\"\nuntil = \"end\"\ncpus_with = \"ipi_recv\"\n\n\
                  [[question]]\nchapter = \"Touch\"\nprompt = \"Flushed?\"\nuntil = \"Scan\"\n\
                  [[question.choice]]\ntext = \"yes\"\nevent = \"ipi_send\"\nmin = 1\n[[question.choice]]\ntext = \"no\"\ncounter = \"nr_tlb_remote_flush\"\neq = 0\n";
        let s = parse(&lecture(ok), &[]).unwrap();
        assert_eq!(s.questions.len(), 3);
        assert_eq!((s.questions[0].chapter, s.questions[0].until), (1, Until::NextChapter));
        assert!(matches!(s.questions[0].kind, QuestionKind::Counter(c) if c.name() == "numa_pte_updates"));
        assert_eq!(s.questions[1].until, Until::End);
        assert!(matches!(s.questions[1].kind, QuestionKind::CpusWith(k) if k.name() == "ipi_recv"));
        assert_eq!(s.questions[2].until, Until::Chapter(1));
        let QuestionKind::Choice(choices) = &s.questions[2].kind else {
            panic!()
        };
        assert!(choices[0].holds(3) && !choices[0].holds(0) && choices[1].holds(0));
        for (from, to, field, says) in [
            (
                "chapter = \"Scan\"",
                "chapter = \"Scanning\"",
                "question[0].chapter",
                "no chapter titled `Scanning` (chapters: `Touch`, `Scan`)",
            ),
            (
                "counter = \"numa_pte_updates\"",
                "counter = \"numa_pte_update\"",
                "question[0].counter",
                "unknown counter `numa_pte_update`",
            ),
            (
                "cpus_with = \"ipi_recv\"",
                "cpus_with = \"ipi_received\"",
                "question[1].cpus_with",
                "unknown event kind `ipi_received`",
            ),
            (
                "until = \"Scan\"",
                "until = \"Touch\"",
                "question[2].until",
                "names the question's own chapter",
            ),
            ("eq = 0\n", "\n", "question[2].choice[1]", "needs `eq`, `min` or `max`"),
            ("event = \"ipi_send\"\n", "\n", "question[2].choice[0]", "exactly one of `counter`"),
            (
                "prompt = \"Which CPUs?\"\n",
                "prompt = \"Which CPUs?\"\ncounter = \"numa_pte_updates\"\n",
                "question[1]",
                "exactly one of `counter`",
            ),
            (
                "prompt = \"How many PTEs on CPU {cpu app/0}?\"",
                "prompt = \"How many PTEs on CPU {cpu app/9}?\"",
                "question[0].prompt",
                "no thread 9",
            ),
        ] {
            let text = lecture(&ok.replacen(from, to, 1));
            let e = parse(&text, &[]).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{to}: {e}");
            assert!(e.message.contains(says), "{to}: {e}");
            assert!(e.line.is_some(), "{to}: {e}");
        }
        let e = parse(
            &lecture(&ok.replacen("chapter = \"Scan\"", "chapter = \"Twice\"", 1))
                .replace("title = \"Scan\"", "title = \"Twice\"\n")
                .replace("title = \"Touch\"", "title = \"Twice\""),
            &[],
        )
        .unwrap_err();
        assert!(e.message.contains("2 chapters are titled `Twice`"), "{e}");
    }

    fn line_with(text: &str, needle: &str) -> usize {
        text.lines().position(|l| l.contains(needle)).unwrap() + 1
    }
}

#[cfg(test)]
mod fork_tests {
    use super::*;

    const FORK: &str = r#"
format = 1
id = "fork"
title = "Fork"

[machine]
[[machine.node]]
cpus = [0, 1, 2, 3]
mem_pages = 64

[[process]]
name = "parent"
[[process.vma]]
name = "heap"
pages = 4
[[process.vma]]
name = "data"
kind = "file"
file = "d.bin"
pages = 2
[[process.thread]]
cpu = 0
ops = [ { op = "touch", vma = "heap", write = true }, { op = "fork", child = "kid" } ]

[[process]]
name = "kid"
forked = true
[[process.thread]]
cpus = [1, 2]
ops = [ { op = "access", vma = "heap", page = 0, write = true } ]
"#;

    fn line_with(text: &str, needle: &str) -> usize {
        text.lines().position(|l| l.contains(needle)).unwrap() + 1
    }

    #[test]
    fn a_forked_child_inherits_the_parents_vmas_and_its_cpus() {
        let s = parse(FORK, &[]).unwrap();
        assert_eq!(s.processes[1].forked_by, Some(0));
        assert_eq!(s.processes[1].vmas.len(), 2);
        assert_eq!(s.processes[1].vmas[1].kind, VmaKind::File);
        assert_eq!(s.processes[1].threads[0].allowed, vec![1, 2]);
        let fork = crate::registry::ops().position(|o| o.name == "fork").unwrap() as u16;
        assert_eq!(
            s.processes[0].threads[0].ops[1],
            Op::Call {
                op: fork,
                args: [1, 0, 0, 0, 0, 0]
            }
        );
    }

    #[test]
    fn an_unknown_child_is_named_with_its_line() {
        let text = FORK.replace("child = \"kid\"", "child = \"kidd\"");
        let e = parse(&text, &[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("process[0].thread[0].ops[1].child"));
        assert_eq!(e.line, Some(line_with(&text, "kidd")));
        assert!(e.message.contains("no process named `kidd`"), "{e}");
    }

    #[test]
    fn a_child_forked_twice_is_refused() {
        let text = FORK.replace(
            "{ op = \"fork\", child = \"kid\" } ]",
            "{ op = \"fork\", child = \"kid\" },\n  { op = \"fork\", child = \"kid\" } ]",
        );
        let e = parse(&text, &[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("process[0].thread[0].ops[2].child"));
        assert!(e.message.contains("already forked"), "{e}");
    }

    #[test]
    fn a_child_must_say_forked_and_must_be_forked() {
        let e = parse(&FORK.replace("forked = true\n", ""), &[]).unwrap_err();
        assert!(e.message.contains("must say `forked = true`"), "{e}");
        let text = FORK.replace(", { op = \"fork\", child = \"kid\" }", "");
        let e = parse(&text, &[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("process[1].forked"));
        assert_eq!(e.line, Some(line_with(&text, "forked = true")));
        assert!(e.message.contains("no `fork` operation names it"), "{e}");
    }

    #[test]
    fn restated_vmas_must_match_the_parents() {
        let text = FORK.replace("forked = true\n", "forked = true\n[[process.vma]]\nname = \"heap\"\npages = 5\n");
        let e = parse(&text, &[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("process[1].vma"));
        assert!(e.message.contains("parent's VMAs"), "{e}");
        let text = FORK.replace(
            "forked = true\n",
            "forked = true\n[[process.vma]]\nname = \"heap\"\npages = 3\n[[process.vma]]\nname = \"data\"\nkind = \"file\"\nfile = \"d.bin\"\npages = 2\n",
        );
        let e = parse(&text, &[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("process[1].vma[0]"));
        assert_eq!(e.line, Some(line_with(&text, "pages = 3") - 1));
        let same = FORK.replace(
            "forked = true\n",
            "forked = true\n[[process.vma]]\nname = \"heap\"\npages = 4\n[[process.vma]]\nname = \"data\"\nkind = \"file\"\nfile = \"d.bin\"\npages = 2\n",
        );
        assert!(parse(&same, &[]).is_ok());
    }

    #[test]
    fn cpu_cpus_and_node_exclude_each_other_and_are_checked() {
        let e = parse(&FORK.replace("cpus = [1, 2]", "cpu = 1\ncpus = [1, 2]"), &[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("process[1].thread[0].cpus"));
        assert!(e.message.contains("at most one of"), "{e}");
        let e = parse(&FORK.replace("cpus = [1, 2]", "cpus = [1, 7]"), &[]).unwrap_err();
        assert!(e.message.contains("CPU 7 does not exist"), "{e}");
        let s = parse(&FORK.replace("cpus = [1, 2]", "node = 0"), &[]).unwrap();
        assert_eq!(s.processes[1].threads[0].allowed, vec![0, 1, 2, 3]);
        let s = parse(&FORK.replace("cpus = [1, 2]", ""), &[]).unwrap();
        assert_eq!(s.processes[1].threads[0].allowed, vec![0, 1, 2, 3]);
    }
}
