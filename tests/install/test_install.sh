#!/usr/bin/env bash
# Installs the build (meson install --destdir into a temporary folder),
# then builds tests/install/app.c as an application would, with pkg-config
# and the installed header only, and runs it against the installed plugin.
#
#   tests/install/test_install.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: test_install.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
pc=$(find "$dest" -name gstreamer-cuda-filters-1.0.pc)
[ -n "$pc" ] || { echo "no gstreamer-cuda-filters-1.0.pc installed"; exit 1; }
prefix=$(pkg-config --variable=prefix "$pc")
export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
flags=(--define-variable=prefix="$dest$prefix")

plugins=$(pkg-config "${flags[@]}" --variable=pluginsdir gstreamer-cuda-filters-1.0)
[ -f "$plugins/libgstcudafilters.so" ] || { echo "no plugin in $plugins"; exit 1; }
# the prefix moved for our file only: GStreamer's stay where they are
# shellcheck disable=SC2046
cc -o "$dest/app" "$here/app.c" \
  $(pkg-config "${flags[@]}" --cflags gstreamer-cuda-filters-1.0) \
  $(pkg-config --cflags --libs gstreamer-cuda-filters-1.0 gstreamer-app-1.0 \
    gstreamer-video-1.0) -lm

GST_PLUGIN_PATH_1_0="$plugins" GST_REGISTRY_1_0="$dest/registry.bin" \
  "$dest/app" "${2:-cpu}"
