#!/usr/bin/env bash
# test_mutants.sh: the mutation-test tool (tools/mutants.sh) and the mutants
# files of every sample, on the CPU.
#   - every sample folder's mutants file parses and every mutant applies to
#     the tree as it is (find occurs exactly once): `tools/mutants.sh --check`
#   - the tool itself, on a fake tree whose "sample" is a shell script (its
#     Makefile copies it; no compiler, no GPU): every verdict (killed,
#     SURVIVED, crash, timeout, build error, stale, control failed), the
#     exit codes, the escapes, comments, run:/args:, and the errors a
#     malformed file must give
# Ends with "mutants tests: N passed, M failed".
set -u
unset MAKEFLAGS MFLAGS MAKELEVEL
cd "$(dirname "$0")/.."
ROOT=$PWD
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A fake sample's run takes milliseconds; the limit is what the hanger (sleep
# 300) must hit, with room for a loaded machine (another make test beside).
TMO=10

# 1. The real tree.
out=$(tools/mutants.sh --check 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok; else bad "tools/mutants.sh --check on the tree (exit $rc): $out"; fi
echo "$out" | tail -n 3
for mk in [0-8]_*/*/Makefile; do
    d=${mk%/Makefile}
    if [ -f "$d/mutants" ]; then ok; else bad "$d has no mutants file"; fi
done

# 2. A fake tree: tools/mutants.sh, common/, and 0_Simple/fake whose
#    "binary" is fake.sh, copied by its Makefile (which fails when the
#    script contains BREAK_BUILD).
fake_tree() {  # DIR: a fresh fake tree with a passing sample
    local t=$1
    rm -rf "$t"
    mkdir -p "$t/tools" "$t/common" "$t/0_Simple/fake"
    cp "$ROOT/tools/mutants.sh" "$t/tools/"
    echo "/* shared */" >"$t/common/shared.h"
    printf '%s\n' 'all:' \
        '	@mkdir -p $(BINDIR)' \
        '	@if grep -q BREAK_BUILD fake.sh; then echo "fake.sh: error: broken on purpose"; exit 1; fi' \
        '	@cp fake.sh $(BINDIR)/fake && chmod +x $(BINDIR)/fake' >"$t/0_Simple/fake/Makefile"
    cat >"$t/0_Simple/fake/fake.sh" <<'EOF'
#!/bin/sh
# a fake sample: its verdict is in its text (zzz: a spot for overlapping finds)
for a in "$@"; do
    case $a in --quick|--json|--x) ;; *) echo "unknown option $a" >&2; echo "fake: FAIL (bad argument)"; exit 1 ;; esac
done
value=PASS
printf 'tab:\there\n'
echo "fake: $value"
exit 0
EOF
}

# run_tool DIR ARGS...: output in $out, status in $rc
run_tool() {
    local t=$1
    shift
    out=$(cd "$t" && HAVE_GPU=1 MUTANTS_SAVE=0 MUTANT_TIMEOUT=$TMO MUTANT_JOBS=2 bash tools/mutants.sh "$@" 2>&1)
    rc=$?
}

expect() {  # NAME COND-RC PATTERN: rc must be COND-RC and out must match PATTERN (grep -E)
    local name=$1 want=$2 pat=$3
    if [ "$rc" -ne "$want" ]; then bad "$name: exit $rc, want $want: $out"; return; fi
    if ! grep -qE -- "$pat" <<<"$out"; then bad "$name: output lacks /$pat/: $out"; return; fi
    ok
}

t=$tmp/tree
fake_tree "$t"
cat >"$t/0_Simple/fake/mutants" <<'EOF'
# 0_Simple/fake/mutants: fixture
run: --quick   # the default arguments
mutant: killed_one
what: the result becomes FAIL
file: fake.sh
find: echo "fake: $value"\nexit 0
replace: echo "fake: FAIL"\nexit 1

mutant: killed_json
what: a JSON closing record saying FAIL
file: fake.sh
find: echo "fake: $value"\nexit 0
replace: echo '{"sample":"fake","status":"FAIL"}'\nexit 1
args: --json

