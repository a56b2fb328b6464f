#!/usr/bin/env bash
# Builds the engine for the browser: wasm32 release build, then wasm-bindgen
# (--target web) into web/src/wasm-pkg/. Needs the wasm32 target and the
# wasm-bindgen CLI of the version pinned in Cargo.lock (scripts/setup.sh installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${MMVIZ_WASM_PROFILE:-release-wasm}"
cargo build -p mmviz-wasm --target wasm32-unknown-unknown --profile "$profile"
out=web/src/wasm-pkg
rm -rf "$out"
wasm-bindgen --target web --out-dir "$out" --out-name mmviz "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$profile/mmviz_wasm.wasm"
echo "wasm package written to $out ($(du -h "$out/mmviz_bg.wasm" | cut -f1))"
