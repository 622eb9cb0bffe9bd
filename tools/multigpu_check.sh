#!/usr/bin/env bash
# multigpu_check.sh OUT: what a host with several GPUs should be checked for,
# each output saved under OUT headed by the GPUs, driver, date, commit and
# command (about 3 minutes on two H200s, once built):
#   topo.txt                        nvidia-smi topo -m and nvlink -s
#   deviceQuery.txt, .json          every device and the peer-access matrix
#   bandwidthTest__device_all.txt   host <-> device and device copies, each GPU in turn
#   p2pBandwidthLatencyTest.txt     the matrices and the links, 256 MiB transfers
#   p2p_quick.jsonl, p2p_quick.csv  --quick --json / --csv, checked as JSON lines and CSV
#   ncclAllReduce.txt               8 B .. 64 MiB
#   ncclAllReduce__max-bytes_1G.txt 8 B .. 1 GiB
#   waived.txt                      both multi-GPU samples with one GPU visible
# Needs the samples built (make samples) and build/tests/json_check
# (make -f tests/tests.mk build/tests/json_check). NCCL_NVLS_ENABLE=0 is
# exported unless set (6_Advanced/ncclAllReduce/README.md says why).
# Exit: 0 if every run PASSed and the one-GPU runs WAIVED; 1 otherwise;
# 2 without two GPUs.
set -u
cd "$(dirname "$0")/.." || exit 1
[ $# -eq 1 ] || { echo "usage: tools/multigpu_check.sh OUT" >&2; exit 1; }
out=$1
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then n=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .); fi
if [ "$n" -lt 2 ]; then
    echo "multigpu_check: WAIVED (needs at least 2 GPUs; $n visible)"
    exit 2
fi
mkdir -p "$out" || exit 1
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
commit=${GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
# uncommitted changes outside results/ and the Markdown files, as tools/bench.sh says it
if [ -n "${GIT_DIRTY:-}" ]; then
    dirty=$GIT_DIRTY
elif git rev-parse --git-dir >/dev/null 2>&1; then
    dirty=$(git status --porcelain -- . ':(exclude)results' ':(exclude)*.md' | grep -q . && echo yes || echo no)
else
    dirty=unknown
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed -E 's/^ *([0-9]+) (.*)/\2 x\1/' | paste -sd, -)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)
status=0

# header FILE COMMAND-TEXT: the provenance lines every output starts with
header() {
    {
        echo "# gpu: $gpu"
        echo "# driver: $driver"
        echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# commit: $commit"
        echo "# dirty: $dirty"
        echo "# command: $2"
    } >>"$out/$1"
}

# save FILE WANT CMD...: run CMD, output to OUT/FILE under a header; WANT is
# the exit status that counts as right (0, or 2 for WAIVED)
save() {
    local f=$1 want=$2 rc
    shift 2
    header "$f" "${CVD:+CUDA_VISIBLE_DEVICES=$CVD }$*"
    if [ -n "${CVD:-}" ]; then CUDA_VISIBLE_DEVICES=$CVD "$@" >>"$out/$f" 2>&1; else "$@" >>"$out/$f" 2>&1; fi
    rc=$?
    echo "# exit: $rc" >>"$out/$f"
    printf '%-34s exit %d (want %d)  %s\n' "$f" "$rc" "$want" "$(grep -v '^#' "$out/$f" | tail -n1 | cut -c1-60)"
    [ "$rc" -eq "$want" ] || status=1
}

rm -f "$out"/*.txt "$out"/*.json "$out"/*.jsonl "$out"/*.csv
header topo.txt "nvidia-smi topo -m; nvidia-smi nvlink -s"
{ nvidia-smi topo -m; echo; nvidia-smi nvlink -s; } >>"$out/topo.txt" 2>&1
save deviceQuery.txt 0 bin/deviceQuery
bin/deviceQuery --json >"$out/deviceQuery.json" 2>/dev/null || status=1
save bandwidthTest__device_all.txt 0 bin/bandwidthTest --device=all
save p2pBandwidthLatencyTest.txt 0 bin/p2pBandwidthLatencyTest
bin/p2pBandwidthLatencyTest --quick --json >"$out/p2p_quick.jsonl" 2>/dev/null || status=1
build/tests/json_check --lines "$out/p2p_quick.jsonl" || { echo "p2p_quick.jsonl: not JSON lines"; status=1; }
bin/p2pBandwidthLatencyTest --quick --csv >"$out/p2p_quick.csv" 2>/dev/null || status=1
# every CSV row has the header's number of cells (the closing PASS line aside)
awk -F, 'NR == 1 { n = NF } /^p2pBandwidthLatencyTest,/ && NF != n { bad = 1 } END { exit bad }' \
    "$out/p2p_quick.csv" || { echo "p2p_quick.csv: a row with the wrong number of cells"; status=1; }
save ncclAllReduce.txt 0 bin/ncclAllReduce
save ncclAllReduce__max-bytes_1G.txt 0 bin/ncclAllReduce --max-bytes=1G
first=$(nvidia-smi --query-gpu=index --format=csv,noheader | head -n1)
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && first=${CUDA_VISIBLE_DEVICES%%,*}
CVD=$first save waived.txt 2 bin/p2pBandwidthLatencyTest --quick
CVD=$first save waived.txt 2 bin/ncclAllReduce --quick
echo "multigpu_check: $([ $status = 0 ] && echo PASS || echo FAIL) (outputs in $out)"
exit $status
