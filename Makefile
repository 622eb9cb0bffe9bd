# The CUDA sample suite: one Makefile for everything (see README.md).
#
#   make                build every sample, every 8_Debugging case and the 9_Verification tools
#   make vectorAdd      build one sample (or: make -C 0_Simple/vectorAdd)
#   make blurPitch      build one 8_Debugging case, both forms (make cases: all of them)
#   make run            build and run every sample, a line as each ends (REQUIRE_GPU=1:
#                       exit 1 when every sample WAIVED, for bring-up scripts)
#   make test           unit tests (CPU) and process tests of every sample binary, several
#                       at a time (TEST_JOBS=N), a line as each ends
#   make verify         every sample under the four compute-sanitizer tools
#   make bench          every sample at benchmark size: results/<gpu>/results.json,
#                       RESULTS.md, the README tables and the charts
#   make compare A=results/x/results.json B=results/y/results.json [THRESHOLD=5]
#   make charts         roofline and shmoo charts of every results/*/results.json
#   make mutants        build and run every sample's planted bugs: each must FAIL
#   make try SAMPLE=firstKernel EX=1 [ANSWER=1] [ARGS=...]
#                       build your exercise as the variant "exercise", check it and
#                       time it against the step it changes (CPU simulator without a GPU)
#   make figures        regenerate docs/figures/*.svg from tools/figures.py
#   make help           this list
#   make profile SAMPLE=matrixMul VARIANT=smem_tile32 NOTE="tile 16 -> 32" [ARGS=...]
#                       one variant under Nsight Compute: a row of <sample>/NOTEBOOK.md
#   make profile-diff SAMPLE=matrixMul [VARIANT=...]   its last two rows side by side
#   make clean
#   make SMS="80 90"    choose GPU architectures (default: the local GPU's, else 90)
#   make dbg=1          device debug build (-G)
#   make new-sample NAME=mySample FOLDER=0_Simple [SUMMARY="One sentence."]
#                       a new sample folder that passes every test as generated
#   make readme         regenerate README.md's table of samples (never done by `make`)
#   make compile_commands.json   the compilation database for clangd (uses bear)
#   make vscode         .vscode/ tasks (build, run, memcheck, verify, profile the
#                       active editor's sample) and a cuda-gdb launch configuration
#
# No GPU? Everything builds, every sample WAIVES (exit 2) and `make test` runs.
# The CPU simulators run a sample's kernels on the CPU, block by block and
# thread by thread, and check every result as the sample does: proof that
# the kernel code computes the right answer (not how fast it is):
#   sh 0_Simple/firstKernel/tests/cpu_sim/run.sh     saxpy at five sizes (seconds);
#                       --exercise=FILE checks an exercise (what make try uses)
#   sh 0_Simple/vectorAdd/tests/cpu_sim/run.sh       naive and grid_stride_float4 at
#                       the sample's check sizes, guard zone watched (seconds);
#                       --exercise=FILE checks an exercise
#   sh 0_Simple/reduction/tests/cpu_sim/run.sh      every reduction step, three
#                       thread orders (minutes); --exercise=FILE checks an exercise
#   sh 0_Simple/matrixMul/tests/cpu_sim/run.sh --quick   every SGEMM variant at
#                       the --quick check shapes and its tile shape (a minute)
#   sh 3_Imaging/histogram/tests/cpu_sim/run.sh      every histogram variant (seconds)
#   sh 3_Imaging/blur/tests/cpu_sim/run.sh           every blur variant, radius 1, 2
#                       and 8, on the --quick geometries
#   sh 6_Advanced/tensorCoreGemm/tests/cpu_sim/run.sh   not the kernels (they need
#                       the tensor cores): the layout functions its exercises
#                       change (swizzle, tile order, wgmma descriptor)
#   sh 6_Advanced/clusters/tests/cpu_sim/run.sh     every cluster histogram step (01 to 06),
#                       the clusters' blocks as threads at once, both inputs (under a minute)
#   sh 6_Advanced/scan/tests/cpu_sim/run.sh   every scan step, both kinds,
#                       int32 and float32, three thread orders (minutes)
#   sh 6_Advanced/threadFenceReduction/tests/cpu_sim/run.sh   single_pass, _u8 and
#                       multi_pass, blocks in a shuffled order, launches back to back
#                       on one counter (under a minute); --exercise=FILE checks an exercise
#   sh 6_Advanced/programmaticDependentLaunch/tests/cpu_sim/run.sh   the chain's kernels
#                       in the schedule that exposes a read before the PDL wait (seconds)
#
# Samples are discovered: any folder N_Group/name/ (N = 0..8) with a Makefile,
# except the 8_Debugging case studies (below).
# The build runs as many jobs as the machine has cores (make -j1 for one at a
# time, or JOBS=N). A tool that fails to build (the kernel gate needs libclang)
# is reported SKIPPED with the reason and never stops the samples;
# REQUIRE_TOOLS=1 makes that an error (CI sets it).

