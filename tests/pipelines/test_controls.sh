#!/usr/bin/env bash
# Runs pipelines/controls.py (the Python example) on the CPU backend and
# checks its verdict. Exits 77 when no Python with PyGObject's GStreamer
# bindings is installed (Debian: python3-gi, gir1.2-gstreamer-1.0).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
for py in /usr/bin/python3 python3; do
  if "$py" -c 'import gi; gi.require_version("Gst", "1.0")' 2>/dev/null; then
    out=$("$py" "$root/pipelines/controls.py" --backend "${1:-cpu}" 2>&1)
    rc=$?
    echo "$out"
    [ $rc = 0 ] && grep -q "^controls: ok" <<< "$out"
    exit $?
  fi
done
echo "SKIP controls.py: no python3 with PyGObject's GStreamer bindings"
exit 77
