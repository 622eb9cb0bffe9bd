#!/bin/sh
# run.sh [--exercise=FILE] [--src=FILE.cu]: firstKernel's kernel run on the
# CPU (sim.cpp), checked as the sample checks it, at n = 1, 1000, 65537,
# 100003 and 300007 with the elements past the end watched. Without
# --exercise it checks the sample's own saxpy; with it, the exercise in FILE
# (what `make try` runs where there is no GPU). --src checks another copy of
# firstKernel.cu (a planted bug). Exit 0 and "SIM PASS: ..." when every
# element is right, 1 and "SIM FAIL: ..." naming the first wrong one (or the
# compiler's or AddressSanitizer's message), 2 when the simulation itself
# cannot be built. A few seconds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
. "$root/tests/support/cpu_sim_lib.sh"
sim_options firstKernel "$@"
# the sample's kernel and launcher (up to its exercise hook), then the exercise;
# each `kernel<<<grid, block>>>(args);` becomes SIM_LAUNCH(grid, block, kernel(args));
launches='s/\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*<<<\(.*\),[[:space:]]*\([^,]*\)>>>[[:space:]]*(\(.*\));/SIM_LAUNCH(\2, \3, \1(\4));/'
sed -n '/^__global__/,/^#ifdef EXERCISE/p' "$src" | sed '$d' | sed "$launches" >"$work/kernels.inc"
[ -z "$exercise" ] || sed "$launches" "$exercise" >>"$work/kernels.inc"
sim_build -std=c++17
sim_run "the arrays"
