#!/usr/bin/env bash
# Runs gst-validate's seek, pause and state scenarios on a pipeline per
# element, each against the same pipeline with `identity` in the element's
# place, and prints what gst-validate reports for both. Exits 1 when an
# element's run reports an issue that the identity run of the same scenario
# does not (or fails where the identity run passes), 2 on a usage error.
#
#   scripts/validate.sh [options] [GST_VALIDATE_DIR]
#
# GST_VALIDATE_DIR (or $GST_VALIDATE_DIR): the install prefix of
# gst-devtools' validate part (bin/gst-validate-1.0) or its meson build
# folder. Debian 12 does not package gst-validate; against its GStreamer
# 1.22 development packages (and libjson-glib-dev), from the monorepo's tag
# 1.22.0 (about a minute on 2 cores):
#
#   git archive 1.22.0 subprojects/gst-devtools | tar x -C SRC
#   cd SRC/subprojects/gst-devtools
#   meson setup BUILD --prefix=PREFIX -Dvalidate=enabled -Dcairo=disabled \
#     -Ddebug_viewer=disabled -Dintrospection=disabled -Dtests=disabled \
#     -Ddoc=disabled -Dnls=disabled
#   ninja -C BUILD && meson install -C BUILD
#
#   -b, --build DIR      plugin build folder (build/; the plugin is DIR/plugin)
#   --backend B          backend of the elements: cpu (default), cuda or auto
#   -s, --scenarios L    comma-separated scenarios (default: seek_forward,
#                        seek_backward, scrub_forward_seeking, pause_resume,
#                        change_state_intensive, play_15s, fast_forward,
#                        play_to_end); play_to_end is no scenario: the file
#                        played to its EOS at rate 1, which the others cut
#                        short or reach only at times
#   -p, --pipelines L    comma-separated pipeline labels (default: all;
#                        cudaconv1d-lowpass, cudaconv1d-reverb, cudaconv2d,
#                        cudaprefixsum-video, cudaprefixsum-boxmean,
#                        cudaprefixsum-audio, and cudaconv1d-overlap off cpu)
#   -r, --repeat N       run each pipeline N times per scenario, issues
#                        merged (default 1; timing-dependent issues need more)
#   -j, --jobs N         runs at once (default 2; clocked runs use little CPU)
#   -t, --timeout S      seconds before a run counts as hung (default 180)
#   -k, --keep DIR       write media and logs to DIR and keep them
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
  exit 2
}

build=build
backend=cpu
scenarios=seek_forward,seek_backward,scrub_forward_seeking,pause_resume
scenarios=$scenarios,change_state_intensive,play_15s,fast_forward,play_to_end
only=
repeat=1
jobs=2
timeout_s=180
keep=
gv_dir=${GST_VALIDATE_DIR:-}
while [ $# -gt 0 ]; do
  case $1 in
    -b|--build) build=$2; shift ;;
    --backend) backend=$2; shift ;;
    -s|--scenarios) scenarios=$2; shift ;;
    -p|--pipelines) only=$2; shift ;;
    -r|--repeat) repeat=$2; shift ;;
    -j|--jobs) jobs=$2; shift ;;
    -t|--timeout) timeout_s=$2; shift ;;
    -k|--keep) keep=$2; shift ;;
    -h|--help) usage ;;
    -*) echo "unknown option $1" >&2; usage ;;
    *) gv_dir=$1 ;;
  esac
  shift
done

[ -n "$gv_dir" ] || { echo "no gst-validate: give its prefix or build" \
  "folder as argument or in GST_VALIDATE_DIR" >&2; exit 2; }
gv_dir=$(cd "$gv_dir" 2>/dev/null && pwd) || {
  echo "$gv_dir: no such folder" >&2; exit 2; }
plugin_dir=$(cd "$build/plugin" 2>/dev/null && pwd) || {
  echo "$build/plugin: no plugin build there (--build)" >&2; exit 2; }
ls "$plugin_dir"/libgstcudafilters.* >/dev/null 2>&1 || {
  echo "$plugin_dir: no libgstcudafilters" >&2; exit 2; }

# An install prefix has bin/ and share/; a build folder has the tool in
# validate/tools and the scenarios only in its source folder.
if [ -x "$gv_dir/bin/gst-validate-1.0" ]; then
  gv=$gv_dir/bin/gst-validate-1.0
  scen_dir=$(find "$gv_dir/share" -type d -path '*validate/scenarios' |
    head -n1)
elif [ -x "$gv_dir/validate/tools/gst-validate-1.0" ]; then
  gv=$gv_dir/validate/tools/gst-validate-1.0
  src=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["directories"]["source"])' \
    "$gv_dir/meson-info/meson-info.json")
  scen_dir=$src/validate/data/scenarios
