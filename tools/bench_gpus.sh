#!/usr/bin/env bash
# bench_gpus.sh [SAMPLE...]: `make bench` spread over several GPUs of this
# host, keeping every timing what it would be alone on its GPU.
#
#   BENCH_JOBS=2 make bench         (tools/bench.sh hands over to this script)
#   BENCH_JOBS=4 tools/bench_gpus.sh vectorAdd reduction
#
# N = BENCH_JOBS workers (at most one per visible GPU), worker w bound to the
# w-th GPU through CUDA_VISIBLE_DEVICES, take whole samples (every run of
# one sample, its bench.args included) one at a time from a shared queue, so
# a GPU never has two samples on it. Each worker is tools/bench.sh with
# BENCH_WORKER=1 (the runs only) and writes its run files into
# results/<GPU>/ (or BENCH_OUT) as a serial run would, each with a line
#   # ran on: device D (BENCH_JOBS=N: N samples at once, one per GPU)
# Samples that use several GPUs at once ("gpus: N" in their sanitize.expect)
# run afterwards, alone, with every GPU. Then one last pass of bench.sh
# (BENCH_REPORT_ONLY=1) per GPU model: deviceQuery.json, then results.json
# from every run file in the folder (all the workers' together:
# tools/results.py convert), RESULTS.md, the README tables and the charts.
# The workers share the host: CPU baselines (variant=cpu) and host<->device
# copies made in parallel compete for CPU cores, memory and PCIe; publish
# those from BENCH_JOBS=1 (the default, serial). Each sample's terminal
# output goes to build/bench/<sample>.log.
# Exit: 0, 1 if a run failed (WAIVED is not a failure), 2 without a GPU.
set -u
cd "$(dirname "$0")/.."
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "bench: no CUDA device visible (nvidia-smi lists none): nothing to measure"
    exit 2
fi
# The GPUs: CUDA_VISIBLE_DEVICES' entries when it is set, else nvidia-smi's
# indices, which CUDA then uses too (not its default "fastest first")
export CUDA_DEVICE_ORDER=${CUDA_DEVICE_ORDER:-PCI_BUS_ID}
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    IFS=, read -r -a gpus <<<"$CUDA_VISIBLE_DEVICES"
else
    mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader)
fi
jobs=${BENCH_JOBS:-${#gpus[@]}}
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
    echo "bench: error: BENCH_JOBS=$jobs: must be a whole number of GPUs, at least 1"
    exit 1
fi
[ "$jobs" -gt "${#gpus[@]}" ] && jobs=${#gpus[@]}

samples=("$@")
if [ ${#samples[@]} -eq 0 ]; then   # as bench.sh: every sample, not the 8_Debugging cases
    mapfile -t samples < <(ls -d [0-8]_*/*/Makefile | grep -v '^8_Debugging/' | xargs -n1 dirname | xargs -n1 basename)
fi
single=() multi=()
for s in "${samples[@]}"; do
    dir=$(ls -d [0-8]_*/"$s" 2>/dev/null | head -n1)
    need=$(sed -nE 's/^[[:space:]]*gpus:[[:space:]]*([0-9]+).*/\1/p' "$dir/sanitize.expect" 2>/dev/null | sort -n | tail -n1)
    if [ "${need:-1}" -gt 1 ]; then multi+=("$s"); else single+=("$s"); fi
done

mkdir -p build/bench
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
echo 0 >"$state/next"
echo "bench: ${#single[@]} samples on $jobs GPU(s) (${gpus[*]:0:$jobs}), one per GPU at a time;" \
     "then ${#multi[@]} multi-GPU sample(s) alone; logs in build/bench/"
for w in $(seq 0 $((jobs - 1))); do
    (
        dev=${gpus[$w]}
        while :; do
            # the next sample, under a lock shared by the workers
            i=$(flock "$state/next" bash -c 'i=$(cat "$1"); echo $((i + 1)) >"$1"; echo "$i"' _ "$state/next")
            [ "$i" -lt "${#single[@]}" ] || break
            s=${single[$i]}
            CUDA_VISIBLE_DEVICES=$dev BENCH_WORKER=1 BENCH_JOBS=1 \
                BENCH_RAN_ON="device $dev (BENCH_JOBS=$jobs: $jobs samples at once, one per GPU)" \
                tools/bench.sh "$s" >"build/bench/$s.log" 2>&1
            rc=$?
            echo "bench: [device $dev] $s: exit $rc"
            [ "$rc" -eq 0 ] || echo "$s" >>"$state/failed"
        done
    ) &
done
wait

status=0
[ -s "$state/failed" ] && status=1
if [ ${#multi[@]} -gt 0 ]; then
    BENCH_WORKER=1 BENCH_JOBS=1 BENCH_RAN_ON="every visible GPU (${gpus[*]}), alone" \
        tools/bench.sh "${multi[@]}" || status=1
fi
# The last pass, once per GPU model among the GPUs used (each model's runs are
# in its own results/<GPU>/), on the first GPU of that model.
seen=""
for dev in "${gpus[@]:0:$jobs}"; do
    name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$dev" 2>/dev/null | head -n1)
    case "$seen" in *"|$name|"*) continue ;; esac
    seen="$seen|$name|"
    CUDA_VISIBLE_DEVICES=$dev BENCH_REPORT_ONLY=1 BENCH_JOBS=1 tools/bench.sh || status=1
done
exit $status
