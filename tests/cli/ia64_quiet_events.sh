#!/bin/sh
# IA-64 EVENT records that no counter takes, in the fast loops (the lean
# loop and the capture loop consume them as empty masks, ia64_event_quiet()):
# IA64_INST_RETIRED must count exactly the trace's instruction records, with
# and without capture units programmed (with them the capture loop runs; it
# once counted the quiet EVENT records of a constant-signature run as
# instructions: 199,959 for 199,894 on the ita2 loop trace below).
# usage: ia64_quiet_events.sh PMUSIM
set -u
P=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-quiet-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
for c in ita2 mont; do
    case $c in
    ita2) cap=DATA_EAR_CACHE_LAT4,BRANCH_EVENT cyc=CPU_CYCLES ;;
    mont) cap=DATA_EAR_CACHE_LAT4,L1I_EAR_CACHE_LAT0,ETB_EVENT cyc=CPU_OP_CYCLES_ALL ;;
    esac
    for w in loop stream mixed; do
        f="$T/$c-$w.pmt"
        "$P" trace gen --cpu $c --workload $w --records 200000 --seed 1 "$f" >/dev/null || exit 1
        want=$("$P" trace info "$f" | sed -n 's/^  insn: //p')
        nev=$("$P" trace info "$f" | sed -n 's/^  event: //p')
        [ "${nev:-0}" -gt 0 ] || { echo "FAIL $c $w: no EVENT records to test with"; fail=1; }
        for ev in IA64_INST_RETIRED,$cyc IA64_INST_RETIRED,$cap; do
            got=$("$P" stat -x, -e $ev "$f" 2>&1 | sed -n 's/^\([0-9]*\),,IA64_INST_RETIRED.*/\1/p')
            if [ "$got" != "$want" ]; then
                echo "FAIL $c $w -e $ev: IA64_INST_RETIRED $got, trace info insn $want"
                fail=1
            fi
        done
    done
done
[ $fail -eq 0 ] && echo OK
exit $fail
