#!/bin/sh
# run.sh: run matrixMul's kernels on the CPU (sim.cpp), no GPU needed.
usage() {
    cat <<'EOF'
usage: tests/cpu_sim/run.sh [--src=FILE.cu] [--quick] [VARIANT...]
       tests/cpu_sim/run.sh --exercise=FILE.cuh [--full]

Builds sim.cpp with the kernel files that matrixMul.cu includes (kernels/,
in its order) and runs every variant, or those named, on CPU fibers at the
check shapes of a full run (or of --quick), each variant also at its own
tile shape; compares with a double-precision reference, beta = 0 and -0.5.

  --src=FILE.cu       another copy of matrixMul.cu (a planted-bug copy: its
                      folder's kernels/ and mm_host.h are used too)
  --exercise=FILE     run only an exercise's kernel (exercises/README.md), at
                      the shapes of --quick (--full: all of them): exit 0
                      when it computes the right answer, 1 when not
  --quick             the shapes of --quick (under a minute for everything)
  -h, --help          this text

Exit 0 and "SIM PASS" last when every run matched; 1 on a wrong result, a
build error or a variant of matrixMul.cu without a runner in sim.cpp; 2 on a
bad argument. Under a minute for all variants (a fiber per CUDA thread).
EOF
}
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../matrixMul.cu
exercise=
full=0
while [ $# -gt 0 ]; do
    case $1 in
        --src=*) src=${1#--src=} ;;
        --exercise=*) exercise=${1#--exercise=} ;;
        --full) full=1 ;;
        -h | --help) usage; exit 0 ;;
        *) break ;;
    esac
    shift
done
for f in "$src" $exercise; do
    [ -f "$f" ] || { echo "run.sh: error: $f: no such file" >&2; exit 2; }
done
srcdir=$(cd "$(dirname "$src")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/matrixMul_cpu_sim.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The kernel files as matrixMul.cu includes them, each with its dynamic
# shared memory (extern __shared__) pointed at the simulation's buffer.
smem='s|extern __shared__ __align__(16) float smem\[\];|float *smem = g_dyn_smem;|'
mkdir "$work/kernels"
for f in "$srcdir"/kernels/*.cuh; do sed "$smem" "$f" >"$work/kernels/${f##*/}"; done
cp "$srcdir/mm_host.h" "$work/"
grep '^#include "kernels/' "$src" >"$work/kernels.inc" || {
    echo "run.sh: error: $src includes no kernels/ file" >&2; exit 1; }
defs=
if [ -n "$exercise" ]; then
    { echo "#line 1 \"$exercise\""; sed "$smem" "$exercise"; } >"$work/exercise.cuh"
    defs='-DEXERCISE="exercise.cuh"'
fi
if ! g++ -std=c++20 -O1 -w $defs -I"$work" "$here/sim.cpp" -o "$work/sim"; then
    echo "SIM FAIL: the simulation does not build${exercise:+ with $exercise} (the compiler's errors above)"
    exit 1
fi

if [ -n "$exercise" ]; then
    [ $# -eq 0 ] || { echo "run.sh: error: --exercise runs only the exercise (no $1)" >&2; exit 2; }
    if [ $full = 1 ]; then "$work/sim" exercise; else "$work/sim" --quick exercise; fi
    exit 0
fi
# Every variant of matrixMul.cu's table (but the library's) needs a runner.
"$work/sim" --list | sort >"$work/runners"
sed -n 's/^    {"\([a-z0-9_]*\)", run_.*/\1/p' "$src" | grep -v '^cublas\|^exercise$' | sort >"$work/variants"
missing=$(comm -23 "$work/variants" "$work/runners")
if [ -n "$missing" ]; then
    echo "run.sh: error: variants without a runner in sim.cpp: $missing" >&2
    exit 1
fi
"$work/sim" "$@"
