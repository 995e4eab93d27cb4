#!/usr/bin/env bash
# Installs the build dependencies, configures the build folder ($BUILD_DIR,
# build/ by default; meson options may be given as arguments, e.g.
# -Dcuda=enabled -Dgpu_archs=90) and builds. A first configuration builds
# the CUDA kernels for this machine's GPUs only (-Dgpu_archs=native), or for
# every supported generation where it has none, unless told otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

bash scripts/deps.sh
if [ -f "$build/build.ninja" ]; then
  [ $# -eq 0 ] || meson configure "$build" "$@"
else
  archs=-Dgpu_archs=native
  for a in "$@"; do
    [[ $a == -Dgpu_archs=* ]] && archs=
  done
  meson setup "$build" $archs "$@"
fi
ninja -C "$build"
