#!/usr/bin/env bash
# 8_Debugging/capture.sh: on a GPU machine, run every command the 8_Debugging
# walkthroughs quote and save what it printed, so that the READMEs quote real
# reports and not remembered ones.
#
#   8_Debugging/capture.sh                        build, then every capture (about 4 minutes on the H200)
#   8_Debugging/capture.sh blurPitch workflow     only these folders ("workflow": the README of 8_Debugging)
#   8_Debugging/capture.sh blurPitch:gdb_buggy    only these captures of a folder (FOLDER:NAME[,NAME...])
#   8_Debugging/capture.sh --list                 print the commands, run nothing (no GPU needed)
#   8_Debugging/capture.sh --copy-to=$OUT         also copy every reports/ folder to $OUT/8_Debugging/...
#   8_Debugging/capture.sh --no-build             use the binaries already built
#
# The commands live in one place: the `captures` file of each folder
# (8_Debugging/captures for the workflow page, 8_Debugging/<case>/captures),
# one per line:
#     NAME: COMMAND
# Each COMMAND runs with bash, from the repository root, with the CUDA
# toolkit's bin folder (compute-sanitizer, cuda-gdb) on PATH, under `timeout`
# (CAPTURE_TIMEOUT seconds, default 150). What it prints (stdout and stderr,
# in order) goes to <folder>/reports/NAME.txt between a header line (date,
# GPU, driver, compute-sanitizer version, commit) with the command, and a
# last line with its exit status and run time ("TIMED OUT" only when the
# capture reached CAPTURE_TIMEOUT: a command that runs `timeout` itself and
# gets its 124 is an ordinary exit status 124). Then insert_reports.sh puts
# every report into its README, between <!-- report:NAME:begin --> and
# <!-- report:NAME:end -->.
#
# First it builds every case three ways (make -C 8_Debugging all dbg
# nolineinfo): bin/<case>_{buggy,fixed}, bin/dbg/ (-G, for cuda-gdb and the
# -G comparisons) and bin/nolineinfo/ (no -lineinfo).
# CAPTURE_COMMIT overrides the commit named in the headers (for a copy of the
# tree without .git). Without a GPU it refuses to run (the reports would be
# WAIVED lines), unless CAPTURE_WITHOUT_GPU=1. Exit: 0 when every capture ran
# (whatever the captured program's own exit status: a buggy program is
# expected to fail), 1 if the build failed or a capture timed out, 2 on a
# usage error or without a GPU.
set -u
cd "$(dirname "$0")/.." || exit 2

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }

list=0
build=1
copy_to=
only=()
for a in "$@"; do
    case $a in
    --list) list=1 ;;
    --no-build) build=0 ;;
    --copy-to=?*) copy_to=${a#--copy-to=} ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "capture: unknown option '$a'" >&2; usage >&2; exit 2 ;;
    *) only+=("$a") ;;
    esac
done
# FOLDER:NAME,NAME selects captures of a folder; picked_names[FOLDER] holds
# " NAME NAME " (empty: every capture of the folder).
declare -A picked_names=()

