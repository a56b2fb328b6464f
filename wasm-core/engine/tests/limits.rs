//! The limits (`src/limits.rs`) are read by the lab from `web/src/base/limits.generated.ts` and
//! by people from the table in the root README.md ("Limits"); this test generates both from the
//! Rust constants and fails when a checked-in copy differs. `MMVIZ_BLESS=1 cargo test -p
//! mmviz-engine --test limits` rewrites them.

use mmviz_engine::limits::{group, LIMITS};
use std::path::PathBuf;

const BLESS: &str = "MMVIZ_BLESS=1 cargo test -p mmviz-engine --test limits";
const BEGIN: &str = "<!-- limits: generated from wasm-core/engine/src/limits.rs -->";
const END: &str = "<!-- limits: end -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn typescript() -> String {
    let mut out = format!(
        "// Generated from wasm-core/engine/src/limits.rs; do not edit. Regenerate: {BLESS}\n\
         // The engine's documented maxima, read by the lab's link decoder and paste boxes.\n\n"
    );
    for l in LIMITS {
        out += &format!(
            "/** {} ({}). */\nexport const {} = {};\n",
            l.what,
            l.field.replace('`', ""),
            l.name,
            l.value
        );
    }
    out
}

fn table() -> String {
    let mut out = format!("{BEGIN}\n| limit | at most | what | where |\n|---|---|---|---|\n");
    for l in LIMITS {
        out += &format!("| `{}` | {} | {} | {} |\n", l.name, group(l.value), l.what, l.field);
    }
    out + END
}

fn bless() -> bool {
    std::env::var("MMVIZ_BLESS").is_ok_and(|v| v == "1")
}

#[test]
fn the_lab_reads_the_engine_limits() {
    let path = root().join("web/src/base/limits.generated.ts");
    let want = typescript();
    if bless() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "web/src/base/limits.generated.ts differs from src/limits.rs: run `{BLESS}` and commit it"
    );
}

#[test]
fn the_readme_table_is_the_engine_limits() {
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (Some(a), Some(b)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("README.md has no limits table between `{BEGIN}` and `{END}`");
    };
    let have = &readme[a..b + END.len()];
    let want = table();
    if bless() {
        std::fs::write(&path, readme.replace(have, &want)).unwrap();
        return;
    }
    assert!(
        have == want,
        "README.md's limits table differs from src/limits.rs: run `{BLESS}` and commit it"
    );
}

#[test]
fn every_limit_is_enforced_with_a_message_naming_field_and_limit() {
    use mmviz_engine::limits::*;
    use mmviz_engine::scenario::parse;
    let machine = |cpus: &str, pages: u64| {
        format!(
            "format = 1\nid = \"l\"\ntitle = \"l\"\n[[machine.node]]\ncpus = {cpus}\nmem_pages = {pages}\n\
             [[process]]\nname = \"p\"\n[[process.vma]]\nname = \"h\"\npages = 4\n[[process.thread]]\ncpu = 0\n\
             ops = [{{ op = \"access\", vma = \"h\", page = 0 }}]\n"
        )
    };
    let msg = |t: &str| parse(t, &[]).map(|_| ()).unwrap_err().to_string();
    assert!(parse(&machine("[0]", 64), &[]).is_ok());
    let e = msg(&machine(&format!("[0, {MAX_CPUS}]"), 64));
    assert!(
        e.contains("machine.node[0].cpus") && e.contains(&format!("up to {MAX_CPUS} CPUs")),
        "{e}"
    );
    let e = msg(&machine("[0]", u64::from(MAX_PAGES) + 1));
    assert!(e.contains("machine.node[0].mem_pages") && e.contains(&MAX_PAGES.to_string()), "{e}");
    let nodes: String = (0..=MAX_NODES)
        .map(|i| format!("[[machine.node]]\ncpus = [{i}]\nmem_pages = 4\n"))
        .collect();
    let e = msg(&machine("[999]", 4).replacen("[[machine.node]]\ncpus = [999]\nmem_pages = 4\n", &nodes, 1));
    assert!(e.contains("machine.node") && e.contains(&format!("1 to {MAX_NODES} nodes")), "{e}");
    let e = msg(&format!("{}[knobs]\nmax_steps = {}\n", machine("[0]", 64), MAX_STEPS + 1));
    assert!(e.contains("max_steps") && e.contains(&MAX_STEPS.to_string()), "{e}");
    let big = format!("{}# {}\n", machine("[0]", 64), "x".repeat(MAX_SCENARIO_BYTES));
    let e = msg(&big);
    assert!(e.contains("scenario text") && e.contains(&group(MAX_SCENARIO_BYTES as u64)), "{e}");
    let e = mmviz_engine::vmstat::parse(&"nr_free_pages 1\n".repeat(MAX_PASTE_BYTES / 10))
        .unwrap_err()
        .to_string();
    assert!(e.contains("/proc/vmstat") && e.contains(&group(MAX_PASTE_BYTES as u64)), "{e}");
}
