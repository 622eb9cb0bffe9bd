#!/usr/bin/env bash
# vscode_task.sh ACTION FILE [ARGS...]: the tasks of .vscode/tasks.json (make
# vscode) for the sample that FILE belongs to, usually the active editor's.
# The sample is the N_Group/name/ folder (N = 0..9) that holds FILE, at any
# depth (a file in its tests/ belongs to it too).
#   build        make -C <folder>
#   build-debug  make -C <folder> dbg=1      (device debug, for cuda-gdb)
#   run          bin/<program> ARGS          (every program of the folder)
#   memcheck     compute-sanitizer --tool memcheck --print-limit 20 bin/<program> ARGS
#   verify       tools/verify.sh --folder=<folder>   (the four sanitizer tools)
#   profile      make profile SAMPLE=<name> VARIANT=<ARGS[0]> NOTE=<ARGS[1]>, or
#                without that target, ncu on that variant's NVTX range
#   which        print the folder and its programs (what the others act on)
# ARGS given as one string ("--quick --n=1000", as VS Code passes a prompt)
# are split into words. VSCODE_TASK_DRY=1 prints the commands instead.
set -u
cd "$(dirname "$0")/.." || exit 1
root=$PWD
action=${1:-}
file=${2:-}
shift 2 2>/dev/null || { echo "usage: vscode_task.sh build|build-debug|run|memcheck|verify|profile|which FILE [ARGS...]" >&2; exit 1; }

# the sample folder of FILE, relative to the root
abs=$(realpath -m -- "$file")
rel=${abs#"$root"/}
folder=
if [ "$rel" != "$abs" ]; then
    IFS=/ read -r -a parts <<<"$rel"
    if [ "${#parts[@]}" -ge 2 ] && [[ "${parts[0]}" =~ ^[0-9]_ ]] && [ -f "${parts[0]}/${parts[1]}/Makefile" ]; then
        folder=${parts[0]}/${parts[1]}
    fi
fi
if [ -z "$folder" ]; then
    echo "vscode_task: $file is not inside a sample folder (N_Group/name/ with a Makefile): open a sample's file first" >&2
    exit 1
fi
name=${folder##*/}
read -r -a programs <<<"$(MAKEFLAGS= make -s --no-print-directory -C "$folder" programs 2>/dev/null)"
[ "${#programs[@]}" -gt 0 ] || programs=("$name")

# the arguments: one string from a prompt is split into words
args=()
for a in "$@"; do read -r -a words <<<"$a"; args+=("${words[@]}"); done

do_run() {
    if [ "${VSCODE_TASK_DRY:-0}" = 1 ]; then printf '%q ' "$@"; echo; return 0; fi
    echo "> $*"
    "$@"
}
tool() {  # the CUDA tool NAME from PATH, else from the toolkit of nvcc
    local t
    t=$(command -v "$1") || t=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")/$1
    echo "$t"
}

case $action in
    which)
        echo "folder: $folder"
        echo "programs: ${programs[*]}"
        ;;
    build) do_run make -C "$folder" ;;
    build-debug) do_run make -C "$folder" dbg=1 ;;
    run)
        rc=0
        for p in "${programs[@]}"; do do_run "bin/$p" "${args[@]}" || rc=$?; done
        exit $rc
        ;;
    memcheck)
        [ "${#args[@]}" -gt 0 ] || args=(--quick)
        rc=0
        for p in "${programs[@]}"; do
            do_run "$(tool compute-sanitizer)" --tool memcheck --print-limit 20 "bin/$p" "${args[@]}" || rc=$?
        done
        exit $rc
        ;;
    verify) do_run tools/verify.sh --folder="$folder" ;;
    profile)
        variant=${args[0]:-}
        note=${args[*]:1}
        if [ -z "$variant" ]; then
            echo "vscode_task: profile needs a variant (bin/${programs[0]} --help lists them)" >&2
            exit 1
        fi
        if grep -q '^profile:' Makefile; then
            do_run make profile SAMPLE="$name" VARIANT="$variant" NOTE="$note"
        else
            # the variant's kernels only: its NVTX range nests inside the sample's
            do_run "$(tool ncu)" --nvtx --nvtx-include "$name/$variant/" --clock-control none \
                "bin/${programs[0]}" --variant="$variant"
        fi
        ;;
    *) echo "vscode_task: unknown action '$action'" >&2; exit 1 ;;
esac
