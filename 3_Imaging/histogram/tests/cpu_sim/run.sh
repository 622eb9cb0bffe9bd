#!/bin/sh
# run.sh [--sample=DIR] [--exercise=FILE] [VARIANT...]: build and run the CPU
# simulation of the histogram's kernels (see sim.cpp), for every variant or
# those named.
#   --sample=DIR    the sample folder to take the kernels from (default: this
#                   one); give a copy with a planted bug to see whether the
#                   checks catch it.
#   --exercise=FILE an exercise file (exercises/exN_<name>.cuh or its answer):
#                   simulate only its kernel, the variant `exercise`. FILE is
#                   taken from the current folder, else from the sample's.
# The kernels are the sample's own files, kernels/NN_*.cuh, in the order
# histogram.cu includes them (copied with their dynamic shared memory pointed
# at the simulator's), and the variants must be those of histogram.cu's
# table. Seconds for every variant (a fiber per CUDA thread, all on one
# core); a failing variant stops at its first mismatch. Exit 0 and
# "SIM PASS" last when every kernel matched the CPU, 1 when one did not
# ("SIM FAIL"), 2 when the simulation could not be built or run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sample=$here/../..
exercise=
while [ $# -gt 0 ]; do
    case $1 in
    --sample=*) sample=${1#--sample=}; shift ;;
    --exercise=*) exercise=${1#--exercise=}; shift ;;
    --help | -h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) echo "run.sh: unknown option $1"; exit 2 ;;
    *) break ;;
    esac
done
[ -f "$sample/histogram.cu" ] || { echo "run.sh: $sample/histogram.cu not found"; exit 2; }
sample=$(cd "$sample" && pwd)
if [ -n "$exercise" ]; then
    if [ -f "$exercise" ]; then exercise=$(cd "$(dirname "$exercise")" && pwd)/$(basename "$exercise")
    elif [ -f "$sample/$exercise" ]; then exercise=$sample/$exercise
    else echo "run.sh: exercise file $exercise not found"; exit 2; fi
fi
root=$here/../../../..
work=$(mktemp -d "${TMPDIR:-/tmp}/histogram_cpu_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

# copy FILE DEST: a kernel file with its dynamic shared memory made the
# simulator's (the one form the kernels use for it).
copy() {
    sed 's|extern __shared__ unsigned smem\[\];|unsigned *smem = g_dyn_smem;|' "$1" >"$2" || exit 2
    if grep -q 'extern __shared__' "$2"; then
        echo "run.sh: $1 declares dynamic shared memory in a form the simulator does not know:"
        grep -n 'extern __shared__' "$1"
        exit 2
    fi
}
mkdir -p "$work/kernels"
: >"$work/kernels.inc"
for f in $(sed -n 's|^#include "\(kernels/[^"]*\)"$|\1|p' "$sample/histogram.cu"); do
    copy "$sample/$f" "$work/$f"
    echo "#include \"$f\"" >>"$work/kernels.inc"
done
grep -q 01_global_atomics "$work/kernels.inc" || { echo "run.sh: no kernel files included by $sample/histogram.cu"; exit 2; }
defs=
if [ -n "$exercise" ]; then
    copy "$exercise" "$work/exercise.cuh"
    echo '#include "exercise.cuh"' >>"$work/kernels.inc"
    defs=-DEXERCISE
    set -- exercise
fi
gcc -std=c11 -O2 -I"$root/common" -c "$root/common/cpu_ref.c" -o "$work/cpu_ref.o" || exit 2
gcc -std=c11 -O2 -I"$root/common" -c "$sample/hist_host.c" -o "$work/hist_host.o" || exit 2
g++ -std=c++20 -O1 -w $defs -I"$work" -I"$sample" -I"$root/common" \
    "$here/sim.cpp" "$work/cpu_ref.o" "$work/hist_host.o" -o "$work/sim" 2>"$work/build.log" ||
    { cat "$work/build.log"; echo "SIM ERROR (build)"; exit 2; }

# The simulator's variants must be histogram.cu's (cub, the library, aside).
table=$(sed -n '/^static const variant variants\[\] = {/,/^};/p' "$sample/histogram.cu" |
        sed -n 's/^ *{"\([a-z0-9_]*\)".*/\1/p' | grep -v -x -e cub -e exercise)
sim=$("$work/sim" --list | grep -v -x exercise)
if [ "$table" != "$sim" ]; then
    echo "run.sh: the simulator's variants differ from histogram.cu's table:"
    echo "  table: $(echo $table)"
    echo "  sim:   $(echo $sim)"
    exit 2
fi
"$work/sim" "$@"
