#!/bin/sh
# Every check beyond scripts/test.sh, in one command:
#   1. the whole suite in an ASan/UBSan build (build-asan/, gcc);
#   2. the whole suite under valgrind memcheck (`meson test --setup valgrind`
#      in build/), skipped with a message when valgrind is not installed;
#   3. the fuzz corpora (suite fuzz) in both builds, and, when clang is
#      installed, every libFuzzer target for FUZZ_SECONDS each
#      (scripts/fuzz.sh; default 10, 0 skips).
# Exits 1 if any step fails; prints one line per step.
#
#   scripts/check-all.sh            FUZZ_SECONDS=600 scripts/check-all.sh
set -u
cd "$(dirname "$0")/.."
fuzz_secs=${FUZZ_SECONDS:-10}
status=0
report=""
step() { # NAME COMMAND...
    name=$1
    shift
    echo "check-all.sh: $name"
    if "$@"; then
        report="$report$name: ok
"
    else
        report="$report$name: FAILED
"
        status=1
    fi
}
setup_build() {
    [ -d build ] || meson setup build -Dwerror=true >/dev/null
    ninja -C build -j2 >/dev/null
}
setup_asan() {
    [ -d build-asan ] || meson setup build-asan -Dwerror=true -Db_sanitize=address,undefined \
        -Db_lundef=false >/dev/null
    ninja -C build-asan -j2 >/dev/null
}
step "build" setup_build
step "build (ASan/UBSan)" setup_asan
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
    step "suite (ASan/UBSan)" meson test -C build-asan --num-processes 2 --print-errorlogs
if command -v valgrind >/dev/null; then
    step "suite (valgrind memcheck)" meson test -C build --setup valgrind --num-processes 2 \
        --print-errorlogs
else
    echo "check-all.sh: valgrind is not installed: memcheck step skipped (apt-get install valgrind)"
    report="${report}suite (valgrind memcheck): skipped, valgrind not installed
"
fi
step "fuzz corpora" meson test -C build --suite fuzz --num-processes 2 --print-errorlogs
if [ "$fuzz_secs" != 0 ] && command -v clang >/dev/null; then
    step "libFuzzer targets, ${fuzz_secs}s each" scripts/fuzz.sh "$fuzz_secs"
else
    report="${report}libFuzzer targets: skipped (clang missing or FUZZ_SECONDS=0)
"
fi
printf '\n%s' "$report"
exit $status
