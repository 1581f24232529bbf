#!/bin/sh
# Errors that lead somewhere and a CLI that helps (issue 14 parts 3-4):
# exact messages and exit codes of every suggestion path, the "exists on"
# hint, the --pmu note, help and usage lines, events globs / full strings /
# --json / --names, check --tap / --junit / -j.
# usage: cli_help.sh PMUSIM SRCDIR
set -u
P=$1
SRC=$2
S=$SRC/traces/samples
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0

# expect NAME STATUS STDERR-LINE -- command...: exit status and the first stderr line
expect() {
    name=$1 want_rc=$2 want_err=$3
    shift 4
    n=$((n + 1))
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    got=$(head -n 1 "$T/err")
    if [ "$rc" != "$want_rc" ] || [ "$got" != "$want_err" ]; then
        echo "not ok $n - $name"
        echo "#   exit $rc (want $want_rc)"
        echo "#   stderr: $got"
        echo "#   want:   $want_err"
        fails=$((fails + 1))
    else
        echo "ok $n - $name"
    fi
}

# check NAME CONDITION...: a shell test
check() {
    name=$1
    shift
    n=$((n + 1))
    if "$@"; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name"
        fails=$((fails + 1))
    fi
}

# --- suggestions: events, unit masks, modifiers, PMU names, options, commands
expect "event typo on ita2" 1 \
    "pmusim: CPU_CYCLE: event not found on ita2 (did you mean CPU_CYCLES?)" -- \
    "$P" stat -e CPU_CYCLE "$S/ita2_loop.txt"
expect "event typo on wsm" 1 \
    "pmusim: UNHALTED_CORE_CYCLE: event not found on wsm (did you mean UNHALTED_CORE_CYCLES?)" -- \
    "$P" stat -e UNHALTED_CORE_CYCLE "$S/wsm_loop.txt"
expect "an Itanium event on wsm says where it exists" 1 \
    "pmusim: CPU_CYCLES: event not found on wsm (did you mean cycles? CPU_CYCLES is an event of ita2)" -- \
    "$P" stat -e CPU_CYCLES "$S/wsm_loop.txt"
expect "an x86 event on ita2: suggestion and where it exists" 1 \
    "pmusim: UOPS_RETIRED: event not found on ita2 (did you mean NOPS_RETIRED? UOPS_RETIRED is an event of wsm, wsm_dp, knm)" -- \
    "$P" stat -e UOPS_RETIRED "$S/ita2_loop.txt"
expect "perf name typo" 1 \
    "pmusim: instructons: event not found on wsm (did you mean instructions?)" -- \
    "$P" stat -e instructons "$S/wsm_loop.txt"
expect "perf name typo on ita2" 1 \
    "pmusim: branch-mises: event not found on ita2 (did you mean branch-misses?)" -- \
    "$P" stat -e branch-mises "$S/ita2_loop.txt"
expect "events: an Itanium event on wsm" 1 \
    "pmusim: CPU_CYCLES: event not found on wsm (CPU_CYCLES is an event of ita2)" -- \
    "$P" events -p wsm CPU_CYCLES
expect "unit mask typo" 1 \
    "pmusim: UOPS_RETIRED:ANYY: unit mask 'ANYY' not found on wsm (did you mean ANY?)" -- \
    "$P" stat -e UOPS_RETIRED:ANYY "$S/wsm_loop.txt"
expect "IA-64 unit mask on an event without one" 1 \
    "pmusim: CPU_CYCLES:Q: unit mask 'Q' not found on ita2 (CPU_CYCLES takes no unit mask)" -- \
    "$P" stat -e CPU_CYCLES:Q "$S/ita2_loop.txt"
expect "modifier typo" 1 \
    "pmusim: UOPS_RETIRED:ANY:cc=1: invalid attribute 'cc=1' on wsm: UOPS_RETIRED has no modifier cc (modifiers: k, u, e, i, c, t) (did you mean c?)" -- \
    "$P" stat -e UOPS_RETIRED:ANY:cc=1 "$S/wsm_loop.txt"
