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

# --- --help on a full stdout
if [ -w /dev/full ]; then
    expect "stat --help > /dev/full says so" 1 "pmusim: write error on standard output: " -- \
        sh -c 'exec "$0" stat --help >/dev/full' "$P"
fi

echo "1..$n"
[ "$fails" = 0 ]
