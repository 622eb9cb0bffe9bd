#!/bin/sh
# run.sh [--full] [BLUR_CU]: build and run the CPU simulation of blur's kernels
# (see sim.cpp) on the --quick check geometries (--full: also 1920x1080 and
# 4097x3001, minutes), radius 1, 2 and 8, every variant; SIM_VARIANT=name runs
# one. BLUR_CU (default ../../blur.cu) lets a planted-bug copy be simulated.
# Exit 0 = SIM PASS.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
full=
if [ "${1:-}" = --full ]; then full=--full; shift; fi
src=${1:-$here/../../blur.cu}
work=${TMPDIR:-/tmp}/blur_cpu_sim.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
# the kernels, launchers and variant table; each launch becomes a sim_launch
sed -n '/^\/\* ---- device helpers/,/^\/\* ---- options/p' "$src" |
    sed -E 's/([A-Za-z_0-9]+(<[^<>]*>)?)<<<([^,]+), ([^,]+), 0, s>>>\((.*)\);/sim_launch(\3, \4, [\&] { \1(\5); });/' \
        > "$work/kernels.inc"
if grep -q '<<<' "$work/kernels.inc"; then
    echo "run.sh: a launch was not rewritten:"; grep -n '<<<' "$work/kernels.inc"; exit 1
fi
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
san="-fsanitize=address -fno-omit-frame-pointer"
for c in "$root/3_Imaging/blur/blur_host.c" "$root/common/cpu_ref.c" "$root/common/check.c"; do
    gcc -std=c11 -O1 -g $san -I"$root/common" -I"$CUDA_HOME/include" -c "$c" -o "$work/$(basename "$c" .c).o"
done
g++ -std=c++20 -O1 -g -w -pthread $san -I"$work" -I"$root/3_Imaging/blur" -I"$root/common" \
    -I"$CUDA_HOME/include" "$here/sim.cpp" "$work"/*.o -o "$work/sim" \
    -L"$CUDA_HOME/lib64" -Wl,-rpath,"$CUDA_HOME/lib64" -lcudart -lm
ASAN_OPTIONS=detect_leaks=0 "$work/sim" $full
