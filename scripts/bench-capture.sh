#!/bin/sh
# Capture and annotate speed against cachegrind (docs/PERFORMANCE.md,
# "Capture and annotate"):
#
#   scripts/bench-capture.sh [-p PMUSIM] [-b BASELINE] [-s SCALE] [-r RUNS] [-c CPU]
#
# Builds tests/bench/capture/mix.c (array walks, a hash table and a sort;
# SCALE 21, the default, is about 50 M instructions) with cc -O2, then RUNS
# times (default 3), in the same run:
#   capture    pmusim trace capture --cpu CPU -o T -- mix SCALE
#              (QEMU + plugin + model + writer: the end-to-end figure)
#   annotate   pmusim trace annotate T T2 --cpu CPU (the model alone on the trace)
#   cachegrind valgrind --tool=cachegrind --cache-sim=yes with the CPU's
#              I1/D1/LL geometry on the same program
# Each step's CPU time (user + system, children included: /usr/bin/time),
# wall time and peak RSS; prints every run and the medians: simulated
# instructions per second of CPU and of wall time for capture and
# cachegrind, records per second for annotate, and capture time /
# cachegrind time for both; then the medians of the capture's `--timing`
# figures (where the pipeline's time went: QEMU, the model's thread, the
# writer's thread, waiting on the pipe, waiting for a CPU).  A last capture at SCALE/4 shows that peak
# RSS does not grow with the program's length.
#
# With -b BASELINE (another pmusim binary, e.g. main's release build
# against a branch's), each run also captures and annotates with
# BASELINE, the two binaries' steps back to back and their order swapped
# from one run to the next, and prints the medians of the per-run ratios
# PMUSIM / BASELINE of CPU time (capture, annotate, the capture's model
# thread): on a shared machine whose speed drifts between runs, a ratio
# of neighbouring runs says more than two medians taken minutes apart.
#
# Needs qemu-x86_64, valgrind, cc and /usr/bin/time; exits 77 with a message
# when one is missing, 1 when a step fails.  PMUSIM defaults to
# build/sim/cli/pmusim (the plugin is found next to it, as `pmusim trace
# capture` does).  CPU is wsm (default) or knm (cachegrind gets the same
# I1/D1/LL geometry; wsm_dp's 12 MB L3 has no power-of-two set count, which
# cachegrind requires).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
pmusim=$here/build/sim/cli/pmusim
scale=21
runs=3
cpu=wsm
base=
while getopts p:b:s:r:c: opt; do
    case $opt in
    p) pmusim=$OPTARG ;;
    b) base=$OPTARG ;;
    s) scale=$OPTARG ;;
    r) runs=$OPTARG ;;
    c) cpu=$OPTARG ;;
    *) echo "usage: $0 [-p PMUSIM] [-b BASELINE] [-s SCALE] [-r RUNS] [-c wsm|knm]" >&2; exit 2 ;;
    esac
done
case $scale in ''|*[!0-9]*) echo "bench-capture.sh: -s: a whole number expected, not '$scale'" >&2; exit 2 ;; esac
case $runs in ''|*[!0-9]*|0) echo "bench-capture.sh: -r: a whole number >= 1 expected, not '$runs'" >&2; exit 2 ;; esac
case $cpu in
wsm) geom="--I1=32768,4,64 --D1=32768,8,64 --LL=4194304,16,64" ;;
knm) geom="--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64" ;;
*) echo "bench-capture.sh: -c: wsm or knm expected, not '$cpu'" >&2; exit 2 ;;
esac
for tool in qemu-x86_64 valgrind cc; do
    command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
