#!/usr/bin/env bash
# test_build.sh: the build system's promises (README.md, "Start here"; docs/contributing.md,
# "Adding a sample"; docs/CONVENTIONS.md, "Building").
# On this tree, without building anything:
#   - SMS is validated against nvcc --list-gpu-arch with a clear message
#   - SMS="80 90" builds machine code for both, PTX for the last
#   - dbg=1 adds -G; the default has -O3 -lineinfo
#   - README.md's table of samples is current (`make readme` regenerates it;
#     an ordinary `make` never rewrites it)
# In a scratch copy of the build system (Makefile, common/, tools/, tests/)
# with two probe samples, so nothing here is touched or rebuilt:
#   - the probes are discovered, built by name, and a second make builds nothing
#   - make leaves README.md alone; make readme adds the probes to its table
#   - the common layer is compiled once, into build/common/libcommon.a;
#     BINDIR=/BUILDDIR= (how tools/mutants.sh builds a copy) take the library
#     along and write nothing into the tree built from
#   - a changed common header recompiles exactly the objects that include it;
#     a changed common .c recompiles itself and relinks every program
#   - SMS and dbg are the build's identity: changing either rebuilds, a second
#     make with the same flags builds nothing, going back only relinks
#   - the top level runs as many jobs as there are cores
#   - a tool that fails to build is reported SKIPPED with the reason by
#     make and make run, the samples still build and run, its tests are
#     skipped; REQUIRE_TOOLS=1 makes the failure an error
#   - make vscode writes valid tasks (build, debug build, run, memcheck
#     --print-limit 20, verify, profile, and debug/debug-fixed, which prepare
#     the cuda-gdb launch) for the active editor's sample and cuda-gdb
#     launches of the program the debug task resolves: a sample's bin/<name>,
#     a debugging case's bin/dbg/<case>_buggy (or _fixed), a unit test's
#     program under build/tests/; make compile_commands.json records every compile
#     (samples, the common library, the tests) without touching the build
#   - make new-sample output builds and passes the process tests, the
#     command-line tests (tests/test_cli.sh), its unit test and the README
#     check unchanged, and its mutants apply (tools/mutants.sh --check)
# Ends with "build tests: N passed, M failed".
set -u
# the defaults are under test: none of the knobs a caller may have set
# (CI sets REQUIRE_TOOLS=1; SMS and dbg from the environment would change the flavor)
unset MAKEFLAGS MFLAGS MAKELEVEL REQUIRE_TOOLS JOBS SMS dbg RUN_ARGS
cd "$(dirname "$0")/.."
root=$PWD
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

out=$(make -n -C 0_Simple/vectorAdd SMS=52 2>&1)
if [ $? -ne 0 ] && grep -q 'SMS="52": this nvcc cannot build for 52' <<<"$out"; then ok
else bad "SMS=52 was not refused with a clear message: $out"; fi

out=$(make -n -C 0_Simple/vectorAdd SMS=sm90 2>&1)
if [ $? -ne 0 ] && grep -q 'cannot build for sm90' <<<"$out"; then ok
else bad "SMS=sm90 was not refused: $out"; fi

out=$(make -B -n -C 0_Simple/vectorAdd SMS="80 90" 2>&1)
if grep -q 'arch=compute_80,code=sm_80' <<<"$out" && grep -q 'arch=compute_90,code=sm_90' <<<"$out" \
    && grep -q 'arch=compute_90,code=compute_90' <<<"$out"; then ok
else bad "SMS=\"80 90\" does not give sm_80 + sm_90 + compute_90: $out"; fi

out=$(make -B -n -C 0_Simple/vectorAdd 2>&1)
if grep -q -- '-O3' <<<"$out" && grep -q -- '-lineinfo' <<<"$out" && ! grep -q -- ' -G ' <<<"$out"; then ok
else bad "default build lacks -O3 -lineinfo or has -G"; fi

