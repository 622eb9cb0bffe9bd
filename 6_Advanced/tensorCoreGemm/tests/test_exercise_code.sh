#!/usr/bin/env bash
# test_exercise_code.sh: each exercise's reference answer builds the very kernel of
# the step it stands for, so `make try ... ANSWER=1` shows that step's speed:
#   ex1 (the swizzle)     gemm_mma_ldmatrix<ex1_layout, VEC>  = step 4's <mm_swizzled, VEC>
#   ex2 (the tile order)  gemm_wgmma_tma<ex2_cfg, ...>        = step 9's <wgmma_tma_s3_cfg, ...>
#   ex3 (the descriptor)  gemm_wgmma_tma<wgmma_tma_cfg, ex3_desc> = step 10's
# compared as PTX (nvcc -ptx for compute_90a, the kernel's own names and
# labels taken out; the same PTX gives the same machine code). Exercise 1's
# hook once wrote B's offset as half * 128 + place * 16: correct, but other
# code, 26% slower on the H200; that form must show as a difference here (the
# comparison's own check). Needs nvcc, no GPU.
# Ends with "exercise code tests: N passed, M failed".
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NVCC=${NVCC:-nvcc}
if ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "FAIL: no $NVCC on PATH (set NVCC=...)"
    echo "exercise code tests: 0 passed, 1 failed"
    exit 1
fi

# ptx FILE OUT: tensorCoreGemm.cu built with -DEXERCISE=FILE, as PTX
ptx() {
    "$NVCC" -O3 -std=c++17 -arch=compute_90a -I../../common -DEXERCISE="\"$1\"" -ptx \
        -o "$2" tensorCoreGemm.cu >"$2.log" 2>&1 || { sed -n '1,10p' "$2.log"; return 1; }
}
# same PTX A B: "same" or "differ" for the entries A and B of PTX
same() {
    python3 - "$@" <<'PY'
import re, sys
text, a, b = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
def body(name):
    i = text.find(".entry " + name + "(")
    if i < 0:
        sys.exit("no entry " + name)
    s = text[i:text.index("\n}\n", i)].replace(name, "K")
    s = re.sub(r"\$L__BB\d+_", "$L__BB_", s)          # label numbers
    return re.sub(r"_ZZ\w+?E(\d+\w+)", r"LOCAL_\1", s)   # the kernel's own shared array
print("same" if body(a) == body(b) else "differ")
PY
}
ldm() { echo "_Z17gemm_mma_ldmatrixI$1Lb$2EEvPKtS2_Pfiii"; }
wg() { echo "_Z14gemm_wgmma_tmaI$1Ev14CUtensorMap_stS2_Pfiii"; }

check() {  # WHAT PTX A B WANT
    local got
    got=$(same "$2" "$3" "$4") || { bad "$1: $got"; return; }
    if [ "$got" = "$5" ]; then ok; else bad "$1: the kernels $got, want $5"; fi
}

if ptx exercises/answers/ex1_swizzle.cuh "$tmp/ex1.ptx"; then
    for vec in 1 0; do
        check "ex1 answer, VEC=$vec, against step 4" "$tmp/ex1.ptx" \
            "$(ldm 10ex1_layout $vec)" "$(ldm 11mm_swizzled $vec)" same
    done
else bad "ex1 answer does not build"; fi

if ptx exercises/answers/ex2_tile_order.cuh "$tmp/ex2.ptx"; then
    check "ex2 answer against step 9" "$tmp/ex2.ptx" \
        "$(wg 7ex2_cfg14wg_desc_swz128)" "$(wg 16wgmma_tma_s3_cfg14wg_desc_swz128)" same
else bad "ex2 answer does not build"; fi

if ptx exercises/answers/ex3_wgmma_desc.cuh "$tmp/ex3.ptx"; then
    check "ex3 answer against step 10" "$tmp/ex3.ptx" \
        "$(wg 13wgmma_tma_cfg8ex3_desc)" "$(wg 13wgmma_tma_cfg14wg_desc_swz128)" same
else bad "ex3 answer does not build"; fi

# The comparison's own check: ex1's answer with the old form of B's offset.
old='return (uint32_t)k * 256u + ((uint32_t)chunk / 8u) * 128u + ex_swizzle((uint32_t)k, (uint32_t)chunk % 8u) * 16u;'
sed "s|return (uint32_t)k \* 256u + (((uint32_t)chunk \& ~7u) ^ ex_swizzle((uint32_t)k, (uint32_t)chunk \& 7u)) \* 16u;|$old|" \
    exercises/answers/ex1_swizzle.cuh >"$tmp/ex1_old.cuh"
if ! grep -qF "$old" "$tmp/ex1_old.cuh"; then
    bad "could not write the old form of ex1's B offset (the hook's line changed: update this test)"
elif ptx "$tmp/ex1_old.cuh" "$tmp/ex1_old.ptx"; then
    check "ex1 answer with the old B offset (half * 128 + place * 16), against step 4" "$tmp/ex1_old.ptx" \
        "$(ldm 10ex1_layout 1)" "$(ldm 11mm_swizzled 1)" differ
else bad "ex1 answer with the old B offset does not build"; fi

echo "exercise code tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
