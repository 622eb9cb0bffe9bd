#!/bin/sh
# run.sh [--exercise=FILE] [--src=FILE.cu]: threadFenceReduction's kernels run
# on the CPU (sim.cpp), one fiber per CUDA thread, the blocks of a launch one
# after another in a shuffled order, checked as the sample checks them: exact
# sums of float, double and int at n = 1, 2, 31, 33, 1000, 4097 and 2^17+3,
# on a grid of up to 16 blocks and on one of 3, the partials, the result and
# the guard zones after them poisoned, back-to-back launches on one counter.
# Without --exercise it checks the sample's single_pass, single_pass_u8 and
# multi_pass; with it, the exercise in FILE (what `make try` runs where there
# is no GPU). --src checks another copy of threadFenceReduction.cu (a planted
# bug). Exit 0 and "SIM PASS: ..." when every sum is right, 1 and
# "SIM FAIL: ..." naming the first wrong launch (or the compiler's or
# AddressSanitizer's message, or a block that never finishes), 2 when the simulation itself cannot
# be built. Under a minute.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
. "$root/tests/support/cpu_sim_lib.sh"
sim_options threadFenceReduction "$@"
# the device code of common/reduce_device.cuh (up to its host helpers), the
# sample's kernels (from "---- kernels" up to its exercise hook), the
# exercise; each `kernel<<<grid, block[, smem, stream]>>>(args);` becomes
# SIM_LAUNCH(grid, block, kernel(args)); (perl: a non-greedy match)
launches='s/([\w<>, ]+?)\s*<<<\s*(.*?)\s*,\s*(.*?)\s*(?:,[^;]*?)?>>>\s*\((.*)\);/SIM_LAUNCH($2, $3, $1($4));/'
{
    sed -n '/^template <typename T> struct acc_of;/,/^\/\* ---- host helpers/p' "$root/common/reduce_device.cuh" | sed '$d'
    sed -n '/^\/\* ---- kernels/,/^#ifdef EXERCISE/p' "$src" | sed '$d'
    [ -z "$exercise" ] || cat "$exercise"
} | perl -pe "$launches" >"$work/kernels.inc"
if ! grep -q 'block_sum' "$work/kernels.inc" || ! grep -q 'reduce_single_pass' "$work/kernels.inc"; then
    echo "run.sh: could not cut the kernels out of common/reduce_device.cuh and $src"
    exit 2
fi
sim_build -std=c++20 -pthread -I"$root/common"
sim_run "its buffers"
