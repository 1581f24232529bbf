#!/bin/sh
# Captures small C programs built here and checks counts derived by hand
# from their structure and the cache geometry, through `pmusim stat` with
# real event names on wsm, wsm_dp and knm; with valgrind installed, compares
# the model's totals with cachegrind's on the same programs and geometry.
#
#   capture_test.sh PMUSIM SRCDIR [cachegrind]
#
# Every expectation is differential: a program run with size 0 gives the
# start-up counts (the C library's initialisation), which are subtracted, so
# what is checked is the work the program's loop does.  Skips (77) without
# qemu-x86_64, the plugin or a C compiler.
set -eu
# meson test sets MALLOC_PERTURB_, which makes malloc fill every block it
# hands out: an extra pass of stores over the arrays these counts are about
unset MALLOC_PERTURB_ || true
pmusim=$1
src=$2
mode=${3:-counts}
command -v qemu-x86_64 >/dev/null 2>&1 || { echo "SKIP: qemu-x86_64 not installed (apt-get install qemu-user)"; exit 77; }
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-capture.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM HUP
for p in stream chase branchy random threads rep kinds opkinds; do
    "$cc" -O2 -o "$work/$p" "$src/tests/capture/progs/$p.c" -lpthread
done
if ! "$pmusim" trace capture --cpu wsm -o "$work/probe.pmt" -- "$work/stream" 0 >/dev/null 2>"$work/err"; then
    if grep -q "plugin is not built" "$work/err"; then
        echo "SKIP: the QEMU plugin is not built (libcapstone-dev missing)"; exit 77
    fi
    cat "$work/err"; exit 1
fi

failed=0
# count EVENT TRACE: the event's count, from perf-style -x output or --csv
count() {
    if out=$("$pmusim" stat -x , -e "$1" "$2" 2>/dev/null); then
        echo "$out" | awk -F, 'NF > 2 && $1 ~ /^[0-9]+$/ { print $1; exit }'
    else
        "$pmusim" stat --csv -e "$1" "$2" | awk -F, 'NR == 2 { print $4 }'
    fi
}
# expect NAME ACTUAL EXPECTED TOLERANCE_PERCENT [SLACK]: |ACTUAL - EXPECTED| at
# most TOLERANCE_PERCENT of EXPECTED, or SLACK (default 0) for small counts
expect() {
    if awk -v a="$2" -v e="$3" -v t="$4" -v s="${5:-0}" 'BEGIN { d = a - e; if (d < 0) d = -d; exit !(d <= e * t / 100 || d <= s) }'; then
        echo "ok    $1: $2 (expected $3 +-$4%)"
    else
        echo "FAIL  $1: $2, expected $3 +-$4%"; failed=$((failed + 1))
    fi
}
# at_least NAME ACTUAL MINIMUM
at_least() {
    if [ "$2" -ge "$3" ]; then echo "ok    $1: $2 (at least $3)"; else echo "FAIL  $1: $2, expected at least $3"; failed=$((failed + 1)); fi
}
cap() { # cap CPU OUT PROGRAM ARGS...
    c=$1; o=$2; shift 2
    "$pmusim" trace capture --cpu "$c" -o "$o" -- "$@" >/dev/null
}

