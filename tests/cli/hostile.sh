#!/bin/sh
# Hostile inputs across the CLI (issues 9 and 12: "bad input gets a clear
# error and loses nothing"): one case per finding of the audit in
# docs/CLI.md ("Hostile inputs"), each with the exact exit status and the
# essential part of the message (file and line or byte).
# usage: hostile.sh PMUSIM SRCDIR
set -u
P=$1
SRC=$2
S=$SRC/traces/samples
T=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-hostile-XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
n=0

# result NAME OK?: one TAP line
result() {
    n=$((n + 1))
    if [ "$2" = 0 ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        fails=$((fails + 1))
    fi
}

# expect NAME STATUS STDERR-START -- command...: the exit status, and the
# first line of stderr starting with STDERR-START
expect() {
    name=$1 want_rc=$2 want_err=$3
    shift 4
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    got=$(head -n 1 "$T/err")
    case $got in
    "$want_err"*) bad=0 ;;
    *) bad=1 ;;
    esac
    [ "$rc" = "$want_rc" ] || bad=1
    if [ $bad = 1 ]; then
        echo "#   exit $rc (want $want_rc)"
        echo "#   stderr: $got"
        echo "#   want:   $want_err..."
    fi
    result "$name" $bad
}

# stdout_line NAME N TEXT: line N of the last command's stdout is TEXT
stdout_line() {
    got=$(sed -n "$2p" "$T/out")
    [ "$got" = "$3" ] || echo "#   stdout line $2: '$got', want '$3'"
    [ "$got" = "$3" ]
    result "$1" $?
}

# --- pmusim check: golden files GKeyFile refuses name the line
printf '[a]\npmu=wsm\nevents=INST_RETIRED:ANY_P\n\nbogus line\n' >"$T/line5.ini"
expect "check: a line that is no key, group or comment names its line" 1 \
    "pmusim: $T/line5.ini:5: " -- "$P" check "$T/line5.ini"
printf 'pmu=wsm\n[a]\n' >"$T/nogroup.ini"
expect "check: a key before the first group names line 1" 1 \
    "pmusim: $T/nogroup.ini:1: " -- "$P" check "$T/nogroup.ini"
printf '[a]\npmu=wsm\nevents=x\nerror=-4\n\n\n\n[b' >"$T/last.ini"
expect "check: an unclosed group on the last line (no newline) names it" 1 \
    "pmusim: $T/last.ini:8: " -- "$P" check "$T/last.ini"

# --- pmusim check: error= is an int in decimal or 0x hex, nothing else
case_error() { # FILE VALUE: a case whose encoding fails with PFM_ERR_NOTFOUND (-4)
    printf '[a]\npmu=wsm\nevents=NO_SUCH_EVENT\nerror=%s\n' "$2" >"$T/$1"
}
case_error hex.ini 0x10
expect "check: error=0x10 is 16 (was read as 0)" 1 "" -- "$P" check "$T/hex.ini"
stdout_line "check: error=0x10 is 16 (was read as 0): the reason" 1 \
    "FAIL  a: error -4 (NO_SUCH_EVENT: event not found on wsm), expected 16"
case_error neghex.ini -0x4
expect "check: error=-0x4 is -4" 0 "" -- "$P" check "$T/neghex.ini"
for v in -4x 99999999999 -2147483649 - +4 -0x-4; do
    case_error junk.ini "$v"
    expect "check: error=$v is refused at its line" 1 "" -- "$P" check "$T/junk.ini"
    stdout_line "check: error=$v is refused at its line: the reason" 1 \
        "FAIL  a: $T/junk.ini:4: error: expected an error code (a whole number that fits an int, decimal or 0x hex, '-' allowed)"
done

# --- pmusim check: plm= is u, k, uk or a mask, never a silent 0
printf '[a]\npmu=wsm\nevents=INST_RETIRED:ANY_P\nplm=user\nerror=-4\n' >"$T/plm.ini"
expect "check: plm=user is refused at its line" 1 "" -- "$P" check "$T/plm.ini"
stdout_line "check: plm=user is refused at its line: the reason" 1 \
    "FAIL  a: $T/plm.ini:4: plm: expected u, k, uk or a mask (decimal or 0x hex), got 'user'"
printf '[a]\npmu=wsm\nevents=INST_RETIRED:ANY_P\nplm=0x20\nerror=-2\n' >"$T/plm20.ini"
expect "check: a mask the encoder refuses still reaches it (error= tests it)" 0 "" -- \
    "$P" check "$T/plm20.ini"

# --- pmusim check --junit -: the XML alone on stdout
expect "check --junit -: exit 0" 0 "ok    " -- "$P" check --junit - "$SRC/tests/golden/core/check/slices.ini"
stdout_line "check --junit -: stdout starts with the XML declaration" 1 \
    '<?xml version="1.0" encoding="UTF-8"?>'

