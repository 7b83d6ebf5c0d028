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
 * This file is the driver: options, loading an input (symbols, SFrame,
 * annotations), coverage, findings and the summary; verify.h lists the
 * other parts.  Built from them, tools/elf.c, tools/sframe-elf.c and
 * lib/sframe/ (-Iinclude); plain C and libc only, so it can also
 * be a kernel hostprog (tools/Kbuild).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "search.h"
#include "verify.h"

const char *prog = "sframe-verify";

/* Options. */
static int opt_verbose, opt_quiet, opt_warn, opt_fixups, opt_count;
static const char *opt_modfix;		/* --module-fixups FILE */

const char * const cls_names[CLS_MAX] = {
	[CLS_NONE] = "none",
	[CLS_UNKNOWN] = "unknown",
	[CLS_STACK_SWITCH] = "stack-switch",
	[CLS_PUSHF_POP] = "pushf-pop",
	[CLS_IRET_TO_SELF] = "iret-to-self",
	[CLS_ALT_PUSHF] = "alt-pushf",
	[CLS_LATE_PUSH] = "late-push",
	[CLS_LATE_ADD] = "late-add",
	[CLS_FTRACE_NOP] = "ftrace-nop",
	[CLS_DRAP] = "drap",
	[CLS_CALL_PADDING] = "call-padding",
	[CLS_FDE_MISMATCH] = "fde-mismatch",
	[CLS_ORPHAN_FDE] = "orphan-fde",
	[CLS_FRAME_RECORD] = "frame-record",
	[CLS_STALE_RULE] = "stale-rule",
};

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
static void load_symbols(struct input *in)
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
static void load_sframe(struct input *in)
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
	qsort(in->bounds, in->nbounds, sizeof(uint64_t), cmp_u64);
}

