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

# verdict NAME [REASON]: PASS, or FAIL with the reason (counted)
verdict() {
  if [ -n "${2:-}" ]; then
    echo "FAIL $1: $2"
    failed=$((failed + 1))
  else
    echo "PASS $1"
  fi
}

# The reason a gst-launch run that exited with status $1 failed, from the
# first error line of its log ("erroneous pipeline" where an element is
# missing, h264parse say); nothing when it exited 0.
exit_reason() {
  [ "$1" = 0 ] || echo "exit status $1 ($(grep -m1 -iE 'error|erroneous' "$log"))"
}

# check NAME PATTERN -- gst-launch arguments: runs with -v (negotiated caps
# printed) and -m (messages), passes when it exits 0, posts no error and its
# output matches the extended regular expression PATTERN.
check() {
  local name=$1 pattern=$2 rc why; shift 3
  timeout 120 gst-launch-1.0 -v -m "$@" > "$log" 2>&1
  rc=$?
  why=$(exit_reason $rc)
  if [ -z "$why" ] && ! grep -qE "$pattern" "$log"; then
    why="no line matches /$pattern/"
  fi
  verdict "$name" "$why"
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
    verdict "$name" "exit status $rc, no line matches /$pattern/"
  else
    verdict "$name"
  fi
}

# on_both ELEMENT CAPS SETTINGS [cuda]: the same random frames through
# ELEMENT on the GPU and on the CPU backend, into $out/both-cuda.raw and
# $out/both-cpu.raw; the GPU takes them in system memory (in strips), or
# with `cuda` in CUDA memory (cudaupload, cudadownload). Prints why a run
# failed, or nothing.
on_both() {
  local element=$1 caps=$2 settings=$3 up="" down="" b rc=0
  if [ "${4:-}" = cuda ]; then
    up="cudaupload !"
    down="! cudadownload"
  fi
  for b in cuda cpu; do
    # shellcheck disable=SC2086
    timeout 300 gst-launch-1.0 -q videotestsrc num-buffers=3 pattern=snow \
      ! "$caps" ! $up $element backend=$b $settings $down \
      ! filesink location="$out/both-$b.raw" > "$log" 2>&1 || rc=$?
    up="" down=""
  done
  exit_reason $rc
}

# same_bytes NAME CAPS SETTINGS [cuda]: cudaprefixsum on_both; the two
# outputs must be identical byte for byte (sizes whose rows have no
# padding, which neither backend writes).
same_bytes() {
  local name=$1 why
  why=$(on_both "cudaprefixsum post-messages=false" "$2" "$3" "${4:-}")
  if [ -z "$why" ] && ! cmp -s "$out/both-cuda.raw" "$out/both-cpu.raw"; then
    why="the GPU's output differs from the CPU backend's"
  fi
  verdict "$name" "$why"
  rm -f "$out/both-cuda.raw" "$out/both-cpu.raw"
}

same_bytes "box mean RGBA 1080p radius 1, GPU as CPU" \
  video/x-raw,format=RGBA,width=1920,height=1080 "output=box-mean radius=1"
same_bytes "box mean BGRx 1917x1083 radius 8, GPU as CPU" \
  video/x-raw,format=BGRx,width=1917,height=1083 "output=box-mean radius=8"
same_bytes "box mean RGBA 4K radius 3, GPU as CPU" \
  video/x-raw,format=RGBA,width=3840,height=2160 "output=box-mean radius=3"
same_bytes "box mean xBGR 1280x720 radius 16, GPU as CPU" \
  video/x-raw,format=xBGR,width=1280,height=720 "output=box-mean radius=16"
same_bytes "threshold RGBA 1281x723 radius 1, GPU as CPU" \
  video/x-raw,format=RGBA,width=1281,height=723 \
  "output=adaptive-threshold radius=1 offset=-3"
same_bytes "threshold ARGB 1919x1081 radius 5, GPU as CPU" \
  video/x-raw,format=ARGB,width=1919,height=1081 \
  "output=adaptive-threshold radius=5 offset=2.5"
