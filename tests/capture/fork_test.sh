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

# N = 100,000 (the loops are 200,000 instructions against a start-up of
# about 110,000; the dumps below read every record, so a longer N only
# made the test slower: 1,000,000 until session 23)
n=100000
# N = 0 is written 000000, as long as N = 100000: the two runs' strings
# (arguments, command lines) are as long, so the start-up is the same and
# the difference the loop's count (a plain 0 moved the start-up by up to
# 459 instructions, past the windows below, in a checkout at another path)
z=000000
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
    for size in $z $n; do
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
    d=$(( $(insns "$mode.$n.pmt") - $(insns "$mode.$z.pmt") ))
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
    for size in $z $n; do
        st=$(capture $mode $size)
        [ "$st" = 42 ] && ok "$mode $size: exit status 42" || { fail "$mode $size: exit status $st, expected 42"; cat "$mode.$size.err"; }
    done
    d=$(( $(insns "$mode.$n.pmt") - $(insns "$mode.$z.pmt") ))
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
"$pmusim" record -e wsm::INST_RETIRED:ANY_P -c 10000 fork.$n.pmt > rec.txt
if grep -q ' spin' rec.txt; then ok "fork: record names spin"; else fail "fork: record names no sample spin"; fi

# --trace-children (docs/CAPTURE.md, "Tracing the children"): each child
# traced into OUT.PID.  kcapture MODE N [OPTIONS]: forks MODE N captured
# with --trace-children into k.MODE.N.pmt; prints the exit status
kcapture() {
    m=$1; s=$2; shift 2
    set +e
    "$pmusim" trace capture --cpu wsm --trace-children "$@" -o "k.$m.$s.pmt" -- ./forks "$m" "$s" >"k.$m.$s.out" 2>"k.$m.$s.err"
    st=$?
    set -e
    echo $st
}
# kids MODE N: the PIDs of the parent's "traced in" MARKERs, one a line
kids() {
    "$pmusim" trace dump "k.$1.$2.pmt" | sed -n "s/^[0-9]* [0-9]* marker fork: child \([0-9]*\) traced in k\.$1\.$2\.pmt\.\1\$/\1/p"
}
# nomarker TRACE: its dump without MARKER lines and symbols (the parent's
# trace with and without the option: the same but for the MARKERs' text)
nomarker() {
    "$pmusim" trace dump "$1" | grep -v -e ' marker fork: child ' -e '^symbol '
}
# MODE FORKS SIZES: the children that loop are counted against a run of
# size 0; the others run once
for run in "fork 1 $z $n" "vfork 1 $n" "system 1 $n" "popen 1 $n" "spawn 1 $n" "many 200 $n" \
           "thread 1 $n" "nest 1 $z $n" "dies 1 $z $n" "late 1 $z $n"; do
    set -- $run
    mode=$1; forks=$2; shift 2
    for size in "$@"; do
        st=$(kcapture $mode $size)
        [ "$st" = 42 ] && ok "kids $mode $size: exit status 42" || { fail "kids $mode $size: exit status $st, expected 42"; cat "k.$mode.$size.err"; }
        kids $mode $size > kpids
        m=$(wc -l < kpids)
        [ "$m" -eq "$forks" ] && ok "kids $mode $size: $m 'traced in' MARKERs" || fail "kids $mode $size: $m 'traced in' MARKERs, expected $forks"
        files=0
        for p in $(cat kpids); do
            [ -s "k.$mode.$size.pmt.$p" ] && files=$((files + 1))
        done
        [ "$files" -eq "$forks" ] && ok "kids $mode $size: $files files k.$mode.$size.pmt.PID" || fail "kids $mode $size: $files files, expected $forks"
        if [ "$forks" -eq 1 ]; then
            grep -q "^pmusim: fork: child $(cat kpids) traced in k.$mode.$size.pmt.$(cat kpids)\$" "k.$mode.$size.err" && ok "kids $mode $size: stderr names the child's trace" || fail "kids $mode $size: stderr: $(cat "k.$mode.$size.err")"
        fi
        # the parent's trace is the one without the option but for the
        # MARKERs' text (same start-up: same arguments; not with a second
        # thread, whose interleaving the scheduling chooses)
        case $mode in
        fork|vfork|system|popen|spawn|many)
            if nomarker "$mode.$size.pmt" > a.dump && nomarker "k.$mode.$size.pmt" > b.dump && cmp -s a.dump b.dump; then
                ok "kids $mode $size: the parent's trace as without the option ($(wc -l < a.dump) lines)"
            else
                fail "kids $mode $size: the parent's trace differs from the one without the option"
            fi ;;
        esac
    done
