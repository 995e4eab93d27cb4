#!/usr/bin/env bash
# compute-sanitizer over the element tests on the GPU and a pipeline per
# element and memory type, with each tool: memcheck (out-of-bounds and
# misaligned device accesses, leaks of device memory), racecheck
# (shared-memory hazards), initcheck (reads of device memory nobody wrote,
# and copies of it) and synccheck (barriers). Runs go SANITIZE_JOBS
# (default 8) at a time, each at most SANITIZE_TIMEOUT seconds (default
# 540). Prints one line per run and a last line with the count of runs
# that reported errors; exits with that count. SANITIZE_ONLY (a regular
# expression) keeps the runs whose names match.
#
#   tests/gpu/sanitize.sh [TOOL...]      (default: all four)
set -u
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck initcheck synccheck)
command -v compute-sanitizer >/dev/null || { echo "SKIP: no compute-sanitizer"; exit 77; }
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp}/sanitize
mkdir -p "$out"
bad=0 runs=0
jobs=${SANITIZE_JOBS:-8}
export CK_FORK=no
# Modules loaded as the process starts, not at each kernel's first launch:
# test_gpu_many_instances run alone starts 16 filters on 16 threads at
# once, and lazy loading under the sanitizers made it run past 60 s
# (memcheck; 1 s with no sanitizer); loaded eagerly it took 3 s.
export CUDA_MODULE_LOADING=EAGER

# a test program from PATH (a packed runtime) or from build/tests
program() { command -v "$1" 2>/dev/null || echo "$root/build/tests/$1"; }

# name, then the command: the element tests on the GPU and the box means'
# unit test, whose frames take every tile shape of the pixel-word kernels
# (not test_cudamemory, whose copy counting uses CUPTI as the sanitizer
# does, nor test_faults, whose errors are on purpose)
tests=(
  "test-cudaconv2d|$(program test_cudaconv2d) --gpu"
  "test-cudaprefixsum|$(program test_cudaprefixsum) --gpu"
  "test-level|$(program test_cudaprefixsum_level) --gpu"
  "test-bad-inputs|$(program test_bad_inputs) cuda"
  "test-boxmean|$(program test_boxmean) cuda"
)

# test_cudaconv1d --gpu whole, and under racecheck (where whole it runs
# past 560 s) one test at a time instead (GST_CHECKS picks it), side by side
tests+=("test-cudaconv1d|$(program test_cudaconv1d) --gpu")
for check in matches_cpu algorithms long_response precision many_instances \
    overlap overlap_exact bad_device; do
  tests+=("test-cudaconv1d-${check//_/-}|env GST_CHECKS=test_gpu_$check $(program test_cudaconv1d) --gpu")
done

