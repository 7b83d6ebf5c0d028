// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-gen: SFrame from DWARF CFI (the CFI reader is tools/gen/cfi.c), and
 * the SFrame sections of a relocatable link merged into one.
 *
 *   sframe-gen [--sframe-version 1|2|3] [--addr ADDR] -o OUT FILE
 *   sframe-gen --object [--section NAME] -o OUT.o FILE.o
 *   sframe-gen --merge -o OUT.o FILE.o
 *   sframe-gen --compare FILE...
 *
 * Without --compare: the SFrame section (v3 unless asked otherwise) of the
 * functions FILE's CFI describes, as raw bytes for a section loaded at
 * ADDR (default: where FILE's own .sframe is, else 0).  Functions with a
 * row SFrame cannot express are left out and counted, never approximated;
 * the result is validated by the SFrame core and checked against the CFI
 * at every byte before it is written.
 *
 * --object: a copy of the relocatable FILE.o with that section added,
 * relocated as gas relocates its own (tools/gen/object.c).
 *
 * --merge: a copy of FILE.o (vmlinux.o) whose .sframe is the SFrame
 * sections `ld -r` concatenated into .sframe_cat, as one section
 * (tools/gen/merge.c).
 *
 * --compare:
 * For each ELF file (object, executable, shared library, vmlinux, .ko;
 * x86_64 or AArch64) the rows its .eh_frame (else .debug_frame) gives are
 * compared, at every byte of every function, with the rows of the file's
 * own .sframe (gas --gsframe), read through the SFrame core: one line per
 * file with the agreement, and a line per disagreeing function (at most
 * --max-report).  Functions whose CFI SFrame cannot express are counted
 * with the reason.  Exit status 0, or 1 on a malformed file (one line).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sframe/sframe.h>
#include "cfi.h"
#include "../lib/elf.h"
#include "../lib/sframe-elf.h"
#include "merge.h"
#include "object.h"
#include "write.h"

struct stats {
	uint64_t fdes, fdes_inexpressible, fdes_gas, fdes_no_gas, fdes_flex,
		 fdes_v1_undef;
	uint64_t pcs, agree, differ;
	uint64_t why[CFI_WHY_MAX], flex[CFI_WHY_MAX];
};

static unsigned int max_report = 10;

/*
 * --section NAME: the name of the section --object adds.  GNU ld 2.40
 * merges what goes into an output .sframe and reads v1 only; the kernel
 * links vmlinux.o's generated v3 section under another name (one input:
 * nothing to merge) and renames it afterwards.
 */
static const char *section_name = ".sframe";

/* --quiet: no summary line on success (builds print their own). */
static int quiet;

/* --allow-none: an input without CFI is no error; nothing is written. */
static int allow_none;

/* A row's location as the core decodes it (see sframe_fre_rule()). */
static void loc_rule(const struct cfi_loc *l, struct sframe_loc *r)
{
	memset(r, 0, sizeof(*r));
	switch (l->kind) {
	case CFI_LOC_CFA:
		r->kind = SFRAME_LOC_CFA;
		break;
	case CFI_LOC_REG:
		r->kind = SFRAME_LOC_REG;
		r->reg = l->reg;
		break;
	case CFI_LOC_UNDEF:
		r->kind = SFRAME_LOC_UNDEFINED;
		return;
	default:
		r->kind = SFRAME_LOC_SAME;
		return;
	}
	r->deref = l->deref;
	r->offset = l->off;
}

/* The rule the core gives for a row of @abi (see sframe_fre_rule()). */
static void row_rule(const struct cfi_abi *abi, const struct cfi_row *row,
		     struct sframe_rule *r)
{
	memset(r, 0, sizeof(*r));
	loc_rule(&row->cfa, &r->cfa);
	loc_rule(&row->ra, &r->ra);
	loc_rule(&row->fp, &r->fp);
	if (row->ra.kind == CFI_LOC_SAME && abi->machine == ELF_EM_X86_64) {
		r->ra.kind = SFRAME_LOC_CFA;	/* the fixed slot */
		r->ra.deref = 1;
		r->ra.offset = -8;
	}
}

static int same_loc(const struct sframe_loc *a, const struct sframe_loc *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == SFRAME_LOC_SAME || a->kind == SFRAME_LOC_UNDEFINED)
		return 1;
	return a->offset == b->offset && a->deref == b->deref &&
	       (a->kind != SFRAME_LOC_REG || a->reg == b->reg);
}

