#!/bin/sh
# Macro-fusion on a captured program (docs/trace-events-x86.md,
# "Macro-fusion"): tests/capture/progs/fuse.c runs five loops of N
# iterations, each ending in a compare and a branch written in assembly
# (its comment says which fuse: A, B and C do, D and E do not); a run with
# N = 0 gives the C library's own pairs, which are subtracted.
# Hand-derived expectations (N = 1000):
#   wsm UOPS_RETIRED:MACRO_FUSED          3N   (A, B, C)
#   wsm MACRO_INSTS_FUSIONS_DECODED       6    (since session 21 the pairs
#                                              the loop stream detector did
#                                              not stream: A, B and C decode
#                                              their first two iterations)
#   wsm_dp UOPS_RETIRED:MACRO_FUSED       3N   (the same capture rule)
# within the C library's noise (the two runs' own code differs by the
# value they parse: main's tests): 3N .. 3N +
# 32 (18 on the machine this was written on; the decoded pairs -32 .. +32
# around theirs: the library's loops stream or not); and exactly 3N between the
# runs of 2N and N, whose arguments have the same number of digits.
# The uop counts (UOPS_RETIRED:ANY, RETIRE_SLOTS, UOPS_ISSUED:ANY) weigh the
# first instruction of a pair one uop less: an iteration of all five loops
# is, in the capture's uop estimates (docs/CAPTURE.md), A inc 1 + cmp 1 +
# jne 1, B dec 1 + test 1 + jnz 1, C dec 1 + cmp 1 + jg 1, D decq mem 3 +
# cmpq mem 2 + jne 1, E dec 1 + cmp [rip] 2 + jne 1 = 19 uops, less the 3
# pairs of A B C = 16: exactly 16N more on the 2N run than on the N run
# (19N before fused pairs counted once).  The header
# claims the fuse annotation; `trace annotate` of the capture counts the
# same; an input whose annotations lack fuse reads <not in trace>.
#
#   fuse_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir fuse
build_prog fuse
capture wsm w0.pmt ./fuse 0000
n=1000
capture wsm w.pmt ./fuse $n
capture wsm_dp p0.pmt ./fuse 0000
capture wsm_dp p.pmt ./fuse $n

if has_annotation fuse w.pmt && has_annotation fuse p.pmt; then ok "the captures claim the fuse annotation"
else fail "no fuse annotation in a capture's header"; fi
F=wsm::UOPS_RETIRED:MACRO_FUSED
D=wsm::MACRO_INSTS_FUSIONS_DECODED
between "wsm UOPS_RETIRED:MACRO_FUSED" "$(d $F w.pmt w0.pmt)" $((3 * n)) $((3 * n + 32))
between "wsm MACRO_INSTS_FUSIONS_DECODED" "$(d $D w.pmt w0.pmt)" $((6 - 32)) $((6 + 32))
between "wsm_dp UOPS_RETIRED:MACRO_FUSED" "$(d wsm_dp::UOPS_RETIRED:MACRO_FUSED p.pmt p0.pmt)" \
    $((3 * n)) $((3 * n + 32))
capture wsm w2.pmt ./fuse $((2 * n))
between "wsm UOPS_RETIRED:MACRO_FUSED, 2N less N" "$(d $F w2.pmt w.pmt)" $((3 * n)) $((3 * n))
for u in UOPS_RETIRED:ANY UOPS_RETIRED:RETIRE_SLOTS UOPS_ISSUED:ANY; do
    between "wsm $u, 2N less N (19N uops less 3N pairs)" "$(d wsm::$u w2.pmt w.pmt)" \
        $((16 * n)) $((16 * n))
done
# trace annotate runs the same model on the capture's records
"$pmusim" trace annotate w.pmt wa.pmt
c=$(count $F w.pmt)
a=$(count $F wa.pmt)
if [ "$a" -eq "$c" ]; then ok "trace annotate of the wsm capture: $a"
else fail "trace annotate of the wsm capture: $a, the capture $c"; fi
c=$(count wsm::UOPS_RETIRED:ANY w.pmt)
a=$(count wsm::UOPS_RETIRED:ANY wa.pmt)
if [ "$a" -eq "$c" ]; then ok "trace annotate of the wsm capture, UOPS_RETIRED:ANY: $a"
else fail "trace annotate of the wsm capture, UOPS_RETIRED:ANY: $a, the capture $c"; fi
# an input without fuse (an opkind trace of before session 20)
"$pmusim" trace convert w.pmt w.txt
sed 's/^meta annotations .*/meta annotations brkind,allmem,fp,uops,opkind/' w.txt > nofuse.txt
"$pmusim" trace annotate nofuse.txt nf.pmt
for e in $F $D; do
    if "$pmusim" stat -x , -e $e nf.pmt | grep -q 'not in trace'; then
        ok "without fuse: $e <not in trace>"
    else fail "without fuse $e is not <not in trace>"; fi
done
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
