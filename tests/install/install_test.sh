#!/bin/sh
# Packaging test (docs/INSTALL.md): installs the build into a temporary
# DESTDIR and checks what a distribution package would ship.
#   - programs written here compile and run against each installed .pc
#     (pmusim, pmusim-libpfm3, pmusim-libpfm4) with hand-checked output;
#   - every installed header compiles alone with only the installed flags;
#   - libpmusim exports exactly the functions its headers declare;
#   - SONAMEs are versioned, and nothing collides with libpfm's files
#     (libpfm.so*, <perfmon/...>, the man3 pages of libpfm3 / libpfm4-dev);
#   - every man page and alias renders without a warning (man -l, groff -ww),
#     every alias named by a NAME section exists, `man` finds them by section;
#   - every command of `pmusim --help` has its page, and every option of
#     `pmusim CMD --help` is in that page.
# usage: install_test.sh MESON BUILDDIR SOURCEDIR [SANITIZERS]
# SANITIZERS is the build's b_sanitize ("none" or e.g. "address,undefined"):
# the programs built here against a sanitized build's libraries are built
# with the same sanitizers, or the ASan runtime refuses to start.
set -u
meson=$1
build=$(cd "$2" && pwd) || exit 1
src=$(cd "$3" && pwd) || exit 1
san=${4:-none}
sanflags=""
[ "$san" = none ] || sanflags="-fsanitize=$san"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; failed=1; }
failed=0

for tool in pkg-config cc readelf nm man; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed"
done

T=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-install.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
dest=$T/dest

if ! "$meson" install -C "$build" --no-rebuild --destdir "$dest" >"$T/install.log" 2>&1; then
    cat "$T/install.log"
    echo "FAIL: meson install --destdir"
    exit 1
fi

