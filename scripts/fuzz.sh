#!/bin/sh
# Runs every libFuzzer target in the tree under ASan and UBSan for a given
# time each, and prints the executions each one made.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET_NAME...]
#
# SECONDS defaults to 60; FUZZ_RUNS=N instead stops each target after N
# executions (the issue's bar is 10,000,000 per target).  It builds
# build-fuzz/ with clang (-Db_sanitize=address,undefined, and every library
# compiled with -fsanitize=fuzzer-no-link so that the fuzzer sees the
# coverage of the code under test, not only of the target's own file), finds every executable there that links
# the libFuzzer driver (the targets each tests/fuzz/*/meson.build declares
# when the compiler supports -fsanitize=fuzzer), and runs each with
#   - a fresh work corpus build-fuzz/corpora/NAME (new inputs go there, the
#     tree is never written), seeded from tests/fuzz/DIR/corpus_SUFFIX if that
#     exists (SUFFIX = NAME without "fuzz-" and "-libfuzzer", dashes as
#     underscores, e.g. fuzz-lackey -> corpus_lackey), else tests/fuzz/DIR/corpus;
#   - crash/leak/timeout reproducers written to build-fuzz/artifacts/NAME-*;
#   - -max_total_time=SECONDS -rss_limit_mb=2048 -timeout=10, one job (the
#     project machines have 2 cores shared by several users);
#   - the options in tests/fuzz/DIR/options_SUFFIX, if that file exists (one
#     libFuzzer flag per line, '#' comments).  fuzz-check and fuzz-capture
#     run with -entropic=0: with the tens of thousands of coverage features
#     one of their executions sets, libFuzzer's bookkeeping of rare features
#     took 3 times as long as the target (fuzz-check 194 against 645
#     executions/s, fuzz-capture 102 against 363, one core, same corpus).
# A finding stops that target; the script goes on with the others and exits 1
# if any target found something.  To keep a finding as a regression case,
# copy its reproducer into the target's seed corpus: the replay tests of
# `meson test --suite fuzz` run it from then on.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
command -v clang >/dev/null || { echo "fuzz.sh: clang is needed (apt-get install clang)" >&2; exit 1; }
if [ ! -d build-fuzz ]; then
    CC=clang meson setup build-fuzz -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
ninja -C build-fuzz -j2 >/dev/null
mkdir -p build-fuzz/corpora build-fuzz/artifacts
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
status=0
summary=""
for bin in $(find build-fuzz/tests/fuzz -type f -perm -u+x -name 'fuzz-*' | sort); do
    nm "$bin" 2>/dev/null | grep -q LLVMFuzzerRunDriver || continue
    name=$(basename "$bin")
    if [ $# -gt 0 ]; then
        case " $* " in *" $name "*) ;; *) continue ;; esac
    fi
    dir=tests/fuzz/$(basename "$(dirname "$bin")")
    suffix=$(echo "$name" | sed -e 's/^fuzz-//' -e 's/-libfuzzer$//' | tr - _)
    seed=$dir/corpus_$suffix
    [ -d "$seed" ] || seed=$dir/corpus
    work=build-fuzz/corpora/$name
    mkdir -p "$work"
    log=build-fuzz/artifacts/$name.log
    if [ -n "${FUZZ_RUNS:-}" ]; then
        limit="-runs=$FUZZ_RUNS"
        echo "fuzz.sh: $name for $FUZZ_RUNS executions (seeds: $seed)"
    else
        limit="-max_total_time=$secs"
        echo "fuzz.sh: $name for ${secs}s (seeds: $seed)"
    fi
    opts=""
    [ -f "$dir/options_$suffix" ] && opts=$(sed -e 's/#.*//' "$dir/options_$suffix" | tr '\n' ' ')
    start=$(date +%s)
    # shellcheck disable=SC2086 # $limit and $opts are lists of flags
    if "$bin" "$work" "$seed" $limit $opts -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="build-fuzz/artifacts/$name-" -print_final_stats=1 >"$log" 2>&1; then
        result=ok
    elif [ $? -eq 72 ]; then
        # libFuzzer's exit status after SIGINT/SIGTERM (-interrupted_exitcode)
        result="interrupted"
        status=1
    else
        result="FOUND SOMETHING (see $log and build-fuzz/artifacts/$name-*)"
        status=1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    summary="$summary$name: ${runs:-?} executions in $(( $(date +%s) - start ))s: $result
"
done
[ -n "$summary" ] || { echo "fuzz.sh: no libFuzzer target found in build-fuzz" >&2; exit 1; }
printf '%s' "$summary"
exit $status
