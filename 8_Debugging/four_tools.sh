#!/usr/bin/env bash
# four_tools.sh PROGRAM [ARGS...]: run a CUDA program under each of
# compute-sanitizer's four tools in turn, the regression run of every
# 8_Debugging walkthrough. Each command is printed before it runs (so a saved
# output shows the exact flags), then its exit status. The flags are the
# harness's (9_Verification/sanitize), without the XML:
#   memcheck  --leak-check full      (leaks are reported only with it)
#   racecheck --racecheck-report all (hazards and the analysis summary)
#   initcheck, synccheck             (defaults)
# and --error-exitcode 1 for every tool (without it compute-sanitizer exits
# with the program's status, 0, even when it reports errors).
# Exit: 0 if all four exited 0, else 1. compute-sanitizer comes from PATH,
# then $CUDA_HOME/bin, then /usr/local/cuda/bin.
#
#   8_Debugging/four_tools.sh bin/blurPitch_fixed --quick
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 PROGRAM [ARGS...]" >&2
    exit 2
fi
cs=$(command -v compute-sanitizer || true)
for d in "${CUDA_HOME:-}/bin" /usr/local/cuda/bin; do
    [ -z "$cs" ] && [ -x "$d/compute-sanitizer" ] && cs=$d/compute-sanitizer
done
if [ -z "$cs" ]; then
    echo "four_tools: compute-sanitizer not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)" >&2
    exit 2
fi
failed=0
for tool in memcheck racecheck initcheck synccheck; do
    case $tool in
    memcheck) extra=(--leak-check full) ;;
    racecheck) extra=(--racecheck-report all) ;;
    *) extra=() ;;
    esac
    echo "\$ compute-sanitizer --tool $tool ${extra[*]+${extra[*]} }--error-exitcode 1 $*"
    "$cs" --tool "$tool" "${extra[@]+"${extra[@]}"}" --error-exitcode 1 "$@"
    rc=$?
    echo "# $tool: exit status $rc"
    [ $rc -eq 0 ] || failed=1
done
exit $failed