# --- pmusim wave: two outputs on one file, '-' outputs, setup errors print nothing
expect "wave: --vcd and --svg on one file" 2 \
    "pmusim wave: --vcd and --svg both write '$T/w.out'" -- \
    "$P" wave --vcd "$T/w.out" --svg "$T/w.out" "$S/wsm_loop.txt"
[ ! -e "$T/w.out" ]
result "wave: nothing written for two outputs on one file" $?
expect "wave: --vcd and --gtkw on one file, spelt differently" 2 \
    "pmusim wave: --vcd and --gtkw both write '$T/./w.out'" -- \
    "$P" wave --vcd "$T/w.out" --gtkw "$T/./w.out" "$S/wsm_loop.txt"
expect "wave: two outputs on stdout" 2 "pmusim wave: --vcd and --svg both write '-'" -- \
    "$P" wave --vcd - --svg - "$S/wsm_loop.txt"
expect "wave --vcd -: exit 0" 0 "" -- "$P" wave -n 2 --vcd - "$S/wsm_loop.txt"
stdout_line "wave --vcd -: stdout is the VCD alone" 1 '$version pmusim wave $end'
expect "wave: a period too large is refused" 1 \
    "pmusim: period 9223372036854775807 of IA32_PMC0 is too large" -- \
    "$P" wave -c 9223372036854775807 -n 5 "$S/wsm_loop.txt"
[ ! -s "$T/out" ]
result "wave: a period too large prints no table header" $?

# --- no output replaces a --regs input (stat refused it; record and wave wrote over it)
printf 'IA32_PERFEVTSEL0 0x5101c0 # INST_RETIRED\nIA32_PERF_GLOBAL_CTRL 0x1\n' >"$T/in.regs"
cp "$T/in.regs" "$T/in.regs.orig"
for c in "record -c 10 --regs $T/in.regs -o" "wave --regs $T/in.regs --vcd" \
    "wave --regs $T/in.regs --svg" "stat --regs $T/in.regs -o"; do
    # shellcheck disable=SC2086 # the command's words
    expect "${c%% *}: an output over the --regs file is refused" 1 \
        "pmusim: $T/in.regs: refusing to write the output over the input $T/in.regs (same file)" -- \
        "$P" $c "$T/in.regs" "$S/wsm_loop.txt"
    cmp -s "$T/in.regs" "$T/in.regs.orig"
    result "${c%% *}: the --regs file is untouched" $?
    cp "$T/in.regs.orig" "$T/in.regs"
done

# --- encode and events: a refusal leaves stdout empty (a '> my.regs' gets nothing)
expect "encode: an option the encoder refuses" 1 \
    "pmusim: invalid parameters: option thres=CPU_CYCLES=99: CPU_CYCLES takes thresholds 0..0" -- \
    "$P" encode -p ita2 --thres CPU_CYCLES=99 CPU_CYCLES
[ ! -s "$T/out" ]
result "encode: no explanation printed before the refusal" $?
expect "encode: the second event refused" 1 "pmusim: CPU_CYCLES: event not found on mont" -- \
    "$P" encode -p mont IA64_INST_RETIRED,CPU_CYCLES
[ ! -s "$T/out" ]
result "encode: nothing of the first event printed" $?
expect "events --source: no such event" 1 "pmusim: NOPE: no such event on wsm" -- \
    "$P" events --source -p wsm NOPE
[ ! -s "$T/out" ]
result "events --source: no column header printed" $?

# --- text traces: a header keyword without its value; a trace without a CPU
printf 'pmusim-trace 2\nisa ia64\ncpu\n' >"$T/cpu.txt"
expect "trace info: 'cpu' without a value names its line" 1 \
    "pmusim: $T/cpu.txt: line 3, record 0: header line 'cpu' needs exactly one value" -- \
    "$P" trace info "$T/cpu.txt"
expect "stat: 'cpu' without a value names its line (was: unknown PMU 'none')" 1 \
    "pmusim: $T/cpu.txt: line 3, record 0: header line 'cpu' needs exactly one value" -- \
    "$P" stat "$T/cpu.txt"
printf 'pmusim-trace 2\nisa x86_64\n0 0 idle n=5\nend 1\n' >"$T/none.txt"
expect "stat: a 'cpu none' trace without -p names the trace" 2 \
    "pmusim stat: $T/none.txt: the trace names no CPU ('cpu none'): choose the model with -p" -- \
    "$P" stat "$T/none.txt"
expect "stat -p wsm: a 'cpu none' trace replays" 0 "" -- "$P" stat -p wsm "$T/none.txt"

