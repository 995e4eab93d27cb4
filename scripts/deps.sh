#!/usr/bin/env bash
# Installs what the build and the tests need on Debian 12 (or Ubuntu), with
# apt-get, when it is missing. The CUDA toolkit is not installed here: the
# build looks for it in /usr/local/cuda (see README).
set -euo pipefail

packages=(
  meson ninja-build pkg-config gcc g++
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-dev
  libkissfft-dev libfftw3-dev libsndfile1-dev
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
    || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
  "${missing[@]}"