expect "e=1 needs c>=1" 1 \
    "pmusim: UOPS_RETIRED:ANY:e=1: invalid attribute 'e=1' on wsm: edge detect counts the cycles where the counter-mask comparison turns true, so it needs c>=1 (e.g. :e=1:c=1)" -- \
    "$P" stat -e UOPS_RETIRED:ANY:e=1 "$S/wsm_loop.txt"
expect "counter mask range" 1 \
    "pmusim: UOPS_RETIRED:ANY:c=300: invalid value 'c=300' on wsm: c (counter mask) takes 0..255" -- \
    "$P" stat -e UOPS_RETIRED:ANY:c=300 "$S/wsm_loop.txt"
expect "conflicting values" 1 \
    "pmusim: UOPS_RETIRED:ANY:u=1:u=0: conflicting attributes on wsm: u is given twice, as 1 and 0" -- \
    "$P" stat -e UOPS_RETIRED:ANY:u=1:u=0 "$S/wsm_loop.txt"
expect "IA-64 incompatible sets are named" 1 \
    "pmusim: L1D_READS_SET0,L1D_READS_SET1: incompatible event sets on ita2: L1D_READS_SET0 (L1 set 0), L1D_READS_SET1 (L1 set 1); the events of one cache group must come from one set" -- \
    "$P" encode --regs-only -p ita2 L1D_READS_SET0,L1D_READS_SET1
expect "PMU typo" 2 \
    "pmusim stat: unknown PMU 'wms' (did you mean wsm? known: ita2, mont, wsm, wsm_dp, knm)" -- \
    "$P" stat -p wms "$S/wsm_loop.txt"
expect "PMU typo (events)" 2 \
    "pmusim events: unknown PMU 'itanium' (did you mean itanium2? known: ita2, mont, wsm, wsm_dp, knm)" -- \
    "$P" events -p itanium
expect "option typo" 2 \
    "pmusim stat: Unknown option --evnt (did you mean --event?)" -- \
    "$P" stat --evnt CPU_CYCLES "$S/ita2_loop.txt"
expect "an option named only in a description is no candidate" 2 \
    "pmusim stat: Unknown option --option (did you mean --opt?)" -- \
    "$P" stat --option x "$S/wsm_loop.txt"
expect "help group typo" 2 \
    "pmusim stat: Unknown option --help-itanum (did you mean --help-itanium?)" -- \
    "$P" stat --help-itanum
expect "command typo" 2 \
    "pmusim: unknown command 'stt' (did you mean stat?)" -- \
    "$P" stt "$S/ita2_loop.txt"
expect "trace subcommand typo" 2 \
    "pmusim trace: unknown subcommand 'inof' (did you mean info? expected info, dump, convert, gen, annotate, capture)" -- \
    "$P" trace inof "$S/wsm_loop.txt"
expect "option typo in a trace subcommand" 2 \
    "pmusim trace info: Unknown option --strct (did you mean --strict?)" -- \
    "$P" trace info --strct "$S/wsm_loop.txt"
expect "--thres on x86" 1 \
    "pmusim: --thres is an Itanium encoder option; on x86 use the :c=N modifier (counter mask), e.g. -e UOPS_RETIRED:ANY:c=2" -- \
    "$P" stat --thres UOPS_RETIRED=2 "$S/wsm_loop.txt"

expect "perf spelling of a modifier" 1 \
    "pmusim: UOPS_RETIRED:ANY:cmask=1: invalid attribute 'cmask=1' on wsm: UOPS_RETIRED has no modifier cmask (modifiers: k, u, e, i, c, t) (did you mean c?)" -- \
    "$P" encode -p wsm UOPS_RETIRED:ANY:cmask=1
