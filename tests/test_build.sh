#!/usr/bin/env bash
# test_build.sh: the build system's promises (README.md, "Two commands").
#   - SMS is validated against nvcc --list-gpu-arch with a clear message
#   - SMS="80 90" builds machine code for both, PTX for the last
#   - dbg=1 adds -G; the default has -O3 -lineinfo
#   - a new sample folder with a .cu, a README and the two-line Makefile is
#     discovered by the top level with nothing else edited
# Ends with "build tests: N passed, M failed".
set -u
unset MAKEFLAGS MFLAGS MAKELEVEL
cd "$(dirname "$0")/.."
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

# A newcomer's sample: one .cu, a README, a two-line Makefile. Discovered,
# built by name from the top, and listed; then removed again.
new=0_Simple/zzNewcomerProbe
rm -rf "$new" && mkdir -p "$new"
cat >"$new/zzNewcomerProbe.cu" <<'CU'
#include "device.h"
#include "options.h"
#include "report.h"
static const opts_config cfg = {"zzNewcomerProbe", "probe", NULL, 0, NULL, 0};
int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    report_init("zzNewcomerProbe", o.json);
    device_info d;
    device_setup_or_exit("zzNewcomerProbe", o.device, o.json, &d);
    return report_finish();
}
CU
printf '# zzNewcomerProbe\n\nA probe.\n' >"$new/README.md"
printf '# zzNewcomerProbe: a probe\ninclude ../../common/sample.mk\n' >"$new/Makefile"
if make -s --no-print-directory list | grep -qx "$new"; then ok; else bad "new sample folder not discovered"; fi
if make -s zzNewcomerProbe >/dev/null 2>&1 && [ -x bin/zzNewcomerProbe ]; then ok
else bad "make zzNewcomerProbe did not build bin/zzNewcomerProbe"; fi
bin/zzNewcomerProbe --quick >/dev/null 2>&1; rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 2 ]; then ok; else bad "new sample exited $rc"; fi
rm -rf "$new" bin/zzNewcomerProbe build/zzNewcomerProbe

echo "build tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