# Folders with a captures file; "workflow" is 8_Debugging itself.
folders=()
[ -f 8_Debugging/captures ] && folders+=(8_Debugging)
for d in 8_Debugging/*/; do
    d=${d%/}
    [ -f "$d/captures" ] && folders+=("$d")
done
folder_label() { if [ "$1" = 8_Debugging ]; then echo workflow; else basename "$1"; fi; }
if [ ${#only[@]} -gt 0 ]; then
    keep=()
    for w in "${only[@]}"; do
        label=${w%%:*}
        found=0
        for d in "${folders[@]}"; do
            [ "$(folder_label "$d")" = "$label" ] || continue
            found=1
            [[ " ${keep[*]-} " == *" $d "* ]] || keep+=("$d")
            if [ "$w" != "$label" ]; then
                IFS=, read -r -a names <<<"${w#*:}"
                for name in "${names[@]}"; do
                    if ! grep -q "^$name:[[:space:]]" "$d/captures" 2>/dev/null || [[ ! $name =~ ^[a-z0-9_]+$ ]]; then
                        echo "capture: no capture '$name' in $d/captures" >&2
                        exit 2
                    fi
                    picked_names[$d]="${picked_names[$d]:- } $name "
                done
            fi
        done
        [ $found = 1 ] || { echo "capture: no folder '$label' with a captures file" >&2; exit 2; }
    done
    folders=("${keep[@]}")
fi
# picked FOLDER NAME: is this capture selected?
picked() { [ -z "${picked_names[$1]:-}" ] || [[ "${picked_names[$1]}" == *" $2 "* ]]; }

# read_captures FOLDER: "NAME<TAB>COMMAND" per capture; exit 1 on a bad line.
read_captures() {
    local f=$1/captures ln=0 line
    while IFS= read -r line || [ -n "$line" ]; do
        ln=$((ln + 1))
        case $line in '' | '#'*) continue ;; esac
        if [[ $line =~ ^([a-z0-9_]+):[[:space:]]+(.+)$ ]]; then
            printf '%s\t%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
        else
            echo "capture: $f:$ln: expected 'NAME: COMMAND' (NAME of a-z 0-9 _), found: $line" >&2
            return 1
        fi
    done <"$f"
}

if [ $list = 1 ]; then
    for d in "${folders[@]}"; do
        caps=$(read_captures "$d") || exit 1
        while IFS=$'\t' read -r name cmd; do
            picked "$d" "$name" || continue
            printf '%s/reports/%s.txt: %s\n' "$d" "$name" "$cmd"
        done <<<"$caps"
    done
    exit 0
fi

# The toolkit's bin folder (compute-sanitizer, cuda-gdb) on PATH.
nvcc_path=$(command -v nvcc || true)
for d in ${nvcc_path:+"$(dirname "$nvcc_path")"} "${CUDA_HOME:-/usr/local/cuda}/bin" /usr/local/cuda/bin; do
    [ -d "$d" ] && PATH=$PATH:$d
done
export PATH

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
gpu_text="${gpu%%,*} (driver ${gpu##*, })"
if [ -z "$gpu" ]; then
    # Reports from a machine without a GPU would overwrite real ones with WAIVED
    # lines. CAPTURE_WITHOUT_GPU=1 runs anyway (the tests use it, in a scratch copy).
    if [ "${CAPTURE_WITHOUT_GPU:-0}" != 1 ]; then
        echo "capture: no GPU found by nvidia-smi: nothing captured (CAPTURE_WITHOUT_GPU=1 to run anyway)" >&2
        exit 2
    fi
    gpu_text="no GPU found by nvidia-smi"
fi
if [ $build = 1 ]; then
    echo "capture: building every case (default, -G and no-lineinfo builds)"
    mkdir -p build
    if ! make -s -C 8_Debugging -j"$(nproc 2>/dev/null || echo 4)" all dbg nolineinfo >build/capture_build.log 2>&1; then
        tail -n 30 build/capture_build.log
        echo "capture: FAIL (the build failed; see build/capture_build.log)"
        exit 1
    fi
fi

cs_version=$(compute-sanitizer --version 2>/dev/null | grep -i 'version' | head -n1)
[ -n "$cs_version" ] || cs_version="compute-sanitizer not found"
if [ -n "${CAPTURE_COMMIT:-}" ]; then
    commit=$CAPTURE_COMMIT
elif commit=$(git rev-parse --short HEAD 2>/dev/null); then
    git diff --quiet HEAD -- 2>/dev/null || commit="$commit (with local changes)"
else
    commit=unknown
fi
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
timeout_s=${CAPTURE_TIMEOUT:-150}
tenths() { local t=$(($1 / 100000000)); echo "$((t / 10)).$((t % 10))"; } # nanoseconds -> "12.3"

echo "capture: $stamp, $gpu_text, $cs_version, commit $commit"
failed=0
t_all=$(date +%s%N)
for d in "${folders[@]}"; do
    caps=$(read_captures "$d") || exit 1
    mkdir -p "$d/reports"
    while IFS=$'\t' read -r name cmd; do
        picked "$d" "$name" || continue
        out=$d/reports/$name.txt
        t0=$(date +%s%N)
        timeout -k 10 "$timeout_s" bash -c "$cmd" </dev/null >"$out.raw" 2>&1
        rc=$?
        elapsed_ns=$(($(date +%s%N) - t0))
        secs=$(tenths $elapsed_ns)
        # 124 or 137 is this capture's time limit only when the limit was reached
        timed_out=0
        if { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && [ $elapsed_ns -ge $((timeout_s * 1000000000)) ]; then timed_out=1; fi
        {
            echo "# captured $stamp on $gpu_text, $cs_version, commit $commit"
            echo "\$ $cmd"
            # carriage returns and terminal colour codes would garble a README
            sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e 's/\r$//' "$out.raw"
            if [ $timed_out = 1 ]; then
                echo "# TIMED OUT after $timeout_s s (exit status $rc)"
            else
                echo "# exit status $rc ($secs s)"
            fi
        } >"$out"
        rm -f "$out.raw"
        printf 'capture: %-60s exit %3d  %6s s\n' "$out" "$rc" "$secs"
        if [ $timed_out = 1 ]; then failed=1; fi
    done <<<"$caps"
done
echo "capture: all captures took $(tenths $(($(date +%s%N) - t_all))) s"

8_Debugging/insert_reports.sh || failed=1

if [ -n "$copy_to" ]; then
    for d in "${folders[@]}"; do
        mkdir -p "$copy_to/$d/reports" && cp "$d"/reports/*.txt "$copy_to/$d/reports/"
    done
    echo "capture: reports copied to $copy_to/8_Debugging/"
fi
[ $failed = 0 ] && echo "capture: done" || echo "capture: FAIL (a capture timed out)"
exit $failed
