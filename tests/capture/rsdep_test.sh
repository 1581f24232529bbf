#!/bin/sh
# Dependences of other instructions on loads and the reservation station
# (docs/CAPTURE.md, "Dependences of other instructions"; docs/UARCH.md §1,
# "The reservation station"): tests/capture/progs/rsdep.c reads a 2^22-word
# array (32 MiB: 8x the wsm LLC, 32x the knm L2) at a prime stride, so that
# every read misses, and runs 16 ALU operations after each read (R reads;
# I instructions a read, measured: 26).
#   dep: an add of the word read and 16 operations on the sum: 17 uops that
#     wait in the reservation station for the read's data.  Westmere's 36
#     entries hold two reads' 17 (34), not three, so the third read's
#     operations allocate only once the first read's data are back, and the
#     read after them (read k + 3) cannot start before read k's data:
#     extra cycles per read >= (LLC misses / R) x 271 / 3 (271: the wsm
#     memory latency, docs/UARCH.md §3), and <= 271 / 2 (two reads still
#     overlap).  The window (128) would hold 4 reads (4 x 26): before
#     session 22 it limited, at 271 / 5 .. 271 / 4.  The stall cycles are
#     the reservation station's: RESOURCE_STALLS:RS_FULL per read >= the
#     cycles per read less the cycles that allocate a read's I
#     instructions (I / 4) and one.
#     Knights Mill's integer stations (2 x 12, one pool of 24) hold one
#     read's 17: read k + 2 waits for read k's data: >= (L2 misses / R) x
#     200 / 2 (knm DDR), RS_FULL_STALL:ANY per read >= cycles per read
#     less I / 2 and one; NO_ALLOC_CYCLES:RAT_STALL counts the same cycles
#     (Intel: a RAT stall is caused by a full reservation station).
#   indep: the 16 operations work on the index; the word read is unused:
#     nothing waits, RESOURCE_STALLS:RS_FULL and RS_FULL_STALL:ANY grow by
#     less than a cycle a read (knm: 1012 cycles in all, the exit code's
#     loads in the memory cluster's station behind the last reads' misses),
#     and the window limits as before (wsm 271 / 5 .. 271 / 4 per
#     read; knm 200 / 3 .. 200 / 2: 72 entries hold 2 reads' 52).
#   The captures claim the rsdep annotation, and `trace annotate` of the
#     dep captures gives the capture's cycles (the trace holds the
#     distances: traces/FORMAT.md §2).
#
#   rsdep_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir rsdep
build_prog rsdep
n=4194304
r=65536
# the runs without reads pass 00000 (the same length as $r: lib.sh)
for cpu in wsm knm; do
    for m in dep indep; do
        capture $cpu $cpu-$m-0.pmt ./rsdep $n 00000 $m
        capture $cpu $cpu-$m.pmt ./rsdep $n $r $m
    done
done
W=wsm::CPU_CLK_UNHALTED:THREAD_P
RS=wsm::RESOURCE_STALLS:RS_FULL
llc=$(d wsm::MEM_LOAD_RETIRED:LLC_MISS wsm-dep.pmt wsm-dep-0.pmt)
between "wsm dep: extra LLC misses (every read)" "$llc" $((r * 99 / 100)) $((r * 101 / 100))
insns=$(( $(d wsm::INST_RETIRED:ANY_P wsm-dep.pmt wsm-dep-0.pmt) / r ))
between "wsm dep: instructions per read" "$insns" 20 32
cyc=$(( $(d $W wsm-dep.pmt wsm-dep-0.pmt) / r ))
between "wsm dep: extra cycles per read" "$cyc" $(( llc * 271 / (3 * r) )) $((271 / 2))
between "wsm dep: RS_FULL cycles per read" $(( $(d $RS wsm-dep.pmt wsm-dep-0.pmt) / r )) \
    $(( cyc - insns / 4 - 1 )) "$cyc"
between "wsm indep: extra cycles per read" $(( $(d $W wsm-indep.pmt wsm-indep-0.pmt) / r )) \
    $(( llc * 271 / (5 * r) )) $((271 / 4))
between "wsm indep: extra RS_FULL cycles per read" $(( $(d $RS wsm-indep.pmt wsm-indep-0.pmt) / r )) 0 0
K=knm::CPU_CLK_UNHALTED:THREAD_P
KRS=knm::RS_FULL_STALL:ANY
l2=$(d knm::MEM_UOPS_RETIRED:L2_MISS_LOADS knm-dep.pmt knm-dep-0.pmt)
between "knm dep: extra L2 misses (every read)" "$l2" $((r * 99 / 100)) $((r * 101 / 100))
kcyc=$(( $(d $K knm-dep.pmt knm-dep-0.pmt) / r ))
between "knm dep: extra cycles per read" "$kcyc" $(( l2 * 200 / (2 * r) )) 200
krs=$(( $(d $KRS knm-dep.pmt knm-dep-0.pmt) / r ))
between "knm dep: RS_FULL_STALL:ANY cycles per read" "$krs" $(( kcyc - insns / 2 - 1 )) "$kcyc"
between "knm dep: NO_ALLOC_CYCLES:RAT_STALL per read" \
    $(( $(d knm::NO_ALLOC_CYCLES:RAT_STALL knm-dep.pmt knm-dep-0.pmt) / r )) "$krs" "$krs"
between "knm indep: extra cycles per read" $(( $(d $K knm-indep.pmt knm-indep-0.pmt) / r )) \
    $(( l2 * 200 / (3 * r) )) $((200 / 2))
between "knm indep: extra RS_FULL_STALL:ANY cycles per read" \
    $(( $(d $KRS knm-indep.pmt knm-indep-0.pmt) / r )) 0 0
if has_annotation rsdep wsm-dep.pmt && has_annotation rsdep knm-indep.pmt; then
    ok "the captures claim the rsdep annotation"
else fail "no rsdep annotation in a capture's header"; fi
annotate_same wsm $W wsm-dep.pmt "the wsm dep capture"
annotate_same knm $K knm-dep.pmt "the knm dep capture"
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