done
# child TRACE-OF-MODE-SIZE: the one child's trace
child() { echo "k.$1.$2.pmt.$(kids "$1" "$2" | head -n 1)"; }
# the children that loop: their 2N (the child's start is the fork's return)
for mode in fork late dies; do
    d=$(( $(insns "$(child $mode $n)") - $(insns "$(child $mode $z)") ))
    between "kids $mode: the child's instructions beyond the size 0 run" $d $((2 * n - 400)) $((2 * n + 400))
done
# the grandchild: in a file of its own, named by the child's MARKER
g=$("$pmusim" trace dump "$(child nest $n)" | sed -n "s/^[0-9]* [0-9]* marker fork: child \([0-9]*\) traced in k\.nest\.$n\.pmt\.\1\$/\1/p")
g0=$("$pmusim" trace dump "$(child nest $z)" | sed -n "s/^[0-9]* [0-9]* marker fork: child \([0-9]*\) traced in k\.nest\.$z\.pmt\.\1\$/\1/p")
if [ -n "$g" ] && [ -s "k.nest.$n.pmt.$g" ] && [ -s "k.nest.$z.pmt.$g0" ]; then
    ok "kids nest: the grandchild in k.nest.$n.pmt.$g"
    grep -q "^pmusim: $(child nest $n): fork: child $g traced in k.nest.$n.pmt.$g\$" k.nest.$n.err && ok "kids nest: stderr names the grandchild's trace" || fail "kids nest: stderr: $(cat k.nest.$n.err)"
    d=$(( $(insns "k.nest.$n.pmt.$g") - $(insns "k.nest.$z.pmt.$g0") ))
    between "kids nest: the grandchild's instructions beyond the size 0 run" $d $((2 * n - 400)) $((2 * n + 400))
else
    fail "kids nest: no grandchild trace ('$g', '$g0')"
fi
# a child that dies (abort): its trace keeps the loop, ends early
if "$pmusim" trace dump "$(child dies $n)" | grep -v -e '^symbol ' -e '^end ' | tail -n 1 | grep -q "marker capture ended early: the child's stream ended before its exit"; then
    ok "kids dies: the child's trace ends with the ended-early MARKER"
else
    fail "kids dies: no ended-early MARKER at the end of the child's trace"
fi
# lastrec TRACE: its last record (symbols and the end line aside)
lastrec() { "$pmusim" trace dump "$1" | grep -v -e '^symbol ' -e '^end ' | tail -n 1; }
# meta TRACE KEY: a header value
meta() { "$pmusim" trace dump "$1" | sed -n "/^meta $2 /{s/^meta $2 //p;q}"; }
# a child that execs (system, popen, posix_spawn: sh or true is exec'd): a
# short trace (the C library's side of the spawn) ending with the MARKER
# that names the exec'd image's trace, which exists and says which it
# continues
for run in "system /bin/sh" "popen /bin/sh" "spawn /bin/true"; do
    set -- $run
    mode=$1; prog=$2
    t=$(child $mode $n)
    c=$(insns "$t")
    between "kids $mode: the child's instructions up to its execve" "$c" 1 50000
    if lastrec "$t" | grep -q "marker execve: $prog continued in $t\.1\$"; then
        ok "kids $mode: the child's trace ends with 'execve: $prog continued in $t.1'"
    else
        fail "kids $mode: the child's trace ends with '$(lastrec "$t")'"
    fi
    [ -s "$t.1" ] && [ "$(meta "$t.1" capture.continues)" = "$t" ] && ok "kids $mode: $t.1 continues $t" || fail "kids $mode: $t.1 missing or continues '$(meta "$t.1" capture.continues)'"
    grep -q "^pmusim: $t: execve: $prog continued in $t.1\$" "k.$mode.$n.err" && ok "kids $mode: stderr names $t.1" || fail "kids $mode: stderr: $(cat "k.$mode.$n.err")"
done
[ "$(cat k.system.$n.out)" = hi ] && ok "kids system: output 'hi' (sh traced)" || fail "kids system: output '$(cat k.system.$n.out)'"

