#!/usr/bin/env bash
# test_cli.sh: the command line is the same in every binary (common/options.h).
# Every sample, and both forms of every 8_Debugging case, is held to each rule;
# a sample gets them all by using opts_parse_or_exit, and a rule that needs the
# sample's help (the --variant choices) is read from its --help.
#   - -h is --help; -h or --help anywhere on the line wins (exit 0, the usage),
#     even after a bad option, a stray word or a repeated option
#   - --help documents the value forms (--name=VALUE or --name VALUE, each at
#     most once) and the integers (K = KiB = 1024, 1MiB, 4G+1)
#   - the space form works (--device x is read as --device=x) and never takes
#     the next option for a value
#   - a repeated option is refused, naming it
#   - an unknown option suggests the closest (each listed option, its first
#     letter doubled), or lists the options when nothing is close
#   - 1KiB is 1024 (--device=1KiB is out of range, not "not an integer"); 1KB is refused
#   - with --json on the line, a bad argument's closing line is a JSON record
#   - a "Variants:" list in --help only with a --variant option;
#   - --variant: choices listed in --help, starting "all|"; an unknown name is
#     refused listing them all, a typo gets the closest; --variant=cpu is the
#     CPU baseline only (with the reference): accepted where cpu is a choice
#     (WAIVED without a GPU; with one, its records are cpu and the references,
#     which also run under any other --variant, which never reports cpu), and
#     refused as "no CPU baseline" where it is not
# A first-lesson sample may declare a minimal command line instead (a
# cli.minimal file in its folder, which says why and lists what it accepts):
# it is held to the rules that file states, below (minimal_rules), and only a
# sample whose .cu files are at most 120 lines and do not use options.h may
# declare one.
# Ends with "cli tests: N passed, M failed".
set -u
cd "$(dirname "$0")/.."

JSON_CHECK=build/tests/json_check
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

if [ -z "${HAVE_GPU:-}" ]; then
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then HAVE_GPU=1; else HAVE_GPU=0; fi
fi
QUICK_TIMEOUT=${QUICK_TIMEOUT:-300}

# The programs: every sample, and both forms of every 8_Debugging case.
programs=
declare -A minimal_of   # program -> its cli.minimal, for those that declare one
for dir in $(MAKEFLAGS= make -s --no-print-directory list 2>/dev/null); do
    programs="$programs $(basename "$dir")"
    [ -f "$dir/cli.minimal" ] && minimal_of[$(basename "$dir")]=$dir/cli.minimal
done
[ -n "$programs" ] || bad "no samples found (make list)"
for dir in $(MAKEFLAGS= make -s --no-print-directory list-cases 2>/dev/null); do
    programs="$programs $(basename "$dir")_buggy $(basename "$dir")_fixed"
done
programs=${CLI_PROGRAMS:-$programs}   # CLI_PROGRAMS="vectorAdd": only those

# run NAME ARGS...: exit status in $rc, stdout in $tmp/out, stderr in $tmp/err
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

# refused NAME WHAT MUST-MENTION ARGS...: exit 1, stderr mentions the text,
# the last line of stdout is "NAME: FAIL ..."
refused() {
    local name=$1 what=$2 mention=$3
    shift 3
    run "bin/$name" "$@"
    if [ $rc -ne 1 ]; then bad "$name $*: $what: exit $rc, want 1"; return 1; fi
    if ! grep -qF -- "$mention" "$tmp/err"; then
        bad "$name $*: $what: stderr does not say '$mention': $(head -c 300 "$tmp/err")"; return 1
    fi
    if ! tail -n1 "$tmp/out" | grep -q "^$name: FAIL"; then
        bad "$name $*: $what: last line is not '$name: FAIL ...'"; return 1
    fi
    ok
}

