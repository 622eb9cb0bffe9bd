# tests/support/cpu_sim_lib.sh: what the CPU simulators of firstKernel,
# vectorAdd and threadFenceReduction share, sourced by their
# tests/cpu_sim/run.sh once `here` is that folder. The runner cuts its
# sample's kernels into $work/kernels.inc (that part is its own); these
# functions do the rest, in this order:
#   sim_options NAME ARGS...  --exercise=FILE and --src=FILE.cu (default: the
#                             sample's NAME.cu) into $exercise and $src, both
#                             checked to exist; $work, a new folder removed on
#                             exit. A bad argument: exit 2.
#   sim_build G++-FLAGS...    $here/sim.cpp (which includes kernels.inc) built
#                             with AddressSanitizer into $work/sim, with
#                             -DEXERCISE_FILE when there is an exercise. A kernel
#                             that does not compile is the kernel's fault:
#                             the compiler's words and "SIM FAIL", exit 1; any
#                             other failure: exit 2.
#   sim_run WHAT              runs $work/sim and exits with its status (0
#                             PASS, 1 FAIL); an access outside the buffers,
#                             which AddressSanitizer stops with exit 1, gets
#                             a "SIM FAIL" line naming WHAT ("the arrays").

# shellcheck shell=sh disable=SC2154  # here: the runner's
sim_options() {
    name=$1
    shift
    src=$here/../../$name.cu
    exercise=
    for a in "$@"; do
        case $a in
            --exercise=*) exercise=${a#--exercise=} ;;
            --src=*) src=${a#--src=} ;;
            *) echo "run.sh: unknown argument '$a' (--exercise=FILE, --src=FILE.cu)" >&2; exit 2 ;;
        esac
    done
    for f in "$src" ${exercise:+"$exercise"}; do
        [ -f "$f" ] || { echo "run.sh: no such file: $f" >&2; exit 2; }
    done
    work=$(mktemp -d "${TMPDIR:-/tmp}/${name}_cpu_sim.XXXXXX") || exit 2
    trap 'rm -rf "$work"' EXIT
}

sim_build() {
    if ! g++ -O1 -g -w -fsanitize=address -fno-omit-frame-pointer ${exercise:+-DEXERCISE_FILE} \
            -I"$work" "$@" "$here/sim.cpp" -o "$work/sim" 2>"$work/build.log"; then
        if grep -q 'kernels.inc' "$work/build.log"; then   # the kernel does not compile: a FAIL
            sed 's|'"$work"'/kernels.inc|'"${exercise:-$src}"' (as simulated)|' "$work/build.log" | head -n 20
            echo "SIM FAIL: the kernel does not compile on the CPU simulation"
            exit 1
        fi
        cat "$work/build.log"
        echo "run.sh: the simulation did not build"
        exit 2
    fi
}

sim_run() {
    ASAN_OPTIONS=detect_leaks=0:exitcode=1 "$work/sim" >"$work/out" 2>&1
    rc=$?
    cat "$work/out"
    if [ $rc -eq 1 ] && ! grep -q '^SIM FAIL' "$work/out"; then
        echo "SIM FAIL: the kernel made an access outside $1 (AddressSanitizer's report above)"
    fi
    exit $rc
}
