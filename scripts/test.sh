#!/bin/sh
# The whole test suite, from nothing: install what is missing, build with
# -Werror, run every test suite (unit, golden, fuzz corpora).  Benchmarks
# are not run here (meson test -C build --benchmark).
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh build -Dwerror=true
meson compile -C build
status=0
meson test -C build --print-errorlogs --num-processes 2 | tee build/meson-logs/test-summary.txt || status=$?
ok=$(awk '/^Ok:/ {print $2}' build/meson-logs/test-summary.txt)
fail=$(awk '/^Fail:/ {print $2}' build/meson-logs/test-summary.txt)
echo "tests: ${ok:-0} passed, ${fail:-0} failed"
exit $status
