#!/usr/bin/env bash
# test_harness.sh: the harness end to end on the CPU, with fake_sanitizer.sh
# standing in for compute-sanitizer and --assume-gpus standing in for GPUs,
# then the harness attacked as a hostile user would: empty and unknown
# values, a tool that writes no report, quotes and $(...) in paths, runs that
# share a name, programs that leave setsid grandchildren and a harness killed
# under them, floods of output, huge and hostile reports, symlinks planted in
# --out, and case folders as 8_Debugging lays them out.
# Run from the repository root after `make -C 9_Verification/sanitize
# -C 9_Verification/planted` (the planted binaries must exist; they are not run).
# Prints "N passed, N failed" and exits non-zero on any failure.
set -u
cd "$(dirname "$0")/../../.." || exit 1
# the stand-ins (--assume-gpus, fake tools) decide which GPUs there are; a caller's
# CUDA_VISIBLE_DEVICES (a run pinned to one GPU on a real machine) would override them
unset CUDA_VISIBLE_DEVICES
root=$PWD
fake=$root/9_Verification/sanitize/tests/fake_sanitizer.sh
out=$(mktemp -d)
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
# the pids of live processes whose argv[0] starts with $1 (read from /proc:
# no pgrep needed, and the reader itself never matches)
procs_with() {
    local p a
    for p in /proc/[0-9]*; do
        a=
        { read -r -d '' a <"$p/cmdline"; } 2>/dev/null
        case $a in "$1"*) echo "${p#/proc/}" ;; esac
    done
}
# Waiting is for an event (a process gone or there, a process ended), polled
# every 0.1 s; the limits are generous deadlines for a loaded machine (another
# `make test` beside this one), never the time something is expected to take.
# wait up to $2 seconds until no process carries token $1; 0 if none is left
none_left() {
    local i
    for i in $(seq $(($2 * 10))); do
        [ -z "$(procs_with "$1")" ] && return 0
        sleep 0.1
    done
    return 1
}
# wait up to $2 seconds until a process carries token $1
appears() {
    local i
    for i in $(seq $(($2 * 10))); do
        [ -n "$(procs_with "$1")" ] && return 0
        sleep 0.1
    done
    return 1
}
# wait up to $2 seconds until our background job $1 has ended (bash reaps it
# as it ends, so kill -0 fails from then on); 0 if it has
ended() {
    local i
    for i in $(seq $(($2 * 10))); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}
# The harness under test gets the SIGINT disposition a test chooses, whatever
# this script inherited: started in the background from a script (`make test &`,
# nohup), a shell has SIGINT ignored, its background jobs too, and no shell can
# undo that for its children (`trap - INT` cannot reset a signal ignored on
# entry). env --default-signal / --ignore-signal (coreutils 8.31) exec the
# harness with it set, keeping the pid; python3 where env is older.
sigint() {  # sigint default|ignore CMD...: run CMD with SIGINT so
    local how=$1
    shift
    if env --default-signal=INT true 2>/dev/null; then
        exec env --"$how"-signal=INT "$@"
    fi
    exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN if sys.argv[1] == "ignore" else signal.SIG_DFL)
os.execvp(sys.argv[2], sys.argv[2:])' "$how" "$@"
}
leftovers=""
cleanup_token() {  # the test's own leftovers, by pid, if a check failed
    local p
    for p in $(procs_with "$1"); do kill -KILL "$p" 2>/dev/null; leftovers="$leftovers $p"; done
}
# control characters (other than newline) or C1 controls, and invalid UTF-8
# (plain grep with bytes in C locale: no -P, which a grep may lack and then
# "find" nothing; a NUL never gets this far, the harness's strings are C strings)
has_controls() { LC_ALL=C grep -q -e $'[\x01-\x09\x0b-\x1f\x7f]' -e $'\xc2[\x80-\x9f]' "$1"; }
utf8_ok() {
    if command -v iconv >/dev/null; then iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
    else python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null; fi
}
json_ok() { build/tests/json_check "$1" >/dev/null 2>&1 || python3 -m json.tool "$1" >/dev/null 2>&1; }

# ---- the harness as designed --------------------------------------------

bin/sanitize --folder=9_Verification/planted --sanitizer=$fake --assume-gpus=3 --out="$out/a" --quiet >"$out/a.txt" 2>&1
check "planted suite passes" "[ $? = 0 ]"
check "10 runs, 4 CLEAN, 6 DETECTED" "grep -q '10 runs: 4 CLEAN, 6 DETECTED, 0 MISSED, 0 UNEXPECTED, 0 ERROR' '$out/a.txt'"
check "three workers, three devices" "[ \$(grep -h CUDA_VISIBLE_DEVICES '$out'/a/raw/*.log | awk '{print \$4}' | sort -u | wc -l) = 3 ]"
check "JSON report is valid" "json_ok '$out/a/sanitize.json'"
check "compute-sanitizer is given --launch-timeout 60 (a slow first CUDA call is no failure)" "[ \$(cat '$out'/a/raw/*.log | grep -c '^fake: .* launch-timeout=60 args: ') = 10 ]"
check "JUnit report written" "grep -q '<testsuites name=\"sanitize\" tests=\"10\" failures=\"0\" errors=\"0\"' '$out/a/sanitize.junit.xml'"

