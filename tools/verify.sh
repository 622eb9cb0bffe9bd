#!/usr/bin/env bash
# tools/verify.sh: what `make verify` runs (after building everything): every
# sample and every planted-bug program under compute-sanitizer's memcheck,
# racecheck, initcheck and synccheck, judged by bin/sanitize against the
# sanitize.expect beside each (see 9_Verification/sanitize/README.md).
#
#   tools/verify.sh                         the whole suite, reports in build/sanitize/
#   tools/verify.sh --out=results/H200/sanitize --jobs=1
#   tools/verify.sh --folder=0_Simple --tool=memcheck
#   VERIFY_ARGS="--timeout=300" make verify
#
# Exit: 0 all as declared; 1 any MISSED, UNEXPECTED or ERROR; 2 no CUDA
# device here (the harness says so with its WAIVED line).
set -u
cd "$(dirname "$0")/.." || exit 1
if [ ! -x bin/sanitize ]; then
    make -C 9_Verification/sanitize >&2 || { echo "verify: FAIL (cannot build bin/sanitize)"; exit 1; }
fi
# shellcheck disable=SC2086  # VERIFY_ARGS is a list of options
exec bin/sanitize ${VERIFY_ARGS:-} "$@"
