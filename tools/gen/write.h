/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SFrame writer of sframe-gen (tools/gen/write.c): rows from the
 * CFI reader to a section of version 1, 2 or 3.
 */
#ifndef _SFRAME_TOOLS_SFRAME_WRITE_H
#define _SFRAME_TOOLS_SFRAME_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "cfi.h"

/**
 * struct sframe_write_opts - what to write
 * @version: 1, 2 or 3
 * @machine: ELF e_machine (62 x86_64, 183 AArch64)
 * @abi: SFRAME_ABI_* of the target
 * @be: big-endian target
 * @addr: the address the section will be loaded at (function starts are
 *        stored relative to it, or to their own field)
 * @unsorted: the function starts are relocated later (an object's section:
 *            the linker places its text sections), so the section is not
 *            flagged %SFRAME_F_FDE_SORTED; readers sort it themselves
 */
struct sframe_write_opts {
	int version;
	unsigned int machine;
	int abi;
	int be;
	uint64_t addr;
	int unsorted;
};

/**
 * struct sframe_written - a written section
 * @buf: its bytes (malloc()ed)
 * @len: their number
 * @nfdes: functions written
 * @nfres: rows written
 * @left_out: functions not written (a row SFrame cannot express in this
 *            version, a signal frame, or overlapping another function)
 */
struct sframe_written {
	uint8_t *buf;
	size_t len;
	size_t nfdes, nfres, left_out;
};

int sframe_write(const struct sframe_write_opts *o, const struct cfi_fde *fdes,
		 size_t nfdes, struct sframe_written *out);

#endif