mutant: survivor
what: a change the checks miss
file: fake.sh
find: printf 'tab:\\there\\n'
replace: printf 'tab:\\tHERE\\n'
args: --x   # a comment after the arguments
mutant: crasher
what: another exit code
file: fake.sh
find: exit 0
replace: exit 3

mutant: hanger
what: never ends
file: fake.sh
find: value=PASS
replace: exec sleep 300

mutant: bad_args
what: FAIL (bad argument) is not a kill
file: fake.sh
find: value=PASS
replace: echo "fake: FAIL (bad argument)"; exit 1

mutant: no_build
what: the build breaks
file: fake.sh
find: value=PASS
replace: value=PASS # BREAK_BUILD

mutant: control_fails
what: the unmutated sample fails with these arguments
file: fake.sh
find: value=PASS
replace: value=FAIL
args: --nonsense
EOF
run_tool "$t"
expect "verdicts: exit 1 when a mutant is not killed" 1 "mutants: 2 of 8 killed \(25\.0%\)"
for pat in "fake/killed_one +killed" "fake/killed_json +killed" "fake/survivor +SURVIVED" \
           "fake/crasher +crash +exit 3" "fake/hanger +timeout" "fake/bad_args +crash" \
           "fake/no_build +build error" "fake/control_fails +control failed"; do
    if grep -qE -- "$pat" <<<"$out"; then ok; else bad "verdict /$pat/ missing: $out"; fi
done
# the same verdicts when the runs go 3 at a time before the report (MUTANT_RUN_JOBS)
out=$(cd "$t" && HAVE_GPU=1 MUTANTS_SAVE=0 MUTANT_TIMEOUT=$TMO MUTANT_JOBS=2 MUTANT_RUN_JOBS=3 bash tools/mutants.sh 2>&1)
rc=$?
expect "parallel runs: the same kill count" 1 "mutants: 2 of 8 killed \(25\.0%\)"
for pat in "fake/killed_one +killed" "fake/killed_json +killed" "fake/survivor +SURVIVED" \
           "fake/crasher +crash +exit 3" "fake/hanger +timeout" "fake/bad_args +crash" \
           "fake/no_build +build error" "fake/control_fails +control failed"; do
    if grep -qE -- "$pat" <<<"$out"; then ok; else bad "parallel runs: verdict /$pat/ missing: $out"; fi
done
# the substitution: \\t and \\n stay backslash escapes in the shell text, \n in
# find/replace is a newline; everything else of the file is kept
m=$t/build/mutants/fake/survivor/tree/0_Simple/fake/fake.sh
if grep -qF "printf 'tab:\\tHERE\\n'" "$m" && [ "$(wc -l <"$m")" -eq "$(wc -l <"$t/0_Simple/fake/fake.sh")" ]; then ok
else bad "survivor: substitution not as written: $(cat "$m")"; fi
m=$t/build/mutants/fake/killed_one/tree/0_Simple/fake/fake.sh
if [ "$(tail -n 2 "$m")" = $'echo "fake: FAIL"\nexit 1' ]; then ok; else bad "killed_one: \\n not a newline: $(tail -n 3 "$m")"; fi
# the real tree is untouched
if grep -q '^value=PASS$' "$t/0_Simple/fake/fake.sh"; then ok; else bad "the original fake.sh changed"; fi
# args: and run: reached the binary; the comment after args: did not
if grep -qF "what: a change the checks miss (args: --x)" <<<"$out"; then ok
else bad "args: with its comment stripped not shown: $out"; fi

# Every mutant killed: exit 0 and 100%.
fake_tree "$t"
cat >"$t/0_Simple/fake/mutants" <<'EOF'
mutant: only
what: FAIL
file: fake.sh
find: echo "fake: $value"
replace: echo "fake: FAIL"; exit 1
EOF
run_tool "$t"
expect "all killed: exit 0" 0 "mutants: 1 of 1 killed \(100\.0%\)$"