expect "unit masks that cannot be combined" 1 \
    "pmusim: MEM_INST_RETIRED:LOADS:STORES: conflicting attributes on wsm: unit masks LOADS and STORES cannot be combined" -- \
    "$P" encode --regs-only -p wsm MEM_INST_RETIRED:LOADS:STORES
expect "ldlat without its unit mask" 1 \
    "pmusim: MEM_INST_RETIRED:LOADS:ldlat=5: invalid attribute 'ldlat' on wsm: ldlat needs the load-latency unit mask (MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD)" -- \
    "$P" encode --regs-only -p wsm MEM_INST_RETIRED:LOADS:ldlat=5
expect "two load-latency thresholds name both events" 1 \
    "pmusim: MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=3, MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=16: incompatible events on wsm: one load-latency threshold (MSR_PEBS_LD_LAT_THRESHOLD) for all, asked 3 and 16" -- \
    "$P" encode --regs-only -p wsm MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=3,MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=16
expect "three offcore values name the events" 1 \
    "pmusim: OFFCORE_RESPONSE_0:DMND_DATA_RD, OFFCORE_RESPONSE_0:DMND_RFO, OFFCORE_RESPONSE_1:WB: incompatible events on wsm: two MSR_OFFCORE_RSP registers, three response values (0xff01, 0xff02, 0xff08)" -- \
    "$P" encode --regs-only -p wsm OFFCORE_RESPONSE_0:DMND_DATA_RD,OFFCORE_RESPONSE_0:DMND_RFO,OFFCORE_RESPONSE_1:WB
expect "no free counter names the holders" 1 \
    "pmusim: UOPS_RETIRED:ANY:c=2: no free counter on wsm: the counters it can use are taken by UOPS_RETIRED:ANY (PMC0), UOPS_ISSUED:ANY (PMC1), UOPS_EXECUTED:PORT0 (PMC2), UOPS_DECODED:MS (PMC3) (4 generic + 3 fixed counters, 5 events)" -- \
    "$P" encode --regs-only -p wsm UOPS_RETIRED:ANY,UOPS_ISSUED:ANY,UOPS_EXECUTED:PORT0,UOPS_DECODED:MS,UOPS_RETIRED:ANY:c=2
expect "Montecito: three L2D sets are named" 1 \
    "pmusim: L2D_BYPASS_L2_DATA1,L2D_L3ACCESS_CANCEL_ANY,L2D_FORCE_RECIRC_FILL_HIT: incompatible event sets on mont: L2D_BYPASS_L2_DATA1 (L2D set 1), L2D_L3ACCESS_CANCEL_ANY (L2D set 3), L2D_FORCE_RECIRC_FILL_HIT (L2D set 4); one L1D set and at most two L2D sets can be counted together" -- \
    "$P" encode --regs-only -p mont L2D_BYPASS_L2_DATA1,L2D_L3ACCESS_CANCEL_ANY,L2D_FORCE_RECIRC_FILL_HIT
expect "knm: AnyThread on a taken fixed counter names the holder" 1 \
    "pmusim: UNHALTED_CORE_CYCLES:t=1: no free counter on knm: t (AnyThread) counts on fixed counter 1 only, taken by UNHALTED_CORE_CYCLES:t=1" -- \
    "$P" encode --regs-only -p knm UNHALTED_CORE_CYCLES:t=1,UNHALTED_CORE_CYCLES:t=1
expect "IA-64 encoder option typo" 1 \
    "pmusim: invalid parameters: unknown option tres for mont (did you mean thres? pmusim events --pmu mont --options)" -- \
    "$P" encode --regs-only -p mont -O tres=CPU_OP_CYCLES_ALL=1 CPU_OP_CYCLES_ALL
expect "IA-64 MESI unit mask missing" 1 \
    "pmusim: L3_INSERTS: unit mask missing on mont: L3_INSERTS needs a MESI unit mask (e.g. L3_INSERTS:M or L3_INSERTS:I:S:E:M)" -- \
    "$P" encode --regs-only -p mont L3_INSERTS