out=$(make -B -n -C 0_Simple/vectorAdd dbg=1 2>&1)
if grep -q -- ' -G ' <<<"$out"; then ok; else bad "dbg=1 does not add -G"; fi

if tools/readme_samples.sh --check >/dev/null; then ok
else bad "README.md's table of samples is out of date: run make readme"; fi

# ---- a scratch copy of the build system ------------------------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=$tmp/suite
mkdir -p "$s/tests"
cp -r Makefile README.md common tools "$s/"
cp -r tests/tests.mk tests/test_samples.sh tests/test_cli.sh tests/support "$s/tests/"
cd "$s" || exit 1
export SKIP_PACKAGES=1   # the probe tools need no package

# probe SRC-NAME HEADER...: a minimal sample that includes the headers given
probe() {
    local name=$1; shift
    mkdir -p "0_Simple/$name"
    {
        for h in "$@"; do echo "#include \"$h\""; done
        cat <<CU
#include "device.h"
#include "options.h"
#include "report.h"
static const opts_config cfg = {"$name", "probe", NULL, 0, NULL, 0};
int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    report_init("$name", o.json);
    device_info d;
    device_setup_or_exit("$name", o.device, o.json, &d);
    return report_finish();
}
CU
    } >"0_Simple/$name/$name.cu"
    printf '# %s\n\nA probe of the build tests.\n' "$name" >"0_Simple/$name/README.md"
    printf '# %s: a probe\ninclude ../../common/sample.mk\n' "$name" >"0_Simple/$name/Makefile"
}
probe zzProbeA
probe zzProbeB reduce_ref.h

# compiled OUTPUT: the sources compiled (-c) in a make output, one per line
compiled() { sed -nE 's/.* -c ([^ ]+) -o .*/\1/p' <<<"$1" | xargs -rn1 basename | sort | tr '\n' ' '; }
# linked OUTPUT: the programs linked
linked() { sed -nE 's/^nvcc .* -o [^ ]*\/bin\/([^ ]+) .*/\1/p' <<<"$1" | sort | tr '\n' ' '; }

