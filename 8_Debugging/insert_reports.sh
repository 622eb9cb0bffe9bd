#!/usr/bin/env bash
# 8_Debugging/insert_reports.sh: put every captured report into its README.
#
#   8_Debugging/insert_reports.sh            rewrite the report blocks of every README
#   8_Debugging/insert_reports.sh --check    exit 1 if a README is not up to date (tests)
#   8_Debugging/insert_reports.sh DIR...     other folders (tests use a scratch copy)
#
# In a README, a block
#     <!-- report:NAME:begin -->
#     ...
#     <!-- report:NAME:end -->
# is filled from the folder's `captures` file and reports/NAME.txt (written by
# capture.sh on a GPU machine): a fenced text block with the report as
# captured (its first line names the date, GPU, driver, compute-sanitizer
# version and commit, its second the command, its last the exit status).
# Before a capture exists the block shows the command and says so. A report
# longer than 80 lines is shown as its first 55 and last 15 lines, with the
# number of lines left out; the whole report stays in reports/NAME.txt.
# A NAME that the captures file does not define, or a begin without its end,
# is an error (exit 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
check=0
dirs=()
for a in "$@"; do
    case $a in
    --check) check=1 ;;
    -*) echo "insert_reports: unknown option '$a'" >&2; exit 2 ;;
    *) dirs+=("$a") ;;
    esac
done
if [ ${#dirs[@]} -eq 0 ]; then
    dirs=("$here")
    for d in "$here"/*/; do [ -f "$d/README.md" ] && dirs+=("${d%/}"); done
fi

HEAD_LINES=55
TAIL_LINES=15
MAX_LINES=80
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
stale=0

for d in "${dirs[@]}"; do
    readme=$d/README.md
    [ -f "$readme" ] || continue
    names=$(grep -o '<!-- report:[a-z0-9_]*:begin -->' "$readme" | sed 's/<!-- report:\(.*\):begin -->/\1/')
    [ -n "$names" ] || continue
    if [ ! -f "$d/captures" ]; then
        echo "insert_reports: $readme has report blocks but $d/captures is missing" >&2
        status=1
        continue
    fi
    blocks=$tmp/blocks
    rm -rf "$blocks" && mkdir -p "$blocks"
    bad=0
    for name in $names; do
        cmd=$(sed -n "s/^$name:[[:space:]]\{1,\}//p" "$d/captures" | head -n1)
        if [ -z "$cmd" ]; then
            echo "insert_reports: $readme: report '$name' is not defined in $d/captures" >&2
            bad=1
            continue
        fi
        report=$d/reports/$name.txt
        {
            echo '```text'
            if [ -f "$report" ]; then
                n=$(wc -l <"$report")
                if [ "$n" -gt $MAX_LINES ]; then
                    head -n $HEAD_LINES "$report"
                    echo "[... $((n - HEAD_LINES - TAIL_LINES)) lines left out here; the whole report: reports/$name.txt ...]"
                    tail -n $TAIL_LINES "$report"
                else
                    cat "$report"
                fi
            else
                echo "\$ $cmd"
                echo "(not captured yet: run 8_Debugging/capture.sh on a GPU machine)"
            fi
            echo '```'
        } >"$blocks/$name"
    done
    if [ $bad = 1 ]; then status=1; continue; fi
    if ! awk -v dir="$blocks" -v file="$readme" '
        match($0, /<!-- report:[a-z0-9_]+:begin -->/) {
            if (skip) { printf "%s:%d: a report block begins inside block %s\n", file, NR, name > "/dev/stderr"; err = 1; exit 1 }
            name = substr($0, RSTART + 12, RLENGTH - 22)
            print
            f = dir "/" name
            while ((getline l < f) > 0) print l
            close(f)
            skip = 1; want = "<!-- report:" name ":end -->"; start = NR
            next
        }
        /<!-- report:[a-z0-9_]+:end -->/ {
            if (!skip || index($0, want) == 0) { printf "%s:%d: an end marker without its begin\n", file, NR > "/dev/stderr"; err = 1; exit 1 }
            skip = 0; print; next
        }
        !skip { print }
        END {
            if (!err && skip) { printf "%s:%d: report block %s has no end marker\n", file, start, name > "/dev/stderr"; exit 1 }
        }' "$readme" >"$tmp/new"; then
        status=1
        continue
    fi
    if cmp -s "$tmp/new" "$readme"; then continue; fi
    if [ $check = 1 ]; then
        echo "insert_reports: $readme is not up to date: run 8_Debugging/insert_reports.sh" >&2
        stale=1
    else
        cp "$tmp/new" "$readme"
        echo "insert_reports: updated $readme"
    fi
done
[ $status = 0 ] && [ $stale = 0 ]
