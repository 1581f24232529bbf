#!/bin/sh
# Dependences of load addresses (docs/CAPTURE.md, "Dependences of load
# addresses"; docs/UARCH.md §1 step 3): a pointer chase serialises, a
# random read whose address comes from arithmetic does not.
#   chase: tests/capture/progs/chase.c over 2^19 lines (32 MiB, 8x the wsm
#     LLC, 32x the knm L2) for S extra steps; each step's load address is the
#     previous step's loaded data (distance 1), so a step costs at least the
#     model's memory latency (docs/UARCH.md §3: wsm 271, knm DDR 200 cycles)
#     on top of the loop's own: extra CPU_CLK_UNHALTED per extra step >= 271
#     on wsm, >= 200 on knm (CPU_CLK_UNHALTED:THREAD_P on both).
#     Before session 20 the misses overlapped: 30 cycles a step on wsm.
#   random: tests/capture/progs/random.c, R reads of a 2^20-word array
#     (8 MiB) at xorshift indexes: the misses overlap in the window (10 fill
#     buffers on wsm), so its extra cycles per LLC miss stay well below the
#     latency: <= 271 / 4 on wsm.
#   `trace info` counts S more loads on the previous load (its
#     "loads whose address depends on an earlier load" line);
#   the captures claim the `dep` annotation, and `trace annotate --cpu wsm`
#     of the chase capture gives the capture's cycles (the trace holds the
#     distances: traces/FORMAT.md §2).
#
#   dep_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir dep
build_prog chase random
s=16384
# The runs with no extra steps pass 00000, not 0: an argument of the same
# length keeps the stack's strings where they were, so the C library's
# string loops (whose loads read pointers loaded from argv and envp) run
# the same iterations in both captures.  With "0" the other strings moved
# by 4 bytes and one such load fewer made the difference s - 1 in one
# environment (CI of 9a98b9b).
capture wsm c0.pmt ./chase 524288 00000
capture wsm c.pmt ./chase 524288 $s
capture knm k0.pmt ./chase 524288 00000
capture knm k.pmt ./chase 524288 $s
W=wsm::CPU_CLK_UNHALTED:THREAD_P
K=knm::CPU_CLK_UNHALTED:THREAD_P
between "wsm chase extra INST_RETIRED:ANY_P per step (add, load, cmp, jne)" \
    $(( $(d wsm::INST_RETIRED:ANY_P c.pmt c0.pmt) / s )) 4 4
between "wsm chase extra cycles per step" $(( $(d $W c.pmt c0.pmt) / s )) 271 400
between "knm chase extra cycles per step" $(( $(d $K k.pmt k0.pmt) / s )) 200 400
if has_annotation dep c.pmt && has_annotation dep k.pmt; then ok "the captures claim the dep annotation"
else fail "no dep annotation in a capture's header"; fi
annotate_same wsm $W c.pmt "the wsm chase capture"
# trace info counts the loads on the previous load: the chase's s more
prev() { "$pmusim" trace info "$1" | sed -n 's/.*(on the previous load: \([0-9]*\)).*/\1/p'; }
between "wsm chase extra loads on the previous load (trace info)" \
    $(( $(prev c.pmt) - $(prev c0.pmt) )) $s $((s + 16))
r=65536
capture wsm r0.pmt ./random 1048576 00000
capture wsm r.pmt ./random 1048576 $r
miss=$(d wsm::MEM_LOAD_RETIRED:LLC_MISS r.pmt r0.pmt)
between "wsm random LLC misses" "$miss" $((r / 2)) $r
between "wsm random extra cycles per LLC miss" $(( $(d $W r.pmt r0.pmt) / miss )) 1 $((271 / 4))
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
