#!/bin/sh
# The environment of a traced program (docs/CAPTURE.md, "The guest's
# environment"): the program `pmusim trace capture` starts, and one an
# execve starts under --trace-children, see exactly the environment they
# were given (same entries, values, order), as natively; QEMU runs with
# its own: an LD_PRELOAD library is loaded by the program and not by QEMU
# (its constructor prints who loaded it), QEMU_STRACE/QEMU_SET_ENV/
# QEMU_UNSET_ENV do nothing to QEMU (no strace lines, no INJECTED, A kept).
# What QEMU cannot carry (an entry without '=', a name given twice, a
# comma before a loader variable or inside one) is said by a MARKER and on
# stderr, and the program sees the hand-derived rest.
#
#   env_test.sh PMUSIM SRCDIR
#
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir env
"$cc" -O2 -o envexec "$src/tests/capture/progs/envexec.c"
"$cc" -O2 -shared -fPIC -o libpreload.so "$src/tests/capture/progs/preload.c"
lib=$PWD/libpreload.so
set +e
"$pmusim" trace capture --cpu wsm -o probe.pmt -- ./envexec print >/dev/null 2>err
st=$?
set -e
[ $st = 0 ] || capture_probe_failed err

# markers TRACE: the trace's MARKER texts, one a line
markers() {
    "$pmusim" trace dump "$1" | sed -n 's/^[0-9]* [0-9]* marker //p'
}

# ---- an execve under --trace-children: the new image's environment ----
for c in plain mixed empty; do
    ./envexec exec $c ./envexec "$lib" >$c.native
    set +e
    "$pmusim" trace capture --cpu wsm --trace-children -o $c.pmt -- ./envexec exec $c ./envexec "$lib" >$c.out 2>$c.err
    st=$?
    set -e
    [ $st = 0 ] && ok "exec $c: exit status 0" || { fail "exec $c: exit status $st"; cat $c.err; }
    img=$(ls $c.pmt.*.1 2>/dev/null || true)
    [ -n "$img" ] && [ "$(ls $c.pmt.* | wc -l)" = 1 ] && ok "exec $c: the image's trace $img" || fail "exec $c: image traces '$(ls $c.pmt.* 2>/dev/null)'"
    [ -n "$img" ] && [ "$("$pmusim" stat -x , -e wsm::INST_RETIRED:ANY_P "$img" | awk -F, 'NR == 1 { print $1 }')" -gt 10000 ] &&
        ok "exec $c: the image ran traced" || fail "exec $c: the image's trace holds no run"
done
# plain and empty: what the program prints is what it prints natively
for c in plain empty; do
    if cmp -s $c.native $c.out; then ok "exec $c: the environment as natively"; else fail "exec $c: the environment differs:"; diff $c.native $c.out || true; fi
    if [ "$(cat $c.err)" = "pmusim: execve: ./envexec continued in $(ls $c.pmt.*.1)" ]; then
        ok "exec $c: stderr the execve line only (no strace, no note)"
    else
        fail "exec $c: stderr:"; cat $c.err
    fi
    [ "$(markers $c.pmt)" = "execve: ./envexec continued in $(ls $c.pmt.*.1)" ] &&
        ok "exec $c: the MARKER without a note" || fail "exec $c: MARKERs '$(markers $c.pmt)'"
done
[ "$(grep -c '^preload: loaded by ' plain.out)" = 1 ] && grep -q '^preload: loaded by envexec$' plain.out &&
    ok "exec plain: LD_PRELOAD loaded by the program once, not by QEMU" || fail "exec plain: preload lines '$(grep preload plain.out)'"
