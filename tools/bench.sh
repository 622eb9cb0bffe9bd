#!/usr/bin/env bash
# bench.sh [SAMPLE...]: run every sample (or those named) at benchmark size
# (its default arguments) and save the output under results/<GPU>/<sample>.txt,
# each file headed by the GPU, driver, date, git commit and command that
# produced it. A sample folder may list further runs in bench.args, one set of
# arguments per line (# comments); each is saved as
# results/<GPU>/<sample>__<arguments>.txt. Then regenerate the results tables
# in the samples' READMEs (tools/results_table.sh), from the default runs.
# `make bench` calls this; never edit the files by hand.
#
# Several GPUs (BENCH_JOBS=N, default 1): N workers, each bound to one GPU
# through CUDA_VISIBLE_DEVICES, take the runs one at a time, so no GPU ever
# has two samples on it and each sample is still timed alone on its GPU;
# each file says which device it ran on. Samples that use several GPUs at
# once (a "gpus: N" line in their sanitize.expect) run afterwards, alone,
# with every GPU. The workers share the host: CPU baselines (variant=cpu)
# and host<->device copies made in parallel compete for CPU cores, memory
# and PCIe, and their files say that they ran with N at once; publish
# those figures from BENCH_JOBS=1.
# A WAIVED run (exit 2: no GPU, or fewer GPUs than the sample needs) is not
# a failure.
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
out=${BENCH_OUT:-results/$slug}   # BENCH_OUT: elsewhere, tables untouched (the tests)
mkdir -p "$out"

# The GPUs: CUDA_VISIBLE_DEVICES' entries when it is set, else nvidia-smi's indices.
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    IFS=, read -r -a gpus <<<"$CUDA_VISIBLE_DEVICES"
else
    mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader)
fi
jobs=${BENCH_JOBS:-1}
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
    echo "bench: error: BENCH_JOBS=$jobs: must be a whole number of GPUs, at least 1"
    exit 1
fi
[ "$jobs" -gt "${#gpus[@]}" ] && jobs=${#gpus[@]}

samples=("$@")
if [ ${#samples[@]} -eq 0 ]; then
    mapfile -t samples < <(MAKEFLAGS= make -s --no-print-directory list | xargs -n1 basename)
fi

# run_one SAMPLE FILE DEVICE ARGS...: one run, saved with its provenance.
# DEVICE is a CUDA_VISIBLE_DEVICES value, or "" for every GPU.
run_one() {
    local s=$1 f=$2 dev=$3 rc where
    shift 3
    if [ -n "$dev" ]; then
        where="device $dev (BENCH_JOBS=$jobs: $jobs samples at once, one per GPU)"
    else
        where="every visible GPU (${gpus[*]}), alone"
    fi
    {
        echo "# gpu: $gpu"
        echo "# driver: $driver"
        echo "# cuda: $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
        echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# commit: $commit$dirty"
        echo "# command: make bench (bin/$s${*:+ $*})"
        [ "$jobs" -gt 1 ] && echo "# ran on: $where"
    } >"$f"
    if [ "$jobs" -gt 1 ] && [ -n "$dev" ]; then
        CUDA_VISIBLE_DEVICES=$dev timeout "${BENCH_TIMEOUT:-900}" "bin/$s" "$@" </dev/null >>"$f" 2>&1
        rc=$?
        echo "== [device $dev] $s $* (exit $rc)"
    else
        echo "== $s $*"
        timeout "${BENCH_TIMEOUT:-900}" "bin/$s" "$@" </dev/null 2>&1 | tee -a "$f"
        rc=${PIPESTATUS[0]}
    fi
    echo "# exit: $rc" >>"$f"
    [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]   # WAIVED is not a failure
}

# The runs, one line each: "sample<TAB>file<TAB>arguments"; multi-GPU
# samples' runs go to a second list.
single=() multi=()
for s in "${samples[@]}"; do
    dir=$(MAKEFLAGS= make -s --no-print-directory list | grep "/$s\$" | head -n1)
    need=$(sed -nE 's/^gpus:[[:space:]]*([0-9]+).*/\1/p' "$dir/sanitize.expect" 2>/dev/null | sort -n | tail -n1)
    runs=("$s"$'\t'"$out/$s.txt"$'\t'"${BENCH_ARGS:-}")
    if [ -f "$dir/bench.args" ]; then
        while read -r line; do
            line=${line%%#*}
            [ -n "${line// }" ] || continue
            slug=$(echo "$line" | sed -E 's/--//g; s/[^A-Za-z0-9^+.-]+/_/g; s/\^/p/g; s/\+/p/g; s/_+$//')
            runs+=("$s"$'\t'"$out/${s}__$slug.txt"$'\t'"$line")
        done <"$dir/bench.args"
    fi
    if [ "${need:-1}" -gt 1 ]; then multi+=("${runs[@]}"); else single+=("${runs[@]}"); fi
done

# run_line DEVICE LINE: run one entry of a list.
run_line() {
    local s f a
    IFS=$'\t' read -r s f a <<<"$2"
    # shellcheck disable=SC2086  # the arguments are a list
    run_one "$s" "$f" "$1" $a
}

status=0
if [ "$jobs" -le 1 ]; then
    for line in "${single[@]}"; do run_line "" "$line" || status=1; done
else
    # Workers take the next run under a lock; each writes its failures to a file.
    state=$(mktemp -d)
    echo 0 >"$state/next"
    printf '%s\n' "${single[@]}" >"$state/runs"
    total=${#single[@]}
    for w in $(seq 0 $((jobs - 1))); do
        (
            dev=${gpus[$w]}
            while :; do
                i=$(flock "$state/next" bash -c 'i=$(cat "$1"); echo $((i + 1)) >"$1"; echo "$i"' _ "$state/next")
                [ "$i" -lt "$total" ] || break
                run_line "$dev" "$(sed -n "$((i + 1))p" "$state/runs")" || echo "$i" >>"$state/failed"
            done
        ) &
    done
    wait
    [ -s "$state/failed" ] && status=1
    rm -rf "$state"
fi
# Samples that use several GPUs at once: alone, with all of them.
for line in "${multi[@]}"; do run_line "" "$line" || status=1; done

# The READMEs' tables come from results/<GPU> only (not from a BENCH_OUT elsewhere).
[ -n "${BENCH_OUT:-}" ] || tools/results_table.sh "$out"
exit $status