if make -s --no-print-directory list | grep -qx 0_Simple/zzProbeA; then ok; else bad "a new sample folder is not discovered"; fi
out=$(make zzProbeA 2>&1)
if [ -x bin/zzProbeA ]; then ok; else bad "make zzProbeA did not build bin/zzProbeA: $out"; fi
bin/zzProbeA --quick >/dev/null 2>&1; rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 2 ]; then ok; else bad "the probe exited $rc"; fi
out=$(make 2>&1)
if [ -x bin/zzProbeB ] && [ "$(compiled "$out")" = "zzProbeB.cu " ]; then ok
else bad "make after make zzProbeA compiled '$(compiled "$out")', want zzProbeB.cu only: $out"; fi
n_lib=$(ls common/*.c | wc -l)
if [ -f build/common/libcommon.a ] && [ "$(ar t build/common/libcommon.a | wc -l)" -eq "$n_lib" ] \
    && [ -z "$(find build/zzProbeA build/zzProbeB -name '*.o' -path '*common*')" ]; then ok
else bad "the common layer is not one library of $n_lib objects, or a sample compiled its own copy"; fi
out=$(make 2>&1)
if [ -z "$(compiled "$out")" ] && [ -z "$(linked "$out")" ]; then ok
else bad "a second make rebuilt: compiled '$(compiled "$out")' linked '$(linked "$out")'"; fi
# BINDIR=/BUILDDIR= elsewhere: the program, its objects and the common library
# go there, nothing into the tree (tools/mutants.sh builds copies this way)
touch "$tmp/marker"
out=$(make -C 0_Simple/zzProbeA BINDIR="$tmp/moved/bin" BUILDDIR="$tmp/moved/build" 2>&1)
if [ -x "$tmp/moved/bin/zzProbeA" ] && [ -f "$tmp/moved/build/common/libcommon.a" ] \
    && [ -z "$(find . -newer "$tmp/marker")" ]; then ok
else bad "make BINDIR= BUILDDIR= did not build there alone: $(find . -newer "$tmp/marker" | head -5) $(tail -n3 <<<"$out")"; fi
rm -rf "$tmp/moved"

# make never rewrites README.md: its table is regenerated by make readme only
cp README.md "$tmp/README.before"
out=$(make 2>&1)
if cmp -s README.md "$tmp/README.before" && ! tools/readme_samples.sh --check >/dev/null; then ok
else bad "make rewrote README.md (or the probes are already in its table)"; fi
make -s readme >/dev/null
if tools/readme_samples.sh --check >/dev/null && grep -q '\[zzProbeA\]' README.md; then ok
else bad "make readme did not put the probes in README.md's table"; fi

# newer FILE: FILE newer than everything built so far, without waiting for the
# clock to tick (a filesystem may keep whole seconds): every file of the
# scratch tree is set a minute back, then FILE to now
newer() { find . -exec touch -h -d "@$(($(date +%s) - 60))" {} +; touch "$1"; }

# a common header: only the objects that include it
newer common/reduce_ref.h
out=$(make 2>&1)
if [ "$(compiled "$out")" = "reduce_ref.c zzProbeB.cu " ] && [ "$(linked "$out")" = "zzProbeA zzProbeB " ]; then ok
else bad "after touching common/reduce_ref.h: compiled '$(compiled "$out")' (want reduce_ref.c zzProbeB.cu), linked '$(linked "$out")'"; fi
# a common source: itself, then every program relinks
newer common/timing.c
out=$(make 2>&1)
if [ "$(compiled "$out")" = "timing.c " ] && [ "$(linked "$out")" = "zzProbeA zzProbeB " ]; then ok
else bad "after touching common/timing.c: compiled '$(compiled "$out")' (want timing.c), linked '$(linked "$out")'"; fi

# SMS and dbg are part of the build's identity
flavor=$(cut -d' ' -f1 build/zzProbeA/link.flags)   # the default's: sm90 here
out=$(make SMS="80 90" 2>&1)
if [ "$(compiled "$out")" = "zzProbeA.cu zzProbeB.cu " ] && grep -q 'arch=compute_80,code=sm_80 .* -c zzProbeA.cu' <<<"$out" \
    && [ "$(linked "$out")" = "zzProbeA zzProbeB " ]; then ok
else bad "make SMS=\"80 90\" after a default build: compiled '$(compiled "$out")', linked '$(linked "$out")'"; fi
out=$(make SMS="80 90" 2>&1)
if [ -z "$(compiled "$out")$(linked "$out")" ]; then ok; else bad "a second make SMS=\"80 90\" rebuilt"; fi
out=$(make 2>&1)
if [ -z "$(compiled "$out")" ] && [ "$(linked "$out")" = "zzProbeA zzProbeB " ] \
    && [ "$(cut -d' ' -f1 build/zzProbeA/link.flags)" = "$flavor" ]; then ok
else bad "back to the default SMS: compiled '$(compiled "$out")' (want nothing), linked '$(linked "$out")' (want both)"; fi
out=$(make dbg=1 2>&1)
if [ "$(compiled "$out")" = "zzProbeA.cu zzProbeB.cu " ] && grep -q -- ' -G .* -c zzProbeA.cu' <<<"$out"; then ok
else bad "make dbg=1 after a default build: compiled '$(compiled "$out")'"; fi
out=$(make dbg=1 2>&1)
if [ -z "$(compiled "$out")$(linked "$out")" ]; then ok; else bad "a second make dbg=1 rebuilt"; fi
make -s >/dev/null 2>&1

# the top level uses every core by default; -jN on the command line wins
mkdir -p 9_Verification/zzJobs
printf 'all:\n\t@echo "zzJobs MAKEFLAGS: $$MAKEFLAGS"\n' >9_Verification/zzJobs/Makefile
out=$(make 2>&1)
if grep -q "zzJobs MAKEFLAGS: .*-j$(nproc)" <<<"$out"; then ok; else bad "the top level does not run $(nproc) jobs: $(grep zzJobs <<<"$out")"; fi
out=$(make -j1 2>&1)
if grep -q "zzJobs MAKEFLAGS: .*-j1" <<<"$out"; then ok; else bad "make -j1 was not honoured: $(grep zzJobs <<<"$out")"; fi
rm -rf 9_Verification/zzJobs

# a tool that does not build: SKIPPED with the reason, the samples run
t=9_Verification/zzBrokenTool
mkdir -p "$t/tests"
printf '# zzBrokenTool: a probe\n# needs: the probe header nobody has\ninclude ../../common/sample.mk\n' >"$t/Makefile"
printf '#include "zz_no_such_header.h"\nint main(void) { return 0; }\n' >"$t/main.c"
printf '#include "zz_no_such_header.h"\nint helper(void) { return 1; }\n' >"$t/helper.c"
printf 'int main(void) { return 0; }\n' >"$t/tests/test_zz.c"
out=$(make 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -x bin/zzProbeA ] && grep -q 'zzBrokenTool: SKIPPED.*zz_no_such_header.h.*it needs the probe header nobody has' <<<"$out"; then ok
else bad "make with a tool that does not build: exit $rc, want 0 and 'zzBrokenTool: SKIPPED' with the reason: $(tail -n3 <<<"$out")"; fi
out=$(make run RUN_ARGS=--quick 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -qE '^\[[12]/2\] +zzProbeA +(PASS|WAIVED)' <<<"$out" && grep -qE '^\[[12]/2\] +zzProbeB +(PASS|WAIVED)' <<<"$out" \
    && grep -qE '^ +zzBrokenTool +SKIPPED +tool not built: .*zz_no_such_header.h' <<<"$out"; then ok
else bad "make run with a tool that does not build: exit $rc, want 0, the probes run and the tool SKIPPED: $(tail -n6 <<<"$out")"; fi
out=$(make -n -f tests/tests.mk 2>&1)
if ! grep -q zzBrokenTool <<<"$out"; then ok; else bad "tests.mk builds the tests of a skipped tool"; fi
# a test program left from an earlier build of the tool must not run now
mkdir -p build/tests/$t && printf '#!/bin/sh\nexit 1\n' >build/tests/$t/test_zz && chmod +x build/tests/$t/test_zz
make -s -f tests/tests.mk >/dev/null 2>&1
out=$(tools/run_tests.sh 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^skipped: the tests of zzBrokenTool, a tool that did not build: .*zz_no_such_header.h' <<<"$out" \
    && grep -qE '^tests: [1-9][0-9]* passed, 0 failed' <<<"$out"; then ok
else bad "run_tests.sh with a skipped tool: exit $rc, want 0 and the tool's tests listed as skipped: $(tail -n3 <<<"$out")"; fi
out=$(make REQUIRE_TOOLS=1 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q 'REQUIRE_TOOLS=1' <<<"$out"; then ok; else bad "REQUIRE_TOOLS=1 make passed with a tool that does not build"; fi
rm -rf "$t" build/tools/zzBrokenTool.* build/tests/$t

# make vscode: tasks for the active editor's sample, a cuda-gdb launch
[ -x "$root/build/tests/json_check" ] || make -s -C "$root" -f tests/tests.mk build/tests/json_check >/dev/null
json_ok() {  # FILE: one JSON document once the // comment lines are dropped
    grep -v '^[[:space:]]*//' "$1" >"$tmp/json" && "$root/build/tests/json_check" "$tmp/json"
}
out=$(make vscode 2>&1)
if json_ok .vscode/tasks.json && json_ok .vscode/launch.json && json_ok .vscode/settings.json \
    && json_ok .vscode/extensions.json; then ok
