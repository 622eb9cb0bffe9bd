#!/usr/bin/env bash
# check_results.sh [DIR...]: the committed figures must be physically possible
# and the figures quoted in prose must say where they come from.
#
# 1. No figure above its peak. Every record under DIR (default results/) is
#    read: RESULT lines (pct_peak=V), JSON lines and results.json files
#    ("pct_peak":V), CSV output (the pct_peak column, found by its header);
#    and the generated tables of the sample READMEs (the "% of peak" column
#    between <!-- results:begin --> and <!-- results:end -->). Any value
#    above 100 fails: it is a measurement error (a cache, the wrong peak),
#    never a result.
#    A file that is known to be wrong and waits for a re-measurement lives in
#    a folder named stale/ whose README.md names it and says why; those are
#    skipped (a stale/ file that the README does not name is an error).
#    A run file that `make bench` has since replaced, kept because a lab
#    report still analyses it, lives unchanged in history/<commit>/ (the
#    commit of the run) and is cited there; its "# commit:" header must
#    start with that folder's name, so the archive holds the run it says.
# 2. Prose citations. Figures typed into READMEs and source comments are
#    copied from a results file and cite it as
#        results/<GPU>/<file>.txt, commit <hash>
#    (the commit its header records). Every such citation in the tracked
#    *.md, *.cu, *.cuh, *.c and *.h files must name a file that exists and
#    whose "# commit:" header starts with that hash: when `make bench`
#    replaces the file, the quotes that are now stale are listed here.
# Exit 0 when both hold, 1 otherwise; one line per problem, then a summary.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(results)

problems=0
records=0
files=0

