#!/usr/bin/env bash
# run_tests.sh: runs every test of the suite and prints one closing line,
#     tests: N passed, M failed
# 1. every cmocka unit-test program under build/tests/ (built by tests/tests.mk)
# 2. tests/test_*.sh (process tests of every sample binary, the build system)
#    and every <group>/<folder>/tests/test_*.sh a sample or tool ships; each
#    must end its output with a line "N passed, M failed"
# The tests of a tool that did not build are skipped and listed.
# Exit status: 0 only if nothing failed and at least one test ran.
set -u
cd "$(dirname "$0")/.."

passed=0
failed=0
failed_names=()

run_cmocka() {  # $1 = test program
    local out rc ok bad
    out=$("$1" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    ok=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
    bad=$(printf '%s\n' "$out" | grep -E '^\[  FAILED  \] ' | grep -vc 'test(s)')
    if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
        bad=1   # crashed or exited early without cmocka's summary
        echo "!! $1 exited with status $rc without reporting a failed test"
    fi
    passed=$((passed + ok))
    failed=$((failed + bad))
    [ "$bad" -gt 0 ] && failed_names+=("$1")
}

run_counted_script() {  # $1 = script ending with "N passed, M failed"
    local out rc line p f
    out=$(bash "$1" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n1)
    if [ -z "$line" ]; then
        echo "!! $1 printed no 'N passed, M failed' line (status $rc)"
        failed=$((failed + 1)); failed_names+=("$1"); return
    fi
    p=$(printf '%s' "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(printf '%s' "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$f" -gt 0 ] || [ "$rc" -ne 0 ]; then
        [ "$f" -eq 0 ] && failed=$((failed + 1))
        failed_names+=("$1")
    fi
}

# A 9_Verification tool that did not build (build/tools/<tool>.skipped, see
# tools/build_tool.sh) has its tests skipped, and said so.
skipped=()
skip_re='^$'
for f in build/tools/*.skipped; do
    [ -f "$f" ] || continue
    t=$(basename "$f" .skipped)
    [ -d "9_Verification/$t" ] || continue
    skipped+=("$t: $(cat "$f")")
    skip_re="$skip_re|^(build/tests/)?9_Verification/$t/"
done

echo "== unit tests"
while IFS= read -r t; do
    run_cmocka "$t"
done < <(find build/tests -type f -name 'test_*' -perm -u+x | grep -Ev "$skip_re" | sort)

for s in $(ls tests/test_*.sh [0-9]_*/*/tests/test_*.sh 2>/dev/null | grep -Ev "$skip_re" | sort); do
    echo "== $s"
    run_counted_script "$s"
done

echo
for t in "${skipped[@]}"; do
    echo "skipped: the tests of ${t%%: *}, a tool that did not build: ${t#*: }"
done
if [ "${#failed_names[@]}" -gt 0 ]; then
    echo "failures in: ${failed_names[*]}"
fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