else bad "make vscode did not write four valid JSON files: $out"; fi
labels=$(grep -o '"label": "[^"]*"' .vscode/tasks.json | tr '\n' ' ')
acts=$(grep -oE '"args": \["[a-z-]+"' .vscode/tasks.json | grep -oE '[a-z-]+"$' | tr -d '"' | tr '\n' ' ')
if [ "$acts" = "build build-debug run memcheck verify profile debug debug-fixed " ] && grep -q '"type": "cuda-gdb"' .vscode/launch.json; then ok
else bad "tasks.json lacks build, build-debug, run, memcheck, verify, profile, debug, debug-fixed (has: $acts), or launch.json its cuda-gdb configuration"; fi
# every cuda-gdb launch of the active file starts the program its preLaunchTask
# picked (build/vscode/debug_program), and that task exists
launches=$(grep -c '"program": "${workspaceFolder}/build/vscode/debug_program"' .vscode/launch.json)
pre_ok=1
while read -r pre; do
    grep -qF "\"label\": \"$pre\"" .vscode/tasks.json || pre_ok=0
done < <(sed -n 's/.*"preLaunchTask": "\([^"]*\)".*/\1/p' .vscode/launch.json)
if [ "$launches" -eq 2 ] && [ $pre_ok = 1 ] && ! grep -q 'fileDirnameBasename' .vscode/launch.json \
    && grep -q '"preLaunchTask": "debug: build and pick the active file.s program"' .vscode/launch.json \
    && grep -q '"preLaunchTask": "debug: build and pick the active case.s fixed form"' .vscode/launch.json; then ok
