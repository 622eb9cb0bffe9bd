#!/usr/bin/env bash
# test_words.sh: nothing a user reads or a program prints speaks of how the
# project is run: no numbered reference to an item of its to-do list, no
# "the issue" as an owner or a speaker, no trackers, no issues said to be
# filed or open, no machines said to be loaned to us (write "our H200").
# Where: every Markdown file (READMEs, docs/) and the whole text of every
# source a user reads or runs (.c .cu .cuh .h .py .sh .sbatch .mk .gdb,
# Makefiles): its string literals and, since learners read them too, its
# comments. Not checked: results/ (run files quote what the programs printed
# then), the kernel gate's corpus (9_Verification/kgate/corpus: candidates
# written by others, kept as they came), tests' fixtures, and hidden folders
# (.git; .carry and the like: git-ignored copies that are not the project's text).
# Decided on purpose: "issue" and "issues" as English stay allowed (a warp
# issues an instruction; "bank conflict issues"); only references to the
# project's own bookkeeping are refused, by the patterns below.
# Known hits in files that another change is rewriting may wait in
# tests/words.pending ("path<TAB>text", one per line), each reported; an
# entry that no longer matches a hit fails, so the list only shrinks.
# WORDS_ROOT=DIR checks another tree (the test's own checks use it).
# Ends with "word tests: N passed, M failed".
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The patterns (extended regular expressions, case-insensitive). Each word is
# split by a bracket so this file does not match itself.
patterns=(
    '\b[i]ssues? #?[0-9]+'                                  # a numbered item
    "\bthe [i]ssue'?s\b"                                    # its possessive
    '\bthe [i]ssue (asks|says|wants|requires|lists|names)'  # it as a speaker
    '\b(open|opened|closed|filed|file an?) [i]ssues?\b'     # filing them
    '\b[t]racker\b'                                         # where they are kept
    '\b[l]ent\b'                                            # a loaned machine
)

# scan ROOT: "path:line:text" of every hit under ROOT, sorted
scan() {
    local root=$1 re
    re=$(IFS='|'; echo "${patterns[*]}")
    ( cd "$root" && grep -rnIiE "$re" \
        --include='*.md' --include='*.c' --include='*.cu' --include='*.cuh' --include='*.h' \
        --include='*.py' --include='*.sh' --include='*.sbatch' --include='*.mk' --include='*.gdb' \
        --include=Makefile \
        --exclude-dir='.?*' --exclude-dir=results --exclude-dir=build --exclude-dir=bin \
        --exclude-dir=fixtures --exclude-dir=corpus . 2>/dev/null | sed 's|^\./||' | sort )
}

# ---- the scanner finds what it must and only that (a planted tree) ------------------
p=$tmp/plant
mkdir -p "$p/docs" "$p/src" "$p/results/X" "$p/tests/fixtures"
printf '%s\n' "See $(printf 'iss%s' 'ue') 12 for the target." >"$p/docs/a.md"
printf '%s\n' "The $(printf 'iss%s' "ue's") floors are 130%." >"$p/docs/b.md"
printf '%s\n' "printf(\"on the $(printf 'le%s' nt) H200\\n\");" >"$p/src/c.cu"
printf '%s\n' "echo 'filed in the $(printf 'trac%s' ker)'" >"$p/src/d.sh"
printf '%s\n' "Each thread issues four loads; bank conflict issues; the issue here is occupancy." \
    "Silent, lenient, talent." >"$p/docs/fine.md"
printf '%s\n' "$(printf 'iss%s' 'ue') 12 in a run file" >"$p/results/X/run.txt"
printf '%s\n' "$(printf 'iss%s' 'ue') 12 in a fixture" >"$p/tests/fixtures/f.md"
scan "$p" >"$tmp/plant_hits"
for f in docs/a.md docs/b.md src/c.cu src/d.sh; do
    if grep -q "^$f:" "$tmp/plant_hits"; then ok; else bad "the scan missed the planted word in $f"; fi
done
if ! grep -qE '^(docs/fine.md|results/|tests/fixtures/)' "$tmp/plant_hits"; then ok
else bad "the scan flagged allowed English or an excluded folder: $(grep -E '^(docs/fine|results/|tests/fixtures/)' "$tmp/plant_hits")"; fi

# ---- the tree ------------------------------------------------------------------------
root=${WORDS_ROOT:-.}
scan "$root" >"$tmp/hits"
pending=$root/tests/words.pending
declare -A used=()
while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    path=${hit%%:*}
    text=${hit#*:*:}
    waived=0
    if [ -f "$pending" ]; then
        while IFS=$'\t' read -r pp pt; do
            [[ -z $pp || $pp == \#* ]] && continue
            if [ "$pp" = "$path" ] && [[ $text == *"$pt"* ]]; then waived=1; used["$pp	$pt"]=1; fi
        done <"$pending"
    fi
    if [ $waived = 1 ]; then echo "pending (tests/words.pending): $hit"
    else bad "a word about how the project is run, where a user reads it: $hit"; fi
done <"$tmp/hits"
if [ -f "$pending" ]; then
    while IFS=$'\t' read -r pp pt; do
        [[ -z $pp || $pp == \#* ]] && continue
        if [ -n "${used["$pp	$pt"]:-}" ]; then ok
        else bad "tests/words.pending: '$pp	$pt' matches nothing any more: remove the line"; fi
    done <"$pending"
fi
[ "$failed" -eq 0 ] && ok

echo "word tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
