#!/usr/bin/env bash
# test_figures.sh: the diagrams of docs/figures/ are what tools/figures.py
# draws (make figures regenerates them), byte for byte; and the check itself
# fails on a changed, a missing and a stray figure (in a scratch folder).
# Ends with "figure tests: N passed, M failed".
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if python3 tools/figures.py --check >"$tmp/out" 2>&1; then ok
else bad "docs/figures/ is not what tools/figures.py draws (run make figures): $(cat "$tmp/out")"; fi
for f in thread_indexing smem_tiling reduction_tree privatized_histogram pitch_roi graph_replay \
         grid_stride last_block stream_overlap grid_sync pool_threshold peer_paths; do
    if [ -f "docs/figures/$f.svg" ] && grep -q '^<svg xmlns="http://www.w3.org/2000/svg"' "docs/figures/$f.svg"; then ok
    else bad "docs/figures/$f.svg is missing or not an SVG (the lessons link it)"; fi
done

d=$tmp/figs
python3 tools/figures.py --out="$d" >/dev/null
if python3 tools/figures.py --out="$d" --check >/dev/null; then ok; else bad "a fresh drawing does not pass --check"; fi
sed -i 's/blockIdx.x = 0/blockIdx.x = 9/' "$d/thread_indexing.svg"
if ! python3 tools/figures.py --out="$d" --check >"$tmp/out" && grep -q 'thread_indexing.svg differs' "$tmp/out"; then ok
else bad "--check did not notice a changed figure"; fi
python3 tools/figures.py --out="$d" >/dev/null
rm "$d/pitch_roi.svg"
if ! python3 tools/figures.py --out="$d" --check >"$tmp/out" && grep -q 'pitch_roi.svg is missing' "$tmp/out"; then ok
else bad "--check did not notice a missing figure"; fi
python3 tools/figures.py --out="$d" >/dev/null
echo '<svg/>' >"$d/stray.svg"
if ! python3 tools/figures.py --out="$d" --check >"$tmp/out" && grep -q 'stray.svg is not drawn' "$tmp/out"; then ok
else bad "--check did not notice a figure it does not draw"; fi

echo "figure tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
