#!/bin/sh
# The main job, from nothing: install what is missing, build, and replay a
# bundled sample trace through the Itanium 2 and Westmere models with the
# default event sets, printing the counts.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh build
meson compile -C build >&2
set -x
build/sim/cli/pmusim stat traces/samples/ita2_loop.txt
build/sim/cli/pmusim stat traces/samples/wsm_loop.txt
