#!/bin/sh
# The decoders' counts net of the loop stream detector on captured programs
# (docs/UARCH.md §1 "Decoders", docs/trace-events-x86.md "Decoded
# instructions"): MACRO_INSTS:DECODED and INST_QUEUE_WRITES count the
# retired instructions the detector did not stream,
# MACRO_INSTS_FUSIONS_DECODED the macro-fused pairs among them.
# Hand-derived expectations (wsm; runs of the same argument length, so
# that the C library's own work is the same in both):
#   lsd 2000 0000 against lsd 1000 0000: 1000 more iterations of the 4-uop
#     loop, all streamed (the loop locks in after its second iteration in
#     both runs): exactly 0 instructions more decoded or written to the
#     instruction queue, 4000 more retired;
#   lsd 0000 2000 against lsd 0000 1000: 1000 more iterations of the
#     32-uop loop (too large to stream): exactly 32 * 1000 more decoded;
#   fuse 2000 against fuse 1000: three loops of a fused pair and two of
#     an unfused compare, all streamed: 3000 more pairs retired
#     (UOPS_RETIRED:MACRO_FUSED), exactly 0 more decoded, and 0 more
#     instructions decoded.
# `trace annotate` of a capture counts the same.
#
#   decode_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir decode
build_prog lsd fuse
capture wsm la.pmt ./lsd 1000 0000
capture wsm la2.pmt ./lsd 2000 0000
capture wsm lb.pmt ./lsd 0000 1000
capture wsm lb2.pmt ./lsd 0000 2000
capture wsm fa.pmt ./fuse 1000
capture wsm fa2.pmt ./fuse 2000
D=wsm::MACRO_INSTS:DECODED
Q=wsm::INST_QUEUE_WRITES
F=wsm::MACRO_INSTS_FUSIONS_DECODED
R=wsm::INSTRUCTION_RETIRED
M=wsm::UOPS_RETIRED:MACRO_FUSED
between "INSTRUCTION_RETIRED, lsd N = 2000 - N = 1000" "$(d $R la2.pmt la.pmt)" 4000 4000
between "MACRO_INSTS:DECODED, lsd N = 2000 - N = 1000 (streamed)" "$(d $D la2.pmt la.pmt)" 0 0
between "INST_QUEUE_WRITES, lsd N = 2000 - N = 1000" "$(d $Q la2.pmt la.pmt)" 0 0
between "MACRO_INSTS:DECODED, lsd M = 2000 - M = 1000 (32 uops)" "$(d $D lb2.pmt lb.pmt)" 32000 32000
between "INST_QUEUE_WRITES, lsd M = 2000 - M = 1000" "$(d $Q lb2.pmt lb.pmt)" 32000 32000
between "UOPS_RETIRED:MACRO_FUSED, fuse 2000 - 1000" "$(d $M fa2.pmt fa.pmt)" 3000 3000
between "MACRO_INSTS_FUSIONS_DECODED, fuse 2000 - 1000 (streamed)" "$(d $F fa2.pmt fa.pmt)" 0 0
between "MACRO_INSTS:DECODED, fuse 2000 - 1000" "$(d $D fa2.pmt fa.pmt)" 0 0
# decoded + streamed: no more than retired, and the pairs no more than the
# pairs retired
r=$(count $R la.pmt)
x=$(count $D la.pmt)
if [ "$x" -gt 0 ] && [ "$x" -lt "$r" ]; then ok "decoded $x < retired $r"
else fail "decoded $x, retired $r"; fi
# trace annotate runs the same model on the capture's records
"$pmusim" trace annotate la.pmt an.pmt
"$pmusim" trace annotate fa.pmt fan.pmt
for e in $D $Q; do
    x=$(count $e la.pmt)
    y=$(count $e an.pmt)
    if [ "$x" -eq "$y" ]; then ok "trace annotate: $e $y"
    else fail "trace annotate: $e $y, the capture $x"; fi
done
x=$(count $F fa.pmt)
y=$(count $F fan.pmt)
if [ "$x" -eq "$y" ]; then ok "trace annotate: $F $y"
else fail "trace annotate: $F $y, the capture $x"; fi
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
