#!/bin/sh
# mutants_sim.sh [NAME...]: apply each planted bug of ../../mutants (or those
# named) to a copy of the sample folder and run the CPU simulation (run.sh
# --sample=COPY) on it, for the variant its args name; each must end in SIM
# FAIL. A CPU stand-in for `make mutants` on a machine without a GPU: it
# shows that the checks see each bug's effect, not that the GPU build fails
# the same way. Left out by default (named, they run and are MISSED): the
# two mutants whose bug needs more elements than the simulation runs,
# offsets_32bit_index (2^31+1) and sums_carry_dropped (2^22+1).
# Exit 0 when every mutant run is caught. Takes a few minutes.
# The work is done by tests/support/mutants_sim.sh (blur and histogram share it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
    set -- $(sed -n 's/^mutant: //p' "$here/../../mutants" | grep -v -x -e offsets_32bit_index -e sums_carry_dropped)
fi
exec sh "$here/../../../../tests/support/mutants_sim.sh" "$here/../.." "$@"