static void free_sframe(struct input *in)
{
	size_t k;

	for (k = 0; k < in->nparts; k++)
		free(in->parts[k].index);
	free(in->parts);
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

static const char *reg_name(const struct input *in, unsigned int reg)
{
	if (reg == in->sec.sp_reg)
		return "sp";
	if (reg == in->sec.fp_reg)
		return "fp";
	return "r?";
}

/**
 * fmt_sframe() - an SFrame rule as text, for findings
 * @in: the input (register names)
 * @err: 0, or the error looking the rule up
 * @r: the rule
 * @buf: result
 * @n: size of @buf
 */
void fmt_sframe(const struct input *in, int err, const struct sframe_rule *r,
		char *buf, size_t n)
{
	int k;

	if (err) {
		snprintf(buf, n, "none (%s)", sframe_errname(err));
		return;
	}
	if (r->flags & SFRAME_RULE_OUTERMOST) {
		snprintf(buf, n, "outermost");
		return;
	}
	k = snprintf(buf, n, "CFA=%s%+d", reg_name(in, r->cfa.reg),
		     r->cfa.offset);
	if (r->ra.kind == SFRAME_LOC_CFA)
		k += snprintf(buf + k, n - k, " RA=*(CFA%+d)", r->ra.offset);
	else
		k += snprintf(buf + k, n - k, " RA=lr");
	if (r->fp.kind == SFRAME_LOC_CFA)
		snprintf(buf + k, n - k, " FP=*(CFA%+d)", r->fp.offset);
	else
		snprintf(buf + k, n - k, " FP=same");
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

static void load_annots(struct input *in)
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

/*
 * An annotation describes code of one function: one that runs past its
 * symbol (e.g. an unparenthesised "end - start" of 0xffff bytes) would
 * override SFrame in code it was never meant for.
 */
static void check_annot_spans(struct input *in)
{
	size_t i;

	for (i = 0; i < in->nannots; i++) {
		const struct annot *a = &in->annots[i];
		const struct region *r = region_at(in, a->lo);
		const struct region *e = region_at(in, a->hi - 1);
		struct region fake;
		char detail[160];

		if (r && r == e)
			continue;
		snprintf(detail, sizeof(detail),
			 "annotation of type %u ends in %s", a->type,
			 e ? e->name : "(no symbol)");
		in->st.unknown += a->hi - a->lo;
		finding(in, "annotation spans symbols",
			region_or_fake(in, a->lo, &fake), a->lo, a->hi, NULL,
			NULL, detail);
	}
}

/* Output of findings. */

/**
 * sym_range() - a range as "symbol+0xlo..0xhi"
 * @r: the region of the range
 * @lo: first byte
 * @hi: end
 * @buf: result
 * @n: size of @buf
 */
void sym_range(const struct region *r, uint64_t lo, uint64_t hi, char *buf,
	       size_t n)
{
	snprintf(buf, n, "%s+0x%" PRIx64 "..0x%" PRIx64, r->name, lo - r->sym,
		 hi - r->sym);
}

/**
 * finding() - count a finding and print it as the verbosity asks
 * @in: the input
 * @what: "uncovered", "wrong", ...
 * @r: the region of the finding
 * @lo: first byte
 * @hi: end
 * @e: the exception accepting it, or NULL
 * @known: why it is known without an exception (e.g. "annotated"), or NULL
 * @detail: more text for the line, or NULL
 *
 * Return: 1 if the finding is unknown, else 0.
 */
int finding(struct input *in, const char *what, const struct region *r,
	    uint64_t lo, uint64_t hi, const struct exception *e,
	    const char *known, const char *detail)
{
	char where[512];

	if (e || known)
		in->st.known[what[0] == 'u' ? 0 : 1]++;
	if (!e && !known) {
		if (opt_count)
			return 1;
		sym_range(r, lo, hi, where, sizeof(where));
		printf("%s: %s: %s (%" PRIu64 " bytes)%s%s: unknown\n", in->path,
		       what, where, hi - lo, detail ? ": " : "",
		       detail ? detail : "");
		return 1;
	}
	if (!opt_verbose)
		return 0;
	sym_range(r, lo, hi, where, sizeof(where));
	if (e)
		printf("%s: %s: %s (%" PRIu64 " bytes)%s%s: known (exception: %s)\n",
		       in->path, what, where, hi - lo, detail ? ": " : "",
		       detail ? detail : "", e->reason);
	else
		printf("%s: %s: %s (%" PRIu64 " bytes)%s%s: known (%s)\n",
		       in->path, what, where, hi - lo, detail ? ": " : "",
		       detail ? detail : "", known);
	return 0;
}

/* Coverage. */

static void check_coverage(struct input *in)
{
	struct ivals gaps = { 0 };
	size_t k, i;

	for (k = 0; k < in->nregs; k++) {
		struct region *r = &in->regs[k];
		uint64_t len = r->hi - r->lo, rows;

		in->st.text += len;
		rows = iv_overlap(&in->rows, r->lo, r->hi);
		in->st.sframe += rows;
		gaps.n = 0;
		if (rows == len)
			continue;
		{
			struct ivals nrow = { 0 };

			iv_subtract(&in->rows, r->lo, r->hi, &nrow);
			for (i = 0; i < nrow.n; i++) {
				in->st.annot += iv_overlap(&in->annot_all,
							   nrow.v[i].lo,
							   nrow.v[i].hi);
				iv_subtract(&in->annot_all, nrow.v[i].lo,
					    nrow.v[i].hi, &gaps);
			}
			free(nrow.v);
		}
		for (i = 0; i < gaps.n; i++) {
			uint64_t lo = gaps.v[i].lo, hi = gaps.v[i].hi;
			enum cls c = CLS_UNKNOWN;
			struct exception *e;
			char detail[64];

			if (is_ftrace_nops(in, r, lo, hi))
				c = CLS_FTRACE_NOP;
			else if (is_drap_gap(in, r, lo, hi))
				c = CLS_DRAP;
			else if (is_call_padding(in, r, lo, hi))
				c = CLS_CALL_PADDING;
			e = exc_match(in, EXC_MISSING, r, lo, hi, c);
			snprintf(detail, sizeof(detail), "[%s%s%s]",
				 in->f.secs[r->shndx].name,
				 c != CLS_UNKNOWN ? " " : "",
				 c != CLS_UNKNOWN ? cls_names[c] : "");
			if (e)
				in->st.exc += hi - lo;
			else
				in->st.unknown += hi - lo;
			finding(in, "uncovered", r, lo, hi, e, NULL, detail);
		}
	}
	free(gaps.v);
}

/* Summary. */

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

static void summary(const struct input *in)
{
	const struct stats *t = &in->st;

	printf("%s: %s (%s): text %" PRIu64 " B in %zu symbols: sframe %.2f%%, annotations %" PRIu64
	       " B, exceptions %" PRIu64 " B, unknown %" PRIu64 " B",
	       prog, in->path, in->arch, t->text, in->nregs,
	       pct(t->sframe, t->text), t->annot, t->exc, t->unknown);
	if (t->has_orc) {
		printf("; ORC: %" PRIu64 " B compared, agree %.3f%%",
		       t->compared, pct(t->agree, t->compared));
		/* clang's late .cfi_offset (verify-x86.c is_bp_unchanged()) */
		if (t->bp_unchanged)
			printf(" (BP saved, unchanged, not in the CFI yet: %" PRIu64 " B)",
			       t->bp_unchanged);
		printf(", wrong %" PRIu64 " B in %" PRIu64
		       " functions (stack-switch %" PRIu64
		       " B [annotated %" PRIu64 "], pushf-pop %" PRIu64
		       ", iret-to-self %" PRIu64 ", alt-pushf %" PRIu64
		       ", late-push %" PRIu64 ", late-add %" PRIu64
		       ", drap %" PRIu64
		       ", unknown %" PRIu64 "), ORC only %" PRIu64 " B",
		       t->wrong, t->wrong_funcs, t->cls_bytes[CLS_STACK_SWITCH],
		       t->ss_annotated, t->cls_bytes[CLS_PUSHF_POP],
		       t->cls_bytes[CLS_IRET_TO_SELF],
		       t->cls_bytes[CLS_ALT_PUSHF], t->cls_bytes[CLS_LATE_PUSH],
		       t->cls_bytes[CLS_LATE_ADD], t->cls_bytes[CLS_DRAP],
		       t->cls_bytes[CLS_UNKNOWN], t->orc_only);
	}
	if (!t->has_orc && in->f.machine == ELF_EM_X86_64)
		printf("; no ORC");
	if (in->f.machine == ELF_EM_AARCH64)
		printf("; FDEs %" PRIu64 ": fde-mismatch %" PRIu64
		       ", orphan %" PRIu64 ", frame-record %" PRIu64
		       " rows, stale-rule %" PRIu64 " rows, unknown %" PRIu64,
		       t->fdes, t->fde_bad, t->fde_orphan, t->frame_bad,
		       t->stale_bad, t->arm_unknown);
	if (!t->has_annot)
		printf("; no .sframe_annot");
	if (t->has_fixarea)
		printf("; fixups %" PRIu64 " needed, %" PRIu64
		       " written, %" PRIu64 "/%" PRIu64 " slots free",
		       t->nfix, t->fix_written, t->fix_free, t->fix_total);
	else if (opt_modfix)
		printf("; fixups %" PRIu64 " needed, %" PRIu64
		       " written to %s", t->nfix, t->fix_written, opt_modfix);
	else
		printf("; fixups %" PRIu64 " needed", t->nfix);
	printf("\n");
	if (!opt_quiet && !opt_verbose && (t->known[0] || t->known[1]))
		printf("%s: %s: known findings (not listed, see --verbose): %" PRIu64
		       " uncovered, %" PRIu64 " wrong\n", prog, in->path,
		       t->known[0], t->known[1]);
}

static int verify(const char *path)
{
	struct input in = { .path = path };
	const char *why;
	int ret = 0;

	if (elf_file_open(&in.f, path, &why))
		die(path, "%s", why);
	if (in.f.sec_why)
		die(path, "%s", in.f.sec_why);
	if (opt_modfix && in.f.type != ELF_ET_REL)
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
	if (do_fixups(&in, opt_fixups))
		ret = 1;
	if (opt_modfix)
		do_module_fixups(&in, opt_modfix);
	if (opt_count) {
		/* --count-fixups: the number alone, for the build to size by */
		printf("%" PRIu64 "\n", in.st.nfix);
		ret = 0;
		goto out;
	}
	if (opt_verbose)
		exc_print_hits(path);
	summary(&in);
	if ((in.st.unknown || in.st.wrong_unknown || in.st.arm_unknown) &&
	    !opt_warn)
		ret = 1;
out:
	free_sframe(&in);
	free(in.regs);
	free(in.syms);
	free(in.allsyms);
	free(in.rows.v);
	free(in.symset.v);
	free(in.bounds);
	free(in.orc);
	free(in.alts);
	free(in.alt_repl);
	free(in.annots);
	free(in.annot_all.v);
	free(in.annot_ssi.v);
	free(in.fix.v);
	elf_file_close(&in.f);
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
			opt_verbose = 1;
		} else if (!strcmp(a, "--quiet")) {
			opt_quiet = 1;
		} else if (!strcmp(a, "--write-fixups")) {
			opt_fixups = 1;
		} else if (!strcmp(a, "--count-fixups")) {
			opt_count = 1;
		} else if (!strcmp(a, "--module-fixups") && i + 1 < argc) {
			opt_modfix = argv[++i];
		} else if (!strcmp(a, "--policy") && i + 1 < argc &&
			   (!strcmp(argv[i + 1], "fail") ||
			    !strcmp(argv[i + 1], "warn"))) {
			opt_warn = argv[++i][0] == 'w';
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
	if (opt_modfix) {
		struct stat a, b;

		if (nfiles != 1) {
			fprintf(stderr, "%s: --module-fixups: one input ELF expected, got %d\n",
				prog, nfiles);
			return 2;
		}
		if (!stat(opt_modfix, &a) && !stat(argv[0], &b) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			fprintf(stderr, "%s: --module-fixups: %s is the input ELF\n",
				prog, opt_modfix);
			return 2;
		}
		/* no stale fixups if this run fails */
		if (remove(opt_modfix) && errno != ENOENT) {
			fprintf(stderr, "%s: %s: %s\n", prog, opt_modfix,
				strerror(errno));
			return 2;
		}
	}
	if (opt_verbose)
		opt_quiet = 0;
	for (i = 0; i < nfiles; i++)
		ret |= verify(argv[i]);
	return ret;
}

