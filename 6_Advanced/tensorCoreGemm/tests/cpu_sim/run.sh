#!/bin/sh
# run.sh [--exercise=FILE]: the CPU check of tensorCoreGemm's exercises.
#
# Its kernels need a Hopper GPU (or sm_80 for the first steps) and cannot run
# on the CPU; what each exercise changes is a pure function the kernel uses
# (exercises/README.md), so check_exercise.c builds FILE with gcc and checks
# that function for the properties the kernel relies on: exit 0 and "SIM PASS"
# last when it has them, 1 and "SIM FAIL: <the first problem>" when not (or
# when FILE does not compile). `make try SAMPLE=tensorCoreGemm EX=N` runs it
# when there is no GPU.
# Without --exercise: every exercise as given must FAIL and every reference
# answer (exercises/answers/) PASS; exit 0 when they do.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sample=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tensorCoreGemm_cpu_sim.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# check FILE: build the checker with FILE and run it; its exit status
check() {
    f=$1
    n=$(find "$work" -name 'check*' | wc -l)
    if ! gcc -std=c11 -O1 -Wall -I"$sample" -DEXERCISE_FILE="\"$f\"" "$here/check_exercise.c" \
            -o "$work/check$n" >"$work/cc$n.log" 2>&1; then
        sed -n '1,20p' "$work/cc$n.log"
        echo "SIM FAIL: $f does not compile (the errors above)"
        return 1
    fi
    "$work/check$n"
}

case "${1:-}" in
--exercise=*)
    f=${1#--exercise=}
    [ $# -eq 1 ] || { echo "run.sh: one argument only: --exercise=FILE"; echo "SIM FAIL: bad arguments"; exit 1; }
    case $f in /*) ;; *) f=$PWD/$f ;; esac
    [ -f "$f" ] || { echo "SIM FAIL: no file $f"; exit 1; }
    check "$f"
    exit $?
    ;;
"")
    fails=0
    for f in "$sample"/exercises/ex[0-9]*_*.cuh; do
        [ -f "$f" ] || { echo "SIM FAIL: no exercises in $sample/exercises"; exit 1; }
        a=$sample/exercises/answers/$(basename "$f")
        if check "$f" >"$work/out" 2>&1; then
            echo "  $(basename "$f") as given PASSES its CPU check: it should fail until solved"
            fails=$((fails + 1))
        fi
        if ! check "$a" >"$work/out" 2>&1; then
            sed -n '1,10p' "$work/out"
            echo "  answers/$(basename "$a") FAILS its CPU check"
            fails=$((fails + 1))
        fi
    done
    if [ $fails -eq 0 ]; then echo "SIM PASS: every exercise fails as given, every answer passes"; exit 0; fi
    echo "SIM FAIL: $fails problem(s) above"
    exit 1
    ;;
-h|--help)
    sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
*)
    echo "run.sh: unknown argument '$1' (see --help)"
    echo "SIM FAIL: bad arguments"
    exit 1
    ;;
esac
