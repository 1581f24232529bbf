#!/bin/sh
# pmusim record -o against its fixtures and against the real perf.
#
#   perf_check.sh PMUSIM SOURCE_ROOT files   record -o rewrites the perf.data
#                                            fixtures byte for byte; -o - streams
#                                            them; -o failures leave nothing
#   perf_check.sh PMUSIM SOURCE_ROOT perf    perf report / script / mem report read
#                                            what record -o writes (exit 77 without perf)
#
# (record --json is parsed by test_record_json.c with json-glib.)
PMUSIM=$1 ROOT=$2 MODE=$3
DATA=$ROOT/tests/unit/frontdoor/data
cd "$ROOT" || exit 1
failures=0
check() { # check STATUS WHAT: STATUS 0 passes
    if [ "$1" -eq 0 ]; then echo "ok   $2"; else echo "FAIL $2"; failures=$((failures + 1)); fi
}
TMP=$(mktemp -d) || exit 1
trap 'chmod -R u+w "$TMP"; rm -rf "$TMP"' EXIT

# the fixtures and the record arguments that made them
ARGS_wsm_loop_c50="-e wsm::INST_RETIRED:ANY_P -c 50 traces/samples/wsm_loop.txt"
ARGS_wsm_ldlat_c3="--pmu wsm -c 3 --regs tests/unit/frontdoor/wsm_ldlat.regs traces/samples/wsm_loop.txt"
ARGS_ita2_c9="-e IA64_INST_RETIRED,CPU_CYCLES -c 9 traces/samples/ita2_loop.txt"
ARGS_ita2_btb_c2="-e BRANCH_EVENT -c 2 --skid 0 traces/samples/ita2_loop.txt"

record() { # record NAME ARGS...: record -o $TMP/NAME
    name=$1
    shift
    "$PMUSIM" record -o "$TMP/$name" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    check $rc "record -o $name: exit $rc $(cat "$TMP/err")"
}

files_mode() {
    for f in wsm_loop_c50 wsm_ldlat_c3 ita2_c9 ita2_btb_c2; do
        eval "args=\$ARGS_$f"
        # shellcheck disable=SC2086 # the arguments are words
        record "$f.data" $args
        cmp -s "$TMP/$f.data" "$DATA/$f.data"
        check $? "$f.data is byte for byte the fixture"
    done
    # -o -: the perf.data stream on stdout, byte for byte; the text on stderr
    # shellcheck disable=SC2086
    "$PMUSIM" record -o - $ARGS_wsm_loop_c50 >"$TMP/stream" 2>"$TMP/err"
    rc=$?
    cmp -s "$TMP/stream" "$DATA/wsm_loop_c50.data" && [ $rc -eq 0 ] &&
        grep -q "# Samples: 4" "$TMP/err"
    check $? "record -o - streams the same perf.data to stdout, the summary to stderr"
    # an output that cannot be written leaves nothing behind
    # shellcheck disable=SC2086
    "$PMUSIM" record -o "$TMP/no-such-dir/x.data" $ARGS_wsm_loop_c50 >/dev/null 2>&1
    rc=$?
    [ $rc -eq 1 ] && [ ! -e "$TMP/no-such-dir" ]
    check $? "record -o into a missing directory: exit 1, nothing created"
    before=$(ls "$TMP")
    mkdir -m 555 "$TMP/ro"
    # shellcheck disable=SC2086
    "$PMUSIM" record -o "$TMP/ro/x.data" $ARGS_wsm_loop_c50 >/dev/null 2>&1
    rc=$?
    if [ "$(id -u)" -ne 0 ]; then
        [ $rc -eq 1 ] && [ -z "$(ls "$TMP/ro")" ]
        check $? "record -o into a read-only directory: exit 1, no partial file"
    fi
    after=$(ls "$TMP" | grep -vx ro)
    [ "$before" = "$after" ]
    check $? "no temporary file left beside the output"
}

