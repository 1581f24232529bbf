#!/bin/sh
# The divider and the microcode sequencer on a captured program
# (docs/UARCH.md §1, "The divider", "The microcode sequencer"):
# tests/capture/progs/divs.c runs N `div r32` (pinned by inline asm) and one
# `rep movsb` of LEN bytes; a run with N = LEN = 0 gives the C library's
# start-up counts, which are subtracted.  Hand-derived expectations:
#   wsm ARITH:DIV              N        (one per divide instruction)
#   wsm ARITH:CYCLES_DIV_BUSY  23 * N   (the 32-bit divide's 23 busy cycles,
#                                        one record per divide)
#   knm CYCLES_DIV_BUSY:ALL    23 * N   (the same figure on knm)
#   wsm ARITH:CYCLES_DIV_BUSY:c=1, knm CYCLES_DIV_BUSY:ALL:c=1   23 * N,
#   and their :c=1:e=1 (rising edges of "divider busy")  1: the header's
#                              evspan key lists the divider's pair, so each
#                              record is an interval [retirement, + 23)
#                              (docs/trace-events-x86.md, "Exact thresholds
#                              on divider records").  The loop's divides
#                              keep the divider busy back to back (the
#                              window holds many iterations, each divide
#                              starts when the previous ends) and each
#                              retires at its completion (the loop's other
#                              instructions complete one cycle after
#                              dispatch), so records are 23 cycles apart:
#                              the intervals abut, their union is 23 * N
#                              cycles in one stretch, one edge, as the busy
#                              period on the hardware
#   wsm UOPS_EXECUTED:PORT0    at least N (the divide issues on port 0), at
#                              most N times the loop's instructions (each
#                              of which has at most one uop on port 0; the
#                              loop is counted in the binary with objdump)
#   wsm UOPS_DECODED:MS, knm UOPS_RETIRED:MS  0: the capture's uop estimate
#                              never exceeds 3, so rep movsb is not a
#                              microcode-sequencer instruction in a capture
#
#   divs_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin, a C compiler or objdump.
set -eu
unset MALLOC_PERTURB_ || true
pmusim=$1
src=$2
command -v qemu-x86_64 >/dev/null 2>&1 || { echo "SKIP: qemu-x86_64 not installed (apt-get install qemu-user)"; exit 77; }
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
command -v objdump >/dev/null 2>&1 || { echo "SKIP: no objdump"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-divs.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM HUP
"$cc" -O2 -o "$work/divs" "$src/tests/capture/progs/divs.c"
if ! "$pmusim" trace capture --cpu wsm -o "$work/w0.pmt" -- "$work/divs" 0 0 >/dev/null 2>"$work/err"; then
    if grep -q "plugin is not built" "$work/err"; then
        echo "SKIP: the QEMU plugin is not built (libcapstone-dev missing)"; exit 77
    fi
    cat "$work/err"; exit 1
fi

# The binary: exactly one divide in main, and the instructions of its loop
# (from the back branch's target to the back branch).
objdump -d --no-show-raw-insn "$work/divs" | awk '/<main>:/, /^$/' >"$work/main.s"
ndiv=$(grep -c -E '[[:space:]]i?div[lq]?[[:space:]]' "$work/main.s" || true)
loop=$(awk '
    function hex(s,   v, i) { v = 0; s = tolower(s); for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
    /:\t/ { split($0, f, ":"); gsub(/ /, "", f[1]); a = hex(f[1]); addr[n++] = a; line[a] = $0 }
    /[[:space:]]i?div[lq]?[[:space:]]/ { split($0, f, ":"); gsub(/ /, "", f[1]); d = hex(f[1]) }
    END {
        for (i = 0; i < n; i++) {
            if (addr[i] <= d) continue
            if (line[addr[i]] ~ /\tj[a-z]+ +[0-9a-f]+ </) {
                split(line[addr[i]], g, /\tj[a-z]+ +/); split(g[2], h, " "); t = hex(h[1])
                if (t <= d) { k = 0; for (j = 0; j < n; j++) if (addr[j] >= t && addr[j] <= addr[i]) k++; print k; exit }
            }
        }
        print 0
    }' "$work/main.s")

failed=0
check() { # check NAME ACTUAL EXPECTED
    if [ "$2" -eq "$3" ]; then echo "ok    $1: $2"; else echo "FAIL  $1: $2, expected $3"; failed=$((failed + 1)); fi
}
between() { # between NAME ACTUAL LOW HIGH
    if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then echo "ok    $1: $2 (in $3..$4)"
    else echo "FAIL  $1: $2, expected $3..$4"; failed=$((failed + 1)); fi
}
check "divides in main (objdump)" "$ndiv" 1
between "instructions of the divide loop (objdump)" "$loop" 3 8
count() { # count EVENT TRACE
    "$pmusim" stat -x , -e "$1" "$2" | awk -F, 'NF > 2 && $1 ~ /^[0-9]+$/ { print $1; exit }'
}
n=1000
len=4096
"$pmusim" trace capture --cpu wsm -o "$work/w.pmt" -- "$work/divs" $n $len >/dev/null
"$pmusim" trace capture --cpu knm -o "$work/k0.pmt" -- "$work/divs" 0 0 >/dev/null
"$pmusim" trace capture --cpu knm -o "$work/k.pmt" -- "$work/divs" $n $len >/dev/null
d() { echo $(( $(count "$1" "$2") - $(count "$1" "$3") )); }
check "wsm ARITH:DIV" "$(d wsm::ARITH:DIV "$work/w.pmt" "$work/w0.pmt")" $n
check "wsm ARITH:CYCLES_DIV_BUSY" "$(d wsm::ARITH:CYCLES_DIV_BUSY "$work/w.pmt" "$work/w0.pmt")" $((23 * n))
between "wsm UOPS_EXECUTED:PORT0" "$(d wsm::UOPS_EXECUTED:PORT0 "$work/w.pmt" "$work/w0.pmt")" $n $((loop * n))
check "wsm UOPS_DECODED:MS" "$(d wsm::UOPS_DECODED:MS "$work/w.pmt" "$work/w0.pmt")" 0
check "knm CYCLES_DIV_BUSY:ALL" "$(d knm::CYCLES_DIV_BUSY:ALL "$work/k.pmt" "$work/k0.pmt")" $((23 * n))
check "wsm ARITH:CYCLES_DIV_BUSY:c=1" "$(d wsm::ARITH:CYCLES_DIV_BUSY:c=1 "$work/w.pmt" "$work/w0.pmt")" $((23 * n))
check "wsm ARITH:CYCLES_DIV_BUSY:c=1:e=1" "$(d wsm::ARITH:CYCLES_DIV_BUSY:c=1:e=1 "$work/w.pmt" "$work/w0.pmt")" 1
check "knm CYCLES_DIV_BUSY:ALL:c=1" "$(d knm::CYCLES_DIV_BUSY:ALL:c=1 "$work/k.pmt" "$work/k0.pmt")" $((23 * n))
check "knm CYCLES_DIV_BUSY:ALL:c=1:e=1" "$(d knm::CYCLES_DIV_BUSY:ALL:c=1:e=1 "$work/k.pmt" "$work/k0.pmt")" 1
check "knm UOPS_RETIRED:MS" "$(d knm::UOPS_RETIRED:MS "$work/k.pmt" "$work/k0.pmt")" 0
echo "capture divs: $failed failed"
[ "$failed" -eq 0 ]
