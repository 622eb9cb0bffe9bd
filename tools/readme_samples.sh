#!/usr/bin/env bash
# readme_samples.sh [--check]: regenerate the table of samples in README.md
# (between <!-- samples:begin --> and <!-- samples:end -->) from the sample
# folders themselves: folder, and the first non-heading line of its README.md.
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
            summary=$(grep -v '^#' "$d/README.md" | grep -v '^\s*$' | head -n1)
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
    echo "README.md sample table is out of date: run tools/readme_samples.sh"
    exit 1
fi
mv "$new" README.md
