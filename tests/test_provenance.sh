#!/usr/bin/env bash
# test_provenance.sh: every text file under results/ says where it came from
# (docs/CONVENTIONS.md, "Evidence from the GPU"): within its first 12 lines,
# '#' lines naming a date (YYYY-MM-DD) and the commit (or git revision) of the
# run. JSON files are the twins of a text file of the same run and are not
# checked here. Ends with "provenance tests: N passed, M failed".
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
while IFS= read -r f; do
    head=$(head -n 12 "$f")
    if grep -qE '^#.*[0-9]{4}-[0-9]{2}-[0-9]{2}' <<<"$head" && grep -qE '^#.*(commit|git)[: ]' <<<"$head"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $f does not start with its provenance (# date ..., # commit ...)"
    fi
done < <(find results -type f -name '*.txt' | sort)
echo "provenance tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
