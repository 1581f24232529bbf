#!/bin/sh
# The whole test suite, from nothing: install what is missing, build with
# -Werror, run every test suite (unit, golden, fuzz corpora, cli).
# Benchmarks are not run here (meson test -C build-test --benchmark).
#
# The build directory is build-test (override: PMUSIM_TEST_BUILDDIR), its
# own: scripts/demo.sh and the README's commands use `build`, configured
# with their own options, and running the tests must not reconfigure it.
set -eu
cd "$(dirname "$0")/.."
builddir=${PMUSIM_TEST_BUILDDIR:-build-test}
scripts/setup.sh "$builddir" -Dwerror=true
meson compile -C "$builddir"
# the suite's status, not tee's: sh has no pipefail
rcfile="$builddir/meson-logs/test-status"
echo 0 >"$rcfile"
{ meson test -C "$builddir" --print-errorlogs --num-processes 2 || echo $? >"$rcfile"; } |
    tee "$builddir/meson-logs/test-summary.txt"
status=$(cat "$rcfile")
ok=$(awk '/^Ok:/ {print $2}' "$builddir/meson-logs/test-summary.txt")
fail=$(awk '/^Fail:/ {print $2}' "$builddir/meson-logs/test-summary.txt")
echo "tests: ${ok:-0} passed, ${fail:-0} failed"
exit $status
