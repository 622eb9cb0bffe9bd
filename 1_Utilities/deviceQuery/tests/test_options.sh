#!/usr/bin/env bash
# test_options.sh: deviceQuery's --help tells the truth about its options.
#   - without --device every device is shown: the --device line says so, and
#     does not promise "default 0" or "in turn"
#   - --json is one JSON document, not JSON lines
#   - --reps, --seed, --quick mean nothing here: none is listed; --reps and
#     --seed are refused by name; --quick is accepted (every harness passes it)
#   - with a GPU: stdout of --json (with or without --device=0) is exactly one
#     valid JSON document whose last key is "status", and a --device past the
#     last device is refused with a JSON FAIL record under --json
# Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/../../.."
bin=bin/deviceQuery
JSON_CHECK=build/tests/json_check
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

if [ ! -x "$bin" ]; then
    echo "FAIL: $bin not built"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ -z "${HAVE_GPU:-}" ]; then
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then HAVE_GPU=1; else HAVE_GPU=0; fi
fi

"$bin" --help >"$tmp/help" 2>&1 || bad "--help: exit $?"
device_line=$(grep -E '^  --device=' "$tmp/help")
json_line=$(grep -E '^  --json ' "$tmp/help")
if grep -q 'every device' <<<"$device_line" && ! grep -qE 'default 0|in turn' <<<"$device_line"
then ok; else bad "the --device line does not say that every device is the default: $device_line"; fi
if grep -q 'one JSON document' <<<"$json_line" && ! grep -q 'JSON lines' <<<"$json_line"
then ok; else bad "the --json line does not say one JSON document: $json_line"; fi
for opt in --reps --seed --quick; do
    if grep -qE "^  $opt" "$tmp/help"; then bad "--help lists $opt, which means nothing here"; else ok; fi
done
for arg in --reps=3 --seed=3; do
    "$bin" "$arg" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 1 ] && grep -qF -- "${arg%%=*} means nothing to deviceQuery" "$tmp/err"; then ok
    else bad "deviceQuery $arg: exit $rc, $(head -c 200 "$tmp/err") (want it refused by name)"; fi
done
"$bin" --quick >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 2 ]; then ok; else bad "deviceQuery --quick: exit $rc (want it accepted)"; fi

if [ "$HAVE_GPU" = 1 ]; then
    for args in "--json" "--json --device=0" "--json --device=all"; do
        # shellcheck disable=SC2086
        "$bin" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
        if [ $rc -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && "$JSON_CHECK" "$tmp/out" \
            && grep -q '"status":"PASS"}$' "$tmp/out"; then ok
        else bad "deviceQuery $args: exit $rc, or stdout is not one JSON document ending in status"; fi
    done
    "$bin" --json --device=1023 >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 1 ] && "$JSON_CHECK" --lines "$tmp/out" && grep -q '"status":"FAIL"' "$tmp/out"; then ok
    else bad "deviceQuery --json --device=1023: exit $rc, stdout: $(head -c 200 "$tmp/out")"; fi
fi

echo "deviceQuery option tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
