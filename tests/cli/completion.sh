#!/bin/sh
# The bash completion script (scripts/completion/pmusim.bash): sourced in
# bash, COMP_WORDS/COMP_CWORD set by hand, the function called, COMPREPLY
# compared with the exact list.  usage: completion.sh PMUSIM SRCDIR
set -u
P=$1
SRC=$2
if ! command -v bash >/dev/null 2>&1; then
    echo "bash not installed: completion not tested"
    exit 77
fi
exec bash -c '
P=$1
. "$2/scripts/completion/pmusim.bash" || exit 1
n=0 fails=0
# comp EXPECTED WORD...: complete the last WORD (COMP_WORDS[0] is the pmusim binary)
comp() {
    want=$1
    shift
    COMP_WORDS=("$P" "$@")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMPREPLY=()
    _pmusim
    got="${COMPREPLY[*]}"
    n=$((n + 1))
    if [ "$got" = "$want" ]; then
        echo "ok $n - $*"
    else
        echo "not ok $n - $*"
        echo "#   got:  $got"
        echo "#   want: $want"
        fails=$((fails + 1))
    fi
}
comp "stat script" "s"
comp "events encode" "e"
comp "trace" "tr"
comp "info" "trace" "i"
comp "convert capture" "trace" "c"
comp "stat script" "help" "s"
comp "gen" "help" "trace" "g"
comp "wsm wsm_dp" "stat" "-p" "ws"
comp "knm" "encode" "--pmu" "k"
comp "UOPS_DECODED UOPS_RETIRED UOPS_EXECUTED UOPS_ISSUED" "stat" "-p" "wsm" "-e" "UOPS_"
comp "CPU_CYCLES" "stat" "--pmu" "ita2" "-e" "CPU_CY"
comp "CPU_CYCLES,NOPS_RETIRED" "stat" "-p" "ita2" "-e" "CPU_CYCLES,NOPS_"
# bash splits at ':' and '=' (COMP_WORDBREAKS): the words come in pieces,
# and the reply is what follows the last ':'
COMP_WORDBREAKS=" ()<>;&|=:"
comp "CPU_CYCLES" "encode" "-e" "ita2" "::" "CPU_CYC"
comp "CPU_CYCLES" "events" "ita2" "::" "CPU_CYC"
comp "wsm wsm_dp" "stat" "--pmu" "=" "ws"
comp "UOPS_RETIRED" "stat" "--pmu" "=" "wsm" "-e" "UOPS_RE"
COMP_WORDBREAKS=" "   # without ':' as a word break the reply is the whole word
comp "ita2::CPU_CYCLES" "encode" "-e" "ita2::CPU_CYC"
comp "--tap" "check" "--ta"
comp "--junit --jobs" "check" "--j"
comp "--help --help-all --help-itanium" "stat" "--hel"
comp "--irange" "stat" "--ira"
comp "--strict" "trace" "info" "--st"
comp "UOPS_RETIRED" "events" "-p" "wsm" "UOPS_RE"
comp "loop" "trace" "gen" "--workload" "l"
comp "text" "trace" "convert" "--to" "t"
comp "wsm wsm_dp" "trace" "capture" "--cpu" "w"
comp "mont" "trace" "gen" "--cpu" "m"
comp "u uk" "stat" "--plm" "u"
complete -p pmusim >/dev/null || { echo "not ok - complete -p pmusim"; fails=$((fails + 1)); }
echo "1..$n"
[ "$fails" = 0 ]
' sh "$P" "$SRC"
