#!/bin/sh
# run.sh [--exercise=FILE] [--src=FILE.cu] [--quick] [VARIANT...]: the
# reduction's kernels run on the CPU (sim.cpp, cuda_sim.h), through the
# sample's own launchers and variant table, checked as the sample checks
# them: every variant (or those named) at n = 1, 2, 31, 33, 1000, 4097 with
# 256 threads, 5001 with 32 (three passes), 1000 with 64 and 3001 with 1024,
# the grid-stride variants also at 40001 and on a 3-block grid; float (int
# and double at 33 and 5001); each case in three schedules (cuda_sim.h).
# Two to three minutes on two busy cores; --quick, fewer sizes (about half).
#   --exercise=FILE  build FILE in as the variant "exercise" (what `make try`
#                    runs without a GPU) and check only that
#   --src=FILE.cu    simulate another copy of reduction.cu (a planted bug);
#                    its kernels/ beside it, and ../../common from it
# Exit 0 and "SIM PASS: ..." when every run was exact; 1 and "SIM FAIL: ..."
# (the variant, type, size, block, schedule and what was wrong, or the
# compiler's message); 2 when the simulation itself cannot be built.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../reduction.cu
exercise=
args=
for a in "$@"; do
    case $a in
        --exercise=*) exercise=${a#--exercise=} ;;
        --src=*) src=${a#--src=} ;;
        --quick|[a-z]*) args="$args $a" ;;
        *) echo "run.sh: unknown argument '$a' (--exercise=FILE, --src=FILE.cu, --quick, variant names)" >&2; exit 2 ;;
    esac
done
for f in "$src" ${exercise:+"$exercise"}; do
    [ -f "$f" ] || { echo "run.sh: no such file: $f" >&2; exit 2; }
done
srcdir=$(cd "$(dirname "$src")" && pwd)
common=$(cd "$srcdir/../../common" && pwd) || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/reduction_cpu_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include/cub/device" "$work/include/cooperative_groups" "$work/kernels"
for h in cuda_runtime.h cuda_runtime_api.h cooperative_groups.h cooperative_groups/reduce.h \
         cub/device/device_reduce.cuh; do
    echo '#include "cuda_sim.h"' >"$work/include/$h"
done
rewrite() { sed -E -f "$here/cuda_sim.sed" "$1"; }
rewrite "$common/reduce_device.cuh" >"$work/include/reduce_device.cuh"
for k in "$srcdir"/kernels/*.cuh; do rewrite "$k" >"$work/kernels/$(basename "$k")"; done
# reduction.cu from its kernel includes to its options: kernels, launchers, table
sed -n '/^\/\* ---- kernels/,/^\/\* ---- options/p' "$src" | sed '$d' >"$work/part.cu"
rewrite "$work/part.cu" >"$work/reduction_part.inc"
grep -q 'static const variant variants' "$work/reduction_part.inc" ||
    { echo "run.sh: no variant table between '/* ---- kernels' and '/* ---- options' in $src" >&2; exit 2; }
flags=
if [ -n "$exercise" ]; then
    rewrite "$exercise" >"$work/exercise.cuh"
    flags=-DEXERCISE='"exercise.cuh"'
    args="$args exercise"
fi
if grep -nE '<<<.*>>>[[:space:]]*\(' "$work"/*.inc "$work"/kernels/*.cuh "$work"/include/*.cuh ${exercise:+"$work/exercise.cuh"} 2>/dev/null; then
    echo "run.sh: a launch above was not rewritten (each launch must be on one line)" >&2
    exit 2
fi
if ! g++ -std=c++20 -O1 -g -w ${flags:+"$flags"} -I"$work/include" -I"$work" -I"$here" -I"$common" \
        "$here/sim.cpp" -o "$work/sim" 2>"$work/build.log"; then
    if [ -n "$exercise" ] && grep -q 'exercise.cuh' "$work/build.log"; then  # the exercise does not compile: a FAIL
        sed "s|$work/exercise.cuh|$exercise (as simulated)|g" "$work/build.log" >"$work/errors"
        grep -A2 '(as simulated):[0-9]*:[0-9]*: error' "$work/errors" | head -n 20
        echo "SIM FAIL: the exercise does not compile for the CPU simulation (the compiler's words above)"
        exit 1
    fi
    head -n 40 "$work/build.log"
    echo "run.sh: the simulation did not build"
    exit 2
fi
# shellcheck disable=SC2086  # $args: --quick and variant names
"$work/sim" $args
