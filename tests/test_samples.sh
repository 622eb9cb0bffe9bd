#!/usr/bin/env bash
# test_samples.sh: process-level tests of every sample binary (CONVENTIONS.md).
#   - --help exits 0 and lists the common options (the rest of the command
#     line's rules: tests/test_cli.sh)
#   - bad arguments exit 1 with a message naming the bad option, GPU or not;
#     every integer option found in --help is fed a non-number and a value
#     past its maximum
#   - without a GPU: --quick exits 2 and the last line is "<name>: WAIVED (...)"
#     (with --json: a JSON record with "status":"WAIVED")
#   - with a GPU: --quick exits 0 with "<name>: PASS" last, and --quick --json
#     prints only valid JSON lines; a program that needs several GPUs ("gpus: N"
#     in its folder's sanitize.expect) and sees fewer must instead WAIVE (exit 2)
# The 8_Debugging cases get the same tests, both forms (<case>_buggy and
# <case>_fixed), except that only the fixed form must PASS on a GPU: the
# buggy one is there to show its bug.
# A first-lesson sample that declares a minimal command line (a cli.minimal
# file in its folder: 0_Simple/firstKernel) has no --json and no --device:
# its --help need not list them and the --json runs are left out; every other
# rule here holds (tests/test_cli.sh holds it to the rules cli.minimal lists).
# Ends with "process tests: N passed, M failed".
set -u
cd "$(dirname "$0")/.."

JSON_CHECK=build/tests/json_check
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok()   { passed=$((passed + 1)); }
bad()  { failed=$((failed + 1)); echo "FAIL: $*"; }

# A GPU is there when nvidia-smi lists one (HAVE_GPU=0/1 overrides).
if [ -z "${HAVE_GPU:-}" ]; then
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then HAVE_GPU=1; else HAVE_GPU=0; fi
fi
# GPUs visible: CUDA_VISIBLE_DEVICES' entries when it is set, else nvidia-smi's
# list (N_GPUS=n overrides; with HAVE_GPU=1 and no count found: 1)
if [ -z "${N_GPUS:-}" ]; then
    if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
        N_GPUS=$(printf '%s\n' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    else
        N_GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
    fi
    if [ "$HAVE_GPU" = 1 ] && [ "$N_GPUS" -lt 1 ]; then N_GPUS=1; fi
fi
echo "process tests: GPU present: $HAVE_GPU ($N_GPUS visible)"
QUICK_TIMEOUT=${QUICK_TIMEOUT:-300}

# expect_bad_arg NAME BIN OPTION-TEXT MUST-MENTION
expect_bad_arg() {
    local name=$1 bin=$2 arg=$3 mention=$4 rc
    "$bin" "$arg" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 1 ]; then bad "$name $arg: exit $rc, want 1"; return; fi
    if ! grep -qF -- "$mention" "$tmp/err"; then
        bad "$name $arg: stderr does not name '$mention': $(head -c 200 "$tmp/err")"; return
    fi
    if ! tail -n1 "$tmp/out" | grep -q "^$name: FAIL"; then
        bad "$name $arg: last line is not '$name: FAIL ...'"; return
    fi
    ok
}

samples=$(MAKEFLAGS= make -s --no-print-directory list 2>/dev/null)
if [ -z "$samples" ]; then bad "no samples found (make list)"; fi
cases=$(MAKEFLAGS= make -s --no-print-directory list-cases 2>/dev/null)
programs=
buggy=" "
declare -A folder_of   # program -> its folder (the one holding its sanitize.expect)
for dir in $samples; do programs="$programs $(basename "$dir")"; folder_of[$(basename "$dir")]=$dir; done
for dir in $cases; do
    programs="$programs $(basename "$dir")_buggy $(basename "$dir")_fixed"
    buggy="$buggy$(basename "$dir")_buggy "
    folder_of[$(basename "$dir")_buggy]=$dir
    folder_of[$(basename "$dir")_fixed]=$dir
done
# gpus_needed NAME: the most GPUs any run in its folder's sanitize.expect
# declares ("gpus: N"), 1 when none does
gpus_needed() {
    local n
    n=$(sed -nE 's/^[[:space:]]*gpus:[[:space:]]*([0-9]+).*/\1/p' "${folder_of[$1]}/sanitize.expect" 2>/dev/null | sort -n | tail -n1)
    echo "${n:-1}"
}

