# The CUDA sample suite: one Makefile for everything (see README.md).
#
#   make                build every sample (and the 9_Verification tools)
#   make vectorAdd      build one sample (or: make -C 0_Simple/vectorAdd)
#   make run            build and run every sample, print a summary table
#   make test           unit tests (CPU) and process tests of every sample binary
#   make verify         every sample under the four compute-sanitizer tools
#   make bench          every sample at benchmark size, saved under results/
#   make clean
#   make SMS="80 90"    choose GPU architectures (default: the local GPU's, else 90)
#   make dbg=1          device debug build (-G)
#   make new-sample NAME=mySample FOLDER=0_Simple
#                       a new sample folder that passes every test as generated
#   make readme         regenerate README.md's table of samples (never done by `make`)
#   make compile_commands.json   the compilation database for clangd (uses bear)
#   make vscode         .vscode/ tasks (build, run, memcheck, verify, profile the
#                       active editor's sample) and a cuda-gdb launch configuration
#
# Samples are discovered: any folder N_Group/name/ (N = 0..8) with a Makefile.
# The build runs as many jobs as the machine has cores (make -j1 for one at a
# time, or JOBS=N). A tool that fails to build (the kernel gate needs libclang)
# is reported SKIPPED with the reason and never stops the samples;
# REQUIRE_TOOLS=1 makes that an error (CI sets it).

ROOT := $(CURDIR)
include common/arch.mk

# Use every core unless the command line says otherwise (make -jN). Only the
# top make sets it: a sub-make that set -j would leave the jobserver.
ifeq ($(MAKELEVEL),0)
  ifeq ($(filter -j%,$(MAKEFLAGS)),)
    JOBS ?= $(shell nproc 2>/dev/null || echo 1)
    MAKEFLAGS += -j$(JOBS) --output-sync=target
  endif
endif

SAMPLE_DIRS := $(sort $(patsubst %/Makefile,%,$(wildcard [0-8]_*/*/Makefile)))
SAMPLES := $(notdir $(SAMPLE_DIRS))
TOOL_DIRS := $(sort $(patsubst %/Makefile,%,$(wildcard 9_Verification/*/Makefile)))

ifneq ($(words $(SAMPLES)),$(words $(sort $(SAMPLES))))
  $(error two sample folders share a name: $(SAMPLE_DIRS))
endif

.PHONY: all samples tools tool-packages run test verify bench clean list list-tools \
        readme new-sample vscode compile_commands.json $(SAMPLE_DIRS) $(TOOL_DIRS) $(SAMPLES)

all: samples tools

include common/lib.mk

samples: $(SAMPLE_DIRS)
tools: $(TOOL_DIRS)

$(SAMPLE_DIRS): $(COMMON_LIB)
	+$(MAKE) -C $@

# The kernel gate parses CUDA with libclang: its Debian package is installed
# when missing (SKIP_PACKAGES=1 skips, for machines that carry their own).
# Where it cannot be installed the gate's build fails and is reported
# SKIPPED (tools/build_tool.sh), so this step may fail without stopping make.
TOOL_PACKAGES := libclang-19-dev
tool-packages:
	@tools/ensure_packages.sh $(TOOL_PACKAGES) || \
	    echo "note: could not install $(TOOL_PACKAGES): the tools that need them will be skipped"

$(TOOL_DIRS): $(COMMON_LIB) tool-packages
	+@MAKE='$(MAKE)' tools/build_tool.sh $@

# `make vectorAdd` builds the sample of that name, wherever it lives.
$(SAMPLES):
	+$(MAKE) -C $(filter %/$@,$(SAMPLE_DIRS))

list:
	@for d in $(SAMPLE_DIRS); do echo $$d; done
list-tools:
	@for d in $(TOOL_DIRS); do echo $$d; done

run: all
	@tools/run_samples.sh $(SAMPLES)

# Debian packages the tests need (installed when missing; SKIP_PACKAGES=1 skips).
TEST_PACKAGES := libcmocka-dev

test:
	@tools/ensure_packages.sh $(TEST_PACKAGES)
	+$(MAKE) all
	+$(MAKE) -f tests/tests.mk
	@tools/run_tests.sh

verify: all
	@tools/verify.sh

bench: samples
	@tools/bench.sh $(SAMPLES)

# The README's table of samples, from the folders. Explicit only: the tests
# check that the committed README is current (tools/readme_samples.sh --check).
readme:
	@tools/readme_samples.sh

new-sample:
	@tools/new_sample.sh "$(NAME)" "$(FOLDER)"

# clangd's compilation database: every compile of a full rebuild (samples,
# tools, the common library and the unit tests), recorded by bear.
compile_commands.json:
	@tools/ensure_packages.sh bear $(TEST_PACKAGES)
	+@MAKE='$(MAKE)' tools/compile_commands.sh

vscode:
	@tools/vscode.sh

clean:
	rm -rf bin build
