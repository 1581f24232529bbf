#!/bin/sh
# Runs the examples of a Markdown document and compares their output with
# what the document shows, so that the docs never drift from the tool.
#
#   doc_examples.sh [--regen] PMUSIM SRCDIR DOC.md
#
# What is run (docs/DOCTEST.md describes the conventions):
# - an indented (4-space) block whose lines start with "$ ": each "$ CMD"
#   runs in sh, and the lines up to the next "$ " line are its expected
#   standard output.  A line "..." matches any number of lines; a line that
#   ends in "..." matches any line that starts with the text before it.
#   Trailing blanks are ignored.
# - a fenced block (``` or ```sh) is run as a shell script, output unchecked.
# - a fenced block right after "<!-- file: NAME -->" is written to NAME.
# - "<!-- doctest: skip -->" skips the next block.
# - "<!-- doctest: needs TOOL -->": the rest of the document runs only when
#   TOOL is installed (a skip is reported, not a failure).
# Commands run in a fresh directory holding links to the source tree's
# traces/, tests/, docs/ and scripts/, with `pmusim` on the PATH.
# --regen rewrites the expected output of every command whose expectation
# has no "..." in DOC.md (never run by CI).
set -eu
regen=0
if [ "${1:-}" = "--regen" ]; then regen=1; shift; fi
if [ $# -ne 3 ]; then
    echo "usage: doc_examples.sh [--regen] PMUSIM SRCDIR DOC.md" >&2
    exit 2
fi
pmusim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
doc=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
work=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-doctest.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM HUP
mkdir "$work/bin" "$work/run" "$work/out"
ln -s "$pmusim" "$work/bin/pmusim"
for d in traces tests docs scripts; do ln -s "$src/$d" "$work/run/$d"; done

# 1. The document becomes a script: one step per command or block.
awk -v out="$work/out" '
function flush_cmd() {
    if (cmd != "") {
        n++
        printf "%s", expect > (out "/expect." n); close(out "/expect." n)
        printf "%s\n", cmd > (out "/cmd." n); close(out "/cmd." n)
        printf "%d\n", line > (out "/line." n); close(out "/line." n)
        cmd = ""; expect = ""
    }
}
BEGIN { n = 0; infence = 0; skip = 0; file = ""; cmd = "" }
infence {
    if ($0 ~ /^```/) {
        infence = 0
        if (!skip) {
            n++
            if (file != "") printf "cat > %s <<'\''PMUSIM_DOC_EOF'\''\n%sPMUSIM_DOC_EOF\n", file, body > (out "/block." n)
            else printf "%s", body > (out "/block." n)
            close(out "/block." n)
            printf "%d\n", bline > (out "/line." n); close(out "/line." n)
        }
        skip = 0; file = ""; body = ""
        next
    }
    body = body $0 "\n"; next
}
/^<!-- doctest: skip -->/ { skip = 1; next }
/^<!-- doctest: needs [^ ]+ -->/ {
    flush_cmd(); n++
    printf "%s\n", $4 > (out "/needs." n); close(out "/needs." n)
    printf "%d\n", NR > (out "/line." n); close(out "/line." n)
    next
}
/^<!-- file: [^ ]+ -->/ { file = $3; next }
/^```/ {
    flush_cmd()
    lang = substr($0, 4)
    infence = 1; bline = NR; body = ""
    if (lang != "" && lang != "sh" && file == "") skip = 1
    next
}
/^    \$ / {
    flush_cmd()
    if (skip) { next }
    cmd = substr($0, 7); line = NR; expect = ""; incmd = 1
    next
}
/^    / && cmd != "" { expect = expect substr($0, 5) "\n"; next }
/^$/ && cmd != "" { expect = expect "\n"; next }
{ flush_cmd(); if ($0 !~ /^$/) skip = skip && 0 }
END { flush_cmd(); print n > (out "/count") }
' "$doc"

# 2. Run every step in order; compare command outputs.
total=$(cat "$work/out/count")
failed=0
i=1
cd "$work/run"
while [ "$i" -le "$total" ]; do
    line=$(cat "$work/out/line.$i")
    if [ -f "$work/out/needs.$i" ]; then
        tool=$(cat "$work/out/needs.$i")
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "SKIP $doc:$line: the rest of the document needs $tool"
            break
        fi
    elif [ -f "$work/out/block.$i" ]; then
        if ! PATH="$work/bin:$PATH" sh "$work/out/block.$i" > "$work/out/actual.$i" 2>&1; then
            echo "FAIL $doc:$line: the block failed:"; sed 's/^/  | /' "$work/out/actual.$i"
            failed=$((failed + 1))
        fi
    else
        PATH="$work/bin:$PATH" sh -c "$(cat "$work/out/cmd.$i")" > "$work/out/actual.$i" 2>&1 || true
        # the expectation ends with the blank lines that separate blocks
        sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$work/out/expect.$i" | sed 's/[ \t]*$//' > "$work/out/e.$i"
        sed 's/[ \t]*$//' "$work/out/actual.$i" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$work/out/a.$i"
        if ! awk -v ef="$work/out/e.$i" -v af="$work/out/a.$i" '
            function match_from(ei, ai,   k) {
                if (ei > ne) return ai > na
                if (E[ei] == "...") {
                    for (k = ai; k <= na + 1; k++) if (match_from(ei + 1, k)) return 1
                    return 0
                }
                if (ai > na) return 0
                if (E[ei] ~ /\.\.\.$/ && index(A[ai], substr(E[ei], 1, length(E[ei]) - 3)) == 1)
                    return match_from(ei + 1, ai + 1)
                if (E[ei] != A[ai]) return 0
                return match_from(ei + 1, ai + 1)
            }
            BEGIN {
                while ((getline l < ef) > 0) E[++ne] = l
                while ((getline l < af) > 0) A[++na] = l
                exit(match_from(1, 1) ? 0 : 1)
            }'; then
            echo "FAIL $doc:$line: \$ $(cat "$work/out/cmd.$i")"
            diff -u "$work/out/e.$i" "$work/out/a.$i" | sed -n '3,40p' | sed 's/^/  /' || true
            failed=$((failed + 1))
        fi
    fi
    i=$((i + 1))
done

if [ "$regen" -eq 1 ]; then
    # replace expectations without "..." by the actual output
    awk -v out="$work/out" -v total="$total" '
    BEGIN {
        for (i = 1; i <= total; i++) {
            f = out "/line." i; getline ln < f; close(f)
            if ((getline c < (out "/cmd." i)) > 0) {
                close(out "/cmd." i)
                e = ""; while ((getline l < (out "/e." i)) > 0) e = e l "\n"; close(out "/e." i)
                if (e ~ /(^|\n)\.\.\.(\n|$)/ || e ~ /\.\.\.\n/) continue
                at[ln] = i
            }
        }
    }
    {
        if (NR in at) {
            print; i = at[NR]
            while ((getline l < (out "/a." i)) > 0) print (l == "" ? "" : "    " l)
            close(out "/a." i)
            skipping = 1; next
        }
        if (skipping) {
            if ($0 ~ /^    \$ / || ($0 !~ /^    / && $0 !~ /^$/)) { skipping = 0 }
            else next
            if ($0 !~ /^    \$ /) print ""
        }
        print
    }' "$doc" > "$work/regen.md" && cp "$work/regen.md" "$doc"
    echo "regenerated $doc"
fi

echo "$doc: $total steps, $failed failed"
[ "$failed" -eq 0 ]
