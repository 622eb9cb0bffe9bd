#!/bin/sh
# results_table.sh LOG [README]: turn matrixMul's RESULT lines (from a real
# run, e.g. `bin/matrixMul | tee LOG`) into the Markdown results table; with
# README, replace what lies between its <!-- results:begin --> and
# <!-- results:end --> markers (the header lines starting with "# " in LOG,
# e.g. the device line, are kept above the table). Never type figures by hand.
set -e
log=$1
[ -f "$log" ] || { echo "usage: $0 LOG [README]" >&2; exit 1; }
table=$(awk '
    /^# device/ { print substr($0, 3) "  " }
    /^RESULT / && / sample=matrixMul / {
        delete f
        for (i = 2; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
        if (!hdr) {
            print ""
            print "| variant | M x N x K | status | median ms | GFLOP/s | % FP32 peak | % cuBLAS |"
            print "|---|---|---|---|---|---|---|"
            hdr = 1
        }
        printf "| %s | %sx%sx%s | %s | %s | %s | %s | %s |\n", f["variant"], f["m"], f["n"], f["k"],
               f["status"], ("time_ms" in f) ? f["time_ms"] : "-", ("gflops" in f) ? f["gflops"] : "-",
               ("pct_peak" in f) ? f["pct_peak"] : "-", ("pct_ref" in f) ? f["pct_ref"] : "-"
    }' "$log")
if [ -z "$2" ]; then
    printf '%s\n' "$table"
    exit 0
fi
tmp=$2.tmp.$$
awk -v table="$table" '
    /<!-- results:begin -->/ { print; print table; skip = 1; next }
    /<!-- results:end -->/ { skip = 0 }
    !skip { print }' "$2" > "$tmp"
mv "$tmp" "$2"
