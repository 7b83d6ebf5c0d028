// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify: reading an input.  Its code symbols and regions, its
 * .sframe (validated and indexed, part by part), its annotations
 * (.sframe_annot), and the helpers that end the program on malformed
 * input or without memory.  Nothing here judges the data: the checks are
 * in coverage.c, x86.c, arm64.c and fixups.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/search.h"
#include "verify.h"

/**
 * die() - report malformed input or a failure: one line, exit status 2
 * @path: the file concerned
 * @fmt: printf() format of the message
 */
void die(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", prog, path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/**
 * xcalloc() - calloc() that exits on failure
 * @n: number of elements (0 allocates one byte)
 * @size: size of an element
 *
 * Return: zeroed memory (free() it).
 */
void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	return p;
}

/**
 * xrealloc() - realloc() of an array that exits on failure or overflow
 * @p: the array, or NULL
 * @n: new number of elements
 * @size: size of an element
 *
 * Return: the array.
 */
void *xrealloc(void *p, size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	p = realloc(p, n && size ? n * size : 1);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	return p;
}

/**
 * xstrdup() - strdup() that exits on failure
 * @s: the string
 *
 * Return: the copy (free() it).
 */
char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xcalloc(n, 1), s, n);
}

/* Symbols and regions. */

static int cmp_region(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;	/* longest first */
	/* aliases: memcpy before __memcpy and __pi_memcpy */
	if (strspn(x->name, "_") != strspn(y->name, "_"))
		return strspn(x->name, "_") < strspn(y->name, "_") ? -1 : 1;
	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) < strlen(y->name) ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Code symbols: STT_FUNC, and sized STT_NOTYPE (assembly SYM_CODE), in
 * SHF_EXECINSTR sections, clipped to their section.  Overlapping bytes
 * (aliases, nested labels) belong to the earliest, longest symbol.
 */
void load_symbols(struct input *in)
{
	uint64_t i, n = elf_nsyms(&in->f, in->f.symtab), covered = 0;
	struct region *all;
	size_t na = 0, k;
	struct elf_sym s;

	all = xcalloc(n, sizeof(*all));
	for (i = 1; i < n; i++) {
		const struct elf_sec *sec;
		uint64_t end;

		if (elf_sym_get(&in->f, in->f.symtab, i, &s) || !s.shndx || !s.size ||
		    !*s.name)
			continue;
		if (s.type != ELF_STT_FUNC && s.type != ELF_STT_NOTYPE)
			continue;
		sec = &in->f.secs[s.shndx];
		if (!(sec->flags & ELF_SHF_EXECINSTR) ||
		    sec->type == ELF_SHT_NOBITS)
			continue;
		if (s.value < sec->vaddr || s.value - sec->vaddr >= sec->size)
			continue;
		end = sec->vaddr + sec->size;
		if (s.size < end - s.value)
			end = s.value + s.size;
		all[na].lo = s.value;
		all[na].hi = end;
		all[na].sym = s.value;
		all[na].name = s.name;
		all[na].shndx = s.shndx;
		na++;
	}
	qsort(all, na, sizeof(*all), cmp_region);
	in->allsyms = xcalloc(na, sizeof(*in->allsyms));
	in->regs = xcalloc(na, sizeof(*in->regs));
	for (k = 0; k < na; k++) {
		struct region r = all[k];
		size_t j = k;

		while (j + 1 < na && all[j + 1].lo == r.lo && all[j + 1].hi == r.hi)
			j++;
		r.alias = all + k;
		r.nalias = j - k + 1;

		in->allsyms[k].lo = r.lo;
		in->allsyms[k].hi = r.hi;
		iv_add(&in->symset, r.lo, r.hi);
		if (r.hi <= covered)
			continue;
		if (r.lo < covered)
			r.lo = covered;
		covered = r.hi;
		in->regs[in->nregs++] = r;
	}
	in->nallsyms = na;
	iv_merge(&in->symset);
	in->syms = all;
}

