#!/usr/bin/env bash
# bench.sh [SAMPLE...]: run every sample (or those named) at benchmark size
# (its default arguments) and save the output under results/<GPU>/<sample>.txt,
# each file headed by the GPU, driver, date, git commit and command that
# produced it. A sample folder may list further runs in bench.args, one set of
# arguments per line (# comments); each is saved as
# results/<GPU>/<sample>__<arguments>.txt. Then regenerate the results tables
# in the samples' READMEs (tools/results_table.sh), from the default runs.
# `make bench` calls this; never edit the files by hand.
# BENCH_JOBS=N (N > 1): tools/bench_gpus.sh spreads the samples over N GPUs,
# one at a time on each, calling this script per sample (BENCH_WORKER=1:
# runs only, no tables; BENCH_RAN_ON: a header line saying where) and once
# more at the end (BENCH_REPORT_ONLY=1: the tables only). A WAIVED run
# (exit 2: no GPU, or fewer than the sample needs) is not a failure.
set -u
cd "$(dirname "$0")/.."

if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "bench: no CUDA device visible (nvidia-smi lists none): nothing to measure"
    exit 2
fi
if [ "${BENCH_JOBS:-1}" != 1 ] && [ -z "${BENCH_WORKER:-}" ] && [ -z "${BENCH_REPORT_ONLY:-}" ]; then
    exec tools/bench_gpus.sh "$@"
fi
# the GPU the samples run on: the first of CUDA_VISIBLE_DEVICES (by index), else 0
gpu_index=${CUDA_VISIBLE_DEVICES:-0}
gpu_index=${gpu_index%%,*}
[[ "$gpu_index" =~ ^[0-9]+$ ]] || gpu_index=0
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$gpu_index" | head -n1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader -i "$gpu_index" | head -n1)
slug=$(echo "$gpu" | sed -E 's/^NVIDIA //; s/[^A-Za-z0-9]+/_/g; s/_+$//')
# GIT_COMMIT names the commit where the tree is a copy without .git (a lent GPU machine)
commit=${GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
dirty=$(git status --porcelain 2>/dev/null | grep -qv "^??" && echo "+uncommitted changes" || true)
out=${BENCH_OUT:-results/$slug}   # BENCH_OUT: elsewhere, READMEs untouched (the tests)
mkdir -p "$out"

samples=("$@")
if [ ${#samples[@]} -eq 0 ]; then
    mapfile -t samples < <(MAKEFLAGS= make -s --no-print-directory list | xargs -n1 basename)
fi
[ -n "${BENCH_REPORT_ONLY:-}" ] && samples=()

# run_one SAMPLE FILE ARGS...: one run, saved with its provenance
run_one() {
    local s=$1 f=$2 rc
    shift 2
    {
        echo "# gpu: $gpu"
        echo "# driver: $driver"
        echo "# cuda: $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
        echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# commit: $commit$dirty"
        echo "# command: make bench (bin/$s${*:+ $*})"
        [ -n "${BENCH_RAN_ON:-}" ] && echo "# ran on: $BENCH_RAN_ON"
    } >"$f"
    echo "== $s $*"
    timeout "${BENCH_TIMEOUT:-900}" "bin/$s" "$@" </dev/null 2>&1 | tee -a "$f"
    rc=${PIPESTATUS[0]}
    echo "# exit: $rc" >>"$f"
    [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || status=1   # WAIVED is not a failure
}

status=0
for s in "${samples[@]}"; do
    # shellcheck disable=SC2086  # BENCH_ARGS is a list of options
    run_one "$s" "$out/$s.txt" ${BENCH_ARGS:-}
    dir=$(MAKEFLAGS= make -s --no-print-directory list | grep "/$s\$" | head -n1)
    [ -f "$dir/bench.args" ] || continue
    while read -r line; do
        line=${line%%#*}
        [ -n "${line// }" ] || continue
        slug=$(echo "$line" | sed -E 's/--//g; s/[^A-Za-z0-9^+.-]+/_/g; s/\^/p/g; s/\+/p/g; s/_+$//')
        # shellcheck disable=SC2086  # the line is a list of arguments
        run_one "$s" "$out/${s}__$slug.txt" $line
    done <"$dir/bench.args"
done
# the tables: once, from results/<GPU> (not in a worker, not for BENCH_OUT)
[ -n "${BENCH_WORKER:-}" ] || [ -n "${BENCH_OUT:-}" ] || tools/results_table.sh "$out"
exit $status