# A sample that needs two GPUs ("gpus: 2" in its sanitize.expect): with one
# visible its mutants are built, not run, and skipped, which is no failure;
# with two they run. The survivor proves they would be judged.
t2=$tmp/tree2
fake_tree "$t2"
mkdir -p "$t2/0_Simple/fake2"
sed 's/(BINDIR)\/fake /(BINDIR)\/fake2 /; s/(BINDIR)\/fake$/(BINDIR)\/fake2/' "$t2/0_Simple/fake/Makefile" >"$t2/0_Simple/fake2/Makefile"
sed 's/fake:/fake2:/' "$t2/0_Simple/fake/fake.sh" >"$t2/0_Simple/fake2/fake.sh"
printf '# needs two\n  gpus: 2\nmemcheck: clean\n' >"$t2/0_Simple/fake2/sanitize.expect"
printf '%s\n' 'mutant: only' 'what: FAIL' 'file: fake.sh' 'find: echo "fake: $value"' \
    'replace: echo "fake: FAIL"; exit 1' >"$t2/0_Simple/fake/mutants"
printf '%s\n' 'mutant: survives' 'what: nothing' 'file: fake.sh' "find: printf 'tab:" \
    "replace: printf 'TAB:" >"$t2/0_Simple/fake2/mutants"
out=$(cd "$t2" && HAVE_GPU=1 N_GPUS=1 MUTANTS_SAVE=0 MUTANT_TIMEOUT=$TMO bash tools/mutants.sh 2>&1); rc=$?
expect "gpus: 2 on one GPU: skipped, not a failure" 0 "mutants: 1 of 1 killed \(100\.0%\); 1 more skipped: their samples need more GPUs than the 1 visible"
if grep -qE "fake2/survives +skipped +needs 2 GPUs" <<<"$out" && [ -x "$t2/build/mutants/fake2/survives/bin/fake2" ]; then ok
else bad "gpus: 2 on one GPU: not listed as skipped, or not built: $out"; fi
out=$(cd "$t2" && HAVE_GPU=1 N_GPUS=1 MUTANTS_SAVE=0 MUTANT_TIMEOUT=$TMO bash tools/mutants.sh fake2 2>&1); rc=$?
expect "gpus: 2 alone on one GPU: exit 2 (WAIVED)" 2 "mutants: 0 of 0 killed \(0\.0%\); 1 more skipped"
out=$(cd "$t2" && HAVE_GPU=1 CUDA_VISIBLE_DEVICES=0,1 MUTANTS_SAVE=0 MUTANT_TIMEOUT=$TMO bash tools/mutants.sh 2>&1); rc=$?
expect "gpus: 2 on two GPUs (CUDA_VISIBLE_DEVICES): run and judged" 1 "fake2/survives +SURVIVED"

# Without a GPU: nothing is built, exit 2; a stale mutant is still found (exit 1).
rm -rf "$t/build"
out=$(cd "$t" && HAVE_GPU=0 bash tools/mutants.sh 2>&1); rc=$?
expect "no GPU: exit 2" 2 "no CUDA device visible.*1 mutants in 1 sample folders apply with 0 error"
if [ ! -e "$t/build" ]; then ok; else bad "no GPU: something was built under $t/build"; fi

# Stale and malformed files: each an error, in --check and without a GPU.
stale_case() {  # NAME PATTERN MUTANTS-TEXT
    local name=$1 pat=$2 text=$3
    fake_tree "$t"
    printf '%s\n' "$text" >"$t/0_Simple/fake/mutants"
    run_tool "$t" --check
    expect "$name (--check)" 1 "$pat"
    out=$(cd "$t" && HAVE_GPU=0 bash tools/mutants.sh 2>&1); rc=$?
    expect "$name (no GPU)" 1 "$pat"
}
stale_case "find absent" "stale: its find: occurs 0 times" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nfind: not in the file\nreplace: x'
stale_case "find twice" "stale: its find: occurs more than once" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nfind: fake\nreplace: x'
stale_case "overlapping occurrences count" "occurs more than once" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nfind: zz\nreplace: x'
stale_case "unknown key" "unknown key 'fnid:'" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nfnid: exit 0\nreplace: x'
stale_case "missing find" "lacks find:" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nreplace: x'
stale_case "missing what" "lacks what:" \
    $'mutant: a\nfile: fake.sh\nfind: exit 0\nreplace: x'