else bad "launch.json: want two launches of build/vscode/debug_program, each prepared by a task of tasks.json: $(grep -E 'program|preLaunch' .vscode/launch.json)"; fi
mkdir -p 0_Simple/zzProbeA/tests && touch 0_Simple/zzProbeA/tests/x.c
out=$(VSCODE_TASK_DRY=1 tools/vscode_task.sh memcheck "$s/0_Simple/zzProbeA/tests/x.c" "--quick --n=5" 2>&1)
if grep -qE 'compute-sanitizer --tool memcheck --print-limit 20 bin/zzProbeA --quick --n=5 *$' <<<"$out"; then ok
else bad "the memcheck task for a file of zzProbeA's tests/: $out"; fi
out=$(VSCODE_TASK_DRY=1 tools/vscode_task.sh build-debug 0_Simple/zzProbeB/zzProbeB.cu 2>&1)
if grep -qE '^make -C 0_Simple/zzProbeB dbg=1 *$' <<<"$out"; then ok; else bad "the debug build task: $out"; fi
out=$(VSCODE_TASK_DRY=1 tools/vscode_task.sh run README.md 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q 'not inside a sample folder' <<<"$out"; then ok
else bad "a task on a file outside every sample: exit $rc: $out"; fi
# the program cuda-gdb debugs: a debugging case's -G build, buggy or fixed
# (bin/<case> does not exist: a case builds bin/<case>_buggy and _fixed), a
# sample's program, a unit test's program
mkdir -p 8_Debugging/zzCase && printf 'include ../../common/debug_case.mk\n' >8_Debugging/zzCase/Makefile && touch 8_Debugging/zzCase/zzCase.cu
# dry_debug ACTION FILE: the build command and the link target, one line
dry_debug() {
    local o
    o=$(VSCODE_TASK_DRY=1 tools/vscode_task.sh "$1" "$2" 2>&1) || { echo "exit $?: $o"; return; }
    echo "$(grep -E '^make ' <<<"$o" | sed 's/ *$//') -> $(sed -nE 's|^ln -sfn ([^ ]+) build/vscode/debug_program *$|\1|p' <<<"$o")"
}
got=$(dry_debug debug 8_Debugging/zzCase/zzCase.cu)
[ "$got" = "make -C 8_Debugging/zzCase dbg -> $s/bin/dbg/zzCase_buggy" ] && ok || bad "debug of a case's file: $got"
got=$(dry_debug debug-fixed 8_Debugging/zzCase/README.md)
[ "$got" = "make -C 8_Debugging/zzCase dbg -> $s/bin/dbg/zzCase_fixed" ] && ok || bad "debug-fixed of a case's file: $got"
got=$(dry_debug debug 0_Simple/zzProbeB/zzProbeB.cu)
[ "$got" = "make -C 0_Simple/zzProbeB dbg=1 -> $s/bin/zzProbeB" ] && ok || bad "debug of a sample's file: $got"
got=$(dry_debug debug tests/test_check.c)
[ "$got" = "make -f tests/tests.mk build/tests/common/test_check -> $s/build/tests/common/test_check" ] && ok || bad "debug of a unit test's source: $got"
mkdir -p 0_Simple/zzProbeA/tests && touch 0_Simple/zzProbeA/tests/test_zz.c
got=$(dry_debug debug 0_Simple/zzProbeA/tests/test_zz.c)
[ "$got" = "make -f tests/tests.mk build/tests/0_Simple/zzProbeA/test_zz -> $s/build/tests/0_Simple/zzProbeA/test_zz" ] && ok || bad "debug of a sample's unit test: $got"
got=$(dry_debug debug 0_Simple/zzProbeA/tests/x.c)
[ "$got" = "make -C 0_Simple/zzProbeA dbg=1 -> $s/bin/zzProbeA" ] && ok || bad "debug of another file of a sample's tests/: $got"
for f in 0_Simple/zzProbeB/zzProbeB.cu tests/test_check.c README.md; do
    out=$(VSCODE_TASK_DRY=1 tools/vscode_task.sh debug-fixed "$f" 2>&1); rc=$?
    if [ $rc -eq 1 ] && grep -qE 'no fixed form|neither inside' <<<"$out"; then ok
    else bad "debug-fixed of $f (no debugging case): exit $rc: $out"; fi
done
# for real: the link points at the unit test's program, built
cp "$root/tests/test_check.c" tests/
out=$(tools/vscode_task.sh debug tests/test_check.c 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(readlink build/vscode/debug_program)" = "$s/build/tests/common/test_check" ] \
    && [ -x build/vscode/debug_program ]; then ok
else bad "vscode_task.sh debug tests/test_check.c: exit $rc, link $(readlink build/vscode/debug_program): $(tail -n3 <<<"$out")"; fi
rm -rf 0_Simple/zzProbeA/tests 8_Debugging/zzCase tests/test_check.c build/vscode build/tests/common/test_check*

# make compile_commands.json: every compile, recorded by bear (skipped without bear)
if command -v bear >/dev/null; then
    before=$(stat -c %Y bin/zzProbeA build/common/libcommon.a)
    out=$(make compile_commands.json 2>&1); rc=$?
    files=$(grep -o '"file": "[^"]*"' compile_commands.json 2>/dev/null | sed "s|\"file\": \"$s/||; s|\"||g" | sort | tr '\n' ' ')
    want="0_Simple/zzProbeA/zzProbeA.cu 0_Simple/zzProbeB/zzProbeB.cu $(cd common && ls *.c | sed 's|^|common/|' | tr '\n' ' ')"
    if [ $rc -eq 0 ] && [[ "$files" == *"$want"* ]] && grep -q 'tests/support/json_valid.c' <<<"$files" \
        && [ "$(stat -c %Y bin/zzProbeA build/common/libcommon.a)" = "$before" ] && [ ! -e build/compile_commands ] \
        && grep -q -- '-Xcompiler\*' .clangd && grep -q 'include/cccl' .clangd; then ok
    else bad "make compile_commands.json: exit $rc; files: $files; want at least: $want; or it touched bin/ or left its scratch build: $(tail -n3 <<<"$out")"; fi
else
    echo "build tests: make compile_commands.json not tested: bear is not installed (Debian package bear)"
fi

# make new-sample: a sample that passes the tests as generated
out=$(make new-sample NAME=zzProbeA FOLDER=3_Imaging 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q 'a sample of that name exists' <<<"$out"; then ok; else bad "new-sample accepted a name in use: $out"; fi
out=$(make new-sample NAME=9bad FOLDER=3_Imaging 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q 'NAME=9bad' <<<"$out"; then ok; else bad "new-sample accepted NAME=9bad: $out"; fi
out=$(make new-sample NAME=zzCase FOLDER=8_Debugging 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q 'FOLDER=8_Debugging holds the debugging case studies' <<<"$out" && [ ! -e 8_Debugging/zzCase ]; then ok
else bad "new-sample accepted FOLDER=8_Debugging: $out"; fi
out=$(make new-sample NAME=zzGen FOLDER=3_Imaging 2>&1); rc=$?
g=3_Imaging/zzGen
if [ $rc -eq 0 ] && [ -f $g/zzGen.cu ] && [ -f $g/mutants ] && [ -f $g/tests/test_zzGen_cpu.c ] \
    && python3 -c 'import sys; sys.path.insert(0, "tools"); import results as R; R.load_declaration("zzGen")' 2>/dev/null \
    && [ -n "$(python3 -c 'import sys; sys.path.insert(0, "tools"); import results as R; print(R.load_declaration("zzGen") or "")')" ]; then ok
else bad "make new-sample NAME=zzGen FOLDER=3_Imaging failed: $out"; fi
if tools/readme_samples.sh --check >/dev/null && grep -q '\[zzGen\](3_Imaging/zzGen/)' README.md; then ok
else bad "new-sample did not list zzGen in README.md's table"; fi
if grep -q '^<!-- results:begin -->$' $g/README.md && grep -q '^<!-- results:end -->$' $g/README.md \
    && [ "$(sed -n '/results:begin/,/results:end/p' $g/README.md | wc -l)" -eq 2 ] \
    && grep -q '^## Try next' $g/README.md && [ "$(sed -n '3p' $g/README.md | grep -c '\.$')" -eq 1 ]; then ok
else bad "the generated README lacks its summary sentence, empty results markers or Try next"; fi
out=$(make zzGen 2>&1)
if [ -x bin/zzGen ]; then ok; else bad "the generated sample does not build: $out"; fi
out=$(make -s -f tests/tests.mk 2>&1) && out=$(build/tests/$g/test_zzGen_cpu 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q 'PASSED.*2 test' <<<"$out"; then ok; else bad "the generated unit test: exit $rc: $out"; fi
out=$(bash tests/test_samples.sh 2>&1)
if grep -qE 'process tests: [1-9][0-9]* passed, 0 failed' <<<"$out"; then ok
else bad "the process tests fail on the generated sample (or the probes): $(grep FAIL <<<"$out" | head -5)"; fi
out=$(CLI_PROGRAMS=zzGen bash tests/test_cli.sh 2>&1)
if grep -qE 'cli tests: [1-9][0-9]* passed, 0 failed' <<<"$out"; then ok
else bad "the command-line tests fail on the generated sample: $(grep FAIL <<<"$out" | head -5)"; fi
# its mutants: at least six, each applies (find exactly once), as make test checks every sample's
out=$(tools/mutants.sh --check zzGen 2>&1); rc=$?
n=$(grep -c '^mutant: ' $g/mutants)
if [ $rc -eq 0 ] && [ "$n" -ge 6 ]; then ok
else bad "generated mutants: $n mutants, tools/mutants.sh --check zzGen exit $rc: $(tail -n5 <<<"$out")"; fi

cd "$root" || exit 1
echo "build tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
