# kgate unit tests: the static track links libclang (Debian's libclang-19-dev).
# LLVM_PREFIX points at another copy (e.g. one unpacked on a machine without apt).
LLVM_PREFIX ?= /usr/lib/llvm-19
kgate_TEST_CFLAGS := -I$(LLVM_PREFIX)/include
kgate_TEST_LDLIBS := -L$(LLVM_PREFIX)/lib -Wl,-rpath,$(LLVM_PREFIX)/lib -lclang