ROOT := $(CURDIR)
# Goals that compile nothing at this level (a sub-make builds, if anything):
# they need no nvcc to start and say nothing about the architecture
# (common/arch.mk), so `make profile` or `make bench` without a GPU stop at
# once with the reason, wherever nvcc is.
NO_BUILD_GOALS := help list list-tools list-cases clean compare charts figures profile profile-diff \
                  readme new-sample vscode bench mutants try
ifneq ($(MAKECMDGOALS),)
  ifeq ($(filter-out $(NO_BUILD_GOALS),$(MAKECMDGOALS)),)
    ARCH_LATER := 1
  endif
endif
include common/arch.mk

# Use every core unless the command line says otherwise (make -jN). Only the
# top make sets it: a sub-make that set -j would leave the jobserver. Each
# target's output comes in one piece (--output-sync), except under make run
# and make test, which print a line as each sample or test ends (their builds
# are sub-makes that sync their own output).
ifeq ($(MAKELEVEL),0)
  ifeq ($(filter -j%,$(MAKEFLAGS)),)
    JOBS ?= $(shell nproc 2>/dev/null || echo 1)
    MAKEFLAGS += -j$(JOBS)
    ifeq ($(filter run test,$(MAKECMDGOALS)),)
      MAKEFLAGS += --output-sync=target
    endif
  endif
endif

