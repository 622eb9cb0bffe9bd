#!/usr/bin/env bash
# test_debugging.sh: the 8_Debugging case studies, checked on the CPU.
#   - every case folder has its source, README, Makefile, sanitize.expect,
#     mutants and captures; the source has both forms (#ifdef FIXED, a BUG
#     marker); both forms are built (bin/<case>_buggy, bin/<case>_fixed);
#     -DFIXED=1 goes to the fixed object only; a case builds from a copy of
#     common/ and its own folder, outputs moved by BINDIR/BUILDDIR (as
#     tools/mutants.sh builds it); `make dbg` adds -G and `make nolineinfo` drops -lineinfo; the
#     top level lists cases apart from samples
#   - every "at FILE:LINE" of a sanitize.expect and every "break FILE:LINE" of
#     a cuda-gdb script names a line marked "REPORTED: <kind>" (of that kind),
#     and every such marker is declared; the fixed form runs under all four
#     tools, declared clean; bin/sanitize parses every file
#   - every README's report blocks match its captures file both ways, and the
#     READMEs are up to date (insert_reports.sh --check); insert_reports.sh
#     inserts, truncates, is idempotent and refuses bad blocks; capture.sh
#     lists every capture, refuses to run without a GPU, and writes reports
#     with their header; four_tools.sh runs the four tools with the flags
#     the walkthroughs show
#   - every mutant names binary <case>_fixed and a `find` text that occurs
#     exactly once in its file
# The marker and block checks are also run on a scratch copy with a planted
# inconsistency, to show that they can fail.
# Ends with "debugging tests: N passed, M failed".
set -u
unset MAKEFLAGS MFLAGS MAKELEVEL
cd "$(dirname "$0")/.."
ROOT=$PWD
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cases=$(make -s --no-print-directory list-cases 2>/dev/null)
n_cases=$(echo "$cases" | grep -c .)
if [ "$n_cases" -ge 10 ]; then ok; else bad "make list-cases lists $n_cases cases, want at least 10"; fi
if make -s --no-print-directory list | grep -q '^8_Debugging/'; then bad "make list (the samples) includes 8_Debugging cases"
else ok; fi

# ---- layout, both forms, the build ---------------------------------------
for dir in $cases; do
    c=$(basename "$dir")
    missing=
    for f in "$c.cu" README.md Makefile sanitize.expect mutants captures; do
        [ -f "$dir/$f" ] || missing="$missing $f"
    done
    if [ -z "$missing" ]; then ok; else bad "$dir lacks:$missing"; continue; fi
    if grep -q 'include ../../common/debug_case.mk' "$dir/Makefile"; then ok
    else bad "$dir/Makefile does not include ../../common/debug_case.mk"; fi
    if head -n1 "$dir/README.md" | grep -q "^# $c: " && sed -n 3p "$dir/README.md" | grep -q '[a-z]'; then ok
    else bad "$dir/README.md: want '# $c: ...' then a summary paragraph"; fi
    if grep -q '^#ifdef FIXED' "$dir/$c.cu" && grep -Eq '(//|/\*) BUG: ' "$dir/$c.cu"; then ok
    else bad "$dir/$c.cu: no '#ifdef FIXED' branch or no BUG marker"; fi
    if [ -x "bin/${c}_buggy" ] && [ -x "bin/${c}_fixed" ]; then ok
    else bad "$c: bin/${c}_buggy and bin/${c}_fixed are not both built"; fi
    out=$(make -B -n -C "$dir" 2>&1)
    if grep -E "nvcc .*-c .*-o [^ ]*/${c}_buggy/$c\\.o" <<<"$out" | grep -qv -- '-DFIXED' \
        && grep -E "nvcc .*-c .*-o [^ ]*/${c}_fixed/$c\\.o" <<<"$out" | grep -q -- '-DFIXED=1'; then ok
    else bad "$c: -DFIXED=1 must go to fixed.o and only there: $out"; fi
done