same_bytes "box mean GRAY8 4K radius 64, GPU as CPU" \
  video/x-raw,format=GRAY8,width=3840,height=2160 "output=box-mean radius=64"
same_bytes "threshold I420 1920x1080 radius 40, GPU as CPU" \
  video/x-raw,format=I420,width=1920,height=1080 \
  "output=adaptive-threshold radius=40"
same_bytes "box mean RGBx 1917x1083 radius 300, GPU as CPU" \
  video/x-raw,format=RGBx,width=1917,height=1083 "output=box-mean radius=300"
same_bytes "box mean GRAY16_LE 642x479 radius 20, GPU as CPU" \
  video/x-raw,format=GRAY16_LE,width=642,height=479 \
  "output=box-mean radius=20"
same_bytes "box mean GRAY16_LE 642x479 radius 16, GPU as CPU" \
  video/x-raw,format=GRAY16_LE,width=642,height=479 \
  "output=box-mean radius=16"
same_bytes "threshold I420 1920x1080 radius 16, GPU as CPU" \
  video/x-raw,format=I420,width=1920,height=1080 \
  "output=adaptive-threshold radius=16 offset=-1.5"
# in CUDA memory: from tables (radius 17) or straight from the frame (up
# to 16)
same_bytes "box mean RGBA 1280x720 radius 2 in CUDA memory, GPU as CPU" \
  video/x-raw,format=RGBA,width=1280,height=720 "output=box-mean radius=2" \
  cuda
same_bytes "box mean RGBA 1280x720 radius 17 in CUDA memory, GPU as CPU" \
  video/x-raw,format=RGBA,width=1280,height=720 "output=box-mean radius=17" \
  cuda
same_bytes "box mean BGRx 1280x720 radius 9 in CUDA memory, GPU as CPU" \
  video/x-raw,format=BGRx,width=1280,height=720 "output=box-mean radius=9" \
  cuda

# within_one GPU_FILE CPU_FILE: prints why not when the files differ in
# size or any byte by more than 1
within_one() {
  python3 - "$1" "$2" <<'PY'
import sys
a = open(sys.argv[1], "rb").read()
b = open(sys.argv[2], "rb").read()
if len(a) != len(b) or not a:
    print("outputs of %d and %d bytes" % (len(a), len(b)))
else:
    worst = max(abs(x - y) for x, y in zip(a, b))
    if worst > 1:
        print("a byte differs by %d from the CPU backend's" % worst)
PY
}

# close_bytes NAME CAPS SETTINGS: cudaconv2d on_both; no byte may differ
# by more than 1 (float sums in a different order round apart).
close_bytes() {
  local name=$1 why
  why=$(on_both cudaconv2d "$2" "$3")
  if [ -z "$why" ]; then
    why=$(within_one "$out/both-cuda.raw" "$out/both-cpu.raw")
  fi
  verdict "$name" "$why"
  rm -f "$out/both-cuda.raw" "$out/both-cpu.raw"
}

# general masks of 7 taps wide and more on four-byte pixels run on the
# tensor cores
close_bytes "unsharp 7x7 RGBA 1921x1081, GPU within 1 of CPU" \
  video/x-raw,format=RGBA,width=1921,height=1081 \
  "preset=unsharp size=7 sigma=1.5 border=wrap"
close_bytes "unsharp 15x15 BGRx 1917x1083, GPU within 1 of CPU" \
  video/x-raw,format=BGRx,width=1917,height=1083 \
  "preset=unsharp size=15 sigma=3"
close_bytes "25x25 general ARGB 643x359, GPU within 1 of CPU" \
  video/x-raw,format=ARGB,width=643,height=359 \
  "preset=unsharp size=25 sigma=6 border=mirror"
# 8-bit masks of 5 rows on four-byte pixels, of 7 rows or columns on
# one-byte planes: the tensor-core tiles that read the plane's bytes
close_bytes "unsharp 5x5 RGBA 1920x1080, GPU within 1 of CPU" \
  video/x-raw,format=RGBA,width=1920,height=1080 \
  "preset=unsharp size=5 sigma=1"
