#!/bin/sh
# run.sh [--sample=DIR] [VARIANT...]: build and run the CPU simulation of the
# clusters sample's histogram kernels (see sim.cpp), every variant or those
# named.
#   --sample=DIR    the sample folder to take the kernels from (default: this
#                   one); give a copy with a planted bug to see whether the
#                   checks catch it (tests/cpu_sim/mutants_sim.sh does).
# The kernels are the sample's own files, kernels/00_common.cuh to
# kernels/07_*.cuh, in the order clusters.cu includes them (the DSMEM probe,
# dsmem_probe.cuh, is inline PTX and is not simulated), copied with their dynamic shared
# memory pointed at the simulated block's. Under a minute on two cores.
# Exit 0 and "SIM PASS" last when every kernel matched the CPU, 1 when one
# did not ("SIM FAIL"), 2 when the simulation could not be built or run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sample=$here/../..
while [ $# -gt 0 ]; do
    case $1 in
    --sample=*) sample=${1#--sample=}; shift ;;
    --help | -h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) echo "run.sh: unknown option $1"; exit 2 ;;
    *) break ;;
    esac
done
[ -f "$sample/clusters.cu" ] || { echo "run.sh: $sample/clusters.cu not found"; exit 2; }
sample=$(cd "$sample" && pwd)
root=$here/../../../..
work=$(mktemp -d "${TMPDIR:-/tmp}/clusters_cpu_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

# copy FILE DEST: a kernel file with its dynamic shared memory made the
# simulator's, and without the CUDA header (sim.cpp defines what it uses).
copy() {
    sed -e 's|extern __shared__ unsigned slice_bins\[\];|unsigned *slice_bins = sim_smem();|' \
        -e '/#include <cooperative_groups.h>/d' "$1" >"$2" || exit 2
    if grep -q 'extern __shared__' "$2"; then
        echo "run.sh: $1 declares dynamic shared memory in a form the simulator does not know:"
        grep -n 'extern __shared__' "$1"
        exit 2
    fi
}
mkdir -p "$work/kernels"
: >"$work/kernels.inc"
for f in $(sed -n 's|^#include "\(kernels/[^"]*\)"$|\1|p' "$sample/clusters.cu"); do
    copy "$sample/$f" "$work/$f"
    echo "#include \"$f\"" >>"$work/kernels.inc"
done
grep -q 01_global_atomics "$work/kernels.inc" || { echo "run.sh: no kernel files included by $sample/clusters.cu"; exit 2; }
gcc -std=c11 -O2 -I"$root/common" -c "$sample/clusters_cpu.c" -o "$work/clusters_cpu.o" || exit 2
g++ -std=c++20 -O1 -w -I"$work" -I"$sample" -I"$root/common" \
    "$here/sim.cpp" "$work/clusters_cpu.o" -o "$work/sim" 2>"$work/build.log" ||
    { cat "$work/build.log"; echo "SIM ERROR (build)"; exit 2; }

# The simulator's variants must be clusters.cu's (cub, the library, aside).
table=$(sed -n '/^static const variant variants\[\] = {/,/^};/p' "$sample/clusters.cu" |
        sed -n 's/^ *{"\([a-z0-9_]*\)".*/\1/p' | grep -v -x -e cub)
sim=$("$work/sim" --list)
if [ "$table" != "$sim" ]; then
    echo "run.sh: the simulator's variants differ from clusters.cu's table:"
    echo "  table: $(echo $table)"
    echo "  sim:   $(echo $sim)"
    exit 2
fi
"$work/sim" "$@"
