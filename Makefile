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
#
# Samples are discovered: any folder N_Group/name/ (N = 0..8) with a Makefile.

ROOT := $(CURDIR)
include common/arch.mk

SAMPLE_DIRS := $(sort $(patsubst %/Makefile,%,$(wildcard [0-8]_*/*/Makefile)))
SAMPLES := $(notdir $(SAMPLE_DIRS))
TOOL_DIRS := $(sort $(patsubst %/Makefile,%,$(wildcard 9_Verification/*/Makefile)))

ifneq ($(words $(SAMPLES)),$(words $(sort $(SAMPLES))))
  $(error two sample folders share a name: $(SAMPLE_DIRS))
endif

.PHONY: all samples tools run test verify bench clean list $(SAMPLE_DIRS) $(TOOL_DIRS) $(SAMPLES)

# The README's table of samples is regenerated from the folders on every build.
all: samples tools
	@tools/readme_samples.sh

samples: $(SAMPLE_DIRS)

# The kernel gate parses CUDA with libclang: its Debian package is installed
# when missing (SKIP_PACKAGES=1 skips, for machines that carry their own).
BUILD_PACKAGES := libclang-19-dev
tools:
	@tools/ensure_packages.sh $(BUILD_PACKAGES)
	$(MAKE) $(TOOL_DIRS)

$(SAMPLE_DIRS) $(TOOL_DIRS):
	$(MAKE) -C $@

# `make vectorAdd` builds the sample of that name, wherever it lives.
$(SAMPLES):
	$(MAKE) -C $(filter %/$@,$(SAMPLE_DIRS))

list:
	@for d in $(SAMPLE_DIRS); do echo $$d; done

run: all
	@tools/run_samples.sh $(SAMPLES)

# Debian packages the tests need (installed when missing; SKIP_PACKAGES=1 skips).
# bubblewrap: the kernel gate's sandbox (9_Verification/kgate).
TEST_PACKAGES := libcmocka-dev bubblewrap $(BUILD_PACKAGES)

test:
	@tools/ensure_packages.sh $(TEST_PACKAGES)
	$(MAKE) all
	$(MAKE) -f tests/tests.mk
	@tools/run_tests.sh

verify: all
	@tools/verify.sh

bench: samples
	@tools/bench.sh $(SAMPLES)

clean:
	rm -rf bin build
