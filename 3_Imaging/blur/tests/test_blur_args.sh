#!/usr/bin/env bash
# test_blur_args.sh: bin/blur refuses bad region-of-interest arguments by
# name, with exit 1 and "blur: FAIL" last, before any CUDA call (so on a
# machine with or without a GPU). Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/../../.."
bin=bin/blur
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$bin" ]; then
    echo "FAIL: $bin not built"
    echo "0 passed, 1 failed"
    exit 1
fi

# refuse MUST-MENTION ARGS...: exit 1, stderr names MUST-MENTION, FAIL last
refuse() {
    local mention=$1 rc
    shift
    timeout 60 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 1 ]; then
        echo "FAIL: blur $*: exit $rc, want 1"; failed=$((failed + 1)); return
    fi
    if ! grep -qF -- "$mention" "$tmp/err"; then
        echo "FAIL: blur $*: stderr does not name '$mention': $(head -c 300 "$tmp/err")"
        failed=$((failed + 1)); return
    fi
    if [ "$(tail -n1 "$tmp/out")" != "blur: FAIL (bad argument)" ]; then
        echo "FAIL: blur $*: last line is '$(tail -n1 "$tmp/out")'"; failed=$((failed + 1)); return
    fi
    passed=$((passed + 1))
}

# zero sizes
refuse --width=0 --width=0
refuse --height=0 --height=0
# the ROI outside the image
refuse --image-width=150 --x0=100 --width=100 --image-width=150
refuse --image-height=105 --y0=10 --height=100 --image-height=105
refuse --x0=268435456 --x0=268435456
refuse --x0=1 --x0=1 --width=16 --image-width=16
# the pitch: smaller than the image's row in bytes, or not whole floats
refuse --pitch=1000 --pitch=1000
refuse --pitch=65791 --pitch=65791
refuse --pitch=65792 --pitch=65792 --x0=33
# the radius: zero, or more halo than the tiles hold
refuse --radius=0 --radius=0
refuse --radius=9 --radius=9
# a 3x3-only variant at another radius
refuse --variant=window_8x8 --variant=window_8x8 --radius=3
refuse --variant=nope --variant=nope
# sizes that overflow, or an image over the byte limit
refuse --width=2^40 --width=2^40
refuse --height=2^17+1 --height=2^17+1
refuse --image-width=268435456 --x0=0 --y0=0 --width=2^28 --height=2^17
refuse --pitch=1099511627776 --pitch=2^40 --height=1000
refuse --pitch=2^40+1 --pitch=2^40+1
# --quick keeps the checks on the arguments it does not replace
refuse --pitch=1000 --quick --pitch=1000

echo "blur argument tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
