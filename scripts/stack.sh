#!/usr/bin/env bash
# Builds and tests the project on another Debian release than the host's,
# in a root made with debootstrap: trixie (Debian 13) brings GStreamer 1.26
# and Debian's own CUDA 12 toolkit, beside the host's GStreamer 1.22 and
# NVIDIA's CUDA 13.
#
#   scripts/stack.sh trixie                 make the root (once) and enter it
#   scripts/stack.sh trixie CMD [ARG...]    run CMD in the repository there
#
# The root lives in $STACK_DIR/NAME (default /var/tmp/gst-cuda-filters-
# stacks), is made once and reused: a second run only installs what the
# package list gained since. The repository is mounted at /src inside it,
# so build folders made there (build-trixie/) are in the checkout. Needs
# root (or sudo) for debootstrap, mount and chroot.
set -euo pipefail
cd "$(dirname "$0")/.."

release=${1:?usage: scripts/stack.sh RELEASE [COMMAND...]}
shift
case "$release" in
  trixie) ;;
  *) echo "stack.sh: unknown release '$release' (known: trixie)" >&2; exit 2 ;;
esac

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
stack_dir=${STACK_DIR:-/var/tmp/gst-cuda-filters-stacks}
root=$stack_dir/$release
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# What the build and the tests need there: scripts/deps.sh's list (read
# from it, so the two stay one) and the release's CUDA toolkit from non-free.
mapfile -t packages < <(sed -n '/^packages=(/,/^)/p' scripts/deps.sh \
  | sed '1d;$d' | tr ' ' '\n' | sed '/^$/d')
packages+=(nvidia-cuda-toolkit)

if [ ! -x "$root/usr/bin/apt-get" ]; then
  if ! command -v debootstrap >/dev/null; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
      --no-install-recommends debootstrap
  fi
  echo "stack.sh: making a $release root in $root"
  $sudo mkdir -p "$stack_dir"
  $sudo rm -rf "$root.partial"
  $sudo debootstrap --variant=minbase \
    --components=main,contrib,non-free,non-free-firmware \
    "$release" "$root.partial" "$mirror"
  $sudo mv "$root.partial" "$root"
fi

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    $sudo umount "${mounted[i]}" 2>/dev/null || $sudo umount -l "${mounted[i]}"
  done
}
trap cleanup EXIT
bind() {
  $sudo mkdir -p "$root$2"
  mountpoint -q "$root$2" && return
  $sudo mount --bind "$1" "$root$2"
  mounted+=("$root$2")
}
bind /proc /proc
bind /dev /dev
bind /sys /sys
bind "$PWD" /src
$sudo cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

in_root() {
  $sudo chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive "$@"
}

stamp=/var/lib/gst-cuda-filters-packages
if [ "$(in_root cat $stamp 2>/dev/null)" != "${packages[*]}" ]; then
  echo "stack.sh: installing in $release: ${packages[*]}"
  in_root apt-get update -qq
  in_root apt-get install -y -qq --no-install-recommends "${packages[@]}"
  in_root apt-get clean
  echo "${packages[*]}" | $sudo tee "$root$stamp" >/dev/null
fi

if [ $# -eq 0 ]; then
  in_root /bin/bash -c 'cd /src && exec bash -i'
else
  in_root /bin/bash -c 'cd /src && exec "$@"' bash "$@"
fi
