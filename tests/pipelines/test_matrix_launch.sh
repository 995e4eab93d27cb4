#!/usr/bin/env bash
# cudaconv1d's channel matrices as a user runs them, on BACKEND (cpu, or
# cuda: exits 77 without a GPU):
#
# 1. a true-stereo reverb: a 4-channel impulse response WAV on a stereo
#    WAV, played to autoaudiosink and written to a WAV file;
# 2. a 5.1 file virtualised to 2 channels by a 12-channel response
#    (out-channels=2);
# 3. the routing itself, measured with level: kernel "0; 1; 0; 0" (only
#    L->R) sends the left input to the right output and nothing to the
#    left; `matrix` "0:1:0" with one response does the same.
#
# Each output's channels and length (the input's plus the response's
# taps - 1) are checked.
set -u
backend=${1:-cpu}
if [ "$backend" = cuda ] && ! { command -v nvidia-smi >/dev/null \
    && nvidia-smi -L >/dev/null 2>&1; }; then
  echo "SKIP matrix-launch: no GPU"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# a WAV of CHANNELS channels and FRAMES frames of WAVE from audiotestsrc
make_wav() {
  local path=$1 channels=$2 frames=$3 wave=$4
  gst-launch-1.0 -q audiotestsrc wave="$wave" volume=0.1 num-buffers=1 \
    samplesperbuffer="$frames" \
    ! "audio/x-raw,format=F32LE,rate=48000,channels=$channels" ! wavenc \
    ! filesink location="$path" || fail "cannot write $path"
}

# frames (the data chunk's size over 4-byte samples) and channels of a
# WAV written by wavenc
wav_frames() {
  local at; at=$(grep -obUaF data "$1" | head -n 1 | cut -d: -f1)
  echo $(( $(od -An -tu4 -j$((at + 4)) -N4 "$1" | tr -d ' ') / 4 / $2 ))
}
wav_channels() { od -An -tu2 -j22 -N2 "$1" | tr -d ' '; }

make_wav "$dir/dry.wav" 2 48000 sine
make_wav "$dir/dry51.wav" 6 48000 sine
make_wav "$dir/hall4.wav" 4 9600 pink-noise
make_wav "$dir/virt12.wav" 12 2400 pink-noise

# 1. true stereo, to the speakers and to a file
gst-launch-1.0 -q filesrc location="$dir/dry.wav" ! wavparse ! audioconvert \
  ! cudaconv1d backend="$backend" location="$dir/hall4.wav" mix=0.4 \
  ! audioconvert ! autoaudiosink \
  || fail "true stereo to autoaudiosink"
gst-launch-1.0 -q filesrc location="$dir/dry.wav" ! wavparse \
  ! cudaconv1d backend="$backend" location="$dir/hall4.wav" \
  ! wavenc ! filesink location="$dir/wet.wav" || fail "true stereo to a file"
ch=$(wav_channels "$dir/wet.wav") n=$(wav_frames "$dir/wet.wav" 2)
echo "matrix-launch [$backend]: true stereo: $ch channels, $n frames (want 2, $((48000 + 9599)))"
[ "$ch" = 2 ] && [ "$n" = $((48000 + 9599)) ] || fail "true stereo output"

# 2. 5.1 into 2
gst-launch-1.0 -q filesrc location="$dir/dry51.wav" ! wavparse \
  ! cudaconv1d backend="$backend" location="$dir/virt12.wav" out-channels=2 \
  ! wavenc ! filesink location="$dir/binaural.wav" || fail "5.1 into 2"
ch=$(wav_channels "$dir/binaural.wav") n=$(wav_frames "$dir/binaural.wav" 2)
echo "matrix-launch [$backend]: 5.1 into 2: $ch channels, $n frames (want 2, $((48000 + 2399)))"
[ "$ch" = 2 ] && [ "$n" = $((48000 + 2399)) ] || fail "5.1 into 2 output"

# 3. the routing, by the counts and by a matrix: left silent, right the
# input's level (a -20 dBFS sine: about -23 dB RMS)
for settings in 'kernel="0; 1; 0; 0"' 'kernel=1 matrix=0:1:0'; do
  out=$(eval gst-launch-1.0 -m audiotestsrc wave=sine volume=0.1 \
    num-buffers=50 ! audio/x-raw,format=F32LE,rate=48000,channels=2 \
    ! cudaconv1d backend="$backend" "$settings" \
    ! level interval=1000000000 ! fakesink 2>&1)
  rms=$(grep -o 'rms=[^>]*>' <<< "$out" | tail -n 1 \
    | sed -E 's/.*< *([-0-9.einf]+), *([-0-9.einf]+) *>.*/\1 \2/')
  echo "matrix-launch [$backend]: $settings: RMS left, right: $rms dB"
  awk -v l="${rms% *}" -v r="${rms#* }" 'BEGIN { exit !(l != "" &&
    (l == "-inf" || l + 0 < -200) && r + 0 > -24 && r + 0 < -22) }' \
    || fail "$settings: RMS $rms"
done
exit $failed