close_bytes "unsharp 5x5 ARGB 1280x720, GPU within 1 of CPU" \
  video/x-raw,format=ARGB,width=1280,height=720 \
  "preset=unsharp size=5 sigma=1.2 border=mirror"
close_bytes "gaussian 7x7 GRAY8 1920x1080, GPU within 1 of CPU" \
  video/x-raw,format=GRAY8,width=1920,height=1080 \
  "preset=gaussian size=7 border=wrap"
close_bytes "unsharp 9x9 NV12 1280x720 all planes, GPU within 1 of CPU" \
  video/x-raw,format=NV12,width=1280,height=720 \
  "preset=unsharp size=9 sigma=2 planes=all"
# Gaussians of 11 to 17 taps on four-byte pixels (16-byte rows): the
# separable kernel with both passes on the tensor cores
close_bytes "gaussian 15x15 RGBA 1920x1080, GPU within 1 of CPU" \
  video/x-raw,format=RGBA,width=1920,height=1080 \
  "preset=gaussian size=15 sigma=3"
close_bytes "gaussian 11x11 ARGB 1280x720, GPU within 1 of CPU" \
  video/x-raw,format=ARGB,width=1280,height=720 \
  "preset=gaussian size=11 sigma=2 border=mirror"
close_bytes "gaussian 17x17 BGRx 640x360 separable, GPU within 1 of CPU" \
  video/x-raw,format=BGRx,width=640,height=360 \
  "preset=gaussian size=17 sigma=4 border=wrap algorithm=separable"
# long masks (conv2d_long.h): interpolated Gaussians, exact boxes, a long
# row
close_bytes "gaussian sigma 100 RGBA 1921x1081, GPU within 1 of CPU" \
  video/x-raw,format=RGBA,width=1921,height=1081 \
  "preset=gaussian sigma=100 border=mirror"
close_bytes "gaussian sigma 30 NV12 1280x720 all planes, GPU within 1 of CPU" \
  video/x-raw,format=NV12,width=1280,height=720 \
  "preset=gaussian sigma=30 planes=all border=wrap"
close_bytes "box 1023 BGRx 1917x1083, GPU within 1 of CPU" \
  video/x-raw,format=BGRx,width=1917,height=1083 "preset=box size=1023"
close_bytes "box 101 GRAY16_LE 642x479, GPU within 1 of CPU" \
  video/x-raw,format=GRAY16_LE,width=642,height=479 \
  "preset=box size=101 border=constant"
# spectral masks (conv2d_spectral.h): the GPU in float or double, the CPU
# in double
close_bytes "disc radius 100 RGBA 1921x1081, GPU within 1 of CPU" \
  video/x-raw,format=RGBA,width=1921,height=1081 \
  "preset=disc radius=100 border=mirror"
close_bytes "disc radius 40 GRAY16_LE 642x479, GPU within 1 of CPU" \
  video/x-raw,format=GRAY16_LE,width=642,height=479 \
  "preset=disc radius=40 border=constant"
python3 - "$out/mask-255.pgm" <<'PY'
import random, sys
random.seed(255)
with open(sys.argv[1], "w") as f:
    f.write("P2 255 255 255\n")
    f.write("\n".join(str(random.randrange(256)) for _ in range(255 * 255)))
PY
close_bytes "255x255 mask file RGB 1280x720, GPU within 1 of CPU" \
  video/x-raw,format=RGB,width=1280,height=720 \
  "mask-location=$out/mask-255.pgm border=wrap"