expect "IA-64 MESI unit mask unknown" 1 \
    "pmusim: L3_INSERTS:X: unit mask 'X' not found on mont (L3_INSERTS takes the MESI unit masks I, S, E and M)" -- \
    "$P" encode --regs-only -p mont L3_INSERTS:X

# --- the --pmu note and the aliases
expect "a wsm trace on the knm model is noted" 0 \
    "pmusim stat: note: $S/wsm_loop.txt was recorded on wsm; counting it with the knm model" -- \
    "$P" stat -p knm "$S/wsm_loop.txt"
expect "alias westmere" 0 "" -- "$P" stat -p westmere "$S/wsm_loop.txt"
check "alias westmere counts as wsm" grep -q "(PMU wsm," "$T/out"
expect "alias itanium2" 0 "" -- "$P" encode -p itanium2 CPU_CYCLES
expect "alias westmere_ep_dp" 0 "" -- "$P" events -p westmere_ep_dp UOPS_RETIRED
check "westmere_ep_dp is wsm_dp" grep -q "^PMU name : wsm_dp" "$T/out"

# --- help
expect "stat --help" 0 "" -- "$P" stat --help
check "usage line" [ "$(sed -n 2p "$T/out")" = "  pmusim stat [OPTIONS] TRACE" ]
check "Itanium options are not in the main help" sh -c "! grep -q -- '--irange=' '$T/out'"
check "examples" grep -q "^  pmusim stat -e cycles,instructions,UOPS_RETIRED:ANY:c=1 traces/samples/wsm_loop.txt$" "$T/out"
cp "$T/out" "$T/stat_help"
expect "help stat" 0 "" -- "$P" help stat
check "help stat = stat --help" cmp -s "$T/out" "$T/stat_help"
expect "stat --help-itanium" 0 "" -- "$P" stat --help-itanium
check "Itanium group" grep -q "^Itanium encoder options (ita2, mont):" "$T/out"
check "Itanium group has --irange" grep -q -- "--irange=START-END" "$T/out"
expect "help trace info" 0 "" -- "$P" help trace info
check "trace info usage line" [ "$(sed -n 2p "$T/out")" = "  pmusim trace info [OPTIONS] FILE" ]
expect "help" 0 "" -- "$P" help
check "top-level usage" [ "$(sed -n 1p "$T/out")" = "usage: pmusim COMMAND [ARGS]" ]
expect "trace --help-all" 0 "" -- "$P" trace --help-all
check "trace --help-all is the trace usage" [ "$(sed -n 1p "$T/out")" = "pmusim trace info [--strict] FILE" ]
expect "trace capture without --cpu" 2 \
    "pmusim trace capture: --cpu is required: wsm, wsm_dp or knm (an x86-64 program runs on an x86 model)" -- \
    "$P" trace capture -- /bin/true
expect "trace capture --help" 0 "" -- "$P" trace capture --help
check "an execve under --trace-children goes on in OUT.PID.N" grep -q "its trace in OUT.PID.N" "$T/out"

# every command's help: exit 0, the usage line names the command as typed
for c in "stat TRACE" "record TRACE" "report FILE" "script FILE" "wave TRACE" \
         "check GOLDEN-FILE..." "trace info FILE" "trace dump FILE" "trace convert IN OUT" \
         "trace gen OUT" "trace annotate IN OUT" "trace capture -- PROGRAM [ARGS...]"; do
    cmd=${c% *}
    params=${c##* }
    case $c in
        "trace capture"*) cmd="trace capture" params="-- PROGRAM [ARGS...]" ;;
        "trace convert"*|"trace annotate"*) cmd=${c% IN OUT} params="IN OUT" ;;
    esac
    # shellcheck disable=SC2086
    expect "help $cmd" 0 "" -- "$P" help $cmd
    check "usage line of $cmd" [ "$(sed -n 2p "$T/out")" = "  pmusim $cmd [OPTIONS] $params" ]
