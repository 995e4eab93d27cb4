#!/usr/bin/env bash
# Runs a libFuzzer target for a fixed number of executions over its seed
# corpus, which it only reads (new inputs go to a temporary folder), and
# prints the executions, the coverage and any crash.
#
#   run_fuzzer.sh FUZZER CORPUS_DIR RUNS
#
# The mutations come from FUZZ_SEED (1 unless set): runs start alike
# (coverage that GLib's own state moves can still steer them apart); set
# another seed to explore further. An input that fails is printed in
# base64, since the folder it was written to is removed.
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
seed=${FUZZ_SEED:-1}
"$fuzzer" -seed="$seed" -runs="$runs" -max_len=65536 -timeout=10 \
  -print_final_stats=1 "$work" "$corpus" > log 2>&1
rc=$?
echo "seed $seed"
grep -E "stat::number_of_executed_units|cov: |ERROR|SUMMARY|crash-" log | tail -n 6
for f in crash-* leak-* oom-* timeout-* slow-unit-*; do
  [ -f "$f" ] || continue
  echo "$f ($(stat -c %s "$f") bytes), base64:"
  base64 "$f" | head -c 100000
done
exit $rc
