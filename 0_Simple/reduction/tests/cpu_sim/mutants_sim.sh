#!/bin/sh
# mutants_sim.sh [NAME...]: the planted bugs of ../../mutants (or those named),
# each applied to a copy of the sample (its folder and common/) and run in the
# CPU simulation (run.sh --quick, the variant its args name); each must end
# in SIM FAIL. A CPU stand-in for `make mutants` on a machine without a GPU:
# it shows that the simulation sees each bug, not that the GPU build fails
# the same way. Not simulated (said so, not counted): the bugs that only
# exist at n >= 2^28 (the simulation's sizes are small) and the one in
# main's buffer sizing (the simulation sizes its own buffers).
# Exit 0 when every simulated mutant is caught. Several minutes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sample=$(cd "$here/../.." && pwd)
root=$(cd "$sample/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/reduction_mutants_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
skip="zero_result_2p28 truncated_n_2p31 partial_buffer_too_small"
python3 - "$sample/mutants" "$work/list" "$@" <<'PY' || exit 1
import sys
mfile, out, only = sys.argv[1], sys.argv[2], sys.argv[3:]
def unesc(s):
    r, i = [], 0
    while i < len(s):
        if s[i] == '\\' and i + 1 < len(s) and s[i + 1] in 'nt\\':
            r.append({'n': '\n', 't': '\t', '\\': '\\'}[s[i + 1]]); i += 2
        else:
            r.append(s[i]); i += 1
    return ''.join(r)
muts, cur, run = [], None, '--quick'
for line in open(mfile).read().split('\n'):
    if line.startswith('#'): continue
    if line.strip() == '': cur = None; continue
    key, _, val = line.partition(':')
    val = val[1:] if val.startswith(' ') else val
    if key == 'run' and cur is None: run = val.split(' #')[0].strip(); continue
    if key == 'mutant': cur = {'name': val.strip(), 'args': run}; muts.append(cur); continue
    if cur is not None: cur[key] = val if key in ('find', 'replace') else val.split(' #')[0].strip()
with open(out, 'w') as f:
    for m in muts:
        if only and m['name'] not in only: continue
        v = [a.split('=', 1)[1] for a in m['args'].split() if a.startswith('--variant=')]
        f.write('%s\t%s\t%s\t%s\t%s\n' % (m['name'], m['file'], v[0] if v else '',
                                          repr(unesc(m['find'])), repr(unesc(m.get('replace', '')))))
PY
caught=0
missed=0
skipped=0
while IFS="$(printf '\t')" read -r name file variant find replace; do
    case " $skip " in *" $name "*) skipped=$((skipped + 1)); echo "not simulated  $name"; continue ;; esac
    m=$work/$name
    mkdir -p "$m/0_Simple"
    cp -r "$root/common" "$m/common"
    cp -r "$sample" "$m/0_Simple/reduction"
    python3 - "$m/0_Simple/reduction/$file" "$find" "$replace" <<'PY' || { missed=$((missed + 1)); echo "STALE  $name"; continue; }
import ast, sys
p, f, r = sys.argv[1], ast.literal_eval(sys.argv[2]), ast.literal_eval(sys.argv[3])
t = open(p).read()
if t.count(f) != 1: sys.exit(1)
open(p, 'w').write(t.replace(f, r))
PY
    sh "$here/run.sh" --src="$m/0_Simple/reduction/reduction.cu" --quick $variant >"$m.log" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q '^SIM FAIL' "$m.log"; then
        caught=$((caught + 1))
        echo "caught  $name: $(grep -m1 '^SIM FAIL' "$m.log" | cut -c11-220)"
    else
        missed=$((missed + 1))
        echo "MISSED  $name: exit $rc, last line '$(tail -n1 "$m.log")'"
    fi
    rm -rf "$m"
done <"$work/list"
echo "mutants in the CPU simulation: $caught caught, $missed missed, $skipped not simulated"
[ "$missed" -eq 0 ]