# two runs at once, each in its own PID namespace: compute-sanitizer finds
# its target by pid among the abstract sockets of a port range
# (fake_rendezvous.py plays it), and pids repeat across namespaces, so two
# runs scanning one range take each other's targets (on the H200: exit 255,
# "Target application terminated before first instrumented API call", or a
# hang). Each worker scans a range of its own, none of them the default (kept
# beside the network namespace per run, below, for where there is none).
FAKE_RENDEZVOUS="sztest$$" bin/sanitize --binary=bin/planted_clean --jobs=2 --sanitizer=$fake --assume-gpus=2 --out="$out/rv" >"$out/rv.txt" 2>&1
check "two runs at once find their own targets: 4 CLEAN" "grep -q '4 runs: 4 CLEAN, 0 DETECTED, 0 MISSED, 0 UNEXPECTED, 0 ERROR' '$out/rv.txt'"
check "each worker its own --port range, not the default one" "[ \$(cat '$out'/rv/raw/*.log | grep -c '^fake rendezvous: ports 49162 to 49171\$') = 2 ] && [ \$(cat '$out'/rv/raw/*.log | grep -c '^fake rendezvous: ports 49172 to 49181\$') = 2 ]"
check "... at the first attempt (a retry would hide a shared range)" "! grep -q 'retry' '$out/rv.txt' && [ \$(grep -c '\"attempts\":1,' '$out/rv/sanitize.json') = 4 ]"
# A target that ignores its range (FAKE_RENDEZVOUS_FIXED_RANGE: every run's target
# binds in 49152-49161, whatever --port says) fits the H200 on 2026-11-30: with a
# range per worker, matrixMul memcheck and racecheck, started together on the two
# workers, still missed their targets. Only a network namespace per run (abstract
# sockets belong to it) keeps such runs apart; without one they collide (below).
FAKE_RENDEZVOUS="sztest$$" FAKE_RENDEZVOUS_FIXED_RANGE=1 bin/sanitize --binary=bin/planted_clean --jobs=2 --sanitizer=$fake --assume-gpus=2 --out="$out/rvf" >"$out/rvf.txt" 2>&1
if grep -q ', pid and network namespaces,' "$out/rvf.txt"; then
    check "a target that ignores its range (test set-up: one range for all 4 runs)" "[ \$(grep -l '^fake rendezvous: the target ignores them: ports 49152 to 49161\$' '$out'/rvf/raw/*.log | wc -l) = 4 ]"
    check "... two runs at once in one range, each in its own network namespace: 4 CLEAN at the first attempt" "grep -q '4 runs: 4 CLEAN, 0 DETECTED, 0 MISSED, 0 UNEXPECTED, 0 ERROR' '$out/rvf.txt' && ! grep -q 'retry' '$out/rvf.txt' && [ \$(grep -c '\"attempts\":1,' '$out/rvf/sanitize.json') = 4 ]"
else
    echo "note: no network namespace per run here ($(grep -m1 '^# sanitize:' "$out/rvf.txt")): a target that ignores its range is not checked"
fi
# The same where the runs get no network namespace: a user namespace of the test's
# own whose limit on network namespaces is 0 (unshare(CLONE_NEWNET) fails there with
# ENOSPC; the machine's own limit is untouched). The harness falls back to pid and
# mount namespaces and says so; the runs then collide (so the check above can fail).
if unshare --user --map-root-user true 2>/dev/null; then
    FAKE_RENDEZVOUS="sztest$$" FAKE_RENDEZVOUS_FIXED_RANGE=1 unshare --user --map-root-user bash -c \
        'echo 0 >/proc/sys/user/max_net_namespaces && exec "$@"' - bin/sanitize --binary=bin/planted_clean --jobs=2 \
        --timeout=60 --sanitizer=$fake --assume-gpus=2 --out="$out/rvn" >"$out/rvn.txt" 2>&1
    check "no network namespace: the header says so" "grep -q '^# sanitize: .*, pid namespace (no network namespace: No space left on device), reports in ' '$out/rvn.txt'"
    check "no network namespace: each run's log says so" "[ \$(grep -l '^sanitize: no network namespace: unshare(CLONE_NEWNET): No space left on device; runs at once rely on their port ranges\$' '$out'/rvn/raw/*.log | wc -l) = 4 ]"
    check "no network namespace: a target that ignores its range is taken by the other run (test set-up)" "grep -q 'Target application terminated before first instrumented API call (the process with our child' '$out'/rvn/raw/*.log"
else
    echo "note: no user namespace here: the fallback without a network namespace is not checked"
fi

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
bin/sanitize --binary=bin/planted_clean --expect="$out/two.expect" --tool=memcheck --sanitizer=$fake --assume-gpus=3 --out="$out/mg1" --quiet >"$out/mg1.txt" 2>&1
check "gpus: 2 on three GPUs: exit 0" "[ $? = 0 ]"
check "gpus: 2 gets two devices" "grep -q 'CUDA_VISIBLE_DEVICES=0,1 ' '$out'/mg1/raw/*.log"
check "gpus: 2 in the JSON" "json_ok '$out/mg1/sanitize.json' && grep -q '\"verdict\":\"CLEAN\",\"gpus\":2,' '$out/mg1/sanitize.json'"
bin/sanitize --binary=bin/planted_clean --expect="$out/two.expect" --tool=memcheck,racecheck --sanitizer=$fake --assume-gpus=1 --out="$out/mg2" >"$out/mg2.txt" 2>&1
check "gpus: 2 on one GPU: exit 0" "[ $? = 0 ]"
check "gpus: 2 on one GPU: SKIPPED, not run" "grep -q '2 runs: 0 CLEAN, 0 DETECTED, 0 MISSED, 0 UNEXPECTED, 0 ERROR, 2 SKIPPED -> PASS' '$out/mg2.txt' && ! ls '$out'/mg2/raw/*.log >/dev/null 2>&1"
check "gpus: 2 on one GPU: the reason" "grep -q 'SKIPPED: needs 2 GPUs; 1 visible' '$out/mg2.txt' && grep -q '^# \[2/2\] planted_clean .*SKIPPED .*needs 2 GPUs; 1 visible' '$out/mg2.txt'"
check "gpus: 2 on one GPU: summary.txt and JSON say SKIPPED" "grep -q '2 SKIPPED -> PASS' '$out/mg2/summary.txt' && json_ok '$out/mg2/sanitize.json' && grep -q '\"SKIPPED\":2,\"status\":\"PASS\"' '$out/mg2/sanitize.json'"
check "gpus: 2 on one GPU: JUnit skipped, not failed" "grep -q 'failures=\"0\" errors=\"0\" skipped=\"2\"' '$out/mg2/sanitize.junit.xml' && [ \$(grep -c '<skipped message=\"needs 2 GPUs; 1 visible\"/>' '$out/mg2/sanitize.junit.xml') = 2 ]"
CUDA_VISIBLE_DEVICES=5,7 bin/sanitize --binary=bin/planted_clean --expect="$out/two.expect" --tool=memcheck,racecheck --sanitizer=$fake --assume-gpus=2 --out="$out/mg3" --quiet >"$out/mg3.txt" 2>&1
check "gpus: 2 keeps CUDA_VISIBLE_DEVICES' ids, each worker's first" "grep -q 'CUDA_VISIBLE_DEVICES=5,7 ' '$out'/mg3/raw/*.log && grep -q 'CUDA_VISIBLE_DEVICES=7,5 ' '$out'/mg3/raw/*.log"
CUDA_VISIBLE_DEVICES=5,7 bin/sanitize --binary=bin/planted_clean --expect="$out/two.expect" --tool=memcheck,racecheck --jobs=1 --sanitizer=$fake --assume-gpus=2 --out="$out/mg4" --quiet >"$out/mg4.txt" 2>&1
check "gpus: 2 with --jobs=1: both runs get 5,7" "[ \$(grep -l 'CUDA_VISIBLE_DEVICES=5,7 ' '$out'/mg4/raw/*.log | wc -l) = 2 ]"
bin/sanitize --binary=bin/planted_clean --expect="$out/two.expect" --sanitizer=$fake --assume-gpus=1 --list >"$out/mg5.txt" 2>&1
check "gpus: 2 in --list" "[ \$(grep -c 'expect: (2 GPUs) clean' '$out/mg5.txt') = 4 ]"
for v in 0 +2 two '2 2' ''; do
    printf 'gpus: %s\n' "$v" >"$out/badgpus.expect"
    bin/sanitize --binary=bin/planted_clean --expect="$out/badgpus.expect" --list >"$out/mg6.txt" 2>&1
    check "gpus: '$v' refused, exit 1" "[ $? = 1 ] && grep -q \"'gpus:' needs a number of GPUs\" '$out/mg6.txt'"
