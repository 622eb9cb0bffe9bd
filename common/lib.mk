# common/lib.mk: the common layer as one static library, compiled once and
# linked by every sample, 8_Debugging case, tool and test program.
#
# Include it after your makefile's default target (it defines targets). It
# gives COMMON_LIB, a rule that keeps it current, and FORCE. The library is
# $(BUILDDIR)/common/libcommon.a: build/common/ by default, and with
# BUILDDIR= (a planted-bug copy of a sample built by tools/mutants.sh, a
# scratch build of tools/compile_commands.sh) it goes with the other objects,
# so such a build writes nothing into the tree it builds from.
#
# Every maker of a program asks common/common.mk to bring the library up to
# date (a no-op when it is), under a lock, so folders built at the same
# time (make -j) never compile it twice at once.
# A changed common .c or header recompiles the objects that depend on it
# (gcc -MMD), the archive is rebuilt, and every program that links it relinks.

# COMMON_LIB_DIR=DIR links a library kept elsewhere (debug_case.mk's dbg and
# nolineinfo builds share the default build's: the common layer is host code,
# compiled alike for every flavor).
BUILDDIR ?= $(ROOT)/build
COMMON_LIB_DIR ?= $(BUILDDIR)/common
COMMON_LIB := $(COMMON_LIB_DIR)/libcommon.a
COMMON_LOCK := $(if $(shell command -v flock 2>/dev/null),flock $(COMMON_LIB_DIR).lock)

$(COMMON_LIB): FORCE
	+@mkdir -p $(COMMON_LIB_DIR) && $(COMMON_LOCK) $(MAKE) --no-print-directory -f $(ROOT)/common/common.mk \
	    ROOT=$(ROOT) LIB_DIR=$(COMMON_LIB_DIR) lib

.PHONY: FORCE
FORCE:
