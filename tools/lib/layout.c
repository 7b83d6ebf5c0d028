// SPDX-License-Identifier: GPL-2.0-only
/*
 * The layout of an SFrame section's bytes (see layout.h): header,
 * FDE index, FRE sub-section, in the field widths and order of each
 * version.
 */
#include <stdlib.h>
#include <string.h>
#include <sframe/sframe.h>
#include "layout.h"

/* Bytes of one FDE index entry of @version. */
int sframe_layout_fde_size(int version)
{
	return version == 3 ? SFRAME_V3_FDE_SIZE :
	       version == 2 ? SFRAME_V2_FDE_SIZE : SFRAME_V1_FDE_SIZE;
}

/* Width of an FDE's start field. */
static int sframe_layout_start_len(int version)
{
	return version == 3 ? 8 : 4;
}

/**
 * sframe_layout_fde() - begin a function
 * @l: the section
 * @start: its start address
 * @size: its size in bytes
 * @nrows: the number of sframe_layout_fre() calls that follow for it
 * @info: its info byte (FRE start width, PCMASK, AArch64 key; v3 signal)
 * @info2: v3: its second info byte (FDE type); ignored before
 * @rep_size: v2, v3: the PCMASK block size; ignored in v1
 */
void sframe_layout_fde(struct sframe_layout *l, uint64_t start, uint32_t size,
		       uint32_t nrows, uint8_t info, uint8_t info2,
		       uint8_t rep_size)
{
	int v = l->version;

	if (l->nfdes == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		uint64_t *p = realloc(l->starts, cap * sizeof(*p));

		if (!p) {
			l->oom = 1;
			return;
		}
		l->starts = p;
		l->cap = cap;
	}
	l->starts[l->nfdes++] = start;
	/* The start, relative as the version wants: at the end. */
	put(&l->fdes, 0, sframe_layout_start_len(v));
	put(&l->fdes, size, 4);
	put(&l->fdes, l->fres.len, 4);
	if (v < 3) {
		put(&l->fdes, nrows, 4);
		put(&l->fdes, info, 1);
		if (v == 2) {
			put(&l->fdes, rep_size, 1);
			put(&l->fdes, 0, 2);		/* padding */
		}
	} else {
		/* v3: the function's attributes open its rows. */
		put(&l->fres, nrows, 2);
		put(&l->fres, info, 1);
		put(&l->fres, info2, 1);
		put(&l->fres, rep_size, 1);
	}
}

/**
 * sframe_layout_fre() - one row of the function begun last
 * @l: the section
 * @start: its start offset in the function
 * @asz: the width of that field (1, 2 or 4: the function's FRE type)
 * @info: its info byte (0 for a row without data words: RA undefined)
 * @words: its data words
 * @nwords: their number
 * @wsz: the width of each (1, 2 or 4)
 */
void sframe_layout_fre(struct sframe_layout *l, uint32_t start, int asz,
		       uint8_t info, const int64_t *words, int nwords,
		       int wsz)
{
	int i;

	put(&l->fres, start, asz);
	put(&l->fres, info, 1);
	for (i = 0; i < nwords; i++)
		put(&l->fres, (uint64_t)words[i], wsz);
	l->nfres++;
}

/**
 * sframe_layout_finish() - the section's bytes
 * @l: the section, with all its functions and rows; emptied
 * @h: its header fields
 * @buf: result: the bytes (malloc()ed)
 * @len: result: their number
 *
 * Return: 0, or -1 when memory ran out (nothing is returned then).
 */
int sframe_layout_finish(struct sframe_layout *l,
			 const struct sframe_layout_hdr *h,
			 uint8_t **buf, size_t *len)
{
	struct wbuf all = { .be = l->fdes.be };
	int v = l->version, fde_size = sframe_layout_fde_size(v);
	size_t i;
	int ret = -1;

	/*
	 * Function starts: v1 relative to the section, v2 (errata 1) and v3
	 * to their own field, which lies after the header.
	 */
	for (i = 0; i < l->nfdes && !l->oom; i++) {
		size_t at = i * fde_size;
		uint64_t base = h->addr;

		if (v >= 2)
			base += SFRAME_HDR_SIZE + h->auxhdr_len + at;
		put_at(&l->fdes, at, l->starts[i] - base,
		       sframe_layout_start_len(v));
	}
	put(&all, SFRAME_MAGIC, 2);
	put(&all, v, 1);
	put(&all, h->flags | (v >= 2 ? SFRAME_F_FDE_FUNC_START_PCREL : 0), 1);
	put(&all, h->abi, 1);
	put(&all, (uint8_t)h->fixed_fp, 1);
	put(&all, (uint8_t)h->fixed_ra, 1);
	put(&all, h->auxhdr_len, 1);
	put(&all, l->nfdes, 4);
	put(&all, l->nfres, 4);
	put(&all, l->fres.len, 4);
	put(&all, 0, 4);			/* FDE index offset */
	put(&all, l->fdes.len, 4);		/* FRE sub-section offset */
	for (i = 0; i < h->auxhdr_len; i++)
		put(&all, 0xa5, 1);
	for (i = 0; i < l->fdes.len; i++)
		put(&all, l->fdes.p[i], 1);
	for (i = 0; i < l->fres.len; i++)
		put(&all, l->fres.p[i], 1);
	if (!l->oom && !l->fdes.oom && !l->fres.oom && !all.oom) {
		*buf = all.p;
		*len = all.len;
		all.p = NULL;
		ret = 0;
	}
	free(all.p);
	free(l->fdes.p);
	free(l->fres.p);
	free(l->starts);
	memset(l, 0, sizeof(*l));
	return ret;
}
