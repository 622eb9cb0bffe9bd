#!/usr/bin/env bash
# mutants.sh: planted bugs (mutants) that every sample's checks must catch.
#
#   tools/mutants.sh [SAMPLE...]       `make mutants`: build and run every mutant
#   tools/mutants.sh --check [SAMPLE...]   only check that every mutant applies
#                                      (parse, find occurs once): no compiler,
#                                      no GPU; part of `make test`
#   tools/mutants.sh --build-only [SAMPLE...]   build them all, run nothing
#                                      (no GPU needed; exit 0 if all built)
# Builds are incremental: a mutant whose copied tree is unchanged since the
# last build is not rebuilt, so a run cut short (a time limit) resumes.
#
# Every sample folder [0-8]_*/<name>/ ships a file `mutants`. For each mutant
# the tool copies the folder (and common/) under build/mutants/<sample>/<mutant>/,
# applies one text substitution, builds the copy into a folder of its own
# (sample.mk's BINDIR= and BUILDDIR=; the builds run in parallel, -j from
# nproc or MUTANT_JOBS), runs it and requires exit 1 with `<binary>: FAIL` as
# the last line of its output (a JSON closing record with "status":"FAIL"
# under --json). The unmodified sample is built the same way and run once
# with each set of arguments the mutants use: it must PASS, or its mutants'
# verdicts mean nothing (reported as "control failed").
#
# The file format (one file per sample folder, named `mutants`):
#
#     # <folder>/mutants: planted bugs that this sample's checks must catch.
#     run: --quick                  # optional; default arguments of every mutant run
#     mutant: no_bounds_check
#     what: naive kernel without `if (i < n)`: writes past the end of c
#     file: vectorAdd.cu
#     find: if (i < n) c[i] = a[i] + b[i];
#     replace: c[i] = a[i] + b[i];
#     args: --quick --variant=naive # optional, overrides run:
#
#   - `key: value`; the one space after the colon is not part of the value,
#     any further spaces are. Lines starting with `#` are comments.
#   - `run:` (file-wide default arguments, `--quick` when absent) comes before
#     the first mutant. A blank line or a new `mutant:` ends a mutant.
#   - Every mutant has mutant (a name: letters, digits, _ . -), what (one
#     line saying what the bug is), file, find and replace (which may be
#     empty: the found text is deleted); args and binary are optional.
#   - `file` is relative to the sample folder and may reach the shared layer
#     as ../../common/<file> (the mutant gets its own copy of common/).
#   - In find and replace, \n is a newline, \t a tab and \\ a backslash; any
#     other backslash stays as it is. `find` must occur exactly once in
#     `file`, else the mutant is stale (an error: update the file).
#   - On run, args and binary lines (not on find, replace or what), a `#`
#     after a space starts a comment.
#   - `binary: <name>` picks the program to run in a folder that builds
#     several (8_Debugging cases); default: the folder's name.
#   - A sample whose checks cannot fail (nothing to compare against) ships a
#     `mutants` file of comments only, saying why: it is listed as having
#     none. A sample without the file is an error.
#
# Verdicts, one line per mutant: killed (exit 1, FAIL last) | SURVIVED (exit
# 0: the checks missed it) | stale (find not exactly once) | build error |
# crash (a signal, another exit code, or exit 1 without the FAIL line: a
# CUDA error stops a sample without its verdict) | timeout (MUTANT_TIMEOUT
# seconds, default 300) | control failed | skipped (the sample needs more
# GPUs than are visible: "gpus: N" in its sanitize.expect; built, not run,
# not a failure, as the sample itself WAIVES there). Then a kill-rate line
#     mutants: K of N killed (P%)[; S more skipped: ...]
# Exit status: 0 only if every mutant that could run was killed; 1 otherwise (and for any
# malformed file, stale mutant or missing file, with or without a GPU); 2 when
# no GPU is visible (after checking that every mutant applies), or when every
# mutant was skipped (too few GPUs).
# With a GPU the report is also saved, with its provenance, as
# results/<GPU>/mutants.txt (results/<GPU>/mutants__<samples>.txt when
# samples are named; MUTANTS_SAVE=0: not saved).
# HAVE_GPU=0/1 overrides the GPU detection (nvidia-smi -L), N_GPUS=n the
# count of visible GPUs (CUDA_VISIBLE_DEVICES' entries, else nvidia-smi's
# list); MUTANTS_DIR (default build/mutants) moves the work folder.
set -u
export LC_ALL=C
cd "$(dirname "$0")/.."
ROOT=$PWD
WORKROOT=${MUTANTS_DIR:-build/mutants}
case $WORKROOT in /*) ;; *) WORKROOT=$ROOT/$WORKROOT ;; esac

check_only=0
build_only=0
samples_wanted=()
for a in "$@"; do
    case $a in
        --check) check_only=1 ;;
        --build-only) build_only=1 ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "mutants: unknown option '$a' (see --help)" >&2; exit 1 ;;
        *) samples_wanted+=("$a") ;;
    esac
done

errors=0
err() { echo "mutants: error: $*"; errors=$((errors + 1)); }

# ---- parsing ---------------------------------------------------------------

# Every mutant of every file, in parallel arrays.
M_SAMPLE=() M_DIR=() M_NAME=() M_WHAT=() M_FILE=() M_FIND=() M_REPL=() M_ARGS=() M_BIN=() M_LINE=()

# decode TEXT: \n, \t and \\ escapes -> the characters; other backslashes stay.
decode() {
    local s=$1 out="" c
    while [ -n "$s" ]; do
        c=${s:0:1}
        if [ "$c" = "\\" ] && [ ${#s} -ge 2 ]; then
            case ${s:1:1} in
                n) out+=$'\n'; s=${s:2}; continue ;;
                t) out+=$'\t'; s=${s:2}; continue ;;
                "\\") out+="\\"; s=${s:2}; continue ;;
            esac
        fi
        out+=$c
        s=${s:1}
    done
    printf '%s' "$out"
}

# strip_comment TEXT: drop a `#` comment that follows whitespace, and the
# whitespace at both ends.
strip_comment() {
    local v=$1
    if [[ $v =~ ^(.*[^[:space:]])?[[:space:]]+#.*$ ]]; then v=${BASH_REMATCH[1]}; fi
    v=${v#"${v%%[![:space:]]*}"}
    v=${v%"${v##*[![:space:]]}"}
    printf '%s' "$v"
}

# parse_file SAMPLE DIR FILE: append its mutants to the arrays; errors counted.
parse_file() {
    local sample=$1 dir=$2 f=$3
    local run="--quick" run_seen=0 n=0 lineno=0 line key val
    local open=0 name what file find repl args bin start have
    local -A seen=() names=()
    finish() {
        [ $open -eq 1 ] || return 0
        open=0
        local missing=""
        for k in what file find replace; do
            [ -n "${seen[$k]:-}" ] || missing+=" $k:"
        done
        if [ -n "$missing" ]; then
            err "$f:$start: mutant '$name' lacks$missing"; return 0
        fi
        if [ -z "$find" ]; then err "$f:$start: mutant '$name': find: is empty"; return 0; fi
        if [ "$find" = "$repl" ]; then err "$f:$start: mutant '$name': replace: equals find"; return 0; fi
        M_SAMPLE+=("$sample"); M_DIR+=("$dir"); M_NAME+=("$name"); M_WHAT+=("$what")
        M_FILE+=("$file"); M_FIND+=("$find"); M_REPL+=("$repl")
        M_ARGS+=("${args-$run}"); M_BIN+=("${bin:-$sample}"); M_LINE+=("$f:$start")
        n=$((n + 1))
    }
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        line=${line%$'\r'}
        if [[ $line =~ ^[[:space:]]*$ ]]; then finish; continue; fi
        [[ $line =~ ^[[:space:]]*# ]] && continue
        if ! [[ $line =~ ^([a-z]+):(.*)$ ]]; then
            err "$f:$lineno: not 'key: value': $line"; continue
        fi
        key=${BASH_REMATCH[1]}
        val=${BASH_REMATCH[2]}
        val=${val# }
        case $key in
            run)
                if [ $open -eq 1 ] || [ $n -gt 0 ]; then
                    err "$f:$lineno: run: must come before the first mutant"; continue
                fi
                [ $run_seen -eq 1 ] && err "$f:$lineno: run: given twice"
                run_seen=1
                run=$(strip_comment "$val") ;;
            mutant)
                finish
                name=$(strip_comment "$val")
                open=1; start=$lineno; seen=(); what=""; file=""; find=""; repl=""
                unset args bin
                if ! [[ $name =~ ^[A-Za-z0-9_.-]+$ ]]; then
                    err "$f:$lineno: mutant name '$name': use letters, digits, _ . -"; open=0
                elif [ -n "${names[$name]:-}" ]; then
                    err "$f:$lineno: mutant '$name' defined twice"; open=0
                fi
                names[$name]=1 ;;
            what|file|find|replace|args|binary)
                if [ $open -eq 0 ]; then
                    err "$f:$lineno: $key: outside a mutant (a mutant: line starts one)"; continue
                fi
                if [ -n "${seen[$key]:-}" ]; then err "$f:$lineno: $key: given twice"; continue; fi
                seen[$key]=1
                case $key in
                    what) what=$val ;;
                    file) file=$(strip_comment "$val") ;;
                    find) find=$(decode "$val") ;;
                    replace) repl=$(decode "$val") ;;
                    args) args=$(strip_comment "$val") ;;
                    binary) bin=$(strip_comment "$val") ;;
                esac ;;
            *) err "$f:$lineno: unknown key '$key:'" ;;
        esac
    done <"$f"
    finish
    MUTANTS_IN_FILE=$n
}

# ---- applying --------------------------------------------------------------

# occurrences CONTENT FIND: 0, 1, or 2 meaning "more than one" (overlapping
# occurrences count).
occurrences() {
    local c=$1 f=$2 pre rest
    [[ $c == *"$f"* ]] || { echo 0; return; }
    pre=${c%%"$f"*}
    rest=${c:$((${#pre} + 1))}
    [[ $rest == *"$f"* ]] && echo 2 || echo 1
}

# target_of I: the path of mutant I's file in the real tree, or "" (an error
# was reported) when it is outside the sample folder and common/.
target_of() {
    local i=$1 dir=${M_DIR[$1]} file=${M_FILE[$1]} p
    case $file in /*) err "${M_LINE[$i]}: file: $file: must be relative to the sample folder"; echo ""; return ;; esac
    p=$(realpath -m "$ROOT/$dir/$file")
    case $p in
        "$ROOT/$dir/"*|"$ROOT/common/"*) ;;
        *) err "${M_LINE[$i]}: file: $file is outside $dir and common/"; echo ""; return ;;
    esac
    if [ ! -f "$p" ]; then err "${M_LINE[$i]}: file: $file does not exist"; echo ""; return; fi
    echo "$p"
}

# apply I SRCFILE DSTFILE: write SRCFILE with mutant I applied to DSTFILE
# (DSTFILE empty: only check). Prints the occurrence count; 1 = applied.
apply() {
    local i=$1 src=$2 dst=$3 c k pre
    c=$(cat "$src"; printf x)
    c=${c%x}
    k=$(occurrences "$c" "${M_FIND[$i]}")
    if [ "$k" = 1 ] && [ -n "$dst" ]; then
        pre=${c%%"${M_FIND[$i]}"*}
        printf '%s' "${pre}${M_REPL[$i]}${c:$((${#pre} + ${#M_FIND[$i]}))}" >"$dst"
    fi
    echo "$k"
}

# ---- discovering -----------------------------------------------------------

sample_dirs=()
for mk in [0-8]_*/*/Makefile; do
    [ -f "$mk" ] || continue
    d=${mk%/Makefile}
    if [ ${#samples_wanted[@]} -gt 0 ]; then
        keep=0
        for w in "${samples_wanted[@]}"; do [ "$w" = "$(basename "$d")" ] && keep=1; done
        [ $keep -eq 1 ] || continue
    fi
    sample_dirs+=("$d")
done
for w in "${samples_wanted[@]}"; do
    found=0
    for d in "${sample_dirs[@]}"; do [ "$(basename "$d")" = "$w" ] && found=1; done
    [ $found -eq 1 ] || err "no sample named '$w'"
done

declare -A NONE_WHY=()
for d in "${sample_dirs[@]}"; do
    s=$(basename "$d")
    if [ ! -f "$d/mutants" ]; then
        err "$d: no mutants file (write one; for a sample whose checks cannot fail, one of comments saying why)"
        continue
    fi
    MUTANTS_IN_FILE=0
    parse_file "$s" "$d" "$d/mutants"
    if [ "$MUTANTS_IN_FILE" -eq 0 ]; then
        NONE_WHY[$s]=$(grep -v '^[[:space:]]*#[[:space:]]*[^[:space:]]*/mutants:' "$d/mutants" \
                        | sed -n 's/^[[:space:]]*#[[:space:]]*//p' | head -n1)
    fi
done

# Every mutant must apply to the real tree.
STALE=()
for i in "${!M_NAME[@]}"; do
    STALE[$i]=0
    t=$(target_of "$i")
    if [ -z "$t" ]; then STALE[$i]=1; continue; fi
    k=$(apply "$i" "$t" "")
    if [ "$k" != 1 ]; then
        STALE[$i]=1
        err "${M_LINE[$i]}: mutant ${M_SAMPLE[$i]}/${M_NAME[$i]} is stale: its find: occurs $([ "$k" = 2 ] && echo "more than once" || echo "0 times") in ${M_FILE[$i]}"
    fi
done

nm=${#M_NAME[@]}
nfiles=${#sample_dirs[@]}
if [ $check_only -eq 1 ]; then
    for s in "${!NONE_WHY[@]}"; do echo "mutants: $s has none: ${NONE_WHY[$s]}"; done
    echo "mutants: $nm mutants in $nfiles sample folders checked: $errors error(s)"
    [ $errors -eq 0 ]
    exit
fi

if [ -z "${HAVE_GPU:-}" ]; then
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then HAVE_GPU=1; else HAVE_GPU=0; fi
fi
if [ "$HAVE_GPU" != 1 ] && [ $build_only -eq 0 ]; then
    echo "mutants: no CUDA device visible (nvidia-smi lists none): built and ran nothing;" \
         "$nm mutants in $nfiles sample folders apply with $errors error(s)"
    [ $errors -eq 0 ] && exit 2
    exit 1
fi

# GPUs visible, and those a sample needs (the most any run of its
# sanitize.expect declares with "gpus: N"; 1 when none does)
if [ -z "${N_GPUS:-}" ]; then
    if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
        N_GPUS=$(printf '%s\n' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    else
        N_GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
    fi
    [ "$HAVE_GPU" = 1 ] && [ "$N_GPUS" -lt 1 ] && N_GPUS=1
fi
gpus_needed() {  # SAMPLE-DIR
    local n
    n=$(sed -nE 's/^[[:space:]]*gpus:[[:space:]]*([0-9]+).*/\1/p' "$1/sanitize.expect" 2>/dev/null | sort -n | tail -n1)
    echo "${n:-1}"
}

# ---- building --------------------------------------------------------------

# A mutant's work folder: tree/ (common/ and the sample folder, mutated),
# bin/, obj/, build.log, run.out, run.err.
work_of() { echo "$WORKROOT/$1/$2"; }

# prepare SAMPLE DIR NAME [I]: a copy of common/ and the folder, mutant I
# applied when given. An identical copy from an earlier run is kept, with
# its objects and binary, so make has nothing to redo.
prepare() {
    local s=$1 d=$2 name=$3 i=${4:-} w
    w=$(work_of "$s" "$name")
    rm -rf "$w/tree.new"
    mkdir -p "$w/tree.new/$(dirname "$d")"
    cp -r "$ROOT/common" "$w/tree.new/common"
    cp -r "$ROOT/$d" "$w/tree.new/$d"
    rm -rf "$w/tree.new/$d/build" "$w/tree.new/$d/bin"
    if [ -n "$i" ]; then
        local t rel
        t=$(realpath -m "$ROOT/$d/${M_FILE[$i]}")
        rel=${t#"$ROOT/"}
        [ "$(apply "$i" "$t" "$w/tree.new/$rel")" = 1 ] || return 1
    fi
    if [ -d "$w/tree" ] && diff -rq "$w/tree.new" "$w/tree" >/dev/null 2>&1; then
        rm -rf "$w/tree.new"
    else
        rm -rf "$w/tree" "$w/bin" "$w/obj"
        mv "$w/tree.new" "$w/tree"
    fi
    mkdir -p "$w/bin" "$w/obj"
    return 0
}

build_one() {  # WORKDIR SAMPLEDIR: make there, status in build.rc
    local w=$1 d=$2
    make -C "$w/tree/$d" BINDIR="$w/bin" BUILDDIR="$w/obj" >"$w/build.log" 2>&1
    echo $? >"$w/build.rc"
}

jobs_max=${MUTANT_JOBS:-$(nproc 2>/dev/null || echo 2)}
running=0
spawn() {
    if [ $running -ge "$jobs_max" ]; then wait -n; running=$((running - 1)); fi
    build_one "$@" &
    running=$((running + 1))
}

declare -A CONTROL_DIR=()
for i in "${!M_NAME[@]}"; do
    [ "${STALE[$i]}" = 0 ] || continue
    s=${M_SAMPLE[$i]}
    CONTROL_DIR[$s]=${M_DIR[$i]}
done
nbuild=0
for i in "${!M_NAME[@]}"; do [ "${STALE[$i]}" = 0 ] && nbuild=$((nbuild + 1)); done
echo "mutants: building $nbuild mutants and ${#CONTROL_DIR[@]} unmutated controls, $jobs_max at a time, under ${WORKROOT#"$ROOT/"}/"
for s in "${!CONTROL_DIR[@]}"; do
    prepare "$s" "${CONTROL_DIR[$s]}" _control && spawn "$(work_of "$s" _control)" "${CONTROL_DIR[$s]}"
done
for i in "${!M_NAME[@]}"; do
    [ "${STALE[$i]}" = 0 ] || continue
    if prepare "${M_SAMPLE[$i]}" "${M_DIR[$i]}" "${M_NAME[$i]}" "$i"; then
        spawn "$(work_of "${M_SAMPLE[$i]}" "${M_NAME[$i]}")" "${M_DIR[$i]}"
    else
        STALE[$i]=1
    fi
done
wait

if [ $build_only -eq 1 ]; then
    nbad=0
    for w in "$WORKROOT"/*/*/; do
        [ -f "$w/build.rc" ] || continue
        if [ "$(cat "$w/build.rc")" != 0 ]; then
            echo "  build error: ${w#"$ROOT/"} (see build.log)"; nbad=$((nbad + 1))
        fi
    done
    echo "mutants: built $nbuild mutants and ${#CONTROL_DIR[@]} controls: $nbad build error(s), $errors other error(s)"
    [ $nbad -eq 0 ] && [ $errors -eq 0 ]
    exit
fi

# ---- running ---------------------------------------------------------------

TIMEOUT=${MUTANT_TIMEOUT:-300}

# run_bin WORKDIR BINARY ARGS: sets RC and LAST (the last non-empty stdout line)
run_bin() {
    local w=$1 b=$2 a=$3
    # shellcheck disable=SC2086  # ARGS is a list of options
    timeout -k 10 "$TIMEOUT" "$w/bin/$b" $a </dev/null >"$w/run.out" 2>"$w/run.err"
    RC=$?
    LAST=$(grep -v '^[[:space:]]*$' "$w/run.out" | tail -n1)
}

# verdict BINARY: from RC and LAST
verdict() {
    local b=$1
    if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then echo "timeout"; return; fi
    if [ "$RC" -eq 0 ]; then echo "SURVIVED"; return; fi
    if [ "$RC" -eq 1 ]; then
        case $LAST in
            "$b: FAIL (bad argument)"*) echo "crash"; return ;;
            "$b: FAIL"*) echo "killed"; return ;;
        esac
        if [[ $LAST == \{* && $LAST == *'"status":"FAIL"'* ]]; then echo "killed"; return; fi
    fi
    echo "crash"
}

declare -A CONTROL_OK=()
control_ok() {  # SAMPLE BINARY ARGS: 1 if the unmutated build passes with ARGS (cached)
    local s=$1 b=$2 a=$3 key="$1|$2|$3" w
    if [ -z "${CONTROL_OK[$key]:-}" ]; then
        w=$(work_of "$s" _control)
        if [ "$(cat "$w/build.rc" 2>/dev/null)" != 0 ] || [ ! -x "$w/bin/$b" ]; then
            CONTROL_OK[$key]=0
            echo "  $s (unmutated) does not build: see ${w#"$ROOT/"}/build.log"
        else
            run_bin "$w" "$b" "$a"
            if [ "$RC" -eq 0 ]; then CONTROL_OK[$key]=1
            else
                CONTROL_OK[$key]=0
                echo "  $s (unmutated) $b $a: exit $RC, last line: $LAST (see ${w#"$ROOT/"}/run.err)"
            fi
        fi
    fi
    [ "${CONTROL_OK[$key]}" = 1 ]
}

# With MUTANT_RUN_JOBS=N > 1 the mutant runs start N at a time before the
# report (each writes run.out, run.err and run.rc in its own folder), and the
# report reads their results instead of running them one by one: on the GPU
# machine 200 mutants of a few seconds each are minutes of serial runs. They
# are checks, not timings, so sharing the GPU costs nothing but time.
RUN_JOBS=${MUTANT_RUN_JOBS:-1}
prerun() {
    local i s name b a w n=0
    rm -f "$WORKROOT"/*/*/run.rc
    for i in "${!M_NAME[@]}"; do
        s=${M_SAMPLE[$i]} name=${M_NAME[$i]} b=${M_BIN[$i]} a=${M_ARGS[$i]}
        w=$(work_of "$s" "$name")
        [ "${STALE[$i]}" = 0 ] || continue
        [ "$(cat "$w/build.rc" 2>/dev/null)" = 0 ] && [ -x "$w/bin/$b" ] || continue
        [ "$(gpus_needed "${M_DIR[$i]}")" -gt "$N_GPUS" ] && continue
        control_ok "$s" "$b" "$a" >/dev/null || continue
        if [ $n -ge "$RUN_JOBS" ]; then wait -n; n=$((n - 1)); fi
        ( t0=$(date +%s); run_bin "$w" "$b" "$a"; echo "$RC $(( $(date +%s) - t0 ))" >"$w/run.rc" ) &
        n=$((n + 1))
    done
    wait
}

report() {
    killed=0
    declare -A count=()
    for s in "${!NONE_WHY[@]}"; do echo "  $s: no mutants: ${NONE_WHY[$s]}"; done
    for i in "${!M_NAME[@]}"; do
        s=${M_SAMPLE[$i]} name=${M_NAME[$i]} b=${M_BIN[$i]} a=${M_ARGS[$i]}
        w=$(work_of "$s" "$name")
        detail=""
        if [ "${STALE[$i]}" != 0 ]; then
            v="stale"; detail="find: does not occur exactly once in ${M_FILE[$i]}"
        elif [ "$(cat "$w/build.rc" 2>/dev/null)" != 0 ] || [ ! -x "$w/bin/$b" ]; then
            v="build error"; detail="see ${w#"$ROOT/"}/build.log: $(grep -m1 -E 'error' "$w/build.log" | cut -c1-120)"
        elif [ "$(gpus_needed "${M_DIR[$i]}")" -gt "$N_GPUS" ]; then
            v="skipped"; detail="needs $(gpus_needed "${M_DIR[$i]}") GPUs (its sanitize.expect); $N_GPUS visible: not run"
        elif ! control_ok "$s" "$b" "$a"; then
            v="control failed"; detail="the unmutated $b fails with these arguments"
        else
            if [ -f "$w/run.rc" ]; then   # run by prerun
                read -r RC secs <"$w/run.rc"
                LAST=$(grep -v '^[[:space:]]*$' "$w/run.out" | tail -n1)
            else
                t0=$(date +%s)
                run_bin "$w" "$b" "$a"
                secs=$(( $(date +%s) - t0 ))
            fi
            v=$(verdict "$b")
            detail="exit $RC, $secs s: ${LAST:0:100}"
        fi
        count[$v]=$(( ${count[$v]:-0} + 1 ))
        [ "$v" = killed ] && killed=$((killed + 1))
        printf '  %-44s %-14s %s\n' "$s/$name" "$v" "$detail"
        [ "$v" = killed ] || [ "$v" = skipped ] || printf '  %-44s %-14s what: %s (args: %s)\n' "" "" "${M_WHAT[$i]}" "$a"
    done
    local skipped=${count[skipped]:-0} ran=$((nm - ${count[skipped]:-0}))
    others=""
    for v in SURVIVED stale "build error" crash timeout "control failed"; do
        [ -n "${count[$v]:-}" ] && others+="; ${count[$v]} $v"
    done
    if [ "$skipped" -gt 0 ]; then
        others+="; $skipped more skipped: their samples need more GPUs than the $N_GPUS visible"
    fi
    if [ "$ran" -gt 0 ]; then
        pct=$(awk -v k="$killed" -v n="$ran" 'BEGIN { printf "%.1f", 100 * k / n }')
    else
        pct="0.0"
    fi
    echo "mutants: $killed of $ran killed ($pct%)$others"
    # every mutant skipped (a multi-GPU sample alone on one GPU): WAIVED, as the sample
    if [ "$ran" -eq 0 ] && [ "$skipped" -gt 0 ] && [ $errors -eq 0 ]; then return 2; fi
    [ "$killed" -eq "$ran" ] && [ "$ran" -gt 0 ] && [ $errors -eq 0 ]
}

[ "$RUN_JOBS" -gt 1 ] && prerun

save=0
[ "${MUTANTS_SAVE:-1}" != 0 ] && save=1
if [ $save -eq 1 ]; then
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | head -n1)
    driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0 | head -n1)
    slug=$(echo "$gpu" | sed -E 's/^NVIDIA //; s/[^A-Za-z0-9]+/_/g; s/_+$//')
    commit=${GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
    dirty=$(git status --porcelain 2>/dev/null | grep -qv "^??" && echo "+uncommitted changes" || true)
    mkdir -p "results/$slug"
    out=results/$slug/mutants.txt
    if [ ${#samples_wanted[@]} -gt 0 ]; then
        out=results/$slug/mutants__$(IFS=_; echo "${samples_wanted[*]}").txt
    fi
    {
        echo "# gpu: $gpu"
        echo "# driver: $driver"
        echo "# cuda: $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
        echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# commit: $commit$dirty"
        echo "# command: make mutants (tools/mutants.sh${samples_wanted[*]:+ ${samples_wanted[*]}})"
    } >"$out"
    report | tee -a "$out"
    rc=${PIPESTATUS[0]}
    echo "# exit: $rc" >>"$out"
    echo "mutants: report saved as $out"
    exit "$rc"
fi
report
