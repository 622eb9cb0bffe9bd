#!/usr/bin/env bash
# test_results_limits.sh: the committed results are physically possible and the
# figures quoted in prose cite a results file that still holds them
# (tools/check_results.sh), and the checker itself fails where it must:
#   - pct_peak above 100 in a RESULT line, a JSON line, a results.json, a CSV
#     column (found by its header) and a README's generated table
#   - a stale/ file that its README does not name, a stale/ folder without a
#     README; a named stale file is skipped
#   - a citation of a missing file, and of a file that now holds another commit
#     (on one line, or wrapped onto the next)
#   - a file in history/<commit>/ whose header holds another commit; a
#     citation of a history/ file that holds the cited commit passes
# Ends with "results tests: N passed, M failed".
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The tree as committed.
out=$(tools/check_results.sh 2>&1); rc=$?
echo "$out" | tail -n 5
if [ $rc -eq 0 ]; then ok; else bad "tools/check_results.sh on the tree (exit $rc)"; fi

# 2. Fake trees.
header() {  # COMMIT
    printf '# gpu: NVIDIA H200\n# driver: 580\n# cuda: 13.0\n# date: 2026-12-01T00:00:00Z\n# commit: %s\n# command: make bench\n' "$1"
}
fresh() {  # a tree that passes: one RESULT file, a CSV file, a README table, a citation
    t=$tmp/tree
    rm -rf "$t"
    mkdir -p "$t/tools" "$t/results/H200" "$t/0_Simple/s"
    cp tools/check_results.sh "$t/tools/"
    { header abc1234
      echo "RESULT sample=s variant=fast n=1 status=PASS time_ms=1 gbps=4000 pct_peak=83.1 ref=lib pct_ref=99"
      echo "RESULT sample=s variant=cpu n=1 status=PASS time_ms=9 gbps=2"
      echo "RESULT sample=s variant=edge n=1 status=PASS time_ms=1 gbps=4814 pct_peak=100"
    } >"$t/results/H200/s.txt"
    { header abc1234
      echo "sample,variant,device,bytes,status,gbps,pct_peak,peak"
      echo "s,d2d,0,1024,PASS,1.2,0.02,hbm"
      echo "s,h2d,0,1024,FAIL,,,"
    } >"$t/results/H200/s__csv.txt"
    printf '# s\n\nFast (results/H200/s.txt, commit abc1234: 4000 GB/s).\n\n<!-- results:begin -->\n| variant | size | status | time (ms, median) | throughput | %% of peak | vs reference |\n|---|---|---|---|---|---|---|\n| cpu | n=1 | PASS | 9 | 2 GB/s | - | - |\n| fast | n=1 | PASS | 1 | 4000 GB/s | 83.1 | 99%% of lib |\n<!-- results:end -->\n' \
        >"$t/0_Simple/s/README.md"
}
run_check() { out=$(cd "$t" && bash tools/check_results.sh 2>&1); rc=$?; }
expect_ok() {
    run_check
    if [ $rc -eq 0 ]; then ok; else bad "$1: exit $rc: $out"; fi
}
expect_fail() {  # NAME PATTERN
    run_check
    if [ $rc -eq 1 ] && grep -qE -- "$2" <<<"$out"; then ok; else bad "$1: exit $rc, want 1 and /$2/: $out"; fi
}

fresh
expect_ok "a clean fake tree (pct_peak = 100 allowed)"
if grep -q "4 pct_peak values in 3 files, 1 citations" <<<"$out"; then ok; else bad "counts: $out"; fi

fresh
echo "RESULT sample=s variant=tf32 n=1 status=PASS time_ms=1 gflops=406990 pct_peak=608.3" >>"$t/results/H200/s.txt"
expect_fail "RESULT line above 100" "s.txt:[0-9]+: variant=tf32 pct_peak=608.3 is above 100%"

fresh
echo "s,d2d,0,16777216,PASS,5041,104.7,hbm" >>"$t/results/H200/s__csv.txt"
expect_fail "CSV row above 100" "s__csv.txt:[0-9]+: variant=d2d pct_peak=104.7"

fresh
echo '{"sample":"s","variant":"j","status":"PASS","gbps":5000,"pct_peak":103.9,"ref":"x"}' >"$t/results/H200/s__json.txt"
expect_fail "JSON line above 100" "s__json.txt:1: json pct_peak=103.9"

fresh
mkdir -p "$t/results/H200/run1"
echo '[{"variant":"a","pct_peak":99.5},{"variant":"b","pct_peak":100.01}]' >"$t/results/H200/run1/results.json"
expect_fail "results.json above 100" "results.json:1: json pct_peak=100.01"

