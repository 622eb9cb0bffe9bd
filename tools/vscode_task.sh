#!/usr/bin/env bash
# vscode_task.sh ACTION FILE [ARGS...]: the tasks of .vscode/tasks.json (make
# vscode) for the sample that FILE belongs to, usually the active editor's.
# The sample is the N_Group/name/ folder (N = 0..9) that holds FILE, at any
# depth (a file in its tests/ belongs to it too).
#   build        make -C <folder>
#   build-debug  make -C <folder> dbg=1      (device debug, for cuda-gdb)
#   debug        the program cuda-gdb should debug for FILE, built for it,
#                and build/vscode/debug_program pointed at it (the launch
#                configurations of .vscode/launch.json start that link):
#                  a sample's file     make -C <folder> dbg=1; bin/<program>
#                  a debugging case's  make -C 8_Debugging/<case> dbg (the -G
#                                      build the walkthroughs use);
#                                      bin/dbg/<case>_buggy
#                  a unit test's source (tests/test_x.c, <folder>/tests/test_x.c)
#                                      make -f tests/tests.mk <its program>;
#                                      build/tests/common/test_x,
#                                      build/tests/<folder>/test_x
#   debug-fixed  the same for a debugging case's fixed form: bin/dbg/<case>_fixed
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
shift 2 2>/dev/null || { echo "usage: vscode_task.sh build|build-debug|debug|debug-fixed|run|memcheck|verify|profile|which FILE [ARGS...]" >&2; exit 1; }

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
# a unit test's source: its program (tests/tests.mk builds it)
test_program=
if [ "$rel" != "$abs" ]; then
    if [[ $rel =~ ^tests/(test_[A-Za-z0-9_]+)\.c$ ]]; then
        test_program=build/tests/common/${BASH_REMATCH[1]}
    elif [[ $rel =~ ^([0-9]_[^/]+/[^/]+)/tests/(test_[A-Za-z0-9_]+)\.c$ ]]; then
        test_program=build/tests/${BASH_REMATCH[1]}/${BASH_REMATCH[2]}
    fi
fi
if [ -z "$folder" ] && { [ -z "$test_program" ] || [[ $action != debug* ]]; }; then
    if [[ $action == debug* ]]; then
        echo "vscode_task: $file is neither inside a sample folder (N_Group/name/ with a Makefile) nor a unit test's source (tests/test_x.c): open one first" >&2
    else
        echo "vscode_task: $file is not inside a sample folder (N_Group/name/ with a Makefile): open a sample's file first" >&2
    fi
    exit 1
fi
name=${folder##*/}
programs=()
if [ -n "$folder" ]; then
    read -r -a programs <<<"$(MAKEFLAGS= make -s --no-print-directory -C "$folder" programs 2>/dev/null)"
    [ "${#programs[@]}" -gt 0 ] || programs=("$name")
fi
case_folder=0
[[ $folder == 8_Debugging/* ]] && case_folder=1

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
        echo "folder: ${folder:-none}"
        echo "programs: ${programs[*]-}"
        ;;
    build) do_run make -C "$folder" ;;
    build-debug) do_run make -C "$folder" dbg=1 ;;
    debug | debug-fixed)
        # build the program for cuda-gdb, then point the launch's link at it
        if [ -n "$test_program" ]; then
            if [ "$action" = debug-fixed ]; then
                echo "vscode_task: $file is a unit test, not a debugging case: it has no fixed form" >&2
                exit 1
            fi
            do_run make -f tests/tests.mk "$test_program" || exit 1
            target=$test_program
        elif [ $case_folder = 1 ]; then
            form=buggy
            [ "$action" = debug-fixed ] && form=fixed
            do_run make -C "$folder" dbg || exit 1
            target=bin/dbg/${name}_$form
        else
            if [ "$action" = debug-fixed ]; then
                echo "vscode_task: $folder is a sample, not a debugging case (8_Debugging/<case>): it has no fixed form" >&2
                exit 1
            fi
            do_run make -C "$folder" dbg=1 || exit 1
            target=bin/${programs[0]}
        fi
        do_run mkdir -p build/vscode
        do_run ln -sfn "$root/$target" build/vscode/debug_program
        echo "vscode_task: cuda-gdb debugs $target (build/vscode/debug_program)"
        ;;
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
