# common/common.mk: builds the common layer, common/*.c, into
# LIB_DIR/libcommon.a (build/common/ by default). Not run by hand:
# common/lib.mk calls it (under a lock, with LIB_DIR=$(BUILDDIR)/common)
# whenever a sample, case, tool or test program is built.
ROOT ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
include $(ROOT)/common/arch.mk

LIB_DIR ?= $(ROOT)/build/common
LIB_SRCS := $(wildcard $(ROOT)/common/*.c)
LIB_OBJS := $(patsubst $(ROOT)/common/%.c,$(LIB_DIR)/%.o,$(LIB_SRCS))
LIB_STAMP := $(LIB_DIR)/compile.flags

.PHONY: lib
lib: $(LIB_DIR)/libcommon.a
	@:

# Rebuilt from scratch, so a deleted source leaves no stale member behind.
$(LIB_DIR)/libcommon.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIB_DIR)/%.o: $(ROOT)/common/%.c $(LIB_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB_STAMP): FORCE
	$(call write_stamp,$(CC) $(CFLAGS))

.PHONY: FORCE
FORCE:

-include $(LIB_OBJS:.o=.d)
