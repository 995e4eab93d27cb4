#!/usr/bin/env bash
# The demo: builds the plugin (installing the build dependencies first),
# then writes into demo-output/:
#  - a test picture and one PNG per cudaconv2d preset, and one with only
#    three marked regions blurred; a photograph whose face facedetect finds
#    and cudaconv2d blurs;
#  - the picture's box mean at a large radius and its adaptive threshold
#    (cudaprefixsum), and the statistics message of the picture;
#  - a plucked-string melody, the same in a room (convolution reverb with a
#    generated stereo impulse response through cudaconv1d), in the room as
#    a true-stereo (4-channel) response, and through a low-pass preset, as
#    WAV files, a few level messages of the reverb and its EBU R128
#    loudness (cudaprefixsum on audio).
# Runs on the GPU when one is usable and on the CPU otherwise (the two
# agree to float rounding: integer outputs may differ by one level).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh
export GST_PLUGIN_PATH="$PWD/build/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
out=${1:-demo-output}
mkdir -p "$out"

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
else
  echo "No GPU found: the elements run their CPU implementations."
fi

# The test picture: colour bars (hard edges) beside a zone plate (every
# spatial frequency), 640x360.
gst-launch-1.0 -q compositor name=mix sink_1::xpos=320 \
  ! video/x-raw,width=640,height=360 ! videoconvert ! pngenc \
  ! filesink location="$out/input.png" \
  videotestsrc num-buffers=1 pattern=smpte \
  ! video/x-raw,width=320,height=360 ! mix. \
  videotestsrc num-buffers=1 pattern=zone-plate kx2=20 ky2=20 \
  ! video/x-raw,width=320,height=360 ! mix.
echo "wrote $out/input.png"

# filter NAME FORMAT cudaconv2d-properties...
filter() {
  local name=$1 format=$2; shift 2
  gst-launch-1.0 -q filesrc location="$out/input.png" ! pngdec \
    ! videoconvert ! "video/x-raw,format=$format" ! cudaconv2d "$@" \
    ! videoconvert ! pngenc ! filesink location="$out/$name.png"
  echo "wrote $out/$name.png  (cudaconv2d $*)"
}

filter gaussian RGBA preset=gaussian sigma=3
filter box RGBA preset=box size=9
filter sharpen RGBA preset=sharpen
filter unsharp RGBA preset=unsharp sigma=2
filter sobel GRAY8 preset=sobel divisor=4
filter sobel-x GRAY8 preset=sobel-x offset=128
filter laplacian GRAY8 preset=laplacian offset=128
filter emboss GRAY8 preset=emboss
filter motion-blur RGBA kernel="1 1 1 1 1 1 1 1 1 1 1 1 1 1 1" border=mirror
filter luma-blur I420 preset=gaussian sigma=4 planes=luma
# masks above 31 taps: row and column passes whose cost grows little with
# the size (a sigma-40 Gaussian is 241 x 241 taps)
filter gaussian-40 RGBA preset=gaussian sigma=40 border=mirror
filter box-201 RGBA preset=box size=201 border=mirror
filter motion-blur-101 RGBA kernel="$(printf '1 %.0s' $(seq 101))" border=mirror
# masks above 31 that are not separable: through the frequency domain, at a
# cost that does not grow with them. A lens blur (the mean over a disc),
# and a mask from a file: a ring of radius 20, the bokeh of a catadioptric
# lens, written as a PGM image
filter disc-24 RGBA preset=disc radius=24 border=mirror
awk 'BEGIN { r = 20; n = 2 * r + 1; print "P2", n, n, 255
  for (j = 0; j < n; j++) { line = ""
    for (i = 0; i < n; i++) { d = sqrt((i - r) ^ 2 + (j - r) ^ 2)
      line = line (d > r - 4 && d <= r ? 255 : 0) " " }
    print line } }' > "$out/ring-20.pgm"
filter ring-20 RGBA mask-location="$out/ring-20.pgm" border=mirror
# only where a detector marks: two faces and a number plate, as
# region-of-interest metas from a stand-in detector (facedetect attaches the
# same), each blurred by a Gaussian of 0.15 times its smaller side, feathered
build/pipelines/tools/roi_launch "filesrc location=$out/input.png ! pngdec \
  ! videoconvert ! video/x-raw,format=RGBA ! identity name=detector \
  ! cudaconv2d preset=gaussian roi=true roi-sigma=0.15 roi-feather=8 \
  border=mirror ! videoconvert ! pngenc \
  ! filesink location=$out/region-blur.png" face:60,40,100,120 \
  face:400,60,70,90 license-plate:250,280,120,36
echo "wrote $out/region-blur.png  (cudaconv2d roi=true roi-sigma=0.15 roi-feather=8)"
# and with a real detector: facedetect (gst-plugins-bad's opencv plugin)
# finds the face in a photograph (scikit-image's astronaut.png, from
# Debian's python3-skimage package) and attaches its meta
if picture=$(bash scripts/face_picture.sh) \
    && gst-inspect-1.0 facedetect >/dev/null 2>&1; then
  # (opencv complains on stderr of the nose, mouth and eye cascades
  # Debian does not ship; facedetect needs only the face's)
  if gst-launch-1.0 -q filesrc location="$picture" ! pngdec ! videoconvert \
      ! facedetect display=false ! videoconvert \
      ! cudaconv2d roi=true roi-types=face roi-sigma=0.15 roi-feather=8 \
      ! videoconvert ! pngenc ! filesink location="$out/face-blur.png" \
      2>/dev/null; then
    echo "wrote $out/face-blur.png  (facedetect ! cudaconv2d roi=true roi-types=face)"
  else
    echo "no face-blur.png: the facedetect pipeline failed"
  fi
