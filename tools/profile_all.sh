#!/usr/bin/env bash
# profile_all.sh [--nvtx-check] [SAMPLE...]: the GPU recipe of the lab notebooks.
#
#   tools/profile_all.sh                 one `make profile` row per variant of each sample
#                                        (default: matrixMul reduction) in <sample>/NOTEBOOK.md
#   tools/profile_all.sh --nvtx-check    instead, on the same samples at --quick: every
#                                        variant's NVTX filter selects exactly the launches
#                                        that ran inside its range (tools/profile.py nvtx-check)
#
# The variants are read from each sample's --help at run time (never a list kept here); the
# CPU baseline is left out. Each profile runs the sample at its default (benchmark) size with
# --variant=V --reps=1 under `ncu --clock-control none` with the metric set of
# tools/profile_metrics.tsv only (no sections), so each launch is replayed once per pass
# that set needs. Every run prints its seconds and the total closes the output.
#
# Time, estimated (not measured: the first run on the H200 prints the real figures): ncu's
# start and the sample's own checks at benchmark size take a few seconds per variant; the
# profiled launches are 4 runs (3 warm-ups + 1) x the passes of the metric set (about ten,
# for 24 perfworks metrics) x the kernel time. matrixMul at 4096^3: about 5-10 s per variant,
# naive about 15-20 s (276 ms a launch); reduction at 2^28 floats: about 5-8 s per variant
# (the CPU reference alone takes 1.2 s). 27 profiles: about 3-4 minutes. Sizes are the
# benchmark's so the rows sit beside the README's results; PROFILE_ARGS="--m=2048 --n=2048
# --k=2048" (applied to every sample) trades that for time. --nvtx-check: 3 + variants ncu
# runs per sample at --quick, about 3-5 s each: 1.5 to 2 minutes for both samples.
#
# Environment: PROFILE_ARGS (extra sample arguments), PROFILE_NOTE (the rows' note),
# GIT_COMMIT and GIT_DIRTY (yes/no) where the tree has no .git, OUT (a folder: the notebooks,
# raw CSVs and logs are copied there at the end, for a remote GPU machine that returns $OUT).
# Exit: 0, 1 if a profile or a check failed, 2 without a GPU or without ncu.
set -u
cd "$(dirname "$0")/.."

mode=profile
if [ "${1:-}" = --nvtx-check ]; then
    mode=nvtx
    shift
fi
samples=("$@")
[ ${#samples[@]} -gt 0 ] || samples=(matrixMul reduction)

python3 tools/profile.py check || exit $?
for s in "${samples[@]}"; do
    python3 tools/profile.py check --sample="$s" || exit 1
done
make -s "${samples[@]}" || exit 1

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
t0=$(now)
status=0
if [ "$mode" = nvtx ]; then
    python3 tools/profile.py nvtx-check "${samples[@]}" --args=--quick || status=1
else
    note=${PROFILE_NOTE:-"profile_all.sh: every variant${PROFILE_ARGS:+ at $PROFILE_ARGS}"}
    for s in "${samples[@]}"; do
        variants=$(python3 tools/profile.py variants "$s") || { status=1; continue; }
        for v in $variants; do
            t=$(now)
            PROFILE_NOTE=$note python3 tools/profile.py run --sample="$s" --variant="$v" || status=1
            echo "profile_all: $s/$v took $(secs "$t") s"
        done
    done
fi
echo "profile_all: $mode of ${samples[*]}: $(secs "$t0") s in all, exit $status"

if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT/profile"
    for s in "${samples[@]}"; do
        nb=$(ls [0-8]_*/"$s"/NOTEBOOK.md 2>/dev/null | head -n1)
        [ -n "$nb" ] && cp "$nb" "$OUT/profile/${s}_NOTEBOOK.md"
    done
    cp build/profile/*.csv build/profile/*.log "$OUT/profile/" 2>/dev/null
    echo "profile_all: notebooks, raw CSVs and logs copied to $OUT/profile/"
fi
exit $status
