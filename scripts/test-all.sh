#!/usr/bin/env bash
# Every test, from a fresh machine: set-up, lint, Rust unit/property/scenario tests,
# scenario expectations through the CLI, native-vs-wasm agreement, TypeScript checks,
# Vitest, a production build and the browser end-to-end tests in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export MMVIZ_BIN="${CARGO_TARGET_DIR:-target}/debug/mmviz"
# Each step prints the seconds since the start, so a slow step shows in the CI log.
step() { printf '\n\033[1m== %s\033[0m (at %d s)\n' "$*" "$SECONDS"; }

step "set-up"
bash scripts/setup.sh --browser

step "rustfmt + clippy (native and wasm32)"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p mmviz-engine -p mmviz-wasm --target wasm32-unknown-unknown --locked -- -D warnings

step "cargo test"
cargo test --workspace --locked

step "mmviz check scenarios/"
cargo build -p mmviz-cli --locked
"$MMVIZ_BIN" check scenarios/

step "wasm build"
bash scripts/build-wasm.sh

step "native and wasm agree"
node --test tests/

step "typecheck + lint"
npm run typecheck
npm run lint

step "vitest"
npm run test:unit

step "production build"
npx vite build --config web/vite.config.ts

step "browser end-to-end (headless Chromium)"
npm run test:e2e

step "all tests passed"