c=blurPitch
out=$(make -B -n -C 8_Debugging/$c dbg 2>&1)
if grep -q -- ' -G ' <<<"$out" && grep -q "bin/dbg" <<<"$out"; then ok; else bad "make dbg: no -G or not in bin/dbg: $out"; fi
# the dbg build links the default build's common library, never a copy of its own
if grep -qE "nvcc .* -o [^ ]*/bin/dbg/${c}_fixed .* $ROOT/build/common/libcommon\.a" <<<"$out" \
    && ! grep -q "build/dbg/common" <<<"$out"; then ok
else bad "make dbg does not link $ROOT/build/common/libcommon.a: $out"; fi
out=$(make -B -n -C 8_Debugging/$c nolineinfo 2>&1)
if grep -q 'nvcc .* -c ' <<<"$out" && ! grep -q -- '-lineinfo' <<<"$out"; then ok
else bad "make nolineinfo still passes -lineinfo"; fi
# A copy of the tree with only common/ and the case's folder (what
# tools/mutants.sh builds a mutant in), outputs moved by BINDIR=/BUILDDIR=.
mkdir -p "$tmp/tree/8_Debugging" && cp -r common "$tmp/tree/" && cp -r 8_Debugging/$c "$tmp/tree/8_Debugging/"
if make -s -C "$tmp/tree/8_Debugging/$c" BINDIR="$tmp/bin" BUILDDIR="$tmp/build" >"$tmp/tree.log" 2>&1 \
    && [ -x "$tmp/bin/${c}_buggy" ] && [ -x "$tmp/bin/${c}_fixed" ] && [ -n "$(find "$tmp/build/$c" -path "*/${c}_fixed/$c.o")" ] && [ -f "$tmp/build/common/libcommon.a" ] \
    && [ ! -e "$tmp/tree/bin" ] && [ ! -e "$tmp/tree/build" ]; then ok
else bad "a case does not build from common/ and its own folder with BINDIR=/BUILDDIR=: $(tail -n5 "$tmp/tree.log")"; fi
out=$(make -n blurPitch 2>&1)
if grep -q 'make.* -C 8_Debugging/blurPitch' <<<"$out"; then ok; else bad "make blurPitch at the top does not build the case"; fi

# common/debug_case.h: the names of the two forms and the closing line,
# with and without --no-check, in a probe built with gcc (no GPU needed)
cat >"$tmp/probe.c" <<'C'
#include <stdlib.h>
#include "debug_case.h"
int main(int argc, char **argv)
{
#ifdef PLANT_REPS_ACCEPTED
    static const opt_spec opts[] = {CASE_NO_CHECK_OPT};   /* a table without CASE_OPTS */
#else
    static const opt_spec opts[] = {CASE_OPTS};
#endif
    static const opts_config cfg = {CASE_NAME("probe"), "probe", opts, (int)(sizeof opts / sizeof opts[0]), NULL, 0};
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    report_init(CASE_NAME("probe"), o.json);
    if (!case_no_check) {
        result_rec r;
        rec_begin(&r, "x");
        rec_str(&r, "status", getenv("PROBE_FAIL") ? "FAIL" : "PASS");
        rec_emit(&r);
    }
    return case_finish(CASE_NAME("probe"));
}
C
if gcc -std=c11 -Wall -Wextra -Werror -Icommon -o "$tmp/probe_buggy" "$tmp/probe.c" common/options.c common/report.c -lm \
    && gcc -std=c11 -Wall -Wextra -Werror -Icommon -DFIXED=1 -o "$tmp/probe_fixed" "$tmp/probe.c" common/options.c common/report.c -lm; then ok
