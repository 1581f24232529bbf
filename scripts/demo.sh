#!/bin/sh
# The main job, from nothing: install what is missing, build, replay the
# bundled sample traces through the Itanium 2 and Westmere models with the
# default event sets, then capture a real C program under QEMU and count it
# like a Westmere PMU would (docs/CAPTURE.md).
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh build
meson compile -C build >&2
set -x
build/sim/cli/pmusim stat traces/samples/ita2_loop.txt
build/sim/cli/pmusim stat traces/samples/wsm_loop.txt
demo=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-demo.XXXXXX")
cc -O2 -o "$demo/branchy" tests/capture/progs/branchy.c
build/sim/cli/pmusim trace capture --cpu wsm --clean-env -o "$demo/branchy.pmt" -- "$demo/branchy" 200000
build/sim/cli/pmusim stat -e cycles,instructions,branches,branch-misses,L1-dcache-load-misses "$demo/branchy.pmt"
rm -rf "$demo"
