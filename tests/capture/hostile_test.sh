#!/bin/sh
# Hostile inputs to `pmusim trace capture` (issues 9 and 12, docs/CLI.md
# "Hostile inputs", docs/CAPTURE.md): programs that cannot run, outputs
# that cannot be written, options out of range, programs that die or are
# interrupted.  Each case checks the exact exit status and the start of
# the first line of stderr that begins with "pmusim" (QEMU's own lines and
# the program's are skipped); an output is either a whole trace that
# `trace dump` reads or absent (an older file left as it was).
# usage: hostile_test.sh PMUSIM SRCDIR
set -u
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir hostile
"$cc" -O2 -o dies "$src/tests/capture/progs/dies.c" -lpthread || { echo "SKIP: cannot build dies.c"; exit 77; }

# expect NAME STATUS STDERR-START command...
expect() {
    name=$1 want_rc=$2 want_err=$3
    shift 3
    "$@" >out 2>err
    rc=$?
    got=$(grep -m 1 '^pmusim' err)
    case $got in
    "$want_err"*) [ "$rc" = "$want_rc" ] && { ok "$name"; return 0; } ;;
    esac
    fail "$name: exit $rc (want $want_rc), stderr '$got' (want '$want_err...')"
    return 1
}
# whole NAME FILE: FILE is a trace that `trace dump` reads to its end
whole() {
    if "$pmusim" trace dump "$2" >dump 2>dump.err && tail -n 1 dump | grep -q '^end '; then
        ok "$1: a whole trace"
    else
        fail "$1: $2 is not a whole trace: $(head -c 200 dump.err)"
    fi
}
# early NAME FILE: the trace ends with the ended-early MARKER
early() {
    if grep -q "marker capture ended early: the program was killed by signal $3 " dump; then
        ok "$1: marked ended early (signal $3)"
    else
        fail "$1: no ended-early MARKER for signal $3"
    fi
}
# untouched NAME FILE: FILE still holds "precious"
untouched() {
    if [ "$(cat "$2" 2>/dev/null)" = precious ]; then ok "$1: $2 untouched"; else fail "$1: $2 was changed"; fi
    if ls -a | grep -q "^\.$2\."; then fail "$1: a temporary file is left"; fi
}
C="$pmusim trace capture --cpu wsm"

# the first capture tells a missing plugin (skip) from a failure
$C -o probe.pmt -- ./dies exit 0 >/dev/null 2>probe.err || capture_probe_failed probe.err

# --- PROGRAM
expect "missing program" 1 "pmusim: ./missing: No such file or directory" $C -- ./missing
expect "program not in PATH" 1 "pmusim: no-such-program-x: no such program in PATH" \
    $C -- no-such-program-x
mkdir adir
expect "a directory" 1 "pmusim: ./adir: not an executable file" $C -- ./adir
cp dies noexec && chmod -x noexec
expect "not executable" 1 "pmusim: ./noexec: not an executable file" $C -- ./noexec
printf 'hello' >notelf && chmod +x notelf
expect "not an ELF file" 1 "pmusim: ./notelf: neither an ELF executable nor a script" $C -- ./notelf
: >empty && chmod +x empty
expect "an empty file" 1 "pmusim: ./empty: neither an ELF executable nor a script" $C -- ./empty
# a 32-bit ELF (EI_CLASS = 1) and an aarch64 one (e_machine = 183), made by hand
cp dies elf32 && printf '\001' | dd of=elf32 bs=1 seek=4 conv=notrunc 2>/dev/null
expect "a 32-bit ELF" 1 "pmusim: ./elf32: not an x86-64 program (a 32-bit ELF file," $C -- ./elf32
cp dies arm && printf '\267\000' | dd of=arm bs=1 seek=18 conv=notrunc 2>/dev/null
expect "an aarch64 ELF" 1 "pmusim: ./arm: not an x86-64 program (a 64-bit ELF file, machine 183)" \
    $C -- ./arm
printf '#!/nonexistent/interp\necho hi\n' >script && chmod +x script
expect "a script whose interpreter is missing" 1 \
    "pmusim: ./script: the script's interpreter: /nonexistent/interp: No such file or directory" \
    $C -- ./script
# an ELF whose loader is missing: QEMU says so and stops (255) before the program runs
sed 's|/lib64/ld-linux-x86-64.so.2|/nope4/ld-linux-x86-64.so.2|' dies >noloader && chmod +x noloader
echo precious >kept.pmt
expect "a program whose loader is missing" 1 \
    "pmusim: $(command -v qemu-x86_64) stopped with exit status 255 before ./noloader ran" \
    $C -o kept.pmt -- ./noloader
untouched "a program whose loader is missing" kept.pmt
# a cut ELF: QEMU itself dies of a signal before the program runs
head -c 3000 dies >cut && chmod +x cut
expect "a cut ELF" 1 "pmusim: $(command -v qemu-x86_64) was killed by signal " $C -o kept.pmt -- ./cut
untouched "a cut ELF" kept.pmt
if "$cc" -O2 -static -o dies_static "$src/tests/capture/progs/dies.c" -lpthread 2>/dev/null; then
    expect "a static program" 0 "" $C -o static.pmt -- ./dies_static exit 0
    whole "a static program" static.pmt
