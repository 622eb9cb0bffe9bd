#!/bin/sh
# mutants_sim.sh [NAME...]: apply each planted bug of ../../mutants (or those
# named) to a copy of the sample folder and run the CPU simulation (run.sh
# --sample=COPY) on the variant its args name; each must end in SIM FAIL. A
# CPU stand-in for `make mutants` on a machine without a GPU: it shows that
# the checks see each bug's effect, not that the GPU build fails the same
# way. Mutants of histogram.cu itself (the launchers) are not simulated: the
# simulator runs the kernels, not the launchers. A few seconds per mutant.
# Exit 0 when every simulated mutant is caught.
# The work is done by tests/support/mutants_sim.sh, which blur and histogram share.
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../../../../tests/support/mutants_sim.sh" "$here/../.." --kernels-only "$@"