# pct_values FILE: "line<TAB>value<TAB>what" for every pct_peak in FILE
pct_values() {
    awk '
    function emit(v, what) { gsub(/[" ]/, "", v); if (v != "" && v != "null") printf "%d\t%s\t%s\n", FNR, v, what }
    /^RESULT / {
        what = ""
        for (i = 2; i <= NF; i++) if ($i ~ /^variant=/) what = $i
        for (i = 2; i <= NF; i++) if ($i ~ /^pct_peak=/) emit(substr($i, 10), what)
        next
    }
    /"pct_peak":/ {
        s = $0
        while ((p = index(s, "\"pct_peak\":")) > 0) {
            s = substr(s, p + 11)
            v = s
            sub(/[,}].*/, "", v)
            emit(v, "json")
        }
        next
    }
    /^sample,/ && /(^|,)pct_peak(,|$)/ {   # a CSV header: remember the column
        n = split($0, h, ",")
        col = 0; vcol = 0
        for (i = 1; i <= n; i++) { if (h[i] == "pct_peak") col = i; if (h[i] == "variant") vcol = i }
        ncols = n
        next
    }
    col > 0 && !/^#/ {
        n = split($0, c, ",")
        if (n == ncols) emit(c[col], "variant=" c[vcol])
    }' "$1"
}

# table_values README: the same for the "% of peak" column of the generated table
table_values() {
    awk -F'|' '
    /<!-- results:begin -->/ { inside = 1; col = 0; next }
    /<!-- results:end -->/ { inside = 0; next }
    inside && /^\|/ {
        if (col == 0) { for (i = 1; i <= NF; i++) { t = $i; gsub(/^ +| +$/, "", t); if (t == "% of peak") col = i } ; next }
        v = $col; gsub(/ /, "", v)
        w = $2; gsub(/^ +| +$/, "", w)
        if (v ~ /[0-9]/ && v ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/) printf "%d\t%s\tvariant=%s\n", NR, v, w
    }' "$1"
}

check_values() {  # FILE: values on stdin
    local f=$1 line v what
    while IFS=$'\t' read -r line v what; do
        records=$((records + 1))
        if ! [[ $v =~ ^[+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] ||
            awk -v v="$v" 'BEGIN { exit !(v + 0 > 100) }'; then
            echo "results: $f:$line: $what pct_peak=$v is above 100% of the peak: a wrong measurement, not a figure"
            problems=$((problems + 1))
        fi
    done
}

for d in "${dirs[@]}"; do
    [ -e "$d" ] || { echo "results: $d: no such folder"; problems=$((problems + 1)); continue; }
    while IFS= read -r f; do
        case /$f/ in
            */stale/*)
                sd=${f%/stale/*}/stale
                if [ ! -f "$sd/README.md" ]; then
                    echo "results: $f: in a stale/ folder without a README.md saying why"
                    problems=$((problems + 1))
                elif [ "$(basename "$f")" != README.md ] && ! grep -qF "$(basename "$f")" "$sd/README.md"; then
                    echo "results: $f: stale, but $sd/README.md does not name it (say why it is stale)"
                    problems=$((problems + 1))
                fi
                continue ;;
            */history/*)
                hd=${f#*/history/}; hd=${hd%%/*}
                have=$(sed -n 's/^# commit: \([0-9a-f]*\).*/\1/p' "$f" | head -n1)
                case $f in *.txt) ;; *) have=$hd ;; esac   # JSON twins carry no header
                if ! [[ $hd =~ ^[0-9a-f]{7,40}$ ]] || [ -z "$have" ] ||
                    [[ $have != "$hd"* && $hd != "$have"* ]]; then
                    echo "results: $f: in history/$hd/, but its header holds commit ${have:-?}: a history folder is named after the commit of the run it keeps"
                    problems=$((problems + 1))
                fi ;;
        esac
        files=$((files + 1))
        check_values "$f" < <(pct_values "$f")
    done < <(find "$d" -type f \( -name '*.txt' -o -name '*.json' -o -name '*.csv' \) | sort)
done
if [ $# -eq 0 ]; then
    for readme in [0-8]_*/*/README.md; do
        [ -f "$readme" ] || continue
        files=$((files + 1))
        check_values "$readme" < <(table_values "$readme")
    done
fi

# Citations: results/<...>.txt, commit <hash>
# cite_lines: "file:line:text" for every line of the sources that names a results
# file, and, where a citation is wrapped onto the next line (after ".txt," or
# ", commit", as paragraphs and comments wrap), the start joined with that next
# line, its indentation and comment marker dropped: a wrapped citation is checked too
cite_lines() {
    grep -rlE --include='*.md' --include='*.cu' --include='*.cuh' --include='*.c' --include='*.h' \
        'results/[A-Za-z0-9_./-]+\.txt' --exclude-dir=build --exclude-dir=bin --exclude-dir=.git . 2>/dev/null |
    sed 's|^\./||' | while IFS= read -r f; do
        awk -v f="$f" '
            pending != "" {
                t = $0; sub(/^[ \t]*(\*|\/\/|#|>)?[ \t]*/, "", t)
                print f ":" pl ":" pending " " t; pending = ""
            }
            /results\/[A-Za-z0-9_.\/-]+\.txt/ { print f ":" FNR ":" $0 }
            match($0, /results\/[A-Za-z0-9_.\/-]+\.txt(,|, commit)[ \t]*$/) {
                pending = substr($0, RSTART); sub(/[ \t]+$/, "", pending); pl = FNR
            }' "$f"
    done
}
citations=0
while IFS= read -r hit; do
    src=${hit%%:*}
    rest=${hit#*:}
    lineno=${rest%%:*}
    text=${rest#*:}
    while [[ $text =~ (results/[A-Za-z0-9_./-]+\.txt),\ commit\ ([0-9a-f]{7,40}) ]]; do
        path=${BASH_REMATCH[1]}
        hash=${BASH_REMATCH[2]}
        text=${text#*"${BASH_REMATCH[0]}"}
        citations=$((citations + 1))
        if [ ! -f "$path" ]; then
            echo "results: $src:$lineno: cites $path, which does not exist"
            problems=$((problems + 1))
            continue
        fi
        have=$(sed -n 's/^# commit: \([0-9a-f]*\).*/\1/p' "$path" | head -n1)
        if [ -z "$have" ] || [[ $have != "$hash"* && $hash != "$have"* ]]; then
            echo "results: $src:$lineno: cites $path at commit $hash, but the file now holds commit ${have:-?}: the quoted figures are stale (copy them again, with the new commit; or, where a lab report analyses that run, cite its unchanged file in history/$hash/)"
            problems=$((problems + 1))
        fi
    done
done < <(cite_lines)

echo "results: $records pct_peak values in $files files, $citations citations of results files: $problems problem(s)"
[ $problems -eq 0 ]