stale_case "blank line ends a mutant" "replace: outside a mutant" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nfind: exit 0\n\nreplace: x'
stale_case "run: after a mutant" "run: must come before the first mutant" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nfind: exit 0\nreplace: x\nrun: --quick'
stale_case "a name used twice" "defined twice" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nfind: exit 0\nreplace: x\nmutant: a\nwhat: w\nfile: fake.sh\nfind: value=PASS\nreplace: y'
stale_case "a file outside the sample and common/" "is outside 0_Simple/fake and common/" \
    $'mutant: a\nwhat: w\nfile: ../../tools/mutants.sh\nfind: set -u\nreplace: x'
stale_case "a missing file" "does not exist" \
    $'mutant: a\nwhat: w\nfile: nothere.cu\nfind: x\nreplace: y'
stale_case "replace equal to find" "replace: equals find" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nfind: exit 0\nreplace: exit 0'
stale_case "a line that is not key: value" "not 'key: value'" \
    $'mutant: a\nwhat: w\nfile: fake.sh\nfind exit 0\nreplace: x'

# A mutant of common/ is applied to the mutant's own copy of common/.
fake_tree "$t"
printf '%s\n' 'mutant: shared' 'what: w' 'file: ../../common/shared.h' 'find: shared' 'replace: mutated' \
    >"$t/0_Simple/fake/mutants"
run_tool "$t"
if grep -q mutated "$t/build/mutants/fake/shared/tree/common/shared.h" && grep -q shared "$t/common/shared.h"; then ok
else bad "a common/ mutant was not applied to the copy only"; fi
expect "common/ mutant: the fake survives it" 1 "fake/shared +SURVIVED"

# --build-only builds without a GPU and runs nothing; a second build keeps an
# unchanged copy (and its objects), a changed mutant is copied afresh.
fake_tree "$t"
printf '%s\n' 'mutant: m' 'what: w' 'file: fake.sh' 'find: value=PASS' 'replace: value=FAIL' \
    >"$t/0_Simple/fake/mutants"
out=$(cd "$t" && HAVE_GPU=0 MUTANT_JOBS=2 bash tools/mutants.sh --build-only 2>&1); rc=$?
expect "--build-only without a GPU" 0 "built 1 mutants and 1 controls: 0 build error"
if [ -x "$t/build/mutants/fake/m/bin/fake" ] && [ ! -f "$t/build/mutants/fake/m/run.out" ]; then ok
else bad "--build-only: no binary, or something ran"; fi
touch "$t/build/mutants/fake/m/obj/kept"
out=$(cd "$t" && HAVE_GPU=0 bash tools/mutants.sh --build-only 2>&1); rc=$?
if [ -f "$t/build/mutants/fake/m/obj/kept" ]; then ok; else bad "an unchanged mutant was rebuilt from scratch"; fi
sed -i 's/replace: value=FAIL/replace: value=FAILED/' "$t/0_Simple/fake/mutants"
out=$(cd "$t" && HAVE_GPU=0 bash tools/mutants.sh --build-only 2>&1); rc=$?
if [ ! -f "$t/build/mutants/fake/m/obj/kept" ] && grep -q '^value=FAILED$' "$t/build/mutants/fake/m/tree/0_Simple/fake/fake.sh"; then ok
else bad "a changed mutant kept its old copy"; fi
printf '%s\n' 'mutant: m' 'what: w' 'file: fake.sh' 'find: value=PASS' 'replace: value=FAIL # BREAK_BUILD' \
    >"$t/0_Simple/fake/mutants"
out=$(cd "$t" && HAVE_GPU=0 bash tools/mutants.sh --build-only 2>&1); rc=$?
expect "--build-only reports a build error" 1 "build error: build/mutants/fake/m"

# A sample without a mutants file is an error; one of comments only is listed as having none.
fake_tree "$t"
run_tool "$t" --check
expect "no mutants file" 1 "0_Simple/fake: no mutants file"
printf '%s\n' '# 0_Simple/fake/mutants: none' '# fake compares nothing, so no planted bug can make it fail' \
    >"$t/0_Simple/fake/mutants"
run_tool "$t" --check
expect "comments only: none, and why" 0 "fake has none: fake compares nothing"

echo "mutants tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
