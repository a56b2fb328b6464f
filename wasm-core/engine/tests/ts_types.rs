//! The TypeScript declarations of the views the UI reads (`web/src/engine/generated/`) are
//! generated from the Rust types with ts-rs; this test regenerates them into a temporary
//! directory and fails when the checked-in files differ (a field renamed, added, retyped).
//!
//! `MMVIZ_BLESS=1 cargo test -p mmviz-engine --test ts_types` rewrites the checked-in copy.
//!
//! Not generated: a frame's bulk arrays (`FrameBulk`), typed arrays the wasm layer makes;
//! their TypeScript is written by hand in `web/src/engine/bulk.ts`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::patches::ToggleValue;
use mmviz_engine::view::{
    BuiltinView, CodeView, EventView, FrameHeader, FrameWindow, IpiView, MechanismView, PatchView, SeriesView, SummaryView,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use ts_rs::{Config, TS};

const BLESS: &str = "MMVIZ_BLESS=1 cargo test -p mmviz-engine --test ts_types";

fn generated_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web/src/engine/generated")
}

/// The generated files, name -> text: every root type the UI reads and what it refers to.
fn generate() -> BTreeMap<String, String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ts_types-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // serde-wasm-bindgen sends 64-bit integers as JS numbers (wasm-core/wasm: `to_js`).
    let cfg = Config::new().with_large_int("number").with_out_dir(&dir);
    SummaryView::export_all(&cfg).unwrap();
    EventView::export_all(&cfg).unwrap();
    PatchView::export_all(&cfg).unwrap();
    MechanismView::export_all(&cfg).unwrap();
    ToggleValue::export_all(&cfg).unwrap();
    SeriesView::export_all(&cfg).unwrap();
    BuiltinView::export_all(&cfg).unwrap();
    IpiView::export_all(&cfg).unwrap();
    CodeView::export_all(&cfg).unwrap();
    mmviz_engine::diverge::Divergence::export_all(&cfg).unwrap();
    mmviz_engine::explore::ExploreReport::export_all(&cfg).unwrap();
    // A frame's header (with CpuView and BulkWindow) and the window a frame call takes.
    FrameHeader::export_all(&cfg).unwrap();
    FrameWindow::export_all(&cfg).unwrap();
    // Mechanism panels' state snapshots (`ViewDef::state`, `FrameHeader::views`), one line each.
    mmviz_engine::mech::page_alloc_view::PcpView::export_all(&cfg).unwrap();
    mmviz_engine::mech::mremap::MremapView::export_all(&cfg).unwrap();
    mmviz_engine::mech::numa_view::NumaView::export_all(&cfg).unwrap();
    // A sweep: what the lab asks, the plan or the problem, and the report (`mmviz sweep --json`).
    mmviz_engine::run::sweep::SweepRequest::export_all(&cfg).unwrap();
    mmviz_engine::run::sweep::SweepPlan::export_all(&cfg).unwrap();
    mmviz_engine::run::sweep::SweepProblem::export_all(&cfg).unwrap();
    mmviz_engine::run::sweep::SweepReport::export_all(&cfg).unwrap();
    let files = read_ts(&dir)
        .into_iter()
        .map(|(name, text)| {
            let header = format!("// Generated from wasm-core/engine (ts-rs); do not edit. Regenerate: {BLESS}\n");
            (name, format!("{header}{text}"))
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    files
}

/// Every `.ts` file directly in `dir`, name -> text.
fn read_ts(dir: &Path) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ts"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn the_checked_in_typescript_matches_the_rust_views() {
    let want = generate();
    for root in ["SummaryView.ts", "FrameHeader.ts", "CpuView.ts", "BulkWindow.ts", "FrameWindow.ts"] {
        assert!(want.contains_key(root), "ts-rs wrote {:?}", want.keys());
    }
    let dir = generated_dir();
    if std::env::var("MMVIZ_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).unwrap();
        for name in read_ts(&dir).keys() {
            std::fs::remove_file(dir.join(name)).unwrap();
        }
        for (name, text) in &want {
            std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("cannot write {name}: {e}"));
        }
        return;
    }
    let have = read_ts(&dir);
    let mut drift = Vec::new();
    for (name, text) in &want {
        match have.get(name) {
            None => drift.push(format!("web/src/engine/generated/{name} is missing")),
            Some(h) if h != text => {
                let line = h
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .map_or_else(|| h.lines().count().min(text.lines().count()) + 1, |i| i + 1);
                drift.push(format!(
                    "web/src/engine/generated/{name} differs from the Rust types (first difference at line {line})"
                ));
            }
            Some(_) => {}
        }
    }
    for name in have.keys().filter(|n| !want.contains_key(*n)) {
        drift.push(format!("web/src/engine/generated/{name} is no longer generated"));
    }
    assert!(
        drift.is_empty(),
        "the TypeScript views are out of date with wasm-core/engine/src/view.rs and patches.rs:\n  {}\n\
         Run `{BLESS}` to regenerate them, then review and commit the diff (and `npm run typecheck`).",
        drift.join("\n  ")
    );
}
