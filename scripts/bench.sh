#!/bin/bash
# Replay and encoder benchmarks (issue 12; docs/PERFORMANCE.md).  Not a test:
# it prints rates, it asserts nothing.
#
#   scripts/bench.sh [BUILDDIR] [RECORDS] [PASSES]
#
# BUILDDIR (default build-perf, set up here as a release build if missing),
# RECORDS per generated trace (default 10000000), PASSES per measurement
# (default 5; medians are printed).  The traces are generated once into
# $PMUSIM_BENCH_DIR (default /tmp/pmusim-bench) and kept for later runs.
#
# For every CPU x workload (the defaults of `pmusim trace gen`: the CPU's
# thread count, seed 1) one line:
#   decode   M records/s of pmusim_trace_reader_next_batch (batches of 1024)
#   zstd     M records/s of zstd alone on the same file
#   count    M records/s of a counting replay with every counter programmed
#            (tests/bench/regs/CPU.regs) and its time ratio to decode
#   sample   `pmusim record -c 1000` of the CPU's instruction event (process
#            CPU time) and its ratio to decode
#   capture  `pmusim record -c 1000` of the captures (ita2 D-EAR + BTB, mont
#            D-EAR + I-EAR + ETB, wsm PEBS load latency, knm PEBS loads)
#   rss      peak resident KiB of the decode/count process
# then `pmusim wave` at -n 1000 and -n 100000, and the encoders: x86 strings/s
# (pmusim, and Debian's libpfm4 when /usr/lib/x86_64-linux-gnu/libpfm.so.4
# exists) and pfm_dispatch_events requests/s.
# Rates are CPU time of the measuring thread or process: the machine may be
# shared; ratios from one run are more telling than absolute rates.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-perf}
N=${2:-10000000}
PASSES=${3:-5}
DIR=${PMUSIM_BENCH_DIR:-/tmp/pmusim-bench}
if [ ! -d "$B" ]; then
    meson setup "$B" --buildtype=release -Dwerror=true >/dev/null
fi
ninja -C "$B" sim/cli/pmusim tests/bench/core/bench-file tests/bench/enc_x86/bench-enc-x86 \
    tests/bench/enc_ia64/bench-enc-ia64 >/dev/null
P=$B/sim/cli/pmusim
BF=$B/tests/bench/core/bench-file
mkdir -p "$DIR"

# CPU seconds (user + sys) of a command, its output discarded
cpu_of() {
    local TIMEFORMAT='%U %S' t
    t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || { echo "bench.sh: failed: $*" >&2; exit 1; }
    echo "$t" | awk '{printf "%.4f", $1 + $2}'
}
# median of the CPU seconds of PASSES runs
cpu_median() {
    local i
    for ((i = 0; i < PASSES; i++)); do cpu_of "$@"; echo; done |
        sort -n | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f", m}'
}

regs_of() { case $1 in wsm_dp) echo tests/bench/regs/wsm.regs ;; *) echo tests/bench/regs/$1.regs ;; esac; }
sample_ev() {
    case $1 in
    ita2 | mont) echo IA64_INST_RETIRED ;;
    *) echo "$1::INST_RETIRED:ANY_P" ;;
    esac
}
capture_ev() {
    case $1 in
    ita2) echo DATA_EAR_CACHE_LAT4,BRANCH_EVENT ;;
    mont) echo DATA_EAR_CACHE_LAT4,L1I_EAR_CACHE_LAT0,ETB_EVENT ;;
    wsm | wsm_dp) echo "$1::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=3" ;;
    knm) echo knm::MEM_UOPS_RETIRED:ALL_LOADS ;;
    esac
}

echo "# pmusim bench: $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $N records/trace, median of $PASSES, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-7s %8s %8s %8s %6s %8s %6s %8s %6s %8s\n' cpu workload decode zstd count ratio sample ratio capture ratio rss_kib
for cpu in ita2 mont wsm wsm_dp knm; do
    for wl in loop stream mixed; do
        f=$DIR/$cpu-$wl-$N.pmt
        if [ ! -f "$f" ]; then
            "$P" trace gen --cpu "$cpu" --workload "$wl" --records "$N" --seed 1 "$f.part" >/dev/null
            mv "$f.part" "$f"
        fi
        line=$("$BF" "$f" "$(regs_of $cpu)" "$PASSES")
        get() { echo "$line" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k {print $2}'; }
        dec=$(get decode)
        # decode CPU seconds of the whole file, for the ratios of the CLI runs
        dsec=$(awk -v n="$N" -v r="$dec" 'BEGIN {printf "%.4f", n / (r * 1e6)}')
        s=$(cpu_median "$P" record -c 1000 -s --no-truth -e "$(sample_ev $cpu)" "$f")
        c=$(cpu_median "$P" record -c 1000 -s --no-truth -e "$(capture_ev $cpu)" "$f")
        printf '%-7s %-7s %8s %8s %8s %6s %8.1f %6.2f %8.1f %6.2f %8s\n' "$cpu" "$wl" "$dec" \
            "$(get zstd)" "$(get count)" "$(get count/decode)" \
            "$(awk -v n="$N" -v t="$s" 'BEGIN {print n / t / 1e6}')" \
            "$(awk -v a="$s" -v b="$dsec" 'BEGIN {print a / b}')" \
            "$(awk -v n="$N" -v t="$c" 'BEGIN {print n / t / 1e6}')" \
            "$(awk -v a="$c" -v b="$dsec" 'BEGIN {print a / b}')" \
            "$(get rss_kib)"
    done
done

echo "# wave (CPU seconds, median of $PASSES; wsm mixed trace)"
for n in 1000 100000; do
    echo "wave -n $n: $(cpu_median "$P" wave -n "$n" "$DIR/wsm-mixed-$N.pmt") s"
done

echo "# encoders"
"$B/tests/bench/enc_x86/bench-enc-x86" 1 | sed 's/^/pmusim  /'
LIBPFM=/usr/lib/x86_64-linux-gnu/libpfm.so.4
if [ -e "$LIBPFM" ]; then
    "$B/tests/bench/enc_x86/bench-enc-x86" 1 "$LIBPFM" | sed 's/^/libpfm4 /'
else
    echo "libpfm4: $LIBPFM not installed (apt-get install libpfm4), no comparison"
fi
"$B/tests/bench/enc_ia64/bench-enc-ia64"
