#!/usr/bin/env bash
# build_tool.sh DIR: build one 9_Verification tool (what `make` does for each).
# A tool that fails to build must not stop the samples: its output goes to
# build/tools/<tool>.log, and on failure the reason (the first error line,
# plus the tool's own hint when its Makefile has a "# needs: ..." line) is
# written to build/tools/<tool>.skipped, which `make run` and `make test`
# report (the tool's tests are skipped too). Exit 0 either way, unless
# REQUIRE_TOOLS=1 (CI), where a skipped tool is an error.
# A successful build removes the .skipped file.
set -u
dir=${1:?usage: build_tool.sh 9_Verification/<tool>}
cd "$(dirname "$0")/.." || exit 1
name=$(basename "$dir")
mkdir -p build/tools
log=build/tools/$name.log
skip=build/tools/$name.skipped

if ${MAKE:-make} -C "$dir" >"$log" 2>&1; then
    cat "$log"
    rm -f "$skip"
    exit 0
fi

# The first line that says what went wrong: a compiler's or linker's error,
# else make's own, else the last line of the log.
reason=$(grep -m1 -E '(fatal error|error):|undefined reference|cannot find -l|No such file' "$log" ||
         grep -m1 -E '\*\*\*' "$log" || tail -n1 "$log")
reason=$(printf '%s' "$reason" | sed -E "s|$PWD/||g; s/^[[:space:]]+//" | cut -c1-200)
needs=$(sed -n 's/^# needs: //p' "$dir/Makefile" | head -n1)
[ -n "$needs" ] && reason="$reason; it needs $needs"
printf '%s\n' "$reason" >"$skip"
tail -n 15 "$log"
echo "$name: SKIPPED, the build failed: $reason"
echo "$name: the samples do not need it and are built and run without it; full log: $log"
if [ "${REQUIRE_TOOLS:-0}" = 1 ]; then
    echo "$name: REQUIRE_TOOLS=1: a tool that does not build is an error"
    exit 1
fi
exit 0