rm -f "$out/mask-255.pgm"
# regions: metas from the stand-in detector (pipelines/tools/roi_launch),
# frames in CUDA memory on the GPU, in system memory on the CPU backend
# roi_both NAME CAPS SETTINGS MEMORY RECTANGLES...: MEMORY cuda or system
# on the GPU (CUDA memory: 4-byte formats, whose downloaded rows have no
# padding)
roi_launch=$(command -v roi_launch || echo "$root/build/pipelines/tools/roi_launch")
roi_both() {
  local name=$1 caps=$2 settings=$3 up="" down="" why="" rc=0
  [ "$4" = cuda ] && up="cudaupload !" && down="! cudadownload"
  shift 4
  timeout 120 "$roi_launch" "videotestsrc num-buffers=3 pattern=snow \
    ! $caps ! $up identity name=detector ! cudaconv2d \
    backend=cuda $settings $down \
    ! filesink location=$out/roi-cuda.raw" "$@" > "$log" 2>&1 || rc=$?
  timeout 120 "$roi_launch" "videotestsrc num-buffers=3 pattern=snow \
    ! $caps ! identity name=detector ! cudaconv2d backend=cpu $settings \
    ! filesink location=$out/roi-cpu.raw" "$@" >> "$log" 2>&1 || rc=$?
  why=$(exit_reason $rc)
  if [ -z "$why" ]; then
    why=$(within_one "$out/roi-cuda.raw" "$out/roi-cpu.raw")
  fi
  verdict "$name" "$why"
  rm -f "$out/roi-cuda.raw" "$out/roi-cpu.raw"
}
roi_both "regions RGBA 1920x1080 in CUDA memory, roi-sigma, feather" \
  video/x-raw,format=RGBA,width=1920,height=1080 \
  "preset=gaussian roi=true roi-sigma=0.1 roi-feather=12 roi-grow=4" cuda \
  face:100,100,300,360 face:900,500,120,150 license-plate:1500,900,400,90
roi_both "regions BGRx 1280x720 in CUDA memory, faces only, disc" \
  video/x-raw,format=BGRx,width=1280,height=720 \
  "preset=disc radius=24 roi=true roi-types=face border=wrap" cuda \
  face:0,0,200,200 face:150,100,300,300 license-plate:600,400,200,60 \
  face:1200,650,200,200
roi_both "regions NV12 1280x720 on the GPU, every plane, disc" \
  video/x-raw,format=NV12,width=1280,height=720 \
  "preset=disc radius=24 planes=all roi=true roi-types=face border=wrap" \
  system face:0,0,200,200 face:150,100,300,300 license-plate:600,400,200,60 \
  face:1200,650,200,200
# rgba_png NAME SETTINGS FILE: a 1080p RGBA frame filtered by cudaconv2d
# in CUDA memory, written to $out/FILE
rgba_png() {
  check "$1" "$cuda_caps, format=\(string\)RGBA" -- \
    videotestsrc num-buffers=1 pattern=smpte \
    ! video/x-raw,format=RGBA,width=1920,height=1080 ! cudaupload \
    ! cudaconv2d $2 ! cudadownload ! videoconvert \
    ! pngenc ! filesink location="$out/$3"
}
rgba_png "RGBA unsharp 5x5 in CUDA memory to PNG" \
  "preset=unsharp size=5 sigma=1" unsharp-5-rgba.png
rgba_png "RGBA unsharp 15x15 in CUDA memory to PNG" \
  "preset=unsharp size=15 sigma=3" unsharp-15-rgba.png
rgba_png "RGBA gaussian 15x15 in CUDA memory to PNG" \
  "preset=gaussian size=15 sigma=3" gaussian-15-rgba.png
rgba_png "RGBA gaussian sigma 100 in CUDA memory to PNG" \
  "preset=gaussian sigma=100" gaussian-100-rgba.png
rgba_png "RGBA box 1023 in CUDA memory to PNG" \
  "preset=box size=1023 border=wrap" box-1023-rgba.png
rgba_png "RGBA disc radius 100 in CUDA memory to PNG" \
  "preset=disc radius=100 border=mirror" disc-100-rgba.png

# GStreamer 1.22's CUDA memory overlaps the chroma planes of odd-height
# I420: negotiation says no rather than corrupting frames
refuses "odd-height I420 refused in CUDA memory" "[Nn]egotiat|could not link" -- \
  videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=35 \
  ! cudaconv2d ! "video/x-raw(memory:CUDAMemory)" ! cudadownload ! fakesink

rm -f "$log"
echo "cuda-pipelines: $failed failed"
exit $failed