else
    ok "a static program # SKIP no static C library"
fi
if "$cc" -O2 -static-pie -o dies_spie "$src/tests/capture/progs/dies.c" -lpthread 2>/dev/null; then
    expect "a static-PIE program" 0 "" $C -o spie.pmt -- ./dies_spie exit 0
    whole "a static-PIE program" spie.pmt
else
    ok "a static-PIE program # SKIP the compiler cannot link one"
fi
mkdir sub
(cd sub && PATH="$work:$PATH" $C -- dies exit 0 >/dev/null 2>&1)
if [ -f sub/dies.pmt ] && "$pmusim" trace info sub/dies.pmt | grep -q '^meta program: dies exit 0$'; then
    ok "PROGRAM found in PATH: sub/dies.pmt"
else
    fail "PROGRAM found in PATH: no sub/dies.pmt naming it"
fi
rm -f sub/dies.pmt
(cd sub && $C -- ../dies exit 0 >/dev/null 2>&1)
if [ -f sub/dies.pmt ]; then ok "a relative PROGRAM: the trace in the current directory"; else fail "a relative PROGRAM: no sub/dies.pmt"; fi

# --- -o
expect "-o in a missing directory" 1 \
    "pmusim: nodir/x.pmt: cannot create a temporary file in its directory: No such file or directory" \
    $C -o nodir/x.pmt -- ./dies exit 0
expect "-o where nobody may write" 1 "pmusim: /proc/x.pmt: cannot create a temporary file" \
    $C -o /proc/x.pmt -- ./dies exit 0
expect "-o a directory" 1 "pmusim: adir: is a directory" $C -o adir -- ./dies exit 0
expect "-o the program" 2 "pmusim trace capture: dies: refusing to write the trace over the program" \
    $C -o dies -- ./dies exit 0
cp dies interp && printf '#!%s/interp\n' "$work" >byinterp && chmod +x byinterp
expect "-o the script's interpreter" 2 \
    "pmusim trace capture: interp: refusing to write the trace over the program's interpreter" \
    $C -o interp -- ./byinterp exit 0
cmp -s interp dies && ok "the interpreter is untouched" || fail "the interpreter was replaced"
expect "-o -" 2 "pmusim trace capture: -o -: the program writes to the same standard output" \
    $C -o - -- ./dies exit 0
# (through a pipe: the program's output would be inside the trace)
$C -o /dev/stdout -- /bin/echo hello 2>err | cat >piped
rc=$(cat err | grep -c "^pmusim trace capture: -o /dev/stdout: the program writes to the same standard output")
if [ "$rc" = 1 ] && [ ! -s piped ]; then ok "-o /dev/stdout on a pipe: refused"; else fail "-o /dev/stdout on a pipe: $(head -c 200 err)"; fi
echo precious >over.pmt
expect "-o an existing file: replaced by the whole trace" 0 "" $C -o over.pmt -- ./dies exit 0
whole "-o an existing file" over.pmt

# --- options
expect "--D1 size 0" 2 "pmusim trace capture: --D1=0,8,64: size must be > 0" \
    $C --D1=0,8,64 -- ./dies exit 0
expect "--I1 2^64" 2 "pmusim trace capture: --I1=18446744073709551616,8,64: SIZE, ASSOC and LINE must each be at most 2147483647" \
    $C --I1=18446744073709551616,8,64 -- ./dies exit 0
expect "--LL a field missing" 2 "pmusim trace capture: --LL: expected SIZE,ASSOC,LINE (three decimal numbers), got '32768,8'" \
    $C --LL=32768,8 -- ./dies exit 0
expect "--D1 trailing garbage" 2 "pmusim trace capture: --D1: expected SIZE,ASSOC,LINE (three decimal numbers), got '32768,8,64x'" \
    $C --D1=32768,8,64x -- ./dies exit 0
expect "--L2 not a number" 2 "pmusim trace capture: --L2: expected SIZE,ASSOC,LINE (three decimal numbers) or none, got 'nonex'" \
    $C --L2=nonex -- ./dies exit 0
expect "--LL sets not a power of two" 2 "pmusim trace capture: --LL=3072,1,16: the number of sets" \
    $C --LL=3072,1,16 -- ./dies exit 0
expect "--D1 65 GiB" 2 "pmusim trace capture: --D1=137438953472,8,64: SIZE, ASSOC and LINE must each be at most 2147483647" \
    $C --D1=137438953472,8,64 -- ./dies exit 0
expect "--cpu unknown" 2 "pmusim trace capture: --cpu must be wsm, wsm_dp or knm" \
    "$pmusim" trace capture --cpu bogus -- ./dies exit 0
expect "--cpu ita2" 2 "pmusim trace capture: --cpu must be wsm, wsm_dp or knm (an x86-64 program runs on an x86 model), not 'ita2'" \
    "$pmusim" trace capture --cpu ita2 -- ./dies exit 0