done

bin/sanitize --tool=asan >/dev/null 2>&1
check "bad --tool: exit 1" "[ $? = 1 ]"
bin/sanitize --list --folder=9_Verification/planted >"$out/e.txt" 2>&1
check "--list needs no GPU" "grep -q 'sanitize: 10 runs' '$out/e.txt'"

# ---- an empty or unknown value is refused, never "everything" or "nothing" --

for opt in --folder= --sample= --tool= --out= --sanitizer= --binary= --expect= --root= \
           --jobs= --timeout= --max-report= --max-log= --contain= \
           --sample=planted_clean, --sample=,planted_clean --sample=planted_clean,,planted_leak \
           --folder=9_Verification/planted, --tool=memcheck,; do
    bin/sanitize "$opt" --list >"$out/empty.txt" 2>&1
    rc=$?
    check "empty value refused: $opt (exit 1, option named)" "[ $rc = 1 ] && grep -q -- '${opt%%=*}' '$out/empty.txt'"
done
bin/sanitize --sample=typo --list >"$out/typo.txt" 2>&1
check "--sample=typo --list: exit 1, 'typo' named" "[ $? = 1 ] && grep -q \"'typo'\" '$out/typo.txt'"
bin/sanitize --sample=planted_clean,typo2 --sanitizer=$fake --assume-gpus=1 --out="$out/typo" --quiet >"$out/typo.txt" 2>&1
check "--sample=NAME,typo2 (a run): exit 1, 'typo2' named, nothing run" "[ $? = 1 ] && grep -q \"'typo2'\" '$out/typo.txt' && [ ! -e '$out/typo/raw' ]"
bin/sanitize --folder=0_Simpel --list >"$out/typo.txt" 2>&1
check "--folder=typo: exit 1, the folder named" "[ $? = 1 ] && grep -q '0_Simpel' '$out/typo.txt'"
bin/sanitize --sample=planted_leak --tool=racecheck --list >"$out/none.txt" 2>&1
check "--list with nothing to run: exit 1" "[ $? = 1 ] && grep -q 'nothing to run' '$out/none.txt'"
bin/sanitize --sample=planted --list >"$out/folder_name.txt" 2>&1
check "--sample=<folder name> selects the folder's runs" "[ $? = 0 ] && grep -q 'sanitize: 10 runs' '$out/folder_name.txt'"
bin/sanitize --out="$out/x" --out="$out/y" --list >"$out/twice.txt" 2>&1
check "an option given twice: exit 1" "[ $? = 1 ] && grep -q 'twice' '$out/twice.txt'"
bin/sanitize --binary=bin/planted_clean --folder=9_Verification --list >"$out/bf.txt" 2>&1
check "--folder with --binary: exit 1" "[ $? = 1 ]"
bin/sanitize --binary=bin/planted_clean --args="$(printf 'x%.0s' $(seq 600))" --list >"$out/long.txt" 2>&1
check "--args longer than the harness keeps: exit 1, not cut short" "[ $? = 1 ] && grep -q 'too long' '$out/long.txt'"
bin/sanitize --parse=/dev/zero >"$out/devzero.txt" 2>&1
check "--parse=/dev/zero: refused (not a regular file)" "[ $? = 1 ] && grep -q 'regular file' '$out/devzero.txt'"

# ---- a tool that writes no report is ERROR, never CLEAN -------------------

bin/sanitize --binary=bin/planted_clean --sanitizer=/bin/true --assume-gpus=1 --out="$out/true" --quiet >"$out/true.txt" 2>&1
check "--sanitizer=/bin/true: exit 1" "[ $? = 1 ]"
check "--sanitizer=/bin/true: 4 ERROR, no XML report" "grep -q '4 runs: 0 CLEAN, 0 DETECTED, 0 MISSED, 0 UNEXPECTED, 4 ERROR' '$out/true.txt' && grep -q 'no XML report' '$out/true.txt'"

# ---- no shell: quotes, \$(...) and backquotes in every path the harness takes --

