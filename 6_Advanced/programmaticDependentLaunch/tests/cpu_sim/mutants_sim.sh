#!/bin/sh
# mutants_sim.sh [NAME...]: the planted bugs of ../../mutants that live in
# kernels/ (or those named), each applied to a copy of the sample folder
# and run in the CPU simulation (run.sh --sample=COPY); each must end in
# SIM FAIL. The mutants outside kernels/ (launchers, graphs, checks) are
# listed as not simulated. tests/support/mutants_sim.sh is the engine.
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../../../../tests/support/mutants_sim.sh" "$here/../.." --kernels-only "$@"