static int same_rule(const struct sframe_rule *a, const struct sframe_rule *b,
		     int mangled)
{
	/* The outermost frame: nothing else is recovered. */
	if (a->ra.kind == SFRAME_LOC_UNDEFINED)
		return b->ra.kind == SFRAME_LOC_UNDEFINED;
	return same_loc(&a->cfa, &b->cfa) && same_loc(&a->ra, &b->ra) &&
	       same_loc(&a->fp, &b->fp) &&
	       !!(b->flags & SFRAME_RULE_RA_MANGLED) == !!mangled;
}

static int loc_str(char *b, size_t n, const char *name,
		   const struct sframe_loc *l)
{
	const char *ld = l->deref ? "*" : "";

	if (l->kind == SFRAME_LOC_CFA)
		return snprintf(b, n, " %s=%scfa%+d", name, ld, (int)l->offset);
	if (l->kind == SFRAME_LOC_REG)
		return snprintf(b, n, " %s=%sr%u%+d", name, ld, l->reg,
				(int)l->offset);
	return snprintf(b, n, " %s=%s", name,
			l->kind == SFRAME_LOC_SAME ? "same" :
			l->kind == SFRAME_LOC_UNDEFINED ? "undefined" : "?");
}

static void rule_str(char *b, size_t n, const struct sframe_rule *r,
		     int mangled)
{
	int k = snprintf(b, n, "cfa=%sr%u%+d", r->cfa.deref ? "*" : "",
			 r->cfa.reg, (int)r->cfa.offset);

	k += loc_str(b + k, n - k, "ra", &r->ra);
	k += loc_str(b + k, n - k, "fp", &r->fp);
	if (mangled)
		snprintf(b + k, n - k, " signed");
}

/* "CFI ... gas ..." for the first difference of a function. */
static void describe(char *b, size_t n, const struct sframe_rule *want,
		     int mangled, int err, const struct sframe_rule *got)
{
	char w[64], g[64];

	rule_str(w, sizeof(w), want, mangled);
	if (err)
		snprintf(g, sizeof(g), "%s", sframe_errname(err));
	else
		rule_str(g, sizeof(g), got, got->flags & SFRAME_RULE_RA_MANGLED);
	snprintf(b, n, "CFI %s, gas %s", w, g);
}

static const char *symbol_at(struct elf_file *f, uint64_t addr)
{
	static char buf[160];
	struct elf_sym s;
	uint64_t i, n;

	n = f->symtab ? elf_nsyms(f, f->symtab) : 0;
	for (i = 0; i < n; i++) {
		if (elf_sym_get(f, f->symtab, i, &s) || s.type != ELF_STT_FUNC)
			continue;
		if (s.value == addr) {
			snprintf(buf, sizeof(buf), "%s", s.name);
			return buf;
		}
	}
	/* No function symbol (PLT stubs): the section's name. */
	for (i = 0; i < f->shnum; i++) {
		const struct elf_sec *sec = &f->secs[i];

		if ((sec->flags & ELF_SHF_EXECINSTR) && addr >= sec->vaddr &&
		    addr - sec->vaddr < sec->size) {
			snprintf(buf, sizeof(buf), "(%s)", sec->name);
			return buf;
		}
	}
	return "?";
}

