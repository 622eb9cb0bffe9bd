#!/usr/bin/env bash
# test_exercises.sh: the exercises check themselves (docs/CONVENTIONS.md,
# "Progression samples"). For every sample folder with an exercises/ folder:
#   - the format: exercises/README.md; 2 or 3 exercises exN_<name>.cuh
#     numbered 1, 2(, 3); each with a reference answer answers/exN_<name>.cuh
#     of the same name; each file defines EXERCISE_BASE once, naming a real
#     variant of the sample's table (a --variant choice of its --help, built
#     first when needed) that both files agree on
#   - the CPU check (tests/cpu_sim/run.sh --exercise=FILE, which the sample
#     must have): every untouched stub FAILs (exit 1) and every answer PASSes
#     (exit 0)
# and tools/try.sh, the engine of `make try`, refuses a bad SAMPLE or EX by
# name (exit 1) and, for firstKernel in a scratch copy of its exercise, says
# FAIL for the stub and PASS for the answer in one verdict line (on the CPU
# simulator without a GPU).
# Ends with "exercise tests: N passed, M failed".
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# variants DIR NAME: the --variant choices of bin/NAME's --help, one per line
variants() {
    local dir=$1 name=$2
    [ -x "bin/$name" ] || MAKEFLAGS= make -s -C "$dir" >/dev/null 2>&1
    local help
    help=$("bin/$name" --help 2>/dev/null)
    # the --variant line's choices first (another option may list "all|..." too,
    # histogram's --input), else the first such list anywhere (firstKernel's usage)
    { printf '%s\n' "$help" | grep -E '^ *--variant'; printf '%s\n' "$help"; } |
        sed -nE 's/.*[( ](all\|[A-Za-z0-9_|]+)[;) ].*/\1/p' | head -n1 | tr '|' '\n'
}