else bad "common/debug_case.h does not compile cleanly in C"; fi
# probe_case FORM ENV ARGS... -> "exit status|last line"
probe_case() { local f=$1 e=$2; shift 2; local out; out=$(env $e "$tmp/probe_$f" "$@" 2>/dev/null); echo "$?|$(tail -n1 <<<"$out")"; }
[ "$(probe_case buggy X=1)" = "0|probe_buggy: PASS" ] && ok || bad "probe_buggy: $(probe_case buggy X=1)"
[ "$(probe_case fixed X=1)" = "0|probe_fixed: PASS" ] && ok || bad "probe_fixed: $(probe_case fixed X=1)"
[ "$(probe_case buggy PROBE_FAIL=1)" = "1|probe_buggy: FAIL" ] && ok || bad "a failed check: $(probe_case buggy PROBE_FAIL=1)"
[ "$(probe_case buggy PROBE_FAIL=1 --no-check)" = "0|probe_buggy: PASS (--no-check: results not compared)" ] && ok \
    || bad "--no-check: $(probe_case buggy PROBE_FAIL=1 --no-check)"
[ "$(probe_case fixed X=1 --no-check --json)" = '0|{"sample":"probe_fixed","status":"PASS","checked":false}' ] && ok \
    || bad "--no-check --json: $(probe_case fixed X=1 --no-check --json)"
"$tmp/probe_buggy" --help | grep -q -- '--no-check' && ok || bad "--help does not list --no-check"

# A case times nothing: --reps is refused by name, exit 1, the FAIL line last,
# and --help does not list it (CASE_OPTS; as deviceQuery). Every case, both
# forms: a case whose table lacks CASE_OPTS fails here.
# refuses_reps BIN NAME -> empty, or what is wrong
refuses_reps() {
    local bin=$1 name=$2 out err rc
    out=$("$bin" --reps=3 2>"$tmp/reps_err"); rc=$?
    err=$(cat "$tmp/reps_err")
    if [ $rc -ne 1 ]; then echo "$name --reps=3: exit $rc, want 1"
    elif ! grep -qF -- "--reps means nothing to $name" <<<"$err"; then echo "$name --reps=3: stderr does not say '--reps means nothing to $name': $err"
    elif [ "$(tail -n1 <<<"$out")" != "$name: FAIL (bad argument)" ]; then echo "$name --reps=3: last line '$(tail -n1 <<<"$out")'"
    elif "$bin" --help | grep -q -- '--reps'; then echo "$name --help lists --reps"
    fi
}
problems=$(refuses_reps "$tmp/probe_buggy" probe_buggy)
[ -z "$problems" ] && ok || bad "$problems"
# the check can fail: a probe whose table lacks CASE_OPTS accepts --reps
if gcc -std=c11 -Wall -Wextra -Werror -Icommon -DPLANT_REPS_ACCEPTED -o "$tmp/probe_plant" "$tmp/probe.c" common/options.c common/report.c -lm \
    && refuses_reps "$tmp/probe_plant" probe_buggy | grep -q 'exit 0, want 1'; then ok
else bad "refuses_reps did not notice a case that accepts --reps"; fi
for dir in $cases; do
    for form in buggy fixed; do
        name=$(basename "$dir")_$form
        [ -x "bin/$name" ] || continue   # reported above
        problems=$(refuses_reps "bin/$name" "$name")
        [ -z "$problems" ] && ok || bad "$problems"
    done
done

