#!/usr/bin/env bash
# test_slurm_suite.sh: tools/slurm_suite.sbatch and tools/suite_node.sh on the
# CPU, with a stand-in srun that starts the task the way Slurm does on each
# of two "nodes" (SLURM_NODEID 0 and 1, their own host names) and stand-in
# make/nvidia-smi. Checks: each node's output lands in its own folder, the
# summary has a line per node and step, WAIVED (no GPU) is not a failure, a
# failing step fails the job, the private copies leave the tree untouched,
# and the commit and tree state are recorded from git, or "unknown" in a
# tree without .git (a release tarball).
# The job runs in a scratch copy of tools/ (its own results/), never in this
# tree. Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/path"
# srun: run the command once per node, each with its own host name
cat >"$tmp/path/srun" <<'SRUN'
#!/bin/bash
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
rc=0
for node in 0 1; do
    mkdir -p "$STUB_DIR/h$node"
    printf '#!/bin/sh\necho node%s\n' "$node" >"$STUB_DIR/h$node/hostname"
    chmod +x "$STUB_DIR/h$node/hostname"
    PATH="$STUB_DIR/h$node:$PATH" SLURM_NODEID=$node SUITE_WORK="$STUB_DIR/work$node" "$@" || rc=1
done
exit $rc
SRUN
chmod +x "$tmp/path/srun"
printf '#!/bin/sh\nexit 1\n' >"$tmp/path/nvidia-smi"   # no GPU listed
chmod +x "$tmp/path/nvidia-smi"

# The tree the job is submitted from: tools/ and the Makefile of this one. A git
# repository of its own where git is installed (a clone), then without .git.
tree=$tmp/tree
mkdir -p "$tree"
cp -r tools Makefile "$tree/"
rm -rf "$tree/tools/__pycache__"
export STUB_DIR=$tmp PATH="$tmp/path:$PATH" SLURM_JOB_NUM_NODES=2 SLURM_SUBMIT_DIR=$tree
export GIT_CEILING_DIRECTORIES=$tmp   # the scratch tree is never taken for part of another repository
unset GIT_COMMIT GIT_DIRTY

# what the job may change: results/ only
touch "$tmp/marker"
changed() { find "$tree" \( -path "$tree/results" -o -path "$tree/.git" \) -prune -o ! -type d -newer "$tmp/marker" -print; }

if command -v git >/dev/null; then
    git -C "$tree" init -q && git -C "$tree" add -A &&
        git -C "$tree" -c user.name=test -c user.email=test@example.com commit -qm 'a tree' || echo "note: git init failed"
    touch "$tmp/marker"
    commit=$(git -C "$tree" rev-parse --short HEAD 2>/dev/null)
    (cd "$tree" && SLURM_JOB_ID=g1 MAKE=true bash tools/slurm_suite.sbatch bench) >"$tmp/g.txt" 2>&1
    check "in a git tree: job exit 0" "[ $? = 0 ]"
    check "in a git tree: node.txt has the commit and a clean tree" \
        "grep -qx 'commit: $commit (uncommitted changes: no)' '$tree/results/slurm-g1/node1/node.txt'"
    check "in a git tree: the summary's header has the commit" "grep -q 'commit $commit, steps: build bench' '$tree/results/slurm-g1/summary.txt'"
    echo "x" >>"$tree/tools/verify.sh"
    (cd "$tree" && SLURM_JOB_ID=g2 MAKE=true bash tools/slurm_suite.sbatch bench) >"$tmp/g2.txt" 2>&1
    check "in a git tree with a changed file: uncommitted changes: yes" \
        "grep -qx 'commit: $commit (uncommitted changes: yes)' '$tree/results/slurm-g2/node0/node.txt'"
    git -C "$tree" checkout -q -- tools/verify.sh
    rm -rf "$tree/.git" "$tree/results"
    touch "$tmp/marker"
else
    echo "note: git is not installed: only the tree without .git is checked"
fi

(cd "$tree" && SLURM_JOB_ID=t1 MAKE=true bash tools/slurm_suite.sbatch bench) >"$tmp/a.txt" 2>&1
rc=$?
out=$tree/results/slurm-t1
check "build + bench without a GPU: job exit 0" "[ $rc = 0 ]"
check "one folder per node" "[ -f $out/node0/status ] && [ -f $out/node1/status ]"
check "build implied before bench" "[ \"\$(cat $out/node0/status | tr '\n' ' ')\" = 'build 0 bench 2 ' ]"
check "summary: a line per node and step, WAIVED named" "[ \$(grep -c '^node[01] ' $out/summary.txt) = 4 ] && grep -q '^node1 *bench *WAIVED' $out/summary.txt"
check "node.txt records the node and commit" "grep -q '^host: node1' $out/node1/node.txt && grep -q '^slurm: job t1, node 1 of 2' $out/node1/node.txt"
check "without .git (a release tarball): commit and tree state unknown, said so" \
    "grep -qx 'commit: unknown (uncommitted changes: unknown)' $out/node1/node.txt"
check "each node worked in a private copy" "[ -f '$tmp/work0/tools/bench.sh' ] && [ -f '$tmp/work1/Makefile' ]"

(cd "$tree" && SLURM_JOB_ID=t2 MAKE=false bash tools/slurm_suite.sbatch) >"$tmp/b.txt" 2>&1
rc=$?
check "a failing build: job exit 1" "[ $rc = 1 ]"
check "a failing build: FAIL in the summary" "grep -q '^node0 *build *FAIL (exit 1)' $tree/results/slurm-t2/summary.txt"
check "default steps: build verify bench" "[ \"\$(awk '{print \$1}' $tree/results/slurm-t2/node0/status | tr '\n' ' ')\" = 'build verify bench ' ]"
bash tools/suite_node.sh "$tmp/x" bogus >/dev/null 2>&1
check "unknown step refused" "[ $? = 1 ]"
changed >"$tmp/changed.txt"
check "the tree is untouched (all the job wrote is under results/)" "[ ! -s '$tmp/changed.txt' ] || { cat '$tmp/changed.txt'; false; }"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
