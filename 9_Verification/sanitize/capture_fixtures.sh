#!/usr/bin/env bash
# capture_fixtures.sh DIR: run the planted-bug programs under compute-sanitizer
# with exactly the harness's flags (it runs bin/sanitize itself) and copy the
# XML reports into DIR as the unit tests' fixtures:
#     DIR/planted_<name>.<tool>.xml     e.g. planted_oob_read.memcheck.xml
# plus the .log of each run and the harness's own summary. Needs the GPU.
# On the H200:
#     make tools && 9_Verification/sanitize/capture_fixtures.sh 9_Verification/sanitize/tests/fixtures
# then `make -f tests/tests.mk` and run build/tests/9_Verification/sanitize/test_*
# (the committed fixtures were captured this way on 2026-11-29).
set -u
dir=${1:?usage: capture_fixtures.sh DIR}
root=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)
work=$(mktemp -d) || exit 1
cd "$root" || exit 1
make -C 9_Verification/sanitize >/dev/null && make -C 9_Verification/planted >/dev/null ||
    { echo "capture_fixtures: FAIL (build)"; exit 1; }
bin/sanitize --folder=9_Verification/planted --out="$work" --timeout=300
rc=$?
if [ "$rc" = 2 ]; then echo "capture_fixtures: WAIVED (no CUDA device)"; rm -rf "$work"; exit 2; fi
n=0
for f in "$work"/raw/*.xml; do
    [ -e "$f" ] || continue
    cp "$f" "$dir/" && n=$((n + 1))
done
mkdir -p "$dir/logs"
cp "$work"/raw/*.log "$dir/logs/" 2>/dev/null
cp "$work"/summary.txt "$dir/capture_summary.txt"
rm -rf "$work"
echo "capture_fixtures: $n XML reports in $dir (harness exit $rc)"
[ "$n" -gt 0 ] || exit 1
exit 0