SAMPLE_DIRS := $(sort $(patsubst %/Makefile,%,$(filter-out 8_Debugging/%,$(wildcard [0-8]_*/*/Makefile))))
SAMPLES := $(notdir $(SAMPLE_DIRS))
TOOL_DIRS := $(sort $(patsubst %/Makefile,%,$(wildcard 9_Verification/*/Makefile)))

# 8_Debugging holds case studies, not samples: each folder builds
# bin/<case>_buggy and bin/<case>_fixed (common/debug_case.mk). `make` builds
# them and `make test` runs the process tests on them; `make verify` finds
# their sanitize.expect by itself; `make run` and `make bench` leave them out.
CASE_DIRS := $(sort $(patsubst %/Makefile,%,$(wildcard 8_Debugging/*/Makefile)))
CASES := $(notdir $(CASE_DIRS))

ifneq ($(words $(SAMPLES) $(CASES)),$(words $(sort $(SAMPLES) $(CASES))))
  $(error two sample or case folders share a name: $(SAMPLE_DIRS) $(CASE_DIRS))
endif

.PHONY: all samples tools tool-packages run test verify bench mutants compare charts profile profile-diff try figures help \
        clean list list-tools readme new-sample vscode compile_commands.json $(SAMPLE_DIRS) $(TOOL_DIRS) $(SAMPLES)
.PHONY: cases list-cases $(CASE_DIRS) $(CASES)

all: samples cases tools

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

# 8_Debugging: `make cases` builds every case in both forms, `make blurPitch` one.
cases: $(CASE_DIRS)

$(CASE_DIRS): $(COMMON_LIB)
	+$(MAKE) -C $@

$(CASES):
	+$(MAKE) -C 8_Debugging/$@

list-cases:
	@for d in $(CASE_DIRS); do echo $$d; done

# make run [REQUIRE_GPU=1] [RUN_ARGS=--quick]: every sample, a line as each ends;
# a banner when every sample WAIVED (no usable GPU), and then with REQUIRE_GPU=1
# exit 1 (for bring-up scripts: a driver that failed to load is not a pass).
run:
	+$(MAKE) --output-sync=target all
	@tools/run_samples.sh $(SAMPLES)

# Debian packages the tests need (installed when missing; SKIP_PACKAGES=1 skips).
# bubblewrap: the kernel gate's sandbox (9_Verification/kgate); python3: the results tools and
# the gate's Python checks.
TEST_PACKAGES := libcmocka-dev bubblewrap python3

# The tests run TEST_JOBS at a time (default: cores + 1), each one's output
# printed whole as it ends, with a progress line (tools/run_tests.sh).
test:
	@tools/ensure_packages.sh $(TEST_PACKAGES)
	+$(MAKE) --output-sync=target all
	+$(MAKE) --output-sync=target -f tests/tests.mk
	@tools/run_tests.sh

verify: all
	@tools/verify.sh

# Without a GPU, make bench stops at once with the reason (exit 2).
bench:
	@tools/bench.sh --check-gpu
	+$(MAKE) samples
	@tools/bench.sh $(SAMPLES)

# Every sample's planted bugs (<folder>/mutants), each built into its own
# folder under build/mutants/ and run: all must FAIL. Exit 2 without a GPU
# (after checking that every mutant still applies).
mutants:
	@tools/mutants.sh

# make try SAMPLE=name EX=N [ANSWER=1] [ARGS="sample options"]: an exercise of
# <sample>/exercises/ built as an extra variant, checked and timed (tools/try.sh).
try:
	@tools/try.sh '$(subst ','\'',$(value SAMPLE))' '$(subst ','\'',$(value EX))' '$(subst ','\'',$(value ANSWER))'

# The diagrams of docs/figures/, drawn by tools/figures.py (Python only);
# make test fails when a committed one differs from what the script draws.
figures:
	@python3 tools/figures.py

# The targets and the CPU simulators: the comment at the top of this file.
help:
	@sed -n '3,/^# Samples are discovered/p' $(firstword $(MAKEFILE_LIST)) | sed '$$d; s/^# \{0,1\}//'
	@echo "Start here: README.md, \"Start here\"."

# make compare A=results/x/results.json B=results/y/results.json [THRESHOLD=5]:
# the ratio per sample and variant; fails on a regression beyond THRESHOLD %,
# and on a missing or bad file with one line saying so (tools/results.py
# compare exits 1 for a regression, 2 for a usage or input error; make itself
# exits 2 for either: docs/results.md).
compare:
	$(if $(and $(A),$(B)),,$(error usage: make compare A=results/x/results.json B=results/y/results.json [THRESHOLD=5]))
	@python3 tools/results.py compare "$(A)" "$(B)" --threshold=$(or $(THRESHOLD),5)

# make profile SAMPLE=name VARIANT=name [NOTE="what changed"] [ARGS="sample options"]:
# that variant once at benchmark size under ncu (clocks left alone, only its NVTX
# range profiled), one row appended to the sample's NOTEBOOK.md (tools/profile.py).
# Exit 2 without a GPU or without ncu, before anything is built.
profile:
	$(if $(and $(SAMPLE),$(VARIANT)),,$(error usage: make profile SAMPLE=name VARIANT=name [NOTE="what changed"] [ARGS="sample options"]))
	@python3 tools/profile.py check --sample='$(SAMPLE)'
	+$(MAKE) $(SAMPLE)
	@PROFILE_NOTE='$(subst ','\'',$(value NOTE))' PROFILE_ARGS='$(subst ','\'',$(value ARGS))' \
	    python3 tools/profile.py run --sample='$(SAMPLE)' --variant='$(VARIANT)'

# make profile-diff SAMPLE=name [VARIANT=name]: the notebook's last two rows (of that
# variant) side by side, changed cells marked, ratios of numbers.
profile-diff:
	$(if $(SAMPLE),,$(error usage: make profile-diff SAMPLE=name [VARIANT=name]))
	@python3 tools/profile.py diff --sample='$(SAMPLE)' $(if $(VARIANT),--variant='$(VARIANT)')

# Roofline and shmoo charts of every results/*/results.json (gnuplot, a Debian
# package, installed when missing; SKIP_PACKAGES=1 skips). Where it cannot be
# installed, tools/charts.py says so in one line and exits 2.
CHART_PACKAGES := gnuplot-nox
charts:
	@tools/ensure_packages.sh $(CHART_PACKAGES) || echo "charts: could not install $(CHART_PACKAGES)"
	@python3 tools/charts.py results/*/results.json

# The README's table of samples, from the folders. Explicit only: the tests
# check that the committed README is current (tools/readme_samples.sh --check).
readme:
	@tools/readme_samples.sh

new-sample:
	@tools/new_sample.sh '$(subst ','\'',$(value NAME))' '$(subst ','\'',$(value FOLDER))' \
	    '$(subst ','\'',$(value SUMMARY))'

# clangd's compilation database: every compile of a full rebuild (samples,
# cases, tools, the common library and the unit tests), recorded by bear.
compile_commands.json:
	@tools/ensure_packages.sh bear libcmocka-dev
	+@MAKE='$(MAKE)' tools/compile_commands.sh

vscode:
	@tools/vscode.sh

clean:
	rm -rf bin build
