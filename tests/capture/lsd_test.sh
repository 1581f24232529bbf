#!/bin/sh
# The loop stream detector on a captured program (docs/UARCH.md §1 "Loop
# stream detector", docs/trace-events-x86.md "The loop stream detector"):
# tests/capture/progs/lsd.c runs a loop of N iterations of four one-uop
# instructions (pinned by inline asm) and a loop of M iterations of 32.
# The arguments are written with four digits ("0000", "1000"), so that the
# C library parses and lays out the same strings in every run; a run with
# N = M = 0 gives the library's own loops, which are subtracted.
# Hand-derived expectations (wsm):
#   N = 1000 against N = 0: LSD:UOPS 4 * (N - 2) (iterations 3..N stream:
#     the first ends at the first taken jnz, the second is measured), and
#     LSD:ACTIVE N - 2 (an iteration of 4 uops retires in one cycle),
#     within the library's noise (its loops differ with the program's
#     code after them: up to 64 uops, 32 cycles either way);
#   N = 2000 against N = 1000 (the same library run, 1000 iterations more):
#     exactly 4000 uops, 1000 active cycles, no inactive cycle more (the
#     run is 1000 cycles longer, all of them streaming), no LSD_OVERFLOW;
#   M = 1000 against M = 0: one LSD_OVERFLOW (the 32-uop loop, once per
#     run of the loop), no streamed uops (within the noise).
# `trace annotate` of a capture counts the same.
#
#   lsd_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir lsd
build_prog lsd
capture wsm w0.pmt ./lsd 0000 0000
capture wsm wa.pmt ./lsd 1000 0000
capture wsm wa2.pmt ./lsd 2000 0000
capture wsm wb.pmt ./lsd 0000 1000
U=wsm::LSD:UOPS
A=wsm::LSD:ACTIVE
I=wsm::LSD:INACTIVE
O=wsm::LSD_OVERFLOW
n=1000
between "LSD:UOPS, N = $n" "$(d $U wa.pmt w0.pmt)" $((4 * (n - 2) - 64)) $((4 * (n - 2) + 64))
between "LSD:ACTIVE, N = $n" "$(d $A wa.pmt w0.pmt)" $((n - 2 - 32)) $((n - 2 + 32))
between "LSD:UOPS, N = 2000 - N = 1000" "$(d $U wa2.pmt wa.pmt)" 4000 4000
between "LSD:ACTIVE, N = 2000 - N = 1000" "$(d $A wa2.pmt wa.pmt)" 1000 1000
between "LSD:INACTIVE, N = 2000 - N = 1000" "$(d $I wa2.pmt wa.pmt)" 0 0
between "LSD_OVERFLOW, N = 2000 - N = 1000" "$(d $O wa2.pmt wa.pmt)" 0 0
between "LSD_OVERFLOW, M = $n" "$(d $O wb.pmt w0.pmt)" 1 1
between "LSD:UOPS, M = $n" "$(d $U wb.pmt w0.pmt)" -64 64
# every cycle is active or inactive
c=$(count wsm::UNHALTED_CORE_CYCLES wa.pmt)
s=$(( $(count $A wa.pmt) + $(count $I wa.pmt) ))
if [ "$s" -eq "$c" ]; then ok "ACTIVE + INACTIVE = cycles: $c"
else fail "ACTIVE + INACTIVE = $s, cycles $c"; fi
# trace annotate runs the same model on the capture's records
"$pmusim" trace annotate wa.pmt an.pmt
for e in $U $A $O; do
    x=$(count $e wa.pmt)
    y=$(count $e an.pmt)
    if [ "$x" -eq "$y" ]; then ok "trace annotate: $e $y"
    else fail "trace annotate: $e $y, the capture $x"; fi
done
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
