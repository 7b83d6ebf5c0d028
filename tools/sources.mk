# SPDX-License-Identifier: GPL-2.0-only
#
# The objects of each program in tools/: one list for the kernel build
# (tools/Kbuild, host programs) and the host Makefile.  Each program has
# its directory (dump/, gen/, verify/); lib/ is what they share: the ELF
# reader, the SFrame section of an ELF file, readelf's format, the writer's
# layout, and host-core.o, the core of ../lib/sframe/ built for the host.
tools-lib-objs := lib/elf.o lib/sframe-elf.o lib/host-core.o
sframe-verify-objs := verify/sframe-verify.o verify/input.o \
		      verify/coverage.o verify/x86.o verify/arm64.o \
		      verify/fixups.o verify/ivals.o verify/exceptions.o \
		      verify/report.o $(tools-lib-objs)
sframe-gen-objs := gen/sframe-gen.o gen/cfi.o gen/write.o gen/object.o \
		   gen/merge.o lib/layout.o lib/dump.o $(tools-lib-objs)
sframe-dump-objs := dump/sframe-dump.o lib/dump.o $(tools-lib-objs)
