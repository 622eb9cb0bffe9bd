#!/usr/bin/env bash
# test_layering.sh: no two source files use each other, directly or round a
# cycle, so each can be read (and tested) after the ones it uses:
#   - the sanitizer harness's C files (9_Verification/sanitize/*.c, main.c
#     aside): each compiled on its own, file A uses file B when A's object
#     needs a symbol B's defines (nm);
#   - the Python tools (tools/*.py): A uses B when A imports B.
# The uses of each set must sort (tsort); a cycle fails, naming its files.
# The checker itself is tried on a planted cycle first.
# Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# c_uses DIR FILE...: "A B" for each object A.o that needs a symbol of B.o
c_uses() {
    local dir=$1 f g o
    shift
    for f in "$@"; do
        o=$tmp/$(basename "$dir")_${f%.c}
        gcc -std=c11 -c -Icommon -I"$dir" "$dir/$f" -o "$o.o" 2>"$o.err" || { echo "!compile $f: $(head -n3 "$o.err")"; return; }
        nm "$o.o" | awk '$1 == "U" { print $2 }' | sort -u >"$o.needs"
        nm "$o.o" | awk 'NF == 3 && $2 ~ /[TDRBC]/ { print $3 }' | sort -u >"$o.has"
    done
    for f in "$@"; do
        for g in "$@"; do
            [ "$f" = "$g" ] && continue
            if [ -n "$(comm -12 "$tmp/$(basename "$dir")_${f%.c}.needs" "$tmp/$(basename "$dir")_${g%.c}.has")" ]; then
                echo "${f%.c} ${g%.c}"
            fi
        done
    done
}
# py_uses DIR: "A B" for each module A of DIR that imports a module B of DIR
py_uses() {
    python3 - "$1" <<'EOF'
import ast, os, sys
d = sys.argv[1]
mods = {f[:-3] for f in os.listdir(d) if f.endswith(".py")}
for m in sorted(mods):
    tree = ast.parse(open(os.path.join(d, m + ".py")).read())
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            used |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            used.add(node.module.split(".")[0])
    for u in sorted(used & mods - {m}):
        print(m, u)
EOF
}
# acyclic WHAT: the pairs on stdin sort; else the cycle tsort found is named
acyclic() {
    local pairs err
    pairs=$(cat)
    if grep -q '^!compile' <<<"$pairs"; then bad "$1: $(grep '^!compile' <<<"$pairs")"; return; fi
    if [ -z "$pairs" ]; then bad "$1: no file uses another (the check reads nothing)"; return; fi
    err=$(tsort <<<"$pairs" 2>&1 >/dev/null)
    if [ $? -eq 0 ] && [ -z "$err" ]; then ok
    else bad "$1 use each other in a cycle: $(grep -v 'input contains a loop' <<<"$err" | sed 's/^tsort: //' | tr '\n' ' ')(uses: $(tr '\n' ';' <<<"$pairs"))"; fi
}

# the checker on a planted cycle: a.c uses b.c, b.c uses a.c
mkdir -p "$tmp/plant"
printf 'int b(void);\nint a(void) { return b(); }\n' >"$tmp/plant/a.c"
printf 'int a(void);\nint b(void) { return a() + 1; }\n' >"$tmp/plant/b.c"
printf 'int a(void);\nint c(void) { return a(); }\n' >"$tmp/plant/c.c"
out=$( (c_uses "$tmp/plant" a.c b.c c.c | acyclic "planted") 2>&1)
if grep -q 'planted use each other in a cycle' <<<"$out"; then ok; else bad "the checker missed a planted cycle: $out"; fi
rm "$tmp/plant/b.c"
printf 'int b(void) { return 1; }\n' >"$tmp/plant/b.c"
out=$( (c_uses "$tmp/plant" a.c b.c c.c | acyclic "planted") 2>&1)
if [ -z "$out" ]; then ok; else bad "the checker saw a cycle where there is none: $out"; fi
printf 'import b\n' >"$tmp/plant/a.py"
printf 'from a import x\n' >"$tmp/plant/b.py"
out=$( (py_uses "$tmp/plant" | acyclic "planted") 2>&1)
if grep -q 'planted use each other in a cycle' <<<"$out"; then ok; else bad "the checker missed a planted import cycle: $out"; fi

s=9_Verification/sanitize
acyclic "$s/*.c" < <(c_uses "$s" $(cd "$s" && ls *.c | grep -vx main.c))
acyclic "tools/*.py" < <(py_uses tools)

echo "layering: $pass passed, $fail failed"
[ "$fail" = 0 ]