# --- where things went -----------------------------------------------------
pc=$(find "$dest" -name pmusim.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: pmusim.pc not installed"; exit 1; }
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
prefix=$(sed -n 's/^prefix=//p' "$pc")
man=$dest$prefix/share/man
bin=$dest$prefix/bin/pmusim
[ -x "$bin" ] || fail "pmusim not installed at $bin"
version=$(sed -n 's/^Version: //p' "$pc")
[ "$("$bin" --version)" = "pmusim $version" ] || fail "installed pmusim --version: $("$bin" --version)"
[ -d "$man/man1" ] && [ -d "$man/man3" ] || fail "no man1/man3 under $man"

# Installed files must not point back into the build or source tree.
if grep -rlI -e "$build" -e "$src" "$dest" >"$T/leaks" 2>/dev/null; then
    fail "installed files name the build or source tree: $(tr '\n' ' ' <"$T/leaks")"
fi

# pkg-config: the .pc files say prefix=/usr/local (the configured prefix);
# copies with prefix pointing into DESTDIR relocate them.  (Neither
# PKG_CONFIG_SYSROOT_DIR nor --define-variable=prefix would do: both also
# change glib-2.0's flags, which are not in DESTDIR.)
mkdir "$T/pc"
for f in "$pcdir"/*.pc; do
    sed "s|^prefix=.*|prefix=$dest$prefix|" "$f" >"$T/pc/$(basename "$f")"
done
export PKG_CONFIG_PATH="$T/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pcflags() { pkg-config "$@"; }
export LD_LIBRARY_PATH="$libdir"

# The samples and documents are installed, and the installed pmusim counts
# the installed sample: wsm_loop.txt retires 200 instructions.
samples=$dest$prefix/share/pmusim/samples
docdir=$dest$prefix/share/doc/pmusim
for f in "$src"/traces/samples/*; do
    cmp -s "$f" "$samples/$(basename "$f")" || fail "sample $(basename "$f") not installed in share/pmusim/samples"
done
for f in "$src"/docs/*.md "$src"/traces/FORMAT.md "$src"/README.md; do
    [ -e "$docdir/$(basename "$f")" ] || fail "$(basename "$f") not installed in share/doc/pmusim"
done
got=$("$bin" stat -x, -e instructions "$samples/wsm_loop.txt" 2>&1)
case $got in
    200,,wsm::INSTRUCTION_RETIRED:*) ;;
    *) fail "installed pmusim stat on the installed wsm_loop.txt: $got" ;;
esac

# --- the simulator library ---------------------------------------------------
for h in "$dest$prefix"/include/pmusim/*.h; do
    printf '#include <pmusim/%s>\n' "$(basename "$h")" >"$T/hdr.c"
    cc -std=c11 -Wall -Wextra -Werror -fsyntax-only $(pcflags --cflags pmusim) "$T/hdr.c" \
        >"$T/hdr.err" 2>&1 || fail "installed header $(basename "$h") does not compile alone: $(cat "$T/hdr.err")"
done
if cc -std=c11 -Wall -Werror $sanflags -o "$T/use_pmusim" "$src/tests/install/use_pmusim.c" \
        $(pcflags --cflags --libs pmusim) 2>"$T/cc.err"; then
    # wsm_loop.txt: 200 INSN records, one instruction a cycle, so
    # INST_RETIRED.ANY_P = 200 and UNHALTED_CORE_CYCLES = 200.
    printf 'IA32_PMC0 insns 200\nIA32_PMC1 cycles 200\ncycles 200 records 200\n' >"$T/want"
    "$T/use_pmusim" "$src/traces/samples/wsm_loop.txt" >"$T/got" 2>&1 ||
        fail "use_pmusim exited $?: $(cat "$T/got")"
    cmp -s "$T/want" "$T/got" || fail "use_pmusim printed: $(cat "$T/got")"
    readelf -d "$T/use_pmusim" | grep -q 'NEEDED.*\[libpmusim\.so\.0\]' ||
        fail "use_pmusim does not need libpmusim.so.0"
else
    fail "use_pmusim.c does not build against pmusim.pc: $(cat "$T/cc.err")"
fi

# SONAMEs and development links.
soname() { readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'; }
[ "$(soname "$libdir/libpmusim.so")" = libpmusim.so.0 ] ||
    fail "libpmusim SONAME is '$(soname "$libdir/libpmusim.so")', want libpmusim.so.0"
[ "$(soname "$libdir/libpmusim-pfm3.so")" = libpmusim-pfm3.so.3 ] ||
    fail "libpmusim-pfm3 SONAME is '$(soname "$libdir/libpmusim-pfm3.so")', want libpmusim-pfm3.so.3"
for l in libpmusim.so libpmusim-pfm3.so; do
    [ -e "$libdir/$l" ] || fail "$l is not installed"
done
# every shared library is versioned: its .so name is only the link for -l
for l in "$libdir"/libpmusim*.so; do
    [ -L "$l" ] || fail "$(basename "$l") is not a symbolic link to a versioned library"
done
for l in "$libdir"/libpmusim*.so.*; do
    [ -L "$l" ] && continue
    s=$(soname "$l")
    case $s in
        *.so.[0-9]*) ;;
        *) fail "$(basename "$l") has no versioned SONAME ('$s')" ;;
    esac
    [ -e "$libdir/$s" ] || fail "no $s link for $(basename "$l")"
done

# libpmusim exports the functions and variables its headers declare, and
# nothing else (no model or encoder internals).
nm -D --defined-only "$libdir/libpmusim.so" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' |
    sort -u >"$T/exported"
grep -v '^pmusim_' "$T/exported" >"$T/foreign" && fail "libpmusim exports non-API symbols: $(tr '\n' ' ' <"$T/foreign")"
grep -q '^pmusim_x86_' "$T/exported" && fail "libpmusim exports encoder internals (pmusim_x86_*)"
cat "$dest$prefix"/include/pmusim/*.h | sed 's,/\*.*\*/,,' |
    grep -oE '^[A-Za-z_].*\bpmusim_[a-z0-9_]+ *\(' | grep -v '^ *typedef' |
    grep -oE 'pmusim_[a-z0-9_]+ *\($' | sed 's/ *($//' | sort -u >"$T/declared"
[ "$(wc -l <"$T/declared")" -gt 100 ] || fail "found only $(wc -l <"$T/declared") declarations in the headers"
comm -23 "$T/declared" "$T/exported" >"$T/missing"
[ -s "$T/missing" ] && fail "declared but not exported by libpmusim: $(tr '\n' ' ' <"$T/missing")"

# --- the libpfm faces --------------------------------------------------------
for face in libpfm3 libpfm4; do
    [ -e "$T/pc/pmusim-$face.pc" ] || continue
    for h in "$dest$prefix/include/pmusim-$face"/perfmon/*.h; do
        printf '#include <perfmon/%s>\n' "$(basename "$h")" >"$T/hdr.c"
        cc -std=c11 -Wall -Wextra -Werror -fsyntax-only $(pcflags --cflags "pmusim-$face") \
            "$T/hdr.c" >"$T/hdr.err" 2>&1 ||
            fail "installed pmusim-$face header $(basename "$h") does not compile alone: $(cat "$T/hdr.err")"
    done
done
if cc -std=c11 -Wall -Werror $sanflags -o "$T/use_pfm3" "$src/tests/install/use_pfm3.c" \
        $(pcflags --cflags --libs pmusim-libpfm3) 2>"$T/cc.err"; then
    # CPU_CYCLES (es 0x12) in PMC4: plm=8 (3:0), oi (5), pm 0 (6), es (15:8)
    # = 0x8 | 0x20 | 0x1200 = 0x1228; PMC0 is not among the outputs.
    printf 'itanium2 CPU_CYCLES\npmc4 0x1228\n' >"$T/want"
    "$T/use_pfm3" >"$T/got" 2>&1 || fail "use_pfm3 exited $?: $(cat "$T/got")"
    cmp -s "$T/want" "$T/got" || fail "use_pfm3 printed: $(cat "$T/got")"
else
    fail "use_pfm3.c does not build against pmusim-libpfm3.pc: $(cat "$T/cc.err")"
fi
if [ -e "$pcdir/pmusim-libpfm4.pc" ]; then
    if cc -std=c11 -Wall -Werror $sanflags -o "$T/use_pfm4" "$src/tests/install/use_pfm4.c" \
            $(pcflags --cflags --libs pmusim-libpfm4) 2>"$T/cc.err"; then
        # INST_RETIRED:ANY_P: event 0xc0, umask 0x01 (15:8), USR (16), OS (17),
        # INT (20), EN (22) = 0x5301c0
        printf 'count 1 code 0x5301c0\n' >"$T/want"
        LIBPFM_FORCE_PMU=wsm "$T/use_pfm4" >"$T/got" 2>&1 || fail "use_pfm4 exited $?: $(cat "$T/got")"
        cmp -s "$T/want" "$T/got" || fail "use_pfm4 printed: $(cat "$T/got")"
    else
        fail "use_pfm4.c does not build against pmusim-libpfm4.pc: $(cat "$T/cc.err")"
    fi
fi

# Nothing collides with libpfm's own files.
find "$dest" \( -name 'libpfm.so*' -o -name 'libpfm.a' -o -name 'libpfm.pc' \) >"$T/clash"
[ -s "$T/clash" ] && fail "installs libpfm's library names: $(tr '\n' ' ' <"$T/clash")"
[ -e "$dest$prefix/include/perfmon" ] && fail "installs include/perfmon (libpfm's header directory)"
# libpfm3 and libpfm4-dev pages are man3/NAME.3: every pmusim man3 page has
# a section suffix.
for f in "$man"/man3/*; do
    case $f in
        *.3pmusim3|*.3pmusim4) ;;
        *) fail "man3 page without the pmusim suffix: $(basename "$f")" ;;
    esac
done
for p in pfm_initialize pfm_terminate pfm_find_event pfm_strerror pfm_get_version \
         pfm_get_os_event_encoding pfm_dispatch_events libpfm libpfm_itanium2; do
    [ -e "$man/man3/$p.3" ] && fail "man3/$p.3 collides with libpfm's page"
done

# --- man pages ---------------------------------------------------------------
cd "$man" || exit 1
pages=$(ls man1/* man3/*)
npages=$(echo "$pages" | wc -l)
# 10 section-1 pages; 6 libpfm-3 and 9 libpfm-4 pages with 62 and 5 aliases
[ "$npages" -eq 92 ] || fail "$npages man pages installed, want 92: $(echo $pages)"
# man -l costs most of this test (about 0.15 s of CPU a page), so the pages
# go through one man, without man-db's seccomp sandbox (it only confines the
# formatters; MAN_DISABLE_SECCOMP=1 halves the cost); a page is named when
# the batch has something to say.  An alias is one line, ".so TARGET", checked
# byte for byte below, and renders as its target: man -l takes every page and
# the first alias of each target (the one that proves .so resolves); groff
# takes every alias.  PMUSIM_INSTALL_ALL_ALIASES=1 sends every alias to man -l.
render=$(awk -v all="${PMUSIM_INSTALL_ALL_ALIASES:-0}" '
    FNR == 1 {
        if ($1 != ".so") print FILENAME
        else if (all == 1 || !($2 in seen)) { seen[$2] = 1; print FILENAME }
        nextfile
    }' $pages)
export MAN_DISABLE_SECCOMP=1
if ! MANWIDTH=80 man -l $render >"$T/out" 2>"$T/err" || [ -s "$T/err" ]; then
    for f in $render; do
        MANWIDTH=80 man -l "$f" >/dev/null 2>"$T/err1" || fail "man -l $f exited $?"
        [ -s "$T/err1" ] && fail "man -l $f: $(cat "$T/err1")"
    done
    [ "$failed" = 1 ] || fail "man -l of all pages: $(cat "$T/err")"
fi
# each rendered page's title, NAME(SECTION) of its .TH, is in the output
awk 'FNR == 1 && $1 == ".so" { t = $2; while ((getline l < t) > 0) if (l ~ /^\.TH /) break; close(t); $0 = l }
     /^\.TH / { print $2 "(" $3 ")"; nextfile }' $render >"$T/titles"
[ "$(wc -l <"$T/titles")" -eq "$(echo $render | wc -w)" ] || fail "a rendered page has no .TH line"
awk 'NR == FNR { want[$0] = 1; next }
     { for (k in want) if (index($0, k)) delete want[k] }
     END { for (k in want) print k }' "$T/titles" "$T/out" >"$T/lacking"
[ -s "$T/lacking" ] && fail "man -l output lacks the titles: $(tr '\n' ' ' <"$T/lacking")"
# mandb reads the NAME lines for whatis/apropos: lexgrog must parse each
if command -v lexgrog >/dev/null 2>&1; then
    lexgrog $pages >"$T/whatis" 2>&1 || fail "lexgrog cannot parse: $(grep -v ': "' "$T/whatis")"
fi
if command -v groff >/dev/null 2>&1; then
    groff -ww -z -man $pages >"$T/err" 2>&1
    [ -s "$T/err" ] && fail "groff -ww -z -man: $(cat "$T/err")"
else
    echo "note: groff not installed, only man -l checks"
fi

# Every name of a page's NAME section has a page: the page itself or a .so
# alias to it; every function of a SYNOPSIS is in the NAME line; every .so
# points at an installed page.  (One awk over man3: a process per page is
# slow on a loaded machine.)
awk '
    FNR == 1 {
        page = FILENAME; sec = page; sub(/.*\./, "", sec)
        base = page; sub(/^man3\//, "", base); sub(/\.[^.]*$/, "", base)
        if ($1 == ".so") { alias[page] = $2; nextfile }
        insyn = 0; inname = 0
    }
    $0 == ".SH NAME" { inname = 1; next }
    inname {
        inname = 0; line = $0; sub(/ *\\-.*/, "", line); gsub(/,/, " ", line)
        n = split(line, nm, " ")
        found = 0
        for (i = 1; i <= n; i++) {
            named[page, nm[i]] = 1
            if (nm[i] == base) found = 1
            else want[++nwant] = "man3/" nm[i] "." sec "\t.so " page
        }
        if (!found) print page ": the NAME line does not name " base
    }
    $0 == ".SH SYNOPSIS" { insyn = 1; next }
    $0 == ".SH DESCRIPTION" { insyn = 0 }
    insyn {
        line = $0
        while (match(line, /pfm_[a-z0-9_]+ *\(/)) {
            fn = substr(line, RSTART, RLENGTH); sub(/ *\($/, "", fn)
            syn[page, fn] = 1; synpage[page, fn] = page
            line = substr(line, RSTART + RLENGTH)
        }
    }
    END {
        for (k in syn) {
            split(k, pf, SUBSEP)
            if (!((pf[1], pf[2]) in named))
                print pf[1] ": " pf[2] " is in the SYNOPSIS but not in the NAME line"
        }
        for (i = 1; i <= nwant; i++) {
            split(want[i], w, "\t")
            if (!(w[1] in alias)) print "no alias page " w[1] " (" w[2] ")"
            else if (".so " alias[w[1]] != w[2]) print w[1] " is \".so " alias[w[1]] "\", want \"" w[2] "\""
        }
        for (a in alias) {
            t = alias[a]
            if ((getline dummy < t) < 0) print a " points at a missing page " t
            close(t)
        }
    }' man3/* >"$T/names" 2>&1
[ -s "$T/names" ] && fail "man3 names and aliases: $(cat "$T/names")"

# Cross-references to pmusim's own pages (.BR NAME (SECTION)) lead somewhere.
grep -ohE '^\.BR [a-z0-9_-]+ \((1|3pmusim[34])\)' $pages | sed 's/^\.BR //; s/[()]//g' | sort -u |
    awk '$2 ~ /pmusim/ || $1 ~ /^pmusim/ { f = "man" substr($2, 1, 1) "/" $1 "." $2
                                          if ((getline l < f) < 0) print f; close(f) }' >"$T/xref"
[ -s "$T/xref" ] && fail "SEE ALSO names pages that are not installed: $(tr '\n' ' ' <"$T/xref")"

# man finds pages and aliases by section, in this manpath only.
w=$(MANPATH=$man man -w 3pmusim4 pfm_terminate 2>&1)
[ "$w" = "$man/man3/pfm_initialize.3pmusim4" ] || fail "man -w 3pmusim4 pfm_terminate: $w"
w=$(MANPATH=$man man -w 3pmusim3 pfm_initialize 2>&1)
[ "$w" = "$man/man3/pfm_initialize.3pmusim3" ] || fail "man -w 3pmusim3 pfm_initialize: $w"
w=$(MANPATH=$man man -w pmusim-trace 2>&1)
[ "$w" = "$man/man1/pmusim-trace.1" ] || fail "man -w pmusim-trace: $w"

# Every command has a page, and every option of its --help is in the page.
cmds=$("$bin" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p')
[ -n "$cmds" ] || fail "pmusim --help lists no command"
opts_missing() { # PAGE HELP-TEXT-FILE: the --options of the help the page lacks
    sed 's/\\-/-/g' "$1" | grep -oE -- '--[A-Za-z][A-Za-z0-9-]*' | sort -u >"$T/page-opts"
    grep -oE -- '--[A-Za-z][A-Za-z0-9-]*' "$2" | grep -vx -- --help | sort -u |
        comm -23 - "$T/page-opts" | tr '\n' ' '
}
for c in $cmds; do
    p=man1/pmusim-$c.1
    [ -e "$p" ] || { fail "command $c has no page $p"; continue; }
    sed 's/\\-/-/g' man1/pmusim.1 | grep -q "pmusim-$c (1)\|^\.BR $c " ||
        fail "pmusim(1) does not list $c"
    "$bin" "$c" --help >"$T/help" 2>&1
    m=$(opts_missing "$p" "$T/help")
    [ -n "$m" ] && fail "$p lacks options of 'pmusim $c --help': $m"
done
for s in info dump convert gen annotate; do
    "$bin" trace "$s" --help >"$T/help" 2>&1
    m=$(opts_missing man1/pmusim-trace.1 "$T/help")
    [ -n "$m" ] && fail "pmusim-trace.1 lacks options of 'pmusim trace $s --help': $m"
done
"$bin" trace capture --help -- true >"$T/help" 2>&1
m=$(opts_missing man1/pmusim-trace.1 "$T/help")
[ -n "$m" ] && fail "pmusim-trace.1 lacks options of 'pmusim trace capture --help': $m"

[ "$failed" = 0 ] && echo "install: ok ($npages man pages)"
exit "$failed"
