#!/usr/bin/env bash
# test_kernelbench.sh: the KernelBench-format corpus and its static Python pass
# (9_Verification/kgate/kernelbench): runs kernelbench/tests/test_ast_rules.py
# (every rule planted and missed, attacks on the pass, its command line, the
# corpus against labels.tsv). With KGATE_KB_NVCC=1 it also compiles every
# candidate's CUDA source with nvcc (tests/check_cuda.py, about 2 minutes on
# two cores). Needs python3 (3.10+). Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/../kernelbench"
passed=0
failed=0
command -v python3 > /dev/null || { echo "FAIL: python3 is needed"; echo "0 passed, 1 failed"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

python3 -m unittest -v tests/test_ast_rules.py > "$out/unit.txt" 2>&1
rc=$?
cat "$out/unit.txt"
ran=$(sed -n 's/^Ran \([0-9][0-9]*\) tests\{0,1\} in .*/\1/p' "$out/unit.txt")
bad=$(grep -cE '^(FAIL|ERROR): ' "$out/unit.txt")
if [ -z "$ran" ]; then
    echo "FAIL: test_ast_rules.py did not run (status $rc)"
    failed=$((failed + 1))
else
    # a test with failing subtests is named once per subtest: count the tests
    badtests=$(grep -E '^(FAIL|ERROR): ' "$out/unit.txt" | sed 's/ (.*//' | sort -u | wc -l)
    [ "$rc" -ne 0 ] && [ "$badtests" -eq 0 ] && badtests=1
    passed=$((passed + ran - badtests))
    failed=$((failed + badtests))
    [ "$bad" -gt 0 ] && echo "($bad failing subtests in $badtests tests)"
fi

if [ "${KGATE_KB_NVCC:-0}" = 1 ]; then
    if command -v nvcc > /dev/null; then
        python3 tests/check_cuda.py --jobs="$(nproc 2>/dev/null || echo 2)" > "$out/nvcc.txt" 2>&1
        cat "$out/nvcc.txt"
        line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out/nvcc.txt" | tail -n1)
        if [ -n "$line" ]; then
            passed=$((passed + ${line%% passed*}))
            f=${line#*, }
            failed=$((failed + ${f%% failed}))
        else
            echo "FAIL: check_cuda.py printed no summary"
            failed=$((failed + 1))
        fi
    else
        echo "KGATE_KB_NVCC=1 but no nvcc on PATH: the CUDA compile check did not run"
        failed=$((failed + 1))
    fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
