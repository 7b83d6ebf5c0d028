/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test-only SFrame encoder: re-encodes a decoded section in another
 * version, byte order, FRE start width, data-word size, FDE order and
 * auxiliary-header size (with sframe-gen's layout, tools/lib/layout.c),
 * so the tests can check that the decoder gives the same answers for the
 * same rows however they are encoded.
 */
#ifndef _SFRAME_TEST_ENCODE_H
#define _SFRAME_TEST_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include <sframe/sframe.h>

struct encode_opts {
	int version;		/* 1, 2 or 3 */
	int swap;		/* AArch64: opposite byte order (ABI 1 <-> 2) */
	int shuffle;		/* FDEs in a scrambled order, SORTED clear */
	int wide_words;		/* every data word 4 bytes */
	int wide_starts;	/* every FRE start 4 bytes (ADDR4) */
	int auxhdr_len;		/* bytes of auxiliary header */
	uint64_t addr;		/* section address of the result */
};

struct encoded {
	uint8_t *buf;
	size_t len;
	uint32_t *kept;		/* per original FDE: new index + 1, 0: left out */
};

int sframe_encode(const struct sframe_section *sec,
		  const struct encode_opts *o, struct encoded *out);

#endif
