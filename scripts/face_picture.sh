#!/usr/bin/env bash
# Prints the path of a photograph with a face, for facedetect: scikit-image's
# astronaut.png (a NASA portrait in the public domain), taken from Debian's
# python3-skimage package without installing it, into a cache folder.
# Exits 1, with the reason on stderr, where the package cannot be had.
set -euo pipefail
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gst-cuda-filters
picture=$cache/astronaut.png
if [ ! -s "$picture" ]; then
  mkdir -p "$cache/deb"
  ( cd "$cache/deb" && apt-get download -qq python3-skimage >/dev/null 2>&1 ) \
    || { echo "cannot download Debian's python3-skimage" >&2; exit 1; }
  deb=$(ls "$cache"/deb/python3-skimage_*.deb | head -n 1)
  dpkg-deb --fsys-tarfile "$deb" \
    | tar -xO --wildcards '*/skimage/data/astronaut.png' > "$picture.part" \
    || { echo "no astronaut.png in $deb" >&2; rm -f "$picture.part"; exit 1; }
  mv "$picture.part" "$picture"
  rm -rf "$cache/deb"
fi
echo "$picture"
