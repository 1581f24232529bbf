#!/bin/sh
# The libpfm-4 face library may only define libpfm-4 names (pfm_*) and the
# core's own prefixed names (pmusim_x86_*): nothing that could clash with a
# program that links it.  Sanitizer bookkeeping symbols (ASan builds) are
# ignored.
# usage: check_symbols.sh NM LIBRARY
nm_prog=$1
lib=$2
bad=$("$nm_prog" -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' |
      grep -v -e '^pfm_' -e '^pmusim_x86_' -e '^__odr_asan' -e '^__asan' -e '^__ubsan' -e '^__sanitizer')
if [ -n "$bad" ]; then
    echo "unexpected exported symbols in $lib:" >&2
    echo "$bad" >&2
    exit 1
fi
n=$("$nm_prog" -g --defined-only "$lib" | awk 'NF == 3 && $3 ~ /^pfm_/' | wc -l)
if [ "$n" -lt 14 ]; then
    echo "$lib: only $n pfm_* symbols, expected the 14 API functions" >&2
    exit 1
fi
echo "$lib: $n pfm_* symbols, no stray symbol"