evil="$out/ev'il \$(touch $out/PWNED1) \`touch $out/PWNED2\` '; touch $out/PWNED3; '"
mkdir -p "$evil/root/9_Verification/planted"
ln -s "$fake" "$evil/fake"
cp 9_Verification/planted/sanitize.expect "$evil/root/9_Verification/planted/"
ln -s "$root/bin" "$evil/root/bin"
bin/sanitize --binary=bin/planted_clean --sanitizer="$evil/fake" --assume-gpus=1 --out="$out/q1" --quiet >"$out/q1.txt" 2>&1
check "--sanitizer with quotes and \$(...): the runs pass" "[ $? = 0 ] && grep -q '4 CLEAN' '$out/q1.txt'"
COMPUTE_SANITIZER="$evil/fake" bin/sanitize --binary=bin/planted_clean --assume-gpus=1 --out="$out/q2" --quiet >"$out/q2.txt" 2>&1
check "\$COMPUTE_SANITIZER with quotes: the runs pass" "[ $? = 0 ] && grep -q '4 CLEAN' '$out/q2.txt'"
bin/sanitize --root="$evil/root" --sample=planted_clean --sanitizer=$fake --assume-gpus=1 --out="$out/q3" --quiet >"$out/q3.txt" 2>&1
check "--root with quotes: the runs pass" "[ $? = 0 ] && grep -q '4 CLEAN' '$out/q3.txt'"
bin/sanitize --binary="$evil/root/bin/planted_clean" --sanitizer=$fake --assume-gpus=1 --out="$evil/out" --quiet >"$out/q4.txt" 2>&1
check "--binary and --out with quotes: the runs pass" "[ $? = 0 ] && grep -q '4 CLEAN' '$out/q4.txt'"
check "no command hidden in a path ran" "[ ! -e '$out/PWNED1' ] && [ ! -e '$out/PWNED2' ] && [ ! -e '$out/PWNED3' ]"
check "no popen, system or shell in the harness's sources" \
    "! grep -nE '\\b(popen|system|execlp?|wordexp)[[:space:]]*\\(|/bin/sh|\"sh\"' 9_Verification/sanitize/*.c"
bin/sanitize --binary=bin/planted_clean --sanitizer=fake_sanitizer.sh --assume-gpus=1 --list >/dev/null 2>&1
(cd 9_Verification/sanitize/tests && ../../../bin/sanitize --root=../../.. --binary=../../../bin/planted_clean \
    --sanitizer=fake_sanitizer.sh --assume-gpus=1 --out="$out/rel" --quiet >"$out/rel.txt" 2>&1)
check "a relative --sanitizer is the file named, not a PATH search, and is found from --root" \
    "[ $? = 0 ] && grep -q '4 CLEAN' '$out/rel.txt'"

# ---- two runs with one name never share raw files -------------------------

cat >"$out/same.expect" <<'EOF'
run: bin/planted_clean --first
tools: memcheck
run: bin/planted_clean --second
tools: memcheck
run: bin/planted_clean --third
name: x/y
tools: memcheck
run: bin/planted_clean --fourth
name: x_y
tools: memcheck
EOF
FAKE_SLEEP=1 bin/sanitize --expect="$out/same.expect" --jobs=4 --sanitizer=$fake --assume-gpus=4 --out="$out/same" --quiet >"$out/same.txt" 2>&1
check "same name, other arguments, 4 workers: all CLEAN" "[ $? = 0 ] && grep -q '4 runs: 4 CLEAN' '$out/same.txt'"
check "same name: four logs and four reports in raw/" "[ \$(ls '$out'/same/raw/*.log | wc -l) = 4 ] && [ \$(ls '$out'/same/raw/*.xml | wc -l) = 4 ]"
for a in --first --second --third --fourth; do
    check "same name: the run with $a has a log of its own" "[ \$(grep -l -- ' $a' '$out'/same/raw/*.log | wc -l) = 1 ]"
done
check "same name: the JSON names each run's own log" "[ \$(grep -o '\"log\":\"[^\"]*\"' '$out/same/sanitize.json' | sort -u | wc -l) = 4 ]"

# ---- killing the harness kills everything it started ---------------------

modes="reaper"
if bin/sanitize --contain=pidns --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake \
       --assume-gpus=1 --out="$out/probe" --quiet >"$out/probe.txt" 2>&1; then
    modes="pidns reaper"
else
    echo "note: --contain=pidns is not available here ($(grep -m1 error "$out/probe.txt")); reaper only"
