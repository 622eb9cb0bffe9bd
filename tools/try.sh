#!/usr/bin/env bash
# try.sh SAMPLE EX [ANSWER]: `make try SAMPLE=name EX=N [ANSWER=1] [ARGS="..."]`,
# an exercise checked and timed (docs/CONVENTIONS.md, "Progression samples").
#
#   1. finds <sample folder>/exercises/exN_<name>.cuh (ANSWER=1:
#      exercises/answers/exN_<name>.cuh), which names the step it changes:
#          #define EXERCISE_BASE "<a variant of the sample's table>"
#   2. builds the sample with -DEXERCISE='"exercises/exN_<name>.cuh"' (set as
#      <sample>_NVCCFLAGS, so the sample's own flags stay) into
#      build/try/<sample>/exN/ (exN-answer/ for the answer) with BINDIR= and
#      BUILDDIR=, as tools/mutants.sh does: bin/ and build/ are left alone;
#   3. runs it with --variant=exercise, then --variant=<EXERCISE_BASE> (both
#      with ARGS, default none: the sample's full size), and prints one verdict
#      line, the last:
#          try <sample> ex<N>: PASS, 0.97x the speed of <base> (exercise 0.2104 ms, <base> 0.2041 ms)
#          try <sample> ex<N>: FAIL: <the check's own message>
#      The speed is the base's time over the exercise's, from their RESULT
#      lines' time_ms (above 1: the exercise is faster).
#   4. without a GPU (the sample exits 2, WAIVED) it runs
#      <sample folder>/tests/cpu_sim/run.sh --exercise=<absolute path of the file>
#      instead, when the sample has one (exit 0: the kernel is right, 1: it is
#      not, with a message), and says that the speed was not measured.
# Outputs are kept beside the build: build/try/<sample>/exN/{build.log,
# exercise.out, exercise.err, base.out, base.err, sim.out}.
# Exit: 0 PASS; 1 FAIL, a build error, or a bad SAMPLE or EX (named, with the
# choices); 2 not checked (no GPU and no CPU simulator).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD

die() { echo "try: $*" >&2; echo "try: FAIL (bad request: see above)"; exit 1; }

