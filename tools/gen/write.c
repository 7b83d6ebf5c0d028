// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame writer of sframe-gen: rows (struct cfi_fde, tools/gen/cfi.h) to
 * an SFrame section of version 1, 2 (with the PC-relative function starts
 * of errata 1) or 3, sorted, in the target's byte order.  Functions with a
 * row SFrame cannot express are left out (and counted by the caller);
 * nothing is approximated.  The result is checked by the core
 * (sframe_open(), sframe_validate()) before it is handed out.
 */
#include <stdlib.h>
#include <string.h>
#include <sframe/sframe.h>
#include "write.h"
#include "../lib/layout.h"

/* Bytes needed for the signed value @v: 1, 2 or 4 (0: does not fit). */
static int word_size(int64_t v)
{
	if (v >= -128 && v <= 127)
		return 1;
	if (v >= -32768 && v <= 32767)
		return 2;
	if (v >= INT32_MIN && v <= INT32_MAX)
		return 4;
	return 0;
}

/* Bytes needed for the unsigned FLEX control word @v (0: does not fit). */
static int ctl_size(int64_t v)
{
	return v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffffLL ? 4 : 0;
}

/* The data words of one row, and which of them are FLEX control words. */
struct row_words {
	int n;
	int64_t w[6];
	uint8_t ctl[6];
};

static void word(struct row_words *rw, int64_t v, int ctl)
{
	rw->ctl[rw->n] = ctl;
	rw->w[rw->n++] = v;
}

/* A FLEX control word: base register (or the CFA) and load. */
static int64_t flex_ctl(const struct cfi_loc *l)
{
	if (l->kind == CFI_LOC_CFA)
		return SFRAME_FLEX_CTRL(0, (int64_t)l->deref, 0);
	return SFRAME_FLEX_CTRL((int64_t)l->reg, l->deref, 1);
}

/*
 * The data words of @r in a DEFAULT FDE: CFA offset, then (AArch64) RA
 * offset or 0 for padding, then FP offset.  Return: 0, or -1 if @r cannot
 * be written so in @o->version.
 */
static int row_words_default(const struct sframe_write_opts *o,
			     const struct cfi_row *r, struct row_words *rw)
{
	rw->n = 0;
	if (r->flex)
		return -1;
	if (r->ra.kind == CFI_LOC_UNDEF)	/* no words (v2 errata 2) */
		return o->version >= 2 ? 0 : -1;
	word(rw, r->cfa.off, 0);
	if (o->machine == 62) {
		if (r->ra.kind != CFI_LOC_SAME)
			return -1;	/* x86_64: only the fixed slot */
		if (r->fp.kind == CFI_LOC_CFA)
			word(rw, r->fp.off, 0);
		return 0;
	}
	if (r->ra.kind == CFI_LOC_CFA)
		word(rw, r->ra.off, 0);
	else if (r->fp.kind == CFI_LOC_CFA && o->version >= 2)
		word(rw, 0, 0);		/* RA unsaved: padding (not in v1) */
	else if (r->fp.kind == CFI_LOC_CFA)
		return -1;
	if (r->fp.kind == CFI_LOC_CFA)
		word(rw, r->fp.off, 0);
	return 0;
}

/*
 * The data words of @r in a v3 FLEX FDE: (control, offset) pairs for the
 * CFA, the RA (a lone 0 control word: no rule, the fixed slot or LR) and
 * the FP.
 */
static int row_words_flex(const struct cfi_row *r, struct row_words *rw)
{
	rw->n = 0;
	if (r->ra.kind == CFI_LOC_UNDEF)
		return 0;
	word(rw, flex_ctl(&r->cfa), 1);
	word(rw, r->cfa.off, 0);
	if (r->ra.kind != CFI_LOC_SAME) {
		word(rw, flex_ctl(&r->ra), 1);
		word(rw, r->ra.off, 0);
	} else if (r->fp.kind != CFI_LOC_SAME) {
		word(rw, 0, 1);
	}
	if (r->fp.kind != CFI_LOC_SAME) {
		word(rw, flex_ctl(&r->fp), 1);
		word(rw, r->fp.off, 0);
	}
	return 0;
}

/* Does @f need a FLEX FDE? */
static int needs_flex(const struct cfi_fde *f)
{
	uint32_t i;

	for (i = 0; i < f->nrows; i++)
		if (f->rows[i].flex)
			return 1;
	return 0;
}

static int row_words(const struct sframe_write_opts *o, int flex,
		     const struct cfi_row *r, struct row_words *rw)
{
	return flex ? row_words_flex(r, rw) : row_words_default(o, r, rw);
}

