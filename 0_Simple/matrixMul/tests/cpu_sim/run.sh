#!/bin/sh
# run.sh [--src=FILE.cu] [--quick] [VARIANT...]: build and run the CPU
# simulation of matrixMul's kernels (see sim.cpp), for every variant or those
# named, at the check shapes of a full run or of --quick, each variant also
# at its tile shape. FILE defaults to ../../matrixMul.cu; give another (a
# planted-bug copy: its folder's mm_host.h is used too) to see whether the
# checks catch it. About 5 minutes for all variants on 2 cores, under a
# minute with --quick; exit 0 and "SIM PASS" last when every run matched.
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../matrixMul.cu
case "${1:-}" in --src=*) src=${1#--src=}; shift ;; esac
srcdir=$(cd "$(dirname "$src")" && pwd)
work=${TMPDIR:-/tmp}/matrixMul_cpu_sim.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
sed -n '/^\/\* ---- device helpers/,/^\/\* ---- launchers/p' "$src" |
    sed 's|extern __shared__ __align__(16) float smem\[\];|float *smem = g_dyn_smem;|' \
        > "$work/kernels.inc"
g++ -std=c++20 -O1 -w -pthread -I"$work" -I"$srcdir" -I"$here/../.." "$here/sim.cpp" -o "$work/sim"
"$work/sim" "$@"
