#!/usr/bin/env bash
# run_tests.sh: runs every test of the suite, several at a time, and prints
# one closing line,
#     tests: N passed, M failed
# The tests:
# 1. every cmocka unit-test program under build/tests/ (built by tests/tests.mk)
# 2. tests/test_*.sh (process tests of every sample binary, the build system)
#    and every <group>/<folder>/tests/test_*.sh a sample or tool ships; each
#    must end its output with a line "N passed, M failed"
# The tests of a tool that did not build are skipped and listed.
#
# Each test runs on its own, its output in a file of its own; as each one
# ends, its output is printed whole, then a progress line:
#     [12/40] tests/test_cli.sh 1057 passed (63 s)
#     [13/40] tests/test_x.sh 10 passed, 2 failed (4 s)
# TEST_JOBS=N runs N tests at a time (default: the number of cores plus one,
# as every test waits for processes of its own part of the time). The
# longest start first: build/tests/durations.tsv keeps each test's seconds
# from the last run; a test it does not know yet starts before those it does.
# The tests are written to run side by side (each in its own mktemp -d, its
# own processes, no fixed sleeps), here and next to another run of the suite,
# except that the tests of one 9_Verification tool run one after another:
# they may share what the tool owns on the machine (the kernel gate's
# sandbox uids, whose processes its hostile test counts).
#
# SIGINT: a test gets the disposition this script was started with (a shell
# ignores SIGINT for its background jobs, as these are; `env` sets it back).
# Exit status: 0 only if nothing failed and at least one test ran.
set -u
cd "$(dirname "$0")/.."

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

