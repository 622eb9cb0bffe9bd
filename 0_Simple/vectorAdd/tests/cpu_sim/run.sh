#!/bin/sh
# run.sh [--exercise=FILE] [--src=FILE.cu]: vectorAdd's kernels run on the CPU
# (sim.cpp), checked as the sample checks them: n = 1, 3, 1000, 4097, 2^17+3
# and 2^20+5, on the grid each launcher picks (the grid-stride kernels' grid
# is an H200's: 132 SMs x 8 blocks of 256 threads) and, at the sizes up to
# 2^17+3, on a grid of 3 blocks, where every thread of a grid-stride loop goes
# round it; every element of c compared exactly, and 1024 poisoned floats
# after it watched. Without --exercise it checks the sample's naive and
# grid_stride_float4; with it, the exercise in FILE (what `make try` runs
# where there is no GPU). --src checks another copy of vectorAdd.cu (a
# planted bug). Exit 0 and "SIM PASS: ..." when every element is right, 1 and
# "SIM FAIL: ..." naming the first wrong one (or the compiler's or
# AddressSanitizer's message), 2 when the simulation itself cannot be built.
# A few seconds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
. "$root/tests/support/cpu_sim_lib.sh"
sim_options vectorAdd "$@"
# the sample's kernels and launchers (from "---- kernels" up to its exercise
# hook), then the exercise; each `kernel<<<grid, block[, smem, stream]>>>(args);`
# becomes SIM_LAUNCH(grid, block, kernel(args)); (perl: a non-greedy match)
launches='s/(\w+)\s*<<<\s*(.*?)\s*,\s*(.*?)\s*(?:,[^;]*?)?>>>\s*\((.*)\);/SIM_LAUNCH($2, $3, $1($4));/'
sed -n '/^\/\* ---- kernels/,/^#ifdef EXERCISE/p' "$src" | sed '$d' | perl -pe "$launches" >"$work/kernels.inc"
if ! grep -q 'SIM_LAUNCH' "$work/kernels.inc"; then
    echo "run.sh: found no kernel launch between '/* ---- kernels' and '#ifdef EXERCISE' in $src"
    exit 2
fi
[ -z "$exercise" ] || perl -pe "$launches" "$exercise" >>"$work/kernels.inc"
sim_build -std=c++17
sim_run "the arrays"
