#!/bin/sh
# Every VCD `pmusim wave` writes for the bundled samples must be accepted by
# GTKWave's vcd2fst (skips, exit 77, when gtkwave is not installed), and the
# GTKWave save file must name only signals the VCD declares.
#   vcd_check.sh PMUSIM SRCDIR
set -eu
pmusim=$1
src=$2
command -v vcd2fst >/dev/null 2>&1 || { echo "SKIP: vcd2fst not installed (apt-get install gtkwave)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-vcd.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM HUP
failed=0
n=0
run() { # NAME ARGS...
    name=$1; shift
    n=$((n + 1))
    if ! "$pmusim" wave "$@" --vcd "$work/$name.vcd" --gtkw "$work/$name.gtkw" >/dev/null; then
        echo "FAIL $name: pmusim wave failed"; failed=$((failed + 1)); return
    fi
    if ! vcd2fst "$work/$name.vcd" "$work/$name.fst" >"$work/$name.log" 2>&1 || [ ! -s "$work/$name.fst" ]; then
        echo "FAIL $name: vcd2fst refused the VCD"; sed 's/^/  /' "$work/$name.log"; failed=$((failed + 1)); return
    fi
    # every signal line of the save file (scope.path without @ or - or [) is declared
    missing=$(awk 'NR == FNR { if ($1 == "$scope") s[++d] = $3; else if ($1 == "$upscope") d--;
                               else if ($1 == "$var") { p = ""; for (i = 1; i <= d; i++) p = p s[i] "."; v[p $5] = 1 }
                               next }
                   /^[^@\-\[\*]/ && !($0 in v) { print }' "$work/$name.vcd" "$work/$name.gtkw")
    if [ -n "$missing" ]; then
        echo "FAIL $name: the save file names undeclared signals:"; echo "$missing" | sed 's/^/  /'; failed=$((failed + 1)); return
    fi
    echo "ok   $name"
}
run ita2_overflow --from 0 -n 16 --regs "$src/tests/golden/core/check/ita2_overflow.regs" "$src/traces/samples/ita2_loop.txt"
run wsm_edge -n 12 -e 'wsm::UOPS_RETIRED:ANY:c=2,wsm::UOPS_RETIRED:ANY:c=2:e=1,wsm::UOPS_RETIRED:ANY:c=1:i=1' "$src/traces/samples/wsm_loop.txt"
run mont_threads --from 10 -n 20 "$src/traces/samples/mont_2threads.txt"
run knm_latency -n 40 -e 'knm::OFFCORE_RESPONSE_0:DMND_DATA_RD:OUTSTANDING,knm::OFFCORE_RESPONSE_1:DMND_DATA_RD:ANY_RESPONSE' "$src/traces/samples/knm_latency.txt"
run wsm_sampling -n 30 -c 7 -e wsm::INST_RETIRED:ANY_P "$src/traces/samples/wsm_loop.txt"
echo "$n VCDs: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