# name, then the gst-launch-1.0 arguments
pipelines=(
  "conv2d-rgba-system|videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=333,height=97 ! cudaconv2d backend=cuda preset=gaussian size=9 ! fakesink"
  "conv2d-gray16-separable|videotestsrc num-buffers=3 ! video/x-raw,format=GRAY16_LE,width=129,height=67 ! cudaconv2d backend=cuda preset=gaussian size=15 border=mirror ! fakesink"
  "conv2d-nv12-cuda-chain|videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=320,height=180 ! cudaupload ! cudaconv2d backend=cuda kernel=\"1 2 3; 4 5 6; 7 8 9\" planes=all border=wrap ! cudaconv2d backend=cuda preset=sobel ! cudadownload ! fakesink"
  "conv2d-argb-integer-taps|videotestsrc num-buffers=3 ! video/x-raw,format=ARGB,width=333,height=97 ! cudaconv2d backend=cuda kernel=\"0 1 -2 1 0; 1 -3 5 -3 1; -2 5 -80 5 -2; 1 -3 5 -3 1; 0 1 -2 1 0\" divisor=-50 ! fakesink"
  "conv2d-bgrx-unsharp-tensor-cores|videotestsrc num-buffers=3 ! video/x-raw,format=BGRx,width=333,height=97 ! cudaconv2d backend=cuda preset=unsharp size=15 sigma=3 border=constant ! fakesink"
  "conv2d-rgba-7x7-tensor-cores|videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=1921,height=1081 ! cudaconv2d backend=cuda preset=unsharp size=7 sigma=1.5 border=mirror ! fakesink"
  "conv2d-gray8-4k-sobel|videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,width=3840,height=2160 ! cudaconv2d backend=cuda preset=sobel ! fakesink"
  "prefixsum-gray8-threshold|videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=331,height=97 ! cudaprefixsum backend=cuda output=adaptive-threshold ! fakesink"
  "prefixsum-rgba-meta-grid|videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=201,height=67 ! cudaupload ! cudaprefixsum backend=cuda grid-columns=3 grid-rows=2 ! cudaprefixsum backend=cuda output=box-mean radius=5 ! cudadownload ! fakesink"
  "prefixsum-argb-box-no-tables|videotestsrc num-buffers=3 ! video/x-raw,format=ARGB,width=333,height=97 ! cudaprefixsum backend=cuda output=box-mean radius=16 ! fakesink"
  "prefixsum-rgba-box-1080p-cuda-radius-5|videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=1920,height=1080 ! cudaupload ! cudaprefixsum backend=cuda output=box-mean radius=5 ! cudadownload ! fakesink"
  "prefixsum-rgba-box-radius-1|videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=332,height=97 ! cudaprefixsum backend=cuda output=box-mean radius=1 ! fakesink"
  "prefixsum-bgrx-threshold-radius-3|videotestsrc num-buffers=3 ! video/x-raw,format=BGRx,width=320,height=99 ! cudaprefixsum backend=cuda output=adaptive-threshold radius=3 ! fakesink"
  "prefixsum-audio-level|audiotestsrc num-buffers=20 ! audio/x-raw,format=S16LE,channels=3,rate=44100 ! cudaprefixsum backend=cuda ! fakesink"
  "conv1d-direct|audiotestsrc num-buffers=20 ! audio/x-raw,format=F32LE,channels=2,rate=48000 ! cudaconv1d backend=cuda preset=low-pass taps=255 ! fakesink"
  "conv1d-fft|audiotestsrc num-buffers=20 samplesperbuffer=1024 ! audio/x-raw,format=F32LE,channels=2,rate=48000 ! cudaconv1d backend=cuda preset=low-pass taps=16383 ! fakesink"
)

# one run: TOOL NAME COMMAND...; its verdict goes to $out/TOOL-NAME.result
sanitize_one() {
  local tool=$1 name=$2 log="$out/$1-$2.log" rc summary
  shift 2
  eval "timeout ${SANITIZE_TIMEOUT:-540} compute-sanitizer --tool $tool --error-exitcode 9 \
    --leak-check full $*" > "$log" 2>&1
  rc=$?
  summary=$(grep -m1 -E "(ERROR|RACECHECK) SUMMARY" "$log")
  # a test run that ran no check (a GST_CHECKS name that matches none)
  # proves nothing
  if [ $rc = 0 ] && grep -q "Checks: 0," "$log"; then
    rc=1 summary="no check ran"
  fi
  if [ $rc != 0 ]; then
    echo "FAIL $tool $name: exit $rc, ${summary:-no summary}"
    grep -m3 -E "^========= (Invalid|Uninitialized|Race|Barrier|Leaked|Error|Program hit)|^FAIL" "$log"
  else
    echo "PASS $tool $name: ${summary:-no summary}"
  fi > "$out/$tool-$name.result"
}

# the pipelines as commands, beside the tests
for p in "${pipelines[@]}"; do
  tests+=("${p%%|*}|gst-launch-1.0 -q ${p#*|}")
done

rm -f "$out"/*.result
for tool in "${tools[@]}"; do
  for entry in "${tests[@]}"; do
    name=${entry%%|*}
    [[ "$name" =~ ${SANITIZE_ONLY:-.} ]] || continue
    case $tool:$name in
      racecheck:test-cudaconv1d) continue ;;
      racecheck:*) ;;
      *:test-cudaconv1d-*) continue ;;
    esac
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    sanitize_one "$tool" "${entry%%|*}" "${entry#*|}" &
    runs=$((runs + 1))
  done
done
wait
for result in "$out"/*.result; do
  cat "$result"
  grep -q ^FAIL "$result" && bad=$((bad + 1))
done
echo "sanitize: $runs runs, $bad with errors"
exit $bad