static int region_ends_above(const void *elem, const void *key)
{
	return ((const struct region *)elem)->hi > *(const uint64_t *)key;
}

/**
 * region_at() - the code region containing an address
 * @in: the input
 * @a: the address
 *
 * Return: the region, or NULL.
 */
struct region *region_at(const struct input *in, uint64_t a)
{
	size_t k = search_first(in->regs, in->nregs, sizeof(*in->regs), &a,
				region_ends_above);

	if (k < in->nregs && in->regs[k].lo <= a)
		return &in->regs[k];
	return NULL;
}

/**
 * region_or_fake() - the code region containing an address, for findings
 * @in: the input
 * @a: the address
 * @fake: filled in as "(no symbol)" when no region contains @a
 *
 * Return: the region, or @fake.
 */
const struct region *region_or_fake(const struct input *in, uint64_t a,
				    struct region *fake)
{
	const struct region *r = region_at(in, a);

	if (r)
		return r;
	memset(fake, 0, sizeof(*fake));
	fake->name = "(no symbol)";
	return fake;
}

/**
 * text_bytes() - the bytes at an address of an allocated section
 * @in: the input
 * @a: the address
 * @len: number of bytes, all in the same section
 *
 * Return: the first byte, or NULL.
 */
const uint8_t *text_bytes(const struct input *in, uint64_t a, uint64_t len)
{
	uint64_t i;

	for (i = 1; i < in->f.shnum; i++) {
		const struct elf_sec *s = &in->f.secs[i];
		const uint8_t *d = elf_sec_data(&in->f, i);

		if (!d || !(s->flags & ELF_SHF_ALLOC) || a < s->vaddr ||
		    a - s->vaddr > s->size || len > s->size - (a - s->vaddr))
			continue;
		return d + (a - s->vaddr);
	}
	return NULL;
}

/* SFrame. */

