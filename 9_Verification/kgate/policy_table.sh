#!/usr/bin/env bash
# policy_table.sh: measure the policy profiles' trade-off on the corpus without
# a GPU and write the two tables into README-static.md (markers policy-static
# and policy-compile):
#   - the static stage: one --static-only run; every candidate's report says
#     which profiles stop it statically (policy_stops), so one run gives all four;
#   - the compile stage: one --compile-only run under --policy=lenient (which
#     compiles everything but what the gate cannot read safely), so every
#     profile's compile verdicts are known.
# The full figures come from the GPU run (run_corpus.sh's JSON files fill the
# results markers). Needs bin/kgate built and bubblewrap; PyTorch candidates
# are compiled when --python (or python3) has PyTorch, else SKIPPED (and the
# static track cannot read <torch/extension.h>): the tables are the corpus's
# only where PyTorch is.
#   9_Verification/kgate/policy_table.sh [--out=DIR] [kgate options, e.g. --python=/opt/venv/bin/python]
# --out=DIR: keep the two runs' reports in DIR (static.json/.txt,
# compile.json/.txt, with their provenance) and leave README-static.md alone:
# for a machine whose tree does not come back; it prints the two commands
# that fill the tables from DIR afterwards.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out=
case "${1:-}" in --out=*) out="${1#--out=}"; shift ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir="${out:-$tmp}"
mkdir -p "$dir"
export KGATE_COMMIT="${GIT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
provenance() {   # $1 = the command
  echo "# kgate policy table run"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# commit: $KGATE_COMMIT"
  echo "# command: $1"
}
cmd=("$root/bin/kgate" --static-only --json="$dir/static.json" "$@" "$here/corpus")
provenance "${cmd[*]}" > "$dir/static.txt"
"${cmd[@]}" >> "$dir/static.txt" 2>&1
tail -n 3 "$dir/static.txt"
cmd=("$root/bin/kgate" --compile-only --policy=lenient --json="$dir/compile.json" "$@" "$here/corpus")
provenance "${cmd[*]}" > "$dir/compile.txt"
"${cmd[@]}" >> "$dir/compile.txt" 2>&1
tail -n 3 "$dir/compile.txt"
if [ -n "$out" ]; then
  echo "the tables, from the repository's root once DIR is where it will stay:"
  echo "  python3 9_Verification/kgate/policy_table.py --marker=policy-static --readme=9_Verification/kgate/README-static.md DIR/static.json"
  echo "  python3 9_Verification/kgate/policy_table.py --marker=policy-compile --readme=9_Verification/kgate/README-static.md DIR/compile.json"
  exit 0
fi
python3 "$here/policy_table.py" --marker=policy-static --readme="$here/README-static.md" "$dir/static.json"
python3 "$here/policy_table.py" --marker=policy-compile --readme="$here/README-static.md" "$dir/compile.json"
