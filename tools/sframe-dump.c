// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-dump: print, look up and validate SFrame sections.
 *
 *   sframe-dump FILE...                  like readelf --sframe FILE
 *   sframe-dump --raw --addr ADDR FILE   FILE is a raw section at ADDR
 *   sframe-dump --lookup PC FILE         FDE, FRE and rule for PC
 *   sframe-dump --validate FILE          exit 0 iff the section is valid
 *
 * Malformed input gets one line on stderr and exit status 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dump.h"
#include "elf.h"

#define MAX_LOOKUPS 64

struct opts {
	int raw, validate;
	int have_addr;
	uint64_t addr;
	int nlookups;
	uint64_t lookups[MAX_LOOKUPS];
};

static const char *prog = "sframe-dump";

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s [--raw --addr ADDR] [--lookup PC]... [--validate] FILE...\n", prog);
	fprintf(f,
		"  FILE           ELF file (section .sframe or PT_GNU_SFRAME)\n"
		"  --raw          FILE holds the raw section bytes\n"
		"  --addr ADDR    run-time address of the raw section's first byte\n"
		"  --lookup PC    print the FDE, FRE and rule chosen for PC\n"
		"  --validate     check the whole section; exit 1 on any problem\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || !*s || *end ? -1 : 0;
}

struct report_ctx {
	const char *file;
	int count;
};

static void report(void *arg, int err, u32 fde, u32 fre)
{
	struct report_ctx *r = arg;

	fprintf(stderr, "%s: %s: %s: %s", prog, r->file, sframe_errname(err),
		sframe_strerror(err));
	if (fde != SFRAME_NO_INDEX)
		fprintf(stderr, " (fde %u", fde);
	if (fde != SFRAME_NO_INDEX && fre != SFRAME_NO_INDEX)
		fprintf(stderr, ", fre %u", fre);
	fprintf(stderr, "%s\n", fde != SFRAME_NO_INDEX ? ")" : "");
	r->count++;
}

static int process(const char *path, const struct opts *o, int multi)
{
	struct sframe_blob b = { 0 };
	struct sframe_section sec;
	struct report_ctx rc = { .file = path };
	const char *why = NULL;
	int err, i, ret = 0;

	err = sframe_read_file(path, &b.file, &b.file_size);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(-err));
		return 1;
	}
	if (o->raw) {
		b.data = b.file;
		b.size = b.file_size;
		b.addr = o->addr;
		b.name = ".sframe";
	} else if (sframe_elf_find(&b, 0, &why)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, why);
		ret = 1;
		goto out;
	}

	err = sframe_open(&sec, b.data, b.size, b.addr, 0);
	/* readelf 2.46 applies .rela.sframe; 2.40 (the v1 reference) does not. */
	if (!err && b.is_rel && sec.version >= SFRAME_VERSION_2) {
		if (sframe_elf_find(&b, 1, &why)) {
			fprintf(stderr, "%s: %s: %s\n", prog, path, why);
			ret = 1;
			goto out;
		}
		err = sframe_open(&sec, b.data, b.size, b.addr, 0);
	}
	if (err) {
		fprintf(stderr, "%s: %s: %s: %s\n", prog, path,
			sframe_errname(err), sframe_strerror(err));
		ret = 1;
		goto out;
	}

	err = sframe_validate(&sec, o->validate ? report : NULL, &rc);
	if (o->validate) {
		if (!err)
			printf("%s: valid SFrame v%u section: %u FDEs, %u FREs, %u bytes\n",
			       path, sec.version, sec.num_fdes, sec.num_fres,
			       sec.size);
		ret = err ? 1 : 0;
		goto out;
	}
	if (err) {
		report(&rc, err, SFRAME_NO_INDEX, SFRAME_NO_INDEX);
		ret = 1;
		goto out;
	}

	if (o->nlookups) {
		for (i = 0; i < o->nlookups; i++)
			if (sframe_dump_lookup(stdout, &sec, o->lookups[i]))
				ret = 1;
		goto out;
	}
	if (multi)
		printf("\nFile: %s\n", path);
	err = sframe_dump(stdout, &sec, b.name);
	if (err) {
		report(&rc, err, SFRAME_NO_INDEX, SFRAME_NO_INDEX);
		ret = 1;
	}
out:
	free(b.file);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	int i, nfiles = 0, ret = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			nfiles++;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--raw")) {
			o.raw = 1;
		} else if (!strcmp(a, "--validate")) {
			o.validate = 1;
		} else if (!strcmp(a, "--addr") || !strcmp(a, "--lookup")) {
			uint64_t v;

			if (i + 1 >= argc || parse_u64(argv[i + 1], &v)) {
				fprintf(stderr, "%s: %s needs a number\n", prog, a);
				return 1;
			}
			i++;
			if (a[2] == 'a') {
				o.addr = v;
				o.have_addr = 1;
			} else if (o.nlookups >= MAX_LOOKUPS) {
				fprintf(stderr, "%s: at most %d --lookup\n", prog,
					MAX_LOOKUPS);
				return 1;
			}
			if (a[2] == 'l')
				o.lookups[o.nlookups++] = v;
		} else {
			fprintf(stderr, "%s: unknown option %s\n", prog, a);
			usage(stderr);
			return 1;
		}
	}
	if (!nfiles || (o.have_addr && !o.raw)) {
		usage(stderr);
		return 1;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--addr") || !strcmp(argv[i], "--lookup")) {
			i++;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1])
			continue;
		ret |= process(argv[i], &o, nfiles > 1);
	}
	return ret;
}
