#!/usr/bin/env bash
# test_bench.sh: tools/bench.sh's several-GPU mode on the CPU, with a stand-in
# nvidia-smi that lists two GPUs and stand-in samples that log when they run
# and on which device. Checks: with BENCH_JOBS=2 both GPUs are used, never
# two runs on one GPU at once, each file names its device; a sample that
# needs two GPUs ("gpus: 2") runs alone with both after the others; WAIVED
# (exit 2) is not a failure, exit 1 is; BENCH_JOBS=1 runs one at a time;
# the workers' run files make one results.json (tools/results.py convert) and
# one RESULTS.md in the last pass, each worker reads its own GPU's name and
# clocks; a worker writes only its run files; BENCH_REPORT_ONLY runs nothing.
# All of it in a scratch tree (tools/ and the stand-ins in its bin/): the real
# bin/ is never touched, so other tests can run beside this one.
# Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/.."
# the stand-in nvidia-smi decides which GPUs there are; a caller's CUDA_VISIBLE_DEVICES
# (a run on a real machine pinned to one GPU) would override it (tools/bench_gpus.sh
# honours it, as it should)
unset CUDA_VISIBLE_DEVICES
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
tmp=$(mktemp -d)
names=(zz_bench_a zz_bench_b zz_bench_c zz_bench_d zz_bench_waived zz_bench_multi)
trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT
p2p=1_Utilities/p2pBandwidthLatencyTest
mkdir -p "$tmp/tree/$p2p"
cp -r tools "$tmp/tree/"
[ -f $p2p/sanitize.expect ] && cp $p2p/sanitize.expect $p2p/Makefile "$tmp/tree/$p2p/"
cd "$tmp/tree" || exit 1

mkdir -p "$tmp/path" bin
cat >"$tmp/path/nvidia-smi" <<SMI
#!/bin/sh
echo "\$*" >>"$tmp/smi.log"
case "\$*" in
  *query-gpu=index*) printf '0\n1\n' ;;
  *query-gpu=name*) echo "NVIDIA Fake GPU" ;;
  *query-gpu=driver_version*) echo "1.0" ;;
  *compute_cap*) echo "9.0" ;;
  *) printf 'GPU 0: NVIDIA Fake GPU (UUID: GPU-a)\nGPU 1: NVIDIA Fake GPU (UUID: GPU-b)\n' ;;
esac
SMI
chmod +x "$tmp/path/nvidia-smi"
# a stand-in sample: logs start and end with its device and holds the GPU
# 0.3 s; with PAIR set, the first runs also wait (up to a minute) until two
# are on at once, which BENCH_JOBS=2 must allow however loaded the machine is
for n in "${names[@]}" zz_bench_bad; do
    cat >"bin/$n" <<SAMPLE
#!/bin/sh
echo "start \${CUDA_VISIBLE_DEVICES:-all} \$(date +%s.%N) $n \${CUDA_DEVICE_ORDER:-unset}" >>"$tmp/log"
i=0
while [ -n "\${PAIR:-}" ] && [ ! -e "\$PAIR" ] && [ \$i -lt 600 ]; do
    [ "\$(awk '\$1 == "start" { n++ } \$1 == "end" { n-- } END { print n + 0 }' "$tmp/log")" -ge 2 ] && touch "\$PAIR"
    sleep 0.1
    i=\$((i + 1))
done
sleep 0.3
echo "end \${CUDA_VISIBLE_DEVICES:-all} \$(date +%s.%N) $n" >>"$tmp/log"
echo "RESULT sample=$n variant=x status=PASS"
case $n in zz_bench_waived) exit 2 ;; zz_bench_bad) exit 1 ;; esac
exit 0
SAMPLE
    chmod +x "bin/$n"
done
# the multi-GPU stand-in is told apart by its expectations: a folder is needed
mkdir -p "$tmp/fake"

# overlap LOG: 1 if two runs overlapped on one device ("all": both GPUs)
overlap() {
    sort -k3 -n "$1" | awk '
        { dev = $2 == "all" ? "0,1" : $2; n = split(dev, d, ","); for (i = 1; i <= n; i++) {
              if ($1 == "start") { if (busy[d[i]]) bad = 1; busy[d[i]] = 1 } else busy[d[i]] = 0 } }
        END { print bad + 0 }'
}

export PATH="$tmp/path:$PATH"
devices() { awk '$1 == "start" {print $2}' "$1" | sort -u | tr '\n' ' '; }