static void compare_fde(struct elf_file *f, const struct cfi_abi *abi,
			const struct sframe_section *secs, size_t nsecs,
			const struct cfi_fde *fde, struct stats *st)
{
	uint64_t o, first_bad = 0, bad = 0;
	char what[160] = "";
	uint32_t r = 0;
	size_t k;
	int have = 0, flex = 0, undef = 0, v1 = 0;

	st->fdes++;
	for (r = 0; r < fde->nrows; r++) {
		if (fde->rows[r].why) {
			st->fdes_inexpressible++;
			st->why[fde->rows[r].why]++;
			return;
		}
		if (fde->rows[r].flex && !flex)
			flex = fde->rows[r].flex;
		undef |= fde->rows[r].ra.kind == CFI_LOC_UNDEF;
	}
	/* Does gas have an FDE for the function? */
	for (k = 0; k < nsecs && !have; k++) {
		struct sframe_fde sf;

		have = !sframe_find_fde(&secs[k], fde->start, &sf) &&
		       sf.start == fde->start;
		v1 = have && secs[k].version == SFRAME_VERSION_1;
	}
	/* v1 has no outermost-frame row: gas 2.40 writes an ordinary one. */
	if (have && undef && v1) {
		st->fdes_v1_undef++;
		return;
	}
	if (!have && flex) {
		/* Only a v3 FLEX FDE holds it: gas 2.40 (v1) drops it. */
		st->fdes_flex++;
		st->flex[flex]++;
		return;
	}
	if (!have) {
		st->fdes_no_gas++;
		return;
	}
	st->fdes_gas++;
	for (o = 0, r = 0; o < fde->size; o++) {
		struct sframe_rule want, got;
		int err = -SFRAME_E_NO_FDE;

		while (r + 1 < fde->nrows && fde->rows[r + 1].start <= o)
			r++;
		if (!fde->nrows || fde->rows[r].start > o)
			continue;	/* no row yet (CFI starts later) */
		row_rule(abi, &fde->rows[r], &want);
		for (k = 0; k < nsecs && err == -SFRAME_E_NO_FDE; k++)
			err = sframe_find(&secs[k], fde->start + o, &got);
		st->pcs++;
		if (!err && same_rule(&want, &got, fde->rows[r].mangled)) {
			st->agree++;
		} else {
			if (!bad++) {
				first_bad = o;
				describe(what, sizeof(what), &want,
					 fde->rows[r].mangled, err, &got);
			}
			st->differ++;
		}
	}
	if (bad && max_report) {
		max_report--;
			printf("  %s: %#" PRIx64 " %s: %" PRIu64 " of %" PRIu64
		       " bytes differ from gas, first at +%#" PRIx64 ": %s\n",
		       "differ", fde->start, symbol_at(f, fde->start), bad,
		       fde->size, first_bad, what);
	}
}

/* A file's CFI, read. */
struct input {
	struct elf_file f;
	struct cfi_abi abi;
	struct cfi_fde *fdes;
	size_t nfdes;
	int idx;		/* the CFI section */
};

static void input_free(struct input *in)
{
	cfi_free(in->fdes, in->nfdes);
	elf_file_close(&in->f);
}

/* Open @path and read its CFI; one line on stdout and -1 on failure. */
static int input_read(const char *path, struct input *in)
{
	struct elf_file *f = &in->f;
	const char *why = NULL;
	char err[200];
	int eh = 1;

	memset(in, 0, sizeof(*in));
	if (elf_file_open(f, path, &why)) {
		printf("sframe-gen: %s: %s\n", path, why);
		return -1;
	}
	if (f->machine == ELF_EM_X86_64) {
		in->abi = (struct cfi_abi){ .machine = f->machine,
			.sp = SFRAME_DWARF_AMD64_SP, .fp = SFRAME_DWARF_AMD64_FP,
			.ra = 16, .addr_size = 8 };
	} else if (f->machine == ELF_EM_AARCH64) {
		in->abi = (struct cfi_abi){ .machine = f->machine,
			.sp = SFRAME_DWARF_AARCH64_SP,
			.fp = SFRAME_DWARF_AARCH64_FP,
			.ra = SFRAME_DWARF_AARCH64_LR, .addr_size = 8,
			.be = f->be };
	} else {
		printf("sframe-gen: %s: not x86_64 or AArch64\n", path);
		goto fail;
	}
	if (f->type == ELF_ET_REL)
		elf_layout_rel(f);
	in->idx = elf_sec_find(f, ".eh_frame");
	if (in->idx < 0 || !f->secs[in->idx].size) {
		in->idx = elf_sec_find(f, ".debug_frame");
		eh = 0;
	}
	if (in->idx < 0 || !elf_sec_data(f, in->idx)) {
		if (allow_none) {
			input_free(in);
			return 1;
		}
		printf("sframe-gen: %s: no .eh_frame or .debug_frame\n", path);
		goto fail;
	}
	if (f->type == ELF_ET_REL && elf_apply_rela(f, in->idx, &why)) {
		printf("sframe-gen: %s: relocating %s: %s\n", path,
		       f->secs[in->idx].name, why);
		goto fail;
	}
	if (cfi_read(&in->abi, elf_sec_data(f, in->idx), f->secs[in->idx].size,
		     f->secs[in->idx].vaddr, eh, &in->fdes, &in->nfdes, err,
		     sizeof(err))) {
		printf("sframe-gen: %s: %s: %s\n", path, f->secs[in->idx].name,
		       err);
		goto fail;
	}
	return 0;
fail:
	input_free(in);
	return -1;
}

