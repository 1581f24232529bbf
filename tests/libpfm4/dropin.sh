#!/bin/sh
# Drop-in test (docs/compat-x86.md "Drop-in libpfm.so.4"): dropin_probe is
# linked against the system's libpfm.so.4.  Run as built it must load
# libpfm-4; run with LD_LIBRARY_PATH=DROPIN_DIR it must load pmusim's
# libpfm.so.4 and print exactly EXPECTED (hand-checked encodings: wsm
# INST_RETIRED:ANY_P = 0x5301c0, perf::CYCLES = type 0 config 0,
# LL:WRITE:MISS = 2 | 1 << 8 | 1 << 16 = 0x10102, ...).  When the system
# library is libpfm-4 4.13.0 its output must be the same text too.
# usage: dropin.sh PROBE|none DROPIN_DIR ARGS_FILE EXPECTED
probe=$1 dropin=$2 args_file=$3 expected=$4
if [ "$probe" = none ] || [ ! -x "$probe" ]; then
    echo "SKIP: no system libpfm.so.4 to link the probe against (Debian package libpfm4)"
    exit 77
fi
if [ ! -e "$dropin/libpfm.so.4" ]; then
    echo "FAIL: $dropin/libpfm.so.4 was not built" >&2
    exit 1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# one string per line; none contains a blank
set -f
# shellcheck disable=SC2046
set -- $(cat "$args_file")
set +f
export LIBPFM_FORCE_PMU=wsm LIBPFM_ENCODE_INACTIVE=1
unset LIBPFM_DISABLED_PMUS LIBPFM_VERBOSE LIBPFM_DEBUG

if ! env -u LD_LIBRARY_PATH "$probe" "$@" >"$tmp/system.out" 2>"$tmp/system.err"; then
    echo "FAIL: the probe did not run against the system libpfm.so.4" >&2
    cat "$tmp/system.err" >&2
    exit 1
fi
if [ "$(head -n 1 "$tmp/system.out")" != "library: libpfm-4" ]; then
    echo "FAIL: as built, the probe should use libpfm-4, it says: $(head -n 1 "$tmp/system.out")" >&2
    exit 1
fi
if ! LD_LIBRARY_PATH=$dropin "$probe" "$@" >"$tmp/dropin.out" 2>"$tmp/dropin.err"; then
    echo "FAIL: the probe did not run with LD_LIBRARY_PATH=$dropin" >&2
    cat "$tmp/dropin.err" >&2
    exit 1
fi
status=0
if [ "$(head -n 1 "$tmp/dropin.out")" != "library: pmusim" ]; then
    echo "FAIL: with LD_LIBRARY_PATH=$dropin the probe should use pmusim, it says: $(head -n 1 "$tmp/dropin.out")" >&2
    status=1
fi
if ! grep -q "loaded from $dropin/libpfm.so.4" "$tmp/dropin.err"; then
    echo "FAIL: libpfm.so.4 was not loaded from $dropin:" >&2
    cat "$tmp/dropin.err" >&2
    status=1
fi
tail -n +2 "$tmp/dropin.out" >"$tmp/dropin.body"
if ! diff -u "$expected" "$tmp/dropin.body"; then
    echo "FAIL: pmusim's drop-in printed other encodings than $expected" >&2
    status=1
fi
system_lib=$(sed -n 's/^dropin_probe: libpfm.so.4 loaded from //p' "$tmp/system.err")
tail -n +2 "$tmp/system.out" >"$tmp/system.body"
case $system_lib in
*libpfm.so.4.13.0)
    if ! diff -u "$expected" "$tmp/system.body"; then
        echo "FAIL: libpfm-4 4.13.0 ($system_lib) printed other encodings than $expected" >&2
        status=1
    fi ;;
*)
    echo "note: system library is $system_lib, not 4.13.0: its output is not compared" ;;
esac
[ $status = 0 ] && echo "ok: same encodings from $system_lib and from $dropin/libpfm.so.4"
exit $status