# minimal_rules NAME FILE: a program that declares a minimal command line in
# FILE (cli.minimal) is held to what FILE says: help wins anywhere and names
# what it accepts, everything else is refused by name, and what it accepts
# runs (WAIVED without a GPU, PASS with one). Only a short sample that does not
# use common/options.h may declare it.
minimal_rules() {
    local name=$1 file=$2 dir lines accepts line a
    dir=$(dirname "$file")
    lines=$(cat "$dir"/*.cu | wc -l)
    if [ "$lines" -le 120 ] && ! grep -q 'options\.h' "$dir"/*.cu; then ok
    else bad "$name: declares a minimal command line ($file) but its .cu files have $lines lines (at most 120) or use options.h"; fi
    accepts=$(sed -n 's/^accepts:[[:space:]]*//p' "$file")
    if [ -n "$accepts" ]; then ok; else bad "$file: no 'accepts:' line"; fi

    run "bin/$name" --help
    cp "$tmp/out" "$tmp/help"
    local missing=
    for a in -h --help $accepts; do
        grep -qF -- "${a%%=*}" "$tmp/help" || missing="$missing ${a%%=*}"
    done
    if [ $rc -eq 0 ] && [ -z "$missing" ]; then ok
    else bad "$name --help: exit $rc, does not name:$missing"; fi
    for line in "-h" "--quick -h" "--bogus-option --help" "stray -h" "--json --help" "--variant=no_such -h"; do
        # shellcheck disable=SC2086  # the words of $line are the arguments
        run "bin/$name" $line
        if [ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/help"; then ok
        else bad "$name $line: exit $rc, or not the --help text (help must win anywhere)"; fi
    done
    for a in --json --reps=3 --device=0 --seed=1 --quick=yes stray --bogus-option --variant=no_such_variant; do
        refused "$name" "not accepted (cli.minimal)" "$a" $accepts "$a"
    done
    # shellcheck disable=SC2086  # accepts is a list of options
    timeout "$QUICK_TIMEOUT" "bin/$name" $accepts >"$tmp/out" 2>"$tmp/err"; rc=$?
    last=$(tail -n1 "$tmp/out")
    if [ "$HAVE_GPU" = 0 ] && [ $rc -eq 2 ] && [[ "$last" == "$name: WAIVED ("* ]]; then ok
    elif [ "$HAVE_GPU" = 1 ] && [ $rc -eq 0 ] && [ "$last" = "$name: PASS" ]; then ok
    else bad "$name $accepts: exit $rc, last line '$last' (GPU: $HAVE_GPU; want WAIVED without one, PASS with one)"; fi
}

# The variants in RESULT lines of $tmp/out, one per line, sorted and unique.
variants_of() { sed -nE 's/^RESULT sample=[^ ]+ variant=([^ ]+).*/\1/p' "$tmp/out" | sort -u; }

for name in $programs; do
    bin=bin/$name
    if [ ! -x "$bin" ]; then bad "$name: $bin not built"; continue; fi
    if [ -n "${minimal_of[$name]:-}" ]; then minimal_rules "$name" "${minimal_of[$name]}"; continue; fi

    # ---- help ------------------------------------------------------------
    run "$bin" --help
    cp "$tmp/out" "$tmp/help"
    missing=
    for must in '-h, --help' '--device' '--json' '--name=VALUE or --name VALUE' 'at most once' \
                'K = KiB = 1024' '1MiB' '4G+1'; do
        grep -qF -- "$must" "$tmp/help" || missing="$missing '$must'"
    done
    if [ $rc -eq 0 ] && [ -z "$missing" ]; then ok
    else bad "$name --help: exit $rc, missing:$missing"; fi

    for line in "-h" "--quick -h" "--bogus-option --help" "stray -h" "--reps=0 --help" \
                "--json --json --help" "--device --help" "-n=3 -h"; do
        # shellcheck disable=SC2086  # the words of $line are the arguments
        run "$bin" $line
        if [ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/help"; then ok
        else bad "$name $line: exit $rc, or not the --help text (help must win anywhere)"; fi
    done

    # ---- value forms, repeats ----------------------------------------------
    refused "$name" "space form" "--device=x" --device x
    refused "$name" "missing value" "--device needs a value" --device
    refused "$name" "an option is not a value" "--device needs a value" --device --quick
    refused "$name" "repeated option" "--quick given twice" --quick --quick
    refused "$name" "repeated option" "--device given twice" --device=0 --device 0

    # ---- suggestions ---------------------------------------------------------
    # every option --help lists, its first letter doubled: the closest is itself
    while read -r opt; do
        typo="${opt:0:1}$opt"
        refused "$name" "typo of --$opt" "did you mean --$opt?" "--$typo=1"
    done < <(sed -nE 's/^  (-h, )?--([a-z0-9][a-z0-9-]*).*/\2/p' "$tmp/help" | sort -u)
    refused "$name" "nothing close" "the options are: --help --device" --bogus-option

    # ---- integers --------------------------------------------------------------
    refused "$name" "1KiB is 1024" "out of range" --device=1KiB
    refused "$name" "no decimal units" "K = 1024" --device=1KB

    # ---- --json: a bad argument's closing line is JSON too -------------------------
    run "$bin" --json --bogus-option
    if [ $rc -eq 1 ] && [ -x "$JSON_CHECK" ] && "$JSON_CHECK" --lines "$tmp/out" \
        && tail -n1 "$tmp/out" | grep -q '"status":"FAIL"'; then ok
    else bad "$name --json --bogus-option: exit $rc or stdout is not JSON ending in a FAIL record: $(tail -n1 "$tmp/out")"; fi

    # ---- --variant ----------------------------------------------------------------
    vline=$(grep -E '^  --variant=' "$tmp/help" | head -n1)
    # the help matches the options: a "Variants:" list only where --variant picks them
    if [ -z "$vline" ] && grep -q '^Variants:' "$tmp/help"; then
        bad "$name --help lists 'Variants:' but has no --variant option to pick one"
    fi
    [ -n "$vline" ] || continue
    choices=$(sed -nE 's/.*\((all\|[^;)]*); default [^)]*\)$/\1/p' <<<"$vline")
    if [ -z "$choices" ]; then
        bad "$name --help: the --variant line lists no choices starting 'all|': $vline"; continue
    fi
    ok
    if grep -q -- '^--variant: all (the default)' "$tmp/help"; then ok
    else bad "$name --help: no '--variant: all (the default) ...' paragraph"; fi
    refused "$name" "unknown variant" "$choices" --variant=no_such_variant
    last=${choices##*|}
    refused "$name" "typo of a variant" "did you mean $last?" "--variant=${last:0:1}$last"
    refused "$name" "typo of a variant" "$choices" "--variant=${last:0:1}$last"

    if [[ "|$choices|" != *"|cpu|"* ]]; then
        # no CPU baseline: refused, and none listed in --help's variants or reported
        refused "$name" "no CPU baseline" "has no CPU baseline" --variant=cpu
        if grep -qE '^  cpu ' "$tmp/help"; then
            bad "$name --help lists a cpu variant, but cpu is not a --variant choice ($choices)"
        else ok; fi
        if [ "$HAVE_GPU" = 1 ]; then
            timeout "$QUICK_TIMEOUT" "$bin" --quick >"$tmp/out" 2>"$tmp/err"
            if variants_of | grep -qx cpu; then
                bad "$name reports variant=cpu, but cpu is not a --variant choice ($choices)"
            else ok; fi
        fi
        continue
    fi
    if [ "$HAVE_GPU" = 0 ]; then
        run "$bin" --variant=cpu --quick
        if [ $rc -eq 2 ] && tail -n1 "$tmp/out" | grep -q "^$name: WAIVED ("; then ok
        else bad "$name --variant=cpu --quick without GPU: exit $rc (want 2, WAIVED: accepted)"; fi
        continue
    fi
    timeout "$QUICK_TIMEOUT" "$bin" --variant=cpu --quick >"$tmp/out" 2>"$tmp/err"; rc=$?
    with_cpu=$(variants_of)
    if [ $rc -eq 0 ] && grep -qx cpu <<<"$with_cpu"; then ok
    else bad "$name --variant=cpu --quick: exit $rc, variants: $(echo $with_cpu)"; continue; fi
    refs=$(grep -vx cpu <<<"$with_cpu")
    other=
    IFS='|' read -ra names <<<"$choices"
    for c in "${names[@]}"; do
        [ "$c" = all ] || [ "$c" = cpu ] || grep -qx -- "$c" <<<"$refs" || { other=$c; break; }
    done
    [ -n "$other" ] || { bad "$name: every variant ran under --variant=cpu: $(echo $with_cpu)"; continue; }
    timeout "$QUICK_TIMEOUT" "$bin" --variant="$other" --quick >"$tmp/out" 2>"$tmp/err"; rc=$?
    with_other=$(variants_of)
    lost=$(comm -23 <(echo "$refs" | sed '/^$/d') <(echo "$with_other"))
    if [ $rc -eq 0 ] && grep -qx -- "$other" <<<"$with_other" && ! grep -qx cpu <<<"$with_other" \
        && [ -z "$lost" ]; then ok
    else bad "$name: --variant=cpu ran $(echo $with_cpu); --variant=$other (exit $rc) ran $(echo $with_other): want $other, no cpu, and the references ($(echo $refs)) in both"; fi
done

echo "cli tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
