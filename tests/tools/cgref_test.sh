#!/bin/sh
# uarch-cgref: the model under --L2=none against cgref, an independent
# simulator of cachegrind's cache rules (tests/tools/cgref.c), on a
# synthetic lackey log with every kind of access (docs/CAPTURE.md, "An
# oracle of cachegrind's rules"): I1, D1 and LL misses and LL references
# must be equal on G0-G6 and 24 pseudo-random geometries, on wsm and knm.
# With valgrind installed, cgref itself is checked against cachegrind on a
# real program first.
#   cgref_test.sh PMUSIM CGREF SRCDIR
P=$1 CG=$2 SRC=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-cgref-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0

counts() { # counts GEOMETRY...: "D1misses LLrefs LLmisses I1misses" by cgref
    "$CG" "$@" | awk '{v[$1] = $2} END {d = v["D1mr"] + v["D1mw"];
        print d, v["I1mr"] + d, v["ILmr"] + v["DLmr"] + v["DLmw"], v["I1mr"]}'
}
check() { # check LOG PMT CPU GEOMETRY...
    log=$1 pmt=$2 cpu=$3; shift 3
    want=$(counts "$@" "$log") || { echo "FAIL: cgref $*"; fail=1; return; }
    got=$("$P" trace annotate "$pmt" "$dir/o.pmt" --cpu "$cpu" "$@" --L2=none --stats 2>&1 |
          sed -n -E 's/^annotate: .* D1 [0-9]+ refs ([0-9]+) misses; LL ([0-9]+) refs ([0-9]+) misses; I1 ([0-9]+) misses.*/\1 \2 \3 \4/p')
    if [ "$got" != "$want" ]; then
        echo "FAIL: $cpu $*: pmusim (D1 misses, LL refs, LL misses, I1 misses) '$got', cachegrind's rules '$want'"
        fail=1
    fi
}

if command -v valgrind >/dev/null 2>&1 && valgrind --tool=none true >/dev/null 2>&1; then
    seq 1 2000 > "$dir/in.txt"
    valgrind --tool=lackey --trace-mem=yes --log-file="$dir/md5.log" md5sum "$dir/in.txt" >/dev/null 2>&1
    for g in "--I1=32768,8,64 --D1=32768,8,128 --LL=1048576,8,32" \
             "--I1=8192,1,64 --D1=16384,1,64 --LL=1048576,1,64"; do
        # shellcheck disable=SC2086
        cg=$(valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null $g \
             md5sum "$dir/in.txt" 2>&1 >/dev/null |
             awk '/D1  misses|D1 misses/ {gsub(",", "", $4); d = $4}
                  /LL refs/ {gsub(",", "", $4); r = $4} /LL misses/ {gsub(",", "", $4); m = $4}
                  /I1  misses|I1 misses/ {gsub(",", "", $4); i = $4} END {print d, r, m, i}')
        # shellcheck disable=SC2086
        ref=$(counts $g "$dir/md5.log")
        if [ "$cg" != "$ref" ]; then
            echo "FAIL: cgref disagrees with cachegrind on md5sum, $g: '$ref' against '$cg'"
            fail=1
        fi
    done
else
    echo "valgrind not installed: cgref not checked against cachegrind (the model is still checked against cgref)"
fi

awk -v seed=7 -v n=100000 -f "$SRC/tests/tools/lackey_gen.awk" > "$dir/syn.log"
"$P" trace convert --from lackey --no-model "$dir/syn.log" "$dir/syn.pmt" || exit 1
set -- \
    "--I1=32768,8,64 --D1=32768,8,64 --LL=4194304,16,64" \
    "--I1=16384,4,32 --D1=8192,2,32 --LL=1048576,8,32" \
    "--I1=32768,2,128 --D1=65536,2,128 --LL=262144,16,128" \
    "--I1=16384,4,32 --D1=16384,4,64 --LL=3145728,12,64" \
    "--I1=8192,1,64 --D1=16384,1,64 --LL=1048576,1,64" \
    "--I1=4096,64,64 --D1=4096,64,64 --LL=65536,1024,64" \
    "--I1=32768,8,64 --D1=32768,8,128 --LL=1048576,8,32"
# 24 geometries from a fixed linear congruential sequence: lines 16-256 at
# each level independently, 1-128 sets (LL 1-4096), assoc 1, 2, 4, 8, 16 or 3
x=11
next_x() { x=$(( (x * 1103515245 + 12345) % 2147483648 )); }
geom() {
    next_x; line=$((16 << (x / 7 % 5)))
    next_x; sets=$((1 << (x / 7 % ($1 + 1))))
    next_x; case $((x / 7 % 6)) in 0) a=1 ;; 1) a=2 ;; 2) a=4 ;; 3) a=8 ;; 4) a=16 ;; 5) a=3 ;; esac
    [ $((sets * a)) -lt 2 ] && a=2
    echo "$((sets * a * line)),$a,$line"
}
i=0
while [ $i -lt 24 ]; do
    set -- "$@" "--I1=$(geom 7) --D1=$(geom 7) --LL=$(geom 12)"
    i=$((i + 1))
done
for g in "$@"; do
    for cpu in wsm knm; do
        # shellcheck disable=SC2086
        check "$dir/syn.log" "$dir/syn.pmt" $cpu $g
    done
done
[ $fail = 0 ] && echo "uarch-cgref: $# geometries x wsm, knm: pmusim = cachegrind's rules"
exit $fail