if [ "$mode" = counts ]; then
    # Stream over N = 2^20 8-byte words (8 MiB, twice the 4 MiB LLC of wsm;
    # wsm_dp's 12 MiB LLC is set to 4 MiB with --LL): the store pass and the
    # load pass each bring N/8 lines into the L1D; the load pass misses the
    # LLC on each of its N/8 lines.
    n=1048576
    for cpu in wsm wsm_dp; do
        ll=""
        [ $cpu = wsm_dp ] && ll="--LL=4194304,16,64"
        "$pmusim" trace capture --cpu $cpu $ll -o "$work/s0.pmt" -- "$work/stream" 0 >/dev/null
        "$pmusim" trace capture --cpu $cpu $ll -o "$work/s.pmt" -- "$work/stream" $n >/dev/null
        repl=$(( $(count $cpu::L1D:REPL "$work/s.pmt") - $(count $cpu::L1D:REPL "$work/s0.pmt") ))
        expect "$cpu stream L1D:REPL" $repl $((n / 4)) 2
        llc=$(( $(count $cpu::MEM_LOAD_RETIRED:LLC_MISS "$work/s.pmt") - $(count $cpu::MEM_LOAD_RETIRED:LLC_MISS "$work/s0.pmt") ))
        expect "$cpu stream MEM_LOAD_RETIRED:LLC_MISS" $llc $((n / 8)) 3
        # line fill buffers (docs/UARCH.md §1): a line's first load misses,
        # its other loads (independent, a few cycles apart) start within
        # the fill's 218-271 cycles and hit its buffer: every load of the
        # pass but the N/8 misses (7N/8 with 8-byte loads), none an L1D hit
        ld=$(( $(count $cpu::MEM_INST_RETIRED:LOADS "$work/s.pmt") - $(count $cpu::MEM_INST_RETIRED:LOADS "$work/s0.pmt") ))
        lfb=$(( $(count $cpu::MEM_LOAD_RETIRED:HIT_LFB "$work/s.pmt") - $(count $cpu::MEM_LOAD_RETIRED:HIT_LFB "$work/s0.pmt") ))
        expect "$cpu stream MEM_LOAD_RETIRED:HIT_LFB" $lfb $((ld - n / 8)) 1
        l1=$(( $(count $cpu::MEM_LOAD_RETIRED:L1D_HIT "$work/s.pmt") - $(count $cpu::MEM_LOAD_RETIRED:L1D_HIT "$work/s0.pmt") ))
        expect "$cpu stream MEM_LOAD_RETIRED:L1D_HIT" $l1 0 0 256
    done
    # Knights Mill: the load pass misses the L1D on each of its N/8 lines.
    cap knm "$work/k0.pmt" "$work/stream" 0
    cap knm "$work/k.pmt" "$work/stream" $n
    l1m=$(( $(count knm::MEM_UOPS_RETIRED:L1_MISS_LOADS "$work/k.pmt") - $(count knm::MEM_UOPS_RETIRED:L1_MISS_LOADS "$work/k0.pmt") ))
    expect "knm stream MEM_UOPS_RETIRED:L1_MISS_LOADS" $l1m $((n / 8)) 3

    # Random reads of an 8 MiB array: all but 32 KiB / 8 MiB of them miss
    # the 32 KiB L1D.
    r=524288
    cap wsm "$work/r0.pmt" "$work/random" $n 0
    cap wsm "$work/r.pmt" "$work/random" $n $r
    repl=$(( $(count wsm::L1D:REPL "$work/r.pmt") - $(count wsm::L1D:REPL "$work/r0.pmt") ))
    expect "wsm random L1D:REPL" $repl $((r * 996 / 1000)) 2

    # Pointer chase over 2^19 lines (32 MiB, 8x the LLC) for 2^18 steps: the
    # chase follows the permutation in the order the set-up wrote it, so a
    # step's line was last touched 2^19 - 2^18 lines of other writes ago,
    # while the LLC holds only the last 2^16 lines: every step misses.  Over
    # 256 lines (16 KiB, in the L1D) none does.
    s=262144
    cap wsm "$work/c0.pmt" "$work/chase" 524288 0
    cap wsm "$work/c.pmt" "$work/chase" 524288 $s
    llc=$(( $(count wsm::MEM_LOAD_RETIRED:LLC_MISS "$work/c.pmt") - $(count wsm::MEM_LOAD_RETIRED:LLC_MISS "$work/c0.pmt") ))
    expect "wsm chase 32 MiB MEM_LOAD_RETIRED:LLC_MISS" $llc $s 1
    cap wsm "$work/cs0.pmt" "$work/chase" 256 0
    cap wsm "$work/cs.pmt" "$work/chase" 256 $s
    small=$(( $(count wsm::MEM_LOAD_RETIRED:LLC_MISS "$work/cs.pmt") - $(count wsm::MEM_LOAD_RETIRED:LLC_MISS "$work/cs0.pmt") ))
    expect "wsm chase 16 KiB MEM_LOAD_RETIRED:LLC_MISS" $small 0 0 16  # a stack or heap line may differ

    # N iterations with a random data-dependent branch: 2N conditional
    # branches (the loop's and the data's); the data branch is a coin flip,
    # mispredicted half the time.
    b=500000
    for cpu in wsm knm; do
        if [ $cpu = knm ]; then mis=BR_MISP_RETIRED:JCC; cond=BR_INST_RETIRED:JCC; else mis=BR_MISP_RETIRED:CONDITIONAL; cond=BR_INST_RETIRED:CONDITIONAL; fi
        cap $cpu "$work/b0.pmt" "$work/branchy" 0
        cap $cpu "$work/b.pmt" "$work/branchy" $b
        c=$(( $(count $cpu::$cond "$work/b.pmt") - $(count $cpu::$cond "$work/b0.pmt") ))
        expect "$cpu branchy $cond" $c $((2 * b)) 1
        m=$(( $(count $cpu::$mis "$work/b.pmt") - $(count $cpu::$mis "$work/b0.pmt") ))
        expect "$cpu branchy $mis" $m $((b / 2)) 6
    done

    # Call kinds and FP/SIMD classes (progs/kinds.c, its header derives the
    # numbers): per iteration 2 direct and 3 indirect calls, 3 x87, 2 MMX,
    # 2 scalar-single, 1 scalar-double, 3 packed-single, 2 packed-double and
    # 2 packed-integer SSE instructions, each one FP uop.  The before
    # binary of session 14 reads these traces as an error (branch kind 5)
    # and had none of the FP rows.
    k=1000
    cap wsm "$work/kd0.pmt" "$work/kinds" 0000 # as many digits to parse
    cap wsm "$work/kd.pmt" "$work/kinds" $k
    for pair in BR_INST_EXEC:DIRECT_NEAR_CALL:2 BR_INST_EXEC:INDIRECT_NEAR_CALL:3 \
                BR_INST_EXEC:NEAR_CALLS:5 BR_INST_RETIRED:NEAR_CALL:5 \
                INST_RETIRED:X87:3 INST_RETIRED:MMX:2 FP_COMP_OPS_EXE:X87:3 FP_COMP_OPS_EXE:MMX:2 \
                SSEX_UOPS_RETIRED:SCALAR_SINGLE:2 SSEX_UOPS_RETIRED:SCALAR_DOUBLE:1 \
                SSEX_UOPS_RETIRED:PACKED_SINGLE:3 SSEX_UOPS_RETIRED:PACKED_DOUBLE:2 \
                SSEX_UOPS_RETIRED:VECTOR_INTEGER:2 FP_COMP_OPS_EXE:SSE_FP:8 \
                FP_COMP_OPS_EXE:SSE_FP_PACKED:5 FP_COMP_OPS_EXE:SSE_FP_SCALAR:3 \
                FP_COMP_OPS_EXE:SSE_SINGLE_PRECISION:5 FP_COMP_OPS_EXE:SSE_DOUBLE_PRECISION:3 \
                FP_COMP_OPS_EXE:SSE2_INTEGER:2; do
        e=${pair%:*}
        d=$(( $(count wsm::$e "$work/kd.pmt") - $(count wsm::$e "$work/kd0.pmt") ))
        expect "wsm kinds $e" $d $(( ${pair##*:} * k )) 0
    done
    cap knm "$work/kk0.pmt" "$work/kinds" 0000
    cap knm "$work/kk.pmt" "$work/kinds" $k
    for pair in BR_INST_RETIRED:REL_CALL:2 BR_INST_RETIRED:IND_CALL:3 BR_INST_RETIRED:CALL:5 \
                UOPS_RETIRED:SCALAR_SIMD:3 UOPS_RETIRED:PACKED_SIMD:7; do
        e=${pair%:*}
        d=$(( $(count knm::$e "$work/kk.pmt") - $(count knm::$e "$work/kk0.pmt") ))
        expect "knm kinds $e" $d $(( ${pair##*:} * k )) 0
    done

    # Operation kinds and x87/MMX transitions (progs/opkinds.c, its header
    # derives the numbers): per iteration, on MMX registers pack 1, unpack
    # 2, arith 3, logical 4, multiply 1, shift 2, shuffle/move 2; on XMM
    # pack 2, unpack 1, arith 1, logical 2, multiply 3, shift 1,
    # shuffle/move 4 (a movdqu load and store are none); 4 multiplies and 5
    # divides or square roots of any class; one transition each way.  The
    # records' kinds through `trace dump` (every kind, div too, which no
    # wsm event counts from the trace), the events through stat; the
    # before binary has none of these rows and writes no opk=.
    k=1000
    cap wsm "$work/ok0.pmt" "$work/opkinds" 0000
    cap wsm "$work/ok.pmt" "$work/opkinds" $k
    kinds_of() { "$pmusim" trace dump "$1" | grep -o "fpc=[a-z0-9]* opk=[a-z_]*\|opk=[a-z_]*" | sort | uniq -c; }
    kinds_of "$work/ok.pmt" >"$work/ok.kinds"
    kinds_of "$work/ok0.pmt" >"$work/ok0.kinds"
    for pair in "fpc=mmx opk=pack:1" "fpc=mmx opk=unpack:2" "fpc=mmx opk=packed_arith:3" \
                "fpc=mmx opk=packed_logical:4" "fpc=mmx opk=packed_mpy:1" \
                "fpc=mmx opk=packed_shift:2" "fpc=mmx opk=shuffle_move:2" \
                "fpc=vi opk=pack:2" "fpc=vi opk=unpack:1" "fpc=vi opk=packed_arith:1" \
                "fpc=vi opk=packed_logical:2" "fpc=vi opk=packed_mpy:3" \
                "fpc=vi opk=packed_shift:1" "fpc=vi opk=shuffle_move:4" \
                "opk=mul:1" "fpc=sd opk=mul:1" "fpc=ps opk=mul:1" "fpc=x87 opk=mul:1" \
                "opk=div:1" "fpc=sd opk=div:1" "fpc=pd opk=div:1" "fpc=x87 opk=div:2"; do
        e=${pair%:*}
        n1=$(awk -v e="$e" '{ c = $1; $1 = ""; sub(/^ /, ""); if ($0 == e) print c }' "$work/ok.kinds")
        n0=$(awk -v e="$e" '{ c = $1; $1 = ""; sub(/^ /, ""); if ($0 == e) print c }' "$work/ok0.kinds")
        expect "wsm opkinds records $e" $(( ${n1:-0} - ${n0:-0} )) $(( ${pair##*:} * k )) 0
    done
    for pair in SIMD_INT_64:PACK:1 SIMD_INT_64:UNPACK:2 SIMD_INT_64:PACKED_ARITH:3 \
                SIMD_INT_64:PACKED_LOGICAL:4 SIMD_INT_64:PACKED_MPY:1 SIMD_INT_64:PACKED_SHIFT:2 \
                SIMD_INT_64:SHUFFLE_MOVE:2 SIMD_INT_128:PACK:2 SIMD_INT_128:UNPACK:1 \
                SIMD_INT_128:PACKED_ARITH:1 SIMD_INT_128:PACKED_LOGICAL:2 \
                SIMD_INT_128:PACKED_MPY:3 SIMD_INT_128:PACKED_SHIFT:1 \
                SIMD_INT_128:SHUFFLE_MOVE:4 ARITH:MUL:4 FP_MMX_TRANS:TO_FP:1 \
                FP_MMX_TRANS:TO_MMX:1 FP_MMX_TRANS:ANY:2; do
        e=${pair%:*}
        d=$(( $(count wsm::$e "$work/ok.pmt") - $(count wsm::$e "$work/ok0.pmt") ))
        expect "wsm opkinds $e" $d $(( ${pair##*:} * k )) 0
    done
    # the same trace annotated again keeps the kinds (annotate passes them)
    "$pmusim" trace annotate --cpu wsm "$work/ok.pmt" "$work/oka.pmt" >/dev/null
    expect "wsm opkinds annotated SIMD_INT_128:PACKED_MPY" \
        $(( $(count wsm::SIMD_INT_128:PACKED_MPY "$work/oka.pmt") - $(count wsm::SIMD_INT_128:PACKED_MPY "$work/ok0.pmt") )) $((3 * k)) 0

    # `rep movsb` of 4,096 bytes 100 times against 0 bytes 100 times: the
    # same instructions (a REP instruction retires once, however many
    # iterations; the capture gives its 8,192 accesses to the model in parts
    # of 64); 409,600 more load and store records, none dropped: knm's
    # MEM_UOPS_RETIRED counts them (uops), wsm's MEM_INST_RETIRED counts
    # instructions with a load (a store): 100 more (with 0 bytes the
    # instruction makes no access).
    for cpu in knm wsm; do
        if [ $cpu = knm ]; then ld=MEM_UOPS_RETIRED:ALL_LOADS; st=MEM_UOPS_RETIRED:ALL_STORES; k=409600
        else ld=MEM_INST_RETIRED:LOADS; st=MEM_INST_RETIRED:STORES; k=100; fi
        "$pmusim" trace capture --cpu $cpu --stats -o "$work/p0.pmt" -- "$work/rep" 0000 100 \
            >/dev/null 2>"$work/p0.err" # as many digits to parse
        "$pmusim" trace capture --cpu $cpu --stats -o "$work/p.pmt" -- "$work/rep" 4096 100 \
            >/dev/null 2>"$work/p.err"
        # --stats: the entries valgrind would count as instructions too
        # (4,096 more per rep movsb than with 0 bytes, as cachegrind's I refs)
        it0=$(sed -n 's/.*were re-entered \([0-9]*\) times.*/\1/p' "$work/p0.err")
        it=$(sed -n 's/.*were re-entered \([0-9]*\) times.*/\1/p' "$work/p.err")
        expect "$cpu rep movsb re-entries (--stats)" $(( ${it:-0} - ${it0:-0} )) 409600 0
        i=$(( $(count $cpu::INST_RETIRED:ANY_P "$work/p.pmt") - $(count $cpu::INST_RETIRED:ANY_P "$work/p0.pmt") ))
        expect "$cpu rep movsb INST_RETIRED:ANY_P" $i 0 0
        l=$(( $(count $cpu::$ld "$work/p.pmt") - $(count $cpu::$ld "$work/p0.pmt") ))
        expect "$cpu rep movsb $ld" $l $k 0
        w=$(( $(count $cpu::$st "$work/p.pmt") - $(count $cpu::$st "$work/p0.pmt") ))
        expect "$cpu rep movsb $st" $w $k 0
    done
    # the same instruction again through trace annotate (MEM records beyond
    # 64 per INSN record: parts again): loads 409,600 more, in 100 more
    # instructions
    "$pmusim" trace annotate "$work/p.pmt" "$work/pa.pmt" --cpu wsm --D1=16384,4,64
    i=$(( $(count wsm::INST_RETIRED:ANY_P "$work/pa.pmt") - $(count wsm::INST_RETIRED:ANY_P "$work/p0.pmt") ))
    expect "wsm rep movsb annotated INST_RETIRED:ANY_P" $i 0 0
    l=$(( $(count wsm::MEM_INST_RETIRED:LOADS "$work/pa.pmt") - $(count wsm::MEM_INST_RETIRED:LOADS "$work/p0.pmt") ))
    expect "wsm rep movsb annotated MEM_INST_RETIRED:LOADS" $l 100 0
    # (every level: a load that found its line in a fill buffer is HIT_LFB)
    l=0
    for lv in L1D_HIT HIT_LFB L2_HIT L3_UNSHARED_HIT L3_MISS; do
        l=$(( l + $(count wsm::MEM_LOAD_RETIRED:$lv "$work/pa.pmt") - $(count wsm::MEM_LOAD_RETIRED:$lv "$work/p0.pmt") ))
    done
    expect "wsm rep movsb annotated MEM_LOAD_RETIRED (every level)" $l 409600 0

    # Two guest threads on two hardware threads: each retires its own loop
    # (at least 2 instructions per word and pass).
    "$pmusim" trace capture --cpu wsm --threads 2 -o "$work/t.pmt" -- "$work/threads" 65536 >/dev/null
    for t in 0 1; do
        i=$("$pmusim" trace info "$work/t.pmt" | awk -v t="$t" '$1 == "instructions" && $3 == t":" { print $4 }')
        at_least "wsm threads: instructions of thread $t" "${i:-0}" $((2 * 2 * 65536))
    done
    # symbols: the sampled loop is in main
    "$pmusim" record -e wsm::INST_RETIRED:ANY_P -c 100000 "$work/s.pmt" > "$work/rec.txt"
    if grep -q ' main' "$work/rec.txt"; then echo "ok    record names main"; else echo "FAIL  record names no sample main"; failed=$((failed + 1)); fi
    # exit status and output pass through
    set +e
    "$pmusim" trace capture --cpu wsm -o "$work/x.pmt" -- "$work/stream" 8 > "$work/out.txt"
    st=$?
    set -e
    if [ $st -eq 0 ] && [ "$(cat "$work/out.txt")" = 28 ]; then echo "ok    output and status pass through"; else echo "FAIL  status $st, output $(cat "$work/out.txt")"; failed=$((failed + 1)); fi

    # The CPU the program sees (docs/CAPTURE.md): CPUID's model as the
    # dynamic loader reports it (glibc >= 2.33), and the header's qemu.cpu
    ld=/lib64/ld-linux-x86-64.so.2
    if [ -x $ld ] && $ld --list-diagnostics >/dev/null 2>&1; then
        for pair in wsm:0x25 wsm_dp:0x2c knm:0x85; do
            c=${pair%:*}
            m=$("$pmusim" trace capture --cpu $c -o "$work/ld.pmt" -- $ld --list-diagnostics | sed -n 's/^x86.cpu_features.basic.model=//p')
            if [ "$m" = "${pair#*:}" ]; then echo "ok    $c: the program sees CPUID model $m"; else echo "FAIL  $c: the program sees CPUID model '$m', expected ${pair#*:}"; failed=$((failed + 1)); fi
        done
        q=$("$pmusim" trace info "$work/ld.pmt" | sed -n 's/^meta qemu.cpu: //p')
        case $q in KnightsMill,*) echo "ok    knm: header qemu.cpu $q" ;; *) echo "FAIL  knm: header qemu.cpu '$q'"; failed=$((failed + 1)) ;; esac
    else
        echo "skip  CPUID model checks: $ld has no --list-diagnostics"
    fi
    # an AVX2 instruction: SIGILL on the Westmere model (status 132, a hint
    # on stderr), runs under --qemu-cpu max; an unknown model is a usage error
    "$cc" -O2 -o "$work/avx2" "$src/tests/capture/progs/avx2.c"
    set +e
    "$pmusim" trace capture --cpu wsm -o "$work/a.pmt" -- "$work/avx2" 2>"$work/a.err"
    st=$?
    "$pmusim" trace capture --cpu wsm --qemu-cpu max -o "$work/am.pmt" -- "$work/avx2" 2>/dev/null
    stm=$?
    "$pmusim" trace capture --cpu wsm --qemu-cpu Nosuch -o "$work/an.pmt" -- "$work/avx2" 2>"$work/an.err"
    stn=$?
    set -e
    if [ $st -eq 132 ] && grep -q -- "--qemu-cpu max" "$work/a.err" && [ $stm -eq 0 ]; then echo "ok    AVX2 on wsm: SIGILL with a hint; runs with --qemu-cpu max"; else echo "FAIL  AVX2 on wsm: status $st, with max $stm"; cat "$work/a.err"; failed=$((failed + 1)); fi
    if [ $stn -eq 2 ] && grep -q "no CPU model 'Nosuch'" "$work/an.err" && [ ! -e "$work/an.pmt" ]; then echo "ok    --qemu-cpu Nosuch: usage error, no trace"; else echo "FAIL  --qemu-cpu Nosuch: status $stn"; cat "$work/an.err"; failed=$((failed + 1)); fi
    # a #! script runs under its interpreter, arguments and status pass
    # through; the trace is the shell's (it has instructions and reads)
    printf '#!/bin/sh -e\necho "$0|$1|$2"\nexit 3\n' > "$work/s.sh"
    printf '#!/nonexistent/sh\n' > "$work/bad.sh"
    chmod +x "$work/s.sh" "$work/bad.sh"
    set +e
    o=$("$pmusim" trace capture --cpu wsm -o "$work/sh.pmt" -- "$work/s.sh" a "b c")
    st=$?
    "$pmusim" trace capture --cpu wsm -o "$work/bad.pmt" -- "$work/bad.sh" 2>"$work/bad.err"
    stb=$?
    set -e
    n=$(count wsm::INST_RETIRED:ANY_P "$work/sh.pmt")
    if [ $st -eq 3 ] && [ "$o" = "$work/s.sh|a|b c" ] && [ "${n:-0}" -gt 10000 ]; then echo "ok    #! script: output, status 3, $n instructions"; else echo "FAIL  #! script: status $st, output '$o', ${n:-0} instructions"; failed=$((failed + 1)); fi
    if [ $stb -eq 1 ] && grep -q "the script's interpreter: /nonexistent/sh" "$work/bad.err" && [ ! -e "$work/bad.pmt" ]; then echo "ok    #! script with a missing interpreter: error, no trace"; else echo "FAIL  #! script with a missing interpreter: status $stb"; cat "$work/bad.err"; failed=$((failed + 1)); fi
else
    # cachegrind on the same programs and geometry (I1/D1 -> LL, no L2);
    # both tools' start-up counts (a run of size 0) are subtracted, since
    # QEMU and valgrind start a program differently (loader, environment)
    command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
    # ours CPU "GEOM" PROG ARGS: "D1 LL COND" from the model's totals
    ours() {
        c=$1; g=$2; shift 2
        "$pmusim" trace capture --cpu "$c" $g --L2=none --stats -o "$work/cg.pmt" -- "$@" 2>"$work/ours" >/dev/null
        sed -n 's/.*D1 misses \([0-9]*\).*LL misses \([0-9]*\), conditional branches \([0-9]*\).*/\1 \2 \3/p' "$work/ours"
    }
    # (--vex-guest-chase=no: with VEX's default chasing cachegrind loses
    # conditional branches, 3,888,555 against 4,772,755 on `gzip -c` of
    # 200,000 bytes, docs/CAPTURE.md "Validation")
    theirs() {
        g=$1; shift
        valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --vex-guest-chase=no $g \
            --cachegrind-out-file=/dev/null "$@" 2>"$work/cg" >/dev/null
        # (the conditional count is the number before "cond": cachegrind pads
        # it to the total's width, so "(" may stand alone before it)
        awk '/D1  misses:/ { gsub(",", "", $4); d = $4 }
             /LL misses:/ { gsub(",", "", $4); l = $4 }
             /Branches:/ { for (k = 1; k < NF; k++) if ($(k + 1) == "cond") { b = $k; gsub(/[(,]/, "", b) } }
             END { print d, l, b }' "$work/cg"
    }
    # CPU|GEOMETRY|RUN: wsm with the geometry of the first table in
    # docs/CAPTURE.md "Validation"; knm (I1/D1 -> its L2 as the LL) with
    # 128-byte lines, 2-way L1s and an LL smaller than the data
    g0="--I1=32768,8,64 --D1=32768,8,64 --LL=4194304,16,64"
    g2="--I1=32768,2,128 --D1=65536,2,128 --LL=262144,16,128"
    for run in "wsm|$g0|stream 1048576|stream 0" "wsm|$g0|random 1048576 524288|random 1048576 0" \
               "wsm|$g0|chase 524288 262144|chase 524288 0" "wsm|$g0|branchy 500000|branchy 0" \
               "knm|$g2|stream 1048576|stream 0" "knm|$g2|random 1048576 524288|random 1048576 0"; do
        c=${run%%|*}; rest=${run#*|}
        geom=${rest%%|*}; rest=${rest#*|}
        big=${rest%|*}; zero=${rest#*|}
        prog="$c ${big%% *}"
        set -- $(ours "$c" "$geom" "$work/"$big) $(ours "$c" "$geom" "$work/"$zero) \
               $(theirs "$geom" "$work/"$big) $(theirs "$geom" "$work/"$zero)
        # (a slack of 64 misses for programs that miss almost never)
        expect "$prog D1 misses vs cachegrind" $(($1 - $4)) $(($7 - ${10})) 2 64
        expect "$prog LL misses vs cachegrind" $(($2 - $5)) $(($8 - ${11})) 2 64
        expect "$prog conditional branches vs cachegrind" $(($3 - $6)) $(($9 - ${12})) 1
    done
fi
echo "capture $mode: $failed failed"
[ "$failed" -eq 0 ]
