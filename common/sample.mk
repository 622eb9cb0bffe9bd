# common/sample.mk: the build rules every sample folder includes.
#
# A sample's Makefile is two lines:
#     # vectorAdd: c = a + b (see README.md)
#     include ../../common/sample.mk
# Set LIBS (e.g. LIBS := -lcublas) before the include when the sample needs a
# library. Every .cu file in the folder (and every host-only .c file, built
# with gcc so tests/ can unit-test it) is compiled into one program named
# after the folder, bin/<folder>. `make` builds it, `make run` runs it
# (ARGS="--quick" passes arguments), `make clean` removes it.

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
include $(ROOT)/common/arch.mk

SAMPLE ?= $(notdir $(CURDIR))
SRCS ?= $(wildcard *.cu)
CSRCS ?= $(wildcard *.c)
LIBS ?=
# BINDIR and BUILDDIR move the outputs elsewhere (tools/mutants.sh builds
# each planted-bug copy of a sample into a folder of its own).
BINDIR ?= $(ROOT)/bin
BUILDDIR ?= $(ROOT)/build
BIN := $(BINDIR)/$(SAMPLE)
OBJDIR := $(BUILDDIR)/$(SAMPLE)

# The common C sources are compiled into each sample's own object folder:
# a little repeated work, but no races between samples under make -j.
COMMON_SRCS := $(wildcard $(ROOT)/common/*.c)
COMMON_OBJS := $(patsubst $(ROOT)/common/%.c,$(OBJDIR)/common/%.o,$(COMMON_SRCS))
CU_OBJS := $(patsubst %.cu,$(OBJDIR)/%.o,$(SRCS))
C_OBJS := $(patsubst %.c,$(OBJDIR)/%.c.o,$(CSRCS))

.PHONY: all run clean
all: $(BIN)

$(BIN): $(CU_OBJS) $(C_OBJS) $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(NVCC) $(GENCODE) -o $@ $^ $(LIBS) -ldl

$(OBJDIR)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

$(OBJDIR)/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(OBJDIR)/common/%.o: $(ROOT)/common/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

run: $(BIN)
	$(BIN) $(ARGS)

clean:
	rm -rf $(BIN) $(OBJDIR)

-include $(CU_OBJS:.o=.d) $(C_OBJS:.o=.d) $(COMMON_OBJS:.o=.d)
