#!/bin/sh
# Dispatch ports, the divider and the microcode sequencer (docs/UARCH.md
# section 1.1) from trace annotate to pmusim stat with the real event names:
# the hand-counted sequence of test_ports_divider_ms (tests/unit/uarch), as
# a hand-written text trace, annotated by the wsm and knm models, then
# counted.  Expected (derivation in that test's comment): ports 0, 1, 5
# six uops each (PORT015 18), loads 3 (PORT2_CORE, LOAD_DISPATCH:ANY/RS),
# stores 2 (PORT3_CORE, PORT4_CORE; PORT234_CORE 7), divider busy 23 + 7
# cycles in 2 divides (ARITH:DIV, the c=1 i=1 e=1 form of CYCLES_DIV_BUSY:
# the divide instructions, docs/trace-events-x86.md "Forms"), 6 uops from the
# microcode sequencer (one instruction of 6 > 4 uops; knm: > 3).
# usage: ports_stat.sh PMUSIM
set -u
P=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-ports-XXXXXX")
trap 'rm -rf "$T"' EXIT
cat >"$T/in.txt" <<'TRACE'
pmusim-trace 2
isa x86_64
cpu wsm
threads 1
flags 0x0
meta annotations brkind,uops,allmem,fp,fpclass,opkind
0 0 insn ip=0x400000 len=4 uops=1 plm=3
1 0 insn ip=0x400004 len=4 uops=1 plm=3
2 0 insn ip=0x400008 len=4 uops=1 plm=3
3 0 insn ip=0x40000c len=4 uops=1 plm=3 mem=ld addr=0x20000000 size=8
4 0 insn ip=0x400010 len=4 uops=2 plm=3 mem=ld addr=0x20000040 size=8
5 0 insn ip=0x400014 len=4 uops=1 plm=3 mem=st addr=0x20000080 size=8
6 0 insn ip=0x400018 len=4 uops=3 plm=3 mem=ld addr=0x200000c0 size=8
6 0 mem mem=st addr=0x200000c0 size=8
7 0 insn ip=0x40001c len=4 uops=1 plm=3 br=cond taken=0 target=0x400100
8 0 insn ip=0x400020 len=4 uops=1 plm=3 fp fpc=sd opk=mul
9 0 insn ip=0x400024 len=4 uops=1 plm=3 opk=mul
10 0 insn ip=0x400028 len=4 uops=1 plm=3 fp fpc=sd
11 0 insn ip=0x40002c len=4 uops=1 plm=3 fpc=vi opk=shuffle_move
12 0 insn ip=0x400030 len=4 uops=1 plm=3 opk=div
13 0 insn ip=0x400034 len=4 uops=1 plm=3 fp fpc=sd opk=div
14 0 insn ip=0x400038 len=4 uops=6 plm=3
end 16
TRACE
fails=0
n=0
check() { # name pmu events expected-values
    n=$((n + 1))
    if ! "$P" trace annotate "$T/in.txt" "$T/$2.pmt" --cpu "$2" 2>"$T/err"; then
        echo "not ok $n - $1: annotate: $(head -1 "$T/err")"
        fails=$((fails + 1))
        return
    fi
    ev=$(echo "$3" | sed "s/\([^,]*\)/$2::\1/g")
    got=$("$P" stat -x, -e "$ev" "$T/$2.pmt" 2>"$T/err" | awk -F, 'NF > 2 { printf "%s%s", s, $1; s = " " }')
    if [ "$got" = "$4" ]; then
        echo "ok $n - $1: $got"
    else
        echo "not ok $n - $1: got '$got', expected '$4' ($(head -1 "$T/err"))"
        fails=$((fails + 1))
    fi
}
# at most 4 events a run on wsm, 2 on knm (its general counters)
echo "1..6"
check "wsm ports 0 1 5, PORT015" wsm UOPS_EXECUTED:PORT0,UOPS_EXECUTED:PORT1,UOPS_EXECUTED:PORT5,UOPS_EXECUTED:PORT015 "6 6 6 18"
check "wsm ports 2 3 4, PORT234" wsm UOPS_EXECUTED:PORT2_CORE,UOPS_EXECUTED:PORT3_CORE,UOPS_EXECUTED:PORT4_CORE,UOPS_EXECUTED:PORT234_CORE "3 2 2 7"
check "wsm loads dispatched" wsm LOAD_DISPATCH:ANY,LOAD_DISPATCH:RS,LOAD_DISPATCH:RS_DELAYED,LOAD_DISPATCH:MOB "3 3 0 0"
check "wsm divider, microcode sequencer" wsm ARITH:CYCLES_DIV_BUSY,ARITH:DIV,UOPS_DECODED:MS "30 2 6"
check "knm divider, microcode sequencer" knm CYCLES_DIV_BUSY:ALL,UOPS_RETIRED:MS "30 6"
check "knm microcode sequencer entries" knm MS_DECODED:ENTRY "1"
[ "$fails" -eq 0 ]
