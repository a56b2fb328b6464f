#!/usr/bin/env bash
# Sets up what is missing, builds the engine for the browser and serves the lab at
# http://localhost:5173 (Vite). Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-wasm.sh
exec npx vite --config web/vite.config.ts --host 127.0.0.1 --port "${PORT:-5173}"
