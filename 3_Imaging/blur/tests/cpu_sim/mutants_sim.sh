#!/bin/sh
# mutants_sim.sh [NAME...]: apply each planted bug of ../../mutants (or those
# named) to a copy of the sample folder and run the CPU simulation (run.sh
# --sample=COPY) on it, for the variant its args name (every variant when it
# names none); each must end in SIM FAIL. A CPU stand-in for
# `make mutants` on a machine without a GPU: it shows that the checks see
# each bug's effect, not that the GPU build fails the same way (a race, like
# no_syncthreads_after_tile, may pass here by luck of the scheduling).
# Exit 0 when every mutant is caught. Takes a few minutes.
# The work is done by tests/support/mutants_sim.sh, which blur and histogram share.
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../../../../tests/support/mutants_sim.sh" "$here/../.." "$@"
