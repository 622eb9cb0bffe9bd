#!/usr/bin/env bash
# test_sass_loop.sh: sass_loop.py on listings written here, in the layout of
# `cuobjdump -sass` (no toolkit needed): the loop it finds, its counts, the
# issue cycles read from the control bits, the distance from a shared load
# to its first use, --range, --kernel, and its errors.
# Ends with "sass_loop tests: N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
tool="$here/../sass_loop.py"
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # check NAME EXPECTED-SUBSTRING OUTPUT
    if grep -qF -- "$2" <<<"$3"; then passed=$((passed + 1)); else
        failed=$((failed + 1)); echo "FAIL: $1: want '$2' in:"; echo "$3" | sed 's/^/    /'; fi
}
check_rc() { # check_rc NAME WANT GOT
    if [ "$2" = "$3" ]; then passed=$((passed + 1)); else
        failed=$((failed + 1)); echo "FAIL: $1: exit $3, want $2"; fi
}

# A kernel whose loop (0x10 .. the branch back) is: an LDS.128 into R8-R11
# (stall 2), 300 FFMAs (stall 1; the 5th reads R9), an IADD3 (stall 4) and
# the branch (stall 5); before the loop one MOV, after it EXIT. Each
# instruction is the line cuobjdump prints: address, text, first word, then
# the second word on a line of its own, the stall count in its bits 41-44.
python3 - "$tmp/k.sass" <<'EOF'
import sys
lines = ['\tcode for sm_90', '\t\tFunction : _Z6kernelPf', '\t.headerflags @"EF_CUDA_SM90"']
addr = 0
def ins(text, stall):
    global addr
    lines.append(f'        /*{addr:04x}*/                   {text} ;   /* 0x000000ff00017802 */')
    lines.append(f'                                                 /* 0x{stall << 41:016x} */')
    addr += 0x10
ins('MOV R1, c[0x0][0x28]', 1)
top = addr
ins('LDS.128 R8, [R2+0x40]', 2)
for i in range(300):
    ins('FFMA R20, R9, R12, R20' if i == 4 else f'FFMA R{20 + i % 64}, R12.reuse, R13, R{20 + i % 64}', 1)
ins('IADD3 R2, R2, 0x4, RZ', 4)
ins(f'@!P0 BRA 0x{top:x}', 5)
ins('EXIT', 1)
lines += ['        ..........', '', '\t\tFunction : _Z5otherPf', '        /*0000*/                   EXIT ;   /* 0x000000ff00017802 */',
          '                                                 /* 0x000fe20000000000 */']
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
EOF

out=$(python3 "$tool" "$tmp/k.sass" 2>&1)
check_rc "a listing with one loop" 0 $?
check "the kernel is named" "_Z6kernelPf" "$out"
check "the loop's extent (from its first instruction to the branch back)" "loop 10-12f0: 303 instructions, 300 FFMA (99.0%)" "$out"
check "the other opcodes" "others: 1 BRA, 1 IADD3, 1 LDS" "$out"
check "issue cycles: 2 + 300 + 4 + 5 stall cycles" "issue cycles (stall counts): 311; FFMA per issue cycle 0.965" "$out"
check "the LDS is first read 5 instructions later (R9 in the 5th FFMA)" "LDS -> first use: min 5, median 5 instructions; 1 of 1 under 32" "$out"
check "the MOV before the loop and EXIT after it are not counted" "303 instructions" "$out"

out=$(python3 "$tool" --kernel other "$tmp/k.sass" 2>&1)
check_rc "--kernel naming a kernel without a loop" 1 $?
check "... says so" "no loop with 256 FFMAs found in a kernel matching 'other'" "$out"

out=$(python3 "$tool" --kernel kernel --range 0-20,12e0-12f0 <"$tmp/k.sass" 2>&1)
check_rc "--range, the listing on stdin" 0 $?
check "--range sums the instructions in its ranges" "ranges 0-20,12e0-12f0: 5 instructions, 1 FFMA (20.0%)" "$out"
check "--range sums their stall counts (1 + 2 + 1 + 4 + 5)" "issue cycles (stall counts): 13" "$out"

out=$(python3 "$tool" --range 20-10 "$tmp/k.sass" 2>&1)
check_rc "--range with A > B" 2 $?
check "... names the range" "--range '20-10': want A-B" "$out"
out=$(python3 "$tool" --frobnicate "$tmp/k.sass" 2>&1)
check_rc "an unknown option" 2 $?
out=$(python3 "$tool" "$tmp/missing.sass" 2>&1)
check_rc "a missing file" 2 $?
check "... names it" "missing.sass" "$out"
out=$(echo "not a listing" | python3 "$tool" 2>&1)
check_rc "text that is not cuobjdump -sass output" 1 $?

echo "sass_loop tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
