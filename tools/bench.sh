#!/usr/bin/env bash
# bench.sh [SAMPLE...]: run every sample (or those named) at benchmark size
# (its default arguments) on the GPU and save each run under
# results/<GPU>/<sample>.txt, headed by the GPU, driver, CUDA, date, git
# commit, whether the tree had uncommitted changes, the command and the GPU's
# clocks, and closed by the clocks after, the seconds it took and its exit
# status. A sample folder may list further runs in bench.args, one set of
# arguments per line (# comments); each is saved as
# results/<GPU>/<sample>__<arguments>.txt. Then, from all run files there
# (tools/results.py):
#   results/<GPU>/results.json   every record and the provenance (convert)
#   results/<GPU>/RESULTS.md     the report (report)
#   the samples' README tables   (tools/results_table.sh)
#   results/<GPU>/*.svg, *.png   roofline and shmoo (tools/charts.py; needs gnuplot)
# `make bench` calls this; never edit those files by hand.
#   bench.sh --check-gpu   exit 2 with the reason when there is no GPU, else 0
# Environment: BENCH_ARGS (extra arguments for every default run),
# BENCH_TIMEOUT (seconds per run, default 900), GIT_COMMIT and GIT_DIRTY
# (yes/no) where the tree is a copy without .git (a GPU machine the tree was copied to).
# The samples run on the first GPU of CUDA_VISIBLE_DEVICES (its nvidia-smi
# index or UUID; default 0), whose name names results/<GPU>/.
# Several GPUs: BENCH_JOBS=N (N > 1) hands over to tools/bench_gpus.sh, which
# spreads the samples over N GPUs, one at a time on each, calling this script
# per sample as a worker (BENCH_WORKER=1: the runs only, no deviceQuery.json,
# results.json, RESULTS.md, tables or charts; BENCH_RAN_ON: a `# ran on:`
# header line saying where and how it ran) and once more at the end
# (BENCH_REPORT_ONLY=1: no runs; results.json from every run file there,
# the workers' included, then the rest). BENCH_OUT=DIR writes the run files,
# results.json, RESULTS.md and the charts to DIR instead of results/<GPU>/ and
# leaves the README tables alone (the tests).
# Exit: 0, 1 if a run failed (a WAIVED run, exit 2: no GPU, or fewer GPUs
# than the sample needs, is not a failure), 2 without a GPU.
set -u
cd "$(dirname "$0")/.."

if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "bench: no CUDA device visible (nvidia-smi lists none): nothing to measure"
    exit 2
fi
[ "${1:-}" = --check-gpu ] && exit 0
# CUDA numbers the devices as nvidia-smi does (its default puts the fastest
# first), so the GPU named below and in the run files is the one that ran
export CUDA_DEVICE_ORDER=${CUDA_DEVICE_ORDER:-PCI_BUS_ID}
if [ "${BENCH_JOBS:-1}" != 1 ] && [ -z "${BENCH_WORKER:-}" ] && [ -z "${BENCH_REPORT_ONLY:-}" ]; then
    exec tools/bench_gpus.sh "$@"
fi

# nvidia-smi's name of the GPU the samples run on (their --device=0): the
# first entry of CUDA_VISIBLE_DEVICES (an index or a GPU UUID), else 0
gpu_index=${CUDA_VISIBLE_DEVICES:-0}
gpu_index=${gpu_index%%,*}
[[ "$gpu_index" =~ ^([0-9]+|GPU-[0-9A-Fa-f-]+)$ ]] || gpu_index=0
smi() { nvidia-smi -i "$gpu_index" --query-gpu="$1" --format="${2:-csv,noheader}" 2>/dev/null | head -n1; }
gpu=$(smi name)
driver=$(smi driver_version)
cuda=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
slug=$(echo "$gpu" | sed -E 's/^NVIDIA //; s/[^A-Za-z0-9]+/_/g; s/_+$//')
commit=${GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
# uncommitted changes outside results/ and the Markdown files bench rewrites
if [ -n "${GIT_DIRTY:-}" ]; then
    dirty=$GIT_DIRTY
elif git rev-parse --git-dir >/dev/null 2>&1; then
    dirty=$(git status --porcelain -- . ':(exclude)results' ':(exclude)*.md' | grep -q . && echo yes || echo no)
else
    dirty=unknown
fi
out=${BENCH_OUT:-results/$slug}
mkdir -p "$out"

# clocks: the GPU's clocks and state now, as key=value (nvidia-smi's names)
clock_fields=clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,pstate,temperature.gpu,power.draw
clocks() {
    local fields values
    for fields in "$clock_fields,clocks_event_reasons.active" "$clock_fields"; do
        values=$(smi "$fields" csv,noheader,nounits)
        # a field this driver does not know fails the whole query: try without it
        [ "$(echo "$values" | tr -cd , | wc -c)" = "$(echo "$fields" | tr -cd , | wc -c)" ] && break
        values=""
    done
    [ -n "$values" ] || { echo "unavailable"; return; }
    awk -v f="$fields" -v v="$values" 'BEGIN {
        n = split(f, k, ","); split(v, x, ", *")
        for (i = 1; i <= n; i++) { gsub(/ /, "_", x[i]); printf "%s%s=%s", (i > 1 ? " " : ""), k[i], x[i] }
        print "" }'
}

