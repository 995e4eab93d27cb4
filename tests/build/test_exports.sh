#!/usr/bin/env bash
# The plugin's dynamic symbol table holds the entry points GST_PLUGIN_DEFINE
# exports (gst_plugin_<name>_get_desc and gst_plugin_<name>_register) and
# nothing else: every other function and variable of the kernels, the
# elements and the static CUDA runtime stays inside the shared object, where
# it cannot clash with a symbol of the same name in the application or in
# another plugin, and the loader has no table of thousands to resolve.
# The markers GNU ld defines in every shared object (__bss_start, _edata,
# _end) are not code and are let through.
#
#   test_exports.sh PLUGIN_SO
set -u
so=${1:?usage: test_exports.sh PLUGIN_SO}
nm=${NM:-nm}

if ! command -v "$nm" > /dev/null 2>&1; then
  echo "SKIP: no $nm to read the dynamic symbol table"
  exit 77
fi
if ! table=$("$nm" -D --defined-only "$so"); then
  echo "FAIL: $nm could not read $so"
  exit 1
fi
# the name, without a version suffix (name@@VERSION)
names=$(printf '%s\n' "$table" | awk 'NF >= 3 { sub (/@.*/, "", $3); print $3 }')
total=$(printf '%s\n' "$names" | grep -c .)
unexpected=$(printf '%s\n' "$names" \
    | grep -v -E '^(gst_plugin_[A-Za-z0-9_]+|__bss_start|_edata|_end)$')

if [ -n "$unexpected" ]; then
  count=$(printf '%s\n' "$unexpected" | grep -c .)
  echo "FAIL: $so exports $count symbols besides its entry points" \
      "($total defined in all):"
  if command -v c++filt > /dev/null 2>&1; then
    printf '%s\n' "$unexpected" | c++filt | sed 's/^/  /'
  else
    printf '%s\n' "$unexpected" | sed 's/^/  /'
  fi
  exit 1
fi
# and the entry points are there: without them GStreamer cannot load it
for suffix in get_desc register; do
  if ! printf '%s\n' "$names" | grep -q -E "^gst_plugin_[A-Za-z0-9_]+_$suffix\$"
  then
    echo "FAIL: $so does not export gst_plugin_*_$suffix"
    exit 1
  fi
done
echo "PASS: $so exports" $(printf '%s\n' "$names" | grep '^gst_plugin_')
