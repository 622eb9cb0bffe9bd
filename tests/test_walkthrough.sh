#!/usr/bin/env bash
# test_walkthrough.sh: README.md's "Your first kernel in ten minutes" works as
# written. The commands and the edit are read from README.md between
# <!-- walkthrough:begin --> and <!-- walkthrough:end --> (so the test and
# the README cannot drift) and followed in a scratch copy of the tree:
#   - each ```sh line runs in order (the clone line is the copy itself), and
#     each prints what its comment in the README says: the build makes
#     bin/firstKernel; the run ends PASS with a GPU, WAIVED without; the first
#     `make try` says FAIL, the one after the edit PASS;
#   - the ```diff block is the edit: its - line must occur exactly once in
#     the file the text names, and is replaced by its + line.
# And the README keeps its promises elsewhere: every `make try SAMPLE=x EX=n`
# it shows names an exercise that exists, and every CPU simulator in the tree
# (<sample>/tests/cpu_sim/run.sh) is listed in README.md and in `make help`.
# WALKTHROUGH_README=FILE reads another README (the test's own check that a
# wrong edit is caught). Ends with "walkthrough tests: N passed, M failed".
set -u
cd "$(dirname "$0")/.."
root=$PWD
readme=${WALKTHROUGH_README:-README.md}
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${HAVE_GPU:-}" ]; then
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then HAVE_GPU=1; else HAVE_GPU=0; fi
fi

# ---- the walkthrough, as README.md writes it ------------------------------------
sed -n '/<!-- walkthrough:begin -->/,/<!-- walkthrough:end -->/p' "$readme" >"$tmp/block"
if [ -s "$tmp/block" ] && grep -q 'walkthrough:end' "$tmp/block"; then ok
else bad "$readme has no walkthrough between <!-- walkthrough:begin --> and <!-- walkthrough:end -->"; fi
# steps: "cmd<TAB>command<TAB>comment" and "edit<TAB>file<TAB>-line<TAB>+line", in order
awk -F'\n' '
    /^```sh/ { fence = "sh"; next }
    /^```diff/ { fence = "diff"; minus = ""; plus = ""; next }
    /^```/ { if (fence == "diff") printf "edit\t%s\t%s\t%s\n", file, minus, plus; fence = ""; next }
    fence == "sh" && /[^[:space:]]/ {
        line = $0; comment = ""
        if (match(line, /[[:space:]]+# /)) { comment = substr(line, RSTART + RLENGTH); line = substr(line, 1, RSTART - 1) }
        printf "cmd\t%s\t%s\n", line, comment; next
    }
    fence == "diff" && /^-/ { minus = substr($0, 2); next }
    fence == "diff" && /^\+/ { plus = substr($0, 2); next }
    fence == "" { while (match($0, /`[^`]+\.cuh`/)) { file = substr($0, RSTART + 1, RLENGTH - 2); $0 = substr($0, RSTART + RLENGTH) } }
' "$tmp/block" >"$tmp/steps"

# the scratch copy: what the walkthrough touches, as the repository has it
s=$tmp/clone
mkdir -p "$s/0_Simple"
cp -r Makefile README.md common tools docs "$s/"
cp -r 0_Simple/firstKernel "$s/0_Simple/"
mkdir -p "$s/tests" && cp -r tests/support "$s/tests/"   # the CPU simulator's shared part
rm -rf "$s/0_Simple/firstKernel/build"

n_cmd=0
tries=0
clone=0
while IFS=$'\t' read -r kind a b c; do
    if [ "$kind" = edit ]; then
        f=$s/$a
        if [ -z "$a" ] || [ ! -f "$f" ]; then bad "the edit names no file that exists: '$a'"; continue; fi
        k=$(grep -cxF -- "$b" "$f")
        if [ "$k" = 1 ] && [ -n "$c" ]; then ok
        else bad "the edit's - line occurs $k times in $a (want once), or it has no + line: '$b'"; continue; fi
        python3 - "$f" "$b" "$c" <<'EOF'