/* The size of @rw's words: 1, 2 or 4 bytes (0: too large). */
static int words_size(const struct row_words *rw)
{
	int k, sz = 1, n;

	for (k = 0; k < rw->n; k++) {
		n = rw->ctl[k] ? ctl_size(rw->w[k]) : word_size(rw->w[k]);
		if (!n)
			return 0;
		if (n > sz)
			sz = n;
	}
	return sz;
}

/* Can every row of @f be written? */
static int writable(const struct sframe_write_opts *o, const struct cfi_fde *f)
{
	int flex = needs_flex(f);
	struct row_words rw;
	uint32_t i;

	if (!f->nrows || !f->size || f->size > UINT32_MAX ||
	    (f->signal && o->version < 3) ||
	    (o->version == 3 && f->nrows > 0xffff) ||
	    (flex && o->version < 3))
		return 0;
	for (i = 0; i < f->nrows; i++) {
		if (f->rows[i].why || row_words(o, flex, &f->rows[i], &rw) ||
		    !words_size(&rw))
			return 0;
	}
	return 1;
}

static int by_start(const void *a, const void *b)
{
	const struct cfi_fde *x = *(const struct cfi_fde * const *)a;
	const struct cfi_fde *y = *(const struct cfi_fde * const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int sframe_write(const struct sframe_write_opts *o, const struct cfi_fde *fdes,
		 size_t nfdes, struct sframe_written *out)
{
	int v = o->version;
	struct sframe_layout l = {
		.version = v, .fdes.be = o->be, .fres.be = o->be,
	};
	struct sframe_layout_hdr h = {
		.flags = o->unsorted ? 0 : SFRAME_F_FDE_SORTED,
		.abi = o->abi,
		.fixed_ra = o->machine == 62 ? -8 : 0,
		.addr = o->addr,
	};
	const struct cfi_fde **sorted;
	size_t i, n = 0;
	unsigned int fp_reg = o->machine == 62 ? SFRAME_DWARF_AMD64_FP :
						 SFRAME_DWARF_AARCH64_FP;

	memset(out, 0, sizeof(*out));
	if (v < 1 || v > 3)
		return -1;
	sorted = calloc(nfdes + 1, sizeof(*sorted));
	if (!sorted)
		return -1;
	for (i = 0; i < nfdes; i++) {
		if (writable(o, &fdes[i]))
			sorted[n++] = &fdes[i];
		else if (fdes[i].size)
			out->left_out++;
	}
	qsort(sorted, n, sizeof(*sorted), by_start);
	/* Functions that overlap a previous one are left out too. */
	for (i = 1; i < n; i++) {
		if (sorted[i]->start < sorted[i - 1]->start + sorted[i - 1]->size) {
			memmove(&sorted[i], &sorted[i + 1],
				(n - i - 1) * sizeof(*sorted));
			n--;
			i--;
			out->left_out++;
		}
	}

	for (i = 0; i < n; i++) {
		const struct cfi_fde *f = sorted[i];
		int asz = f->size <= 0x100 ? 1 : f->size <= 0x10000 ? 2 : 4;
		int fre_type = asz == 1 ? SFRAME_FRE_TYPE_ADDR1 :
			       asz == 2 ? SFRAME_FRE_TYPE_ADDR2 :
					  SFRAME_FRE_TYPE_ADDR4;
		uint8_t info = SFRAME_FUNC_INFO(fre_type, !!f->pauth_b,
						!!f->signal);	/* signal: v3 */
		int flex = needs_flex(f);
		uint32_t k;

		sframe_layout_fde(&l, f->start, f->size, f->nrows, info,
				  flex ? SFRAME_FDE_TYPE_FLEX :
					 SFRAME_FDE_TYPE_DEFAULT, 0);
		for (k = 0; k < f->nrows; k++) {
			const struct cfi_row *r = &f->rows[k];
			struct row_words rw;
			int wsz;

			row_words(o, flex, r, &rw);
			wsz = words_size(&rw);
			/* RA undefined: an info byte of exactly 0, no words. */
			if (!rw.n) {
				sframe_layout_fre(&l, r->start, asz, 0, NULL,
						  0, 0);
				continue;
			}
			/* FLEX: the base bit means nothing (gas writes 0). */
			sframe_layout_fre(&l, r->start, asz,
					  SFRAME_FRE_INFO(!flex && r->cfa.reg != fp_reg,
							  rw.n,
							  wsz == 1 ? SFRAME_FRE_WORD_1B :
							  wsz == 2 ? SFRAME_FRE_WORD_2B :
								     SFRAME_FRE_WORD_4B,
							  !!r->mangled),
					  rw.w, rw.n, wsz);
		}
	}
	out->nfres = l.nfres;
	free(sorted);
	if (sframe_layout_finish(&l, &h, &out->buf, &out->len)) {
		out->nfres = 0;
		return -1;
	}
	out->nfdes = n;
	return 0;
}
