#!/bin/sh
# The writer thread of `trace annotate` and `trace capture` (sim/cli/wqueue.c)
# changes nothing but speed: the same inputs give byte-identical outputs with
# PMUSIM_WRITER_THREAD=0 (direct writes) and =1 (the thread), for one thread,
# SMT merging (wsm, 2 threads), Montecito switching (mont, 2 threads) and a
# captured program; a write failure is the same exit 1 and message both ways.
#
#   writer_thread_test.sh PMUSIM SRCDIR
#
# The capture part is skipped (with a message) without qemu-x86_64, the
# plugin or a C compiler; the rest always runs.
set -eu
unset MALLOC_PERTURB_ || true
pmusim=$1
src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-wthread.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM HUP
failed=0
same() { # NAME FILE0 FILE1
    if cmp -s "$2" "$3"; then echo "ok    $1: identical"; else echo "FAIL  $1: outputs differ"; failed=$((failed + 1)); fi
}
# annotate CPU THREADS WORKLOAD: generated trace, annotated both ways
annotate() {
    in=$work/in-$1-$2.pmt
    "$pmusim" trace gen --cpu "$1" --workload "$3" --records 300000 --seed 5 --threads "$2" "$in"
    for t in 0 1; do
        PMUSIM_WRITER_THREAD=$t "$pmusim" trace annotate "$in" "$work/out$t-$1-$2.pmt" --cpu "$1"
    done
    same "annotate $1, $2 thread(s), $3" "$work/out0-$1-$2.pmt" "$work/out1-$1-$2.pmt"
}
annotate wsm 1 mixed
annotate wsm 2 mixed
annotate knm 1 stream
annotate mont 2 mixed
annotate ita2 1 loop

# a failed write: exit 1, the writer's message, the same both ways
if [ -w /dev/full ]; then
    for t in 0 1; do
        st=0
        PMUSIM_WRITER_THREAD=$t "$pmusim" trace annotate "$work/in-wsm-1.pmt" /dev/full --cpu wsm \
            2>"$work/err$t" || st=$?
        if [ "$st" -eq 1 ] && grep -q "/dev/full: write failed: " "$work/err$t"; then
            echo "ok    annotate to /dev/full, writer thread $t: exit 1, write failed"
        else
            echo "FAIL  annotate to /dev/full, writer thread $t: exit $st, $(cat "$work/err$t")"
            failed=$((failed + 1))
        fi
    done
    same "annotate to /dev/full: message" "$work/err0" "$work/err1"
else
    echo "skip  /dev/full not writable"
fi

# capture: the same program twice
cc=${CC:-cc}
if command -v qemu-x86_64 >/dev/null 2>&1 && command -v "$cc" >/dev/null 2>&1; then
    "$cc" -O2 -o "$work/mix" "$src/tests/bench/capture/mix.c"
    st=0
    for t in 0 1; do
        env -i PATH=/usr/bin:/bin PMUSIM_WRITER_THREAD=$t \
            "$pmusim" trace capture --cpu wsm -o "$work/cap$t.pmt" -- "$work/mix" 1 \
            >/dev/null 2>"$work/cerr" || st=$?
    done
    if [ "$st" -ne 0 ] && grep -q "plugin is not built" "$work/cerr"; then
        echo "skip  capture: the QEMU plugin is not built"
    elif [ "$st" -ne 0 ]; then
        echo "FAIL  capture: exit $st: $(cat "$work/cerr")"; failed=$((failed + 1))
    else
        same "capture of mix 1, wsm" "$work/cap0.pmt" "$work/cap1.pmt"
    fi
else
    echo "skip  capture: no qemu-x86_64 or C compiler"
fi
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