fresh
sed -i 's/| 83.1 |/| 101.5 |/' "$t/0_Simple/s/README.md"
expect_fail "README table above 100" "README.md:[0-9]+: variant=fast pct_peak=101.5"

fresh
echo "RESULT sample=s variant=weird n=1 status=PASS pct_peak=nan" >>"$t/results/H200/s.txt"
expect_fail "a pct_peak that is not a number" "variant=weird pct_peak=nan"

# stale/: skipped when its README names the file, an error otherwise
fresh
mkdir -p "$t/results/H200/stale"
{ header 0000001; echo "RESULT sample=s variant=old n=1 status=PASS pct_peak=104.7"; } >"$t/results/H200/stale/old.txt"
expect_fail "stale/ without a README" "stale/old.txt: in a stale/ folder without a README.md"
echo "- other.txt: something else" >"$t/results/H200/stale/README.md"
expect_fail "stale/ README that does not name the file" "stale/old.txt: stale, but .*does not name it"
echo "- old.txt: measured the L2, not HBM" >>"$t/results/H200/stale/README.md"
expect_ok "a named stale file is skipped"

# citations
fresh
printf 'A figure (results/H200/gone.txt, commit abc1234: 1 GB/s).\n' >>"$t/0_Simple/s/README.md"
expect_fail "citation of a missing file" "cites results/H200/gone.txt, which does not exist"
fresh
printf '/* measured: results/H200/s.txt, commit 1111111 (4000 GB/s) */\n' >"$t/0_Simple/s/s.cu"
expect_fail "citation of a file re-measured since" "s.cu:1: cites results/H200/s.txt at commit 1111111, but the file now holds commit abc1234"
fresh
printf '/* measured: results/H200/s.txt, commit abc1234def (full hash prefix) */\n' >"$t/0_Simple/s/s.cu"
expect_ok "a longer hash of the same commit"
# a citation wrapped onto the next line (a paragraph's or a comment's) is checked too
fresh
printf '/* measured in\n * results/H200/s.txt,\n * commit 1111111 (4000 GB/s) */\n' >"$t/0_Simple/s/s.cu"
expect_fail "a citation wrapped after its comma" "s.cu:2: cites results/H200/s.txt at commit 1111111, but the file now holds commit abc1234"
fresh
printf 'Fast (results/H200/s.txt, commit\n1111111: 4000 GB/s).\n' >>"$t/0_Simple/s/README.md"
expect_fail "a citation wrapped after 'commit'" "README.md:[0-9]+: cites results/H200/s.txt at commit 1111111, but the file now holds commit abc1234"
fresh
printf '/* measured in results/H200/s.txt,\n// commit abc1234 (4000 GB/s) */\n' >"$t/0_Simple/s/s.cu"
expect_ok "a wrapped citation of the right commit"
if grep -q "2 citations" <<<"$out"; then ok; else bad "a wrapped citation counted once: $out"; fi

# history/<commit>/: an older run kept for a lab report, cited at its own commit
fresh
mkdir -p "$t/results/H200/history/1111111"
{ header 1111111; echo "RESULT sample=s variant=fast n=1 status=PASS time_ms=1 gbps=3900 pct_peak=81.0"; } \
    >"$t/results/H200/history/1111111/s.txt"
printf '/* then: results/H200/history/1111111/s.txt, commit 1111111 (3900 GB/s) */\n' >"$t/0_Simple/s/s.cu"
expect_ok "a citation of an archived run at its own commit"
{ header 2222222; echo "RESULT sample=s variant=fast n=1 status=PASS time_ms=1 gbps=3900 pct_peak=81.0"; } \
    >"$t/results/H200/history/1111111/s.txt"
expect_fail "a history/ file that holds another commit than its folder" \
    "history/1111111/s.txt: in history/1111111/, but its header holds commit 2222222"
mkdir -p "$t/results/H200/history/notahash"
{ header abc1234; } >"$t/results/H200/history/notahash/s.txt"
expect_fail "a history/ folder not named after a commit" "history/notahash/s.txt: in history/notahash/"
{ header 1111111; echo "RESULT sample=s variant=fast n=1 status=PASS time_ms=1 gbps=3900 pct_peak=181.0"; } \
    >"$t/results/H200/history/1111111/s.txt"
rm -r "$t/results/H200/history/notahash"
expect_fail "a history/ file is still read for pct_peak" "history/1111111/s.txt:[0-9]+: variant=fast pct_peak=181.0"

echo "results tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
