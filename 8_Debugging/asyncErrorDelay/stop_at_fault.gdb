# cuda-gdb batch script for asyncErrorDelay (README.md, "cuda-gdb stops at the fault").
# Run on a -G build:
#   make -C 8_Debugging/asyncErrorDelay dbg
#   cuda-gdb -batch -x 8_Debugging/asyncErrorDelay/stop_at_fault.gdb --args bin/dbg/asyncErrorDelay_buggy --quick
# No breakpoint: the GPU's exception stops the program in the faulting WARP,
# at the faulting line. The exception is the warp's, not a thread's: the
# focus lands on a lane of that warp (the first capture: lane 0, whose index
# was a valid one), not necessarily on the thread whose read faulted. So:
# print the focus thread's index, then the 32 indices of its warp, then find
# the lane whose index is the sentinel and switch the focus to its thread
# (BLOCK = 256 threads per block: the thread is (first + lane) % 256).
set pagination off
set confirm off
run
bt
info cuda kernels
print i
print k
print idx[i - i % 32]@32
set $first = i - i % 32
set $lane = 0
set $bad = -1
while $lane < 32
  if $bad < 0 && idx[$first + $lane] == 4294967295
    set $bad = $lane
  end
  set $lane = $lane + 1
end
print $bad
eval "cuda thread (%d,0,0)", ($first + $bad) % 256
print i
print k
print idx[i]
print n
kill
quit
