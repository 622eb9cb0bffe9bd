#!/usr/bin/env bash
# test_runners.sh: tools/run_samples.sh (make run) and tools/run_tests.sh
# (make test) on stand-in samples and tests in a scratch tree.
#   run_samples.sh: a line per sample as it ends, counted ([2/3]); a PASS
#   shows the headline and, below it, its case and the range over the other
#   inputs (the sample's headline file); a WAIVED its reason; every sample
#   WAIVED prints a banner, and with REQUIRE_GPU=1 exits 1; a FAIL exits 1.
#   run_tests.sh: tests run TEST_JOBS at a time (two stand-ins that each wait
#   for the other to start can only pass side by side), each one's output
#   whole, then "[i/N] name K passed (S s)"; the closing line and exit status;
#   a test with a failure, one without its count line and a crashing cmocka
#   program are failures; a 9_Verification tool's tests run one after another
#   but for those in its tests/independent; the next run starts the longest first (durations
#   kept in build/tests/durations.tsv); SIGINT reaches the tests when the
#   runner has it, and stays ignored when the runner was started with it
#   ignored.
# Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/.."
root=$PWD
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- run_samples.sh ------------------------------------------------------------
t=$tmp/tree
mkdir -p "$t/bin" "$t/0_Test/zzPass" "$t/0_Test/zzWaive" "$t/0_Test/zzFail"
cp -r Makefile common tools "$t/"
for s in zzPass zzWaive zzFail; do printf 'include ../../common/sample.mk\n' >"$t/0_Test/$s/Makefile"; done
printf 'case: input=b\nacross: input\nwhy: a test\n' >"$t/0_Test/zzPass/headline"
cat >"$t/bin/zzPass" <<'EOF'
#!/bin/sh
for i in a b c; do
    case $i in a) p=50 ;; b) p=80 ;; c) p=120 ;; esac
    echo "RESULT sample=zzPass variant=lib n=10 input=$i status=PASS time_ms=1 gbps=100 ref=lib pct_ref=100"
    echo "RESULT sample=zzPass variant=fast n=10 input=$i status=PASS time_ms=1 gbps=$p ref=lib pct_ref=$p"
