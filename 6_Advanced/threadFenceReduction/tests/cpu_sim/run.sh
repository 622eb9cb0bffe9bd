#!/bin/sh
# run.sh [--exercise=FILE] [--src=FILE.cu]: threadFenceReduction's kernels run
# on the CPU (sim.cpp), one thread per CUDA thread, the blocks of a launch one
# after another in a shuffled order, checked as the sample checks them: exact
# sums of float, double and int at n = 1, 2, 31, 33, 1000, 4097 and 2^17+3,
# on a grid of up to 16 blocks and on one of 3, the partials, the result and
# the guard zones after them poisoned, back-to-back launches on one counter.
# Without --exercise it checks the sample's single_pass, single_pass_u8 and
# multi_pass; with it, the exercise in FILE (what `make try` runs where there
# is no GPU). --src checks another copy of threadFenceReduction.cu (a planted
# bug). Exit 0 and "SIM PASS: ..." when every sum is right, 1 and
# "SIM FAIL: ..." naming the first wrong launch (or the compiler's or
# AddressSanitizer's message, or a block that never finishes), 2 when the simulation itself cannot
# be built. Under a minute.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
src=$here/../../threadFenceReduction.cu
exercise=
for a in "$@"; do
    case $a in
        --exercise=*) exercise=${a#--exercise=} ;;
        --src=*) src=${a#--src=} ;;
        *) echo "run.sh: unknown argument '$a' (--exercise=FILE, --src=FILE.cu)" >&2; exit 2 ;;
    esac
done
for f in "$src" ${exercise:+"$exercise"}; do
    [ -f "$f" ] || { echo "run.sh: no such file: $f" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/threadFenceReduction_cpu_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
# the device code of common/reduce_device.cuh (up to its host helpers), the
# sample's kernels (from "---- kernels" up to its exercise hook), the
# exercise; each `kernel<<<grid, block[, smem, stream]>>>(args);` becomes
# SIM_LAUNCH(grid, block, kernel(args)); (perl: a non-greedy match)
launches='s/([\w<>, ]+?)\s*<<<\s*(.*?)\s*,\s*(.*?)\s*(?:,[^;]*?)?>>>\s*\((.*)\);/SIM_LAUNCH($2, $3, $1($4));/'
{
    sed -n '/^template <typename T> struct acc_of;/,/^\/\* ---- host helpers/p' "$root/common/reduce_device.cuh" | sed '$d'
    sed -n '/^\/\* ---- kernels/,/^#ifdef EXERCISE/p' "$src" | sed '$d'
    [ -z "$exercise" ] || cat "$exercise"
} | perl -pe "$launches" >"$work/kernels.inc"
if ! grep -q 'block_sum' "$work/kernels.inc" || ! grep -q 'reduce_single_pass' "$work/kernels.inc"; then
    echo "run.sh: could not cut the kernels out of common/reduce_device.cuh and $src"
    exit 2
fi
flags=
[ -z "$exercise" ] || flags=-DEXERCISE_FILE
if ! g++ -std=c++20 -O1 -g -w -pthread -fsanitize=address -fno-omit-frame-pointer $flags -I"$work" \
        -I"$root/common" "$here/sim.cpp" -o "$work/sim" 2>"$work/build.log"; then
    if grep -q 'kernels.inc' "$work/build.log"; then   # the kernel does not compile: a FAIL
        sed 's|'"$work"'/kernels.inc|'"${exercise:-$src}"' (as simulated)|' "$work/build.log" | head -n 20
        echo "SIM FAIL: the kernel does not compile on the CPU simulation"
        exit 1
    fi
    cat "$work/build.log"
    echo "run.sh: the simulation did not build"
    exit 2
fi
ASAN_OPTIONS=detect_leaks=0:exitcode=1 "$work/sim" >"$work/out" 2>&1
rc=$?
cat "$work/out"
if [ $rc -eq 1 ] && ! grep -q '^SIM FAIL' "$work/out"; then
    echo "SIM FAIL: the kernel made an access outside its buffers (AddressSanitizer's report above)"
fi
exit $rc
