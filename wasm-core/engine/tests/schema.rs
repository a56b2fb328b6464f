//! The JSON Schema of scenario files: the checked-in copy matches the serde types, every
//! scenario in `scenarios/` passes it, and it rejects what the parser rejects for shape.
//!
//! `MMVIZ_BLESS=1 cargo test -p mmviz-engine --test schema` rewrites the checked-in copy.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use jsonschema::Validator;
use mmviz_engine::scenario;
use serde_json::Value;
use std::path::PathBuf;

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn schema_path() -> PathBuf {
    scenarios_dir().join("scenario.schema.json")
}

fn validator() -> Validator {
    let schema: Value = serde_json::from_str(&scenario::json_schema()).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// TOML as the JSON an editor's validator sees.
fn toml_to_json(text: &str) -> Value {
    let value: toml::Value = toml::from_str(text).expect("valid TOML");
    serde_json::to_value(value).expect("TOML converts to JSON")
}

fn schema_errors(validator: &Validator, text: &str) -> Vec<String> {
    let instance = toml_to_json(text);
    validator
        .iter_errors(&instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn the_checked_in_schema_matches_the_serde_types() {
    let want = scenario::json_schema();
    let path = schema_path();
    if std::env::var("MMVIZ_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let line = have
            .lines()
            .zip(want.lines())
            .position(|(h, w)| h != w)
            .map_or_else(|| have.lines().count().min(want.lines().count()) + 1, |i| i + 1);
        panic!(
            "scenarios/scenario.schema.json is out of date with the serde types in wasm-core/engine/src/scenario.rs \
             (first difference at line {line}).\n\
             Run `MMVIZ_BLESS=1 cargo test -p mmviz-engine --test schema` to regenerate it, then review and commit the diff."
        );
    }
}

#[test]
fn the_schema_is_a_valid_draft_07_schema() {
    let schema: Value = serde_json::from_str(&scenario::json_schema()).unwrap();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    jsonschema::meta::validate(&schema).unwrap_or_else(|e| panic!("not a valid schema: {e}"));
}

#[test]
fn every_scenario_file_passes_the_schema() {
    let validator = validator();
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .expect("scenarios/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let errors = schema_errors(&validator, &text);
        assert!(errors.is_empty(), "{}:\n{}", path.display(), errors.join("\n"));
    }
}

/// Small, but touches every table but `[costs]` and a `"$param"` reference.
const MINI: &str = r#"
format = 1
id = "mini"
title = "Mini"
seed = 7

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

[knobs]
numa_balancing = true

[toggles]
numa_delay_map = true

[[process]]
name = "app"
[[process.vma]]
name = "heap"
pages = "$pages"
node = 0
[[process.thread]]
cpu = 2
ops = [ { op = "touch", vma = "heap" }, { op = "scan" } ]

[[chapter]]
title = "Start"

[[expect]]
set = { numa_delay_map = "off" }
counter = "numa_pages_migrated"
min = 0
"#;

#[test]
fn a_scenario_the_parser_accepts_passes_the_schema() {
    scenario::parse(MINI, &[]).expect("MINI parses");
    let errors = schema_errors(&validator(), MINI);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn shape_errors_the_parser_rejects_fail_the_schema_too() {
    let validator = validator();
    let cases = [
        ("a word for a number", MINI.replace("pages = \"$pages\"", "pages = \"many\"")),
        ("an unknown top-level key", format!("colour = \"red\"\n{MINI}")),
        ("an unknown field in a table", MINI.replace("tlb_entries = 8", "tlb_entires = 8")),
        ("a missing required field", MINI.replace("title = \"Mini\"\n", "")),
        ("another format", MINI.replace("format = 1", "format = 2")),
        ("an unknown operation", MINI.replace("op = \"scan\"", "op = \"jump\"")),
        (
            "a field the operation does not take",
            MINI.replace("{ op = \"scan\" }", "{ op = \"scan\", page = 1 }"),
        ),
        (
            "an operation without a field it needs",
            MINI.replace("{ op = \"touch\", vma = \"heap\" }", "{ op = \"touch\" }"),
        ),
        (
            "an unknown knob",
            MINI.replace("numa_balancing = true", "numa_balancing = true\nscan_perod_ms = 5"),
        ),
        ("a number for a toggle", MINI.replace("numa_delay_map = true", "numa_delay_map = 3")),
        ("a float for a count", MINI.replace("mem_pages = 16", "mem_pages = 16.5")),
        (
            "an unknown VMA kind",
            MINI.replace("pages = \"$pages\"", "pages = 4\nkind = \"shm\""),
        ),
    ];
    for (what, text) in cases {
        assert_ne!(text, MINI, "{what}: the replacement did not apply");
        assert!(scenario::parse(&text, &[]).is_err(), "{what}: the parser accepts it");
        assert!(!schema_errors(&validator, &text).is_empty(), "{what}: the schema accepts it");
    }
}

// Against the schema alone: the parser at present rejects every `[costs]` entry, known or
// not, because `#[serde(flatten)]` hands `Spanned` a value without its span.
#[test]
fn the_schema_knows_the_cost_names() {
    let validator = validator();
    let known = MINI.replace("[toggles]", "[costs]\nipi_send_ns = 1000\ndram_local_ns = \"$pages\"\n\n[toggles]");
    let errors = schema_errors(&validator, &known);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let unknown = MINI.replace("[toggles]", "[costs]\nipi_sned_ns = 1000\n\n[toggles]");
    assert!(
        !schema_errors(&validator, &unknown).is_empty(),
        "the schema accepts an unknown cost"
    );
}

/// The defaults the schema advertises are written next to the fields by hand; they must be
/// the ones the parser applies when the field is left out.
#[test]
fn the_schema_defaults_are_the_parsers() {
    let schema: Value = serde_json::from_str(&scenario::json_schema()).unwrap();
    let default = |pointer: &str| -> u64 {
        let field = schema.pointer(pointer).unwrap_or_else(|| panic!("no {pointer} in the schema"));
        field["default"]
            .as_u64()
            .unwrap_or_else(|| panic!("{pointer} has no whole-number default"))
    };
    // Two nodes: NUMA balancing's default applies only with more than one (the knob's doc).
    let text = "format = 1\nid = \"bare\"\ntitle = \"Bare\"\n[machine]\n[[machine.node]]\ncpus = [0]\nmem_pages = 4\n[[machine.node]]\ncpus = [1]\nmem_pages = 4\n";
    let s = scenario::parse(text, &[]).unwrap();
    let knobs = "/definitions/KnobsSpec/properties";
    assert_eq!(default("/properties/seed"), s.seed);
    assert_eq!(
        default("/definitions/MachineSpec/properties/tlb_entries"),
        u64::from(s.topology.tlb_entries)
    );
    assert_eq!(
        default(&format!("{knobs}/tlb_single_page_flush_ceiling")),
        s.knobs.value(mmviz_engine::mech::core::TLB_SINGLE_PAGE_FLUSH_CEILING)
    );
    assert_eq!(
        default(&format!("{knobs}/numa_balancing_scan_size_mb")),
        s.knobs.value(mmviz_engine::mech::numa::SCAN_SIZE_MB)
    );
    assert_eq!(
        default(&format!("{knobs}/max_steps")),
        s.knobs.value(mmviz_engine::mech::core::MAX_STEPS)
    );
    assert_eq!(
        schema.pointer(&format!("{knobs}/numa_balancing/default")),
        Some(&Value::Bool(s.knobs.on(mmviz_engine::mech::numa::NUMA_BALANCING)))
    );
    let costs = scenario::Costs::default();
    assert_eq!(
        default("/definitions/CostsSpec/properties/copy_page_ns"),
        costs[mmviz_engine::mech::migrate::COPY_PAGE_NS]
    );
    assert_eq!(
        default("/definitions/CostsSpec/properties/switch_ns"),
        costs[mmviz_engine::mech::core::SWITCH_NS]
    );
}
