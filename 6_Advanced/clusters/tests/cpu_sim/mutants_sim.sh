#!/bin/sh
# mutants_sim.sh [NAME...]: the planted bugs of ../../mutants that touch the
# histogram kernels (kernels/00 to 07), each applied to a copy of the sample
# and run in the CPU simulation (run.sh --sample=COPY); each must end in
# SIM FAIL. The mutants of clusters.cu (the launcher) and of the probe (dsmem_probe.cuh)
# are listed as not simulated. Exit 0 when every simulated mutant is caught.
# The work is done by tests/support/mutants_sim.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../../../../tests/support/mutants_sim.sh" "$here/../.." --kernels-only "$@"
