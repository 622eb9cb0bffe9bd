#!/bin/sh
# run.sh [--full] [--sample=DIR] [--exercise=FILE] [VARIANT...]: build and run
# the CPU simulation of blur's kernels (see sim.cpp) on the --quick check
# geometries (--full: also 1920x1080 and 4097x3001, minutes), radius 1, 2
# and 8, every variant or those named (SIM_VARIANT=name works too).
#   --sample=DIR    the sample folder to simulate (default: this one); give a
#                   copy with a planted bug to see whether the checks catch it.
#   --exercise=FILE an exercise file (exercises/exN_<name>.cuh or its answer):
#                   build it in and simulate only the variant `exercise`. FILE
#                   is taken from the current folder, else from the sample's.
# The kernels are the sample's files, kernels/NN_*.cuh, included as blur.cu
# includes them; the launchers and the variant table are blur.cu's own (its
# "kernels" to "options" sections, each launch rewritten as a sim_launch
# call). About half a minute. Exit 0 and "SIM PASS" last when every run
# matched the reference, 1 when one did not ("SIM FAIL"), 2 when the
# simulation could not be built or named no variant.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
sample=$here/../..
full=
exercise=
while [ $# -gt 0 ]; do
    case $1 in
    --full) full=--full; shift ;;
    --sample=*) sample=${1#--sample=}; shift ;;
    --exercise=*) exercise=${1#--exercise=}; shift ;;
    --help | -h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) echo "run.sh: unknown option $1"; exit 2 ;;
    *) break ;;
    esac
done
[ -f "$sample/blur.cu" ] || { echo "run.sh: $sample/blur.cu not found"; exit 2; }
sample=$(cd "$sample" && pwd)
variants="$*"
[ -n "$variants" ] || variants=${SIM_VARIANT:-}
defs=
if [ -n "$exercise" ]; then
    if [ -f "$exercise" ]; then exercise=$(cd "$(dirname "$exercise")" && pwd)/$(basename "$exercise")
    elif [ -f "$sample/$exercise" ]; then exercise=$sample/$exercise
    else echo "run.sh: exercise file $exercise not found"; exit 2; fi
    defs="-DEXERCISE=\"$exercise\""
    variants=exercise
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/blur_cpu_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
# the kernel includes, launchers and variant table; each launch becomes a sim_launch
sed -n '/^\/\* ---- kernels/,/^\/\* ---- options/p' "$sample/blur.cu" |
    sed -E 's/([A-Za-z_0-9]+(<[^<>]*>)?)<<<([^,]+), ([^,]+), 0, s>>>\((.*)\);/sim_launch(\3, \4, [\&] { \1(\5); });/' \
        > "$work/kernels.inc"
grep -q '#include "kernels/' "$work/kernels.inc" || { echo "run.sh: no kernel files included by $sample/blur.cu"; exit 2; }
if grep -q '<<<' "$work/kernels.inc"; then
    echo "run.sh: a launch was not rewritten:"; grep -n '<<<' "$work/kernels.inc"; exit 2
fi
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
san="-fsanitize=address -fno-omit-frame-pointer"
for c in "$sample/blur_host.c" "$root/common/cpu_ref.c" "$root/common/check.c"; do
    gcc -std=c11 -O1 -g $san -I"$root/common" -I"$CUDA_HOME/include" -c "$c" -o "$work/$(basename "$c" .c).o" || exit 2
done
g++ -std=c++20 -O1 -g -w $san ${defs:+"$defs"} -I"$work" -I"$sample" -I"$root/common" \
    -I"$CUDA_HOME/include" "$here/sim.cpp" "$work"/*.o -o "$work/sim" \
    -L"$CUDA_HOME/lib64" -Wl,-rpath,"$CUDA_HOME/lib64" -lcudart -lm || { echo "SIM ERROR (build)"; exit 2; }
ASAN_OPTIONS=detect_leaks=0 SIM_VARIANT="$variants" "$work/sim" $full
