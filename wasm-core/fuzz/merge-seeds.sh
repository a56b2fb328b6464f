#!/usr/bin/env bash
# Rewrites seeds/TARGET (committed) as the smallest set of inputs of corpus/TARGET (a long run's)
# and seeds-raw/TARGET (make-seeds.py) up to a size per target that covers every edge those
# inputs cover (libFuzzer's set cover, hit counts ignored), so the committed corpus stays a few
# hundred KB. Needs the targets built (`cargo +nightly fuzz build --fuzz-dir . -s none`).
set -eu
cd "$(dirname "$0")"
bin="${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release"
# target:largest input kept, in bytes
for spec in scenario:1500 link:1024 numactl:1024 lscpu:4096 zoneinfo:2048 vmstat:4096; do
  t=${spec%%:*}
  max=${spec##*:}
  small=$(mktemp -d)
  find "corpus/$t" "seeds-raw/$t" -type f -size -$((max + 1))c -exec cp {} "$small/" \; 2>/dev/null || true
  rm -rf "seeds/$t"
  mkdir -p "seeds/$t"
  "$bin/$t" -set_cover_merge=1 -use_counters=0 -rss_limit_mb=2048 -max_len=65536 "seeds/$t" "$small" 2>"$small.log" >/dev/null
  echo "$t: $(ls "seeds/$t" | wc -l) inputs, $(cat "seeds/$t"/* | wc -c) bytes ($(grep -o '[0-9]* new coverage edges' "$small.log"))"
  rm -rf "$small" "$small.log"
done
