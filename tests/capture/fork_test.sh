#!/bin/sh
# A program that forks (docs/CAPTURE.md, "A program that forks"):
# tests/capture/progs/forks.c runs a loop of exactly 2N instructions in the
# parent and starts processes: fork() of a child that loops too and exits
# with a status the parent checks, vfork, system("echo hi"), popen, posix_spawn,
# 200 forks, a fork while a second thread loops (4N), a child that
# outlives its parent (the capture must not wait for it).  Each capture must
# exit with the program's status (42: every child ended as it should), pass
# its output through, hold the parent's loop and not the child's (`stat`
# INST_RETIRED:ANY_P, a run with N = 0 subtracted, within the bounds of
# crash_test.sh), and have one "fork: child PID not traced" MARKER per fork,
# the PID the one pmusim names on stderr.
#
#   fork_test.sh PMUSIM SRCDIR
#
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir fork
# -z now: no lazy binding, so the library calls after the loop run the
# same instructions in both runs
"$cc" -O2 -Wl,-z,now -o forks "$src/tests/capture/progs/forks.c" -lpthread
set +e
"$pmusim" trace capture --cpu wsm -o probe.pmt -- ./forks fork 0 >/dev/null 2>err
st=$?
set -e
[ $st = 42 ] || capture_probe_failed err

# insns TRACE: INST_RETIRED:ANY_P of the trace, by `stat`
insns() {
    "$pmusim" stat -x , -e wsm::INST_RETIRED:ANY_P "$1" | awk -F, 'NR == 1 { print $1 }'
}
# capture MODE N: forks MODE N captured into MODE.N.pmt; stdout in
# MODE.N.out, stderr in MODE.N.err; prints the exit status
capture() {
    set +e
    "$pmusim" trace capture --cpu wsm -o "$1.$2.pmt" -- ./forks "$1" "$2" >"$1.$2.out" 2>"$1.$2.err"
    st=$?
    set -e
    echo $st
}

n=1000000
# MODE FORKS INSTRUCTIONS-PER-N SLACK: the start-up of the two runs differs
# by up to a few hundred instructions either way (the longer argument's
# parse, and the C library's string functions, whose steps depend on where
# the strings lie: -88 to +244 seen on the Westmere CPU model); two threads
# end and join at moments
# the scheduling chooses (futex waits or not: a few hundred instructions;
# crash_test.sh allows 200,000 for its threads)
for run in "fork 1 2 400" "vfork 1 2 400" "system 1 2 400" "popen 1 2 400" "spawn 1 2 400" "many 200 2 400" \
           "thread 1 4 20000"; do
    set -- $run
    mode=$1; forks=$2; per=$3; slack=$4
    for size in 0 $n; do
        st=$(capture $mode $size)
        if [ "$st" = 42 ]; then ok "$mode $size: exit status 42"; else fail "$mode $size: exit status $st, expected 42"; cat "$mode.$size.err"; fi
        if grep -q "chunks were lost\|capture ended early" "$mode.$size.err"; then fail "$mode $size: $(cat "$mode.$size.err")"; fi
        # one MARKER per fork, with the PIDs pmusim names
        "$pmusim" trace dump "$mode.$size.pmt" | sed -n 's/^[0-9]* [0-9]* marker fork: child \([0-9]*\) not traced$/\1/p' > pids
        m=$(wc -l < pids)
        if [ "$m" -eq "$forks" ]; then ok "$mode $size: $m fork MARKERs"; else fail "$mode $size: $m fork MARKERs, expected $forks"; fi
        if [ "$forks" -eq 1 ]; then
            said=$(sed -n 's/^pmusim: fork: child \([0-9]*\) not traced.*/\1/p' "$mode.$size.err")
            if [ -n "$said" ] && [ "$said" = "$(cat pids)" ]; then ok "$mode $size: stderr names child $said"; else fail "$mode $size: stderr names '$said', the MARKER $(cat pids)"; fi
        else
            if grep -q "^pmusim: fork: $forks children not traced ($(head -n 1 pids) first, $(tail -n 1 pids) last" "$mode.$size.err"; then
                ok "$mode $size: stderr counts $forks children"
            else
                fail "$mode $size: stderr: $(cat "$mode.$size.err")"
            fi
        fi
    done
    # the parent's loop (the child of `fork` loops as long: not traced)
    d=$(( $(insns "$mode.$n.pmt") - $(insns "$mode.0.pmt") ))
    between "$mode: instructions beyond the start-up" $d $((per * n - 400)) $((per * n + slack))
done
# a child that outlives its parent (it sleeps 20 s): the capture ends with
# the parent (the child closed its copy of the pipe to pmusim)
st=$(capture orphan 0)
if [ "$st" = 42 ]; then ok "orphan: exit status 42"; else fail "orphan: exit status $st, expected 42"; fi
if [ -e orphan.done ]; then fail "orphan: the capture waited for the child"; else ok "orphan: the capture ended before the child"; fi
grep -q "^pmusim: fork: child [0-9]* not traced" orphan.0.err && ok "orphan: stderr names the child" || fail "orphan: stderr: $(cat orphan.0.err)"
# the program's output passes through
[ "$(cat system.$n.out)" = hi ] && ok "system: output 'hi'" || fail "system: output '$(cat system.$n.out)'"
[ "$(cat popen.$n.out)" = "hi from popen" ] && ok "popen: output 'hi from popen'" || fail "popen: output '$(cat popen.$n.out)'"
# an execve: the new program (a shell) runs natively, its output and status
# pass through, the trace ends with the ended-early MARKER that names the
# execve and holds the loop before it; an execve that fails goes on traced
for mode in exec execfail; do
    for size in 0 $n; do
        st=$(capture $mode $size)
        [ "$st" = 42 ] && ok "$mode $size: exit status 42" || { fail "$mode $size: exit status $st, expected 42"; cat "$mode.$size.err"; }
    done
    d=$(( $(insns "$mode.$n.pmt") - $(insns "$mode.0.pmt") ))
    between "$mode: instructions beyond the start-up" $d $((2 * n - 400)) $((2 * n + 400))
done
[ "$(cat exec.$n.out)" = replaced ] && ok "exec: output 'replaced'" || fail "exec: output '$(cat exec.$n.out)'"
if "$pmusim" trace dump exec.$n.pmt | grep -v -e '^symbol ' -e '^end ' | tail -n 1 |
    grep -q "marker capture ended early: the program called execve"; then
    ok "exec: ends with the execve MARKER"
else
    fail "exec: no execve MARKER at the end"
fi
grep -q "^pmusim: capture ended early: the program called execve" exec.$n.err && ok "exec: stderr says so" || fail "exec: stderr: $(cat exec.$n.err)"
if grep -q "ended early" execfail.$n.err || "$pmusim" trace dump execfail.$n.pmt | grep -q " marker "; then
    fail "execfail: an ended-early message or MARKER"
else
    ok "execfail: no MARKER, nothing on stderr"
fi
# the loop's samples are named
"$pmusim" record -e wsm::INST_RETIRED:ANY_P -c 100000 fork.$n.pmt > rec.txt
if grep -q ' spin' rec.txt; then ok "fork: record names spin"; else fail "fork: record names no sample spin"; fi

echo "capture fork: $failed failed"
[ "$failed" -eq 0 ]