fi
for mode in $modes; do
    for how in KILL TERM INT; do
        tok="sz-test-$mode-$how-$$-$RANDOM"
        # SIGINT at its default action, as at a terminal, whatever this script inherited
        (FAKE_ORPHAN=$tok FAKE_SLEEP=300 sigint default bin/sanitize --contain=$mode --binary=bin/planted_clean \
            --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/k" --quiet >"$out/k.txt" 2>&1) &
        hpid=$!
        appears "$tok-orphan" 60 && appears "$tok-sleep" 60
        check "$mode: the fake left a setsid grandchild (test set-up)" "[ $? = 0 ]"
        if [ "$how" = KILL ]; then
            held=""
            for p in /proc/[0-9]*; do
                [ "$(cat "$p/comm" 2>/dev/null)" = sanitize-keep ] || continue
                held="$held$(ls -l "$p/fd/" 2>/dev/null | grep -F "$out/k")"
            done
            check "$mode: the keeper holds no descriptor of --out (its lock, raw/)" "[ -z \"$held\" ]"
        fi
        kill -$how $hpid
        ended $hpid 60
        check "$mode: SIG$how ends the harness" "[ $? = 0 ]"
        kill -KILL $hpid 2>/dev/null
        wait $hpid 2>/dev/null
        check "$mode: ... by that signal (exit status 128 + its number)" "[ $? = $((128 + $(kill -l $how))) ]"
        check "$mode: SIG$how to the harness kills the tool, its child and its setsid grandchild" "none_left '$tok' 30"
        cleanup_token "$tok"
    done
    # An ignored SIGINT is inherited and kept (README.md, "Nothing outlives a run"):
    # a background job of a script is not meant to get the terminal's ^C. SIGINT
    # then SIGTERM: an ignored SIGINT is dropped when sent, so the harness ends by
    # SIGTERM (143); one that SIGINT ended would have ended by it (130).
    tok="sz-test-$mode-ignint-$$-$RANDOM"
    (FAKE_ORPHAN=$tok FAKE_SLEEP=300 sigint ignore bin/sanitize --contain=$mode --binary=bin/planted_clean \
        --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/k" --quiet >"$out/k.txt" 2>&1) &
    hpid=$!
    appears "$tok-orphan" 60 && appears "$tok-sleep" 60
    check "$mode: the fake left a setsid grandchild (test set-up, SIGINT ignored)" "[ $? = 0 ]"
    kill -INT $hpid
    kill -TERM $hpid
    ended $hpid 60
    kill -KILL $hpid 2>/dev/null
    wait $hpid 2>/dev/null
    check "$mode: started with SIGINT ignored, the harness keeps it ignored: SIGTERM, not SIGINT, ends it" "[ $? = 143 ]"
    check "$mode: ... and kills everything the run started" "none_left '$tok' 30"
    cleanup_token "$tok"
    # the run ends by itself, or at its time limit: what it left goes too
    tok="sz-test-$mode-end-$$-$RANDOM"
    FAKE_ORPHAN=$tok bin/sanitize --contain=$mode --binary=bin/planted_clean --tool=memcheck \
        --sanitizer=$fake --assume-gpus=1 --out="$out/k" --quiet >"$out/k.txt" 2>&1
    check "$mode: a run that ends leaves no setsid grandchild" "[ $? = 0 ] && none_left '$tok' 30"
    cleanup_token "$tok"
    tok="sz-test-$mode-timeout-$$-$RANDOM"
    start=$SECONDS
    FAKE_ORPHAN=$tok FAKE_SLEEP=300 bin/sanitize --contain=$mode --binary=bin/planted_clean --tool=memcheck \
        --timeout=1 --sanitizer=$fake --assume-gpus=1 --out="$out/k" --quiet >"$out/k.txt" 2>&1
    # "in time": long before the fake's 300 s (the bound leaves room for a loaded machine)
    check "$mode: a run past its limit is ERROR, in time" "[ $? = 1 ] && grep -q 'timed out' '$out/k.txt' && [ $((SECONDS - start)) -lt 60 ]"
    check "$mode: ... and leaves no setsid grandchild" "none_left '$tok' 30"
    cleanup_token "$tok"
done 2>/dev/null  # (bash's notes on the jobs it saw killed)
bin/sanitize --contain=sometimes --list >/dev/null 2>&1
check "--contain=unknown: exit 1" "[ $? = 1 ]"

# ---- compute-sanitizer that cannot attach to its program --------------------
# On the H200 the tool printed "No attachable process found" and then waited
# until --timeout, or "Target application terminated before first instrumented
# API call" (exit 255). Such a run is ended at once, run once more on the same
# worker after everything of its first attempt is gone (the fake's lock says
# so), and reported as retried; twice is ERROR. FAKE_ATTACH counts attempts.
for mode in $modes; do
    st=$out/att-$mode
    tok="sz-test-attach-$mode-$$-$RANDOM"
    mkdir -p "$st"
    start=$SECONDS
    FAKE_ATTACH=$st FAKE_ATTACH_FAILS=1 FAKE_ATTACH_TOKEN=$tok bin/sanitize --contain=$mode --binary=bin/planted_clean \
        --tool=memcheck,racecheck --jobs=2 --timeout=120 --sanitizer=$fake --assume-gpus=2 --out="$st/o" >"$st/o.txt" 2>&1
    check "$mode: cannot attach once, then can: exit 0, 2 CLEAN" "[ $? = 0 ] && grep -q '2 runs: 2 CLEAN, 0 DETECTED, 0 MISSED, 0 UNEXPECTED, 0 ERROR' '$st/o.txt'"
    check "$mode: ... the hung first attempts ended within seconds, not at --timeout (120 s)" "[ $((SECONDS - start)) -lt 60 ]"
    check "$mode: ... each run had two attempts, the second after the first was all gone" \
        "[ \$(wc -l <'$st/planted_clean.memcheck.n') = 2 ] && [ \$(wc -l <'$st/planted_clean.racecheck.n') = 2 ] && ! grep -q 'still alive' '$st'/o/raw/*.log"
    check "$mode: ... on the same worker (its device twice in its log)" \
        "(for l in '$st'/o/raw/*.log; do [ \$(grep '^fake: ' \$l | awk '{print \$4}' | sort -u | wc -l) = 1 ] && [ \$(grep -c '^fake: ' \$l) = 2 ] || exit 1; done)"
    check "$mode: ... the log says why it ran again" "[ \$(grep -l 'could not attach to the program (\"No attachable process found\"); this attempt ended' '$st'/o/raw/*.log | wc -l) = 2 ]"
    check "$mode: ... progress, summary.txt, JSON and JUnit note the retry" \
        "[ \$(grep -c '^# retry  ' '$st/o.txt') = 2 ] && [ \$(grep -c 'CLEAN: retried once: compute-sanitizer could not attach to the program at first (\"No attachable process found\")' '$st/o/summary.txt') = 2 ] && json_ok '$st/o/sanitize.json' && [ \$(grep -c '\"attempts\":2,\"message\":\"retried once: ' '$st/o/sanitize.json') = 2 ] && [ \$(grep -c '^note: retried once: compute-sanitizer could not attach' '$st/o/sanitize.junit.xml') = 2 ]"
    check "$mode: ... and nothing of the hung attempts is left" "none_left '$tok' 30"
    cleanup_token "$tok"
done 2>/dev/null
st=$out/att
mkdir -p "$st/exit" "$st/twice" "$st/none"
FAKE_ATTACH=$st/exit FAKE_ATTACH_FAILS=1 FAKE_ATTACH_HOW=exit bin/sanitize --sample=planted_oob_read --tool=memcheck \
    --sanitizer=$fake --assume-gpus=1 --out="$st/exit/o" --quiet >"$st/exit.txt" 2>&1
check "'terminated before first instrumented API call' (exit 255) once: retried, then judged (DETECTED, noted)" \
    "[ $? = 0 ] && grep -q '1 runs: 0 CLEAN, 1 DETECTED' '$st/exit.txt' && [ \$(wc -l <'$st/exit/planted_oob_read.memcheck.n') = 2 ] && grep -q 'DETECTED: retried once: compute-sanitizer could not attach to the program at first (\"Target application terminated before first instrumented API call\")' '$st/exit/o/summary.txt'"
tok="sz-test-attach-twice-$$-$RANDOM"
start=$SECONDS
FAKE_ATTACH=$st/twice FAKE_ATTACH_FAILS=2 FAKE_ATTACH_TOKEN=$tok bin/sanitize --binary=bin/planted_clean --tool=memcheck \
    --timeout=120 --sanitizer=$fake --assume-gpus=1 --out="$st/twice/o" --quiet >"$st/twice.txt" 2>&1
check "cannot attach twice: exit 1, ERROR with the reason, never CLEAN" \
    "[ $? = 1 ] && grep -q '1 runs: 0 CLEAN, 0 DETECTED, 0 MISSED, 0 UNEXPECTED, 1 ERROR' '$st/twice.txt' && grep -q 'ERROR: compute-sanitizer could not attach to the program twice: \"No attachable process found\" (see ' '$st/twice/o/summary.txt'"
check "... two attempts, not three, each ended within seconds (not at --timeout, 120 s)" "[ \$(wc -l <'$st/twice/planted_clean.memcheck.n') = 2 ] && [ $((SECONDS - start)) -lt 60 ]"
check "... JSON and JUnit say so" "json_ok '$st/twice/o/sanitize.json' && grep -q '\"verdict\":\"ERROR\",.*\"attempts\":2,\"message\":\"compute-sanitizer could not attach to the program twice' '$st/twice/o/sanitize.json' && grep -q '<error type=\"ERROR\" message=\"ERROR: compute-sanitizer could not attach to the program twice' '$st/twice/o/sanitize.junit.xml'"
check "... and leaves nothing behind" "none_left '$tok' 30"
cleanup_token "$tok"
# only the attach failure is retried: a timeout, a MISSED, an UNEXPECTED run once
FAKE_ATTACH=$st/none bin/sanitize --binary=bin/planted_barrier --tool=synccheck --timeout=1 --sanitizer=$fake \
    --assume-gpus=1 --out="$st/none/o1" --quiet >"$st/none1.txt" 2>&1
FAKE_ATTACH=$st/none bin/sanitize --binary=bin/planted_clean --expect="$out/buggy.expect" --tool=memcheck --sanitizer=$fake \
    --assume-gpus=1 --out="$st/none/o2" --quiet >"$st/none2.txt" 2>&1
FAKE_ATTACH=$st/none bin/sanitize --binary=bin/planted_oob_read --tool=memcheck --sanitizer=$fake \
    --assume-gpus=1 --out="$st/none/o3" --quiet >"$st/none3.txt" 2>&1
check "a timeout, a MISSED and an UNEXPECTED run are not retried" \
    "grep -q 'ERROR: timed out' '$st/none1.txt' && grep -q '1 MISSED' '$st/none2.txt' && grep -q '1 UNEXPECTED' '$st/none3.txt' && [ \$(cat '$st'/none/*.n | wc -l) = 3 ] && ! grep -q 'retried' '$st'/none*.txt"
[ -n "$leftovers" ] && echo "note: killed leftovers of failed checks:$leftovers"

# ---- size caps: logs, reports, and the parse --------------------------------

FAKE_SPEW=3000000 bin/sanitize --binary=bin/planted_clean --tool=memcheck --max-log=64K --sanitizer=$fake \
    --assume-gpus=1 --out="$out/spew" --quiet >"$out/spew.txt" 2>&1
check "a 3 MB flood of output: the run is still judged (CLEAN)" "[ $? = 0 ] && grep -q '1 CLEAN' '$out/spew.txt'"
check "... the log holds at most 64 KiB plus the note" "[ \$(stat -c %s '$out'/spew/raw/*.log) -le 66560 ]"
check "... and says it was cut" "grep -q 'log cut at 65536 bytes' '$out'/spew/raw/*.log && grep -q 'log cut' '$out/spew/sanitize.json'"
start=$SECONDS
FAKE_XML_FOREVER=1 bin/sanitize --binary=bin/planted_clean --tool=memcheck --max-report=1M --timeout=120 \
    --sanitizer=$fake --assume-gpus=1 --out="$out/big" --quiet >"$out/big.txt" 2>&1
check "a report that grows for ever: ERROR when it passes --max-report, long before the time limit (120 s)" \
    "[ $? = 1 ] && grep -q 'report passed 1048576 bytes' '$out/big.txt' && [ $((SECONDS - start)) -lt 60 ]"
{ echo '<ComputeSanitizerOutput>'; for i in $(seq 3000); do echo "<record><kind>Leak</kind><what><text>Leaked $i bytes</text></what></record>"; done; echo '</ComputeSanitizerOutput>'; } >"$out/big.xml"
FAKE_REPORT="$out/big.xml" bin/sanitize --binary=bin/planted_clean --tool=memcheck --max-report=64K \
    --sanitizer=$fake --assume-gpus=1 --out="$out/big2" --quiet >"$out/big2.txt" 2>&1
check "a report over --max-report, written at once: ERROR, not read" "[ $? = 1 ] && grep -qE 'larger than 65536|passed 65536' '$out/big2.txt'"
# one element with 60000 attributes (788 KB took 18.6 s before the parser was linear)
python3 - "$out/attrs.xml" <<'EOF' 2>/dev/null || awk 'BEGIN { printf "<ComputeSanitizerOutput><record"; for (i = 0; i < 60000; i++) printf " a%d=\"\"", i; print "/></ComputeSanitizerOutput>" }' >"$out/attrs.xml"
import sys
open(sys.argv[1], "w").write("<ComputeSanitizerOutput><record" + "".join(' a%d=""' % i for i in range(60000)) + "/></ComputeSanitizerOutput>\n")
EOF
# CPU seconds, not wall seconds: a loaded machine stretches the second, not the first
TIMEFORMAT='%3U %3S'
{ time timeout 60 bin/sanitize --parse="$out/attrs.xml" >"$out/attrs.txt" 2>&1; } 2>"$out/attrs.cpu"
rc=$?
unset TIMEFORMAT
check "60000 attributes in one element: refused at once (under 3 CPU seconds), by a message" \
    "[ $rc = 1 ] && awk '{ exit !(\$1 + \$2 < 3) }' '$out/attrs.cpu' && grep -q 'attributes' '$out/attrs.txt'"
# 30 MB of small records: the reader keeps one record at a time, not 34x the file
awk 'BEGIN { print "<ComputeSanitizerOutput>"; for (i = 0; i < 300000; i++) printf "<record><kind>Leak</kind><what><text>Leaked %d bytes</text></what><a/><b/><c/><d/></record>\n", i % 7; print "</ComputeSanitizerOutput>" }' >"$out/many.xml"
( ulimit -v 400000; timeout 120 bin/sanitize --parse="$out/many.xml" --max-report=64M >"$out/many.txt" 2>&1 )
check "a 30 MB report parses in under 400 MB of address space" "[ $? = 0 ] && grep -q '300000 record(s)' '$out/many.txt'"

# ---- hostile bytes in a report never reach the terminal or summary.txt ---------

printf '<ComputeSanitizerOutput><record><kind>Pre\033[2Jcise</kind><what><text>Invalid __global__ read \033]0;owned\007 \302\233 \233 \377 \300\257 \342\200\256 bytes \342\202</text></what><where><func>k\033[31m\177</func><path>/x/\033[1;1Hevil\377.cu</path><line>9</line></where></record></ComputeSanitizerOutput>\n' >"$out/hostile.xml"
printf '<ComputeSanitizerOutput><record><\033[31m/></record></ComputeSanitizerOutput>\n' >"$out/hostile_bad.xml"
FAKE_REPORT="$out/hostile.xml" bin/sanitize --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake \
    --assume-gpus=1 --out="$out/h" >"$out/h.txt" 2>&1
check "hostile report: UNEXPECTED (judged)" "[ $? = 1 ] && grep -q '1 UNEXPECTED' '$out/h.txt'"
for f in "$out/h.txt" "$out/h/summary.txt"; do
    check "hostile report: no control characters in $(basename "$f")" "! has_controls '$f'"
    check "hostile report: $(basename "$f") is valid UTF-8" "utf8_ok '$f'"
done
check "hostile report: sanitize.json is valid JSON and UTF-8" "json_ok '$out/h/sanitize.json' && utf8_ok '$out/h/sanitize.json'"
check "hostile report: sanitize.junit.xml is UTF-8 without control characters" "utf8_ok '$out/h/sanitize.junit.xml' && ! has_controls '$out/h/sanitize.junit.xml'"
bin/sanitize --parse="$out/h/sanitize.junit.xml" >"$out/hj.txt" 2>&1
check "hostile report: sanitize.junit.xml is well-formed XML" "grep -q 'root element is <testsuites>' '$out/hj.txt'"
FAKE_REPORT="$out/hostile_bad.xml" bin/sanitize --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake \
    --assume-gpus=1 --out="$out/hb" >"$out/hb.txt" 2>&1
check "malformed hostile report: ERROR, message without control characters" \
    "[ $? = 1 ] && grep -q 'unreadable report' '$out/hb.txt' && ! has_controls '$out/hb.txt' && ! has_controls '$out/hb/summary.txt'"
bin/sanitize --parse="$out/hostile.xml" >"$out/hp.txt" 2>&1
check "--parse of a hostile report: no control characters, UTF-8" "[ $? = 0 ] && ! has_controls '$out/hp.txt' && utf8_ok '$out/hp.txt'"
bin/sanitize --parse="$out/hostile_bad.xml" >"$out/hpb.txt" 2>&1
check "--parse of a malformed hostile report: no control characters" "[ $? = 1 ] && ! has_controls '$out/hpb.txt'"

# ---- symlinks planted in --out are never followed --------------------------

echo precious >"$out/victim"
mkdir -p "$out/s/raw" "$out/elsewhere" "$out/s2"
for f in raw/planted_clean.memcheck.log raw/planted_clean.memcheck.xml summary.txt sanitize.json sanitize.junit.xml; do
    ln -s "$out/victim" "$out/s/$f"
done
ln -s "$out/elsewhere" "$out/s2/raw"
bin/sanitize --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/s" --quiet >"$out/s.txt" 2>&1
check "symlinks planted in --out: the run passes" "[ $? = 0 ]"
check "... and the file they point to is untouched" "[ \"\$(cat '$out/victim')\" = precious ]"
check "... and the reports are plain files" "[ -f '$out/s/summary.txt' ] && [ ! -L '$out/s/summary.txt' ] && [ ! -L '$out/s/raw/planted_clean.memcheck.log' ]"
bin/sanitize --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/s2" --quiet >"$out/s2.txt" 2>&1
check "--out/raw a symlink to another folder: nothing written there" "[ $? = 0 ] && [ -z \"\$(ls -A '$out/elsewhere')\" ] && [ ! -L '$out/s2/raw' ]"
mkdir -p "$out/s3/raw/keep" "$out/s5/raw"
echo mine >"$out/s5/raw/notes.log"
bin/sanitize --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/s5" --quiet >"$out/s5.txt" 2>&1
check "--out/raw holding a .log the harness did not name: refused, kept" "[ $? = 1 ] && [ \"\$(cat '$out/s5/raw/notes.log')\" = mine ]"
bin/sanitize --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/s3" --quiet >"$out/s3.txt" 2>&1
check "--out/raw holding something the harness did not write: refused, left alone" "[ $? = 1 ] && [ -d '$out/s3/raw/keep' ] && grep -q 'raw' '$out/s3.txt'"
bin/sanitize --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/s" --quiet >"$out/s4.txt" 2>&1
check "a second run into the same --out replaces the first's raw files" "[ $? = 0 ] && [ \$(ls '$out/s/raw' | wc -l) = 2 ]"

# the first harness's run sleeps until the second has been refused: then its
# sleep is ended (by pid) and the run finishes as usual
tok="sz-test-lock-$$-$RANDOM"
FAKE_ORPHAN=$tok FAKE_SLEEP=300 bin/sanitize --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/lock" --quiet >"$out/lock1.txt" 2>&1 &
lpid=$!
appears "$tok-sleep" 60
bin/sanitize --binary=bin/planted_clean --tool=memcheck --sanitizer=$fake --assume-gpus=1 --out="$out/lock" --quiet >"$out/lock2.txt" 2>&1
check "a second harness on the same --out: refused while the first runs" "[ $? = 1 ] && grep -q 'another bin/sanitize' '$out/lock2.txt'"
for p in $(procs_with "$tok-sleep"); do kill "$p" 2>/dev/null; done
wait $lpid
check "... and the first one's run is not disturbed" "[ $? = 0 ]"
check "... nor leaves anything behind" "none_left '$tok' 30"
cleanup_token "$tok"

# ---- 8_Debugging case folders: runs named in sanitize.expect ----------------

r8=$out/r8
mkdir -p "$r8/8_Debugging/caseA" "$r8/8_Debugging/caseB" "$r8/bin" "$r8/fx"
printf 'include ../../common/sample.mk\n' >"$r8/8_Debugging/caseA/Makefile"
cat >"$r8/8_Debugging/caseA/sanitize.expect" <<'EOF'
run: bin/caseA_buggy --quick
tools: memcheck
memcheck: detect oob-global-read at oob_read.cu:9
memcheck: allow api-error
memcheck: allow leak
run: bin/caseA_fixed --quick
EOF
printf 'run: bin/caseB_fixed --quick\ntools: racecheck\n' >"$r8/8_Debugging/caseB/sanitize.expect"  # no Makefile
for b in caseA_buggy caseA_fixed caseB_fixed; do cp bin/planted_clean "$r8/bin/$b"; done
cp 9_Verification/sanitize/tests/fixtures/planted_oob_read.memcheck.xml "$r8/fx/caseA_buggy.memcheck.xml"
bin/sanitize --root="$r8" --list >"$out/r8.txt" 2>&1
check "8_Debugging cases: discovered, with and without a Makefile (6 runs)" \
    "[ $? = 0 ] && grep -q 'sanitize: 6 runs' '$out/r8.txt' && grep -q '^caseB_fixed ' '$out/r8.txt'"
bin/sanitize --root="$r8" --sample=caseA --list >"$out/r8a.txt" 2>&1
check "8_Debugging cases: --sample=<case folder> selects its buggy and fixed runs" "grep -q 'sanitize: 5 runs' '$out/r8a.txt'"
FAKE_FIXTURES="$r8/fx" bin/sanitize --root="$r8" --folder=8_Debugging --sanitizer=$fake --assume-gpus=2 --out="$out/r8o" --quiet >"$out/r8o.txt" 2>&1
check "8_Debugging cases: buggy DETECTED, fixed CLEAN" "[ $? = 0 ] && grep -q '6 runs: 5 CLEAN, 1 DETECTED' '$out/r8o.txt'"

# ---- the CI recipe and the README tables --------------------------------------

ci=9_Verification/sanitize/ci
if python3 -c 'import yaml' 2>/dev/null; then
    check "the CI jobs are valid YAML" "python3 -c 'import sys, yaml; [yaml.safe_load(open(f)) for f in sys.argv[1:]]' $ci/github-actions.yml $ci/gitlab-ci.yml"
fi
check "the CI jobs run bin/sanitize into build/sanitize and read its JUnit file" \
    "grep -q 'bin/sanitize --out=build/sanitize' $ci/github-actions.yml && grep -q 'report_paths: build/sanitize/sanitize.junit.xml' $ci/github-actions.yml && grep -q 'bin/sanitize --out=build/sanitize' $ci/gitlab-ci.yml && grep -q 'junit: build/sanitize/sanitize.junit.xml' $ci/gitlab-ci.yml"
check "the README shows the CI jobs as they are in ci/" \
    "grep -q 'report_paths: build/sanitize/sanitize.junit.xml' 9_Verification/sanitize/README.md && grep -q 'junit: build/sanitize/sanitize.junit.xml' 9_Verification/sanitize/README.md"
rr=$out/rr
mkdir -p "$rr/9_Verification/sanitize" "$rr/9_Verification/planted"
cp 9_Verification/sanitize/README.md "$rr/9_Verification/sanitize/"
cp 9_Verification/planted/README.md "$rr/9_Verification/planted/"
9_Verification/sanitize/readme_results.sh "$out/a" "$rr" >/dev/null 2>&1
check "readme_results.sh fills both tables from a run's summary.txt" \
    "[ $? = 0 ] && grep -q '^| planted_barrier | synccheck | DETECTED |' '$rr/9_Verification/planted/README.md' && grep -q '^| planted_clean | CLEAN | CLEAN | CLEAN | CLEAN |' '$rr/9_Verification/sanitize/README.md' && grep -q '<!-- results:end -->' '$rr/9_Verification/sanitize/README.md'"
9_Verification/sanitize/readme_results.sh "$out/nothing" "$rr" >/dev/null 2>&1
check "readme_results.sh without a summary: exit 1" "[ $? = 1 ]"
check "the committed READMEs' tables are empty until filled from a real run" \
    "[ \$(sed -n '/results:begin/,/results:end/p' 9_Verification/sanitize/README.md | wc -l) -le 2 ] || grep -q 'Measured: .*results/H200' 9_Verification/sanitize/README.md"

rm -rf "$out"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