# execve under --trace-children (docs/CAPTURE.md, "Tracing the children"):
# the new image runs under QEMU and is traced into OUT.PID.N.  The scripts
# the modes exec: loop.sh, whose #! line names forks itself (the kernel
# runs /ABS/forks script ./loop.sh N), shell.sh, a /bin/sh script that
# execs ./forks loop N, and a file that is not executable.
printf '#!%s/forks script\n' "$PWD" > loop.sh
printf '#!/bin/sh\nexec ./forks loop "$1"\n' > shell.sh
chmod +x loop.sh shell.sh
echo 'not a program' > noexec.txt
chmod 644 noexec.txt
# image TRACE: the file its last MARKER "execve: PROG continued in FILE" names
image() { lastrec "$1" | sed -n 's/^[0-9]* [0-9]* marker execve: .* continued in \(.*\)$/\1/p'; }
# MODE PROGRAM-OF-IMAGE-1 [PROGRAM-OF-IMAGE-2]: the program's images, the
# last one `forks loop N`, whose loop (2N) is counted against the N = 0 run
for run in "execself ./forks" "execchain ./forks forks" "execscript $PWD/forks" "execshell /bin/sh ./forks"; do
    set -- $run
    mode=$1; shift
    for size in $z $n; do
        st=$(kcapture $mode $size)
        [ "$st" = 42 ] && ok "kids $mode $size: exit status 42 (the last image's)" || { fail "kids $mode $size: exit status $st, expected 42"; cat "k.$mode.$size.err"; }
        t=k.$mode.$size.pmt
        for prog in "$@"; do
            f=$(image "$t")
            pid=$(echo "$f" | sed -n 's/.*\.\([0-9]*\)\.[0-9]*$/\1/p')
            if [ -n "$f" ] && [ -s "$f" ] && lastrec "$t" | grep -q "marker execve: $prog continued in $f\$" &&
               [ "$(meta "$f" capture.continues)" = "$t" ] && [ "$(meta "$f" capture.pid)" = "$pid" ]; then
                ok "kids $mode $size: $t continued by $prog in $f"
            else
                fail "kids $mode $size: $t: '$(lastrec "$t")', '$f'"
                break
            fi
            if [ "$t" = "k.$mode.$size.pmt" ]; then
                grep -q "^pmusim: execve: $prog continued in $f\$" "k.$mode.$size.err" && ok "kids $mode $size: stderr names $f" || fail "kids $mode $size: stderr: $(cat "k.$mode.$size.err")"
            else
                grep -q "^pmusim: $t: execve: $prog continued in $f\$" "k.$mode.$size.err" && ok "kids $mode $size: stderr names $f" || fail "kids $mode $size: stderr: $(cat "k.$mode.$size.err")"
            fi
            t=$f
        done
        # the last image: `forks loop N` (or `forks script ./loop.sh N`), to its exit
        case $(meta "$t" program) in
        *"forks loop $size"|*"forks script ./loop.sh $size") ok "kids $mode $size: the last image runs '$(meta "$t" program)'" ;;
        *) fail "kids $mode $size: the last image runs '$(meta "$t" program)'" ;;
        esac
        lastrec "$t" | grep -q " marker " && fail "kids $mode $size: $t ends with '$(lastrec "$t")'" || ok "kids $mode $size: $t ends at the exit"
        echo "$t" > "last.$mode.$size"
        [ $(ls k.$mode.$size.pmt.* | wc -l) -eq $# ] && ok "kids $mode $size: $# exec'd image(s), no other file" || fail "kids $mode $size: files $(ls k.$mode.$size.pmt.*)"
    done
    d=$(( $(insns "$(cat last.$mode.$n)") - $(insns "$(cat last.$mode.$z)") ))
    between "kids $mode: the exec'd loop's instructions beyond the size 0 run" $d $((2 * n)) $((2 * n))
    # the first image's own loop before its execve
    d=$(( $(insns "k.$mode.$n.pmt") - $(insns "k.$mode.$z.pmt") ))
    between "kids $mode: the first image's instructions beyond the size 0 run" $d $((2 * n)) $((2 * n))
done
# system, popen, posix_spawn of the looping program: its trace is the one
# an execve MARKER names as `./forks` continued (sh forks or execs it)
for mode in sysloop popenloop spawnloop; do
    for size in $z $n; do
        st=$(kcapture $mode $size)
        [ "$st" = 42 ] && ok "kids $mode $size: exit status 42 (the child's 42 checked)" || { fail "kids $mode $size: exit status $st, expected 42"; cat "k.$mode.$size.err"; }
        f=
        for t in k.$mode.$size.pmt.*; do
            g=$(lastrec "$t" | sed -n 's/^[0-9]* [0-9]* marker execve: \.\/forks continued in \(.*\)$/\1/p')
            [ -n "$g" ] && f=$g
        done
        if [ -n "$f" ] && [ -s "$f" ] && [ "$(meta "$f" program)" = "./forks loop $size" ]; then
            ok "kids $mode $size: ./forks loop $size traced in $f"
        else
            fail "kids $mode $size: no trace of ./forks loop $size ('$f')"
        fi
        echo "$f" > "last.$mode.$size"
    done
    d=$(( $(insns "$(cat last.$mode.$n)") - $(insns "$(cat last.$mode.$z)") ))
    between "kids $mode: the exec'd loop's instructions beyond the size 0 run" $d $((2 * n)) $((2 * n))
done
# what an execve keeps: an ignored signal and the blocked mask (the new
# image checks both: 42), as natively
st=$(kcapture execsig 0)
set +e
./forks execsig 0
native=$?
set -e
[ "$st" = 42 ] && [ "$native" = 42 ] && [ -s "$(image k.execsig.0.pmt)" ] && ok "kids execsig: SIGINT ignored and SIGUSR1 blocked in the traced image, as natively" || fail "kids execsig: status $st, image '$(image k.execsig.0.pmt)'"
# an execve that fails (no such file: ENOENT; not executable: EACCES): the
# program sees the kernel's errno (it checks it: status 42, as natively),
# its trace goes on, and no file is written for an image
for mode in execfail execnoexec; do
    set +e
    ./forks $mode 0 >/dev/null 2>&1
    native=$?
    set -e
    st=$(kcapture $mode 0)
    [ "$st" = 42 ] && [ "$native" = 42 ] && ok "kids $mode: status 42, natively too (errno as natively)" || fail "kids $mode: status $st, natively $native"
    ls k.$mode.0.pmt.* >/dev/null 2>&1 && fail "kids $mode: a file $(ls k.$mode.0.pmt.*)" || ok "kids $mode: no exec'd image's file"
    lastrec k.$mode.0.pmt | grep -q " marker " && fail "kids $mode: a MARKER $(lastrec k.$mode.0.pmt)" || ok "kids $mode: no MARKER"
done
# the parent's wait names the signal that killed the child (QEMU reaps
# it: only the guest's wait4 or waitid shows it): a MARKER in the parent's
# trace and a line on stderr
st=$(kcapture diesid 0)
[ "$st" = 42 ] && ok "kids diesid 0: exit status 42" || fail "kids diesid 0: exit status $st, expected 42"
for run in "dies $n" "diesid 0"; do
    set -- $run
    p=$(kids $1 $2)
    if [ -n "$p" ] && "$pmusim" trace dump "k.$1.$2.pmt" | grep -q "^[0-9]* [0-9]* marker wait: child $p was killed by signal 6 (Aborted)\$"; then
        ok "kids $1: the parent's trace says child $p was killed by signal 6"
    else
        fail "kids $1: no 'killed by signal 6' MARKER for child '$p'"
    fi
    grep -q "^pmusim: wait: child $p was killed by signal 6 (Aborted)\$" "k.$1.$2.err" && ok "kids $1: stderr names the signal" || fail "kids $1: stderr: $(cat "k.$1.$2.err")"
done
# a child that runs on after its parent: waited for (late: 1 s), or no
# longer read after --children-wait (orphan: 20 s; the child itself runs
# on untraced, not killed)
grep -q "ended early" k.late.$n.err && fail "kids late: $(cat k.late.$n.err)" || ok "kids late: the capture waited for the child"
t0=$(date +%s)
st=$(kcapture orphan 0 --children-wait 1)
t1=$(date +%s)
[ "$st" = 42 ] && ok "kids orphan: exit status 42" || fail "kids orphan: exit status $st, expected 42"
between "kids orphan: seconds the capture took" $((t1 - t0)) 0 10
if "$pmusim" trace dump "$(child orphan 0)" | grep -q "marker capture ended early: the child still ran 1 s after the program exited"; then
    ok "kids orphan: the child's trace ends early"
else
    fail "kids orphan: no MARKER of a child still running"
fi
grep -q "^pmusim: k.orphan.0.pmt.[0-9]*: capture ended early: the child still ran 1 s" k.orphan.0.err && ok "kids orphan: stderr says so" || fail "kids orphan: stderr: $(cat k.orphan.0.err)"
# --trace-children needs a file
set +e
"$pmusim" trace capture --cpu wsm --trace-children -o - -- ./forks fork 0 >/dev/null 2>err
st=$?
set -e
[ $st = 2 ] && ok "kids: -o - refused (usage, 2)" || fail "kids: -o - gave $st"

echo "capture fork: $failed failed"
[ "$failed" -eq 0 ]
