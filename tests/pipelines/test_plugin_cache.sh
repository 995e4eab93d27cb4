#!/usr/bin/env bash
# Checks docs/gst_plugins_cache.json against the built plugin (its
# elements, pad templates, properties and enums), so that the documentation
# cache never goes stale. Exits 77 when no Python with PyGObject's
# GStreamer bindings is installed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
for py in /usr/bin/python3 python3; do
  if "$py" -c 'import gi; gi.require_version("Gst", "1.0")' 2>/dev/null; then
    exec "$py" "$root/scripts/plugin_cache.py" --check \
      "$root/docs/gst_plugins_cache.json"
  fi
done
echo "SKIP plugin cache: no python3 with PyGObject's GStreamer bindings"
exit 77