done

# --- events
expect "events glob" 0 "" -- "$P" events -p wsm --names 'uops_*'
check "glob names" [ "$(tr '\n' ' ' <"$T/out")" = "UOPS_DECODED UOPS_RETIRED UOPS_EXECUTED UOPS_ISSUED " ]
expect "events glob listing" 0 "" -- "$P" events -p wsm 'UOPS_RET*'
check "glob listing line" [ "$(cat "$T/out")" = "wsm::UOPS_RETIRED  Micro-ops retired" ]
expect "events glob without match" 1 "pmusim: 'ZZZ*': no event matches on wsm" -- \
    "$P" events -p wsm 'ZZZ*'
expect "events full string" 0 "" -- "$P" events wsm::UOPS_RETIRED:ANY:c=1
check "full string: facts" grep -q "^Name     : UOPS_RETIRED$" "$T/out"
check "full string: encoding" grep -q "^Codes          : 0x15301c2$" "$T/out"
expect "events unknown full string" 1 \
    "pmusim: wsm::UOPS_RETIRED:ANYY: unit mask 'ANYY' not found on wsm (did you mean ANY?)" -- \
    "$P" events wsm::UOPS_RETIRED:ANYY
expect "events --json" 0 "" -- "$P" events -p ita2 --json 'CPU_C*'
check "json lines" [ "$(cat "$T/out")" = '[
{"pmu": "ita2", "name": "CPU_CPL_CHANGES", "code": "0x13", "umask": "0x00", "desc": "Changes of the current privilege level (any direction)", "umasks": []},
{"pmu": "ita2", "name": "CPU_CYCLES", "code": "0x12", "umask": "0x00", "desc": "Processor clock cycles", "umasks": []}
]' ]
expect "events --json with unit masks" 0 "" -- "$P" events -p wsm --json UOPS_RETIRED
check "json unit masks" grep -q '"umasks": \[{"name": "ANY", "umask": "0x01"}, ' "$T/out"
if command -v python3 >/dev/null 2>&1; then
    "$P" events -p knm --json >"$T/knm.json"
    check "knm --json is valid JSON with every event" python3 -c "
import json, sys
d = json.load(open('$T/knm.json'))
n = int(sys.argv[1])
sys.exit(0 if len(d) == n and all('umasks' in e for e in d) else 1)" "$("$P" events -p knm --names | wc -l)"
fi
expect "events --names without --pmu" 0 "" -- "$P" events --names
check "every PMU's names" [ "$(grep -c '^ita2::' "$T/out")" -gt 100 ] 

