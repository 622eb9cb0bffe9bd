#!/usr/bin/env bash
# test_sim_fibers.sh: the fiber layer every CPU simulator runs on
# (tests/support/sim_fibers.h), checked directly by
# tests/support/sim_fibers_check.cpp, built twice: plain, and with
# AddressSanitizer as the simulators build it (the switches must be announced
# to it). Each build's checks: barrier phases in creation order, fiber-local
# variables kept across switches, arrive_and_drop, wait_until, the
# lowest-first order, deep stacks; then a simulation that can no longer go
# on must end with exit 2 and say why, never hang.
# Ends with "sim_fibers: N passed, M failed".
set -u
cd "$(dirname "$0")/.."
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_sim_fibers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for build in plain asan; do
    flags="-std=c++17 -O1 -g -Wall -Wextra"
    [ $build = asan ] && flags="$flags -fsanitize=address -fno-omit-frame-pointer"
    # shellcheck disable=SC2086  # the flags are words
    if ! g++ $flags -Itests/support tests/support/sim_fibers_check.cpp -o "$tmp/check_$build" 2> "$tmp/cc_$build.txt"; then
        bad "$build: sim_fibers_check.cpp does not build: $(head -5 "$tmp/cc_$build.txt")"
        continue
    fi
    ok
    timeout 60 "$tmp/check_$build" > "$tmp/out_$build.txt" 2>&1
    rc=$?
    n_ok=$(grep -c '^ok ' "$tmp/out_$build.txt")
    if [ $rc -eq 0 ] && [ "$n_ok" -eq 9 ] && ! grep -q '^FAIL' "$tmp/out_$build.txt"; then ok
    else bad "$build: exit $rc, $n_ok of 9 checks ok: $(grep -v '^ok ' "$tmp/out_$build.txt" | head -5)"; fi
    timeout 60 "$tmp/check_$build" stuck > "$tmp/stuck_$build.txt" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -q 'the simulation is stuck' "$tmp/stuck_$build.txt"; then ok
    else bad "$build: a stuck simulation ended with exit $rc (want 2 and its reason): $(head -3 "$tmp/stuck_$build.txt")"; fi
done

echo "sim_fibers: $pass passed, $fail failed"
[ "$fail" = 0 ]
