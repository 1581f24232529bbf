#!/bin/sh
# Regenerates the pictures of the documentation (docs/pictures/*.svg) with
# `pmusim wave --svg` from the bundled samples.  The test suite (suite docs,
# test doc-pictures) runs the same commands into a temporary directory and
# compares byte for byte, so a picture is never stale.
#   scripts/pictures.sh [PMUSIM [OUTDIR]]
set -eu
cd "$(dirname "$0")/.."
pmusim=${1:-build/sim/cli/pmusim}
out=${2:-docs/pictures}
mkdir -p "$out"
w() { # NAME ARGS...
    name=$1; shift
    "$pmusim" wave "$@" --svg "$out/$name.svg" >/dev/null
}
# overflow -> freeze -> interrupt: PMD5 preset 10 below the wrap (docs/TUTORIAL.md section 5)
w overflow_ita2 --from 0 -n 14 --regs tests/golden/core/check/ita2_overflow.regs traces/samples/ita2_loop.txt
# cmask, inv and edge on the same event: uops >= 2, uops < 2, rising edges of uops >= 2
w cmask_edge_wsm -n 24 -e 'wsm::UOPS_RETIRED:ANY:c=2,wsm::UOPS_RETIRED:ANY:c=2:i=1,wsm::UOPS_RETIRED:ANY:c=2:e=1' traces/samples/wsm_loop.txt
# sampling aliasing: the loop retires 10 instructions per iteration; a period
# of 10 interrupts at the same point of every iteration, a period of 7 walks
w sampling_aliasing_c10 -n 60 -c 10 -e wsm::INST_RETIRED:ANY_P traces/samples/wsm_loop.txt
w sampling_aliasing_c7 -n 60 -c 7 -e wsm::INST_RETIRED:ANY_P traces/samples/wsm_loop.txt
# average latency (Little's law): requests in flight per cycle vs requests
w avg_latency_knm -n 60 -e 'knm::OFFCORE_RESPONSE_0:DMND_DATA_RD:OUTSTANDING,knm::OFFCORE_RESPONSE_1:DMND_DATA_RD:ANY_RESPONSE' traces/samples/knm_latency.txt
