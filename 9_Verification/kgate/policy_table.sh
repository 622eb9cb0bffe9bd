#!/usr/bin/env bash
# policy_table.sh: measure the policy profiles' trade-off on the corpus without
# a GPU and write the two tables into README-static.md (markers policy-static
# and policy-compile):
#   - the static stage: one --static-only run; every candidate's report says
#     which profiles stop it statically (policy_stops), so one run gives all four;
#   - the compile stage: one --compile-only run under --policy=lenient (which
#     compiles everything but what the gate cannot read safely), so every
#     profile's compile verdicts are known.
# The full figures come from the GPU run (run_corpus.sh fills the results
# markers). Needs bin/kgate built and bubblewrap; PyTorch candidates are
# compiled when --python (or python3) has PyTorch, else SKIPPED.
#   9_Verification/kgate/policy_table.sh [kgate options, e.g. --python=/opt/venv/bin/python]
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KGATE_COMMIT="${GIT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
"$root/bin/kgate" --static-only --json="$tmp/static.json" "$@" "$here/corpus" > "$tmp/static.txt" 2>&1
tail -n 3 "$tmp/static.txt"
"$root/bin/kgate" --compile-only --policy=lenient --json="$tmp/compile.json" "$@" "$here/corpus" > "$tmp/compile.txt" 2>&1
tail -n 3 "$tmp/compile.txt"
python3 "$here/policy_table.py" --marker=policy-static --readme="$here/README-static.md" "$tmp/static.json"
python3 "$here/policy_table.py" --marker=policy-compile --readme="$here/README-static.md" "$tmp/compile.json"