[ -x /usr/bin/time ] || { echo "SKIP: /usr/bin/time not installed (apt-get install time)"; exit 77; }
[ -x "$pmusim" ] || { echo "bench-capture.sh: $pmusim: no pmusim binary (meson compile -C build)" >&2; exit 1; }
[ -z "$base" ] || [ -x "$base" ] || { echo "bench-capture.sh: -b: $base: no pmusim binary" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-bench-capture.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM HUP
unset MALLOC_PERTURB_ || true
cc -O2 -o "$work/mix" "$here/tests/bench/capture/mix.c"

# timed NAME COMMAND...: runs COMMAND, appends "NAME cpu_seconds peak_kib" to $work/times
timed() {
    name=$1
    shift
    if ! /usr/bin/time -o "$work/t" -f "%U %S %M %e" "$@" >"$work/out" 2>"$work/err"; then
        echo "bench-capture.sh: $name failed:" >&2
        cat "$work/err" >&2
        exit 1
    fi
    awk -v n="$name" '{ printf "%s %.3f %d %.2f\n", n, $1 + $2, $3, $4 }' "$work/t" >>"$work/times"
}
: >"$work/times"
: >"$work/timing"
: >"$work/ratios"
# step NAME PMUSIM OUTPREFIX: one capture (with --timing; its model thread's
# CPU seconds appended to $work/model.NAME) and one annotate
step() {
    timed "$1capture" "$2" trace capture --cpu "$cpu" --timing -o "$work/$3.pmt" -- "$work/mix" "$scale"
    sed -n 's/^pmusim: timing: //p' "$work/err" >"$work/tl"
    [ -n "$1" ] || cat "$work/tl" >>"$work/timing"
    sed -n 's/.*model thread CPU \([0-9.]*\) s.*/\1/p' "$work/tl" >>"$work/model.$1x"
    timed "$1annotate" "$2" trace annotate "$work/$3.pmt" "$work/${3}2.pmt" --cpu "$cpu"
}
i=1
while [ "$i" -le "$runs" ]; do
    if [ -z "$base" ]; then
        step "" "$pmusim" t
    elif [ $((i % 2)) -eq 1 ]; then
        step base_ "$base" b
        step "" "$pmusim" t
    else
        step "" "$pmusim" t
        step base_ "$base" b
    fi
    # shellcheck disable=SC2086
    timed cachegrind valgrind --tool=cachegrind --cache-sim=yes $geom \
        --cachegrind-out-file=/dev/null "$work/mix" "$scale"
    i=$((i + 1))
done
insns=$("$pmusim" trace info "$work/t.pmt" | awk '$1 == "insn:" { print $2 }')
records=$("$pmusim" trace info "$work/t.pmt" | awk '$1 == "records:" { print $2 }')
cg_insns=$(awk '/I *refs:/ { gsub(",", "", $4); print $4 }' "$work/err")
small=$((scale / 4))
timed small "$pmusim" trace capture --cpu "$cpu" -o "$work/s.pmt" -- "$work/mix" "$small"
small_insns=$("$pmusim" trace info "$work/s.pmt" | awk '$1 == "insn:" { print $2 }')

echo "program: tests/bench/capture/mix.c -O2, scale $scale: $insns instructions in the trace" \
     "($records records), cachegrind $cg_insns; cpu $cpu; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v insns="$insns" -v records="$records" -v cg="$cg_insns" -v small_insns="$small_insns" '
function median(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    n[$1]++; t[$1, n[$1]] = $2; m[$1, n[$1]] = $3; e[$1, n[$1]] = $4
    if ($1 != "small")
        printf "run %d %-15s %7.3f s CPU %7.2f s wall  peak RSS %6d KiB\n", n[$1], $1, $2, $4, $3
}
END {
    split("capture annotate cachegrind", names, " ")
    for (k = 1; k <= 3; k++) {
        nm = names[k]
        for (i = 1; i <= n[nm]; i++) { a[i] = t[nm, i]; b[i] = m[nm, i]; c[i] = e[nm, i] }
        med[nm] = median(a, n[nm]); rss[nm] = median(b, n[nm]); wall[nm] = median(c, n[nm])
        lo[nm] = a[1] # sorted by median()
    }
    printf "capture    %6.2f M instructions/s CPU, %6.2f M/s wall (median %.3f s CPU, %.2f s wall, peak RSS %d KiB)\n", insns / med["capture"] / 1e6, insns / wall["capture"] / 1e6, med["capture"], wall["capture"], rss["capture"]
    printf "annotate   %6.2f M records/s CPU,      %6.2f M/s wall (median %.3f s CPU, %.2f s wall, peak RSS %d KiB)\n", records / med["annotate"] / 1e6, records / wall["annotate"] / 1e6, med["annotate"], wall["annotate"], rss["annotate"]
    printf "cachegrind %6.2f M instructions/s CPU, %6.2f M/s wall (median %.3f s CPU, %.2f s wall, peak RSS %d KiB)\n", cg / med["cachegrind"] / 1e6, cg / wall["cachegrind"] / 1e6, med["cachegrind"], wall["cachegrind"], rss["cachegrind"]
    printf "capture / cachegrind CPU time: %.2f (fastest runs: %.2f); wall time: %.2f\n", med["capture"] / med["cachegrind"], lo["capture"] / lo["cachegrind"], wall["capture"] / wall["cachegrind"]
    printf "fastest runs: capture %.2f M instructions/s, annotate %.2f M records/s, cachegrind %.2f M instructions/s\n", insns / lo["capture"] / 1e6, records / lo["annotate"] / 1e6, cg / lo["cachegrind"] / 1e6
    printf "peak RSS of capture: %d KiB at %d instructions, %d KiB at %d\n", m["small", 1], small_insns, rss["capture"], insns
}' "$work/times"
# the capture's --timing lines: "wall W s; QEMU + plugin CPU Q s, in pipe writes P s, waiting
# for a CPU R s, stream B MB; stream reader + model thread CPU M s, waiting for the stream S s,
# waiting for a CPU T s; writer thread (and start-up) CPU X s"
awk '
function median(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    gsub(/[;,]/, "")
    n++; k = 0
    for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) v[++k, n] = $i
}
END {
    if (!n) exit
    for (f = 1; f <= 9; f++) { for (i = 1; i <= n; i++) a[i] = v[f, i]; m[f] = median(a, n) }
    printf "capture pipeline (medians of --timing): wall %.2f s; QEMU + plugin CPU %.2f s, in pipe writes %.2f s, waiting for a CPU %.2f s, stream %.1f MB;", m[1], m[2], m[3], m[4], m[5]
    printf " reader + model thread CPU %.2f s, waiting for the stream %.2f s, waiting for a CPU %.2f s; writer thread CPU %.2f s\n", m[6], m[7], m[8], m[9]
}' "$work/timing"
# -b: the per-run ratios PMUSIM / BASELINE (run i of each against run i of
# the other: neighbours in time)
if [ -n "$base" ]; then
    paste "$work/model.x" "$work/model.base_x" >"$work/models"
    awk -v base="$base" '
    function median(a, n,    i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    FILENAME == "-" { n[$1]++; t[$1, n[$1]] = $2; next }
    { nm++; if ($2 > 0) mr[nm] = $1 / $2 }
    END {
        split("capture annotate", names, " ")
        printf "against %s, medians of the per-run CPU-time ratios (below 1: faster):", base
        for (k = 1; k <= 2; k++) {
            x = names[k]
            for (i = 1; i <= n[x]; i++) r[i] = t[x, i] / t["base_" x, i]
            printf " %s %.3f [%s]", x, median(r, n[x]), rl(r, n[x])
        }
        printf " model thread %.3f [%s]\n", median(mr, nm), rl(mr, nm)
    }
    function rl(a, n,    i, s) { s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") sprintf("%.3f", a[i]); return s }
    ' - "$work/models" <"$work/times"
fi
