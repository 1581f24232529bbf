#!/bin/sh
# Locked instructions on a captured program (docs/trace-events-x86.md,
# "Locked instructions"): tests/capture/progs/locks.c runs five phases of N
# pinned locked instructions (its comment says what each does to the
# caches); a run with N = 0 gives the C library's own locked instructions,
# which are subtracted.  Hand-derived expectations (N = 1000, wsm: 32 KB
# 8-way L1D, 256 KB L2):
#   knm RECYCLEQ:LOCK          5 N   (every locked load: A, B, C, D, E)
#   wsm SQ_MISC:SPLIT_LOCK     N     (D: bytes 60..67 of a line pair)
#   wsm L2_WRITE:LOCK_E_STATE  N     (C: lines loaded clean, evicted, locked)
#   wsm L2_WRITE:LOCK_M_STATE  N .. N + L  (B: lines the L1D wrote back dirty;
#                              L = the C library's locked instructions, some
#                              of which find their line evicted by the phases)
#   wsm L2_WRITE:LOCK_I_STATE  N + 1 .. N + 1 + L  (A, and D's first access)
#   and on the N run: LOCK_HIT = E + M + S, LOCK_MESI = HIT + I, S = 0.
#
#   locks_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir locks
build_prog locks
capture wsm w0.pmt ./locks 0000
n=1000
capture wsm w.pmt ./locks $n
capture knm k0.pmt ./locks 0000
capture knm k.pmt ./locks $n

check() { # check NAME ACTUAL EXPECTED
    if [ "$2" -eq "$3" ]; then ok "$1: $2"; else fail "$1: $2, expected $3"; fi
}
# the trace says it knows locks
if has_annotation lock w.pmt; then ok "the capture claims the lock annotation"
else fail "no lock annotation in the capture's header"; fi
libc=$(count knm::RECYCLEQ:LOCK k0.pmt)
between "the C library's locked instructions (knm RECYCLEQ:LOCK, N = 0)" "$libc" 1 64
check "knm RECYCLEQ:LOCK" "$(d knm::RECYCLEQ:LOCK k.pmt k0.pmt)" $((5 * n))
check "wsm SQ_MISC:SPLIT_LOCK" "$(d wsm::SQ_MISC:SPLIT_LOCK w.pmt w0.pmt)" $n
check "wsm L2_WRITE:LOCK_E_STATE" "$(d wsm::L2_WRITE:LOCK_E_STATE w.pmt w0.pmt)" $n
between "wsm L2_WRITE:LOCK_M_STATE" "$(d wsm::L2_WRITE:LOCK_M_STATE w.pmt w0.pmt)" $n $((n + libc))
between "wsm L2_WRITE:LOCK_I_STATE" "$(d wsm::L2_WRITE:LOCK_I_STATE w.pmt w0.pmt)" \
    $((n + 1)) $((n + 1 + libc))
e=$(count wsm::L2_WRITE:LOCK_E_STATE w.pmt)
m=$(count wsm::L2_WRITE:LOCK_M_STATE w.pmt)
s=$(count wsm::L2_WRITE:LOCK_S_STATE w.pmt)
i=$(count wsm::L2_WRITE:LOCK_I_STATE w.pmt)
hit=$(count wsm::L2_WRITE:LOCK_HIT w.pmt)
check "wsm L2_WRITE:LOCK_S_STATE" "$s" 0
check "wsm L2_WRITE:LOCK_HIT = E + M + S" "$hit" $((e + m + s))
check "wsm L2_WRITE:LOCK_MESI = HIT + I" "$(count wsm::L2_WRITE:LOCK_MESI w.pmt)" $((hit + i))
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
