#!/bin/sh
# tests/support/mutants_sim.sh SAMPLE-DIR [--kernels-only] [NAME...]: the
# planted bugs of SAMPLE-DIR/mutants (or those named), each applied to a copy
# of the sample folder and run in its CPU simulation
# (SAMPLE-DIR/tests/cpu_sim/run.sh --sample=COPY, on the variant the
# mutant's args name, every variant when they name none); each must end in
# SIM FAIL. The engine of blur's and histogram's tests/cpu_sim/mutants_sim.sh
# (their simulators take a copy of the folder). --kernels-only: the mutants
# outside kernels/ are listed as not simulated (histogram's simulator runs
# the kernels, not the launchers). The mutants file is the format of
# tools/mutants.sh. Exit 0 when every simulated mutant is caught, 1 when one
# is missed or its find: no longer occurs exactly once, 2 on a bad call.
set -u
if [ $# -lt 1 ] || [ ! -f "$1/mutants" ] || [ ! -f "$1/tests/cpu_sim/run.sh" ]; then
    echo "mutants_sim.sh: usage: mutants_sim.sh SAMPLE-DIR [--kernels-only] [NAME...] (a folder with mutants and tests/cpu_sim/run.sh)"
    exit 2
fi
sample=$(cd "$1" && pwd)
shift
kernels_only=0
if [ "${1:-}" = --kernels-only ]; then kernels_only=1; shift; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$sample")_mutants_sim.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
python3 - "$sample/mutants" "$sample" "$work" "$kernels_only" "$@" <<'PY' || exit 1
import os, shutil, sys
mfile, sample, work, kernels_only, only = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == '1', sys.argv[5:]
def unesc(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == '\\' and i + 1 < len(s):
            out.append({'n': '\n', 't': '\t', '\\': '\\'}.get(s[i + 1], '\\' + s[i + 1])); i += 2
        else:
            out.append(s[i]); i += 1
    return ''.join(out)
muts, cur, run = [], None, ''
for line in open(mfile).read().split('\n'):
    if line.startswith('#'): continue
    if line.strip() == '':
        cur = None; continue
    key, _, val = line.partition(':')
    val = val[1:] if val.startswith(' ') else val
    if key == 'run' and cur is None: run = val.split('#')[0].strip(); continue
    if key == 'mutant': cur = {'name': val.strip(), 'args': run}; muts.append(cur); continue
    if cur is not None: cur[key] = val if key in ('find', 'replace') else val.strip()
bad = 0
for m in muts:
    if only and m['name'] not in only: continue
    if kernels_only and not m['file'].startswith('kernels/'):
        print(f"not simulated  {m['name']} ({m['file']}: the launchers run on the GPU only)")
        continue
    path = os.path.join(sample, m['file'])
    text = open(path).read()
    f, r = unesc(m['find']), unesc(m.get('replace', ''))
    n = text.count(f)
    if n != 1:
        print(f"STALE {m['name']}: find occurs {n} times in {m['file']}"); bad += 1; continue
    variant = ''
    for a in m['args'].split():
        if a.startswith('--variant='): variant = a.split('=', 1)[1]
    copy = os.path.join(work, m['name'])
    shutil.copytree(sample, copy, ignore=shutil.ignore_patterns('tests', 'exercises', '*.md'))
    open(os.path.join(copy, m['file']), 'w').write(text.replace(f, r))
    open(copy + '.variant', 'w').write(variant)
sys.exit(1 if bad else 0)
PY
caught=0
missed=0
for copy in "$work"/*/; do
    [ -d "$copy" ] || continue
    name=$(basename "$copy")
    variant=$(cat "$work/$name.variant")
    # shellcheck disable=SC2086  # no variant: no argument
    sh "$sample/tests/cpu_sim/run.sh" --sample="$copy" $variant >"$work/$name.log" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && tail -n1 "$work/$name.log" | grep -q '^SIM FAIL'; then
        caught=$((caught + 1))
        echo "caught  $name (${variant:-every variant}): $(tail -n1 "$work/$name.log" | cut -c1-150)"
    else
        missed=$((missed + 1))
        echo "MISSED  $name: exit $rc, last line '$(tail -n1 "$work/$name.log")'"
        tail -n5 "$work/$name.log" | sed 's/^/    /'
    fi
done
echo "mutants in the CPU simulation: $caught caught, $missed missed"
[ "$missed" -eq 0 ]
