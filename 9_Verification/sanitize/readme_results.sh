#!/usr/bin/env bash
# readme_results.sh OUT_DIR [ROOT]: fill the results tables of
# 9_Verification/sanitize/README.md (every run: one row per run, one column
# per tool) and 9_Verification/planted/README.md (the planted runs, with
# what was found) from OUT_DIR/summary.txt, the summary a `make verify` run
# wrote (e.g. VERIFY_ARGS=--out=results/H200/sanitize make verify). The
# tables go between the markers <!-- results:begin --> and
# <!-- results:end -->, headed by the run's date, commit, sanitizer version
# and command. ROOT is the repository root (default: this script's).
set -eu
out=${1:?usage: readme_results.sh OUT_DIR [ROOT]}
root=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
summary=$out/summary.txt
[ -f "$summary" ] || { echo "readme_results: no $summary (run make verify with --out=$out first)" >&2; exit 1; }

# rows: run tool verdict time detections (between the table's header and the first blank line)
rows() {
    awk '/^run +tool +verdict/ { on = 1; next } on && /^$/ { exit } on { print }' "$summary"
}
measured() {
    awk 'NR == 1 { sub(/^# compute-sanitizer over the suite: /, ""); m = $0 }
         NR == 2 { sub(/^# /, ""); c = $0 }
         END { printf "Measured: %s; command: `%s` (%s).\n", m, c, FILENAME }' "$summary"
}

suite_table() {
    measured
    echo
    echo "| run | memcheck | racecheck | initcheck | synccheck |"
    echo "|---|---|---|---|---|"
    rows | awk '
        { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } v[$1, $2] = $3 }
        END {
            split("memcheck racecheck initcheck synccheck", t, " ")
            for (i = 1; i <= n; i++) {
                line = "| " order[i]
                for (k = 1; k <= 4; k++) line = line " | " ((order[i], t[k]) in v ? v[order[i], t[k]] : "-")
                print line " |"
            }
        }'
    echo
    grep -m1 '^sanitize: [0-9]* runs:' "$summary" | sed 's/^/Total: /'
}

planted_table() {
    measured
    echo
    echo "| run | tool | verdict | time (s) | found |"
    echo "|---|---|---|---|---|"
    rows | awk '$1 ~ /^planted_/ {
        d = ""; for (i = 5; i <= NF; i++) d = d (d == "" ? "" : " ") $i
        printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, d }'
}

fill() {  # $1 = README, $2 = file holding the table
    awk -v tf="$2" '
        /<!-- results:begin -->/ { print; while ((getline line < tf) > 0) print line; skip = 1; next }
        /<!-- results:end -->/ { skip = 0 }
        !skip' "$1" >"$1.new"
    mv "$1.new" "$1"
    echo "results table updated: $1"
}

t=$(mktemp)
trap 'rm -f "$t"' EXIT
suite_table >"$t"
fill "$root/9_Verification/sanitize/README.md" "$t"
planted_table >"$t"
fill "$root/9_Verification/planted/README.md" "$t"
