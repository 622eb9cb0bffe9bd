#!/bin/sh
# run.sh [--src=SOURCE.cu] [VARIANT...]: build and run the CPU simulation of
# the histogram's kernels (see sim.cpp), for every variant or those named.
# SOURCE defaults to ../../histogram.cu; give another (a planted-bug copy) to
# see whether the checks catch it. About 3 minutes for all variants on two
# cores (it starts a thread per CUDA thread); a failing variant stops at its
# first mismatch. Exit 0 and "SIM PASS" last when every kernel matched the CPU.
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../histogram.cu
case "${1:-}" in --src=*) src=${1#--src=}; shift ;; esac
root=$here/../../../..
work=${TMPDIR:-/tmp}/histogram_cpu_sim.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
sed -n '/^\/\* ---- kernels/,/^\/\* ---- launchers/p' "$src" |
    sed '/^\/\* ---- PTX helpers/,/^\/\* ---- end of PTX helpers/d' |
    sed 's|extern __shared__ unsigned smem\[\];|unsigned *smem = g_dyn_smem;|' > "$work/kernels.inc"
grep -q 'g_dyn_smem' "$work/kernels.inc" || { echo "run.sh: no dynamic shared memory line found in $src"; exit 1; }
gcc -std=c11 -O2 -I"$root/common" -c "$root/common/cpu_ref.c" -o "$work/cpu_ref.o"
gcc -std=c11 -O2 -I"$root/common" -c "$here/../../hist_host.c" -o "$work/hist_host.o"
g++ -std=c++20 -O1 -w -pthread -I"$work" -I"$here/../.." -I"$root/common" \
    "$here/sim.cpp" "$work/cpu_ref.o" "$work/hist_host.o" -o "$work/sim" 2>"$work/build.log" ||
    { cat "$work/build.log"; exit 1; }
"$work/sim" "$@"
