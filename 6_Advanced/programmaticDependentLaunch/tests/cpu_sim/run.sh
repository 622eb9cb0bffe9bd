#!/bin/sh
# run.sh [--sample=DIR] [VARIANT...]: programmaticDependentLaunch's kernels
# (kernels/*.cuh) run on the CPU by sim.cpp, one fiber per GPU thread,
# with the most overlap programmatic dependent launch allows: chains of 10
# kernels, n = 1 and 100 (blocks of 32, the last partial), prologues 0 and
# 64, bodies of 1 and 3 rounds, checked exactly against pdl_chain_cpu, x
# watched by AddressSanitizer.
# A read of x before cudaGridDependencySynchronize() fails here every time
# (on the GPU only when the timing goes that way). The launchers, graphs and
# checks of programmaticDependentLaunch.cu are not simulated.
#   --sample=DIR   the sample folder to simulate (default: this one); give a
#                  copy with a planted bug to see whether the check catches it
#   VARIANT...     stream, pdl_sync, pdl_trigger (default: all three; the
#                  graph variants run the same kernels under the same rules)
# Exit 0 and "SIM PASS" last when every chain matched, 1 and "SIM FAIL" when
# one did not, 2 when the simulation could not be built. Seconds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
sample=$here/../..
while [ $# -gt 0 ]; do
    case $1 in
    --sample=*) sample=${1#--sample=}; shift ;;
    --help | -h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) echo "run.sh: unknown option $1"; exit 2 ;;
    *) break ;;
    esac
done
[ -f "$sample/kernels/00_step.cuh" ] || { echo "run.sh: no kernels/00_step.cuh in $sample"; exit 2; }
sample=$(cd "$sample" && pwd)
# The graph variants are the pdl_trigger and stream kernels under the same rules.
# shellcheck disable=SC2046  # variant names are single words
set -- $(for v in "$@"; do case $v in graph) echo stream ;; graph_pdl*) echo pdl_trigger ;; *) echo "$v" ;; esac; done)
work=$(mktemp -d "${TMPDIR:-/tmp}/pdl_cpu_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
if ! g++ -std=c++17 -O1 -g -w -fsanitize=address -fno-omit-frame-pointer \
        -I"$sample" -I"$root/common" "$here/sim.cpp" -x c "$sample/pdl_chain.c" \
        -o "$work/sim" 2>"$work/build.log"; then
    if grep -q 'kernels/' "$work/build.log"; then
        head -n 20 "$work/build.log"
        echo "SIM FAIL: a kernel does not compile on the CPU simulation"
        exit 1
    fi
    cat "$work/build.log"
    echo "run.sh: the simulation did not build"
    exit 2
fi
ASAN_OPTIONS=detect_leaks=0:exitcode=1 "$work/sim" "$@" >"$work/out" 2>&1
rc=$?
cat "$work/out"
if [ $rc -eq 1 ] && ! grep -q '^SIM FAIL' "$work/out"; then
    echo "SIM FAIL: a kernel made an access outside x (AddressSanitizer's report above)"
fi
exit $rc