[ "$(cat empty.out)" = "0 entries" ] && ok "exec empty: no entry" || fail "exec empty: '$(cat empty.out)'"
# mixed: by hand from qemu_env.h: NOEQUALS and the second DUP left out,
# LD_COMMA (a comma, and a name the host process reads) left out,
# LD_PRELOAD (after COMMA, whose comma -E cannot carry) moved first
cat >mixed.expected <<END
preload: loaded by envexec
5 entries
0 A=1
1 LD_PRELOAD=$lib
2 COMMA=x,y
3 DUP=1
4 Z=2
END
if cmp -s mixed.expected mixed.out; then ok "exec mixed: the environment derived by hand"; else fail "exec mixed:"; diff mixed.expected mixed.out || true; fi
note="LD_PRELOAD: moved before the entries from the first one with a comma (QEMU's -E puts it first); NOEQUALS: no '=': QEMU passes no such entry, left out; DUP: set again: QEMU holds a name once, the first is kept; LD_COMMA: its entry has a comma (which QEMU's -E splits at) and the host QEMU process reads this name: left out"
want="execve: ./envexec continued in $(ls mixed.pmt.*.1) (its environment differs from the envp given: $note)"
[ "$(markers mixed.pmt)" = "$want" ] && ok "exec mixed: the MARKER says what differs" || fail "exec mixed: MARKERs '$(markers mixed.pmt)'"
[ "$(cat mixed.err)" = "pmusim: $want" ] && ok "exec mixed: stderr says it" || fail "exec mixed: stderr '$(cat mixed.err)'"

# ---- the program pmusim starts: pmusim's environment ----
# (pmusim loads the LD_PRELOAD library itself, as any program does: its
# line is left out; an ASan build checks its link order, told not to)
top_env() {
    env -i PATH=/usr/bin:/bin ASAN_OPTIONS=verify_asan_link_order=0 A=1 'NL=line one
line two' "EQ=a=b" EMPTY= LD_PRELOAD="$lib" QEMU_STRACE=1 QEMU_SET_ENV=INJECTED=1 QEMU_UNSET_ENV=A COMMA=x,y "$@"
}
top_env ./envexec print >top.native
set +e
top_env "$pmusim" trace capture --cpu wsm -o top.pmt -- ./envexec print >top.out 2>top.err
st=$?
set -e
[ $st = 0 ] && ok "top: exit status 0" || { fail "top: exit status $st"; cat top.err; }
grep -v '^preload: loaded by pmusim$' top.out >top.guest || true
if cmp -s top.native top.guest; then ok "top: the environment as natively"; else fail "top: the environment differs:"; diff top.native top.guest || true; fi
[ "$(grep -c '^preload: loaded by ' top.guest)" = 1 ] && ok "top: LD_PRELOAD loaded by the program, not by QEMU" || fail "top: preload lines '$(grep preload top.out)'"
[ ! -s top.err ] && ok "top: nothing on stderr (no strace)" || { fail "top: stderr:"; head -5 top.err; }
[ -z "$(markers top.pmt)" ] && ok "top: no MARKER" || fail "top: MARKERs '$(markers top.pmt)'"
# a comma before a loader variable: the variable comes first, said at the
# trace's start and on stderr
env -i PATH=/usr/bin:/bin COMMA=x,y LD_BIND_NOW=1 "$pmusim" trace capture --cpu wsm -o moved.pmt -- ./envexec print >moved.out 2>moved.err
printf '3 entries\n0 PATH=/usr/bin:/bin\n1 LD_BIND_NOW=1\n2 COMMA=x,y\n' >moved.expected
if cmp -s moved.expected moved.out; then ok "moved: the environment derived by hand"; else fail "moved:"; diff moved.expected moved.out || true; fi
want="environment: the program's differs from pmusim's: LD_BIND_NOW: moved before the entries from the first one with a comma (QEMU's -E puts it first)"
[ "$(markers moved.pmt | head -n 1)" = "$want" ] && [ "$("$pmusim" trace dump moved.pmt | grep -m 1 -E '^[0-9]+ [0-9]+ ')" = "0 0 marker $want" ] &&
    ok "moved: the trace starts with the MARKER" || fail "moved: MARKERs '$(markers moved.pmt)'"
[ "$(cat moved.err)" = "pmusim: $want" ] && ok "moved: stderr says it" || fail "moved: stderr '$(cat moved.err)'"
# --clean-env: the two variables, in the order the program always saw them
"$pmusim" trace capture --cpu wsm --clean-env -o clean.pmt -- ./envexec print >clean.out
printf '2 entries\n0 LC_ALL=C\n1 PATH=/usr/bin:/bin\n' >clean.expected
cmp -s clean.expected clean.out && ok "clean-env: LC_ALL=C, PATH" || { fail "clean-env:"; cat clean.out; }

echo "capture env: $failed failed"
[ "$failed" -eq 0 ]
