#!/usr/bin/env bash
# The GPU suite in one command: the CUDA kernel tests, the element tests on
# the GPU, the kernel and pipeline benchmarks, then one summary table.
#
#   tests/gpu/run-gpu-suite.sh [--sanitize] [RUNTIME_DIR]
#
# --sanitize: only compute-sanitizer's four tools over the element tests on
# the GPU and a pipeline per element and memory type (tests/gpu/sanitize.sh).
#
# Binaries come from RUNTIME_DIR when given: a self-contained folder with
# env.sh, bin/ (the test and benchmark programs, gst-launch-1.0, ...) and
# plugins/ (this plugin and the stock ones the tests use, h264parse's
# videoparsersbad among them for the decoder pipelines), for a GPU machine
# without GStreamer. Otherwise from build/, with the system's GStreamer.
# Logs go to /tmp/gpu-suite; when $OUT names a folder, they are also packed
# there as gpu-suite-logs.tar.gz. Exit status: 0 when every test passed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
logs=/tmp/gpu-suite
rm -rf "$logs"
mkdir -p "$logs"

sanitize=0
if [ "${1:-}" = --sanitize ]; then
  sanitize=1
  shift
fi

if [ $# -gt 0 ]; then
  # shellcheck disable=SC1091
  source "$1/env.sh"
  bin() { command -v "$1"; }
else
  export GST_PLUGIN_PATH_1_0="$root/build/plugin"
  bin() { find "$root/build/tests" -maxdepth 1 -name "$1" -type f; }
fi
export CK_FORK=no
export CF_TEST_SEED=${CF_TEST_SEED:-$(date +%s)}

if [ $sanitize = 1 ]; then
  bash "$root/tests/gpu/sanitize.sh"
  exit $?
fi

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
  --format=csv,noheader 2>&1 | sed 's/^/GPU: /'

names=() results=() times=() lines=()
failed=0

# GPU_SUITE_ONLY / GPU_SUITE_SKIP: extended regular expressions of the
# names to run / to leave out (to split the suite over several sessions).
wanted() {
  [[ -z "${GPU_SUITE_ONLY:-}" || $1 =~ ^(${GPU_SUITE_ONLY})$ ]] &&
    [[ -z "${GPU_SUITE_SKIP:-}" || ! $1 =~ ^(${GPU_SUITE_SKIP})$ ]]
}

# run NAME KIND PROGRAM [ARGS...]: KIND is test (must pass or skip) or bench
run() {
  local name=$1 kind=$2 prog=$3; shift 3
  wanted "$name" || return 0
  local exe; exe=$(bin "$prog")
  local log="$logs/$name.log" t0 t1 rc result
  echo "== $name: $prog $*"
  if [ -z "$exe" ]; then
    result=MISSING; rc=127; echo "$prog not found" > "$log"
  else
    t0=$(date +%s.%N)
    "$exe" "$@" > "$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    case $rc in
      0) result=PASS ;;
      77) result=SKIP ;;
      *) result=FAIL ;;
    esac
  fi
  [ "$kind" = test ] && [ "$result" != PASS ] && failed=1
  [ "$kind" = bench ] && [ "$result" = FAIL ] && failed=1
  grep -E "^FAIL|: [0-9]+ passed|Checks:|SKIP|error" "$log" | head -n 12
  names+=("$name") results+=("$result")
  times+=("$(awk -v a="${t0:-0}" -v b="${t1:-0}" 'BEGIN{printf "%.1f", b-a}')")
  lines+=("$(grep -E ': [0-9]+ passed, [0-9]+ failed|[0-9]+%: Checks' "$log" | tail -n 1)")
}

run conv2d-cuda test test_conv2d cuda
run conv2d-cpu test test_conv2d cpu
run conv2d-long-cuda test test_conv2d_long cuda
run conv2d-long-cpu test test_conv2d_long cpu
run conv2d-spectral-cuda test test_conv2d_spectral cuda
run conv2d-spectral-cpu test test_conv2d_spectral cpu
run cudaconv2d test test_cudaconv2d
run cudaconv2d-gpu test test_cudaconv2d --gpu
run reduce-cuda test test_reduce cuda
run integral-cuda test test_integral cuda
run boxmean-cuda test test_boxmean cuda
run audio-convert-cuda test test_audio_convert cuda
run scan-cuda test test_scan cuda
run scan-cpu test test_scan cpu
run conv1d-cuda test test_conv1d cuda
run conv1d-cpu test test_conv1d cpu
run cudaconv1d test test_cudaconv1d
run cudaconv1d-gpu test test_cudaconv1d --gpu
run cudaconv1d-matrix-gpu test test_cudaconv1d_matrix --gpu
run cudaconv1d-change-gpu test test_cudaconv1d_change --gpu
run cudaprefixsum test test_cudaprefixsum
run cudaprefixsum-gpu test test_cudaprefixsum --gpu
run level test test_cudaprefixsum_level
run level-gpu test test_cudaprefixsum_level --gpu
run loudness-cuda test test_loudness cuda
run cudaprefixsum-loudness-gpu test test_cudaprefixsum_loudness --gpu
run loudness-launch-gpu test bash "$root/tests/pipelines/test_loudness_launch.sh" cuda
run matrix-launch-gpu test bash "$root/tests/pipelines/test_matrix_launch.sh" cuda
run cudamemory test test_cudamemory "$root/tests/media"
# GStreamer 1.24+ only (not built against 1.22: MISSING there is expected)
[ -n "$(bin test_cudastreams)" ] &&
  run cudastreams test test_cudastreams "$root/tests/media"
