# common/arch.mk: which GPU architectures to build for, and the nvcc flags.
#
#   make                 the local GPU's compute capability, else 90 (and a note
#                        saying so, once per build)
#   make SMS="80 90"     several architectures (machine code for each, PTX for the last)
#   make dbg=1           device debug build (-G), for cuda-gdb
#
# SMS and dbg are part of a build's identity: FLAVOR names the set (sm90,
# sm80-90, sm90-dbg) and sample.mk keeps each flavor's objects in a folder of
# its own, so changing either rebuilds what it must (and changing back only
# relinks). Every other flag is recorded in a stamp file beside the objects
# (see write_stamp below), so changing NVCCFLAGS or CFLAGS rebuilds too.
#
# SMS is checked against `nvcc --list-gpu-arch`, so an unsupported value gives
# a clear message instead of an nvcc error. The top-level Makefile exports
# SMS, so the detection runs once per build.

NVCC ?= nvcc
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))
ifeq ($(CUDA_HOME),)
  CUDA_HOME := /usr/local/cuda
endif

# ARCH_LATER=1 (set by the top-level Makefile for goals that build nothing
# themselves: help, list, compare, profile, bench ...) leaves the detection and
# the check to the sub-make that builds, if any: such a goal needs no nvcc.
ifneq ($(ARCH_LATER),1)

ifeq ($(strip $(SMS)),)
  SMS := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '. \r')
  ifeq ($(strip $(SMS)),)
    SMS := 90
    # Said once (SMS is exported below, so a sub-make finds it set and stays
    # quiet), on stderr: scripts read what make prints on stdout.
    ARCH_NOTE := $(shell printf '%s\n' 'note: no GPU found (nvidia-smi): building for compute capability 9.0 (SMS=90, as on the H200). Another GPU: make SMS=80, or SMS="80 90" for several (common/arch.mk).' >&2)
  endif
endif

ifeq ($(strip $(NVCC_ARCHS)),)
  NVCC_ARCHS := $(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed 's/compute_//' | tr '\n' ' ')
endif
ifeq ($(strip $(NVCC_ARCHS)),)
  $(error cannot run '$(NVCC) --list-gpu-arch': is the CUDA toolkit installed and nvcc on PATH?)
endif
BAD_SMS := $(filter-out $(NVCC_ARCHS),$(SMS))
ifneq ($(BAD_SMS),)
  $(error SMS="$(SMS)": this nvcc cannot build for $(BAD_SMS); it supports: $(NVCC_ARCHS))
endif
export SMS NVCC_ARCHS

endif

GENCODE := $(foreach sm,$(SMS),-gencode arch=compute_$(sm),code=sm_$(sm)) \
           -gencode arch=compute_$(lastword $(SMS)),code=compute_$(lastword $(SMS))

ifeq ($(dbg),1)
  DEVICE_DEBUG := -G -g
else
  DEVICE_DEBUG := -lineinfo
endif

NVCCFLAGS ?= -O3 -std=c++17 $(DEVICE_DEBUG) $(GENCODE) -Xcompiler -Wall -I$(ROOT)/common
CFLAGS ?= -O3 -g -std=c11 -Wall -Wextra -I$(ROOT)/common -I$(CUDA_HOME)/include

empty :=
space := $(empty) $(empty)
FLAVOR := sm$(subst $(space),-,$(strip $(SMS)))$(if $(filter 1,$(dbg)),-dbg)

# The stamp idiom (a FORCE rule that rewrites the file only when its text
# changes, so make sees a new mtime exactly when the flags changed):
#     $(STAMP): FORCE
#     	$(call write_stamp,$(NVCC) $(NVCCFLAGS))
# Everything built with those flags lists $(STAMP) as a prerequisite
# (FORCE is defined in common/lib.mk: arch.mk itself defines no target).
write_stamp = @mkdir -p $(@D); printf '%s\n' '$(subst ','\'',$(strip $(1)))' >$@.tmp.$$$$; \
    if cmp -s $@.tmp.$$$$ $@; then rm -f $@.tmp.$$$$; else mv -f $@.tmp.$$$$ $@; fi
