#!/bin/sh
# run.sh [variant]: build and run the CPU simulation of matrixMul's kernels
# (see sim.cpp). Takes about 5 minutes for all variants on 2 cores; exit 0 = SIM PASS.
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=${TMPDIR:-/tmp}/matrixMul_cpu_sim.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
sed -n '/^\/\* ---- device helpers/,/^\/\* ---- launchers/p' "$here/../../matrixMul.cu" |
    sed 's|extern __shared__ __align__(16) float smem\[\];|float *smem = g_dyn_smem;|' \
        > "$work/kernels.inc"
g++ -std=c++20 -O1 -w -pthread -I"$work" -I"$here/../.." "$here/sim.cpp" -o "$work/sim"
"$work/sim" "$@"