else
  echo "$gv_dir: no gst-validate-1.0 in bin/ or validate/tools/" >&2
  exit 2
fi
[ -d "$scen_dir" ] || { echo "no scenarios folder for $gv" >&2; exit 2; }
gv_lib=$(dirname "$(find "$gv_dir" -name 'libgstvalidate-1.0.so*' | head -n1)")

multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
sys_plugins=$(pkg-config --variable=pluginsdir gstreamer-1.0 2>/dev/null ||
  echo "/usr/lib/$multiarch/gstreamer-1.0")

if [ -n "$keep" ]; then
  work=$keep
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/validate.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/logs"

# Only the in-tree plugin and the stock ones, as the test suite loads them.
export GST_PLUGIN_PATH_1_0=$plugin_dir:$sys_plugins
export GST_PLUGIN_SYSTEM_PATH_1_0=
export GST_REGISTRY_1_0=$work/registry.bin
export GST_VALIDATE_SCENARIOS_PATH=$scen_dir
export LD_LIBRARY_PATH=$gv_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# One report per monitor with its details (the default, synthetic, gives the
# details of criticals only).
export GST_VALIDATE_REPORTING_DETAILS=monitor
unset GST_VALIDATE_SCENARIO GST_VALIDATE_CONFIG GST_VALIDATE

# The media: seeks need a duration, so files rather than test sources.
# 20 s each, longer than play_15s plays. Video as raw frames read by
# rawvideoparse: every frame a key frame, no decoder before the element,
# and a static source pad (gst-validate's pipelines link a demuxer's pad
# once, so change_state_intensive would fail on not-linked after the first
# NULL).
audio=$work/audio.wav
video=$work/video.yuv
ir=$work/ir.wav
gst-launch-1.0 -q audiotestsrc num-buffers=862 samplesperbuffer=1024 \
  wave=sine freq=440 ! audio/x-raw,format=S16LE,rate=44100,channels=2 ! \
  wavenc ! filesink location="$audio"
gst-launch-1.0 -q videotestsrc num-buffers=500 pattern=ball ! \
  video/x-raw,format=I420,width=320,height=240,framerate=25/1 ! \
  filesink location="$video"
# Half a second of decaying-free noise as an impulse response: long enough
# for the FFT path and a tail of 22049 frames at EOS.
gst-launch-1.0 -q audiotestsrc num-buffers=1 samplesperbuffer=22050 \
  wave=pink-noise ! audio/x-raw,format=F32LE,rate=44100,channels=1 ! \
  wavenc ! filesink location="$ir"

asrc="filesrc location=$audio ! wavparse"
vsrc="filesrc location=$video ! rawvideoparse format=i420 width=320"
vsrc="$vsrc height=240 framerate=25/1"
sink="fakesink sync=true"
be="backend=$backend"

# label|source|element as it stands in the pipeline
pipelines=(
  "cudaconv1d-lowpass|$asrc|cudaconv1d $be preset=low-pass latency=127"
  "cudaconv1d-reverb|$asrc|cudaconv1d $be location=$ir normalize=true mix=0.4"
  "cudaconv2d|$vsrc|cudaconv2d $be preset=gaussian sigma=2.5"
  "cudaprefixsum-video|$vsrc|cudaprefixsum $be grid-columns=4 grid-rows=3"
  "cudaprefixsum-boxmean|$vsrc|cudaprefixsum $be output=box-mean radius=8"
  "cudaprefixsum-audio|$asrc|cudaprefixsum $be"
)
if [ "$backend" != cpu ]; then
  pipelines+=(
    "cudaconv1d-overlap|$asrc|cudaconv1d $be preset=low-pass overlap=true")
fi

# Issue summaries to ids ("query::position-superior-duration").
"$gv" --print-issue-types 2>/dev/null | awk '
  /^# `/ { id = $2; gsub(/`/, "", id); getline; getline
    print tolower($0) "\t" id }' \
  > "$work/issue-ids.tsv"
gst-inspect-1.0 cudaconv1d >/dev/null   # the registry, once, before jobs

IFS=, read -r -a scen_list <<<"$scenarios"

# run LOG PIPELINE SCENARIO: one gst-validate run, its report in LOG.
run() {
  local log=$1 desc=$2 scen=--set-scenario=$3 rc=0
  [ "$3" != play_to_end ] || scen=
  GST_VALIDATE_FILE=$log.report timeout -k 10 "$timeout_s" \
    "$gv" $scen $desc >"$log.out" 2>&1 || rc=$?
  echo "$rc" >"$log.rc"
}

waitslot() {
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
}

