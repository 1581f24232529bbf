#!/bin/sh
# The committed pictures (docs/pictures) must be what scripts/pictures.sh
# makes now, byte for byte.  After an intended change: scripts/pictures.sh
#   pictures_check.sh PMUSIM SRCDIR
set -eu
work=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-pictures.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM HUP
"$2/scripts/pictures.sh" "$1" "$work"
failed=0
n=0
for f in "$work"/*.svg; do
    n=$((n + 1))
    name=$(basename "$f")
    if cmp -s "$f" "$2/docs/pictures/$name"; then
        echo "ok   $name"
    else
        echo "FAIL docs/pictures/$name is stale: run scripts/pictures.sh"; failed=$((failed + 1))
    fi
done
for f in "$2"/docs/pictures/*.svg; do
    [ -f "$work/$(basename "$f")" ] || { echo "FAIL $(basename "$f") is made by nothing"; failed=$((failed + 1)); }
done
echo "pictures: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