# --- trace annotate: a cache whose tags do not fit in memory (under ulimit -v;
# skipped where the binary cannot start under one, e.g. with ASan)
# (cachegrind's largest caches, about 2 GiB, are what the option parser
# accepts: 1 GiB of 16-byte lines, 512 MiB of tags, under 400 MB)
if sh -c 'ulimit -v 400000 && exec "$0" --help' "$P" >/dev/null 2>&1; then
    expect "annotate: a 1 GiB D1 of 16-byte lines under ulimit -v is refused, not aborted" 2 \
        "pmusim trace annotate: $S/wsm_loop.txt: cannot build the caches of wsm: the tags (8 bytes a line: 512 MiB" -- \
        sh -c 'ulimit -v 400000 && exec "$0" trace annotate --D1=1073741824,1,16 "$1" "$2"' \
        "$P" "$S/wsm_loop.txt" "$T/ann.txt"
    [ ! -e "$T/ann.txt" ]
    result "annotate: no output left" $?
else
    n=$((n + 1)); echo "ok $n - annotate under ulimit -v # SKIP the binary cannot start there"
fi

# --- the ways in (the eleventh session's audit): trace convert --from lackey
lk() { # NAME CONTENT: a lackey log (CONTENT a printf format) in $T/NAME.lk
    printf "$2" >"$T/$1.lk"
}
# lk_refused NAME CONTENT MESSAGE: the log is refused with "pmusim: FILE: MESSAGE..."
lk_refused() {
    lk "$1" "$2"
    expect "lackey: $1 is refused at its line" 1 "pmusim: $T/$1.lk: $3" -- \
        "$P" trace convert --from lackey "$T/$1.lk" "$T/lk.pmt"
}
lk_refused cut 'I  0401ab70,3\nI  0401ab7' "line 2: bad address"
lk_refused garbage 'I  0401ab70,3\nhello world\n' \
    "line 2: expected 'I  ADDR,SIZE', ' L|S|M ADDR,SIZE' or a '==' message line"
lk_refused addr17 'I  10000000000000000,3\n' "line 1: address longer than 16 hex digits"
lk_refused size0 'I  0401ab70,3\n L 1000,0\n' "line 2: bad size"
lk_refused sizehuge 'I  0401ab70,3\n S 1000,99999999999999999999\n' "line 2: size too large"
lk_refused nul 'I  0401ab70,3\nI  0401ab73,5\0\n' "line 2: NUL byte"
lk crlf 'I  0401ab70,3\r\n L 1000,8\r\nI  0401ab73,5\r\n'
expect "lackey: CRLF lines convert" 0 "" -- "$P" trace convert --from lackey --to text "$T/crlf.lk" "$T/lk.txt"
grep -c '^[0-9]* [0-9]* insn' "$T/lk.txt" >"$T/n"
[ "$(cat "$T/n")" = 2 ]
result "lackey: CRLF lines convert: 2 instructions" $?
expect "lackey: a missing file" 1 "pmusim: $T/nope.lk: cannot open: No such file or directory" -- \
    "$P" trace convert --from lackey "$T/nope.lk" "$T/lk.pmt"
mkdir "$T/dir.lk"
expect "lackey: a directory" 1 "pmusim: $T/dir.lk: read failed: Is a directory" -- \
    "$P" trace convert --from lackey "$T/dir.lk" "$T/lk.pmt"
lk memcheck '==42== Memcheck, a memory error detector\n==42== Copyright (C) 2002-2022, and GNU GPL'"'"'d\n==42== ERROR SUMMARY: 0 errors\n'
expect "lackey: another valgrind tool's log is refused (was an empty trace)" 1 \
    "pmusim: $T/memcheck.lk: line 1: the log of valgrind's Memcheck, not of lackey" -- \
    "$P" trace convert --from lackey "$T/memcheck.lk" "$T/lk.pmt"
[ ! -e "$T/lk.pmt" ]
result "lackey: no output left" $?
lk nomem '==42== Lackey, an example Valgrind tool\n==42== Command: /bin/true\n==42== \n==42== Counted 1 call to main()\n'
expect "lackey: a lackey log without --trace-mem=yes is refused (was an empty trace)" 1 \
    "pmusim: $T/nomem.lk: line 1: lackey's banner but no 'I  ADDR,SIZE' line in the log's 4 lines: was lackey run with --trace-mem=yes?" -- \
    "$P" trace convert --from lackey "$T/nomem.lk" "$T/lk.pmt"
lk good '==42== Lackey, an example Valgrind tool\nI  0401ab70,3\n S 1fff0006f8,8\nI  0401ab73,5\n'
expect "lackey: a lackey log with its banner converts" 0 "" -- \
    "$P" trace convert --from lackey "$T/good.lk" "$T/lk.pmt"
