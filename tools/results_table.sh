#!/usr/bin/env bash
# results_table.sh RESULTS_DIR: for each RESULTS_DIR/<sample>.txt written by
# bench.sh, render its RESULT lines as a Markdown table and put it in the
# sample's README.md between the markers
#     <!-- results:begin -->  and  <!-- results:end -->
# (a README without the markers is left alone).
set -eu
cd "$(dirname "$0")/.."
dir=$1

table() {  # $1 = results file
    awk '
    /^# (gpu|driver|cuda|date|commit|command):/ { sub(/^# /, ""); meta = meta (meta == "" ? "" : ", ") $0; next }
    /^RESULT / {
        # keys in the order the sample printed them; size keys are the ones
        # between variant and status (n, or m n k, or bytes ...)
        size = ""; insize = 0
        delete kv
        for (i = 2; i <= NF; i++) {
            eq = index($i, "="); k = substr($i, 1, eq - 1); v = substr($i, eq + 1); kv[k] = v
            if (k == "status") insize = 0
            if (insize) size = size (size == "" ? "" : " ") k "=" v
            if (k == "variant") insize = 1
        }
        unit = ("gflops" in kv) ? "GFLOP/s" : "GB/s"
        val = ("gflops" in kv) ? kv["gflops"] : kv["gbps"]
        rows[++n] = "| " kv["variant"] " | " size " | " kv["status"] " | " kv["time_ms"] " | " val " " unit \
                    " | " (("pct_peak" in kv) ? kv["pct_peak"] : "-") " | " \
                    (("pct_ref" in kv) ? kv["pct_ref"] "% of " kv["ref"] : "-") " |"
    }
    !/^# (gpu|driver|cuda|date|commit|command|exit):/ { out[++m] = $0 }
    END {
        print "Measured: " meta "."
        print ""
        if (n == 0) {  # a sample without RESULT lines (deviceQuery): its output
            print "```"
            for (i = 1; i <= m; i++) print out[i]
            print "```"
            exit
        }
        print "| variant | size | status | time (ms, median) | throughput | % of peak | vs reference |"
        print "|---|---|---|---|---|---|---|"
        for (i = 1; i <= n; i++) print rows[i]
    }' "$1"
}

for f in "$dir"/*.txt; do
    s=$(basename "$f" .txt)
    readme=$(ls [0-8]_*/"$s"/README.md 2>/dev/null | head -n1)
    [ -n "$readme" ] || continue
    grep -q '<!-- results:begin -->' "$readme" || continue
    t=$(mktemp)
    table "$f" >"$t"
    awk -v tf="$t" '
        /<!-- results:begin -->/ { print; while ((getline line < tf) > 0) print line; skip = 1; next }
        /<!-- results:end -->/ { skip = 0 }
        !skip' "$readme" >"$readme.new"
    mv "$readme.new" "$readme"
    rm -f "$t"
    echo "results table updated: $readme"
done
