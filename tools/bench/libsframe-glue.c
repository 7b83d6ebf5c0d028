// SPDX-License-Identifier: GPL-2.0-only
/* Wrapper around libsframe (binutils-dev); see libsframe-glue.h. */
#include <sframe-api.h>
#include "libsframe-glue.h"

void *ls_open(const void *buf, size_t len)
{
	int err = 0;

	return sframe_decode(buf, len, &err);
}

/* @pc is relative to the section's first byte, as libsframe wants it. */
int ls_find(void *ctx, int32_t pc, struct ls_row *row)
{
	sframe_frame_row_entry fre;
	int err = 0;

	if (sframe_find_fre(ctx, pc, &fre))
		return -1;
	row->fre_start = fre.fre_start_addr;
	row->base_sp = sframe_fre_get_base_reg_id(&fre, &err);
	row->cfa = sframe_fre_get_cfa_offset(ctx, &fre, &err);
	err = 0;
	row->fp = sframe_fre_get_fp_offset(ctx, &fre, &err);
	row->fp_ok = !err;
	err = 0;
	row->ra = sframe_fre_get_ra_offset(ctx, &fre, &err);
	row->ra_ok = !err;
	return 0;
}

/* The benchmark's unit of work: one PC to row lookup. */
int ls_find_fre_only(void *ctx, int32_t pc)
{
	sframe_frame_row_entry fre;

	return sframe_find_fre(ctx, pc, &fre);
}

void ls_close(void *ctx)
{
	sframe_decoder_ctx *d = ctx;

	sframe_decoder_free(&d);
}
