# tests/tests.mk: builds every cmocka unit-test program (run by tools/run_tests.sh).
#
# Where tests live:
#   tests/test_*.c                 the common layer; linked with common/*.c
#   <group>/<folder>/tests/test_*.c a sample's or tool's own; linked with
#                                  common/*.c and the folder's *.c except main.c
# A folder whose tests need more flags puts them in <folder>/tests/test.mk as
#   <folder>_TEST_CFLAGS := ...    and    <folder>_TEST_LDLIBS := ...
# (folder = the folder's own name, e.g. kgate_TEST_LDLIBS).
# CMOCKA_PREFIX points at a cmocka unpacked outside the system (the device
# machine has no package registry: see docs/operators.md, "A machine without a package registry").
# The common layer is linked from its static library (common/lib.mk), built
# once for samples and tests alike; every object here has a -MMD dependency
# file, so a changed header rebuilds the tests that include it. A tool that
# was skipped (build/tools/<tool>.skipped: it did not build, e.g. without
# libclang) has its tests skipped too.

ROOT := $(CURDIR)
include common/arch.mk
include common/lib.mk

CMOCKA_PREFIX ?=
ifneq ($(CMOCKA_PREFIX),)
  CMOCKA_CFLAGS := -I$(CMOCKA_PREFIX)/usr/include
  CMOCKA_LIBDIR := $(CMOCKA_PREFIX)/usr/lib/x86_64-linux-gnu
  CMOCKA_LDLIBS := -L$(CMOCKA_LIBDIR) -Wl,-rpath,$(abspath $(CMOCKA_LIBDIR)) -lcmocka
else
  CMOCKA_LDLIBS := -lcmocka
endif

TB := build/tests
CUDA_LDLIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -ldl -lm

# tests/support/*.c (the JSON validator, ...) is linked into every test program,
# then the common library.
SUPPORT_SRCS := $(filter-out %_main.c,$(wildcard tests/support/*.c))
SUPPORT_OBJS := $(patsubst tests/support/%.c,$(TB)/support/%.o,$(SUPPORT_SRCS))
COMMON_OBJS := $(SUPPORT_OBJS) $(COMMON_LIB)
CFLAGS += -Itests/support
DEPFLAGS = -MMD -MP -MT $@ -MF $@.d
# what a test program is linked from: its prerequisites less the headers
# that its dependency file adds
LINK_INPUTS = $(filter %.c %.o %.a,$^)

SKIPPED_TOOLS := $(patsubst build/tools/%.skipped,%,$(wildcard build/tools/*.skipped))
TEST_DIRS := $(filter-out $(addprefix 9_Verification/,$(SKIPPED_TOOLS)), \
    $(sort $(patsubst %/tests/,%,$(dir $(wildcard [0-9]_*/*/tests/test_*.c)))))
-include $(wildcard $(addsuffix /tests/test.mk,$(TEST_DIRS)))

# build/tests/common/test_x from tests/test_x.c
CORE_TESTS := $(patsubst tests/%.c,$(TB)/common/%,$(wildcard tests/test_*.c))

all_tests: $(CORE_TESTS) $(TB)/json_check

$(TB)/support/%.o: tests/support/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(TB)/json_check: tests/support/json_check_main.c $(TB)/support/json_valid.o
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $(LINK_INPUTS)

$(TB)/common/test_%: tests/test_%.c $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CMOCKA_CFLAGS) $(DEPFLAGS) -o $@ $(LINK_INPUTS) $(CMOCKA_LDLIBS) $(CUDA_LDLIBS)

# One block of rules per folder with tests: its objects, then its test programs.
define folder_tests
$(1)_NAME := $(notdir $(1))
$(1)_SRCS := $(filter-out $(1)/main.c,$(wildcard $(1)/*.c))
$(1)_OBJS := $$(patsubst $(1)/%.c,$(TB)/$(1)/%.o,$$($(1)_SRCS))
$(1)_TESTS := $$(patsubst $(1)/tests/%.c,$(TB)/$(1)/%,$$(wildcard $(1)/tests/test_*.c))
all_tests: $$($(1)_TESTS)
$(TB)/$(1)/%.o: $(1)/%.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $$($$(notdir $(1))_TEST_CFLAGS) -I$(1) $$(DEPFLAGS) -c $$< -o $$@
$(TB)/$(1)/test_%: $(1)/tests/test_%.c $$($(1)_OBJS) $$(COMMON_OBJS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $$(CMOCKA_CFLAGS) $$($$(notdir $(1))_TEST_CFLAGS) -I$(1) $$(DEPFLAGS) -o $$@ $$(LINK_INPUTS) \
	    $$($$(notdir $(1))_TEST_LDLIBS) $$(CMOCKA_LDLIBS) $$(CUDA_LDLIBS)
endef
$(foreach d,$(TEST_DIRS),$(eval $(call folder_tests,$(d))))

.PHONY: all_tests
.SECONDARY:
.DEFAULT_GOAL := all_tests
-include $(shell find $(TB) -name '*.d' 2>/dev/null)
