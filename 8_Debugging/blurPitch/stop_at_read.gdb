# cuda-gdb batch script for blurPitch (README.md, "Stop there with cuda-gdb").
# Run on a -G build:
#   make -C 8_Debugging/blurPitch dbg
#   cuda-gdb -batch -x 8_Debugging/blurPitch/stop_at_read.gdb --args bin/dbg/blurPitch_buggy --quick
# It stops at the read memcheck reports (blurPitch.cu:59) in a thread whose
# index reaches the end of the ROI buffer (row 7, column 868), and prints
# what the index is made of. A test checks that the line below is the one
# marked "REPORTED:" in blurPitch.cu.
#
# The condition names the kernel's variables (yy, xx), which exist only once
# the kernel's code is loaded: set before `run`, the breakpoint fails with
# 'No symbol "yy" in current context.' (the first capture shows it). So stop
# at the kernel's launch first, then set the breakpoint and continue.
set pagination off
set confirm off
set cuda break_on_launch application
run
set cuda break_on_launch none
break blurPitch.cu:59 if yy == 7 && xx == 868
continue
bt
info cuda kernels
print x
print y
print in_row
print out_row
print h
print (size_t)yy * in_row + xx
print (size_t)h * out_row
kill
quit
