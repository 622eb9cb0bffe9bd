#!/usr/bin/env bash
# test_cli.sh: the kgate command as a careful user meets it, without a GPU
# (--static-only and --compile-only runs, each a second or two):
#   - options after a candidate path are options, `--` ends them; -h is help;
#     an empty --labels= / --work= / --json= / --feedback= is refused;
#     `--json --static-only x.cu` does not write a file named --static-only;
#     every option the parser knows is in --help;
#   - labels problems are reported and fail the run: a kgate-task that
#     contradicts the label, a file labeled twice, a label for a missing
#     file, a byte-order mark; a candidate's byte-order mark is noted;
#   - more candidates than the limit is an error, not a silent drop;
#   - repairs: a bfloat16 kernel without its header compiles; compiler
#     messages name the candidate's own file and line;
#   - policies: published rejects a printf, lenient does not reject a
#     divergent barrier; the feedback file has one valid record per candidate;
#   - --arch with two architectures: a candidate that compiles for only one
#     is accepted with a note;
#   - a static scan starved of CPU time (a bubblewrap that sleeps) is SKIPPED
#     as the gate's own failure after one retry, counted apart, never L1; so
#     is a scan that says it ran out of time (its nvcc budget, its deadline);
#   - code nvcc compiles and clang cannot parse is P0 (KG-PARSE), not judged
#     on clang's partial AST;
#   - PyTorch candidates are admitted first (their builds overlap the rest),
#     the report keeps the candidates' order;
#   - the helpers (kgate-sandbox, kgate-scan, kgate-harness,
#     kgate-torch-build.py) are in build/libexec/kgate, not bin/; the stub
#     run by hand says what it is; a gate without them says so.
# Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/../../.."
here=9_Verification/kgate
corpus=$here/corpus
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x bin/kgate ]; then bad "bin/kgate not built (make -C $here)"; echo "$passed passed, $failed failed"; exit 1; fi

# --- options after paths, --, -h, empty values -----------------------------
bin/kgate "$corpus/relu_basic.cu" --static-only --json="$tmp/after.json" > "$tmp/o1" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -s "$tmp/after.json" ] && ok || bad "an option after the path was not taken (exit $rc): $(tail -2 "$tmp/o1")"
bin/kgate -h > "$tmp/h1" 2>&1 && grep -q "^usage: kgate" "$tmp/h1" && ok || bad "-h is not help"
bin/kgate --static-only -- "$corpus/relu_basic.cu" > /dev/null 2>&1 && ok || bad "-- before a path"
bin/kgate --static-only -- --not-an-option.cu > "$tmp/o2" 2>&1
grep -q "cannot read --not-an-option.cu" "$tmp/o2" && ok || bad "after --, an argument is a path: $(tail -1 "$tmp/o2")"
for opt in labels work json feedback policy task nvcc python arch; do
    bin/kgate --static-only --$opt= "$corpus/relu_basic.cu" > "$tmp/o3" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q -- "--$opt is empty" "$tmp/o3"; then ok; else bad "--$opt= was not refused (exit $rc): $(head -1 "$tmp/o3")"; fi