sample=${1:-}
ex=${2:-}
answer=${3:-}
with_exercises() {  # the samples that have exercises, one line
    local d out=
    for d in [0-8]_*/*/exercises; do [ -d "$d" ] && out="$out $(basename "$(dirname "$d")")"; done
    echo "${out# }"
}
[ -n "$sample" ] || die "usage: make try SAMPLE=name EX=N [ANSWER=1] [ARGS=\"...\"]; samples with exercises: $(with_exercises)"
[[ $sample =~ ^[A-Za-z0-9_]+$ ]] || die "SAMPLE='$sample' is not a sample name; samples with exercises: $(with_exercises)"
dir=
for mk in [0-8]_*/"$sample"/Makefile; do
    [ -f "$mk" ] && case $mk in 8_Debugging/*) ;; *) dir=${mk%/Makefile} ;; esac
done
[ -n "$dir" ] || die "no sample named '$sample'; samples with exercises: $(with_exercises)"
[ -d "$dir/exercises" ] || die "$sample has no exercises (no $dir/exercises/); samples with exercises: $(with_exercises)"

choices=$(cd "$dir/exercises" && ls ex[0-9]*_*.cuh 2>/dev/null | sed -E 's/^ex([0-9]+)_(.*)\.cuh$/\1 (\2)/' | paste -sd, - | sed 's/,/, /g')
[[ $ex =~ ^[1-9][0-9]*$ ]] || die "EX='$ex' is not an exercise number; $sample's exercises: $choices"
case $answer in ""|0) answer=0 ;; 1) ;; *) die "ANSWER='$answer': use ANSWER=1 for the reference answer, or leave it out" ;; esac
sub=exercises
[ "$answer" = 1 ] && sub=exercises/answers
files=("$dir/$sub"/ex"$ex"_*.cuh)
[ -f "${files[0]}" ] || die "$sample has no exercise $ex (no $dir/$sub/ex${ex}_*.cuh); its exercises: $choices"
[ ${#files[@]} -eq 1 ] || die "$sample has ${#files[@]} files for exercise $ex in $dir/$sub: ${files[*]}"
file=${files[0]}
rel=${file#"$dir/"}
base=$(sed -nE 's/^[[:space:]]*#[[:space:]]*define[[:space:]]+EXERCISE_BASE[[:space:]]+"([A-Za-z0-9_]+)".*/\1/p' "$file" | head -n1)
[ -n "$base" ] || die "$file does not say which step it changes (#define EXERCISE_BASE \"<variant>\")"

tag=ex$ex
[ "$answer" = 1 ] && tag=ex$ex-answer
work=$ROOT/build/try/$sample/$tag
mkdir -p "$work"
name="try $sample ex$ex"
[ "$answer" = 1 ] && name="$name (answer)"

echo "try: building $sample with $rel into ${work#"$ROOT/"}/ ..."
if ! make -C "$dir" BINDIR="$work/bin" BUILDDIR="$work/obj" \
        "${sample}_NVCCFLAGS=-DEXERCISE='\"$rel\"'" >"$work/build.log" 2>&1; then
    grep -E 'error|Error' "$work/build.log" | head -n 20
    echo "$name: FAIL: it does not build (the errors above; all of them in ${work#"$ROOT/"}/build.log)"
    exit 1
fi
bin=$work/bin/$sample

# message OUT ERR: the check's own words for a failed run: the first line
# of stderr that says what is wrong, else the first line of stderr, else
# the last line of stdout that is not a RESULT line
message() {
    local m
    m=$(grep -m1 -iE 'want|expected|differ|wrong|mismatch|error|written|past the end|FAIL' "$2" 2>/dev/null)
    [ -n "$m" ] || m=$(grep -m1 . "$2" 2>/dev/null)
    [ -n "$m" ] || m=$(grep -v '^RESULT ' "$1" | grep . | tail -n1)
    printf '%s' "$m" | sed -E 's/^[[:space:]]+//' | cut -c1-300
}
# time_of OUT VARIANT: time_ms of VARIANT's PASS record in OUT, or nothing
time_of() {
    sed -nE "s/^RESULT sample=[^ ]+ variant=$2 .*status=PASS.* time_ms=([0-9.eE+-]+).*/\1/p" "$1" | head -n1
}

# shellcheck disable=SC2086  # ARGS is a list of options
"$bin" --variant=exercise ${ARGS:-} >"$work/exercise.out" 2>"$work/exercise.err"
rc=$?
if [ $rc -eq 2 ]; then
    why=$(tail -n1 "$work/exercise.out")
    sim=$dir/tests/cpu_sim/run.sh
    if [ ! -f "$sim" ]; then
        echo "$name: NOT CHECKED: no GPU here ($why), and $sample has no CPU simulator ($sim)"
        exit 2
    fi
    echo "try: no GPU here: the CPU simulator checks the kernel ($sim)"
    sh "$sim" --exercise="$ROOT/$file" >"$work/sim.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "$name: PASS on the CPU simulator (no GPU: speed not measured)"
        exit 0
    elif [ $rc -eq 1 ]; then
        grep -v '^SIM FAIL' "$work/sim.out" | tail -n 20
        m=$(grep -m1 '^SIM FAIL' "$work/sim.out" | sed 's/^SIM FAIL: *//')
        echo "$name: FAIL on the CPU simulator: ${m:-see ${work#"$ROOT/"}/sim.out} (no GPU: speed not measured)"
        exit 1
    fi
    tail -n 20 "$work/sim.out"
    echo "$name: FAIL: the CPU simulator did not run (exit $rc; ${work#"$ROOT/"}/sim.out)"
    exit 1
fi
if [ $rc -ne 0 ]; then
    echo "$name: FAIL: $(message "$work/exercise.out" "$work/exercise.err") (exit $rc; all of it in ${work#"$ROOT/"}/exercise.err)"
    exit 1
fi
t_ex=$(time_of "$work/exercise.out" exercise)
# shellcheck disable=SC2086
"$bin" --variant="$base" ${ARGS:-} >"$work/base.out" 2>"$work/base.err"
rc=$?
t_base=$(time_of "$work/base.out" "$base")
if [ $rc -ne 0 ] || [ -z "$t_ex" ] || [ -z "$t_base" ]; then
    echo "$name: PASS; its speed against $base was not measured ($base exit $rc, times: exercise '${t_ex:-none}', $base '${t_base:-none}')"
    exit 0
fi
ratio=$(awk -v b="$t_base" -v e="$t_ex" 'BEGIN { if (e > 0) printf "%.2f", b / e; else print "?" }')
echo "$name: PASS, ${ratio}x the speed of $base (exercise $t_ex ms, $base $t_base ms)"
exit 0
