#!/usr/bin/env bash
# Runs a libFuzzer target for a fixed number of executions over its seed
# corpus, which it only reads (new inputs go to a temporary folder), and
# prints the executions, the coverage and any crash.
#
#   run_fuzzer.sh FUZZER CORPUS_DIR RUNS
set -u
fuzzer=$(realpath "$1") corpus=$(realpath "$2") runs=$3
# GLib's one-time allocations are not findings (the same list as the
# sanitizer build's)
export LSAN_OPTIONS=suppressions=$(realpath "$(dirname "$0")/../sanitizers/lsan.supp")
# full stacks on allocation, so that the suppressions match
export ASAN_OPTIONS=fast_unwind_on_malloc=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$fuzzer" -runs="$runs" -max_len=65536 -timeout=10 -print_final_stats=1 \
  "$work" "$corpus" > log 2>&1
rc=$?
grep -E "stat::number_of_executed_units|cov: |ERROR|SUMMARY|crash-" log | tail -n 6
exit $rc
