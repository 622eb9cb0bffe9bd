# cuda_sim.sed: the two rewrites that let g++ compile CUDA C for cuda_sim.h
# (sed -E -f cuda_sim.sed FILE). Each launch must be on one line.
# kernel[<template args>]<<<config>>>(args);  ->  sim::launch(sim::config(config), [&] { kernel(args); });
s/([A-Za-z_][A-Za-z0-9_:]*(<[^;]*>)?)[[:space:]]*<<<(.*)>>>[[:space:]]*\((.*)\);/sim::launch(sim::config(\3), [\&] { \1(\4); });/
# extern __shared__ [__align__(N)] T name[];  ->  T *name = (T *)sim::dynamic_smem();
s/extern[[:space:]]+__shared__[[:space:]]+(__align__\([0-9]+\)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_ ]*[A-Za-z0-9_])[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)\[\];/\2 *\3 = (\2 *)sim::dynamic_smem();/
