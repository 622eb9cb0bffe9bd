#!/bin/sh
# run.sh [--exercise=FILE] [--src=FILE.cu]: firstKernel's kernel run on the
# CPU (sim.cpp), checked as the sample checks it, at n = 1, 1000, 65537,
# 100003 and 300007 with the elements past the end watched. Without
# --exercise it checks the sample's own saxpy; with it, the exercise in FILE
# (what `make try` runs where there is no GPU). --src checks another copy of
# firstKernel.cu (a planted bug). Exit 0 and "SIM PASS: ..." when every
# element is right, 1 and "SIM FAIL: ..." naming the first wrong one (or the
# compiler's or AddressSanitizer's message), 2 when the simulation itself
# cannot be built. A few seconds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../firstKernel.cu
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
work=$(mktemp -d "${TMPDIR:-/tmp}/firstKernel_cpu_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
# the sample's kernel and launcher (up to its exercise hook), then the exercise;
# each `kernel<<<grid, block>>>(args);` becomes SIM_LAUNCH(grid, block, kernel(args));
launches='s/\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*<<<\(.*\),[[:space:]]*\([^,]*\)>>>[[:space:]]*(\(.*\));/SIM_LAUNCH(\2, \3, \1(\4));/'
sed -n '/^__global__/,/^#ifdef EXERCISE/p' "$src" | sed '$d' | sed "$launches" >"$work/kernels.inc"
flags=
if [ -n "$exercise" ]; then
    sed "$launches" "$exercise" >>"$work/kernels.inc"
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
ASAN_OPTIONS=detect_leaks=0:exitcode=1 "$work/sim"
