#!/usr/bin/env bash
# test_multigpu_check.sh: tools/multigpu_check.sh on the CPU. Without a GPU
# it WAIVES (exit 2); with a stand-in nvidia-smi listing two GPUs the real
# samples run (and WAIVE here, having no driver), so the script must report
# their runs as wrong (exit 1) and the one-GPU runs as right, each file
# headed by its provenance. Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for b in deviceQuery bandwidthTest p2pBandwidthLatencyTest ncclAllReduce; do
    [ -x "bin/$b" ] || { echo "bin/$b not built: run make first"; echo "0 passed, 1 failed"; exit 1; }
done
[ -x build/tests/json_check ] || make -s -f tests/tests.mk build/tests/json_check >/dev/null

mkdir -p "$tmp/none" "$tmp/two"
printf '#!/bin/sh\nexit 9\n' >"$tmp/none/nvidia-smi"
cat >"$tmp/two/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
  *query-gpu=index*) printf '0\n1\n' ;;
  *query-gpu=name*) printf 'NVIDIA Fake GPU\nNVIDIA Fake GPU\n' ;;
  *query-gpu=driver_version*) printf '1.0\n1.0\n' ;;
  -L) printf 'GPU 0: NVIDIA Fake GPU (UUID: GPU-a)\nGPU 1: NVIDIA Fake GPU (UUID: GPU-b)\n' ;;
  *) echo "topology: fake" ;;
esac
SMI
chmod +x "$tmp/none/nvidia-smi" "$tmp/two/nvidia-smi"

PATH="$tmp/none:$PATH" env -u CUDA_VISIBLE_DEVICES tools/multigpu_check.sh "$tmp/a" >"$tmp/a.txt" 2>&1
check "no GPU: exit 2" "[ $? = 2 ]"
check "no GPU: WAIVED, nothing written" "grep -q 'WAIVED (needs at least 2 GPUs; 0 visible)' '$tmp/a.txt' && [ ! -e '$tmp/a' ]"

# CUDA_VISIBLE_DEVICES empty: on a machine with real GPUs the samples must
# still find none (the stand-in nvidia-smi says two; they see zero and WAIVE)
PATH="$tmp/two:$PATH" GIT_COMMIT=abc1234 GIT_DIRTY=no CUDA_VISIBLE_DEVICES= tools/multigpu_check.sh "$tmp/b" >"$tmp/b.txt" 2>&1
check "samples that cannot run: exit 1, FAIL named" "[ $? = 1 ] && grep -q 'multigpu_check: FAIL' '$tmp/b.txt'"
check "every output saved" "for f in topo.txt deviceQuery.txt bandwidthTest__device_all.txt p2pBandwidthLatencyTest.txt ncclAllReduce.txt ncclAllReduce__max-bytes_1G.txt waived.txt; do [ -s '$tmp/b/'\$f ] || exit 1; done"
check "headers: the GPUs, the commit, the command" "grep -q '^# gpu: NVIDIA Fake GPU x2' '$tmp/b/ncclAllReduce.txt' && grep -q '^# commit: abc1234' '$tmp/b/ncclAllReduce.txt' && grep -q '^# dirty: no' '$tmp/b/ncclAllReduce.txt' && grep -q '^# command: bin/ncclAllReduce --max-bytes=1G' '$tmp/b/ncclAllReduce__max-bytes_1G.txt'"
check "topo.txt headed by its provenance too" "grep -q '^# commit: abc1234' '$tmp/b/topo.txt' && grep -q '^# command: nvidia-smi topo -m' '$tmp/b/topo.txt' && grep -q '^topology: fake' '$tmp/b/topo.txt'"
check "a run that waived where it should pass is wrong" "grep -q '^p2pBandwidthLatencyTest.txt *exit 2 (want 0)' '$tmp/b.txt'"
check "the one-GPU runs: on the first GPU, WAIVED is right" "[ \$(grep -c '^# command: CUDA_VISIBLE_DEVICES=0 bin/' '$tmp/b/waived.txt') = 2 ] && [ \$(grep -c '^waived.txt *exit 2 (want 2)' '$tmp/b.txt') = 2 ]"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
