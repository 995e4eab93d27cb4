#!/usr/bin/env bash
# Builds (installing the build dependencies first) and runs every test that
# can run here: CPU kernels and element behaviour everywhere, GPU tests
# where a GPU is present (they say SKIP, with the reason, where none is).
# Arguments are meson options for the first configuration; $BUILD_DIR
# names the build folder (build/ by default).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh "$@"
meson test -C "${BUILD_DIR:-build}" --print-errorlogs --num-processes 2
