/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFrame data in ELF files, for the sframe tools: the .sframe section (or
 * the PT_GNU_SFRAME segment) of a file opened with elf_file_open(), and the
 * sequence of SFrame sections a relocatable object's .sframe holds.
 */
#ifndef _SFRAME_TOOLS_SFRAME_ELF_H
#define _SFRAME_TOOLS_SFRAME_ELF_H

#include <sframe/sframe.h>
#include "elf.h"

struct sframe_blob {
	const uint8_t *data;	/* the section's bytes */
	uint64_t size;
	uint64_t addr;		/* its address: sh_addr or p_vaddr */
};

int sframe_elf_find(struct elf_file *f, struct sframe_blob *b, int relocate,
		    const char **why);
int sframe_open_parts(const uint8_t *data, uint64_t size, uint64_t addr,
		      unsigned int opts, struct sframe_section **parts,
		      size_t *nparts, uint64_t *off);

#endif
