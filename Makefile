# SPDX-License-Identifier: GPL-2.0-only
#
# sframe-unwind: userspace builds of the SFrame core (tools, host tests,
# fuzzer, benchmark) and the kernel harness (scripts/kernel.mk).
# The kernel build itself uses the Kbuild/Kconfig files next to this one.
#
#   make tools        tools/sframe-dump, tools/sframe-verify, tools/sframe-gen
#   make check-host   host tests (ASan + UBSan), ends with "N passed, N failed"
#   make fuzz         libFuzzer over validate + find + dump (FUZZ_SECONDS=600)
#   make bench-host   lookups/s against libsframe 2.40 (a benchmark, not a test)
#   make check        check-host + lint + kunit and qemu-test on both arches,
#                     both kernel lines (DEEP=1: KASAN, KCSAN kernels, fuzzing;
#                     CHECK_BUDGET=S: those only while they fit in S seconds)
#   make run          main job: boot QEMU and show the core on a live kernel
#   make results      build/RESULTS.md: the numbers of the last runs

CC		?= gcc
CLANG		?= clang
BUILD		:= build
HOST		:= $(BUILD)/host
RESULTS		:= $(BUILD)/results
CWARN		:= -Wall -Wextra -Werror -Wno-missing-field-initializers
HOST_CFLAGS	:= -O2 -g -std=gnu11 $(CWARN) -Iinclude
SAN_CFLAGS	:= -O1 -g -std=gnu11 $(CWARN) -Iinclude \
		   -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
FUZZ_SECONDS	?= 600

