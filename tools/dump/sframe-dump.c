// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-dump: print, look up and validate SFrame sections.
 *
 *   sframe-dump FILE...                  like readelf --sframe FILE
 *   sframe-dump --raw --addr ADDR FILE   FILE is a raw section at ADDR
 *   sframe-dump --lookup PC FILE         FDE, FRE and rule for PC
 *   sframe-dump --validate FILE          exit 0 iff the section is valid
 *
 * A relocatable object's .sframe may hold several sections, one per object
 * file `ld -r` linked (a kernel module's): each is printed and validated,
 * and lookups use the first one with an FDE for the PC.  readelf prints
 * the first only, so the output starts as readelf's.
 *
 * Malformed input gets one line on stderr and exit status 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/dump.h"
#include "../lib/sframe-elf.h"

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

/*
 * A relocatable object's .sframe is a sequence of sections, one per object
 * file `ld -r` linked (see sframe_open_part()); anything else holds one
 * section, which a segment may follow with padding.
 */
static int open_sections(const struct sframe_blob *b, int is_rel,
			 struct sframe_section **parts, size_t *n,
			 uint64_t *off)
{
	int err;

	if (is_rel)
		return sframe_open_parts(b->data, b->size, b->addr, 0, parts, n,
					 off);
	*n = 0;
	*off = 0;
	*parts = malloc(sizeof(**parts));
	if (!*parts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	err = sframe_open(*parts, b->data, b->size, b->addr, 0);
	if (err) {
		free(*parts);
		*parts = NULL;
	} else {
		*n = 1;
	}
	return err;
}

/* @name, or "@name [part @k at offset @off]" after the first section. */
static const char *part_name(char *buf, size_t len, const char *name,
			     size_t k, uint64_t off)
{
	if (!k)
		return name;
	snprintf(buf, len, "%s [part %zu at offset 0x%" PRIx64 "]", name, k,
		 off);
	return buf;
}

/* The first section with an answer for @pc (the first one if none). */
static const struct sframe_section *
part_of(const struct sframe_section *parts, size_t n, uint64_t pc)
{
	struct sframe_fde fde;
	size_t k;

	for (k = 0; k < n; k++)
		if (sframe_find_fde(&parts[k], pc, &fde) != -SFRAME_E_NO_FDE)
			return &parts[k];
	return &parts[0];
}

static int process(const char *path, const struct opts *o, int multi)
{
	struct elf_file f = { 0 };
	struct sframe_blob b = { 0 };
	struct sframe_section *parts = NULL, *sec;
	struct report_ctx rc = { .file = path };
	char file[4096], name[64];
	const char *why = NULL;
	uint8_t *raw = NULL;
	size_t rawsize;
	uint64_t off;
	size_t n, k;
	int err, i, ret = 0, is_rel;

	if (o->raw) {
		err = sframe_read_file(path, &raw, &rawsize);
		if (err) {
			fprintf(stderr, "%s: %s: %s\n", prog, path,
				strerror(-err));
			return 1;
		}
		b.data = raw;
		b.size = rawsize;
		b.addr = o->addr;
	} else if (elf_file_open(&f, path, &why) ||
		   sframe_elf_find(&f, &b, 0, &why)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, why);
		ret = 1;
		goto out;
	}
	is_rel = !o->raw && f.type == ELF_ET_REL;

	err = open_sections(&b, is_rel, &parts, &n, &off);
	/* readelf 2.46 applies .rela.sframe; 2.40 (the v1 reference) does not. */
	if (!err && is_rel && parts[0].version >= SFRAME_VERSION_2) {
		free(parts);
		parts = NULL;
		if (sframe_elf_find(&f, &b, 1, &why)) {
			fprintf(stderr, "%s: %s: .rela.sframe: %s\n", prog,
				path, why);
			ret = 1;
			goto out;
		}
		err = open_sections(&b, is_rel, &parts, &n, &off);
	}
	if (err) {
		fprintf(stderr, "%s: %s: %s: %s\n", prog,
			part_name(file, sizeof(file), path, n, off),
			sframe_errname(err), sframe_strerror(err));
		ret = 1;
		goto out;
	}

	for (k = 0; k < n; k++) {
		sec = &parts[k];
		off = sec->data - b.data;
		rc.file = part_name(file, sizeof(file), path, k, off);
		err = sframe_validate(sec, o->validate ? report : NULL, &rc);
		if (o->validate && !err)
			printf("%s: valid SFrame v%u section: %u FDEs, %u FREs, %u bytes\n",
			       rc.file, sec->version, sec->num_fdes,
			       sec->num_fres, sec->size);
		if (err && !o->validate) {
			report(&rc, err, SFRAME_NO_INDEX, SFRAME_NO_INDEX);
			ret = 1;
			goto out;
		}
		if (err)
			ret = 1;
	}
	if (o->validate)
		goto out;

	if (o->nlookups) {
		for (i = 0; i < o->nlookups; i++)
			if (sframe_dump_lookup(stdout, part_of(parts, n,
							       o->lookups[i]),
					       o->lookups[i]))
				ret = 1;
		goto out;
	}
	if (multi)
		printf("\nFile: %s\n", path);
	for (k = 0; k < n; k++) {
		sec = &parts[k];
		off = sec->data - b.data;
		if (k)
			printf("\n");
		err = sframe_dump(stdout, sec, part_name(name, sizeof(name),
							 ".sframe", k, off));
		if (err) {
			rc.file = part_name(file, sizeof(file), path, k, off);
			report(&rc, err, SFRAME_NO_INDEX, SFRAME_NO_INDEX);
			ret = 1;
			break;
		}
	}
out:
	free(parts);
	free(raw);
	elf_file_close(&f);
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
