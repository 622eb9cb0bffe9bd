#!/bin/sh
# run.sh [--exercise=FILE] [--src=FILE.cu]: vectorAdd's kernels run on the CPU
# (sim.cpp), checked as the sample checks them: n = 1, 3, 1000, 4097, 2^17+3
# and 2^20+5, on the grid each launcher picks (the grid-stride kernels' grid
# is an H200's: 132 SMs x 8 blocks of 256 threads) and, at the sizes up to
# 2^17+3, on a grid of 3 blocks, where every thread of a grid-stride loop goes
# round it; every element of c compared exactly, and 1024 poisoned floats
# after it watched. Without --exercise it checks the sample's naive and
# grid_stride_float4; with it, the exercise in FILE (what `make try` runs
# where there is no GPU). --src checks another copy of vectorAdd.cu (a
# planted bug). Exit 0 and "SIM PASS: ..." when every element is right, 1 and
# "SIM FAIL: ..." naming the first wrong one (or the compiler's or
# AddressSanitizer's message), 2 when the simulation itself cannot be built.
# A few seconds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../vectorAdd.cu
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
work=$(mktemp -d "${TMPDIR:-/tmp}/vectorAdd_cpu_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
# the sample's kernels and launchers (from "---- kernels" up to its exercise
# hook), then the exercise; each `kernel<<<grid, block[, smem, stream]>>>(args);`
# becomes SIM_LAUNCH(grid, block, kernel(args)); (perl: a non-greedy match)
launches='s/(\w+)\s*<<<\s*(.*?)\s*,\s*(.*?)\s*(?:,[^;]*?)?>>>\s*\((.*)\);/SIM_LAUNCH($2, $3, $1($4));/'
sed -n '/^\/\* ---- kernels/,/^#ifdef EXERCISE/p' "$src" | sed '$d' | perl -pe "$launches" >"$work/kernels.inc"
if ! grep -q 'SIM_LAUNCH' "$work/kernels.inc"; then
    echo "run.sh: found no kernel launch between '/* ---- kernels' and '#ifdef EXERCISE' in $src"
    exit 2
fi
flags=
if [ -n "$exercise" ]; then
    perl -pe "$launches" "$exercise" >>"$work/kernels.inc"
    flags=-DEXERCISE_FILE
fi
if ! g++ -std=c++17 -O1 -g -w -fsanitize=address -fno-omit-frame-pointer $flags -I"$work" \
        "$here/sim.cpp" -o "$work/sim" 2>"$work/build.log"; then
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
    echo "SIM FAIL: the kernel made an access outside the arrays (AddressSanitizer's report above)"
fi
exit $rc
