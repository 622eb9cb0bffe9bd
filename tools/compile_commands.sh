#!/usr/bin/env bash
# compile_commands.sh: what `make compile_commands.json` runs. Records, with
# bear (Debian package bear), every compile of a full build into
# compile_commands.json at the top, for clangd and other clang tools: every
# sample, every 8_Debugging case, every tool, the common library and every
# unit test.
# The build goes to a scratch folder (BUILDDIR/BINDIR, removed afterwards),
# so the real build/ and bin/ are left as they are and every compile is seen.
# It also writes .clangd, which adapts those nvcc command lines for clang:
# drops the flags only nvcc understands, adds the CCCL include folder nvcc
# adds by itself (CUB, Thrust and libcu++ live in <cuda>/include/cccl since
# CUDA 13), and parses .cu/.cuh as CUDA C++17. Both files name local paths,
# so both are git-ignored. clangd 17 or newer reads CUDA 13's headers best
# (Debian: clangd-19); clang 19 still misses a few cooperative-groups members
# of CUDA 13, so reduction.cu shows a handful of false errors.
set -eu
cd "$(dirname "$0")/.."
command -v bear >/dev/null || { echo "compile_commands: needs bear (Debian package bear)" >&2; exit 1; }
MAKE=${MAKE:-make}
scratch=$PWD/build/compile_commands
out=compile_commands.json
rm -rf "$scratch" "$out.new"
trap 'rm -rf "$scratch" "$out.new"' EXIT

bear --output "$out.new" -- $MAKE --no-print-directory all \
    BUILDDIR="$scratch/build" BINDIR="$scratch/bin" >"$scratch.log" 2>&1 ||
    { tail -n 20 "$scratch.log"; echo "compile_commands: the build failed (log: $scratch.log)" >&2; exit 1; }
# the common library went to the scratch folder with the rest (BUILDDIR), and
# the unit tests link that one
bear --append --output "$out.new" -- $MAKE --no-print-directory -f tests/tests.mk TB="$scratch/tests" \
    BUILDDIR="$scratch/build" \
    >>"$scratch.log" 2>&1 ||
    { tail -n 20 "$scratch.log"; echo "compile_commands: the unit tests did not build (log: $scratch.log)" >&2; exit 1; }
mv -f "$out.new" "$out"

cuda_home=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
cat >.clangd <<CLANGD
# Written by \`make compile_commands.json\` (tools/compile_commands.sh): how
# clangd reads the nvcc command lines of compile_commands.json.
CompileFlags:
  Remove: [-gencode*, --generate-code*, -Xcompiler*, -Xptxas*, -Xlinker*, -lineinfo, -G, -MMD, -MP, -MF*, -MT*]
  Add: [-Wno-unknown-cuda-version, -I$cuda_home/include/cccl]
---
If:
  PathMatch: .*\.(cu|cuh)
CompileFlags:
  Add: [-xcuda, -std=c++17]
CLANGD
rm -f "$scratch.log"
n=$(grep -c '"file":' "$out" || true)
echo "compile_commands: $out lists $n compiles; .clangd adapts their nvcc flags for clangd"
