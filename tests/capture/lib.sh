# Shared by the capture test scripts that run a program under
# `pmusim trace capture` (crash_test.sh, fork_test.sh, locks_test.sh ...): sourced after
# `pmusim` and `src` are set.  Skips (77) without qemu-x86_64 or a C
# compiler; capture_workdir makes the work directory (removed at exit) and
# enters it; capture_probe_failed tells a missing plugin (skip) from
# another failure of a first capture; fail/ok/between report; count, d and
# has_annotation read a trace; build_prog compiles a test program and
# capture captures a run of it; annotate_same checks that `trace annotate`
# of a capture counts as the capture.
# Two runs compared by their difference (d) pass arguments of the same
# length (0000 against 1000): the stack's strings then sit where they did,
# and the C library's string loops run the same iterations in both (an
# argument 3 bytes shorter changed a dependent-load count by one in CI).
unset MALLOC_PERTURB_ || true
command -v qemu-x86_64 >/dev/null 2>&1 || { echo "SKIP: qemu-x86_64 not installed (apt-get install qemu-user)"; exit 77; }
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
failed=0

# capture_workdir NAME
capture_workdir() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-$1.XXXXXX")
    trap 'rm -rf "$work"' EXIT INT TERM HUP
    cd "$work"
}
# capture_probe_failed ERRFILE: exits 77 if the plugin is not built, else 1
capture_probe_failed() {
    if grep -q "plugin is not built" "$1"; then
        echo "SKIP: the QEMU plugin is not built (libcapstone-dev missing)"; exit 77
    fi
    cat "$1"; exit 1
}
fail() { echo "FAIL  $*"; failed=$((failed + 1)); }
ok() { echo "ok    $*"; }
# between NAME ACTUAL LOW HIGH
between() {
    if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then ok "$1: $2 (in $3..$4)"; else fail "$1: $2, expected $3..$4"; fi
}
# count EVENT TRACE: the event's count on the trace
count() {
    "$pmusim" stat -x , -e "$1" "$2" | awk -F, 'NF > 2 && $1 ~ /^[0-9]+$/ { print $1; exit }'
}
# d EVENT TRACE BASE: the event's count on TRACE less that on BASE
d() { echo $(( $(count "$1" "$2") - $(count "$1" "$3") )); }
# build_prog NAME...: compiles tests/capture/progs/NAME.c to ./NAME
build_prog() {
    for p in "$@"; do "$cc" -O2 -o "$p" "$src/tests/capture/progs/$p.c"; done
}
# capture CPU OUT ARGS...: `pmusim trace capture --cpu CPU -o OUT -- ARGS`,
# the program's output dropped; the script's first capture also tells a
# missing plugin (skip, capture_probe_failed) from another failure
capture() {
    c_cpu=$1 c_out=$2
    shift 2
    if [ -n "${capture_probed:-}" ]; then
        "$pmusim" trace capture --cpu "$c_cpu" -o "$c_out" -- "$@" >/dev/null
    else
        "$pmusim" trace capture --cpu "$c_cpu" -o "$c_out" -- "$@" >/dev/null 2>capture.err ||
            capture_probe_failed capture.err
        capture_probed=1
    fi
}
# has_annotation NAME TRACE: the trace's header claims the annotation
has_annotation() { "$pmusim" trace info "$2" | grep -q "^meta annotations:.*\b$1\b"; }
# annotate_same CPU EVENT TRACE WHAT: `trace annotate --cpu CPU` of TRACE
# counts EVENT as the capture did (the trace holds what the model needs)
annotate_same() {
    "$pmusim" trace annotate --cpu "$1" "$3" "$3.ann.pmt"
    a_cap=$(count "$2" "$3")
    a_ann=$(count "$2" "$3.ann.pmt")
    if [ "$a_ann" -eq "$a_cap" ]; then ok "trace annotate of $4: $a_ann cycles"
    else fail "trace annotate of $4: $a_ann cycles, the capture $a_cap"; fi
}
