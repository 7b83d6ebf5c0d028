# SPDX-License-Identifier: GPL-2.0-only
#
# The objects of each program in tools/: one list for the kernel build
# (tools/Kbuild, host programs) and the host Makefile.
# sframe-host-core.o is the core, ../lib/sframe/, built for the
# host (Kbuild links a host program only from its own directory).
sframe-verify-objs := sframe-verify.o verify-x86.o verify-arm64.o \
		      verify-fixups.o verify-ivals.o verify-exceptions.o \
		      elf.o sframe-elf.o sframe-host-core.o
sframe-gen-objs := sframe-gen.o cfi.o sframe-write.o sframe-layout.o \
		   sframe-object.o sframe-merge.o dump.o elf.o sframe-elf.o \
		   sframe-host-core.o
sframe-dump-objs := sframe-dump.o dump.o elf.o sframe-elf.o \
		    sframe-host-core.o
