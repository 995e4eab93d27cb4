#!/usr/bin/env bash
# GPU pipelines in CUDA memory as a user runs them with gst-launch-1.0:
# decode on the GPU, filter, measure, download at the edge. Each line says
# PASS or FAIL with the reason; PNG frames go to $OUT/cuda-pipelines when
# $OUT is set. Exit status: the number of failures; 77 when cudaupload or a
# GPU is missing.
#
#   tests/gpu/cuda-pipelines.sh [MEDIA_DIR]
set -u
media=${1:-$(cd "$(dirname "$0")/../media" && pwd)}
out=${OUT:-/tmp}/cuda-pipelines
mkdir -p "$out"
log=$(mktemp)
failed=0

gst-inspect-1.0 cudaupload >/dev/null 2>&1 || { echo "SKIP: no cudaupload"; exit 77; }
nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU"; exit 77; }

# check NAME PATTERN -- gst-launch arguments: runs with -v (negotiated caps
# printed) and -m (messages), passes when it exits 0, posts no error and its
# output matches the extended regular expression PATTERN.
check() {
  local name=$1 pattern=$2 rc; shift 3
  timeout 120 gst-launch-1.0 -v -m "$@" > "$log" 2>&1
  rc=$?
  if [ $rc != 0 ]; then
    echo "FAIL $name: exit status $rc ($(grep -m1 -iE 'error' "$log"))"
    failed=$((failed + 1))
  elif ! grep -qE "$pattern" "$log"; then
    echo "FAIL $name: no line matches /$pattern/"
    failed=$((failed + 1))
  else
    echo "PASS $name"
  fi
}

cuda_caps='video/x-raw\(memory:CUDAMemory\)'

check "upload, two filters, box mean, download" \
  "cudaconv2d1\.GstPad:src: caps = $cuda_caps" -- \
  videotestsrc num-buffers=60 pattern=ball \
  ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload \
  ! cudaconv2d preset=gaussian size=9 planes=all ! cudaconv2d preset=sharpen \
  ! cudaprefixsum output=box-mean radius=6 ! cudadownload ! fakesink

check "RGBA edges to PNG" "$cuda_caps, format=\(string\)RGBA" -- \
  videotestsrc num-buffers=1 pattern=smpte \
  ! video/x-raw,format=RGBA,width=640,height=360 ! cudaupload \
  ! cudaconv2d preset=sobel ! cudadownload ! videoconvert ! pngenc \
  ! filesink location="$out/sobel-rgba.png"

check "nvh264dec to CUDA memory filters, statistics posted" \
  "cudaprefixsum, timestamp" -- \
  filesrc location="$media/clip.h264" ! h264parse ! nvh264dec \
  ! cudaconv2d preset=unsharp size=7 ! cudaprefixsum grid-columns=2 \
  grid-rows=2 ! cudadownload ! videoconvert ! pngenc \
  ! multifilesink location="$out/decoded-%02d.png" max-files=3

check "nvh264dec negotiates CUDA NV12 with cudaconv2d" \
  "cudaconv2d0\.GstPad:sink: caps = $cuda_caps, format=\(string\)NV12" -- \
  filesrc location="$media/clip.h264" ! h264parse ! nvh264dec \
  ! cudaconv2d ! cudadownload ! fakesink

check "system memory in, CUDA memory out" "$cuda_caps" -- \
  videotestsrc num-buffers=30 ! video/x-raw,format=I420,width=353,height=240 \
  ! cudaconv2d preset=box size=5 ! "video/x-raw(memory:CUDAMemory)" \
  ! cudadownload ! fakesink

check "CUDA memory in, system memory out" "cudaconv2d0\.GstPad:src: caps = video/x-raw, format" -- \
  videotestsrc num-buffers=30 ! video/x-raw,format=BGRx,width=353,height=239 \
  ! cudaupload ! cudaconv2d preset=emboss ! video/x-raw ! fakesink

check "passthrough with the meta, adaptive threshold after" "$cuda_caps" -- \
  videotestsrc num-buffers=30 ! video/x-raw,format=Y444,width=320,height=240 \
  ! cudaupload ! cudaprefixsum ! cudaprefixsum output=adaptive-threshold \
  ! cudadownload ! fakesink

check "GRAY8 stays in system memory around CUDA elements" \
  "cudaconv2d0\.GstPad:src: caps = video/x-raw, format=\(string\)GRAY8" -- \
  videotestsrc num-buffers=10 ! video/x-raw,format=GRAY8,width=320,height=240 \
  ! cudaconv2d ! cudaprefixsum ! fakesink

check "custom kernel, wrap border" \
  "$cuda_caps" -- \
  videotestsrc num-buffers=30 ! video/x-raw,format=RGBA,width=64,height=64 \
  ! cudaupload ! cudaconv2d kernel="1 2 1; 2 4 2; 1 2 1" border=wrap \
  ! cudadownload ! fakesink

# refuses: exits non-zero with a message matching PATTERN
refuses() {
  local name=$1 pattern=$2 rc; shift 3
  timeout 120 gst-launch-1.0 "$@" > "$log" 2>&1
  rc=$?
  if [ $rc = 0 ] || ! grep -qE "$pattern" "$log"; then
    echo "FAIL $name: exit status $rc, no line matches /$pattern/"
    failed=$((failed + 1))
  else
    echo "PASS $name"
  fi
}

# GStreamer 1.22's CUDA memory overlaps the chroma planes of odd-height
# I420: negotiation says no rather than corrupting frames
refuses "odd-height I420 refused in CUDA memory" "[Nn]egotiat|could not link" -- \
  videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=35 \
  ! cudaconv2d ! "video/x-raw(memory:CUDAMemory)" ! cudadownload ! fakesink

rm -f "$log"
echo "cuda-pipelines: $failed failed"
exit $failed