run build-check test test_build_check
CF_FAULT=image:1 run build-mismatch-image test test_build_mismatch image
run faults test test_faults
run flush-clear test test_flush_clear
# lifecycle and threads: contexts left as found, properties, caps and
# state changed from the application's thread, tee branches, pinning
run lifecycle-gpu test test_lifecycle --gpu
run stress-gpu test test_stress --gpu
run pin test test_pin
run bad-inputs-gpu test test_bad_inputs cuda
if wanted cuda-pipelines; then
  echo "== cuda-pipelines: gst-launch-1.0 pipelines in CUDA memory"
  bash "$root/tests/gpu/cuda-pipelines.sh" "$root/tests/media" \
    > "$logs/cuda-pipelines.log" 2>&1
  rc=$?
  result=$([ $rc = 0 ] && echo PASS || ([ $rc = 77 ] && echo SKIP || echo FAIL))
  [ "$result" != PASS ] && failed=1
  grep -E "^FAIL|SKIP" "$logs/cuda-pipelines.log"
  names+=(cuda-pipelines) results+=("$result") times+=(-)
  lines+=("$(tail -n 1 "$logs/cuda-pipelines.log")")
fi
run bench-cudamemory bench bench_cudamemory
run bench-conv2d bench bench_conv2d
run bench-conv2d-long bench bench_conv2d_long --quick
run bench-conv1d bench bench_conv1d
run bench-scan bench bench_scan
run bench-integral bench bench_integral
run bench-audio bench bench_audio
run bench-matrix bench bench_matrix
run bench-change bench bench_change --quick
run bench-streams bench bench_streams --quick
wanted peer-conv1d &&
  python3 "$root/tests/bench/conv1d/peer_conv1d.py" > "$logs/peer-conv1d.log" 2>&1

# Hardware counters of each variant: how much global traffic tiling saves.
if wanted tiling && command -v ncu >/dev/null && [ -n "$(bin profile_conv2d)" ]; then
  echo "== tiling: profiling every variant once"
  ncu --clock-control none --csv --log-file "$logs/profile-ncu.csv" \
    --metrics l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum \
    "$(bin profile_conv2d)" > "$logs/profile-launches.csv" 2>&1
  python3 "$root/tests/gpu/tiling_report.py" "$logs/profile-launches.csv" \
    "$logs/profile-ncu.csv" > "$logs/tiling.log" 2>&1
  if [ -n "$(bin profile_conv1d)" ]; then
    ncu --clock-control none --csv --log-file "$logs/profile1d-ncu.csv" \
      --metrics l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum \
      "$(bin profile_conv1d)" > "$logs/profile1d-launches.csv" 2>&1
    python3 "$root/tests/gpu/tiling_report.py" "$logs/profile1d-launches.csv" \
      "$logs/profile1d-ncu.csv" 384000 4 "conv1d tiling report (8 ch x \
48000 frames, global loads in samples per output)" >> "$logs/tiling.log" 2>&1
  fi
fi
run bench-pipeline bench bench_pipeline

echo
echo "== benchmark summaries"
sed -n '/CUDA memory summary/,$p' "$logs/bench-cudamemory.log" 2>/dev/null
sed -n '/conv2d kernel summary/,$p' "$logs/bench-conv2d.log" 2>/dev/null
cat "$logs/bench-conv2d-long.log" 2>/dev/null
sed -n "/pipeline summary/,\$p" "$logs/bench-pipeline.log" 2>/dev/null
sed -n '/conv1d kernel summary/,$p' "$logs/bench-conv1d.log" 2>/dev/null
sed -n '/^floor/p;/scan summary/,$p' "$logs/bench-scan.log" 2>/dev/null
sed -n '/integral summary/,$p' "$logs/bench-integral.log" 2>/dev/null
cat "$logs/peer-conv1d.log" 2>/dev/null
sed -n '/audio pipeline summary/,$p' "$logs/bench-audio.log" 2>/dev/null
cat "$logs/bench-matrix.log" 2>/dev/null
cat "$logs/bench-change.log" 2>/dev/null
cat "$logs/bench-streams.log" 2>/dev/null
cat "$logs/tiling.log" 2>/dev/null
echo
echo "== GPU suite (seed $CF_TEST_SEED, logs in $logs)"
printf '%-16s %-8s %8s  %s\n' name result seconds detail
for i in "${!names[@]}"; do
  printf '%-16s %-8s %8s  %s\n' "${names[$i]}" "${results[$i]}" \
    "${times[$i]}" "${lines[$i]}"
done
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  tar czf "$OUT/gpu-suite-logs.tar.gz" -C "$(dirname "$logs")" \
    "$(basename "$logs")"
fi
exit $failed
