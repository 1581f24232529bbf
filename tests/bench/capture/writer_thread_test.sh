#!/bin/sh
# The writer thread of `trace annotate` and `trace capture` (sim/cli/wqueue.c)
# and the reader thread of `trace annotate` (sim/cli/afeed.c) change nothing
# but speed: the same inputs give byte-identical outputs with
# PMUSIM_WRITER_THREAD=0 (direct writes) and =1 (the thread), and with
# PMUSIM_READER_THREAD=0 and =1, for one thread, SMT merging (wsm, 2
# threads), Montecito switching (mont, 2 threads), a sample trace with
# markers and a captured program (with symbols); a write failure is the
# same exit 1 and message every way.
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
    annotate_ways "$in" "$work/out-$1-$2" --cpu "$1"
    for w in 01 10 11; do
        same "annotate $1, $2 thread(s), $3, writer/reader thread $w" "$work/out-$1-$2-00.pmt" \
            "$work/out-$1-$2-$w.pmt"
    done
}
# annotate_ways IN OUTBASE ARGS...: OUTBASE-WR.pmt, W and R the writer and reader thread settings
annotate_ways() {
    a_in=$1
    a_out=$2
    shift 2
    for t in 0 1; do
        for r in 0 1; do
            PMUSIM_WRITER_THREAD=$t PMUSIM_READER_THREAD=$r \
                "$pmusim" trace annotate "$a_in" "$a_out-$t$r.pmt" "$@"
        done
    done
}
annotate wsm 1 mixed
annotate wsm 2 mixed
annotate knm 1 stream
annotate mont 2 mixed
annotate ita2 1 loop
annotate_ways "$src/traces/samples/ita2_loop.txt" "$work/marker"
for w in 01 10 11; do
    same "annotate of a sample trace with markers, writer/reader thread $w" "$work/marker-00.pmt" \
        "$work/marker-$w.pmt"
done

# a failed write: exit 1, the writer's message, the same both ways
if [ -w /dev/full ]; then
    for t in 0 1; do
        for r in 0 1; do
            st=0
            PMUSIM_WRITER_THREAD=$t PMUSIM_READER_THREAD=$r "$pmusim" trace annotate \
                "$work/in-wsm-1.pmt" /dev/full --cpu wsm 2>"$work/err$t$r" || st=$?
            if [ "$st" -eq 1 ] && grep -q "/dev/full: write failed: " "$work/err$t$r"; then
                echo "ok    annotate to /dev/full, writer/reader thread $t$r: exit 1, write failed"
            else
                echo "FAIL  annotate to /dev/full, writer/reader thread $t$r: exit $st, $(cat "$work/err$t$r")"
                failed=$((failed + 1))
            fi
        done
    done
    for w in 01 10 11; do
        same "annotate to /dev/full: message, writer/reader thread $w" "$work/err00" "$work/err$w"
    done
else
    echo "skip  /dev/full not writable"
fi

# an instruction with 66 accesses (2 beyond a model input's 64: a
# continuation), then a marker and one more instruction: one instruction
# with all 66 accesses (its INSN record and 65 MEM records at its cycle),
# no message, the same output with and without the reader thread
{
    printf 'pmusim-trace 2\nisa x86_64\ncpu wsm\nthreads 1\nflags 0x0\n'
    printf '0 0 insn ip=0x401000 len=4 plm=3 mem=st addr=0x10000 size=8\n'
    i=1
    while [ "$i" -lt 66 ]; do
        printf '0 0 mem mem=st addr=0x%x size=8\n' $((0x10000 + 64 * i))
        i=$((i + 1))
    done
    printf '1 0 marker here\n1 0 insn ip=0x401004 len=2 plm=3\nend 68\n'
} >"$work/wide.txt"
for r in 0 1; do
    PMUSIM_READER_THREAD=$r "$pmusim" trace annotate "$work/wide.txt" "$work/wide$r.txt" \
        --cpu wsm 2>"$work/werr$r"
done
nmem=$(grep -c ' mem ' "$work/wide0.txt" || true)
ninsn=$(grep -c ' insn ' "$work/wide0.txt" || true)
lastmem=$(grep ' mem ' "$work/wide0.txt" | tail -1)
if [ "$nmem" -eq 65 ] && [ "$ninsn" -eq 2 ] && [ ! -s "$work/werr0" ] &&
    case $lastmem in *addr=0x11040*) true ;; *) false ;; esac; then
    echo "ok    annotate of 66 accesses: one instruction, 65 MEM records"
else
    echo "FAIL  annotate of 66 accesses: $ninsn insn, $nmem mem records, last [$lastmem], $(cat "$work/werr0")"
    failed=$((failed + 1))
fi
same "annotate of 66 accesses: output, reader thread 1" "$work/wide0.txt" "$work/wide1.txt"
same "annotate of 66 accesses: message, reader thread 1" "$work/werr0" "$work/werr1"

# a read failure (a truncated trace) on the reader thread: exit 1, the reader's message, the same every way
head -c 20000 "$work/in-wsm-1.pmt" >"$work/trunc.pmt"
for r in 0 1; do
    st=0
    PMUSIM_READER_THREAD=$r "$pmusim" trace annotate "$work/trunc.pmt" "$work/trunc-out.pmt" \
        --cpu wsm 2>"$work/rerr$r" || st=$?
    if [ "$st" -eq 1 ] && grep -q "truncated" "$work/rerr$r" && [ ! -e "$work/trunc-out.pmt" ]; then
        echo "ok    annotate of a truncated trace, reader thread $r: exit 1, no output"
    else
        echo "FAIL  annotate of a truncated trace, reader thread $r: exit $st, $(cat "$work/rerr$r")"
        failed=$((failed + 1))
    fi
done
same "annotate of a truncated trace: message" "$work/rerr0" "$work/rerr1"

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
        annotate_ways "$work/cap0.pmt" "$work/capann" --cpu wsm
        for w in 01 10 11; do
            same "annotate of the capture (symbols), writer/reader thread $w" \
                "$work/capann-00.pmt" "$work/capann-$w.pmt"
        done
    fi
else
    echo "skip  capture: no qemu-x86_64 or C compiler"
fi
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