perf_mode() {
    PERF=$(command -v perf) || { echo "perf is not installed: skipped"; exit 77; }
    export PERF_PAGER=cat
    # shellcheck disable=SC2086
    record loop.data $ARGS_wsm_loop_c50
    (cd "$TMP" && "$PERF" report --stdio -i loop.data) >"$TMP/rep" 2>/dev/null
    rc=$?
    [ $rc -eq 0 ] && grep -qF "# Samples: 4  of event 'wsm::INST_RETIRED:ANY_P" "$TMP/rep" &&
        grep -qF "# Event count (approx.): 200" "$TMP/rep"
    check $? "perf report reads 4 samples, 200 events"
    (cd "$TMP" && "$PERF" script -i loop.data -F tid,period,ip) >"$TMP/s" 2>/dev/null
    rc=$?
    got=$(tr -s ' \n' '  ' <"$TMP/s" | sed 's/^ *//; s/ *$//')
    want="1000 50 401000 1000 50 401000 1000 50 401000 1000 50 401020"
    [ $rc -eq 0 ] && [ "$got" = "$want" ]
    check $? "perf script -F tid,period,ip prints the 4 samples"
    # shellcheck disable=SC2086
    record ldlat.data $ARGS_wsm_ldlat_c3
    (cd "$TMP" && "$PERF" mem report --stdio -i ldlat.data) >"$TMP/mem" 2>/dev/null
    rc=$?
    [ $rc -eq 0 ] && [ "$(grep -o "L3 or L3 hit" "$TMP/mem" | wc -l)" -eq 1 ] &&
        [ "$(grep -o "L1 or L1 hit" "$TMP/mem" | wc -l)" -eq 4 ]
    check $? "perf mem report: 1 load from L3, 4 from L1"
    (cd "$TMP" && "$PERF" script -i ldlat.data -F addr,weight) >"$TMP/s" 2>/dev/null
    words=$(tr -s ' \n' '\n\n' <"$TMP/s" | grep -v '^$')
    [ "$(echo "$words" | head -4 | tr '\n' ' ')" = "7f0000000018 4 7f0000000038 4 " ] &&
        [ "$(echo "$words" | tail -2 | tr '\n' ' ')" = "7f0000000098 40 " ]
    check $? "perf script -F addr,weight: the PEBS load-latency address and latency"
    # shellcheck disable=SC2086
    record btb.data $ARGS_ita2_btb_c2
    (cd "$TMP" && "$PERF" script -i btb.data -F brstack) >"$TMP/s" 2>/dev/null
    rc=$?
    e="0x4000000000001022/0x4000000000001000/P/-/-/0/"
    l1=$(sed -n 1p "$TMP/s" | tr -s ' ' ' ' | sed 's/^ *//; s/ *$//')
    l10=$(sed -n 10p "$TMP/s" | tr -s ' ' ' ' | sed 's/^ *//; s/ *$//')
    [ $rc -eq 0 ] && [ "$l1" = "$e $e" ] && [ "$l10" = "$e" ]
    check $? "perf script -F brstack: the BTB's taken branches (2 per sample, 1 in the last)"
    # a captured program on disk: perf finds its symbols through the MMAP
    # record (the pmusim binary stands for it, its main at its load base)
    command -v nm >/dev/null || return
    main=$(nm "$PMUSIM" 2>/dev/null | awk 'NF == 3 && $3 == "main" { print $1; exit }')
    [ -n "$main" ] || return
    # ELF e_type (bytes 16-17): 3 is a position-independent executable
    etype=$(od -An -tx1 -j16 -N2 "$PMUSIM" | tr -d ' \n')
    base=0
    [ "$etype" = "0300" ] && base=$((0x555555554000))
    at=$((base + 0x$main))
    trace=$TMP/prog.txt
    abs=$(cd "$(dirname "$PMUSIM")" && pwd)/$(basename "$PMUSIM")
    {
        printf 'pmusim-trace 1\nisa x86_64\ncpu wsm\nthreads 1\n'
        printf 'meta program %s\nmeta load_base 0x%x\n' "$abs" "$base"
        printf 'symbol 0x%x 0x%x main\n' "$at" $((at + 0x80))
        i=0
        while [ $i -lt 100 ]; do
            printf '%d 0 insn ip=0x%x len=4 plm=3\n' $i $((at + 4 * (i % 32)))
            i=$((i + 1))
        done
        printf 'end 100\n'
    } >"$trace"
    "$PMUSIM" record -o "$TMP/prog.data" -e wsm::INST_RETIRED:ANY_P -c 10 "$trace" \
        >/dev/null 2>&1
    (cd "$TMP" && "$PERF" report --stdio -i prog.data) >"$TMP/rep" 2>/dev/null
    grep -qF "[.] main" "$TMP/rep"
    check $? "perf report names the program's symbol (main)"
}

case $MODE in
files) files_mode ;;
perf) perf_mode ;;
*) echo "usage: perf_check.sh PMUSIM SOURCE_ROOT files|perf" >&2; exit 2 ;;
esac
[ $failures -eq 0 ]
