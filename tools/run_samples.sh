#!/usr/bin/env bash
# run_samples.sh: run every sample (or the ones named) with its default
# arguments, one at a time, and print a line as each ends:
#     [3/16] histogram  PASS  fast_r32_nozero 4237 GB/s (199.5% of cub)   12.3
#            n=536870912 input=uniform bins=256; 120.7% (...) to 199.5% (...) of cub, ...
# The headline and its case come from tools/results.py: the sample's folder
# declares the case (<folder>/headline); the second line names it (the
# record's size keys) and gives the range of the same variant over the
# sample's other inputs. A WAIVED sample shows its reason instead.
# A 9_Verification tool that did not build is listed as SKIPPED with the
# reason (build/tools/<tool>.skipped).
# Full outputs go to build/run/<sample>.log. Extra arguments for every
# sample: RUN_ARGS="--quick".
# When every sample WAIVED (no usable GPU: none there, or a driver that did
# not load), a banner says so; with REQUIRE_GPU=1 that is then exit 1.
# Exit status: 1 if any sample FAILED (WAIVED is not a failure), or if all
# WAIVED under REQUIRE_GPU=1; else 0.
set -u
cd "$(dirname "$0")/.."
mkdir -p build/run
RUN_TIMEOUT=${RUN_TIMEOUT:-900}

samples=("$@")
if [ ${#samples[@]} -eq 0 ]; then
    mapfile -t samples < <(MAKEFLAGS= make -s --no-print-directory list | xargs -n1 basename)
fi
total=${#samples[@]}

printf '%-8s %-24s %-8s %-56s %8s\n' "" sample status "headline (then its case)" seconds
printf '%-8s %-24s %-8s %-56s %8s\n' "" ------ ------ -------- -------
any_fail=0
waived=0
first_reason=""
i=0
for s in "${samples[@]}"; do
    i=$((i + 1))
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
    detail=""
    if [ "$status" = WAIVED ]; then
        waived=$((waived + 1))
        reason=$(tail -n1 "$log" | sed -E 's/^[^(]*\((.*)\)$/\1/')
        [ -n "$first_reason" ] || first_reason=$reason
        head=$(printf '%s' "$reason" | cut -c1-56)
    else
        { read -r head; read -r detail; } < <(python3 tools/results.py headline "$log" 2>/dev/null || printf -- '-\n\n')
    fi
    printf '%-8s %-24s %-8s %-56s %8.1f\n' "[$i/$total]" "$s" "$status" "$head" "$secs"
    [ -n "$detail" ] && printf '%-8s %s\n' "" "$detail"
done
# Tools that did not build (tools/build_tool.sh) are listed, not failed:
# the samples never need them.
while read -r d; do
    t=$(basename "$d")
    [ -f "build/tools/$t.skipped" ] || continue
    printf '%-8s %-24s %-8s %s\n' "" "$t" SKIPPED "tool not built: $(cat "build/tools/$t.skipped")"
done < <(MAKEFLAGS= make -s --no-print-directory list-tools)
echo "(full outputs in build/run/)"
if [ "$total" -gt 0 ] && [ "$waived" -eq "$total" ]; then
    echo
    echo "================================================================================"
    echo "  EVERY SAMPLE WAIVED: no usable GPU. Nothing was checked or timed on a GPU."
    echo "  The first reason: $first_reason"
    echo "  Without a GPU this is expected (the CPU simulators: make help). On a GPU"
    echo "  server, check the driver: nvidia-smi, and bin/deviceQuery."
    if [ "${REQUIRE_GPU:-0}" = 1 ]; then
        echo "  REQUIRE_GPU=1: this run fails (exit 1)."
    else
        echo "  (make run REQUIRE_GPU=1 makes this a failure, for bring-up scripts.)"
    fi
    echo "================================================================================"
    [ "${REQUIRE_GPU:-0}" = 1 ] && exit 1
fi
exit $any_fail