samples=("$@")
if [ ${#samples[@]} -eq 0 ]; then   # every sample (8_Debugging holds cases, not samples)
    mapfile -t samples < <(ls -d [0-8]_*/*/Makefile | grep -v '^8_Debugging/' | xargs -n1 dirname | xargs -n1 basename)
fi
[ -n "${BENCH_REPORT_ONLY:-}" ] && samples=()

# run_one SAMPLE FILE ARGS...: one run, saved with its provenance
run_one() {
    local s=$1 f=$2 rc start
    shift 2
    {
        echo "# gpu: $gpu"
        echo "# driver: $driver"
        echo "# cuda: $cuda"
        echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# commit: $commit"
        echo "# dirty: $dirty"
        echo "# command: make bench (bin/$s${*:+ $*})"
        [ -n "${BENCH_RAN_ON:-}" ] && echo "# ran on: $BENCH_RAN_ON"
        echo "# clocks before: $(clocks)"
    } >"$f"
    echo "== $s $*"
    start=$(date +%s.%N)
    timeout "${BENCH_TIMEOUT:-900}" "bin/$s" "$@" </dev/null 2>&1 | tee -a "$f"
    rc=${PIPESTATUS[0]}
    {
        echo "# clocks after: $(clocks)"
        echo "# seconds: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
        echo "# exit: $rc"
    } >>"$f"
    [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || status=1   # WAIVED is not a failure
}

# the device's attributes (peaks for the roofline), once: not in a worker
# (the last pass writes it), and kept only from a run that passed
if [ -z "${BENCH_WORKER:-}" ] && [ -x bin/deviceQuery ]; then
    if bin/deviceQuery --json >"$out/.deviceQuery.json.tmp" 2>/dev/null; then
        mv "$out/.deviceQuery.json.tmp" "$out/deviceQuery.json"
    else
        rm -f "$out/.deviceQuery.json.tmp"
    fi
fi

status=0
for s in "${samples[@]}"; do
    rm -f "$out/$s.txt" "$out/${s}__"*.txt     # this sample's earlier runs
    # shellcheck disable=SC2086  # BENCH_ARGS is a list of options
    run_one "$s" "$out/$s.txt" ${BENCH_ARGS:-}
    args=$(ls [0-8]_*/"$s"/bench.args 2>/dev/null | head -n1)
    [ -n "$args" ] || continue
    while read -r line; do
        line=${line%%#*}
        [ -n "${line// }" ] || continue
        name=$(echo "$line" | sed -E 's/--//g; s/[^A-Za-z0-9^+.-]+/_/g; s/\^/p/g; s/\+/p/g; s/_+$//')
        # shellcheck disable=SC2086  # the line is a list of arguments
        run_one "$s" "$out/${s}__$name.txt" $line
    done <"$args"
done

# a worker leaves these to the last pass, which reads every worker's run files
[ -n "${BENCH_WORKER:-}" ] && exit $status
python3 tools/results.py convert "$out" || status=1
python3 tools/results.py report "$out/results.json" || status=1
# the README tables come from results/*/results.json: not for BENCH_OUT
[ -n "${BENCH_OUT:-}" ] || tools/results_table.sh || status=1
if command -v gnuplot >/dev/null; then
    python3 tools/charts.py "$out/results.json" || status=1
else
    echo "bench: gnuplot is not installed here: draw the charts with \`make charts\` where it is"
fi
exit $status