# Identity runs are shared by the pipelines of one source.
declare -A base_of
for p in "${pipelines[@]}"; do
  IFS='|' read -r label src elt <<<"$p"
  if [ -n "$only" ] && [[ ",$only," != *",$label,"* ]]; then
    continue
  fi
  case $src in
    "$asrc") base=identity-audio ;;
    *) base=identity-video ;;
  esac
  base_of[$label]=$base
  for s in "${scen_list[@]}"; do
    for i in $(seq "$repeat"); do
      for what in "$label|$elt" "$base|identity"; do
        name=${what%%|*}
        log=$work/logs/$name.$s.$i
        [ -e "$log.started" ] && continue
        touch "$log.started"
        waitslot
        echo "running $name $s ($i/$repeat)" >&2
        run "$log" "$src ! ${what#*|} ! $sink" "$s" &
      done
    done
  done
done
wait

# summarise NAME SCENARIO: "c/w/i" counts of the distinct issues (and the
# exit status of failed runs), then "id<TAB>level: summary" for each;
# merged over the repeats.
summarise() {
  local name=$1 scen=$2 f rcs=
  for f in "$work/logs/$name.$scen".*.rc; do
    rc=$(cat "$f")
    [ "$rc" = 0 ] || rcs="$rcs rc=$rc"
  done
  cat "$work/logs/$name.$scen".*.report 2>/dev/null | awk -F'\t' -v rcs="$rcs" '
    FNR == NR { id[$1] = $2; next }
    match($0, /^ *(critical|warning|issue) : /) {
      lvl = $0; sub(/^ */, "", lvl); sub(/ : .*/, "", lvl)
      sum = $0; sub(/^ *[a-z]+ : /, "", sum)
      key = (tolower(sum) in id) ? id[tolower(sum)] : sum
      if (!(key in seen)) {
        seen[key] = lvl; text[key] = sum; order[n++] = key; cnt[lvl]++
      }
      next
    }
    END {
      printf "%d/%d/%d%s\n", cnt["critical"], cnt["warning"], cnt["issue"], rcs
      for (i = 0; i < n; i++)
        print order[i] "\t" seen[order[i]] ": " text[order[i]]
    }' "$work/issue-ids.tsv" -
}

# details NAME SCENARIO ID: where and what, from the reports.
details() {
  local sum
  sum=$(awk -F'\t' -v id="$3" '$2 == id { print $1; exit }' \
    "$work/issue-ids.tsv")
  [ -n "$sum" ] || sum=$3
  cat "$work/logs/$1.$2".*.report | awk -v sum="$sum" '
    /^ *(critical|warning|issue) : / && index(tolower($0), " : " tolower(sum)) {
      on = 1; next
    }
    on && /^ *(Detected on|Details :)/ { sub(/^ */, "      "); print; next }
    on && /^ *(Description :|backtrace :)/ { on = 0 }
    on && /^$/ { on = 0 }' | sort -u | head -n 8
}

status=0
fmt="%-22s %-23s %-9s %-9s %s\n"
printf "$fmt" pipeline scenario element identity "issues of the element only"
printf "$fmt" -------- -------- ------- -------- --------------------------
: >"$work/new.txt"
: >"$work/all.txt"
for p in "${pipelines[@]}"; do
  IFS='|' read -r label src elt <<<"$p"
  [ -n "${base_of[$label]:-}" ] || continue
  for s in "${scen_list[@]}"; do
    mapfile -t e < <(summarise "$label" "$s")
    mapfile -t b < <(summarise "${base_of[$label]}" "$s")
    new=()
    for line in "${e[@]:1}"; do
      printf '%s\n' "${b[@]:1}" | grep -qxF -- "$line" ||
        new+=("${line%%$'\t'*}")
      echo "  $label, $s: $line" >>"$work/all.txt"
    done
    for line in "${b[@]:1}"; do
      echo "  ${base_of[$label]}, $s: $line" >>"$work/all.txt"
    done
    # A run that fails (critical issue, crash, hang) where identity passes.
    if [[ ${e[0]} == *rc=* && ${b[0]} != *rc=* ]]; then
      new+=("(exit:${e[0]#* })")
    fi
    printf "$fmt" "$label" "$s" "${e[0]%% *}" "${b[0]%% *}" \
      "$(IFS=' '; echo "${new[*]:-}")"
    for id in "${new[@]}"; do
      status=1
      {
        echo "$label, $s: $id"
        [[ $id == "(exit:"* ]] || details "$label" "$s" "$id"
      } >>"$work/new.txt"
    done
  done
done
echo
echo "element, identity: critical/warning/issue counts of distinct issues" \
  "(merged over $repeat run(s)); backend=$backend"
if [ -s "$work/all.txt" ]; then
  echo
  echo "Distinct issues of each run:"
  sort -u "$work/all.txt" | tr '\t' ' '
fi
if [ -s "$work/new.txt" ]; then
  echo
  echo "Issues of the elements that identity does not have:"
  cat "$work/new.txt"
fi
[ -z "$keep" ] || echo "logs: $work/logs"
exit $status
