#!/bin/sh
# One EVENT record per page walk, read as intervals (docs/trace-events-x86.md,
# "Exact thresholds on walk records"; docs/UARCH.md §3 "Walks"):
# tests/capture/progs/pages.c chases pointers through N = 4096 pages (16 MiB,
# 8x the wsm STLB's reach of 512 pages, 16x knm's 256) in a random cyclic
# order, S = 2048 steps, one page each; a run with S = 0000 (same argument
# length) is subtracted, so the setup (one store a page, in random order:
# walks whose intervals overlap) and the C library cancel.  Each step loads
# the next page's address from the current page: the next step's access
# starts when the data are back, after the STLB lookup, the walk and the
# cache miss (wsm 7 + 23 + at least L3's 40 cycles, knm 7 + 30 + at least
# L2's 17), so two steps' walking loads retire more than the walk latency
# (wsm 23, knm 30) apart and their walk records' intervals [retirement,
# + latency) neither overlap nor abut.  Hand-derived, W = the extra walks
# (the extra memory records with tlb = walk: DTLB_MISSES:WALK_COMPLETED on
# wsm, the form PAGE_WALKS:D_SIDE_WALKS on knm):
#   W in S .. S + 16 (the STLB holds at most 512 of the 4096 pages when the
#     chase starts: most steps walk; the exit path after the chase may walk
#     a few more pages than after the setup alone);
#   wsm DTLB_MISSES:WALK_CYCLES       = 23 W (one record of 23 a walk)
#   wsm DTLB_MISSES:WALK_CYCLES:c=1   = 23 W when no two of the extra walks
#     are within 23 cycles of each other: the chase's are not; the exit
#     path's few are bounded below by 23 (W - 16)
#   wsm DTLB_MISSES:WALK_CYCLES:c=1:e=1 (the walks' rising edges)
#                                     in W - 16 .. W
#   wsm DTLB_MISSES:WALK_CYCLES:c=2 (two walks in progress): the extra at
#     most 23 * 16
#   knm PAGE_WALKS:D_SIDE_CYCLES      = 30 W
#   knm PAGE_WALKS:D_SIDE_CYCLES:c=1  in 30 (W - 16) .. 30 W
#   (knm D_SIDE_CYCLES:c=1:e=1 is the encoding of D_SIDE_WALKS, the form.)
# Before the model wrote a record per walk and the header's evspan key, the
# thresholded counts read <not in trace>.
#
#   pages_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir pages
build_prog pages
s=2048
capture wsm w0.pmt ./pages 4096 0000
capture wsm w.pmt ./pages 4096 $s
capture knm k0.pmt ./pages 4096 0000
capture knm k.pmt ./pages 4096 $s
# dn EVENT A B: the count on A less that on B; "none" when either is not
# a count (<not in trace>), which the checks below then fail
dn() {
    a=$(count "$1" "$2"); b=$(count "$1" "$3")
    case "$a$b" in ''|*[!0-9]*) echo none ;; *) echo $((a - b)) ;; esac
}
check() { # check NAME ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then ok "$1: $2"; else fail "$1: $2, expected $3"; fi
}
inside() { # inside NAME ACTUAL LOW HIGH, ACTUAL perhaps "none"
    case $2 in none) fail "$1: not a count" ;; *) between "$@" ;; esac
}
for t in w.pmt k.pmt; do
    if "$pmusim" trace info "$t" | grep -q "^meta evspan:"; then ok "$t: the header has evspan"
    else fail "$t: no evspan key in the header"; fi
done
W=$(dn wsm::DTLB_MISSES:WALK_COMPLETED w.pmt w0.pmt)
inside "wsm extra walks W" "$W" $s $((s + 16))
check "wsm DTLB_MISSES:WALK_CYCLES = 23 W" "$(dn wsm::DTLB_MISSES:WALK_CYCLES w.pmt w0.pmt)" $((23 * W))
inside "wsm DTLB_MISSES:WALK_CYCLES:c=1" "$(dn wsm::DTLB_MISSES:WALK_CYCLES:c=1 w.pmt w0.pmt)" \
    $((23 * (W - 16))) $((23 * W))
inside "wsm DTLB_MISSES:WALK_CYCLES:c=1:e=1 (walks)" \
    "$(dn wsm::DTLB_MISSES:WALK_CYCLES:c=1:e=1 w.pmt w0.pmt)" $((W - 16)) "$W"
inside "wsm DTLB_MISSES:WALK_CYCLES:c=2" "$(dn wsm::DTLB_MISSES:WALK_CYCLES:c=2 w.pmt w0.pmt)" \
    0 $((23 * 16))
K=$(dn knm::PAGE_WALKS:D_SIDE_WALKS k.pmt k0.pmt)
inside "knm extra walks (PAGE_WALKS:D_SIDE_WALKS)" "$K" $s $((s + 16))
check "knm PAGE_WALKS:D_SIDE_CYCLES = 30 W" "$(dn knm::PAGE_WALKS:D_SIDE_CYCLES k.pmt k0.pmt)" $((30 * K))
inside "knm PAGE_WALKS:D_SIDE_CYCLES:c=1" "$(dn knm::PAGE_WALKS:D_SIDE_CYCLES:c=1 k.pmt k0.pmt)" \
    $((30 * (K - 16))) $((30 * K))
# WALKS (0x05/0x03 c=1 e=1): rising edges of the D- and I-side walks in
# progress together, an interval count over both pairs (session 23)
inside "knm PAGE_WALKS:WALKS" "$(dn knm::PAGE_WALKS:WALKS k.pmt k0.pmt)" $((K - 16)) "$K"
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
