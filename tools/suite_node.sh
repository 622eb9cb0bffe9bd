#!/usr/bin/env bash
# suite_node.sh OUT [STEP...]: run the suite on this node, with every GPU it
# is given, and leave everything under OUT/<host>/. One call per node: the
# Slurm job script (tools/slurm_suite.sbatch) starts it once on each node;
# it works the same by hand on one machine.
#
#   STEP   build    make all                                -> build.log
#          verify   tools/verify.sh, one worker per GPU      -> verify.txt, sanitize/
#          bench    tools/bench.sh (BENCH_JOBS as set)       -> bench.txt, results/
#          test     the unit and process tests               -> test.txt
#   default: build verify bench
#
# The node works on a private copy of the tree (SUITE_WORK, default
# $TMPDIR/cuda-suite-<job>-<host>), so builds and results of nodes sharing
# one filesystem never collide. OUT/<host>/status gets one line per step,
# "STEP EXIT" (0 pass, 1 fail, 2 WAIVED: no GPU), and node.txt the host,
# its GPUs and the commit. NCCL_NVLS_ENABLE=0 is exported unless set, and
# GIT_COMMIT and GIT_DIRTY (the copy has no .git: bench.sh's run files and
# bin/sanitize's reports take the commit and tree state from these).
# `make all` installs missing Debian packages (libclang-19-dev): on a node
# that cannot, export SKIP_PACKAGES=1 (and the prefixes that docs/operators.md,
# "A machine without a package registry", names) before starting the job.
set -u
cd "$(dirname "$0")/.." || exit 1
repo=$(pwd)
if [ $# -lt 1 ]; then
    echo "usage: tools/suite_node.sh OUT [build|verify|bench|test ...]" >&2
    exit 1
fi
out_root=$1
shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build verify bench)
for s in "${steps[@]}"; do
    case $s in build|verify|bench|test) ;; *) echo "suite_node: unknown step '$s'" >&2; exit 1 ;; esac
done

host=$(hostname -s 2>/dev/null || hostname)
mkdir -p "$out_root/$host" || exit 1
out=$(cd "$out_root/$host" && pwd)
: >"$out/status"
work=${SUITE_WORK:-${TMPDIR:-/tmp}/cuda-suite-${SLURM_JOB_ID:-local}-$host}
rm -rf "$work" && mkdir -p "$work" || exit 1
tar -C "$repo" --exclude=./bin --exclude=./build --exclude=./results --exclude=./.git -cf - . |
    tar -C "$work" -xf - || exit 1
export GIT_COMMIT=${GIT_COMMIT:-$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)}
# as bench.sh judges it: uncommitted changes outside results/ and the Markdown files
if [ -z "${GIT_DIRTY:-}" ]; then
    if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
        GIT_DIRTY=$(git -C "$repo" status --porcelain -- . ':(exclude)results' ':(exclude)*.md' | grep -q . && echo yes || echo no)
    else
        GIT_DIRTY=unknown
    fi
fi
export GIT_DIRTY
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
MAKE=${MAKE:-make}
{
    echo "host: $host"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $GIT_COMMIT (uncommitted changes: $GIT_DIRTY)"
    echo "slurm: job ${SLURM_JOB_ID:-none}, node ${SLURM_NODEID:-0} of ${SLURM_JOB_NUM_NODES:-1}"
    echo "CUDA_VISIBLE_DEVICES: ${CUDA_VISIBLE_DEVICES:-(unset)}"
    nvidia-smi -L 2>/dev/null || echo "nvidia-smi: no GPU listed"
} >"$out/node.txt"

for step in "${steps[@]}"; do
    case $step in
        build)  (cd "$work" && $MAKE -j"$(nproc)" all) >"$out/build.log" 2>&1 ;;
        verify) (cd "$work" && tools/verify.sh --out="$out/sanitize") >"$out/verify.txt" 2>&1 ;;
        bench)  (cd "$work" && tools/bench.sh) >"$out/bench.txt" 2>&1 ;;
        test)   (cd "$work" && $MAKE -f tests/tests.mk && tools/run_tests.sh) >"$out/test.txt" 2>&1 ;;
    esac
    rc=$?
    # make reports any failure as 2: a build or test failure is 1 here
    [ "$step" = build ] || [ "$step" = test ] && [ "$rc" -ne 0 ] && rc=1
    echo "$step $rc" >>"$out/status"
    echo "suite_node: $host: $step exit $rc"
    if [ "$step" = bench ] && [ -d "$work/results" ]; then cp -r "$work/results" "$out/"; fi
done
awk '$2 == 1 { bad = 1 } END { exit bad }' "$out/status"
