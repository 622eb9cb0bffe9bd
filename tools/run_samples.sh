#!/usr/bin/env bash
# run_samples.sh: run every sample (or the ones named) with its default
# arguments and print a summary table:
#     sample  status  headline figure  time taken
# The headline is picked by tools/results.py (the rule is in its header):
# a record marked headline=1, else the checked variant with the highest
# pct_ref that is neither the CPU baseline nor the reference itself nor a
# row with a role (role=context: matrixMul's TF32 cuBLAS), else the best
# figure. Figures: GFLOP/s, GB/s, us/kernel-like times (lower is better),
# overlap and speedup factors.
# A 9_Verification tool that did not build is listed as SKIPPED with the
# reason (build/tools/<tool>.skipped).
# Full outputs go to build/run/<sample>.log. Extra arguments for every
# sample: RUN_ARGS="--quick". Exit status 1 if any sample FAILED
# (WAIVED is not a failure).
set -u
cd "$(dirname "$0")/.."
mkdir -p build/run
RUN_TIMEOUT=${RUN_TIMEOUT:-900}

samples=("$@")
if [ ${#samples[@]} -eq 0 ]; then
    mapfile -t samples < <(MAKEFLAGS= make -s --no-print-directory list | xargs -n1 basename)
fi

# headline LOGFILE: "variant figure unit (pct% of ref)" from the RESULT lines
headline() {
    python3 tools/results.py headline "$1" 2>/dev/null || echo "-"
}

printf '%-24s %-8s %-56s %8s\n' sample status "headline" seconds
printf '%-24s %-8s %-56s %8s\n' ------ ------ -------- -------
any_fail=0
for s in "${samples[@]}"; do
    log=build/run/$s.log
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    timeout "$RUN_TIMEOUT" "bin/$s" ${RUN_ARGS:-} >"$log" 2>&1
    rc=$?
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    case $rc in
        0) status=PASS ;;
        2) status=WAIVED ;;
        124) status=FAIL; echo "$s: timed out after ${RUN_TIMEOUT}s" >>"$log" ;;
        *) status=FAIL ;;
    esac
    [ "$status" = FAIL ] && any_fail=1
    if [ "$status" = WAIVED ]; then
        head=$(tail -n1 "$log" | sed -E 's/^[^(]*\((.*)\)$/\1/' | cut -c1-56)
    else
        head=$(headline "$log")
    fi
    printf '%-24s %-8s %-56s %8.1f\n' "$s" "$status" "$head" "$secs"
done
# Tools that did not build (tools/build_tool.sh) are listed, not failed:
# the samples never need them.
while read -r d; do
    t=$(basename "$d")
    [ -f "build/tools/$t.skipped" ] || continue
    printf '%-24s %-8s %s\n' "$t" SKIPPED "tool not built: $(cat "build/tools/$t.skipped")"
done < <(MAKEFLAGS= make -s --no-print-directory list-tools)
echo "(full outputs in build/run/)"
exit $any_fail