import sys
path, old, new = sys.argv[1:4]
text = open(path).read()
open(path, "w").write(text.replace(old + "\n", new + "\n", 1))
EOF
        continue
    fi
    cmd=$a comment=$b
    case $cmd in
        "git clone "*) clone=1; continue ;;   # the scratch copy stands in for the clone
    esac
    n_cmd=$((n_cmd + 1))
    ( cd "$s" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS bash -c "$cmd" ) >"$tmp/out" 2>&1
    rc=$?
    last=$(grep -v '^[[:space:]]*$' "$tmp/out" | tail -n1)
    case $cmd in
        "make firstKernel")
            if [ $rc -eq 0 ] && [ -x "$s/bin/firstKernel" ]; then ok
            else bad "'$cmd': exit $rc, no bin/firstKernel: $(tail -n3 "$tmp/out")"; fi ;;
        "bin/firstKernel"*)
            if { [ "$HAVE_GPU" = 1 ] && [ $rc -eq 0 ] && [ "$last" = "firstKernel: PASS" ]; } \
                || { [ "$HAVE_GPU" = 0 ] && [ $rc -eq 2 ] && [[ $last == "firstKernel: WAIVED ("* ]]; }; then ok
            else bad "'$cmd': exit $rc, last line '$last' (GPU: $HAVE_GPU)"; fi
            if [[ $comment == *"firstKernel: PASS"* ]] && [[ $comment == *WAIVED* ]]; then ok
            else bad "the README's comment on '$cmd' does not say what it prints (PASS, WAIVED without a GPU): '$comment'"; fi ;;
        "make try "*)
            tries=$((tries + 1))
            verdict=$(grep -E '^try firstKernel ex1' "$tmp/out" | tail -n1)
            if [ $tries -eq 1 ]; then want=FAIL; else want=PASS; fi
            if [[ $verdict == "try firstKernel ex1: $want"* ]] && { { [ $want = PASS ] && [ $rc -eq 0 ]; } || { [ $want = FAIL ] && [ $rc -ne 0 ]; }; }; then ok
            else bad "'$cmd' (run $tries): exit $rc, verdict '$verdict', want $want: $(tail -n4 "$tmp/out")"; fi
            if [[ $comment == *$want* ]]; then ok
            else bad "the README's comment on '$cmd' (run $tries) does not say $want: '$comment'"; fi ;;
        *)
            bad "the walkthrough has a command this test does not know how to check: '$cmd' (teach tests/test_walkthrough.sh)" ;;
    esac
done <"$tmp/steps"
if [ $clone -eq 1 ] && [ $n_cmd -eq 4 ] && [ $tries -eq 2 ] && grep -q '^edit' "$tmp/steps"; then ok
else bad "the walkthrough is not: clone, make firstKernel, run, make try, edit, make try (clone $clone, $n_cmd commands, $tries tries)"; fi

# ---- the README's other promises ----------------------------------------------------
while read -r sample ex; do
    if ls "$root"/[0-8]_*/"$sample"/exercises/ex"${ex}"_*.cuh >/dev/null 2>&1; then ok
    else bad "$readme shows 'make try SAMPLE=$sample EX=$ex', but there is no such exercise"; fi
done < <(grep -oE 'make try SAMPLE=[A-Za-z0-9_]+ EX=[0-9]+' "$readme" | sed -E 's/make try SAMPLE=([^ ]+) EX=([0-9]+)/\1 \2/' | sort -u)
env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory help >"$tmp/help" 2>&1
for sim in [0-8]_*/*/tests/cpu_sim/run.sh; do
    [ -f "$sim" ] || continue
    if grep -qF "$sim" "$readme" && grep -qF "$sim" "$tmp/help"; then ok
    else bad "$sim (a CPU simulator) is not in $readme's \"No GPU?\" and in make help"; fi
done

echo "walkthrough tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