# ---- markers: sanitize.expect and cuda-gdb scripts against the sources ---
# check_markers DIR (a case folder): prints one line per problem.
check_markers() {
    local d=$1 file line kind text
    # every "at FILE:LINE" names a line marked "REPORTED: <kind>"
    while read -r kind file line; do
        text=$(sed -n "${line}p" "$d/$file" 2>/dev/null)
        if [[ "$text" != *"REPORTED: $kind"* ]]; then
            echo "$d/sanitize.expect: $kind at $file:$line, but that line does not carry 'REPORTED: $kind': $text"
        fi
    done < <(sed -n 's/#.*//; s/^[a-z]*:[[:space:]]*detect[[:space:]]\{1,\}\([a-z0-9-]*\)[[:space:]]\{1,\}at[[:space:]]\{1,\}\([^:[:space:]]*\):\([0-9]*\).*/\1 \2 \3/p' "$d/sanitize.expect")
    # every "REPORTED: <kind>" marker is declared at its line
    while IFS=: read -r file line text; do
        kind=$(sed 's/.*REPORTED: \([a-z0-9-]*\).*/\1/' <<<"$text")
        if ! grep -Eq "^[a-z]+:[[:space:]]*detect[[:space:]]+$kind[[:space:]]+at[[:space:]]+$(basename "$file"):$line([^0-9]|$)" "$d/sanitize.expect"; then
            echo "$file:$line is marked 'REPORTED: $kind' but $d/sanitize.expect does not declare it"
        fi
    done < <(grep -Hn 'REPORTED: ' "$d"/*.cu)
    # every "break FILE:LINE" of a cuda-gdb script names a REPORTED line
    for g in "$d"/*.gdb; do
        [ -f "$g" ] || continue
        while read -r file line; do
            text=$(sed -n "${line}p" "$d/$file" 2>/dev/null)
            [[ "$text" == *"REPORTED: "* ]] || echo "$g: break $file:$line is not a line marked REPORTED: $text"
        done < <(sed -n 's/^break[[:space:]]\{1,\}\([^:[:space:]]*\):\([0-9]*\).*/\1 \2/p' "$g")
    done
}

for dir in $cases; do
    c=$(basename "$dir")
    problems=$(check_markers "$dir")
    if [ -z "$problems" ]; then ok; else bad "$problems"; fi
    # runs name only this case's two binaries; the fixed form's run has no
    # tools: line and no detect (all four tools, clean)
    others=$(sed -n 's/#.*//; s/^run:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$dir/sanitize.expect" \
        | grep -Ev "^bin/${c}_(buggy|fixed)$")
    if [ -z "$others" ]; then ok; else bad "$dir/sanitize.expect runs other binaries: $others"; fi
    fixed_block=$(awk '/^run:/ { on = ($2 == "bin/'"$c"'_fixed") } on' "$dir/sanitize.expect" | sed 's/#.*//')
    if grep -q '^run:' <<<"$fixed_block" && ! grep -Eq '^(tools:|[a-z]+:[[:space:]]*(detect|allow))' <<<"$fixed_block"; then ok
    else bad "$dir/sanitize.expect: the fixed form must run under all four tools, all clean"; fi
    if grep -q "^run: bin/${c}_buggy" "$dir/sanitize.expect"; then ok; else bad "$dir/sanitize.expect has no run of the buggy form"; fi
done

# the check can fail: shift the lines of a source by one in a scratch copy
mkdir -p "$tmp/planted" && cp -r 8_Debugging/reduceBreak "$tmp/planted/"
sed -i '1i /* one line more */' "$tmp/planted/reduceBreak/reduceBreak.cu"
problems=$(check_markers "$tmp/planted/reduceBreak")
if grep -q 'does not carry' <<<"$problems" && grep -q 'does not declare' <<<"$problems"; then ok
else bad "the marker check did not notice a source shifted by one line: $problems"; fi
cp -r 8_Debugging/blurPitch "$tmp/planted/"
sed -i 's/^break blurPitch.cu:\([0-9]*\)/break blurPitch.cu:1\1/' "$tmp/planted/blurPitch/stop_at_read.gdb"
if check_markers "$tmp/planted/blurPitch" | grep -q 'is not a line marked REPORTED'; then ok
else bad "the marker check did not notice a cuda-gdb breakpoint on the wrong line"; fi

# cuda-gdb commands exactly as they are typed: every cuda-gdb script of a case
# (*.gdb) is quoted in its README as one fenced block holding its lines less
# the comments and blank lines, so that each line can be pasted at the prompt.
# check_gdb_quoted DIR: one line per script that its README does not quote.
check_gdb_quoted() {
    local d=$1 g
    for g in "$d"/*.gdb; do
        [ -f "$g" ] || continue
        grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$g" >"$tmp/gdb_cmds"
        if ! awk -v want="$tmp/gdb_cmds" '
            BEGIN { while ((getline l < want) > 0) w = w l "\n" }
            /^```/ { if (in_block) { if (b == w) found = 1; in_block = 0 } else { in_block = 1; b = "" } next }
            in_block { b = b $0 "\n" }
            END { exit !found }' "$d/README.md"; then
            echo "$d/README.md does not quote $(basename "$g") as it is typed (one fenced block of its commands)"
        fi
    done
}
n_gdb=0
for dir in $cases; do
    for g in "$dir"/*.gdb; do [ -f "$g" ] && n_gdb=$((n_gdb + 1)); done
    problems=$(check_gdb_quoted "$dir")
    if [ -z "$problems" ]; then ok; else bad "$problems"; fi
done
if [ "$n_gdb" -ge 2 ]; then ok; else bad "only $n_gdb cuda-gdb scripts found in the cases"; fi
# the check can fail: the README's quote abbreviated (five prints as one line,
# which cuda-gdb reads as divisions)
cp -r 8_Debugging/blurPitch "$tmp/planted/blurPitch_gdb"
perl -0pi -e 's/print x\nprint y\nprint in_row\nprint out_row\nprint h\n/print x \/ y \/ in_row \/ out_row \/ h\n/' "$tmp/planted/blurPitch_gdb/README.md"
if check_gdb_quoted "$tmp/planted/blurPitch_gdb" | grep -q 'does not quote stop_at_read.gdb'; then ok
else bad "check_gdb_quoted did not notice an abbreviated quote of stop_at_read.gdb"; fi

# bin/sanitize reads every sanitize.expect of 8_Debugging
if [ -x bin/sanitize ]; then
    out=$(bin/sanitize --list --folder=8_Debugging 2>&1); rc=$?
    runs=$(grep -c ' expect: ' <<<"$out")
    if [ $rc -eq 0 ] && [ "$runs" -ge $((5 * n_cases)) ]; then ok
    else bad "bin/sanitize --list --folder=8_Debugging: exit $rc, $runs runs: $(tail -n3 <<<"$out")"; fi
else
    bad "bin/sanitize is not built (make tools)"
fi

# ---- report blocks, captures, capture.sh, insert_reports.sh, four_tools.sh
# check_blocks DIR: the README's report names and the captures file's names agree.
check_blocks() {
    local d=$1 in_readme in_captures
    in_readme=$(grep -o '<!-- report:[a-z0-9_]*:begin -->' "$d/README.md" | sed 's/<!-- report:\(.*\):begin -->/\1/' | sort)
    in_captures=$(sed -n 's/^\([a-z0-9_]*\):[[:space:]].*/\1/p' "$d/captures" | sort)
    if [ "$in_readme" != "$in_captures" ]; then
        echo "$d: README blocks and captures differ: $(diff <(echo "$in_readme") <(echo "$in_captures") | grep '^[<>]' | tr '\n' ' ')"
    fi
    if [ "$(grep -c ':end -->' "$d/README.md")" != "$(grep -c ':begin -->' "$d/README.md")" ]; then
        echo "$d/README.md: begin and end markers do not pair up"
    fi
}
for d in 8_Debugging $cases; do
    problems=$(check_blocks "$d")
    if [ -z "$problems" ]; then ok; else bad "$problems"; fi
done
cp -r 8_Debugging/leak "$tmp/planted/"
echo "extra_capture: echo hello" >>"$tmp/planted/leak/captures"
if check_blocks "$tmp/planted/leak" | grep -q 'differ'; then ok
else bad "check_blocks did not notice a capture without a README block"; fi

if 8_Debugging/insert_reports.sh --check; then ok; else bad "a README's report blocks are out of date (run 8_Debugging/insert_reports.sh)"; fi

# every captured report was made by the command its captures file names now:
# a changed command (a new --print-limit, say) needs a new capture
# check_reports_current DIR: one line per report whose command differs.
check_reports_current() {
    local d=$1 name cmd got label
    label=$(basename "$d"); [ "$d" = 8_Debugging ] && label=workflow
    while IFS= read -r line; do
        [[ $line =~ ^([a-z0-9_]+):[[:space:]]+(.+)$ ]] || continue
        name=${BASH_REMATCH[1]} cmd=${BASH_REMATCH[2]}
        [ -f "$d/reports/$name.txt" ] || continue
        got=$(sed -n 2p "$d/reports/$name.txt")
        [ "$got" = "\$ $cmd" ] || echo "$d/reports/$name.txt was made by '$got', the captures file says '\$ $cmd': capture it again (8_Debugging/capture.sh $label:$name)"
    done <"$d/captures"
}
for d in 8_Debugging $cases; do
    problems=$(check_reports_current "$d")
    if [ -z "$problems" ]; then ok; else bad "$problems"; fi
done
cp -r 8_Debugging/uninitGlobal "$tmp/planted/uninitGlobal_cmd"
sed -i 's/^initcheck_buggy: compute-sanitizer --tool initcheck /initcheck_buggy: compute-sanitizer --tool initcheck --print-limit 5 /' "$tmp/planted/uninitGlobal_cmd/captures"
if check_reports_current "$tmp/planted/uninitGlobal_cmd" | grep -q 'initcheck_buggy.txt was made by'; then ok
else bad "check_reports_current did not notice a capture whose command changed"; fi

# insert_reports.sh on a scratch folder
s=$tmp/ins
mkdir -p "$s/reports"
printf 'short: echo short\nlong: seq 100\n' >"$s/captures"
printf '# t\n\nText.\n\n<!-- report:short:begin -->\nold\n<!-- report:short:end -->\n\n<!-- report:long:begin -->\n<!-- report:long:end -->\nend\n' >"$s/README.md"
printf '# captured X\n$ echo short\nshort\n# exit status 0 (0.0 s)\n' >"$s/reports/short.txt"
seq 1 100 >"$s/reports/long.txt"
if 8_Debugging/insert_reports.sh "$s" >/dev/null 2>&1 \
    && grep -q '^short$' "$s/README.md" && ! grep -q '^old$' "$s/README.md" \
    && grep -q '^55$' "$s/README.md" && ! grep -q '^56$' "$s/README.md" && grep -q '^86$' "$s/README.md" \
    && grep -q '30 lines left out here; the whole report: reports/long.txt' "$s/README.md" \
    && grep -q '^end$' "$s/README.md"; then ok
else bad "insert_reports.sh did not insert and truncate as documented: $(cat "$s/README.md")"; fi
cp "$s/README.md" "$tmp/ins_first"
8_Debugging/insert_reports.sh "$s" >/dev/null 2>&1
if cmp -s "$s/README.md" "$tmp/ins_first" && 8_Debugging/insert_reports.sh --check "$s"; then ok
else bad "insert_reports.sh is not idempotent"; fi
rm "$s/reports/short.txt"
8_Debugging/insert_reports.sh "$s" >/dev/null 2>&1
if grep -q 'not captured yet' "$s/README.md" && grep -q '^\$ echo short$' "$s/README.md"; then ok
else bad "insert_reports.sh: a missing report should show the command and 'not captured yet'"; fi
printf '<!-- report:nosuch:begin -->\n<!-- report:nosuch:end -->\n' >>"$s/README.md"
if ! 8_Debugging/insert_reports.sh "$s" >/dev/null 2>&1; then ok; else bad "insert_reports.sh accepted a block the captures file does not define"; fi
printf '# t\n<!-- report:short:begin -->\nno end\n' >"$s/README.md"
if ! 8_Debugging/insert_reports.sh "$s" >/dev/null 2>&1; then ok; else bad "insert_reports.sh accepted a block without its end marker"; fi

# capture.sh --list: every capture of every folder
listed=$(8_Debugging/capture.sh --list | wc -l)
defined=$(cat 8_Debugging/captures 8_Debugging/*/captures | grep -c '^[a-z0-9_]*: ')
if [ "$listed" -eq "$defined" ] && [ "$listed" -ge 50 ]; then ok
else bad "capture.sh --list lists $listed captures, the captures files define $defined"; fi
if 8_Debugging/capture.sh --list blurPitch | grep -q '^8_Debugging/blurPitch/reports/memcheck_buggy.txt: compute-sanitizer --tool memcheck --error-exitcode 1 bin/blurPitch_buggy --quick$'; then ok
else bad "capture.sh --list blurPitch does not show the memcheck capture"; fi
8_Debugging/capture.sh --list nosuchcase >/dev/null 2>&1
if [ $? -eq 2 ]; then ok; else bad "capture.sh accepted an unknown folder"; fi
# FOLDER:NAME[,NAME] picks captures of a folder; an unknown name is refused
out=$(8_Debugging/capture.sh --list blurPitch:gdb_buggy,plain_fixed workflow:versions)
if [ "$(wc -l <<<"$out")" -eq 3 ] && grep -q '^8_Debugging/blurPitch/reports/gdb_buggy.txt: ' <<<"$out" \
    && grep -q '^8_Debugging/blurPitch/reports/plain_fixed.txt: ' <<<"$out" && grep -q '^8_Debugging/reports/versions.txt: ' <<<"$out"; then ok
else bad "capture.sh --list blurPitch:gdb_buggy,plain_fixed workflow:versions: $out"; fi
8_Debugging/capture.sh --list blurPitch:nosuch >/dev/null 2>&1
if [ $? -eq 2 ]; then ok; else bad "capture.sh accepted an unknown capture name"; fi

# capture.sh in a scratch tree (CAPTURE_WITHOUT_GPU=1, no build): one fake case
s=$tmp/cap
mkdir -p "$s/8_Debugging/fake"
cp 8_Debugging/capture.sh 8_Debugging/insert_reports.sh "$s/8_Debugging/"
printf 'hello: echo hello; echo oops >&2; exit 3\n' >"$s/8_Debugging/fake/captures"
printf '# fake: x\n\nA fake.\n\n<!-- report:hello:begin -->\n<!-- report:hello:end -->\n' >"$s/8_Debugging/fake/README.md"
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    "$s/8_Debugging/capture.sh" --no-build >/dev/null 2>&1
    if [ $? -eq 2 ] && [ ! -e "$s/8_Debugging/fake/reports" ]; then ok
    else bad "capture.sh ran without a GPU (it must refuse unless CAPTURE_WITHOUT_GPU=1)"; fi
fi
CAPTURE_WITHOUT_GPU=1 CAPTURE_COMMIT=abc1234 "$s/8_Debugging/capture.sh" --no-build --copy-to="$s/out" >/dev/null 2>&1
rc=$?
r=$s/8_Debugging/fake/reports/hello.txt
# a command's own exit status 124 (it ran `timeout` itself) is an exit
# status; reaching CAPTURE_TIMEOUT is TIMED OUT (and capture.sh fails);
# FOLDER:NAME runs that capture only
printf 'own124: exit 124\nslow: sleep 30\n' >>"$s/8_Debugging/fake/captures"
CAPTURE_WITHOUT_GPU=1 CAPTURE_COMMIT=abc1234 CAPTURE_TIMEOUT=1 "$s/8_Debugging/capture.sh" --no-build fake:own124 >/dev/null 2>&1
rc124=$?
if [ $rc124 -eq 0 ] && tail -n1 "$s/8_Debugging/fake/reports/own124.txt" | grep -q '^# exit status 124 (' \
    && [ ! -e "$s/8_Debugging/fake/reports/slow.txt" ]; then ok
else bad "capture.sh fake:own124 (exit $rc124): $(cat "$s/8_Debugging/fake/reports/own124.txt" 2>&1); slow ran: $(ls "$s/8_Debugging/fake/reports/")"; fi
CAPTURE_WITHOUT_GPU=1 CAPTURE_COMMIT=abc1234 CAPTURE_TIMEOUT=1 "$s/8_Debugging/capture.sh" --no-build fake:slow >/dev/null 2>&1
rcslow=$?
if [ $rcslow -eq 1 ] && tail -n1 "$s/8_Debugging/fake/reports/slow.txt" | grep -q '^# TIMED OUT after 1 s'; then ok
else bad "capture.sh fake:slow (exit $rcslow): $(cat "$s/8_Debugging/fake/reports/slow.txt" 2>&1)"; fi
if [ $rc -eq 0 ] && [ -f "$r" ] && head -n1 "$r" | grep -q '^# captured .*commit abc1234$' \
    && sed -n 2p "$r" | grep -qF '$ echo hello; echo oops >&2; exit 3' \
    && grep -q '^hello$' "$r" && grep -q '^oops$' "$r" && tail -n1 "$r" | grep -q '^# exit status 3 (' \
    && grep -q '^hello$' "$s/8_Debugging/fake/README.md" && [ -f "$s/out/8_Debugging/fake/reports/hello.txt" ]; then ok
else bad "capture.sh did not write the report, its header and exit status, the README and the copy (exit $rc): $(cat "$r" 2>&1)"; fi

# four_tools.sh with a stand-in compute-sanitizer that fails racecheck
mkdir -p "$tmp/fakecs"
printf '#!/bin/sh\necho "ran: $*"\n[ "$2" = racecheck ] && exit 1\nexit 0\n' >"$tmp/fakecs/compute-sanitizer"
chmod +x "$tmp/fakecs/compute-sanitizer"
out=$(PATH=$tmp/fakecs:$PATH 8_Debugging/four_tools.sh bin/x --quick); rc=$?
if [ $rc -eq 1 ] && grep -q '^ran: --tool memcheck --leak-check full --error-exitcode 1 bin/x --quick$' <<<"$out" \
    && grep -q '^ran: --tool racecheck --racecheck-report all --error-exitcode 1 bin/x --quick$' <<<"$out" \
    && grep -q '^ran: --tool initcheck --error-exitcode 1 bin/x --quick$' <<<"$out" \
    && grep -q '^ran: --tool synccheck --error-exitcode 1 bin/x --quick$' <<<"$out" \
    && grep -q '^# racecheck: exit status 1$' <<<"$out" \
    && grep -q '^\$ compute-sanitizer --tool memcheck --leak-check full --error-exitcode 1 bin/x --quick$' <<<"$out"; then ok
else bad "four_tools.sh: wrong flags or exit status ($rc): $out"; fi

# ---- mutants: binary and a find that occurs exactly once -----------------
for dir in $cases; do
    c=$(basename "$dir")
    problems=$(perl -e '
        my ($dir, $case) = @ARGV;
        open(my $fh, "<", "$dir/mutants") or die "no mutants file\n";
        my (@m, %cur);
        my $flush = sub { push @m, {%cur} if exists $cur{mutant}; %cur = (); };
        while (my $l = <$fh>) {
            chomp $l;
            next if $l =~ /^#/;
            if ($l =~ /^\s*$/) { $flush->(); next; }
            my ($k, $v) = $l =~ /^([a-z]+):\s?(.*)$/ or next;
            $flush->() if $k eq "mutant";
            $cur{$k} = $v;
        }
        $flush->();
        print "no mutants\n" unless @m;
        my %seen;
        for my $x (@m) {
            my $name = $x->{mutant};
            print "$name: duplicate name\n" if $seen{$name}++;
            print "$name: binary is not ${case}_fixed\n" unless ($x->{binary} // "") eq "${case}_fixed";
            for my $k (qw(what file find)) { print "$name: no $k\n" unless defined $x->{$k}; }
            next unless defined $x->{file} && defined $x->{find};
            (my $find = $x->{find}) =~ s/\\(n|t|\\)/$1 eq "n" ? "\n" : $1 eq "t" ? "\t" : "\\"/ge;
            open(my $src, "<", "$dir/$x->{file}") or do { print "$name: no file $x->{file}\n"; next };
            local $/; my $text = <$src>;
            my $count = () = $text =~ /\Q$find\E/g;
            print "$name: find occurs $count times in $x->{file}\n" unless $count == 1;
        }
        print scalar(@m) < 4 ? "fewer than 4 mutants\n" : "";
    ' "$dir" "$c" 2>&1)
    if [ -z "$problems" ]; then ok; else bad "$dir/mutants: $problems"; fi
done

echo "debugging tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
