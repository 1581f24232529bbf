#!/bin/sh
# Store-forwarding blocks on a captured program (docs/trace-events-x86.md,
# "Store-forwarding blocks"): tests/capture/progs/stfwd.c runs three phases
# of N store/load pairs (its comment says which loads a store cannot
# forward to: phase A's N); a run with N = 0 gives the C library's own
# blocked loads, which are subtracted.  Hand-derived expectations (N = 1000):
#   wsm LOAD_BLOCK:OVERLAP_STORE       N   (A; B forwarded, C overlaps nothing)
#   knm RECYCLEQ:LD_BLOCK_ST_FORWARD   N   (the same rule, docs/UARCH.md §1)
# within the C library's noise (the two runs' own code differs by the
# argument they parse): N .. N + 16.  The header claims the stfwd
# annotation; `trace annotate` of the capture counts the same; without
# allmem (a trace annotate input that lacks it) the count is <not in trace>.
# 4 KiB aliasing (session 24, docs/trace-events-x86.md "What a capture
# leaves <not in trace>, session 24"): tests/capture/progs/alias.c's phase A
# loads N words 4 KiB after the word just stored, phase B the word after it
# (its comment):
#   wsm PARTIAL_ADDRESS_ALIAS          N   (alias N; B aliases nothing)
#                                      0   (stfwd N: its stores and loads
#                                           overlap in full or not at all,
#                                           within 4 KiB)
# each within the C library's noise, 0 .. 16 more; `trace annotate` counts
# the same, and without allmem it reads <not in trace>.
#
#   stfwd_test.sh PMUSIM SRCDIR
# Skips (77) without qemu-x86_64, the plugin or a C compiler.
set -eu
pmusim=$1
src=$2
. "$src/tests/capture/lib.sh"
capture_workdir stfwd
build_prog stfwd alias
capture wsm w0.pmt ./stfwd 0000
n=1000
capture wsm w.pmt ./stfwd $n
capture knm k0.pmt ./stfwd 0000
capture knm k.pmt ./stfwd $n
capture wsm a0.pmt ./alias 0000
capture wsm a.pmt ./alias $n

if has_annotation stfwd w.pmt && has_annotation stfwd k.pmt; then ok "the captures claim the stfwd annotation"
else fail "no stfwd annotation in a capture's header"; fi
W=wsm::LOAD_BLOCK:OVERLAP_STORE
K=knm::RECYCLEQ:LD_BLOCK_ST_FORWARD
between "wsm LOAD_BLOCK:OVERLAP_STORE" "$(d $W w.pmt w0.pmt)" $n $((n + 16))
between "knm RECYCLEQ:LD_BLOCK_ST_FORWARD" "$(d $K k.pmt k0.pmt)" $n $((n + 16))
# trace annotate runs the same model on the capture's records
"$pmusim" trace annotate w.pmt wa.pmt
c=$(count $W w.pmt)
a=$(count $W wa.pmt)
if [ "$a" -eq "$c" ]; then ok "trace annotate of the wsm capture: $a"
else fail "trace annotate of the wsm capture: $a, the capture $c"; fi
# an input without allmem (its further accesses unknown): no stfwd claimed
"$pmusim" trace convert w.pmt w.txt
sed 's/^meta annotations .*/meta annotations levels/' w.txt > noall.txt
"$pmusim" trace annotate noall.txt na.pmt
if "$pmusim" stat -x , -e $W na.pmt | grep -q 'not in trace'; then
    ok "without allmem: <not in trace>"
else fail "without allmem the count is not <not in trace>"; fi
A=wsm::PARTIAL_ADDRESS_ALIAS
between "wsm PARTIAL_ADDRESS_ALIAS (alias)" "$(d $A a.pmt a0.pmt)" $n $((n + 16))
between "wsm PARTIAL_ADDRESS_ALIAS (stfwd)" "$(d $A w.pmt w0.pmt)" 0 16
"$pmusim" trace annotate a.pmt aa.pmt
c=$(count $A a.pmt)
a=$(count $A aa.pmt)
if [ "$a" -eq "$c" ]; then ok "trace annotate of the alias capture: $a"
else fail "trace annotate of the alias capture: $a, the capture $c"; fi
if "$pmusim" stat -x , -e $A na.pmt | grep -q 'not in trace'; then
    ok "PARTIAL_ADDRESS_ALIAS without allmem: <not in trace>"
else fail "PARTIAL_ADDRESS_ALIAS without allmem is not <not in trace>"; fi
[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
