#!/usr/bin/env bash
# bench.sh [SAMPLE...]: run every sample (or those named) at benchmark size
# (its default arguments) and save the output under results/<GPU>/<sample>.txt,
# each file headed by the GPU, driver, date, git commit and command that
# produced it. Then regenerate the results tables in the samples' READMEs
# (tools/results_table.sh). `make bench` calls this; never edit the files by hand.
set -u
cd "$(dirname "$0")/.."

if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "bench: no CUDA device visible (nvidia-smi lists none): nothing to measure"
    exit 2
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | head -n1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0 | head -n1)
slug=$(echo "$gpu" | sed -E 's/^NVIDIA //; s/[^A-Za-z0-9]+/_/g; s/_+$//')
# GIT_COMMIT names the commit where the tree is a copy without .git (a lent GPU machine)
commit=${GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
dirty=$(git status --porcelain 2>/dev/null | grep -qv "^??" && echo "+uncommitted changes" || true)
out=results/$slug
mkdir -p "$out"

samples=("$@")
if [ ${#samples[@]} -eq 0 ]; then
    mapfile -t samples < <(MAKEFLAGS= make -s --no-print-directory list | xargs -n1 basename)
fi

status=0
for s in "${samples[@]}"; do
    args=${BENCH_ARGS:-}
    f=$out/$s.txt
    {
        echo "# gpu: $gpu"
        echo "# driver: $driver"
        echo "# cuda: $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
        echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# commit: $commit$dirty"
        echo "# command: make bench (bin/$s $args)"
    } >"$f"
    echo "== $s"
    # shellcheck disable=SC2086
    timeout "${BENCH_TIMEOUT:-900}" "bin/$s" $args 2>&1 | tee -a "$f"
    rc=${PIPESTATUS[0]}
    echo "# exit: $rc" >>"$f"
    [ "$rc" -ne 0 ] && status=1
done
tools/results_table.sh "$out"
exit $status