# check_sample EXDIR: every check of one sample's exercises; run in a
# subshell of its own (below, several at once), its counts and messages in
# files of its own under $tmp
check_sample() {
    local exdir=$1
    passed=0 failed=0
    local dir=${exdir%/exercises}
    local name
    name=$(basename "$dir")
    local key=${dir//\//_}
    local out=$tmp/out.$key
    if [ -f "$exdir/README.md" ]; then ok; else bad "$exdir: no README.md (what to change, what to observe, the command, hints)"; fi
    mapfile -t stubs < <(cd "$exdir" && ls ex*.cuh 2>/dev/null)
    if [ ${#stubs[@]} -ge 2 ] && [ ${#stubs[@]} -le 3 ]; then ok
    else bad "$exdir: ${#stubs[@]} exercises (want 2 or 3 files exN_<name>.cuh)"; fi
    choices=$(variants "$dir" "$name")
    [ -n "$choices" ] || bad "$name: no --variant choices in bin/$name --help"
    sim=$dir/tests/cpu_sim/run.sh
    [ -f "$sim" ] || bad "$name has exercises but no $sim: make test cannot prove that its answers pass and its stubs fail"
    k=0
    for f in "${stubs[@]}"; do
        k=$((k + 1))
        if [[ $f =~ ^ex${k}_[a-z0-9_]+\.cuh$ ]]; then ok
        else bad "$exdir/$f: want ex${k}_<name>.cuh (lower case, numbered from 1 without gaps)"; fi
        ans=$exdir/answers/$f
        if [ -f "$ans" ]; then ok; else bad "$exdir/$f: no reference answer $ans"; continue; fi
        bases=()
        for g in "$exdir/$f" "$ans"; do
            n=$(grep -cE '^[[:space:]]*#[[:space:]]*define[[:space:]]+EXERCISE_BASE[[:space:]]' "$g")
            b=$(sed -nE 's/^[[:space:]]*#[[:space:]]*define[[:space:]]+EXERCISE_BASE[[:space:]]+"([A-Za-z0-9_]+)".*/\1/p' "$g" | head -n1)
            if [ "$n" = 1 ] && [ -n "$b" ]; then ok
            else bad "$g: want one '#define EXERCISE_BASE \"<variant>\"' ($n found)"; fi
            if grep -qx -- "$b" <<<"$choices" && [ "$b" != all ] && [ "$b" != cpu ] && [ "$b" != exercise ]; then ok
            else bad "$g: EXERCISE_BASE \"$b\" is not a variant of $name (its variants: $(echo $choices))"; fi
            bases+=("$b")
        done
        if [ "${bases[0]}" = "${bases[1]:-}" ]; then ok
        else bad "$exdir/$f and its answer name different steps: ${bases[*]}"; fi
        [ -f "$sim" ] || continue
        sh "$sim" --exercise="$PWD/$exdir/$f" >"$out" 2>&1
        rc=$?
        if [ $rc -eq 1 ]; then ok
        else bad "$exdir/$f as given: the CPU check exits $rc, want 1 (an untouched stub must FAIL): $(tail -n2 "$out")"; fi
        sh "$sim" --exercise="$PWD/$ans" >"$out" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then ok
        else bad "$ans: the CPU check exits $rc, want 0 (a reference answer must PASS): $(tail -n2 "$out")"; fi
    done
    echo "$passed $failed" >"$tmp/counts.$key"
}

# the samples side by side, as many at once as there are cores (each CPU
# check compiles and runs a simulator: the slow part), their messages printed
# in the samples' order once all are done
jobs=$(nproc 2>/dev/null || echo 2)
n_samples=0
keys=()
for exdir in [0-8]_*/*/exercises; do
    [ -d "$exdir" ] || continue
    n_samples=$((n_samples + 1))
    key=${exdir%/exercises}; key=${key//\//_}
    keys+=("$key")
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    ( check_sample "$exdir" >"$tmp/msgs.$key" 2>&1 ) &
done
wait
for key in "${keys[@]}"; do
    cat "$tmp/msgs.$key"
    if [ -f "$tmp/counts.$key" ]; then
        read -r p f <"$tmp/counts.$key"
        passed=$((passed + p)) failed=$((failed + f))
    else bad "$key: its exercise checks ended before counting (see above)"; fi
done
if [ $n_samples -gt 0 ]; then ok; else bad "no sample has exercises/ (firstKernel should)"; fi

# ---- tools/try.sh: bad requests are refused by name --------------------------
try_refused() {  # WHAT MUST-SAY ARGS...
    local what=$1 say=$2
    shift 2
    tools/try.sh "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -eq 1 ] && grep -qF -- "$say" "$tmp/err"; then ok
    else bad "try.sh $*: $what: exit $rc, want 1 and '$say' on stderr: $(cat "$tmp/err")"; fi
}
try_refused "no sample" "no sample named 'noSuchSample'" noSuchSample 1
try_refused "not a name" "is not a sample name" '../etc' 1
try_refused "no exercises" "deviceQuery has no exercises" deviceQuery 1
try_refused "not a number" "EX='x' is not an exercise number" firstKernel x
try_refused "no such exercise" "firstKernel has no exercise 7" firstKernel 7
try_refused "bad ANSWER" "ANSWER='yes'" firstKernel 1 yes
try_refused "no SAMPLE" "usage: make try" "" 1

# ---- tools/try.sh end to end, in a scratch copy of the tree's firstKernel ------
# (the copy's exercise is edited, never the tree's)
s=$tmp/suite
mkdir -p "$s/0_Simple"
cp -r Makefile common tools "$s/"
cp -r 0_Simple/firstKernel "$s/0_Simple/"
mkdir -p "$s/tests" && cp -r tests/support "$s/tests/"   # the CPU simulator's shared part
verdict() { grep -E '^try firstKernel ex1' "$tmp/out" | tail -n1; }
( cd "$s" && MAKEFLAGS= tools/try.sh firstKernel 1 ) >"$tmp/out" 2>&1
rc=$?
v=$(verdict)
if [ $rc -eq 1 ] && [[ $v == "try firstKernel ex1: FAIL"*"y["*"want"* ]]; then ok
else bad "try.sh firstKernel 1 on the stub: exit $rc, verdict '$v' (want 1 and FAIL naming the element): $(tail -n5 "$tmp/out")"; fi
f=$s/0_Simple/firstKernel/exercises/ex1_bounds_check.cuh
sed -i 's/^    y\[i\] = a \* x\[i\] + y\[i\];.*TODO.*/    if (i < n) y[i] = a * x[i] + y[i];/' "$f"
( cd "$s" && MAKEFLAGS= tools/try.sh firstKernel 1 ) >"$tmp/out" 2>&1
rc=$?
v=$(verdict)
if [ $rc -eq 0 ] && [[ $v == "try firstKernel ex1: PASS"* ]]; then ok
else bad "try.sh firstKernel 1 after the fix: exit $rc, verdict '$v' (want 0 and PASS): $(tail -n5 "$tmp/out")"; fi
if [ -x "$s/build/try/firstKernel/ex1/bin/firstKernel" ] && [ ! -e "$s/bin/firstKernel" ]; then ok
else bad "try.sh did not build into build/try/firstKernel/ex1/ only"; fi
# a stub that does not compile: FAIL with the compiler's words
echo 'this is not CUDA' >>"$f"
( cd "$s" && MAKEFLAGS= tools/try.sh firstKernel 1 ) >"$tmp/out" 2>&1
rc=$?
v=$(verdict)
if [ $rc -eq 1 ] && [[ $v == *"FAIL: it does not build"* ]] && grep -q 'error' "$tmp/out"; then ok
else bad "try.sh on an exercise that does not compile: exit $rc, verdict '$v'"; fi

echo "exercise tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
