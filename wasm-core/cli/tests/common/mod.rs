//! What the CLI's tests share: running the built `mmviz` and reading its JSON.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use serde_json::Value;
use std::process::Command;

/// Runs `mmviz` with `args`: (exit code, stdout, stderr).
pub fn mmviz(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mmviz")).args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Runs `mmviz` with `args`, which must succeed, and parses what it prints.
pub fn json(args: &[&str]) -> Value {
    let (code, out, err) = mmviz(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}
