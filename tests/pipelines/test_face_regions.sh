#!/usr/bin/env bash
# Faces blurred where a real detector finds them, as a user runs it:
# facedetect (gst-plugins-bad's opencv plugin) attaches a "face"
# region-of-interest meta to a photograph's face
# (scripts/face_picture.sh), and cudaconv2d roi=true on BACKEND (cpu, or
# cuda: exits 77 without a GPU) blurs only there:
#
# 1. every byte outside the face's rectangle and its feather is the
#    photograph's, and the face is changed (blurred);
# 2. roi-types naming another type changes nothing;
# 3. the same with roi=false changes the whole picture.
#
# Exits 77 where facedetect, its cascades or the photograph are missing.
set -u
backend=${1:-cpu}
if [ "$backend" = cuda ] && ! { command -v nvidia-smi >/dev/null \
    && nvidia-smi -L >/dev/null 2>&1; }; then
  echo "SKIP face-regions: no GPU"
  exit 77
fi
if ! gst-inspect-1.0 facedetect >/dev/null 2>&1; then
  echo "SKIP face-regions: no facedetect (Debian's gstreamer1.0-opencv)"
  exit 77
fi
cascade=/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
if [ ! -f "$cascade" ]; then
  echo "SKIP face-regions: no $cascade (Debian's opencv-data)"
  exit 77
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! picture=$(bash "$root/scripts/face_picture.sh"); then
  echo "SKIP face-regions: no photograph with a face"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# run NAME FILTER: the photograph through facedetect and FILTER to raw RGB
# in $dir/NAME.raw, the messages in $dir/NAME.log
run() {
  gst-launch-1.0 -m filesrc location="$picture" ! pngdec ! videoconvert \
    ! facedetect display=false updates=every_frame profile="$cascade" \
    ! videoconvert ! $2 ! videoconvert ! video/x-raw,format=RGB \
    ! filesink location="$dir/$1.raw" > "$dir/$1.log" 2>&1 \
    || fail "$1: exit status $? ($(grep -m1 '^ERROR' "$dir/$1.log"))"
}

run source identity
run faces "cudaconv2d backend=$backend roi=true roi-types=face roi-sigma=0.15 roi-feather=8"
run plates "cudaconv2d backend=$backend roi=true roi-types=license-plate roi-sigma=0.15"
run whole "cudaconv2d backend=$backend preset=gaussian sigma=4"
face=$(python3 - "$dir/faces.log" <<'PY'
import re, sys
m = re.search(r"x\\=\\\(uint\\\)(\d+).*?y\\=\\\(uint\\\)(\d+).*?"
              r"width\\=\\\(uint\\\)(\d+).*?height\\=\\\(uint\\\)(\d+)",
              open(sys.argv[1]).read())
print(" ".join(m.groups()) if m else "")
PY
)
[ -n "$face" ] || fail "facedetect found no face"

if [ "$failed" = 0 ]; then
  python3 - "$dir" "$picture" $face <<'PY' || failed=1
import struct, sys
d = sys.argv[1]
width = struct.unpack(">I", open(sys.argv[2], "rb").read()[16:20])[0]
x, y, w, h = map(int, sys.argv[3:7])
src = open(d + "/source.raw", "rb").read()
feather = 8
def outside(px, py):
    return (px < x - feather or px >= x + w + feather
            or py < y - feather or py >= y + h + feather)
def check(name, changed_inside, changed_outside):
    out = open(d + "/" + name + ".raw", "rb").read()
    if len(out) != len(src):
        print("FAIL: %s: %d bytes, the source %d" % (name, len(out), len(src)))
        return False
    height = len(src) // (3 * width)
    diff_in = diff_out = n_in = 0
    for py in range(height):
        for px in range(width):
            at = 3 * (py * width + px)
            d_px = sum(abs(out[at + c] - src[at + c]) for c in range(3))
            if outside(px, py):
                diff_out += d_px > 0
            elif x <= px < x + w and y <= py < y + h:
                diff_in += d_px
                n_in += 3
    mean_in = diff_in / max(n_in, 1)
    ok = (mean_in > 3) == changed_inside and (diff_out > 0) == changed_outside
    print("%s %s: face %dx%d at (%d, %d), mean change inside %.2f, "
          "pixels changed outside %d" % ("PASS" if ok else "FAIL", name, w, h,
                                         x, y, mean_in, diff_out))
    return ok
ok = check("faces", True, False)
ok = check("plates", False, False) and ok
ok = check("whole", True, True) and ok
sys.exit(0 if ok else 1)
PY
fi
[ "$failed" = 0 ] && echo "face-regions: passed" || echo "face-regions: failed"
exit $failed