PAIR=$tmp/pair BENCH_OUT="$tmp/out2" BENCH_JOBS=2 GIT_COMMIT=test tools/bench.sh zz_bench_a zz_bench_b zz_bench_c zz_bench_d zz_bench_waived >"$tmp/b2.txt" 2>&1
check "BENCH_JOBS=2: exit 0 (WAIVED is not a failure)" "[ $? = 0 ]"
check "BENCH_JOBS=2: both GPUs used, one each" "[ \"\$(devices '$tmp/log')\" = '0 1 ' ]"
check "BENCH_JOBS=2: never two runs on one GPU" "[ \$(overlap '$tmp/log') = 0 ]"
check "BENCH_JOBS=2: CUDA numbers the GPUs as nvidia-smi does" "[ \"\$(awk '\$1 == \"start\" {print \$5}' '$tmp/log' | sort -u)\" = PCI_BUS_ID ]"
check "BENCH_JOBS=2: every run made and saved with its exit" "[ \$(grep -c '^start' '$tmp/log') = 5 ] && [ \$(grep -l '^# exit: ' '$tmp'/out2/*.txt | wc -l) = 5 ] && grep -q '^# exit: 2' '$tmp/out2/zz_bench_waived.txt'"
check "BENCH_JOBS=2: each file names its device and the parallel mode" "grep -qE '^# ran on: device [01] \(BENCH_JOBS=2: 2 samples at once' '$tmp/out2/zz_bench_c.txt'"
# the point of it: at some moment two runs were on (on different GPUs)
maxrun=$(sort -k3 -n "$tmp/log" | awk '$1 == "start" { n++; if (n > m) m = n } $1 == "end" { n-- } END { print m }')
check "BENCH_JOBS=2: two runs at once, on different GPUs" "[ $maxrun = 2 ]"
# one results.json of every worker's runs, made once, after them
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1" "$2"; }
check "BENCH_JOBS=2: one results.json with every worker's runs" "[ \"\$(py 'print(len(d[\"runs\"]), sorted(r[\"sample\"] for r in d[\"runs\"]) == sorted(\"zz_bench_\" + x for x in \"abcd\") + [\"zz_bench_waived\"])' '$tmp/out2/results.json')\" = '5 True' ]"
check "BENCH_JOBS=2: results.json keeps where each run ran, and WAIVED's exit 2" "[ \"\$(py 'print(sorted(set(r[\"ran_on\"][:8] for r in d[\"runs\"])), [r[\"exit\"] for r in d[\"runs\"] if r[\"sample\"] == \"zz_bench_waived\"])' '$tmp/out2/results.json')\" = \"['device 0', 'device 1'] [2]\" ]"
check "BENCH_JOBS=2: RESULTS.md made once, saying the runs shared the host" "grep -q '^| several GPUs | 5 of 5 runs made by' '$tmp/out2/RESULTS.md' && grep -q 'ran on device [01] (BENCH_JOBS=2' '$tmp/out2/RESULTS.md'"
check "BENCH_JOBS=2: each worker asks about its own GPU" "grep -q -- '-i 1' '$tmp/smi.log' && grep -q -- '-i 0' '$tmp/smi.log'"
# a worker alone: its run file, nothing else
BENCH_OUT="$tmp/outw" BENCH_WORKER=1 GIT_COMMIT=test tools/bench.sh zz_bench_a >"$tmp/bw.txt" 2>&1
check "a worker: exit 0, its run file and no results.json, RESULTS.md or deviceQuery.json" "[ $? = 0 ] && [ \"\$(ls '$tmp/outw')\" = zz_bench_a.txt ]"
# the last pass alone: no runs, the reports from the files there
rm -f "$tmp/log"
BENCH_OUT="$tmp/outw" BENCH_REPORT_ONLY=1 GIT_COMMIT=test tools/bench.sh zz_bench_b >"$tmp/br.txt" 2>&1
check "BENCH_REPORT_ONLY: exit 0, no sample run, results.json and RESULTS.md from the file there" "[ $? = 0 ] && [ ! -e '$tmp/log' ] && [ ! -e '$tmp/outw/zz_bench_b.txt' ] && [ \"\$(py 'print(len(d[\"runs\"]))' '$tmp/outw/results.json')\" = 1 ] && [ -f '$tmp/outw/RESULTS.md' ]"

rm -f "$tmp/log"
BENCH_OUT="$tmp/out1" GIT_COMMIT=test tools/bench.sh zz_bench_a zz_bench_b zz_bench_bad >"$tmp/b1.txt" 2>&1
check "BENCH_JOBS=1 with a failing sample: exit 1" "[ $? = 1 ]"
check "BENCH_JOBS=1: one at a time, every GPU visible" "[ \$(overlap '$tmp/log') = 0 ] && [ \"\$(devices '$tmp/log')\" = 'all ' ]"
check "BENCH_JOBS=1: no 'ran on' line (the format of before)" "! grep -q 'ran on' '$tmp/out1/zz_bench_a.txt'"

# A sample that needs two GPUs: the real p2pBandwidthLatencyTest folder
# declares "gpus: 2"; a stand-in binary takes its name for the test.
if [ -f $p2p/sanitize.expect ]; then
    rm -f "$tmp/log"
    sed 's/zz_bench_multi/p2pBandwidthLatencyTest/' bin/zz_bench_multi >bin/p2pBandwidthLatencyTest
    chmod +x bin/p2pBandwidthLatencyTest
    BENCH_OUT="$tmp/outm" BENCH_JOBS=2 GIT_COMMIT=test tools/bench.sh p2pBandwidthLatencyTest zz_bench_a zz_bench_b >"$tmp/bm.txt" 2>&1
    rc=$?
    check "multi-GPU sample: exit 0" "[ $rc = 0 ]"
    check "multi-GPU sample: alone, with every GPU, after the others" "[ \$(overlap '$tmp/log') = 0 ] && [ \"\$(sort -k3 -n '$tmp/log' | tail -n2 | awk '{print \$1 \$2 \$4}' | tr '\n' ' ')\" = 'startallp2pBandwidthLatencyTest endallp2pBandwidthLatencyTest ' ] && [ \"\$(sort -k3 -n '$tmp/log' | head -n1 | awk '{print \$4}')\" != p2pBandwidthLatencyTest ]"
    check "multi-GPU sample: its file says every GPU, alone" "grep -q '^# ran on: every visible GPU (0 1), alone' '$tmp/outm/p2pBandwidthLatencyTest.txt'"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