else
  echo "no face-blur.png: facedetect or the photograph is missing"
fi

# Integral images: a box mean whose cost does not grow with the radius, an
# adaptive threshold, and the statistics of the picture (3 x 2 regions).
# prefixsum NAME FORMAT cudaprefixsum-properties...
prefixsum() {
  local name=$1 format=$2; shift 2
  gst-launch-1.0 -q filesrc location="$out/input.png" ! pngdec \
    ! videoconvert ! "video/x-raw,format=$format" ! cudaprefixsum "$@" \
    ! videoconvert ! pngenc ! filesink location="$out/$name.png"
  echo "wrote $out/$name.png  (cudaprefixsum $*)"
}
prefixsum box-mean-r40 RGBA output=box-mean radius=40
prefixsum adaptive-threshold GRAY8 output=adaptive-threshold radius=15 offset=4
gst-launch-1.0 -m filesrc location="$out/input.png" ! pngdec ! videoconvert \
  ! video/x-raw,format=GRAY8 ! cudaprefixsum grid-columns=3 grid-rows=2 \
  ! fakesink 2>/dev/null | grep -o 'cudaprefixsum, timestamp.*' \
  | sed 's/^/statistics: /'

# On the GPU, frames in CUDA memory: uploaded once, through a blur, an
# edge filter and a box mean without leaving the GPU, downloaded once.
if gst-inspect-1.0 cudaupload >/dev/null 2>&1 \
    && gst-launch-1.0 -q filesrc location="$out/input.png" ! pngdec \
      ! videoconvert ! video/x-raw,format=RGBA ! cudaupload \
      ! cudaconv2d preset=gaussian size=5 backend=cuda \
      ! cudaconv2d preset=sobel backend=cuda \
      ! cudaprefixsum output=box-mean radius=2 backend=cuda ! cudadownload \
      ! videoconvert ! pngenc ! filesink location="$out/gpu-chain.png" \
      2>/dev/null; then
  echo "wrote $out/gpu-chain.png  (cudaupload ! cudaconv2d ! cudaconv2d ! cudaprefixsum ! cudadownload, in CUDA memory)"
else
  echo "no CUDA memory chain: it needs a GPU and GStreamer's cudaupload"
fi

# Audio: a dry melody and a room's impulse response, generated.
build/pipelines/tools/make_demo_audio "$out"
echo "wrote $out/dry.wav (a plucked-string melody), $out/room.wav (a stereo room, 1.6 s) and $out/room4.wav (the room in true stereo)"

# audio NAME CHANNELS cudaconv1d-properties...
audio() {
  local name=$1 channels=$2; shift 2
  gst-launch-1.0 -q filesrc location="$out/dry.wav" ! wavparse \
    ! audioconvert ! "audio/x-raw,format=F32LE,channels=$channels" \
    ! cudaconv1d "$@" ! audioconvert ! audio/x-raw,format=S16LE ! wavenc \
    ! filesink location="$out/$name.wav"
  echo "wrote $out/$name.wav  (cudaconv1d $*)"
}

audio reverb 2 location="$out/room.wav" mix=0.5 gain=0.5
# true stereo: the melody panned left, through the 4-channel response
# (L->L, L->R, R->L, R->R): the right ear hears the room from the left
gst-launch-1.0 -q filesrc location="$out/dry.wav" ! wavparse ! audioconvert \
  ! audio/x-raw,format=F32LE,channels=2 ! audiopanorama panorama=-0.8 \
  ! cudaconv1d location="$out/room4.wav" mix=0.5 gain=0.5 ! audioconvert \
  ! audio/x-raw,format=S16LE ! wavenc ! filesink location="$out/true-stereo.wav"
echo "wrote $out/true-stereo.wav  (cudaconv1d location=room4.wav: a 4-channel true-stereo response)"
audio lowpass 1 preset=low-pass cutoff=800 taps=255 latency=127

# Level statistics of the reverb, in the level element's messages: one a
# second (rms, peak and decaying peak per channel, dB).
levels=$(gst-launch-1.0 -m filesrc location="$out/reverb.wav" ! wavparse \
  ! audioconvert ! audio/x-raw,format=F32LE \
  ! cudaprefixsum interval=1000000000 ! fakesink 2>/dev/null \
  | grep -o 'level, endtime.*')
printf '%s\n' "$levels" | head -n 5 | sed -E 's/\(GValueArray\)//g; s/^/level: /'

# Its loudness as EBU R128 measures it (ebur128-level messages): the last
# message, at EOS, holds the whole file's integrated loudness and range.
loudness=$(gst-launch-1.0 -m filesrc location="$out/reverb.wav" ! wavparse \
  ! audioconvert ! audio/x-raw,format=F32LE \
  ! cudaprefixsum loudness=true interval=1000000000 ! fakesink 2>/dev/null \
  | grep -o 'ebur128-level, .*' | tail -n 1)
field() { printf '%s' "$loudness" | sed -nE "s/.*$1=\(double\)([-0-9.einf]+).*/\1/p"; }
printf 'loudness of reverb.wav: integrated %.1f LUFS, range %.1f LU, last 3 s %.1f LUFS\n' \
  "$(field global-loudness)" "$(field loudness-range)" \
  "$(field shortterm-loudness)"
