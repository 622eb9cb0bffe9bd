#!/usr/bin/env bash
# run_corpus.sh OUTDIR [kgate options...]: run the full gate (static + dynamic)
# on the labeled corpus and save the text report, the JSON report and the
# run's provenance (GPU, driver, date, commit, command) under OUTDIR.
# Needs a CUDA device; build first with `make -C 9_Verification/kgate`.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: run_corpus.sh OUTDIR [kgate options]}"
shift
mkdir -p "$out"
cmd=("$root/bin/kgate" --json="$out/kgate_corpus.json" "$@" "$here/corpus")
{
  echo "# kgate corpus run"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# commit: ${GIT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1 || echo unknown)"
  echo "# nvcc: $(nvcc --version 2>/dev/null | tail -n1)"
  echo "# command: ${cmd[*]}"
} > "$out/kgate_corpus.txt"
"${cmd[@]}" >> "$out/kgate_corpus.txt" 2>&1
rc=$?
tail -n 8 "$out/kgate_corpus.txt"
exit $rc