done
(cd "$tmp" && "$OLDPWD/bin/kgate" --json --static-only "$OLDPWD/$corpus/relu_basic.cu" > o4 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -q -- "--json needs a value, not --static-only" "$tmp/o4" && [ ! -e "$tmp/--static-only" ]; then ok
else bad "--json --static-only x.cu: exit $rc, $(head -1 "$tmp/o4"), files: $(ls "$tmp")"; fi
bin/kgate --json "$tmp/sep.json" --static-only "$corpus/relu_basic.cu" > /dev/null 2>&1 && [ -s "$tmp/sep.json" ] && ok \
    || bad "--json FILE (a separate value) was not taken"
# every option the parser knows is in --help
bin/kgate --help > "$tmp/help" 2>&1
opts=$(sed -n '/static const char \*flags\[\] = {/,/};/p;/static const char \*valued\[\] = {/,/};/p' $here/cli.c \
       | grep -o '"[a-z-]*"' | tr -d '"')
[ "$(echo "$opts" | wc -w)" -ge 25 ] && ok || bad "could not read the option lists from cli.c"
for o in $opts; do
    grep -q -- "--$o" "$tmp/help" && ok || bad "--$o is not in --help"
done
for badopt in "--policy=paranoid" "--arch=90," "--arch=abc" "--devices=0,0" "--device=1,2" "--jobs=0" "-x" \
              "--sanitize=memcheck" "--sanitize=" "--sanitize=FAST"; do
    bin/kgate --static-only $badopt "$corpus/relu_basic.cu" > "$tmp/o5" 2>&1
    [ $? -eq 1 ] && grep -q "FAIL (bad argument)" "$tmp/o5" && ok || bad "$badopt was not refused: $(head -1 "$tmp/o5")"
done

# --- labels problems --------------------------------------------------------
mkdir -p "$tmp/lab"
cp "$corpus/relu_basic.cu" "$corpus/tanh_tanhf.cu" "$corpus/va_grid_stride.cu" "$tmp/lab/"
printf '\xef\xbb\xbf' > "$tmp/lab/bom_relu.cu"
cat "$corpus/relu_basic.cu" >> "$tmp/lab/bom_relu.cu"
{
    printf '\xef\xbb\xbf# labels with problems\n'
    printf 'relu_basic.cu\trelu\tPASS\tnone\n'
    printf 'tanh_tanhf.cu\trelu\tPASS\tthe source says tanh\n'
    printf 'va_grid_stride.cu\tvector_add\tPASS\tnone\n'
    printf 'va_grid_stride.cu\tvector_add\tL3\tlabeled twice\n'
    printf 'bom_relu.cu\trelu\tPASS\tnone\n'
    printf 'gone.cu\trelu\tPASS\tnot there\n'
} > "$tmp/lab/labels.tsv"
bin/kgate --static-only "$tmp/lab" > "$tmp/o6" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "a labels file with problems did not fail the run (exit $rc)"
for pat in "byte-order mark" "labeled twice" "labels gone.cu, which is not in" \
           "tanh_tanhf.cu: its source says kgate-task: tanh, its label says relu"; do
    grep "^# labels: PROBLEM" "$tmp/o6" | grep -qF -- "$pat" && ok || bad "labels problem not reported: $pat"
done
tail -1 "$tmp/o6" | grep -q "4 labels problem(s)" && ok || bad "closing line: $(tail -1 "$tmp/o6")"
grep -A6 "bom_relu.cu" "$tmp/o6" | grep -q "note: the file starts with a UTF-8 byte-order mark" && ok \
    || bad "a candidate's byte-order mark was not noted"
grep -q "^STATIC-OK bom_relu.cu" "$tmp/o6" && ok || bad "a candidate with a byte-order mark was not read"

# --- the candidate limit ------------------------------------------------------
mkdir -p "$tmp/many"
for i in $(seq 1 4100); do : > "$tmp/many/c$i.cu"; done
bin/kgate --static-only "$tmp/many" > "$tmp/o7" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "4100 candidates, the limit is 4096" "$tmp/o7" && ! grep -q "^L1 \|^STATIC-OK" "$tmp/o7"; then ok
else bad "4100 candidates: exit $rc, $(tail -1 "$tmp/o7")"; fi

# --- repairs and compiler messages --------------------------------------------
cat > "$tmp/bf16_add.cu" <<'EOF'
// kgate-task: vector_add
__global__ void k(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { __nv_bfloat16 h = __float2bfloat16(a[i]); c[i] = __bfloat162float(h) * 0.0f + a[i] + b[i]; }
}
extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    k<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
EOF
bin/kgate --compile-only "$tmp/bf16_add.cu" > "$tmp/o8" 2>&1
grep -q "^STATIC-OK bf16_add.cu" "$tmp/o8" && grep -q "repaired: #include <cuda_bf16.h> added" "$tmp/o8" && ok \
    || bad "a bfloat16 kernel without its header: $(grep -A3 bf16_add "$tmp/o8" | head -4)"
bin/kgate --compile-only "$corpus/va_typo.cu" "$corpus/softmax_undeclared.md" > "$tmp/o9" 2>&1
grep -q "why: compile error: $corpus/va_typo.cu:7: error" "$tmp/o9" && ok || bad "the message does not name va_typo.cu:7: $(grep -A1 va_typo "$tmp/o9" | tail -1)"
grep -q "$corpus/softmax_undeclared.md:14: error" "$tmp/o9" && ok || bad "the message does not name the Markdown answer's line 14"
grep -q "cand.cu\|/scratch/\|kgate\.[A-Za-z0-9]\{6\}/" "$tmp/o9" && bad "a scratch path in the messages: $(grep -m1 'cand.cu\|/scratch/' "$tmp/o9")" || ok

# --- policies and feedback ------------------------------------------------------
cat > "$tmp/printf_relu.cu" <<'EOF'
// kgate-task: relu
#include <cstdio>
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
    if (n < 0) printf("never: %d\n", n);
}
extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream) {
    k<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
EOF
bin/kgate --static-only "$tmp/printf_relu.cu" > "$tmp/o10" 2>&1
grep -q "^STATIC-OK printf_relu.cu" "$tmp/o10" && ok || bad "default policy rejected a printf"
grep -q "stopped statically under: published strict" "$tmp/o10" && ok || bad "the report does not say which profiles stop it"
bin/kgate --static-only --policy=published "$tmp/printf_relu.cu" > "$tmp/o11" 2>&1
grep -q "^P0        printf_relu.cu" "$tmp/o11" && grep -q "KG-DEVICE-PRINTF" "$tmp/o11" && ok || bad "published did not reject a printf"
bin/kgate --static-only --policy=lenient "$corpus/sum_sync_in_branch.cu" > "$tmp/o12" 2>&1
grep -q "^STATIC-OK sum_sync_in_branch.cu" "$tmp/o12" && ok || bad "lenient rejected a divergent barrier statically"
bin/kgate --static-only --policy=lenient "$corpus/hostile_include_stdin.cu" > "$tmp/o13" 2>&1
grep -q "^P0 " "$tmp/o13" && ok || bad "lenient let an include of /dev/stdin through"
bin/kgate --static-only --feedback="$tmp/fb.jsonl" "$corpus/relu_off_by_one.cu" "$corpus/sum_sync_in_branch.cu" \
    "$corpus/relu_basic.cu" > /dev/null 2>&1
[ "$(wc -l < "$tmp/fb.jsonl")" -eq 3 ] && ok || bad "the feedback file does not have one line per candidate"
if [ -x build/tests/json_check ]; then
    n=0
    while IFS= read -r line; do
        printf '%s' "$line" > "$tmp/one.json"
        build/tests/json_check "$tmp/one.json" > /dev/null 2>&1 || n=$((n + 1))
    done < "$tmp/fb.jsonl"
    [ $n -eq 0 ] && ok || bad "$n feedback record(s) are not valid JSON"
fi
grep -q '"rule":"KG-SYNC-DIVERGENT","severity":"P0","line":14' "$tmp/fb.jsonl" && ok || bad "the feedback lacks the rule hit with its line"
grep -q '"next_step":"KG-SYNC-DIVERGENT at line 14: move __syncthreads()' "$tmp/fb.jsonl" && ok || bad "the feedback lacks the next step"
grep -q '"rule":"KG-BOUNDS-OFF-BY-ONE"' "$tmp/fb.jsonl" && ok || bad "the feedback of relu_off_by_one lacks its hint"

# --- two architectures ---------------------------------------------------------
cat > "$tmp/only100.cu" <<'EOF'
// kgate-task: relu
__global__ void k(const float* x, float* y, int n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 1000
#error "this kernel needs sm_100"
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream) {
    k<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
EOF
bin/kgate --compile-only --arch=90,100 "$tmp/only100.cu" "$corpus/relu_basic.cu" > "$tmp/o14" 2>&1
grep -q "^# compiled for: sm_90,100" "$tmp/o14" && ok || bad "two architectures not announced"
grep -q "^STATIC-OK only100.cu" "$tmp/o14" && grep -A6 "only100.cu" "$tmp/o14" | grep -q "does not compile for sm_90" && ok \
    || bad "a candidate for sm_100 only: $(grep -A3 only100 "$tmp/o14" | head -4)"
grep -q "^STATIC-OK relu_basic.cu" "$tmp/o14" && ok || bad "relu_basic for two architectures"
bin/kgate --compile-only --arch=90 "$tmp/only100.cu" > "$tmp/o15" 2>&1
grep -q "^L1        only100.cu" "$tmp/o15" && grep -q "only100.cu:4: error" "$tmp/o15" && ok \
    || bad "a candidate for sm_100 only on sm_90: $(grep -A1 only100 "$tmp/o15" | tail -1)"

# --- a scan starved of the CPU is the gate's failure, not the candidate's --------
# (a bubblewrap that sleeps before the scan: out of wall-clock time, no CPU
# time used; retried once with twice the wall-clock time, 4 s then 8 s, then
# SKIPPED and counted apart; the run fails)
real_bwrap=$(command -v bwrap)
printf '#!/bin/sh\nfor a in "$@"; do case $a in */kgate-scan) exec sleep 60 ;; esac; done\nexec %s "$@"\n' \
    "$real_bwrap" > "$tmp/slow_bwrap"
chmod +x "$tmp/slow_bwrap"
KGATE_BWRAP="$tmp/slow_bwrap" bin/kgate --static-only --scan-timeout=1 --json="$tmp/starved.json" \
    "$corpus/relu_basic.cu" > "$tmp/o18" 2>&1
rc=$?
grep -A1 "^SKIPPED   relu_basic.cu" "$tmp/o18" | grep -q "gate: the static scan got no result within 8 s of wall-clock time, twice" \
    && ok || bad "a starved scan: $(grep -A1 relu_basic "$tmp/o18" | head -2 | tail -1)"
[ $rc -eq 1 ] && grep -q "1 candidate(s) not judged: the gate's own failure" "$tmp/o18" && ok \
    || bad "a starved scan did not fail the run (exit $rc): $(tail -1 "$tmp/o18")"
grep -q "^gate failures (SKIPPED: the gate could not judge them" "$tmp/o18" && grep -q '"gate_failures":1' "$tmp/starved.json" \
    && ok || bad "the gate failure is not counted apart"
grep -q "^verdicts:.*L1" "$tmp/o18" && bad "a starved scan counted as L1" || ok
# --- what clang cannot parse and nvcc compiles is refused ------------------------
# A brace initialisation that narrows (unsigned into int): nvcc warns, clang
# refuses it, so the rules read only what clang recovered. The scan alone says
# KG-PARSE P1 (--static-only: STATIC-OK); once nvcc has compiled it the gate
# refuses it, P0 with the clang error and the rule's fix in the feedback. A
# clang error that nvcc shares is the compile's L1, as before.
cat > "$tmp/narrow.cu" <<'EOF'
// kgate-task: relu
__global__ void k(const float* __restrict__ x, float* __restrict__ y, int n) {
    const int stride{blockDim.x * gridDim.x};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = fmaxf(x[i], 0.0f);
}
extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream) {
    k<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
EOF
bin/kgate --static-only "$tmp/narrow.cu" > "$tmp/o21" 2>&1
grep -A2 "^STATIC-OK narrow.cu" "$tmp/o21" | grep -q "KG-PARSE(P1)@3" && ok \
    || bad "clang's error alone is P1 in a static-only run: $(grep -A2 narrow.cu "$tmp/o21" | head -3)"
bin/kgate --compile-only --feedback="$tmp/narrow.jsonl" --json="$tmp/narrow.json" "$tmp/narrow.cu" "$corpus/va_typo.cu" \
    > "$tmp/o22" 2>&1
grep -A2 "^P0        narrow.cu" "$tmp/o22" | grep -q "KG-PARSE at line 3: nvcc compiles it but clang cannot parse it (.*cannot be narrowed" \
    && grep -A2 "^P0        narrow.cu" "$tmp/o22" | grep -q "KG-PARSE(P0)@3" && ok \
    || bad "nvcc compiles what clang cannot parse: $(grep -A2 narrow.cu "$tmp/o22" | head -3)"
grep '"candidate":"narrow.cu"' "$tmp/narrow.jsonl" | grep -q '"next_step":"KG-PARSE at line 3: write code clang parses too' && ok \
    || bad "the feedback's next step for a KG-PARSE stop: $(grep narrow.cu "$tmp/narrow.jsonl" | head -c 300)"
python3 - "$tmp/narrow.json" <<'PY' && ok || bad "a KG-PARSE stop is not a stop of every profile in the JSON"
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["candidates"] if c["file"] == "narrow.cu"][0]
sys.exit(0 if all(c["policy_stops"].get(p) for p in ("default", "published", "strict", "lenient")) else 1)
PY
grep -A1 "^L1        va_typo.cu" "$tmp/o22" | grep -q "compile error" && ok \
    || bad "a clang error nvcc shares is the compile's: $(grep -A1 va_typo.cu "$tmp/o22" | tail -1)"

# --- a scan that runs out of its own time says so: the gate's failure ----------
# The scan writes a record with timed_out = 1 when its nvcc runs exceed their
# budget (KGATE_NVCC_BUDGET, here 1 ms) or its own --deadline passes (the
# gate passes one about 2 s before its wall-clock limit; here a fake nvcc that
# sleeps, with --scan-timeout=1: a 4 s limit, a 2 s deadline, 8 s and 6 s on the retry). The gate
# checks timed_out before rc: retried once (a bubblewrap that counts the
# scans it starts), then SKIPPED, counted apart, never L1. A candidate
# without conditional blocks runs no nvcc and is judged as usual.
printf '#!/bin/sh\nfor a in "$@"; do case $a in */kgate-scan) echo scan >> "%s" ;; esac; done\nexec %s "$@"\n' \
    "$tmp/scans.log" "$real_bwrap" > "$tmp/count_bwrap"
chmod +x "$tmp/count_bwrap"
KGATE_BWRAP="$tmp/count_bwrap" KGATE_NVCC_BUDGET=0.001 bin/kgate --static-only --json="$tmp/budget.json" \
    "$corpus/relu_arch_guard.cu" "$corpus/relu_basic.cu" > "$tmp/o19" 2>&1
rc=$?
grep -A1 "^SKIPPED   relu_arch_guard.cu" "$tmp/o19" | grep -q "gate: the static scan ran out of time, twice.*nvcc's preprocessor did not finish within 0.001 s" \
    && ok || bad "a scan out of its nvcc budget: $(grep -A1 relu_arch_guard "$tmp/o19" | head -2 | tail -1)"
[ "$(grep -c scan "$tmp/scans.log" 2>/dev/null)" = 3 ] && ok \
    || bad "a scan out of its nvcc budget is retried once: $(grep -c scan "$tmp/scans.log" 2>/dev/null) scans for 2 candidates, want 3"
grep -q "^STATIC-OK relu_basic.cu" "$tmp/o19" && ok || bad "a candidate without nvcc runs under a tiny budget: $(grep relu_basic "$tmp/o19")"
[ $rc -eq 1 ] && grep -q '"gate_failures":1' "$tmp/budget.json" && ok \
    || bad "a timed-out scan is not a gate failure (exit $rc): $(tail -1 "$tmp/o19")"
grep -q "^verdicts:.*L1" "$tmp/o19" && bad "a timed-out scan counted as L1" || ok
fake=$(mktemp -d)   # the sandbox runs under a uid of its own: the fake must be readable
chmod 755 "$fake"
mkdir "$fake/bin"
printf '#!/bin/sh\nexec sleep 60\n' > "$fake/bin/nvcc"
chmod 755 "$fake/bin/nvcc"
# (2 CPU seconds: libclang's parse before nvcc took more than 1 on a loaded 2-core machine)
bin/kgate --static-only --scan-timeout=2 --nvcc="$fake/bin/nvcc" "$corpus/relu_arch_guard.cu" > "$tmp/o20" 2>&1
rc=$?
rm -rf "$fake"
grep -A1 "^SKIPPED   relu_arch_guard.cu" "$tmp/o20" | grep -q "ran out of time, twice.*did not finish within its 14 s deadline" \
    && [ $rc -eq 1 ] && ok || bad "a scan past its deadline (exit $rc): $(grep -A1 relu_arch_guard "$tmp/o20" | head -2 | tail -1)"
# --- PyTorch candidates are admitted first ----------------------------------------
# their builds (about a minute each on the H200) run beside the plain
# candidates instead of after them: the first scan the gate starts is the
# PyTorch candidate's, named last (a bubblewrap that logs each scan's
# candidate: kgate-scan FILE NAME ...)
printf '#!/bin/bash\na=("$@")\nfor ((i = 0; i < ${#a[@]}; i++)); do case ${a[i]} in */kgate-scan) echo "${a[i+2]}" >> "%s" ;; esac; done\nexec %s "$@"\n' \
    "$tmp/order.log" "$real_bwrap" > "$tmp/order_bwrap"
chmod +x "$tmp/order_bwrap"
KGATE_BWRAP="$tmp/order_bwrap" bin/kgate --static-only "$corpus/relu_basic.cu" "$corpus/va_grid_stride.cu" \
    "$corpus/torch_relu.cu" > "$tmp/o23" 2>&1
[ "$(head -1 "$tmp/order.log" 2>/dev/null)" = torch_relu.cu ] && [ "$(wc -l < "$tmp/order.log")" -eq 3 ] && ok \
    || bad "the PyTorch candidate is not admitted first: $(tr '\n' ' ' < "$tmp/order.log" 2>/dev/null)"
grep -A3 "^STATIC-OK relu_basic.cu" "$tmp/o23" | grep -q . && [ "$(grep -n 'relu_basic.cu  ' "$tmp/o23" | cut -d: -f1)" -lt \
    "$(grep -n 'torch_relu.cu  ' "$tmp/o23" | cut -d: -f1)" ] && ok || bad "the report is not in the candidates' order"
# --- the late-warps run ------------------------------------------------------------
# A candidate with a KG-SYNC-MISSING finding is built again with half of each
# block's warps started late and run again (here a dry run: the changed build
# compiled in the compiler's sandbox, loaded and called in the candidate's
# sandbox; a GPU is what shows wrong outputs); one without it is not, unless
# --late-warps=all; none turns it off.
bin/kgate --dry-run --json="$tmp/late.json" "$corpus/hist_zero_nosync.cu" "$corpus/relu_basic.cu" > "$tmp/o24" 2>&1
grep -A12 "^STATIC-OK hist_zero_nosync.cu" "$tmp/o24" | grep -q "^    late warps: ran in [0-9.]* s: 1 kernel(s) changed; dry run" \
    && ok || bad "the late-warps run of a KG-SYNC-MISSING candidate: $(grep "late warps" "$tmp/o24")"
grep -A12 "^STATIC-OK relu_basic.cu" "$tmp/o24" | grep -q "^    late warps" && bad "a late-warps run without KG-SYNC-MISSING" || ok
grep -q "^# late warps: 1 candidate(s) run again, 0 stopped, 0 not run" "$tmp/o24" && ok || bad "the late-warps summary line"
grep -q '"late_warps":{"result":"ran","seconds":[0-9.]*,"note":"1 kernel(s) changed' "$tmp/late.json" \
    && grep -q '"late_warps":null' "$tmp/late.json" && ok || bad "the late-warps run in the JSON"
bin/kgate --dry-run --late-warps=all "$corpus/relu_basic.cu" > "$tmp/o25" 2>&1
grep -q "^    late warps: ran in [0-9.]* s: 1 kernel(s) changed" "$tmp/o25" && ok || bad "--late-warps=all: $(grep late "$tmp/o25")"
bin/kgate --dry-run --late-warps=none "$corpus/hist_zero_nosync.cu" > "$tmp/o26" 2>&1
grep -q "^    late warps" "$tmp/o26" && bad "--late-warps=none ran it" || ok
grep -q "^# late warps: off (--late-warps=none)" "$tmp/o26" && ok || bad "--late-warps=none is not announced"
bin/kgate --late-warps=often "$corpus/relu_basic.cu" > "$tmp/o27" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "late-warps=often: expected auto, all or none" "$tmp/o27" && ok || bad "--late-warps=often: exit $rc"
# --- the helpers are not commands ------------------------------------------------
# kgate-sandbox, kgate-scan, kgate-harness and kgate-torch-build.py live in
# build/libexec/kgate, where users do not meet them; bin/ has the gate alone
lx=build/libexec/kgate
for h in kgate-sandbox kgate-scan kgate-harness kgate-torch-build.py; do
    [ -x "$lx/$h" ] && ok || bad "$lx/$h was not built"
    [ ! -e "bin/$h" ] && ok || bad "bin/$h: a helper in bin/"
done
# the stub run by hand says what it is (and exits as the sandbox's failure, 126)
"$lx/kgate-sandbox" --bogus > "$tmp/o16" 2>&1
rc=$?
[ $rc -eq 126 ] && grep -q "kgate-sandbox: --bogus: .*sandbox stub" "$tmp/o16" && ok \
    || bad "kgate-sandbox --bogus: exit $rc, $(head -1 "$tmp/o16")"
# a gate whose helpers are missing says so and stops
mkdir -p "$tmp/bin"
cp bin/kgate "$tmp/bin/kgate"
"$tmp/bin/kgate" --static-only "$corpus/relu_basic.cu" > "$tmp/o17" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "kgate: FAIL (helper programs missing)" "$tmp/o17" && grep -q "helper programs are missing" "$tmp/o17" \
    && ok || bad "a gate without its helpers: exit $rc, $(tail -1 "$tmp/o17")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
