#!/bin/sh
# trace annotate of instructions with more than 64 accesses (a capture's
# REP strings; UARCH.md section 1, "An instruction with more than 64
# accesses") on every CPU model and thread count, markers between them:
# the output reads back (records in cycle order, each MEM record after its
# instruction) with every INSN and MEM record of the input, none dropped.
# Found with it: a MARKER on a Montecito thread with a held L3 miss came
# out before the miss's cycle (an unreadable file).
# usage: annotate_parts.sh PMUSIM SRCDIR
set -u
P=$1
SRC=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-parts-XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
n=0
for cfg in ita2:1 mont:2 wsm:1 wsm:2 wsm_dp:2 knm:2 knm:4; do
    cpu=${cfg%:*} th=${cfg#*:}
    for seed in 1 2 3; do
        for most in 2 300; do
            n=$((n + 1))
            name="$cpu, $th thread(s), seed $seed, up to $most accesses"
            awk -v cpu="$cpu" -v th="$th" -v seed="$seed" -v most="$most" \
                -f "$SRC/tests/cli/long_insns.awk" >"$T/in.txt"
            if ! "$P" trace annotate "$T/in.txt" "$T/out.pmt" --cpu "$cpu" 2>"$T/err"; then
                echo "not ok $n - $name: annotate: $(head -1 "$T/err")"
                fails=$((fails + 1))
                continue
            fi
            if ! "$P" trace info "$T/out.pmt" >"$T/info" 2>"$T/err"; then
                echo "not ok $n - $name: info: $(head -1 "$T/err")"
                fails=$((fails + 1))
                continue
            fi
            ii=$(grep -c ' insn ' "$T/in.txt")
            mi=$(grep -c ' mem ' "$T/in.txt")
            io=$(awk '$1 == "insn:" { print $2 }' "$T/info")
            mo=$(awk '$1 == "mem:" { print $2 }' "$T/info")
            if [ "$ii" = "$io" ] && [ "$mi" = "$mo" ]; then
                echo "ok $n - $name: $io insn, $mo mem records"
            else
                echo "not ok $n - $name: insn $io of $ii, mem $mo of $mi"
                fails=$((fails + 1))
            fi
        done
    done
done
echo "1..$n"
[ "$fails" -eq 0 ]