tests=()
while IFS= read -r t; do tests+=("$t"); done < <(
    { find build/tests -type f -name 'test_*' -perm -u+x 2>/dev/null
      ls tests/test_*.sh [0-9]_*/*/tests/test_*.sh 2>/dev/null; } | grep -Ev "$skip_re" | sort)
total=${#tests[@]}

# the group of a test: its 9_Verification tool, whose tests never overlap,
# but for those the tool lists in 9_Verification/<tool>/tests/independent
# (one test name a line: tests that start none of what the tool owns on the
# machine, e.g. the kernel gate's rule scans, which run libclang in-process)
group=()
for i in "${!tests[@]}"; do
    g=""
    if [[ ${tests[$i]} =~ ^(build/tests/)?9_Verification/([^/]+)/ ]]; then
        g=${BASH_REMATCH[2]}
        n=$(basename "${tests[$i]}")
        ind="9_Verification/$g/tests/independent"
        [ -f "$ind" ] && grep -qxF -- "$n" "$ind" && g=""
    fi
    group[$i]=$g
done

# Longest first: known durations in decreasing order, unknown tests before
# them (a fresh tree knows none). A tool's tests run one after another, so
# each of them counts as long as all of them together (the chain starts
# early); among unknown ones: a tool's first, then the scripts, then the
# unit-test programs.
durations=build/tests/durations.tsv
declare -A secs=() chain=()
if [ -f "$durations" ]; then
    while IFS=$'\t' read -r s name; do secs[$name]=${s%.*}; done <"$durations"
fi
for i in "${!tests[@]}"; do
    g=${group[$i]}
    [ -n "$g" ] && chain[$g]=$(( ${chain[$g]:-0} + ${secs[${tests[$i]}]:-999999} ))
done
order=()
while IFS=$'\t' read -r _ _ _ i; do order+=("$i"); done < <(
    for i in "${!tests[@]}"; do
        own=${secs[${tests[$i]}]:-999999}
        key=$own
        [ -n "${group[$i]}" ] && key=${chain[${group[$i]}]}
        class=2
        [ -n "${group[$i]}" ] && class=0
        [ -z "${group[$i]}" ] && [[ ${tests[$i]} == *.sh ]] && class=1
        printf '%s\t%s\t%s\t%s\n' "$key" "$own" "$class" "$i"
    done | sort -t$'\t' -k1,1nr -k2,2nr -k3,3n -k4,4n)

jobs=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
case $jobs in ''|*[!0-9]*|0) echo "run_tests: TEST_JOBS=$jobs: want a number of tests at a time, 1 or more" >&2; exit 2 ;; esac

# SIGINT as this script got it (bit 2 of SigIgn): a test started with & would
# otherwise have it ignored, and a ^C at the terminal would not reach it.
prefix=()
sigign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status 2>/dev/null)
if [ -n "$sigign" ] && (( (0x$sigign & 2) == 0 )) && env --default-signal=INT true 2>/dev/null; then
    prefix=(env --default-signal=INT)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/run_tests.XXXXXX") || exit 2
done_fifo=$work/done
mkfifo "$done_fifo" || exit 2
exec 3<>"$done_fifo"
pids=()
stop() {  # the running tests and their children, by pid; then the scratch folder
    local p c
    for p in "${pids[@]}"; do
        [ -n "$p" ] || continue
        for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do kill -TERM "$c" 2>/dev/null; done
        kill -TERM "$p" 2>/dev/null
    done
}
trap 'stop; rm -rf "$work"; exit 130' INT
trap 'stop; rm -rf "$work"; exit 143' TERM
trap 'rm -rf "$work"' EXIT

start() {  # $1 = index into tests: run it, its output to $work/$1.out, "index status seconds" to fd 3
    local i=$1 t=${tests[$1]}
    (
        s=$(date +%s%N)
        case $t in
            *.sh) "${prefix[@]}" bash "$t" ;;
            *) "${prefix[@]}" "$t" ;;
        esac </dev/null >"$work/$i.out" 2>&1 3>&-
        rc=$?
        echo "$i $rc $(( ($(date +%s%N) - s) / 1000000 ))" >&3
    ) &
    pids[$i]=$!
}

passed=0
failed=0
failed_names=()
count_cmocka() {  # $1 = output, $2 = status: "ok bad" from cmocka's lines
    local ok bad
    ok=$(grep -c '^\[       OK \]' "$1")
    # each failed test is named twice (when it fails, and in the closing list)
    bad=$(grep -E '^\[  FAILED  \] ' "$1" | grep -v 'test(s)' | sort -u | wc -l)
    if [ "$2" -ne 0 ] && [ "$bad" -eq 0 ]; then
        bad=1   # crashed or exited early without cmocka's summary
        echo "!! exited with status $2 without reporting a failed test" >>"$1"
    fi
    echo "$ok $bad"
}
count_script() {  # $1 = output, $2 = status: "passed failed" from the last "N passed, M failed"
    local line p f
    line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n1)
    if [ -z "$line" ]; then
        echo "!! printed no 'N passed, M failed' line (status $2)" >>"$1"
        echo "0 1"; return
    fi
    p=$(printf '%s' "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(printf '%s' "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "!! exited with status $2 although it counted no failure" >>"$1"
        f=1
    fi
    echo "$p $f"
}

echo "== $total tests, $jobs at a time (TEST_JOBS); each one's output is printed when it ends"
t0=$(date +%s)
pending=("${order[@]}")
declare -A busy=()
running=0
finished=0
new_secs=()
while [ "$finished" -lt "$total" ]; do
    # start the first pending tests (in order) whose group is free, up to $jobs
    while [ "$running" -lt "$jobs" ]; do
        pick=""
        for k in "${!pending[@]}"; do
            g=${group[${pending[$k]}]}
            if [ -z "$g" ] || [ -z "${busy[$g]:-}" ]; then pick=$k; break; fi
        done
        [ -n "$pick" ] || break
        i=${pending[$pick]}
        unset 'pending[pick]'
        [ -n "${group[$i]}" ] && busy[${group[$i]}]=1
        start "$i"
        running=$((running + 1))
    done
    read -r i rc ms <&3 || break
    wait "${pids[$i]}" 2>/dev/null
    pids[$i]=""
    [ -n "${group[$i]}" ] && busy[${group[$i]}]=""
    running=$((running - 1))
    finished=$((finished + 1))
    t=${tests[$i]}
    case $t in
        *.sh) read -r p f < <(count_script "$work/$i.out" "$rc") ;;
        *) read -r p f < <(count_cmocka "$work/$i.out" "$rc") ;;
    esac
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$f" -gt 0 ] && failed_names+=("$t")
    new_secs+=("$((ms / 1000)).$(printf '%03d' $((ms % 1000)))	$t")
    echo "== $t"
    cat "$work/$i.out"
    result="$p passed"
    [ "$f" -gt 0 ] && result="$p passed, $f failed (exit $rc)"
    printf '[%d/%d] %s %s (%d s)\n' "$finished" "$total" "$t" "$result" $(((ms + 500) / 1000))
done

mkdir -p build/tests && printf '%s\n' "${new_secs[@]}" >"$durations.$$" && mv -f "$durations.$$" "$durations"
echo
for t in "${skipped[@]}"; do
    echo "skipped: the tests of ${t%%: *}, a tool that did not build: ${t#*: }"
done
if [ "${#failed_names[@]}" -gt 0 ]; then
    echo "failures in: ${failed_names[*]}"
fi
echo "($total tests in $(($(date +%s) - t0)) s, $jobs at a time)"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
