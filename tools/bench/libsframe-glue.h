/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Thin wrapper around binutils' libsframe (Debian's binutils-dev), kept in
 * its own translation unit because libsframe's <sframe.h> defines the same
 * macro names as ours.  Used as the reference in tests and benchmarks.
 */
#ifndef _SFRAME_LIBSFRAME_GLUE_H
#define _SFRAME_LIBSFRAME_GLUE_H

#include <stddef.h>
#include <stdint.h>

struct ls_row {
	uint32_t fre_start;	/* offset from the function start */
	int base_sp;
	int32_t cfa;
	int fp_ok, ra_ok;
	int32_t fp, ra;
};

void *ls_open(const void *buf, size_t len);
int ls_find(void *ctx, int32_t pc, struct ls_row *row);
int ls_find_fre_only(void *ctx, int32_t pc);
void ls_close(void *ctx);

#endif
