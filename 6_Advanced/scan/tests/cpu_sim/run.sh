#!/bin/sh
# run.sh [--src=FILE.cu | --sample=DIR] [--quick] [VARIANT...]: the scan's kernels run on the
# CPU (sim.cpp, with the reduction's cuda_sim.h: a fiber per CUDA thread,
# barriers and warp operations), through the sample's own launchers and
# variant table, checked as the sample checks them: every variant (or those
# named), inclusive and exclusive, int32 (exact) and float32, at n = 1, 2,
# 1000, 4097 and 12289 (four look-back tiles), each in three schedules.
# Blocks run one after another here, so the look-back always finds its
# predecessors finished: the simulator checks its arithmetic and its
# barriers, never its waiting or its memory ordering (the GPU does).
#   --src=FILE.cu    simulate another copy of scan.cu (a planted bug); its
#                    kernels/ and scan_cpu.c beside it, ../../common from it
#                    (this tree's common/ when the copy has none)
#   --sample=DIR     the same for DIR/scan.cu (tests/support/mutants_sim.sh)
#   --quick          int32 only, n = 1, 1000 and 12289
# Exit 0 and "SIM PASS: ..." when every run matched; 1 and "SIM FAIL: ..."
# (the variant, type, kind, size, schedule and the first mismatch); 2 when
# the simulation itself cannot be built.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../scan.cu
args=
for a in "$@"; do
    case $a in
        --src=*) src=${a#--src=} ;;
        --sample=*) src=${a#--sample=}/scan.cu ;;
        --quick|[a-z]*) args="$args $a" ;;
        *) echo "run.sh: unknown argument '$a' (--src=FILE.cu, --quick, variant names)" >&2; exit 2 ;;
    esac
done
[ -f "$src" ] || { echo "run.sh: no such file: $src" >&2; exit 2; }
srcdir=$(cd "$(dirname "$src")" && pwd)
# the common layer beside the copy, else this tree's (a copy of the folder alone)
common=$(cd "$srcdir/../../common" 2>/dev/null && pwd) || common=$(cd "$here/../../../../common" && pwd) || exit 2
simh=$(cd "$here/../../../../0_Simple/reduction/tests/cpu_sim" && pwd) || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/scan_cpu_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include/cub/device" "$work/kernels"
for h in cuda_runtime.h cuda_runtime_api.h cub/device/device_scan.cuh; do
    echo '#include "cuda_sim.h"' >"$work/include/$h"
done
rewrite() { sed -E -f "$simh/cuda_sim.sed" "$1"; }
# The look-back's two PTX instructions become the C++ atomics they stand for.
for k in "$srcdir"/kernels/*.cuh; do
    rewrite "$k" | sed -E \
        -e 's|asm volatile\("st\.relaxed\.gpu\.global\.u64 \[%0\], %1;" ::"l"\(p\), "l"\(w\) : "memory"\);|std::atomic_ref<unsigned long long>(*p).store(w, std::memory_order_relaxed);|' \
        -e 's|asm volatile\("ld\.relaxed\.gpu\.global\.u64 %0, \[%1\];" : "=l"\(w\) : "l"\(p\) : "memory"\);|w = std::atomic_ref<unsigned long long>(*(unsigned long long *)p).load(std::memory_order_relaxed);|' \
        >"$work/kernels/$(basename "$k")"
done
if grep -n 'asm' "$work"/kernels/*.cuh; then
    echo "run.sh: inline PTX above that the simulator does not know" >&2
    exit 2
fi
# scan.cu from its kernel includes to its options: kernels, launchers, table
sed -n '/^\/\* ---- kernels/,/^\/\* ---- options/p' "$src" | sed '$d' >"$work/part.cu"
rewrite "$work/part.cu" >"$work/scan_part.inc"
grep -q 'static const variant variants' "$work/scan_part.inc" ||
    { echo "run.sh: no variant table between '/* ---- kernels' and '/* ---- options' in $src" >&2; exit 2; }
if grep -nE '<<<.*>>>[[:space:]]*\(' "$work"/*.inc "$work"/kernels/*.cuh; then
    echo "run.sh: a launch above was not rewritten (each launch must be on one line)" >&2
    exit 2
fi
gcc -std=c11 -O2 -I"$common" -c "$srcdir/scan_cpu.c" -o "$work/scan_cpu.o" || exit 2
if ! g++ -std=c++20 -O1 -g -w -I"$work/include" -I"$work" -I"$simh" -I"$srcdir" -I"$common" \
        "$here/sim.cpp" "$work/scan_cpu.o" -o "$work/sim" 2>"$work/build.log"; then
    head -n 40 "$work/build.log"
    echo "run.sh: the simulation did not build"
    exit 2
fi
# shellcheck disable=SC2086  # $args: --quick and variant names
"$work/sim" $args
