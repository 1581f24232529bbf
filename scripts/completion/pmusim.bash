# bash completion for pmusim (docs/CLI.md "Shell completion").
# Installed by meson into bash-completion's completionsdir; to try it from a
# checkout:  source scripts/completion/pmusim.bash
#
# Completes commands, trace subcommands, each command's options (read from
# 'pmusim CMD --help-all'), PMU names after -p/--pmu, and event names after
# -e/--event (from 'pmusim events --pmu P --names', P taken from -p/--pmu on
# the line, else every PMU's pmu::NAME list), the values of --cpu, --to,
# --workload, --from and --plm.

_pmusim_prog()
{
    # the pmusim being completed: the word typed, so that ./build/sim/cli/pmusim works
    local p=${COMP_WORDS[0]}
    p=${p/#\~/$HOME}
    command -v -- "$p" >/dev/null 2>&1 && { printf '%s\n' "$p"; return; }
    printf 'pmusim\n'
}

_pmusim_options()
{
    # long options (and -X short ones) from the command's full help
    "$(_pmusim_prog)" "$@" --help-all 2>/dev/null |
        sed -n 's/^ \{2,\}\(-[A-Za-z?], \)\{0,1\}\(--[A-Za-z0-9-]*\).*/\2/p'
}

# Drops from each reply what bash keeps of the word before its last ':' (it
# completes only the piece after it when ':' is a word break).
_pmusim_trim_colons()
{
    local cur=$1 pre i
    [[ $cur == *:* && ${COMP_WORDBREAKS-:} == *:* ]] || return 0
    pre=${cur%"${cur##*:}"}
    for i in "${!COMPREPLY[@]}"; do
        COMPREPLY[i]=${COMPREPLY[i]#"$pre"}
    done
}

_pmusim()
{
    local cur prev cmd sub i pmu="" first
    COMPREPLY=()
    # bash splits words at ':' and '=' (COMP_WORDBREAKS): "ita2::CPU_CYC" comes
    # as "ita2" "::" "CPU_CYC", "--pmu=wsm" as "--pmu" "=" "wsm".  Join the
    # colon pieces back into the word being completed.
    first=$COMP_CWORD
    cur=${COMP_WORDS[first]}
    while (( first > 2 )) && [[ ${COMP_WORDS[first-1]} =~ ^:+$ || ${COMP_WORDS[first]} =~ ^:+$ ]]; do
        cur=${COMP_WORDS[first-1]}$cur
        (( first-- ))
    done
    prev=""
    (( first > 0 )) && prev=${COMP_WORDS[first-1]}
    if [[ $prev == = ]] && (( first > 1 )); then
        prev=${COMP_WORDS[first-2]}   # --pmu=CUR, --event=CUR
    fi
    local commands="stat record report script events encode wave check trace help"
    local trace_subs="info dump convert gen annotate capture"
    local pmus="ita2 mont wsm wsm_dp knm"

    if (( COMP_CWORD == 1 )); then
        COMPREPLY=( $(compgen -W "$commands --help --version" -- "$cur") )
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    if [[ $cmd == help ]]; then
        if (( COMP_CWORD == 2 )); then
            COMPREPLY=( $(compgen -W "${commands% help}" -- "$cur") )
        elif (( COMP_CWORD == 3 )) && [[ ${COMP_WORDS[2]} == trace ]]; then
            COMPREPLY=( $(compgen -W "$trace_subs" -- "$cur") )
        fi
        return 0
    fi
    sub=""
    if [[ $cmd == trace ]]; then
        if (( COMP_CWORD == 2 )); then
            COMPREPLY=( $(compgen -W "$trace_subs" -- "$cur") )
            return 0
        fi
        sub=${COMP_WORDS[2]}
    fi
    # the PMU named on the line so far
    for (( i = 2; i < first; i++ )); do
        case ${COMP_WORDS[i]} in
            -p) pmu=${COMP_WORDS[i+1]} ;;
            --pmu)
                pmu=${COMP_WORDS[i+1]}
                [[ $pmu == = ]] && pmu=${COMP_WORDS[i+2]}
                ;;
            --pmu=*) pmu=${COMP_WORDS[i]#--pmu=} ;;
        esac
    done
    case $prev in
        -p|--pmu)
            COMPREPLY=( $(compgen -W "$pmus" -- "$cur") )
            return 0
            ;;
        -e|--event)
            local names
            if [[ -n $pmu ]]; then
                names=$("$(_pmusim_prog)" events --pmu "$pmu" --names 2>/dev/null)
            else
                names=$("$(_pmusim_prog)" events --names 2>/dev/null)
            fi
            # complete the last event of a comma-separated list
            local head="" last=$cur
            if [[ $cur == *,* ]]; then
                head=${cur%,*},
                last=${cur##*,}
            fi
            COMPREPLY=( $(compgen -P "$head" -W "$names" -- "$last") )
            _pmusim_trim_colons "$cur"
            return 0
            ;;
        --cpu)
            if [[ $cmd == trace && $sub == capture ]]; then
                COMPREPLY=( $(compgen -W "wsm wsm_dp knm" -- "$cur") )
            else
                COMPREPLY=( $(compgen -W "$pmus" -- "$cur") )
            fi
            return 0
            ;;
        --to)
            COMPREPLY=( $(compgen -W "text binary" -- "$cur") )
            return 0
            ;;
        --workload)
            COMPREPLY=( $(compgen -W "loop stream mixed" -- "$cur") )
            return 0
            ;;
        --from)
            COMPREPLY=( $(compgen -W "lackey" -- "$cur") )
            return 0
            ;;
        --plm)
            COMPREPLY=( $(compgen -W "u k uk" -- "$cur") )
            return 0
            ;;
        -o|--output|-R|--regs|--junit|--vcd|--gtkw|--svg)
            COMPREPLY=( $(compgen -f -- "$cur") )
            return 0
            ;;
    esac
    if [[ $cur == -* ]]; then
        local opts
        if [[ -n $sub ]]; then
            opts=$(_pmusim_options trace "$sub")
        else
            opts=$(_pmusim_options "$cmd")
        fi
        COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
        return 0
    fi
    if [[ $cmd == events ]]; then
        if [[ -n $pmu ]]; then
            COMPREPLY=( $(compgen -W "$("$(_pmusim_prog)" events --pmu "$pmu" --names 2>/dev/null)" -- "$cur") )
        else
            COMPREPLY=( $(compgen -W "$("$(_pmusim_prog)" events --names 2>/dev/null)" -- "$cur") )
        fi
        _pmusim_trim_colons "$cur"
        return 0
    fi
    COMPREPLY=( $(compgen -f -- "$cur") )
    return 0
}

complete -F _pmusim pmusim
