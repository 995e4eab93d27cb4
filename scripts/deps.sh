#!/usr/bin/env bash
# Installs what the build and the tests need on Debian 12 or 13 (or Ubuntu),
# with apt-get, when it is missing. The CUDA toolkit is NVIDIA's, in
# /usr/local/cuda (see README), or, on Debian 13, Debian's own.
set -euo pipefail

packages=(
  meson ninja-build pkg-config gcc g++
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-dev
  libkissfft-dev libfftw3-dev libsndfile1-dev libebur128-dev
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  gstreamer1.0-opencv opencv-data
)

# Debian 13 and newer carry a CUDA 12 toolkit in non-free: where none is
# installed (no nvcc in /usr/local/cuda or on PATH), take that one. Debian
# 12's is 11.8, older than the build accepts: there, NVIDIA's toolkit.
candidate=$(apt-cache policy nvidia-cuda-toolkit 2>/dev/null \
  | awk '/Candidate:/ {print $2}')
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ] \
    && [[ ${candidate%%.*} =~ ^[0-9]+$ ]] && [ "${candidate%%.*}" -ge 12 ]; then
  packages+=(nvidia-cuda-toolkit)
fi

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
