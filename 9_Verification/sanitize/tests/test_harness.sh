#!/usr/bin/env bash
# test_harness.sh: the harness end to end on the CPU, with fake_sanitizer.sh
# standing in for compute-sanitizer and --assume-gpus standing in for GPUs.
# Run from the repository root after `make -C 9_Verification/sanitize
# -C 9_Verification/planted` (the planted binaries must exist; they are not run).
# Prints "N passed, N failed" and exits non-zero on any failure.
set -u
cd "$(dirname "$0")/../../.." || exit 1
fake=9_Verification/sanitize/tests/fake_sanitizer.sh
out=$(mktemp -d)
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }

bin/sanitize --folder=9_Verification/planted --sanitizer=$fake --assume-gpus=3 --out="$out/a" --quiet >"$out/a.txt" 2>&1
check "planted suite passes" "[ $? = 0 ]"
check "10 runs, 4 CLEAN, 6 DETECTED" "grep -q '10 runs: 4 CLEAN, 6 DETECTED, 0 MISSED, 0 UNEXPECTED, 0 ERROR' '$out/a.txt'"
check "three workers, three devices" "[ \$(grep -h CUDA_VISIBLE_DEVICES '$out'/a/raw/*.log | awk '{print \$4}' | sort -u | wc -l) = 3 ]"
check "JSON report is valid" "build/tests/json_check '$out/a/sanitize.json' >/dev/null 2>&1 || python3 -m json.tool '$out/a/sanitize.json' >/dev/null"
check "JUnit report written" "grep -q '<testsuites name=\"sanitize\" tests=\"10\" failures=\"0\" errors=\"0\"' '$out/a/sanitize.junit.xml'"

printf 'memcheck: detect oob-global-read at clean.cu:20\n' >"$out/buggy.expect"
bin/sanitize --binary=bin/planted_clean --expect="$out/buggy.expect" --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/b" --quiet >"$out/b.txt" 2>&1
check "clean program declared buggy: exit 1" "[ $? = 1 ]"
check "clean program declared buggy: MISSED" "grep -q 'MISSED     oob-global-read at clean.cu:20' '$out/b.txt'"

bin/sanitize --binary=bin/planted_oob_read --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/c" --quiet >"$out/c.txt" 2>&1
check "undeclared bug: exit 1" "[ $? = 1 ]"
check "undeclared bug: UNEXPECTED at the line" "grep -q 'UNEXPECTED oob-global-read at oob_read.cu:9' '$out/c.txt'"

bin/sanitize --binary=bin/planted_barrier --tool=synccheck --timeout=1 --sanitizer=$fake --assume-gpus=1 --out="$out/d" --quiet >"$out/d.txt" 2>&1
check "timeout: exit 1" "[ $? = 1 ]"
check "timeout: ERROR" "grep -q 'ERROR: timed out after 1 s' '$out/d.txt'"

# a multi-GPU run ("gpus: 2"): two devices in its CUDA_VISIBLE_DEVICES, its
# worker's first; SKIPPED (not a failure) where fewer are visible
printf 'gpus: 2\nmemcheck: clean\n' >"$out/two.expect"
bin/sanitize --binary=bin/planted_clean --expect="$out/two.expect" --tool=memcheck --sanitizer=$fake --assume-gpus=3 --out="$out/f" --quiet >"$out/f.txt" 2>&1
check "gpus: 2 on three GPUs: exit 0" "[ $? = 0 ]"
check "gpus: 2 gets two devices" "grep -q 'CUDA_VISIBLE_DEVICES=0,1 ' '$out'/f/raw/*.log"
bin/sanitize --binary=bin/planted_clean --expect="$out/two.expect" --tool=memcheck,racecheck --sanitizer=$fake --assume-gpus=1 --out="$out/g" --quiet >"$out/g.txt" 2>&1
check "gpus: 2 on one GPU: exit 0" "[ $? = 0 ]"
check "gpus: 2 on one GPU: SKIPPED, not run" "grep -q '2 runs: 0 CLEAN, 0 DETECTED, 0 MISSED, 0 UNEXPECTED, 0 ERROR, 2 SKIPPED -> PASS' '$out/g.txt' && ! ls '$out'/g/raw/*.log >/dev/null 2>&1"
check "gpus: 2 on one GPU: the reason" "grep -q 'SKIPPED: needs 2 GPUs; 1 visible' '$out/g.txt'"
CUDA_VISIBLE_DEVICES=5,7 bin/sanitize --binary=bin/planted_clean --expect="$out/two.expect" --tool=memcheck,racecheck --sanitizer=$fake --assume-gpus=2 --out="$out/h" --quiet >"$out/h.txt" 2>&1
check "gpus: 2 keeps CUDA_VISIBLE_DEVICES' ids, each worker's first" "grep -q 'CUDA_VISIBLE_DEVICES=5,7 ' '$out'/h/raw/*.log && grep -q 'CUDA_VISIBLE_DEVICES=7,5 ' '$out'/h/raw/*.log"

bin/sanitize --tool=asan >/dev/null 2>&1
check "bad --tool: exit 1" "[ $? = 1 ]"
bin/sanitize --list --folder=9_Verification/planted >"$out/e.txt" 2>&1
check "--list needs no GPU" "grep -q 'sanitize: 10 runs' '$out/e.txt'"

rm -rf "$out"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
