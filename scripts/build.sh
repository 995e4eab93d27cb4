#!/usr/bin/env bash
# Installs the build dependencies, configures build/ (meson options may be
# given as arguments, e.g. -Dcuda=enabled -Dgpu_archs=90) and builds.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
if [ -f build/build.ninja ]; then
  [ $# -eq 0 ] || meson configure build "$@"
else
  meson setup build "$@"
fi
ninja -C build