/* The file's own .sframe, opened (a sequence for objects). */
static const char *gas_sections(struct elf_file *f, struct sframe_section **secs,
				size_t *nsecs, struct sframe_blob *b)
{
	const char *why = NULL;
	uint64_t off;
	int e;

	*secs = NULL;
	*nsecs = 0;
	if (sframe_elf_find(f, b, 1, &why))
		return why;
	/* A linked file has one section (maybe padded); an object a sequence. */
	if (f->type == ELF_ET_REL) {
		e = sframe_open_parts(b->data, b->size, b->addr,
				      SFRAME_OPEN_RELOCATED, secs, nsecs, &off);
	} else {
		*secs = calloc(1, sizeof(**secs));
		*nsecs = 1;
		e = *secs ? sframe_open(*secs, b->data, b->size, b->addr, 0) :
			    -SFRAME_E_INVAL;
	}
	if (e) {
		free(*secs);
		*secs = NULL;
		return sframe_strerror(e);
	}
	return NULL;
}

static void compare_all(struct input *in, const struct sframe_section *secs,
			size_t nsecs, struct stats *st)
{
	size_t i;

	for (i = 0; i < in->nfdes; i++)
		if (in->fdes[i].size)
			compare_fde(&in->f, &in->abi, secs, nsecs, &in->fdes[i],
				    st);
}

static int compare(const char *path)
{
	struct sframe_section *secs;
	struct stats st = { 0 };
	struct sframe_blob b;
	struct input in;
	const char *why;
	size_t nsecs;
	int w;

	if (input_read(path, &in))
		return 1;
	why = gas_sections(&in.f, &secs, &nsecs, &b);
	if (why) {
		printf("sframe-gen: %s: no usable .sframe to check against (%s)\n",
		       path, why);
		input_free(&in);
		return 1;
	}
	compare_all(&in, secs, nsecs, &st);
	printf("%s: %s: %" PRIu64 " functions: %" PRIu64 " with SFrame in the file, %"
	       PRIu64 " expressible but without, %" PRIu64
	       " only in v3 (FLEX) and without, %" PRIu64
	       " inexpressible; %" PRIu64 " of %" PRIu64 " bytes agree (%.3f%%)\n",
	       path, in.f.secs[in.idx].name, st.fdes, st.fdes_gas,
	       st.fdes_no_gas, st.fdes_flex, st.fdes_inexpressible, st.agree,
	       st.pcs, st.pcs ? 100.0 * st.agree / st.pcs : 100.0);
	if (st.fdes_v1_undef)
		printf("  outermost frame (RA undefined), which v1 cannot mark: %" PRIu64
		       " functions (gas 2.40 writes an ordinary row)\n",
		       st.fdes_v1_undef);
	for (w = 1; w < CFI_WHY_MAX; w++)
		if (st.flex[w])
			printf("  only in v3 (FLEX): %" PRIu64 " functions: %s\n",
			       st.flex[w], cfi_why_str(w));
	for (w = 1; w < CFI_WHY_MAX; w++)
		if (st.why[w])
			printf("  inexpressible: %" PRIu64 " functions: %s\n",
			       st.why[w], cfi_why_str(w));
	free(secs);
	input_free(&in);
	return 0;
}

/*
 * Write @path's SFrame (version @version, loaded at @addr, or where the
 * file's own .sframe is, else 0) to @out; the core validates it and it
 * must give the CFI's rows at every byte of every function it holds.
 */