done
echo "zzPass: PASS"
EOF
printf '#!/bin/sh\necho "zzWaive: WAIVED (no CUDA device: a test reason)"\nexit 2\n' >"$t/bin/zzWaive"
printf '#!/bin/sh\necho "zzFail: FAIL"\nexit 1\n' >"$t/bin/zzFail"
chmod +x "$t"/bin/*
export SKIP_PACKAGES=1
unset REQUIRE_GPU RUN_ARGS MAKEFLAGS MAKELEVEL

out=$(cd "$t" && tools/run_samples.sh zzPass zzWaive 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -qE '^\[1/2\] +zzPass +PASS +fast 80 GB/s \(80% of lib\)' <<<"$out" \
    && grep -qE '^\[2/2\] +zzWaive +WAIVED +no CUDA device: a test reason' <<<"$out"; then ok
else bad "run_samples.sh: a counted line per sample, the headline of the declared case, the reason of a WAIVED: $out"; fi
if grep -qxE ' +n=10 input=b; 50% \(50 GB/s, input=a\) to 120% \(120 GB/s, input=c\) of lib, over 3 input values' <<<"$out"; then ok
else bad "run_samples.sh: the headline's case and range are not named under it: $out"; fi
if ! grep -q 'EVERY SAMPLE WAIVED' <<<"$out"; then ok; else bad "run_samples.sh: a banner although a sample passed"; fi
out=$(cd "$t" && REQUIRE_GPU=1 tools/run_samples.sh zzPass zzWaive 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok; else bad "REQUIRE_GPU=1 with a sample that passed: exit $rc, want 0"; fi
out=$(cd "$t" && tools/run_samples.sh zzWaive zzWaive 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q 'EVERY SAMPLE WAIVED: no usable GPU' <<<"$out" \
    && grep -q 'The first reason: no CUDA device: a test reason' <<<"$out"; then ok
else bad "every sample WAIVED: exit $rc (want 0) and a banner with the reason: $out"; fi
out=$(cd "$t" && REQUIRE_GPU=1 tools/run_samples.sh zzWaive 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q 'REQUIRE_GPU=1: this run fails' <<<"$out"; then ok
else bad "every sample WAIVED under REQUIRE_GPU=1: exit $rc, want 1 and the banner saying so: $out"; fi
out=$(cd "$t" && tools/run_samples.sh zzPass zzFail 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -qE '^\[2/2\] +zzFail +FAIL' <<<"$out"; then ok; else bad "a FAIL: exit $rc, want 1: $out"; fi
out=$(cd "$t" && tools/run_samples.sh 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$(grep -cE '^\[[1-3]/3\] ' <<<"$out")" = 3 ]; then ok
else bad "run_samples.sh without names: every sample of make list, counted to 3: $out"; fi

# ---- run_tests.sh ----------------------------------------------------------------
# two scripts that pass only when they run at the same time (each waits, up to a
# minute, for the other's flag), a plain one, a failing one, one without its
# count line, a cmocka-like program that passes and one that crashes
r=$tmp/rt
mkdir -p "$r/tools" "$r/tests" "$r/build/tests/x"
cp tools/run_tests.sh "$r/tools/"
for n in a b; do
    other=$([ $n = a ] && echo b || echo a)
    cat >"$r/tests/test_pair_$n.sh" <<EOF
touch "$r/started_$n"
for i in \$(seq 600); do [ -e "$r/started_$other" ] && break; sleep 0.1; done
[ -e "$r/started_$other" ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
EOF
done
printf 'echo "line one of plain"\necho "3 passed, 0 failed"\n' >"$r/tests/test_plain.sh"
printf 'echo "2 passed, 1 failed"\nexit 1\n' >"$r/tests/test_bad.sh"
printf 'echo "no count here"\n' >"$r/tests/test_nocount.sh"
printf '#!/bin/sh\necho "[       OK ] one"\necho "[       OK ] two"\n' >"$r/build/tests/x/test_ok"
printf '#!/bin/sh\necho "[       OK ] one"\nkill -SEGV $$\n' >"$r/build/tests/x/test_crash"
# cmocka names a failed test twice: when it fails and in its closing list
printf '#!/bin/sh\necho "[       OK ] a"\necho "[  FAILED  ] b"\necho "[  FAILED  ] 1 test(s), listed below:"\necho "[  FAILED  ] b"\nexit 1\n' >"$r/build/tests/x/test_cmfail"
chmod +x "$r"/build/tests/x/*
# two tests of one 9_Verification tool: each fails if the other is running
mkdir -p "$r/9_Verification/zz/tests"
for n in a b; do
    other=$([ $n = a ] && echo b || echo a)
    cat >"$r/9_Verification/zz/tests/test_tool_$n.sh" <<EOF
touch "$r/tool_$n"
sleep 1
[ -e "$r/tool_$other" ] && echo "0 passed, 1 failed (ran beside test_tool_$other)" || echo "1 passed, 0 failed"
rm -f "$r/tool_$n"
EOF
done
out=$(cd "$r" && TEST_JOBS=3 tools/run_tests.sh 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -qx 'tests: 13 passed, 4 failed' <<<"$out"; then ok
else bad "run_tests.sh: want 'tests: 13 passed, 4 failed' and a failing exit: $out"; fi
if grep -qE '^\[[0-9]+/10\] 9_Verification/zz/tests/test_tool_a.sh 1 passed' <<<"$out" \
    && grep -qE '^\[[0-9]+/10\] 9_Verification/zz/tests/test_tool_b.sh 1 passed' <<<"$out"; then ok
else bad "run_tests.sh: two tests of one 9_Verification tool ran side by side: $out"; fi
rm -rf "$r/9_Verification"
if grep -qE '^\[[0-9]+/10\] tests/test_pair_a.sh 1 passed \([0-9]+ s\)$' <<<"$out" \
    && grep -qE '^\[[0-9]+/10\] tests/test_pair_b.sh 1 passed \([0-9]+ s\)$' <<<"$out"; then ok
else bad "run_tests.sh: two tests did not run side by side under TEST_JOBS=3: $out"; fi
if grep -qE '^\[[0-9]+/10\] tests/test_bad.sh 2 passed, 1 failed \(exit 1\)' <<<"$out" \
    && grep -qE '^\[[0-9]+/10\] tests/test_nocount.sh 0 passed, 1 failed' <<<"$out" \
    && grep -qE '^\[[0-9]+/10\] build/tests/x/test_crash 1 passed, 1 failed' <<<"$out" \
    && grep -qE '^\[[0-9]+/10\] build/tests/x/test_cmfail 1 passed, 1 failed \(exit 1\)' <<<"$out" \
    && grep -q "printed no 'N passed, M failed' line" <<<"$out" \
    && grep -q "failures in: .*tests/test_bad.sh" <<<"$out"; then ok
else bad "run_tests.sh: a failing test, one without a count and a crash are failures, each named: $out"; fi
if [ "$(sed -n '/^== tests\/test_plain.sh$/{n;p}' <<<"$out")" = "line one of plain" ] \
    && [ "$(grep -cE '^\[[0-9]+/10\] ' <<<"$out")" = 10 ]; then ok
else bad "run_tests.sh: each output whole under its name, then a progress line for each of the 10: $out"; fi
if [ "$(wc -l <"$r/build/tests/durations.tsv")" = 10 ]; then ok
else bad "run_tests.sh: build/tests/durations.tsv has not one line per test: $(cat "$r/build/tests/durations.tsv")"; fi
# a tool's tests listed in its tests/independent run beside each other (two
# that pass only side by side), the others still one after another
r2=$tmp/rt2
mkdir -p "$r2/tools" "$r2/9_Verification/yy/tests"
cp tools/run_tests.sh "$r2/tools/"
for n in a b; do
    other=$([ $n = a ] && echo b || echo a)
    cat >"$r2/9_Verification/yy/tests/test_ind_$n.sh" <<EOF
touch "$r2/started_$n"
for i in \$(seq 600); do [ -e "$r2/started_$other" ] && break; sleep 0.1; done
[ -e "$r2/started_$other" ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
EOF
done
printf '# comment\ntest_ind_a.sh\ntest_ind_b.sh\n' >"$r2/9_Verification/yy/tests/independent"
out2=$(cd "$r2" && TEST_JOBS=3 tools/run_tests.sh 2>&1)
if grep -qx 'tests: 2 passed, 0 failed' <<<"$out2"; then ok
else bad "run_tests.sh: two tests a tool lists as independent did not run side by side: $out2"; fi
# longest first: the pair took longest last time only if made so; plant durations
printf '15.0\ttests/test_plain.sh\n1.0\ttests/test_bad.sh\n10.0\t9_Verification/zz/tests/test_t1.sh\n10.0\t9_Verification/zz/tests/test_t2.sh\n' \
    >"$r/build/tests/durations.tsv"
mkdir -p "$r/9_Verification/zz/tests"
for n in t1 t2; do printf 'echo "1 passed, 0 failed"\n' >"$r/9_Verification/zz/tests/test_$n.sh"; done
rm -f "$r"/started_*
rm "$r/tests/test_pair_a.sh" "$r/tests/test_pair_b.sh" "$r/tests/test_nocount.sh" "$r/build/tests/x/test_crash" \
    "$r/build/tests/x/test_cmfail"
printf 'echo "1 passed, 0 failed"\n' >"$r/tests/test_new.sh"
out=$(cd "$r" && TEST_JOBS=1 tools/run_tests.sh 2>&1)
order=$(grep -oE '^\[[0-9]/6\] [^ ]+' <<<"$out" | awk '{print $2}' | tr '\n' ' ')
if [ "$order" = "tests/test_new.sh build/tests/x/test_ok 9_Verification/zz/tests/test_t1.sh 9_Verification/zz/tests/test_t2.sh tests/test_plain.sh tests/test_bad.sh " ]; then ok
else bad "run_tests.sh: unknown tests first (scripts before programs), then the longest of the last run, a tool's tests as long as they are together: order '$order'"; fi
rm -rf "$r/9_Verification"
out=$(cd "$r" && TEST_JOBS=x tools/run_tests.sh 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q 'TEST_JOBS=x' <<<"$out"; then ok; else bad "TEST_JOBS=x: exit $rc, want 2 with the reason: $out"; fi
# SIGINT: a test gets what the runner was started with, although it runs in the background
rm -f "$r"/tests/*.sh "$r"/build/tests/x/* "$r/build/tests/durations.tsv"
printf 'grep SigIgn /proc/$$/status\necho "1 passed, 0 failed"\n' >"$r/tests/test_sig.sh"
sigint() {  # sigint default|ignore CMD...
    local how=$1; shift
    if env --default-signal=INT true 2>/dev/null; then env --"$how"-signal=INT "$@"; return; fi
    python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN if sys.argv[1] == "ignore" else signal.SIG_DFL)
os.execvp(sys.argv[2], sys.argv[2:])' "$how" "$@"
}
if env --default-signal=INT true 2>/dev/null; then
    out=$(cd "$r" && sigint default tools/run_tests.sh 2>&1)
    mask=$(sed -n 's/^SigIgn:[[:space:]]*//p' <<<"$out")
    if [ -n "$mask" ] && (( (0x$mask & 2) == 0 )); then ok
    else bad "run_tests.sh started with SIGINT at its default: the test has it ignored ($mask): $out"; fi
else
    echo "note: this env has no --default-signal (coreutils < 8.31): a test keeps the ignored SIGINT of a background job"
fi
out=$(cd "$r" && sigint ignore tools/run_tests.sh 2>&1)
mask=$(sed -n 's/^SigIgn:[[:space:]]*//p' <<<"$out")
if [ -n "$mask" ] && (( (0x$mask & 2) != 0 )); then ok
else bad "run_tests.sh started with SIGINT ignored: the test has it at its default ($mask): $out"; fi
cd "$root" || exit 1

echo "runners: $pass passed, $fail failed"
[ "$fail" = 0 ]
