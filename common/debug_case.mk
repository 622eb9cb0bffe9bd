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
# BINDIR= and BUILDDIR= move the outputs (as in sample.mk; tools/mutants.sh
# builds planted-bug copies this way). Host code gets -g as well, so the host
# frames of a leak report carry file:line; device code is -O3 -lineinfo as
# everywhere (dbg=1: -G).

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
include $(ROOT)/common/arch.mk

CASE ?= $(notdir $(CURDIR))
SRC ?= $(CASE).cu
BINDIR ?= $(ROOT)/bin
BUILDDIR ?= $(ROOT)/build
OBJDIR := $(BUILDDIR)/8_Debugging/$(CASE)
BINS := $(BINDIR)/$(CASE)_buggy $(BINDIR)/$(CASE)_fixed

# lineinfo=0 drops -lineinfo (the `nolineinfo` build). The cases include
# common/debug_case.h, which names the form ("buggy" or "fixed").
ifeq ($(lineinfo),0)
  CASE_NVCCFLAGS := $(filter-out -lineinfo,$(NVCCFLAGS))
else
  CASE_NVCCFLAGS := $(NVCCFLAGS)
endif
CASE_NVCCFLAGS += -g

COMMON_SRCS := $(wildcard $(ROOT)/common/*.c)
COMMON_OBJS := $(patsubst $(ROOT)/common/%.c,$(OBJDIR)/common/%.o,$(COMMON_SRCS))

.PHONY: all clean dbg nolineinfo
.SECONDARY: $(COMMON_OBJS)
all: $(BINS)

$(BINDIR)/$(CASE)_buggy: $(OBJDIR)/buggy.o $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(NVCC) $(GENCODE) -o $@ $^ -ldl

$(BINDIR)/$(CASE)_fixed: $(OBJDIR)/fixed.o $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(NVCC) $(GENCODE) -o $@ $^ -ldl

$(OBJDIR)/buggy.o: $(SRC)
	@mkdir -p $(dir $@)
	$(NVCC) $(CASE_NVCCFLAGS) -MMD -MP -c $< -o $@

$(OBJDIR)/fixed.o: $(SRC)
	@mkdir -p $(dir $@)
	$(NVCC) $(CASE_NVCCFLAGS) -DFIXED=1 -MMD -MP -c $< -o $@

$(OBJDIR)/common/%.o: $(ROOT)/common/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

dbg:
	$(MAKE) dbg=1 BINDIR=$(BINDIR)/dbg BUILDDIR=$(BUILDDIR)/dbg

nolineinfo:
	$(MAKE) lineinfo=0 BINDIR=$(BINDIR)/nolineinfo BUILDDIR=$(BUILDDIR)/nolineinfo

clean:
	rm -rf $(BINS) $(OBJDIR) $(BINDIR)/dbg/$(CASE)_buggy $(BINDIR)/dbg/$(CASE)_fixed \
	    $(BINDIR)/nolineinfo/$(CASE)_buggy $(BINDIR)/nolineinfo/$(CASE)_fixed \
	    $(BUILDDIR)/dbg/8_Debugging/$(CASE) $(BUILDDIR)/nolineinfo/8_Debugging/$(CASE)

-include $(OBJDIR)/buggy.d $(OBJDIR)/fixed.d $(COMMON_OBJS:.o=.d)
