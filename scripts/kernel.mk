# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel harness targets, included by the top-level Makefile.
# ARCH is also a kbuild variable: it is passed to the scripts explicitly.
# KVER=6.1|6.12 picks the kernel line of every target (default 6.1).
#
#   make kernel [ARCH=x86_64|arm64]   deps, prepare build/linux, build
#   make kernel-all                   the same for both arches
#   make kunit [ARCH=...]             KUnit suites via kunit.py exec
#   make qemu-test [ARCH=...]         boot + smoke checks
#   make run [ARCH=...]               the tour: traces, a livepatch transition, benchmarks, user chains
#   make lint                         checkpatch, sparse, kernel-doc, shellcheck,
#                                     reST, the series of both lines
#   make check-defconfig [ARCH=...]   the arch's defconfig + our options:
#                                     build, verify, boot, KUnit (slow)
#   make check-gen [ARCH=...]         SFrame generated from CFI (sframe-gen)
#                                     instead of gas: build, verify, boot, KUnit
#   make check-clang [ARCH=...]       the same kernel built by clang (LLVM=1)
#   make check-lockdep [ARCH=...]     lockdep, PROVE_RCU, atomic-sleep and
#                                     preempt checks: build, boot, KUnit
#   make check-kasan [ARCH=...]       KASAN + lockdep: build, KUnit, boot tests
#   make check-kcsan                  x86_64 with KCSAN: churn, user tests
#   make check-configs                our objects in 11 Kconfig combinations
#                                     (scripts/check-configs.sh), both arches
#   make series [KVER=...]            the line's patch series as mails from
#                                     you (git config), checked, in
#                                     build/series-KVER/, and its
#                                     self-contained form in .../upstream/
#   make series-bisect [KVER=... ARCH=...]
#                                     build every patch of that form
#                                     (SERIES_FROM=N, SERIES_TO=M: only
#                                     patches N to M)
#   make bench-kernel [ARCH=...]      unwinder and user callchain benchmarks,
#                                     -icount (twice) and TCG, one line per goal

ARCH ?= x86_64
KERNEL_ARCHES := x86_64 arm64
# The kernel line: KVER=6.1 (default) or 6.12; make check runs both
# unless one is given (KVER=all: both).  The scripts read it from the
# environment (scripts/common.sh).
ifdef KVER
export KVER
endif
HARNESS := $(dir $(lastword $(MAKEFILE_LIST)))

.PHONY: kernel-deps kernel-prepare kernel kernel-all kunit qemu-test run lint \
	check-defconfig check-gen check-clang check-lockdep check-kasan check-kcsan \
	check-configs bench-kernel series series-bisect

kernel-deps:
	@$(HARNESS)deps.sh

kernel-prepare: kernel-deps
	@$(HARNESS)prepare-kernel.sh

kernel: kernel-prepare
	@$(HARNESS)build-kernel.sh $(ARCH)

kernel-all: kernel-prepare
	@set -e; for a in $(KERNEL_ARCHES); do $(HARNESS)build-kernel.sh $$a; done

kunit:
	@$(HARNESS)kunit.sh $(ARCH)

qemu-test:
	@$(HARNESS)qemu-test.sh $(ARCH)

run: kernel tools
	@$(HARNESS)tour.sh $(ARCH)

lint: kernel-prepare
	@$(HARNESS)lint.sh

check-defconfig: tools
	@$(HARNESS)check-variant.sh defconfig $(ARCH)

check-gen: tools
	@$(HARNESS)check-variant.sh gen $(ARCH)

check-clang: tools
	@$(HARNESS)check-variant.sh clang $(ARCH)

check-lockdep: tools
	@$(HARNESS)check-variant.sh lockdep $(ARCH)

check-kasan: tools
	@$(HARNESS)check-variant.sh kasan $(ARCH)

check-kcsan: tools
	@$(HARNESS)check-variant.sh kcsan x86_64

series: kernel-prepare
	@$(HARNESS)series.sh

series-bisect:
	@$(HARNESS)series-bisect.sh $(ARCH)

check-configs: kernel-prepare
	@$(HARNESS)check-configs.sh

bench-kernel:
	@$(HARNESS)bench-kernel.sh $(ARCH)
