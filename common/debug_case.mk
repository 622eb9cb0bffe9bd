# common/debug_case.mk: the build rules every 8_Debugging case folder includes.
#
# A case's Makefile is two lines:
#     # blurPitch: a blur that indexes rows with the wrong length (see README.md)
#     include ../../common/debug_case.mk
# One source, <case>.cu, builds twice:
#     bin/<case>_buggy    the bug as a user would meet it
#     bin/<case>_fixed    the same source with -DFIXED=1: the fix
# `make` builds both, `make clean` removes them. Two more builds, for the
# walkthroughs and 8_Debugging/capture.sh, each in folders of its own so
# their objects never mix with the default build's:
#     make dbg            bin/dbg/<case>_{buggy,fixed} with -G (cuda-gdb, locals)
#     make nolineinfo     bin/nolineinfo/<case>_{buggy,fixed} without -lineinfo
#                         (what a sanitizer report looks like without line info)
# The rules are common/sample.mk's, for two programs (PROGRAMS): the common
# library (common/lib.mk), objects per flavor (SMS, dbg) beside a stamp of
# the flags, header dependencies, BINDIR= and BUILDDIR= (tools/mutants.sh
# builds planted-bug copies this way), `make programs`. Host code gets -g as
# well, so the host frames of a leak report carry file:line; device code is
# -O3 -lineinfo as everywhere (dbg=1: -G).

CASE := $(notdir $(CURDIR))
SAMPLE := $(CASE)
PROGRAMS := $(CASE)_buggy $(CASE)_fixed
$(CASE)_buggy_SRCS := $(CASE).cu
$(CASE)_fixed_SRCS := $(CASE).cu
$(CASE)_buggy_NVCCFLAGS := -g
$(CASE)_fixed_NVCCFLAGS := -g -DFIXED=1

include $(dir $(lastword $(MAKEFILE_LIST)))sample.mk

# lineinfo=0 drops -lineinfo (the `nolineinfo` build). The cases include
# common/debug_case.h, which names the form ("buggy" or "fixed").
ifeq ($(lineinfo),0)
  override NVCCFLAGS := $(filter-out -lineinfo,$(NVCCFLAGS))
endif

.PHONY: dbg nolineinfo clean-variants
# Each has a BUILDDIR of its own (nolineinfo shares the default's flavor, and
# both would share its link stamp), and links the default build's library.
dbg:
	+$(MAKE) dbg=1 BINDIR=$(BINDIR)/dbg BUILDDIR=$(BUILDDIR)/dbg COMMON_LIB_DIR=$(COMMON_LIB_DIR)

nolineinfo:
	+$(MAKE) lineinfo=0 BINDIR=$(BINDIR)/nolineinfo BUILDDIR=$(BUILDDIR)/nolineinfo COMMON_LIB_DIR=$(COMMON_LIB_DIR)

clean: clean-variants
clean-variants:
	rm -rf $(addprefix $(BINDIR)/dbg/,$(PROGRAMS)) $(addprefix $(BINDIR)/nolineinfo/,$(PROGRAMS)) \
	    $(BUILDDIR)/dbg/$(CASE) $(BUILDDIR)/nolineinfo/$(CASE)
