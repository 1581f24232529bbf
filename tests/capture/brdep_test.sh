#!/bin/sh
# Dependences of branches on loads (docs/CAPTURE.md, "Dependences of
# branches"; docs/UARCH.md §1 step 4): tests/capture/progs/brdep.c reads a
# 2^22-word array (32 MiB, 8x the wsm LLC: 7 of 8 reads miss it) at random
# and branches on bit 0 of each word read (test; jz), R extra reads.
#   random data: half the branches are mispredicted, and one whose load
#     missed the LLC resolves when the data are back, 271 cycles (the
#     model's memory latency, docs/UARCH.md §3) or more after the load
#     started; the front end restarts 17 cycles (the wsm penalty) later, and
#     the next read's miss cannot start before: such a read costs at least
#     271 + 17 = 288 cycles.  Extra CPU_CLK_UNHALTED per extra read >=
#     (mispredicted ones on an LLC miss per read) x 288, the count of those
#     taken as mispredictions x LLC misses / R (the two are independent);
#     and below 271 (a whole latency each: the predicted half still
#     overlap).  Before session 21 the branch resolved at dispatch: 38
#     cycles a read.
#   even data: the branch is never taken and always predicted; the misses
#     overlap in the window as random.c's do (dep_test.sh): <= 271 / 4
#     extra cycles per read, and no extra misprediction.
#   The captures claim the brdep annotation, and `trace annotate --cpu wsm`
#     of the random capture gives the capture's cycles (the trace holds the
#     distances: traces/FORMAT.md §2).
#
#   brdep_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir brdep
build_prog brdep
n=4194304
r=65536
# the runs without extra reads pass 00000 (the same length as $r: lib.sh)
capture wsm r0.pmt ./brdep $n 00000 random
capture wsm r.pmt ./brdep $n $r random
capture wsm e0.pmt ./brdep $n 00000 even
capture wsm e.pmt ./brdep $n $r even
W=wsm::CPU_CLK_UNHALTED:THREAD_P
M=wsm::BR_MISP_RETIRED:ALL_BRANCHES
misp=$(d $M r.pmt r0.pmt)
llc=$(d wsm::MEM_LOAD_RETIRED:LLC_MISS r.pmt r0.pmt)
between "wsm random: extra mispredictions (half the reads)" "$misp" $((r * 2 / 5)) $((r * 3 / 5))
between "wsm random: extra LLC misses (7 of 8 reads)" "$llc" $((r * 3 / 4)) $r
low=$(( misp * llc / r * (271 + 17) / r ))
between "wsm random: extra cycles per read" $(( $(d $W r.pmt r0.pmt) / r )) "$low" 270
between "wsm even: extra mispredictions" "$(d $M e.pmt e0.pmt)" 0 $((r / 100))
between "wsm even: extra cycles per read" $(( $(d $W e.pmt e0.pmt) / r )) 1 $((271 / 4))
if has_annotation brdep r.pmt && has_annotation brdep e.pmt; then
    ok "the captures claim the brdep annotation"
else fail "no brdep annotation in a capture's header"; fi
annotate_same wsm $W r.pmt "the wsm random capture"
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
