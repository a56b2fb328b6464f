#!/usr/bin/env bash
# One libFuzzer run per target named, one after another (each is single-threaded):
#   bash wasm-core/fuzz/run.sh RUNS TARGET...     e.g. run.sh 1000000 numactl lscpu
# Inputs it finds go to corpus/TARGET (not committed); the committed seeds/TARGET and
# regressions/TARGET are read too. Crashes land in artifacts/TARGET. Each run's last lines
# (runs, seconds, peak RSS) are printed; the whole log is in $LOGDIR (default /tmp).
set -u
cd "$(dirname "$0")"
runs=$1; shift
logdir=${LOGDIR:-/tmp}
for t in "$@"; do
  mkdir -p "corpus/$t" "regressions/$t"
  log="$logdir/fuzz-$t.log"
  start=$(date -u +%FT%TZ)
  cargo +nightly fuzz run --fuzz-dir . -s none "$t" "corpus/$t" "seeds/$t" "regressions/$t" -- \
    -runs="$runs" -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 -timeout=10 -print_final_stats=1 >"$log" 2>&1
  rc=$?
  echo "$t: rc=$rc started=$start ended=$(date -u +%FT%TZ)"
  grep -E "^Done|stat::number_of_executed_units|stat::peak_rss_mb|panicked|ERROR|SUMMARY" "$log" | head -8
done