CORE		:= $(wildcard lib/sframe/*.c)
CORE_HDRS	:= $(wildcard include/sframe/*.h) lib/sframe/internal.h
TOOL_SRCS	:= tools/lib/dump.c tools/lib/elf.c tools/lib/sframe-elf.c

# The programs' sources, as the kernel build has them (tools/sources.mk):
# tools/lib/host-core.c is the core.
include tools/sources.mk
tool-srcs	= $(addprefix tools/,$(patsubst %.o,%.c,$(1)))
DUMP_SRCS	:= $(call tool-srcs,$(sframe-dump-objs))
TOOL_HDRS	:= $(wildcard tools/lib/*.h)
TEST_SRCS	:= tools/testing/encode.c tools/lib/layout.c
TEST_HDRS	:= tools/testing/encode.h tools/testing/harness.h

.PHONY: all tools check-host fuzz bench-host check clean deps-host help results
all: tools

help:
	@sed -n 's/^#   //p' Makefile scripts/kernel.mk
	@echo "KVER=6.1|6.12 picks the kernel line (make check: both)"

# The core alone, freestanding: proves it needs no libc.
$(HOST)/sframe-freestanding.o: $(CORE) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) -O2 $(CWARN) -Iinclude -ffreestanding -nostdlib -c tools/lib/host-core.c -o $@

tools: tools/sframe-dump tools/sframe-verify tools/sframe-gen
tools/sframe-dump: $(DUMP_SRCS) $(CORE) $(TOOL_HDRS) $(CORE_HDRS)
	$(CC) $(HOST_CFLAGS) -o $@ $(DUMP_SRCS)

# sframe-gen: SFrame from DWARF CFI (tools/gen/cfi.c); its checks run sanitized.
GEN_SRCS	:= $(call tool-srcs,$(sframe-gen-objs))
GEN_HDRS	:= $(wildcard tools/gen/*.h) $(TOOL_HDRS) $(CORE_HDRS)
tools/sframe-gen: $(GEN_SRCS) $(CORE) $(GEN_HDRS)
	$(CC) $(HOST_CFLAGS) -o $@ $(GEN_SRCS)

$(HOST)/sframe-gen-san: $(GEN_SRCS) $(CORE) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -o $@ $(GEN_SRCS)

$(HOST)/test-cfi: tools/testing/test-cfi.c tools/gen/cfi.c tools/lib/elf.c tools/gen/cfi.h tools/lib/elf.h $(TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -o $@ tools/testing/test-cfi.c tools/gen/cfi.c tools/lib/elf.c

# The verifier is also a kernel hostprog (tools/Kbuild): these sources,
# -Iinclude.
VERIFY_SRCS	:= $(call tool-srcs,$(sframe-verify-objs))
VERIFY_HDRS	:= tools/verify/verify.h $(TOOL_HDRS)
tools/sframe-verify: $(VERIFY_SRCS) $(CORE) $(VERIFY_HDRS) $(CORE_HDRS)
	$(CC) $(HOST_CFLAGS) -o $@ $(VERIFY_SRCS)

$(HOST)/sframe-verify-san: $(VERIFY_SRCS) $(CORE) $(VERIFY_HDRS) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -o $@ $(VERIFY_SRCS)

$(HOST)/sframe-dump-san: $(DUMP_SRCS) $(CORE) $(TOOL_HDRS) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -o $@ $(DUMP_SRCS)

$(HOST)/test-%: tools/testing/test-%.c $(TEST_SRCS) $(TOOL_SRCS) $(CORE) $(TEST_HDRS) $(TOOL_HDRS) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -o $@ $< $(TEST_SRCS) $(TOOL_SRCS) $(CORE)

# The core recompiled with a fault-injecting accessor (it includes
# lib/sframe/*.c itself, as a user-memory build would).
$(HOST)/test-accessor: tools/testing/test-accessor.c tools/testing/fault-access.h tools/lib/elf.c tools/lib/elf.h $(CORE) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -Itools/testing -o $@ $< tools/lib/elf.c

# libsframe 2.40 shares symbol names with the core: pre-link it with its
# glue and keep only the ls_* entry points global.
$(HOST)/libsframe-glue.o: tools/bench/libsframe-glue.c tools/bench/libsframe-glue.h
	@mkdir -p $(@D)
	$(CC) -O2 -g -c $< -o $(HOST)/glue-only.o
	ld -r $(HOST)/glue-only.o $$($(CC) -print-file-name=libsframe.a) -o $(HOST)/glue-partial.o
	objcopy -w --keep-global-symbol='ls_*' $(HOST)/glue-partial.o $@

$(HOST)/test-libsframe: tools/testing/test-libsframe.c $(HOST)/libsframe-glue.o $(TOOL_SRCS) $(CORE) $(TOOL_HDRS) $(CORE_HDRS)
	$(CC) $(SAN_CFLAGS) -o $@ $< $(HOST)/libsframe-glue.o $(TOOL_SRCS) $(CORE)

# The one frame step, also on this program's own stack: assembled with
# --gsframe so that it has an SFrame section of its own.
$(HOST)/test-step: tools/testing/test-step.c tools/testing/harness.h $(CORE) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -Wa,--gsframe -o $@ $< $(CORE)

HOST_TESTS := $(HOST)/test-core $(HOST)/test-malformed $(HOST)/test-libsframe \
	      $(HOST)/test-accessor $(HOST)/test-step $(HOST)/test-cfi \
	      $(HOST)/sframe-gen-san tools/sframe-gen \
	      $(HOST)/sframe-dump-san $(HOST)/sframe-freestanding.o tools/sframe-dump \
	      $(HOST)/sframe-verify-san

deps-host:
	@scripts/deps-host.sh

check-host: deps-host
	@$(MAKE) --no-print-directory -s -j$(shell nproc) $(HOST_TESTS)
	@mkdir -p $(RESULTS)
	@tools/testing/run-host-tests.sh | tee $(RESULTS)/host.txt
	@scripts/summary.sh $(RESULTS)/host.txt

$(HOST)/fuzz-sframe: tools/testing/fuzz-sframe.c tools/gen/cfi.c tools/gen/cfi.h $(TOOL_SRCS) $(CORE) $(TOOL_HDRS) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CLANG) -O1 -g -Iinclude -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $< tools/lib/dump.c tools/gen/cfi.c $(CORE)

fuzz: deps-host $(HOST)/fuzz-sframe
	@tools/testing/run-fuzz.sh $(HOST)/fuzz-sframe $(FUZZ_SECONDS)

$(HOST)/bench-sframe: tools/bench/bench-sframe.c tools/bench/libc-alloc.h $(HOST)/libsframe-glue.o $(TOOL_SRCS) $(CORE) $(TOOL_HDRS) $(CORE_HDRS)
	$(CC) -O2 -g -std=gnu11 $(CWARN) -Iinclude -o $@ $< $(HOST)/libsframe-glue.o $(TOOL_SRCS) $(CORE)

bench-host: deps-host $(HOST)/bench-sframe
	@tools/bench/run-bench.sh $(HOST)/bench-sframe

# Everything: host tests, both test kernels, lint, KUnit and boot tests.
check:
	@DEEP=$(DEEP) CHECK_BUDGET=$(CHECK_BUDGET) scripts/check.sh

results:
	@scripts/results.sh

clean:
	rm -rf $(HOST) tools/sframe-dump tools/sframe-verify tools/sframe-gen

-include scripts/kernel.mk
