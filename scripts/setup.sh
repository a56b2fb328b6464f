#!/usr/bin/env bash
# Installs what this project needs and a fresh machine lacks. Safe to run again:
# every step checks first and does nothing when the tool is already there.
#   bash scripts/setup.sh            Rust wasm target, pinned wasm-bindgen CLI, npm packages
#   bash scripts/setup.sh --browser  also Debian's Chromium for the end-to-end tests
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; else
    echo "setup: Rust is missing; install it with rustup (https://rustup.rs) and run again" >&2; exit 2; fi
fi

# Debian's Chromium (for the browser tests) downloads while the Rust tools compile: it is
# started first, in the background, and waited for at the end.
browser_pid=""
browser_log=""
if [ "${1:-}" = "--browser" ] && [ ! -x /usr/bin/chromium ]; then
  say "installing Debian's Chromium for the browser tests (in the background)"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  browser_log=$(mktemp)
  ( $sudo apt-get update && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium ) >"$browser_log" 2>&1 &
  browser_pid=$!
fi

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The CLI must match the wasm-bindgen crate in Cargo.lock exactly.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (a few minutes, once)"
  # Not --locked: the registry lacks one of the CLI's pinned dependencies.
  cargo install wasm-bindgen-cli --version "$want"
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund
fi

if [ -n "$browser_pid" ]; then
  if ! wait "$browser_pid"; then
    cat "$browser_log" >&2
    echo "setup: installing Chromium failed (its apt-get output is above)" >&2
    exit 1
  fi
  say "Chromium installed"
fi
say "ready"