expect "no --cpu" 2 "pmusim trace capture: --cpu is required: wsm, wsm_dp or knm" \
    "$pmusim" trace capture -- ./dies exit 0
expect "--threads 3 on wsm" 2 "pmusim trace capture: --threads must be 1..2 on wsm" \
    $C --threads 3 -- ./dies exit 0
expect "no --" 2 "pmusim trace capture: expected -- PROGRAM [ARGS...]" $C ./dies exit 0
expect "-- without PROGRAM" 2 "pmusim trace capture: expected -- PROGRAM [ARGS...]" $C --
expect "--children-wait without --trace-children" 2 \
    "pmusim trace capture: --children-wait goes with --trace-children" \
    $C --children-wait 1 -- ./dies exit 0
expect "--qemu-cpu with a feature QEMU refuses" 1 \
    "pmusim: $(command -v qemu-x86_64) stopped with exit status 1 before ./dies ran" \
    $C --qemu-cpu max,+nosuchfeature -o kept.pmt -- ./dies exit 0
untouched "--qemu-cpu refused" kept.pmt
# an option after -- is the program's
expect "an option after -- is the program's" 0 "" $C -o opt.pmt -- /bin/sh -c 'echo "$1"' sh --D1=0,0,0
if [ "$(cat out)" = "--D1=0,0,0" ]; then ok "the program got --D1=0,0,0"; else fail "the program printed '$(cat out)'"; fi

# --- exit status and deaths
for st in 0 1 255; do
    expect "exit status $st" "$st" "" $C -o st.pmt -- /bin/sh -c "exit $st"
done
expect "SIGKILL: 128 + 9" 137 "pmusim: capture ended early: the program was killed by signal 9" \
    $C -o kill.pmt -- /bin/sh -c 'kill -9 $$'
whole "SIGKILL" kill.pmt && early "SIGKILL" kill.pmt 9
echo precious >segv.pmt
expect "SIGSEGV: 128 + 11" 139 "pmusim: capture ended early: the program was killed by signal 11" \
    $C -o segv.pmt -- ./dies segv 0
whole "SIGSEGV over an existing file" segv.pmt && early "SIGSEGV" segv.pmt 11
expect "abort(): 128 + 6" 134 "pmusim: capture ended early: the program was killed by signal 6" \
    $C -o abort.pmt -- ./dies abort 0
whole "abort()" abort.pmt && early "abort()" abort.pmt 6
# a program that writes to a closed pipe dies of SIGPIPE
( $C -o pipe.pmt -- /usr/bin/yes 2>err; echo $? >pipe.rc ) | head -c 10 >/dev/null
if [ "$(cat pipe.rc)" = 141 ] && grep -q "^pmusim: capture ended early: the program was killed by signal 13" err; then
    ok "SIGPIPE: 128 + 13"
else
    fail "SIGPIPE: exit $(cat pipe.rc), $(grep -m 1 '^pmusim' err)"
fi
whole "SIGPIPE" pipe.pmt && early "SIGPIPE" pipe.pmt 13
# pmusim started without a stderr: its messages must not land in the trace
$C -o nostderr.pmt -- ./dies segv 0 2>&-
rc=$?
[ $rc = 139 ] && ok "closed stderr: exit 139" || fail "closed stderr: exit $rc"
whole "closed stderr" nostderr.pmt
# ... without a stdout: the program's is closed, as natively
$C -o nostdout.pmt -- /bin/sh -c 'echo hi; echo "echo: $?" >&2' >&- 2>err
if grep -q '^echo: [1-9]' err; then ok "closed stdout: the program's echo failed, as natively"; else fail "closed stdout: $(cat err)"; fi

# --- Ctrl-C (SIGINT to the process group) at several points: a whole trace
# (exit 0, the program had ended) or none (exit 130), no temporary file
if command -v python3 >/dev/null 2>&1; then
    # sigint DELAY CMD...: CMD in a process group of its own with the
    # default SIGINT action (a background job's would be ignored)
    sigint() {
        python3 -c '
import os, signal, sys, time
pid = os.fork()
if pid == 0:
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execvp(sys.argv[2], sys.argv[2:])
time.sleep(float(sys.argv[1]))
try:
    os.killpg(pid, signal.SIGINT)
except ProcessLookupError:
    pass
st = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
sys.exit(st if st >= 0 else 128 - st)' "$@"
    }
    for d in 0.05 0.2 0.4 0.8; do
        rm -f int.pmt
        sigint $d $C -o int.pmt -- ./dies exit 10000000 >/dev/null 2>err
        rc=$?
        if [ $rc = 130 ] && [ ! -e int.pmt ]; then
            ok "SIGINT after $d s: exit 130, no trace"
        elif [ $rc = 0 ]; then
            whole "SIGINT after $d s (the program had ended)" int.pmt
        else
            fail "SIGINT after $d s: exit $rc, $(ls int.pmt 2>&1)"
        fi
        if ls -a | grep -q '^\.int\.pmt\.'; then fail "SIGINT after $d s: a temporary file is left"; fi
    done
else
    ok "SIGINT # SKIP no python3"
fi

echo "capture hostile: $failed failed"
[ "$failed" -eq 0 ]
