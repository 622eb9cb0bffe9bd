#!/usr/bin/env bash
# run_corpus.sh OUTDIR [kgate options...]: run the full gate (static + dynamic)
# on the labeled corpus and save, under OUTDIR:
#   kgate_corpus.txt / .json      the default policy's run (the headline figures), with the
#                                 run's provenance (GPU, driver, date, commit, command)
#   kgate_feedback.jsonl          the generator's feedback, one record per candidate
#   kgate_corpus_lenient.txt/.json the candidates the default policy stops statically, run
#                                 under --policy=lenient: their dynamic verdicts, so every
#                                 profile's figures are known
#   kgate_corpus_sanitize.txt/.json the silent defects whose label names a sanitizer tool the
#                                 first run did not run (its --sanitize, default fast), run again
#                                 with --sanitize=all: every tool's candidates are judged, while
#                                 the first run pays only for the tools its options ask for
#   kgate_policies.md             the four profiles' interception, false kills and median
#                                 seconds (policy_table.py)
# and nothing outside OUTDIR (the run may happen on another machine, OUTDIR
# copied back): the READMEs' `results` markers are filled afterwards, from
# the JSON files, by the two policy_table.py commands it prints at the end
# (they need no GPU; the commit and date come from kgate_corpus.txt).
# Needs a CUDA device; build first with `make -C 9_Verification/kgate`.
# GIT_COMMIT=<sha> names the commit where the tree has no .git.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: run_corpus.sh OUTDIR [kgate options]}"
shift
mkdir -p "$out"
commit="${GIT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
provenance() {   # $1 = the command
  echo "# kgate corpus run"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# commit: $commit"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1 || echo unknown)"
  echo "# nvcc: $(nvcc --version 2>/dev/null | tail -n1)"
  echo "# command: $1"
}
cmd=("$root/bin/kgate" --json="$out/kgate_corpus.json" --feedback="$out/kgate_feedback.jsonl" "$@" "$here/corpus")
provenance "${cmd[*]}" > "$out/kgate_corpus.txt"
t0=$(date +%s)
"${cmd[@]}" >> "$out/kgate_corpus.txt" 2>&1
rc=$?
# the README's corpus command must end within 8 minutes with default options
echo "# the whole command took $(( $(date +%s) - t0 )) s (target with default options: <= 480 s)" >> "$out/kgate_corpus.txt"
tail -n 16 "$out/kgate_corpus.txt"

# the lenient pass: what the default policy stopped statically, judged dynamically
mapfile -t extra < <(python3 - "$out/kgate_corpus.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["candidates"]:
    s = c.get("policy_stops", {})
    if c["verdict"] == "P0" and s.get("default") and not s.get("lenient"):
        print(c["file"])
EOF
)
reports=("$out/kgate_corpus.json")
if [ "${#extra[@]}" -gt 0 ]; then
  paths=()
  for f in "${extra[@]}"; do paths+=("$here/corpus/$f"); done
  # hangs here are already known defects: a short deadline keeps the pass short
  lcmd=("$root/bin/kgate" --policy=lenient --no-explain --timeout=5 --labels="$here/corpus/labels.tsv"
        --json="$out/kgate_corpus_lenient.json" "$@" "${paths[@]}")
  provenance "${lcmd[*]}" > "$out/kgate_corpus_lenient.txt"
  "${lcmd[@]}" >> "$out/kgate_corpus_lenient.txt" 2>&1
  echo "lenient pass: ${#extra[@]} candidate(s), $(grep -E '^verdicts:' "$out/kgate_corpus_lenient.txt")"
  reports+=("$out/kgate_corpus_lenient.json")
fi

# the sanitizer pass: labeled silent defects beyond the first run's --sanitize (beyond_run),
# judged with every tool; they must be stopped there, by the tool their label names
mapfile -t silent < <(python3 - "$out/kgate_corpus.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["candidates"]:
    if c.get("beyond_run"):
        print(c["file"])
EOF
)
if [ "${#silent[@]}" -gt 0 ]; then
  paths=()
  for f in "${silent[@]}"; do paths+=("$here/corpus/$f"); done
  scmd=("$root/bin/kgate" --no-explain --labels="$here/corpus/labels.tsv" --json="$out/kgate_corpus_sanitize.json"
        "$@" --sanitize=all "${paths[@]}")
  provenance "${scmd[*]}" > "$out/kgate_corpus_sanitize.txt"
  "${scmd[@]}" >> "$out/kgate_corpus_sanitize.txt" 2>&1
  src=$?
  echo "sanitizer pass: ${#silent[@]} candidate(s), $(grep -E '^verdicts:' "$out/kgate_corpus_sanitize.txt"); $(grep -E '^sanitizer pass:' "$out/kgate_corpus_sanitize.txt")"
  grep -E '^kgate: ' "$out/kgate_corpus_sanitize.txt"
  reports+=("$out/kgate_corpus_sanitize.json")
  [ "$src" -eq 0 ] || rc=1
fi
KGATE_COMMIT="$commit" python3 "$here/policy_table.py" "${reports[@]}" > "$out/kgate_policies.md"
cat "$out/kgate_policies.md"
names=()
for r in "${reports[@]}"; do names+=("OUTDIR/$(basename "$r")"); done
echo "the READMEs' results tables, from the repository's root once OUTDIR is where it will stay:"
for f in README-static.md README.md; do
  echo "  python3 9_Verification/kgate/policy_table.py --marker=results --readme=9_Verification/kgate/$f ${names[*]}"
done
exit $rc
