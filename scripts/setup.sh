#!/bin/sh
# Installs the Debian packages pmusim needs to build and test, only those
# that are missing, then configures the build directory (default: build).
#   scripts/setup.sh [BUILDDIR] [meson options...]
set -eu
cd "$(dirname "$0")/.."
builddir=${1:-build}
[ $# -gt 0 ] && shift

packages="meson ninja-build pkg-config gcc python3 libglib2.0-dev libcunit1-dev libjson-glib-dev libzstd-dev libcapstone-dev qemu-user valgrind gtkwave"
missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -n "$missing" ]; then
    echo "setup: installing:$missing" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >&2
fi

if [ -f "$builddir/build.ninja" ]; then
    meson configure "$builddir" "$@" >/dev/null
else
    meson setup "$builddir" "$@" >&2
fi
