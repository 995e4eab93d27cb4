#!/usr/bin/env bash
# A loudness meter as a user runs it: EBU Tech 3341's case 1 (a stereo
# 1 kHz sine at -23 dBFS, 20 s) written to a WAV file, then measured with
#
#   gst-launch-1.0 -m filesrc ! wavparse ! cudaprefixsum loudness=true ...
#
# on BACKEND (cpu, or cuda: exits 77 without a GPU). The last ebur128-level
# message must read -23.0 +- 0.1 LUFS (integrated, momentary, short-term).
set -u
backend=${1:-cpu}
if [ "$backend" = cuda ] && ! { command -v nvidia-smi >/dev/null \
    && nvidia-smi -L >/dev/null 2>&1; }; then
  echo "SKIP loudness-launch: no GPU"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

gst-launch-1.0 -q audiotestsrc wave=sine freq=1000 volume=0.0707945784 \
  num-buffers=940 samplesperbuffer=1024 \
  ! audio/x-raw,format=F32LE,rate=48000,channels=2 ! wavenc \
  ! filesink location="$dir/tone.wav" || { echo "FAIL: cannot write the tone"; exit 1; }
out=$(gst-launch-1.0 -m filesrc location="$dir/tone.wav" ! wavparse \
  ! cudaprefixsum backend="$backend" loudness=true interval=1000000000 \
  ! fakesink 2>&1)
last=$(grep -o 'ebur128-level, .*' <<< "$out" | tail -n 1)
if [ -z "$last" ]; then
  echo "FAIL: no ebur128-level message"
  tail -n 5 <<< "$out"
  exit 1
fi
failed=0
for field in global-loudness momentary-loudness shortterm-loudness; do
  value=$(sed -nE "s/.*$field=\(double\)([-0-9.e]+).*/\1/p" <<< "$last")
  echo "loudness-launch [$backend]: $field $value LUFS (want -23.0 +- 0.1)"
  awk -v v="$value" 'BEGIN { exit !(v != "" && v >= -23.1 && v <= -22.9) }' \
    || { echo "FAIL: $field $value LUFS"; failed=1; }
done
exit $failed