/* @off: offset of the bad section in .sframe (a sequence of sections). */
static void sframe_fail(const struct input *in, const char *what,
			uint64_t off, int err)
{
	if (off)
		die(in->path, "malformed .sframe: section at offset 0x%" PRIx64
		    ": %s: %s (%s)", off, what, sframe_strerror(err),
		    sframe_errname(err));
	die(in->path, "malformed .sframe: %s: %s (%s)", what,
	    sframe_strerror(err), sframe_errname(err));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Offset of part @p in .sframe. */
static uint64_t part_off(const struct input *in, const struct part *p)
{
	return p->sec.data - in->parts[0].sec.data;
}

/* Validate and index part @p, and note its rows and row boundaries. */
static void load_part(struct input *in, struct part *p, size_t *cap)
{
	uint64_t off = part_off(in, p);
	u32 i, nwords;
	int err;

	err = sframe_validate(&p->sec, NULL, NULL);
	if (err)
		sframe_fail(in, "validation", off, err);
	err = sframe_index_size(&p->sec, 12, &nwords);
	if (!err) {
		p->index = xcalloc(nwords, sizeof(u32));
		err = sframe_index_build(&p->sec, 12, p->index, nwords);
	}
	if (err)
		sframe_fail(in, "index", off, err);

	for (i = 0; i < p->sec.num_fdes; i++) {
		struct sframe_fde fde;
		struct sframe_fre fre;
		u32 k, q;

		err = sframe_get_fde(&p->sec, i, &fde);
		if (err)
			sframe_fail(in, "FDE", off, err);
		in->st.fdes++;
		if (in->nbounds + fde.num_fres + 2 > *cap) {
			*cap = 2 * *cap + fde.num_fres + 64;
			in->bounds = xrealloc(in->bounds, *cap, sizeof(uint64_t));
		}
		if (sframe_fde_pcmask(&fde)) {
			iv_add(&in->rows, fde.start, fde.start + fde.size);
			continue;
		}
		for (k = 0, q = fde.fres; k < fde.num_fres; k++, q = fre.next) {
			err = sframe_read_fre(&p->sec, &fde, q, &fre);
			if (err)
				sframe_fail(in, "FRE", off, err);
			if (!k)
				iv_add(&in->rows, fde.start + fre.start,
				       fde.start + fde.size);
			in->bounds[in->nbounds++] = fde.start + fre.start;
		}
		in->bounds[in->nbounds++] = fde.start + fde.size;
	}
}

/*
 * A linked ELF's .sframe is one section; a relocatable object's (a
 * module's) is a sequence of sections, one per object file linked into it
 * (see sframe_open_part()), read here as the module loader reads them.
 */
void load_sframe(struct input *in)
{
	int idx = elf_sec_find(&in->f, ".sframe"), err;
	struct sframe_section *secs;
	const char *why;
	const struct elf_sec *s;
	const uint8_t *data;
	uint64_t off = 0;
	size_t cap = 0, k;
	u32 first = 0;

	if (idx < 0)
		return;
	s = &in->f.secs[idx];
	if (!elf_sec_data(&in->f, idx))
		die(in->path, "malformed .sframe: no contents");
	if (in->f.type == ELF_ET_REL &&
	    elf_apply_rela(&in->f, idx, &why))
		die(in->path, ".rela.sframe: %s", why);
	data = elf_sec_data(&in->f, idx);
	if (in->f.type == ELF_ET_REL) {
		/* relocated as the module loader does */
		err = sframe_open_parts(data, s->size, s->vaddr,
					SFRAME_OPEN_RELOCATED, &secs,
					&in->nparts, &off);
	} else {
		secs = xcalloc(1, sizeof(*secs));
		in->nparts = 1;
		err = sframe_open(secs, data, s->size, s->vaddr, 0);
	}
	if (err)
		sframe_fail(in, "header", off, err);

	in->parts = xcalloc(in->nparts, sizeof(*in->parts));
	for (k = 0; k < in->nparts; k++) {
		struct part *p = &in->parts[k];

		p->sec = secs[k];
		p->first = first;
		first += p->sec.num_fdes;
		if (p->sec.abi != secs[0].abi)
			die(in->path, "malformed .sframe: section at offset 0x%"
			    PRIx64 " is for another ABI", part_off(in, p));
		load_part(in, p, &cap);
	}
	in->sec.sp_reg = secs[0].sp_reg;
	in->sec.fp_reg = secs[0].fp_reg;
	in->has_sframe = 1;
	free(secs);
	iv_merge(&in->rows);
	/* (no FDE, no bounds: gas may drop every FDE of an object) */
	if (in->nbounds)
		qsort(in->bounds, in->nbounds, sizeof(uint64_t), cmp_u64);
}

/**
 * input_free() - free what reading an input allocated, and close it
 * @in: the input
 */
void input_free(struct input *in)
{
	size_t k;

	for (k = 0; k < in->nparts; k++)
		free(in->parts[k].index);
	free(in->parts);
	free(in->regs);
	free(in->syms);
	free(in->allsyms);
	free(in->rows.v);
	free(in->symset.v);
	free(in->bounds);
	free(in->orc);
	free(in->alts);
	free(in->alt_repl);
	free(in->annots);
	free(in->annot_all.v);
	free(in->annot_ssi.v);
	free(in->fix.v);
	elf_file_close(&in->f);
}

/**
 * part_at() - the first part of .sframe with an FDE covering an address
 * @in: the input
 * @pc: the address
 * @fde: result: the FDE
 *
 * Return: the part, or NULL.
 */
const struct part *part_at(const struct input *in, uint64_t pc,
			   struct sframe_fde *fde)
{
	size_t k;

	for (k = 0; k < in->nparts; k++)
		if (!sframe_find_fde(&in->parts[k].sec, pc, fde))
			return &in->parts[k];
	return NULL;
}

/**
 * sframe_rule_at() - the SFrame rule at an address
 * @in: the input
 * @pc: the address
 * @r: result, from the first part of .sframe covering @pc
 *
 * Return: 0 if a part covers @pc, else a negative SFRAME_E_* code.
 */
int sframe_rule_at(const struct input *in, uint64_t pc, struct sframe_rule *r)
{
	int err = -SFRAME_E_NO_FDE;
	size_t k;

	for (k = 0; k < in->nparts && err == -SFRAME_E_NO_FDE; k++)
		err = sframe_find(&in->parts[k].sec, pc, r);
	return err;
}

/* Annotations (.sframe_annot). */

_Static_assert(sizeof(struct sframe_annot) == SFRAME_ANNOT_SIZE,
	       "struct sframe_annot is one annotation slot");

/* Between the host's and the target's byte order, both ways. */
static void annot_swab(struct sframe_annot *a)
{
	a->pc = (s32)__builtin_bswap32((u32)a->pc);
	a->len = __builtin_bswap16(a->len);
	a->off = (s16)__builtin_bswap16((u16)a->off);
	a->ra_off = (s16)__builtin_bswap16((u16)a->ra_off);
	a->fp_off = (s16)__builtin_bswap16((u16)a->fp_off);
	a->flags = __builtin_bswap16(a->flags);
}

/**
 * annot_get() - decode an annotation entry of the input
 * @in: the input
 * @p: the entry (SFRAME_ANNOT_SIZE bytes in the target's byte order)
 * @a: result
 */
void annot_get(const struct input *in, const uint8_t *p,
	       struct sframe_annot *a)
{
	memcpy(a, p, sizeof(*a));
	if (in->f.swap)
		annot_swab(a);
}

/**
 * annot_put() - encode an annotation entry of the input
 * @in: the input
 * @p: the entry (SFRAME_ANNOT_SIZE bytes in the target's byte order)
 * @a: the entry's value
 */
void annot_put(const struct input *in, uint8_t *p,
	       const struct sframe_annot *a)
{
	struct sframe_annot t = *a;

	if (in->f.swap)
		annot_swab(&t);
	memcpy(p, &t, sizeof(t));
}

void load_annots(struct input *in)
{
	int idx = elf_sec_find(&in->f, ".sframe_annot");
	const struct elf_sec *s;
	const uint8_t *d;
	const char *why;
	uint64_t i, n;

	in->annot_sec = idx;
	if (idx < 0)
		return;
	s = &in->f.secs[idx];
	if (!elf_sec_data(&in->f, idx) || s->size % SFRAME_ANNOT_SIZE)
		die(in->path, "malformed .sframe_annot: size %" PRIu64
		    " is not a multiple of %d", s->size, SFRAME_ANNOT_SIZE);
	if (in->f.type == ELF_ET_REL &&
	    elf_apply_rela(&in->f, idx, &why))
		die(in->path, ".rela.sframe_annot: %s", why);
	d = elf_sec_data(&in->f, idx);
	in->st.has_annot = 1;
	n = s->size / SFRAME_ANNOT_SIZE;
	in->annots = xcalloc(n, sizeof(*in->annots));
	for (i = 0; i < n; i++) {
		struct sframe_annot e;
		struct annot *a;

		annot_get(in, d + i * SFRAME_ANNOT_SIZE, &e);
		if (e.type == SFRAME_ANNOT_NONE)
			continue;
		if (e.type > SFRAME_ANNOT_TYPE_MAX)
			die(in->path, "malformed .sframe_annot: entry %" PRIu64
			    " has type %u", i, e.type);
		a = &in->annots[in->nannots++];
		a->lo = annot_start(s->vaddr + i * SFRAME_ANNOT_SIZE, &e);
		a->hi = a->lo + e.len;
		a->type = e.type;
		iv_add(&in->annot_all, a->lo, a->hi);
		if (e.type == SFRAME_ANNOT_SP_INDIRECT)
			iv_add(&in->annot_ssi, a->lo, a->hi);
	}
	iv_merge(&in->annot_all);
	iv_merge(&in->annot_ssi);
}