# --- check --tap / --junit / -j
G=$SRC/tests/golden/core/check
cd "$G" || exit 1
expect "check --tap" 1 "" -- "$P" check --tap slices.ini bad_key.ini
check "TAP header" [ "$(sed -n 1,2p "$T/out" | tr '\n' '|')" = "TAP version 13|1..14|" ]
check "TAP ok line" [ "$(sed -n 3p "$T/out")" = "ok 1 - ita2: CPU_CYCLES and IA64_INST_RETIRED by name" ]
check "TAP not ok + YAML" [ "$(sed -n '16,20p' "$T/out")" = "not ok 14 - typo
  ---
  message: \"bad_key.ini:6: unknown key 'cuont.CPU_CYCLES' (known: pmu, events, options, plm, regs, expect-regs, trace, error, count.NAME, overflows.NAME)\"
  file: \"bad_key.ini\"
  ..." ]
check "TAP counts" [ "$(grep -c '^ok ' "$T/out") $(grep -c '^not ok ' "$T/out")" = "13 1" ]
expect "check --tap: a file that cannot be read is a failed case" 1 \
    "pmusim: $T/none.ini: cannot open: No such file or directory" -- "$P" check --tap "$T/none.ini"
check "TAP for an unreadable file" [ "$(cat "$T/out")" = "TAP version 13
1..1
not ok 1 - (file) $T/none.ini
  ---
  message: \"$T/none.ini: cannot open: No such file or directory\"
  file: \"$T/none.ini\"
  ...
# 0 passed, 1 failed" ]
expect "check --junit" 1 "" -- "$P" check --junit "$T/j.xml" slices.ini bad_key.ini
check "JUnit written" [ -s "$T/j.xml" ]
check "JUnit testsuites" grep -q '^<testsuites name="pmusim check" tests="14" failures="1">$' "$T/j.xml"
check "JUnit two testsuites" [ "$(grep -c '<testsuite ' "$T/j.xml")" = 2 ]
check "JUnit 14 testcases" [ "$(grep -c '<testcase ' "$T/j.xml")" = 14 ]
check "JUnit one failure, escaped" grep -q "<failure message=\"bad_key.ini:6: unknown key &apos;cuont.CPU_CYCLES&apos; (known: " "$T/j.xml"
if command -v xmllint >/dev/null 2>&1; then
    check "JUnit is well-formed (xmllint)" xmllint --noout "$T/j.xml"
    check "xmllint: 14 testcase elements" [ "$(xmllint --xpath 'count(//testcase)' "$T/j.xml")" = 14 ]
    check "xmllint: 1 failure element" [ "$(xmllint --xpath 'count(//failure)' "$T/j.xml")" = 1 ]
else
    echo "# xmllint not installed: JUnit checked with grep only"
fi
# the loop sample retires 10 instructions x 20 iterations, all at user level
cat >"$T/alias.ini" <<EOF
[a PMU alias names the model too]
pmu=westmere
events=INST_RETIRED:ANY_P
plm=u
trace=$S/wsm_loop.txt
count.wsm::INST_RETIRED:ANY_P=200
EOF
expect "check: pmu=westmere" 0 "" -- "$P" check "$T/alias.ini"
check "check: alias case passes" [ "$(cat "$T/out")" = "ok    a PMU alias names the model too
1 passed, 0 failed" ]
cp slices.ini "$T/input.ini"
expect "--junit never overwrites a golden file" 1 \
    "pmusim: $T/input.ini: refusing to write the output over the input $T/input.ini (same file)" -- \
    "$P" check --junit "$T/input.ini" "$T/input.ini"
check "the golden file is untouched" cmp -s slices.ini "$T/input.ini"
"$P" check slices.ini bad_key.ini bad_value.ini >"$T/j1" 2>&1
"$P" check -j 2 slices.ini bad_key.ini bad_value.ini >"$T/j2" 2>&1
check "check -j 2 = -j 1" cmp -s "$T/j1" "$T/j2"
expect "check -j 0" 2 "pmusim check: -j: expected 1..64 jobs, got 0" -- "$P" check -j 0 slices.ini

# --- every example of every command's --help runs (exit 0) from a source-like tree
mkdir "$T/ex" && ln -s "$SRC/traces" "$T/ex/traces" && ln -s "$SRC/tests" "$T/ex/tests"
# (trace capture's need QEMU and programs to run: fork_test.sh and the
# capture tests cover it).  A line ending in a backslash goes on on the next.
for c in stat record report script events encode check wave \
         "trace info" "trace dump" "trace convert" "trace gen" "trace annotate"; do
    # shellcheck disable=SC2086
    "$P" help $c | sed -n '/^Examples:/,$p' |
        awk '/\\$/ { sub(/\\$/, ""); printf "%s", $0; next } { print }' |
        sed -n 's/^  pmusim //p' >"$T/examples"
    check "$c --help has examples" [ -s "$T/examples" ]
    while read -r line; do
        check "example: pmusim $line" sh -c "cd '$T/ex' && eval \"'$P' $line\" >/dev/null 2>&1"
    done <"$T/examples"
done

echo "1..$n"
[ "$fails" = 0 ]
