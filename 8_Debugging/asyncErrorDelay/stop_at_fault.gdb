# cuda-gdb batch script for asyncErrorDelay (README.md, "cuda-gdb stops at the fault").
# Run on a -G build:
#   make -C 8_Debugging/asyncErrorDelay dbg
#   cuda-gdb -batch -x 8_Debugging/asyncErrorDelay/stop_at_fault.gdb --args bin/dbg/asyncErrorDelay_buggy --quick
# No breakpoint: the GPU's exception stops the program in the faulting thread,
# at the faulting line; then the backtrace and the index that caused it.
set pagination off
set confirm off
run
bt
info cuda kernels
print i
print k
print idx[i]
print n
kill
quit