static int generate(const char *path, int version, const char *addr_arg,
		    const char *out, int object)
{
	struct sframe_write_opts o = { .version = version, .unsorted = object };
	struct sframe_section *gas = NULL, sec;
	struct stats st = { 0 };
	struct sframe_written w;
	struct sframe_blob b;
	struct input in;
	uint32_t *index = NULL, nwords;
	size_t ngas = 0;
	FILE *fp;
	int e, rc = 1;

	e = input_read(path, &in);
	if (e)
		return e < 0;	/* 1: no CFI, with --allow-none */
	o.machine = in.abi.machine;
	o.be = in.abi.be;
	o.abi = in.abi.machine == ELF_EM_X86_64 ? SFRAME_ABI_AMD64_ENDIAN_LITTLE :
		in.abi.be ? SFRAME_ABI_AARCH64_ENDIAN_BIG :
			    SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
	if (!gas_sections(&in.f, &gas, &ngas, &b))
		o.addr = b.addr;
	if (addr_arg)
		o.addr = strtoull(addr_arg, NULL, 0);
	if (sframe_write(&o, in.fdes, in.nfdes, &w)) {
		printf("sframe-gen: %s: out of memory\n", path);
		goto out;
	}
	e = sframe_open(&sec, w.buf, w.len, o.addr, 0);
	if (!e)
		e = sframe_validate(&sec, NULL, NULL);
	/*
	 * An object's section is not flagged sorted: index it, or the check
	 * below would search the FDEs linearly for every byte.
	 */
	if (!e && !(sec.flags & SFRAME_F_FDE_SORTED) &&
	    !sframe_index_size(&sec, 8, &nwords)) {
		index = calloc(nwords, sizeof(*index));
		if (index && sframe_index_build(&sec, 8, index, nwords)) {
			free(index);
			index = NULL;
		}
	}
	if (e) {
		printf("sframe-gen: %s: internal error: the written section is invalid: %s\n",
		       path, sframe_strerror(e));
		goto out_w;
	}
	compare_all(&in, &sec, 1, &st);
	if (st.differ) {
		printf("sframe-gen: %s: internal error: %" PRIu64
		       " bytes of the written section differ from the CFI\n",
		       path, st.differ);
		goto out_w;
	}
	if (object) {
		struct sframe_object_add a = {
			.name = section_name, .buf = w.buf, .len = w.len,
			.sec = &sec, .discard = -1,
		};
		const char *why;

		if (sframe_object_write(&in.f, &a, out, &why)) {
			printf("sframe-gen: %s: %s\n", path, why);
			goto out_w;
		}
	} else {
		fp = fopen(out, "wb");
		if (!fp || fwrite(w.buf, 1, w.len, fp) != w.len || fclose(fp)) {
			printf("sframe-gen: %s: cannot write %s\n", path, out);
			goto out_w;
		}
	}
	rc = 0;
	if (quiet)
		goto out_w;
	printf("%s: SFrame v%d at %#" PRIx64 " to %s: ", path, version, o.addr,
	       out);
	printf("%zu functions, %zu rows, %zu bytes (%s %" PRIu64 " bytes; ",
	       w.nfdes, w.nfres, w.len, in.f.secs[in.idx].name,
	       in.f.secs[in.idx].size);
	if (gas)
		printf("gas's .sframe %" PRIu64 " bytes); ", b.size);
	else
		printf("no .sframe of its own); ");
	printf("%zu functions left out; ", w.left_out);
	printf("%" PRIu64 " bytes checked against the CFI\n", st.pcs);
out_w:
	free(index);
	free(w.buf);
out:
	free(gas);
	input_free(&in);
	return rc;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: sframe-gen [--sframe-version 1|2|3] [--addr ADDR] -o OUT FILE\n"
		"       sframe-gen --object [--sframe-version 1|2|3] [--section NAME] [--quiet]\n"
		"                  [--allow-none] -o OUT.o FILE.o\n"
		"       sframe-gen --merge [--quiet] -o OUT.o FILE.o\n"
		"       sframe-gen --compare [--max-report N] FILE...\n");
}

int main(int argc, char **argv)
{
	const char *out = NULL, *addr = NULL;
	int i, rc = 0, files = 0, cmp = 0, version = 3, object = 0, merge = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--compare")) {
			cmp = 1;
		} else if (!strcmp(argv[i], "--object")) {
			object = 1;
		} else if (!strcmp(argv[i], "--merge")) {
			merge = 1;
		} else if (!strcmp(argv[i], "--quiet")) {
			quiet = 1;
		} else if (!strcmp(argv[i], "--allow-none")) {
			allow_none = 1;
		} else if (!strcmp(argv[i], "--section") && i + 1 < argc) {
			section_name = argv[++i];
			if (section_name[0] != '.' || strlen(section_name) > 64) {
				print_usage();
				return 2;
			}
		} else if (!strcmp(argv[i], "--max-report") && i + 1 < argc) {
			max_report = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--sframe-version") && i + 1 < argc) {
			version = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--addr") && i + 1 < argc) {
			addr = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] != '-') {
			files++;
		} else {
			print_usage();
			return 2;
		}
	}
	if (!files || (!cmp && (!out || files != 1)) ||
	    cmp + object + merge > 1 || version < 1 || version > 3) {
		print_usage();
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--max-report") ||
		    !strcmp(argv[i], "--section") ||
		    !strcmp(argv[i], "--sframe-version") ||
		    !strcmp(argv[i], "--addr") || !strcmp(argv[i], "-o")) {
			i++;
			continue;
		}
		if (argv[i][0] == '-')
			continue;
		if (cmp)
			rc |= compare(argv[i]);
		else if (merge)
			rc |= sframe_merge(argv[i], out, quiet);
		else
			rc |= generate(argv[i], version, addr, out, object);
	}
	return rc;
}
