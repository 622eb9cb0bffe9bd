# common/lib.mk: the common layer as one static library, compiled once and
# linked by every sample, tool and test program.
#
# Include it after your makefile's default target (it defines targets). It
# gives COMMON_LIB, a rule that keeps it current, and FORCE. The library lives
# under ROOT, never under BINDIR or BUILDDIR: planted-bug copies of a sample
# built elsewhere (tools/mutants.sh) link the same library.
#
# Every maker of a program asks common/common.mk to bring the library up to
# date (a no-op when it is), under a lock, so sample folders built at the same
# time (make -j, or several mutant builds) never compile it twice at once.
# A changed common .c or header recompiles the objects that depend on it
# (gcc -MMD), the archive is rebuilt, and every program that links it relinks.

COMMON_LIB := $(ROOT)/build/common/libcommon.a
COMMON_LOCK := $(if $(shell command -v flock 2>/dev/null),flock $(ROOT)/build/.common.lock)

$(COMMON_LIB): FORCE
	+@mkdir -p $(ROOT)/build && $(COMMON_LOCK) $(MAKE) --no-print-directory -f $(ROOT)/common/common.mk ROOT=$(ROOT) lib

.PHONY: FORCE
FORCE:
