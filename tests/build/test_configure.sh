#!/usr/bin/env bash
# What configure says about stacks it cannot build for: a CUDA toolkit
# older than 12.0, and -Dgst_cuda=enabled with a GStreamer older than 1.22.
# Each configuration must fail and name what it found and what it needs.
# Fakes stand in for the old versions: an nvcc that reports 11.8 beside an
# empty cuda_runtime.h, and a gstreamer-1.0.pc of 1.20 put first on
# PKG_CONFIG_PATH.
#
#   test_configure.sh SOURCE_DIR
set -u
src=${1:?usage: test_configure.sh SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

expect_failure() {
  local what=$1; shift
  local log="$tmp/$what.log"
  if "$@" > "$log" 2>&1; then
    echo "FAIL: $what: configure succeeded"; failed=1; return
  fi
  for words in "${expected[@]}"; do
    if ! grep -qF -- "$words" "$log"; then
      echo "FAIL: $what: \"$words\" not in the message:"
      grep -i error "$log" | head -5
      failed=1
      return
    fi
  done
  echo "PASS $what: $(grep -m1 'ERROR:' "$log")"
}

# a CUDA 11.8 toolkit
mkdir -p "$tmp/cuda-11.8/bin" "$tmp/cuda-11.8/include"
touch "$tmp/cuda-11.8/include/cuda_runtime.h"
cat > "$tmp/cuda-11.8/bin/nvcc" <<'NVCC'
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Cuda compilation tools, release 11.8, V11.8.89"
NVCC
chmod +x "$tmp/cuda-11.8/bin/nvcc"
expected=("CUDA toolkit 11.8 found" "needs 12.0 or newer")
expect_failure "toolkit-11.8" meson setup "$tmp/b1" "$src" -Dcuda=enabled \
  -Dtoolkit_dir="$tmp/cuda-11.8" -Dgstreamer=disabled

# GStreamer 1.20 with CUDA memory asked for
mkdir -p "$tmp/pc"
cat > "$tmp/pc/gstreamer-1.0.pc" <<'PC'
Name: GStreamer
Description: Streaming media framework (a stand-in of version 1.20)
Version: 1.20.3
Libs: -lgstreamer-1.0
Cflags:
PC
expected=("-Dgst_cuda=enabled needs GStreamer >= 1.22" "found GStreamer 1.20.3")
PKG_CONFIG_PATH="$tmp/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
  expect_failure "gstreamer-1.20" meson setup "$tmp/b2" "$src" \
  -Dcuda=disabled -Dgst_cuda=enabled

[ $failed = 0 ] && echo "configure: 2 refusals checked"
exit $failed
