#!/bin/sh
# A program that dies keeps what it ran (docs/CAPTURE.md, "Ended early"):
# tests/capture/progs/dies.c runs a loop of exactly 2N instructions, then
# dies of SIGSEGV, of abort(), of kill(getpid(), SIGKILL) (QEMU itself is
# killed), with two threads each with its loop, or is killed with SIGKILL
# from outside while it runs.  Each trace must hold the loop's instructions
# (a run with N = 0, the start-up and the death alone, subtracted), be read
# by `trace info` and `stat`, end with the "capture ended early" MARKER,
# and name the loop's function in `record`.
#
#   crash_test.sh PMUSIM SRCDIR
#
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir crash
ulimit -c 0 2>/dev/null || true  # QEMU writes a core file of a crashing guest otherwise
# -z now: no lazy binding, so a thread's first library call after its loop
# runs the same few instructions in every run
"$cc" -O2 -Wl,-z,now -o dies "$src/tests/capture/progs/dies.c" -lpthread
"$pmusim" trace capture --cpu wsm -o probe.pmt -- ./dies exit 0 >/dev/null 2>err || capture_probe_failed err

# insns TRACE: the trace's instructions of all threads (`trace info`)
insns() {
    "$pmusim" trace info "$1" | awk '$1 == "insn:" { print $2 }'
}
thread_insns() { # thread_insns TRACE T
    "$pmusim" trace info "$1" | awk -v t="$2" '$1 == "instructions" && $3 == t":" { print $4 }'
}
# valid NAME TRACE: read by stat, ends with the marker
valid() {
    if "$pmusim" stat -x , -e wsm::INST_RETIRED:ANY_P "$2" >/dev/null 2>&1; then
        echo "ok    $1: stat reads it"
    else
        fail "$1: stat does not read it"
    fi
    # the last record (symbols and the end line follow the records)
    if "$pmusim" trace dump "$2" 2>/dev/null | grep -v -e '^symbol ' -e '^end ' | tail -n 1 |
        grep -q "marker capture ended early"; then
        echo "ok    $1: ends with the capture-ended-early marker"
    else
        fail "$1: no capture-ended-early marker at the end"
    fi
}
# dies MODE N OUT: captures `dies MODE N`, expects death by signal SIG
capture_dies() {
    set +e
    "$pmusim" trace capture --cpu wsm --threads 2 -o "$3" -- ./dies "$1" "$2" >/dev/null 2>err
    st=$?
    set -e
    echo $st
}

for run in "segv 139" "abort 134" "kill 137"; do
    mode=${run% *}; want=${run#* }
    st0=$(capture_dies $mode 0 z.pmt)
    [ "$st0" = "$want" ] || fail "$mode 0: exit status $st0, expected $want"
    # 3,000 iterations: all of it in the plugin's buffer, none sent when it
    # dies; 1,000,000: 2 MB of block items, 7.6 buffers, the last one unsent
    for n in 3000 1000000; do
        st=$(capture_dies $mode $n d.pmt)
        if [ "$st" = "$want" ]; then echo "ok    $mode $n: exit status $st"; else fail "$mode $n: exit status $st, expected $want"; fi
        grep -q "capture ended early: the program was killed by signal" err || fail "$mode $n: no ended-early message on stderr"
        d=$(( $(insns d.pmt) - $(insns z.pmt) ))
        # the loop's 2N, give or take a few hundred: reading a longer
        # argument takes more, and the C library's string functions take
        # steps that depend on where the strings lie (on the Westmere CPU
        # model -11 to +203 seen; tests/capture/fork_test.sh likewise)
        between "$mode $n: instructions beyond the start-up" $d $((2 * n - 400)) $((2 * n + 400))
        valid "$mode $n" d.pmt
    done
    "$pmusim" record -e wsm::INST_RETIRED:ANY_P -c 100000 d.pmt > rec.txt
    if grep -q ' spin' rec.txt; then echo "ok    $mode: record names spin"; else fail "$mode: record names no sample spin"; fi
done

# two guest threads, each with its loop and items unsent when the first dies
n=1000000
st=$(capture_dies threads $n d.pmt)
[ "$st" = 139 ] || fail "threads: exit status $st, expected 139"
for t in 0 1; do
    i=$(thread_insns d.pmt $t)
    between "threads: instructions of thread $t" "${i:-0}" $((2 * n)) $((2 * n + 200000))
done
valid threads d.pmt

# SIGKILL of QEMU from outside, while the program runs its loops
"$pmusim" trace capture --cpu wsm -o w.pmt -- ./dies wait $n > out.txt 2>err &
pid=$!
tries=0
while ! grep -q ready out.txt 2>/dev/null; do
    tries=$((tries + 1))
    [ $tries -lt 1200 ] || { kill -9 $pid; fail "wait: never ready"; break; }
    sleep 0.1
done
# pmusim's child: QEMU (the program runs inside it)
qemu=$(cat /proc/$pid/task/$pid/children 2>/dev/null || true)
[ -n "$qemu" ] || qemu=$(pgrep -P $pid 2>/dev/null || true)
if [ -n "$qemu" ]; then kill -9 $qemu; else fail "kill -9: QEMU's pid not found"; kill -9 $pid; fi
set +e
wait $pid
st=$?
set -e
if [ "$st" = 137 ]; then echo "ok    kill -9 of QEMU: exit status 137"; else fail "kill -9 of QEMU: exit status $st, expected 137"; fi
at=$(insns w.pmt)
between "kill -9 of QEMU: instructions" "${at:-0}" $((2 * n)) 100000000000
valid "kill -9 of QEMU" w.pmt
"$pmusim" record -e wsm::INST_RETIRED:ANY_P -c 100000 w.pmt > rec.txt
if grep -q ' spin' rec.txt; then echo "ok    kill -9: record names spin"; else fail "kill -9: record names no sample spin"; fi

echo "capture crash: $failed failed"
[ "$failed" -eq 0 ]
