# common/sample.mk: the build rules every sample folder includes.
#
# A sample's Makefile is two lines:
#     # vectorAdd: c = a + b (see README.md)
#     include ../../common/sample.mk
# Set LIBS (e.g. LIBS := -lcublas) before the include when the sample needs a
# library. Every .cu file in the folder (and every host-only .c file, built
# with gcc so tests/ can unit-test it) is compiled into one program named
# after the folder, bin/<folder>, linked with the common layer's static
# library (common/lib.mk). `make` builds it, `make run` runs it
# (ARGS="--quick" passes arguments), `make clean` removes it.
#
# A folder that builds several programs (common/debug_case.mk: a buggy and a
# fixed build of one 8_Debugging case) names them, and what each is built
# from, before the include:
#     PROGRAMS := race_buggy race_fixed
#     race_buggy_SRCS := race.cu
#     race_fixed_SRCS := race.cu
#     race_fixed_NVCCFLAGS := -DFIXED=1
# Each program gets bin/<program>, its objects a folder of their own
# (OBJDIR/<program>/); the folder's .c files go into every one.
#
# Build identity: objects live in $(BUILDDIR)/<folder>/<FLAVOR>/ (FLAVOR names
# SMS and dbg: sm90, sm80-90, sm90-dbg), beside a stamp of every other compile
# flag; the link stamp names the flavor a program was last linked from. So
# `make SMS="80 90"` or `make dbg=1` rebuilds, going back only relinks, and
# changed NVCCFLAGS/CFLAGS/LIBS rebuild what they touch. A changed common
# header recompiles the objects that include it (-MMD dependency files).

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
include $(ROOT)/common/arch.mk

SAMPLE ?= $(notdir $(CURDIR))
SRCS ?= $(wildcard *.cu)
CSRCS ?= $(wildcard *.c)
LIBS ?=
PROGRAMS ?= $(SAMPLE)
# BINDIR and BUILDDIR move the outputs elsewhere (tools/mutants.sh builds
# each planted-bug copy of a sample into a folder of its own). The common
# library goes with them ($(BUILDDIR)/common/libcommon.a, common/lib.mk).
BINDIR ?= $(ROOT)/bin
BUILDDIR ?= $(ROOT)/build
OBJDIR := $(BUILDDIR)/$(SAMPLE)/$(FLAVOR)
COMPILE_STAMP := $(OBJDIR)/compile.flags
LINK_STAMP := $(BUILDDIR)/$(SAMPLE)/link.flags
BINS := $(addprefix $(BINDIR)/,$(PROGRAMS))
BIN := $(firstword $(BINS))

C_OBJS := $(patsubst %.c,$(OBJDIR)/%.c.o,$(CSRCS))
DEP_FILES := $(C_OBJS:.o=.d)

.PHONY: all run clean programs
all: $(BINS)

include $(ROOT)/common/lib.mk

# program_rules NAME: bin/NAME from its .cu files (NAME_SRCS; the folder's
# SRCS for the folder's own program), compiled with NAME_NVCCFLAGS added.
# A folder with one program keeps its objects directly in OBJDIR.
define program_rules
$(1)_SRCS ?= $$(if $$(filter $(SAMPLE),$(1)),$$(SRCS),$(1).cu)
$(1)_OBJDIR := $$(if $$(filter-out $(SAMPLE),$$(PROGRAMS)),$$(OBJDIR)/$(1),$$(OBJDIR))
$(1)_OBJS := $$(patsubst %.cu,$$($(1)_OBJDIR)/%.o,$$($(1)_SRCS))
DEP_FILES += $$($(1)_OBJS:.o=.d)

$$(BINDIR)/$(1): $$($(1)_OBJS) $$(C_OBJS) $$(COMMON_LIB) $$(LINK_STAMP)
	@mkdir -p $$(dir $$@)
	$$(NVCC) $$(GENCODE) -o $$@ $$($(1)_OBJS) $$(C_OBJS) $$(COMMON_LIB) $$(LIBS) -ldl

$$($(1)_OBJDIR)/%.o: %.cu $$(COMPILE_STAMP)
	@mkdir -p $$(dir $$@)
	$$(NVCC) $$(NVCCFLAGS) $$($(1)_NVCCFLAGS) -MMD -MP -c $$< -o $$@
endef
$(foreach p,$(PROGRAMS),$(eval $(call program_rules,$(p))))

$(OBJDIR)/%.c.o: %.c $(COMPILE_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# What the objects were compiled with, and what the programs were linked from.
$(COMPILE_STAMP): FORCE
	$(call write_stamp,$(NVCC) $(NVCCFLAGS) | $(foreach p,$(PROGRAMS),$(p): $($(p)_NVCCFLAGS) |) $(CC) $(CFLAGS))
$(LINK_STAMP): FORCE
	$(call write_stamp,$(FLAVOR) | $(NVCC) $(GENCODE) $(LIBS) -ldl | $(BINS))

run: $(BIN)
	$(BIN) $(ARGS)

# the programs this folder builds, one line (tools/vscode_task.sh asks)
programs:
	@echo $(PROGRAMS)

clean:
	rm -rf $(BINS) $(BUILDDIR)/$(SAMPLE)

-include $(DEP_FILES)