: >"$T/empty.lk"
expect "lackey: an empty log is an empty trace (by design)" 0 "" -- \
    "$P" trace convert --from lackey "$T/empty.lk" "$T/lk.pmt"

# --- trace annotate: the reader's errors, an output over the input
printf 'garbage' >"$T/garb.pmt"
expect "annotate: garbage input" 1 "pmusim: $T/garb.pmt: line 1, record 0: not a pmusim trace" -- \
    "$P" trace annotate --cpu wsm "$T/garb.pmt" "$T/ann.pmt"
"$P" trace gen --cpu wsm --records 20000 "$T/in.pmt" 2>/dev/null
head -c $(($(wc -c <"$T/in.pmt") / 2)) "$T/in.pmt" >"$T/cut.pmt"
expect "annotate: a cut input names where" 1 \
    "pmusim: $T/cut.pmt: byte " -- "$P" trace annotate --cpu wsm "$T/cut.pmt" "$T/ann.pmt"
[ ! -e "$T/ann.pmt" ]
result "annotate: no output from a cut input" $?
expect "annotate: a missing input" 1 "pmusim: $T/missing.pmt: cannot open: No such file or directory" -- \
    "$P" trace annotate --cpu wsm "$T/missing.pmt" "$T/ann.pmt"
cp "$T/in.pmt" "$T/in.orig"
ln -s in.pmt "$T/link.pmt"
for o in in.pmt link.pmt ./in.pmt; do
    expect "annotate: output $o over the input is refused" 1 \
        "pmusim: $T/$o: refusing to write the output over the input $T/in.pmt (same file)" -- \
        "$P" trace annotate --cpu wsm "$T/in.pmt" "$T/$o"
done
cmp -s "$T/in.pmt" "$T/in.orig"
result "annotate: the input is untouched" $?
expect "annotate: an unknown CPU" 2 "pmusim trace annotate: --cpu must be ita2, mont, wsm, wsm_dp or knm, not 'bogus'" -- \
    "$P" trace annotate --cpu bogus "$T/in.pmt" "$T/ann.pmt"
expect "annotate: an x86 trace on ita2" 2 "pmusim trace annotate: $T/in.pmt: an x86_64 trace cannot run on ita2" -- \
    "$P" trace annotate --cpu ita2 "$T/in.pmt" "$T/ann.pmt"

# --- trace gen: numbers in decimal, each refusal naming the value
for v in 0 -1 abc 99999999999999999999 0x10 ' 5' inf; do
    expect "gen: --records '$v' is refused" 2 \
        "pmusim trace gen: --records must be a whole number from 1 to 2^64-1 (e.g. 1000000 or 1e6), not '$v'" -- \
        "$P" trace gen --cpu wsm --records "$v" "$T/g.pmt"
done
expect "gen: --records 1e3 is 1000" 0 "" -- "$P" trace gen --cpu wsm --records 1e3 --to text "$T/g.txt"
for v in abc -1 1.5 0x10; do
    expect "gen: --seed '$v' is refused, naming it" 2 \
        "pmusim trace gen: --seed must be a whole number from 0 to 2^64-1, not '$v'" -- \
        "$P" trace gen --cpu wsm --records 10 --seed "$v" "$T/g.pmt"
done
for v in 0 9 abc; do
    expect "gen: --threads '$v' is refused, naming it" 2 "pmusim trace gen: --threads must be 1..8, not '$v'" -- \
        "$P" trace gen --cpu wsm --records 10 --threads "$v" "$T/g.pmt"
done
expect "gen: --threads 3 on wsm" 2 "pmusim trace gen: generator: wsm runs 1..2 hardware threads per core, not 3" -- \
    "$P" trace gen --cpu wsm --records 10 --threads 3 "$T/g.pmt"
expect "gen: an unknown workload" 2 "pmusim trace gen: --workload must be loop, stream or mixed" -- \
    "$P" trace gen --cpu wsm --workload nope --records 10 "$T/g.pmt"
expect "gen: an unknown CPU" 2 "pmusim trace gen: --cpu must be ita2, mont, wsm, wsm_dp or knm" -- \
    "$P" trace gen --cpu nope --records 10 "$T/g.pmt"
[ ! -e "$T/g.pmt" ]
result "gen: no output from a refused command" $?

# --- --help on a full stdout
if [ -w /dev/full ]; then
    expect "stat --help > /dev/full says so" 1 "pmusim: write error on standard output: " -- \
        sh -c 'exec "$0" stat --help >/dev/full' "$P"
fi

echo "1..$n"
[ "$fails" = 0 ]
