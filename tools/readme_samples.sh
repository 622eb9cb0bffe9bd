#!/usr/bin/env bash
# readme_samples.sh [--check]: regenerate the table of samples in README.md
# (between <!-- samples:begin --> and <!-- samples:end -->) from the sample
# folders themselves: folder, and the first sentence of its README.md.
# --check exits 1 if README.md is out of date (used by the tests).
set -eu
cd "$(dirname "$0")/.."
t=$(mktemp)
{
    echo "| sample | folder | what it teaches |"
    echo "|---|---|---|"
    for d in $(MAKEFLAGS= make -s --no-print-directory list); do
        summary="(no README.md)"
        if [ -f "$d/README.md" ]; then
            # the first paragraph after the title, up to its first full stop
            summary=$(awk '/^#/ && !started { next } /^[[:space:]]*$/ { if (started) exit; next }
                           { started = 1; printf "%s ", $0 }' "$d/README.md" |
                      sed -E 's/^[[:space:]]+//; s/([.!?])[[:space:]].*/\1/; s/[[:space:]]+$//; s/\|/\\|/g')
        fi
        echo "| [$(basename "$d")]($d/) | \`$(dirname "$d")\` | $summary |"
    done
} >"$t"
new=$(mktemp)
awk -v tf="$t" '
    /<!-- samples:begin -->/ { print; while ((getline line < tf) > 0) print line; skip = 1; next }
    /<!-- samples:end -->/ { skip = 0 }
    !skip' README.md >"$new"
rm -f "$t"
if [ "${1:-}" = --check ]; then
    if cmp -s "$new" README.md; then rm -f "$new"; echo "README.md sample table is up to date"; exit 0; fi
    rm -f "$new"
    echo "README.md sample table is out of date: run make readme"
    exit 1
fi
mv "$new" README.md
