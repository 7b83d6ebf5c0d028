// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify: build-time verification of the SFrame data of a kernel
 * image, module or object.
 *
 *   sframe-verify [--exceptions FILE] [--policy fail|warn]
 *                 [--write-fixups|--count-fixups]
 *                 [--module-fixups FILE] [--quiet] [--verbose] ELF...
 *
 * Checks, per input:
 *  - coverage: every byte of every code symbol has an SFrame row, an
 *    annotation (.sframe_annot) or an entry in the exceptions file;
 *  - x86_64: the SFrame rules agree with ORC at every instruction (over the
 *    union of the row boundaries of both tables); disagreements are
 *    classified (stack-switch, pushf-pop, iret-to-self, unknown);
 *  - arm64: every FDE matches a symbol, and rows follow the AAPCS64 frame
 *    record (RA saved next to FP, CFA at or above SP).
 *
 * --write-fixups (vmlinux) records every range where SFrame is covered but
 * wrong, and no annotation covers it, as an SFRAME_ANNOT_UNRELIABLE entry
 * in the reserved tail of .sframe_annot, then sorts the table by address.
 *
 * --count-fixups prints only the number of entries --write-fixups would
 * write: the build links that many empty slots into vmlinux.
 *
 * --module-fixups FILE (one module or object) writes the same ranges to
 * FILE as struct sframe_annot_fixup entries (include/sframe/annot.h):
 * relative to the FDE whose function contains them, so they need no
 * relocation; the build adds FILE to the .ko as section .sframe_fixup.
 * A module's .sframe holds one SFrame section per object file linked into
 * it: every check covers all of them.
 *
 * Exit status: 0 clean (or --policy warn), 1 unknown findings or too few
 * fixup slots, 2 malformed input or bad usage.
 *
 * This file is the driver: the options, and the order of the work on
 * each input.  input.c reads an input, coverage.c, x86.c, arm64.c and
 * fixups.c check it, report.c prints the findings and the summary;
 * verify.h lists them all.  Built from them, tools/lib/ and lib/sframe/
 * (-Iinclude); plain C and libc only, so it can also be a kernel hostprog
 * (tools/Kbuild).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "verify.h"

const char *prog = "sframe-verify";

static struct verify_opts opt;

static int verify(const char *path)
{
	struct input in = { .path = path, .opt = &opt };
	const char *why;
	int ret = 0;

	if (elf_file_open(&in.f, path, &why))
		die(path, "%s", why);
	if (in.f.sec_why)
		die(path, "%s", in.f.sec_why);
	if (opt.modfix && in.f.type != ELF_ET_REL)
		die(path, "--module-fixups needs a module or object (ET_REL), not a linked ELF");
	elf_layout_rel(&in.f);
	switch (in.f.machine) {
	case ELF_EM_X86_64:
		in.arch = "x86_64";
		break;
	case ELF_EM_AARCH64:
		in.arch = "arm64";
		break;
	default:
		in.arch = "other";
	}
	exc_reset();
	exc_resolve(&in);
	load_sframe(&in);
	load_annots(&in);
	load_symbols(&in);
	if (in.f.machine == ELF_EM_X86_64) {
		load_orc(&in);
		load_alts(&in);
	}
	check_coverage(&in);
	check_annot_spans(&in);
	if (in.st.has_orc)
		check_orc(&in);
	if (in.f.machine == ELF_EM_AARCH64 && in.has_sframe)
		check_arm64(&in);
	if (do_fixups(&in, opt.fixups))
		ret = 1;
	if (opt.modfix)
		do_module_fixups(&in, opt.modfix);
	if (opt.count) {
		/* --count-fixups: the number alone, for the build to size by */
		printf("%" PRIu64 "\n", in.st.nfix);
		ret = 0;
		goto out;
	}
	if (opt.verbose)
		exc_print_hits(path);
	print_summary(&in);
	if ((in.st.unknown || in.st.wrong_unknown || in.st.arm_unknown) &&
	    !opt.warn)
		ret = 1;
out:
	input_free(&in);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [--exceptions FILE] [--policy fail|warn] [--write-fixups|--count-fixups]\n"
		"       [--module-fixups FILE] [--quiet] [--verbose] ELF...\n"
		"  --exceptions FILE  known gaps (see scripts/sframe-verify-exceptions)\n"
		"  --policy fail      unknown findings exit 1 (default); warn: exit 0\n"
		"  --write-fixups     vmlinux: UNRELIABLE entries into .sframe_annot\n"
		"  --count-fixups     print only the number of UNRELIABLE entries needed\n"
		"                     (the build sizes vmlinux's fixup slots by it)\n"
		"  --module-fixups FILE\n"
		"                     one module/object: FDE-relative UNRELIABLE entries\n"
		"                     (struct sframe_annot_fixup) into FILE, for .sframe_fixup\n"
		"  --quiet            only unknown findings and the summary\n"
		"  --verbose          every finding, known ones included\n",
		prog);
}

int main(int argc, char **argv)
{
	int i, nfiles = 0, ret = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			argv[nfiles++] = argv[i];
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--verbose")) {
			opt.verbose = 1;
		} else if (!strcmp(a, "--quiet")) {
			opt.quiet = 1;
		} else if (!strcmp(a, "--write-fixups")) {
			opt.fixups = 1;
		} else if (!strcmp(a, "--count-fixups")) {
			opt.count = 1;
		} else if (!strcmp(a, "--module-fixups") && i + 1 < argc) {
			opt.modfix = argv[++i];
		} else if (!strcmp(a, "--policy") && i + 1 < argc &&
			   (!strcmp(argv[i + 1], "fail") ||
			    !strcmp(argv[i + 1], "warn"))) {
			opt.warn = argv[++i][0] == 'w';
		} else if (!strcmp(a, "--exceptions") && i + 1 < argc) {
			exc_load(argv[++i]);
		} else {
			fprintf(stderr, "%s: bad option %s\n", prog, a);
			usage(stderr);
			return 2;
		}
	}
	if (!nfiles) {
		usage(stderr);
		return 2;
	}
	if (opt.modfix) {
		struct stat a, b;

		if (nfiles != 1) {
			fprintf(stderr, "%s: --module-fixups: one input ELF expected, got %d\n",
				prog, nfiles);
			return 2;
		}
		if (!stat(opt.modfix, &a) && !stat(argv[0], &b) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			fprintf(stderr, "%s: --module-fixups: %s is the input ELF\n",
				prog, opt.modfix);
			return 2;
		}
		/* no stale fixups if this run fails */
		if (remove(opt.modfix) && errno != ENOENT) {
			fprintf(stderr, "%s: %s: %s\n", prog, opt.modfix,
				strerror(errno));
			return 2;
		}
	}
	if (opt.verbose)
		opt.quiet = 0;
	for (i = 0; i < nfiles; i++)
		ret |= verify(argv[i]);
	return ret;
}