for name in $programs; do
    bin=bin/$name
    if [ ! -x "$bin" ]; then bad "$name: $bin not built"; continue; fi
    minimal=0
    [ -f "${folder_of[$name]}/cli.minimal" ] && minimal=1

    # --help
    # (--quick --reps --seed may be left out where they mean nothing: deviceQuery;
    # tests/test_cli.sh holds every binary to the rest of the command line's rules)
    if "$bin" --help >"$tmp/help" 2>&1 && grep -q -- '--help' "$tmp/help" \
        && { [ $minimal = 1 ] || { grep -q -- '--device' "$tmp/help" && grep -q -- '--json' "$tmp/help"; }; }; then ok
    else bad "$name --help: non-zero exit or common options missing"; fi

    # common bad arguments
    expect_bad_arg "$name" "$bin" --bogus-option --bogus-option
    expect_bad_arg "$name" "$bin" --reps=abc --reps
    expect_bad_arg "$name" "$bin" --reps=0 --reps
    expect_bad_arg "$name" "$bin" --seed=-3 --seed
    expect_bad_arg "$name" "$bin" --device=x --device
    expect_bad_arg "$name" "$bin" --quick=yes --quick
    expect_bad_arg "$name" "$bin" stray "'stray'"

    # the sample's own integer options, read from --help:
    #   --name=METAVAR   text (default D, LO..HI)
    while read -r opt hi; do
        expect_bad_arg "$name" "$bin" "--$opt=abc" "--$opt"
        expect_bad_arg "$name" "$bin" "--$opt=-1x" "--$opt"
        if [ "$hi" -lt 9223372036854775807 ] 2>/dev/null; then
            expect_bad_arg "$name" "$bin" "--$opt=$((hi + 1))" "--$opt"
        fi
    done < <(sed -nE 's/^  --([a-z0-9-]+)=[^ ]+ .*\(default -?[0-9]+, -?[0-9]+\.\.(-?[0-9]+)\)$/\1 \2/p' "$tmp/help")

    if [ "$HAVE_GPU" = 0 ]; then
        "$bin" --quick >"$tmp/out" 2>"$tmp/err"; rc=$?
        last=$(tail -n1 "$tmp/out")
        if [ $rc -eq 2 ] && [[ "$last" == "$name: WAIVED ("* ]]; then ok
        else bad "$name --quick without GPU: exit $rc, last line '$last' (want 2 and WAIVED)"; fi
        [ $minimal = 1 ] && continue   # no --json (cli.minimal)
        "$bin" --quick --json >"$tmp/out" 2>"$tmp/err"; rc=$?
        tail -n1 "$tmp/out" >"$tmp/last"
        if [ $rc -eq 2 ] && "$JSON_CHECK" "$tmp/last" && grep -q '"status":"WAIVED"' "$tmp/last"; then ok
        else bad "$name --quick --json without GPU: exit $rc, last line '$(cat "$tmp/last")' (want 2 and a JSON WAIVED record)"; fi
    elif [ "$(gpus_needed "$name")" -gt "$N_GPUS" ]; then
        # needs more GPUs than are visible: WAIVED, with the reason
        timeout "$QUICK_TIMEOUT" "$bin" --quick >"$tmp/out" 2>"$tmp/err"; rc=$?
        last=$(tail -n1 "$tmp/out")
        if [ $rc -eq 2 ] && [[ "$last" == "$name: WAIVED ("* ]]; then ok
        else bad "$name --quick with $N_GPUS GPU(s): exit $rc, last line '$last' (want 2 and WAIVED: it needs $(gpus_needed "$name"))"; fi
    elif [[ "$buggy" != *" $name "* ]]; then
        timeout "$QUICK_TIMEOUT" "$bin" --quick >"$tmp/out" 2>"$tmp/err"; rc=$?
        last=$(tail -n1 "$tmp/out")
        if [ $rc -eq 0 ] && [ "$last" = "$name: PASS" ]; then ok
        else bad "$name --quick: exit $rc, last line '$last'; stderr: $(tail -n3 "$tmp/err")"; fi
        [ $minimal = 1 ] && continue   # no --json (cli.minimal)
        timeout "$QUICK_TIMEOUT" "$bin" --quick --json >"$tmp/out" 2>"$tmp/err"; rc=$?
        if [ $rc -eq 0 ] && "$JSON_CHECK" --lines "$tmp/out"; then ok
        else bad "$name --quick --json: exit $rc or invalid JSON lines"; fi
    fi
done

echo "process tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
