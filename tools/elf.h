/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Minimal, bounds-checked ELF reader for the sframe tools: finds the
 * .sframe section (or the PT_GNU_SFRAME segment) of an ELF file of either
 * class and byte order, and applies .rela.sframe in relocatable objects.
 */
#ifndef _SFRAME_TOOLS_ELF_H
#define _SFRAME_TOOLS_ELF_H

#include <stddef.h>
#include <stdint.h>

struct sframe_blob {
	uint8_t *file;		/* whole file, malloc'ed */
	size_t file_size;
	const uint8_t *data;	/* section bytes inside file */
	uint64_t size;
	uint64_t addr;		/* sh_addr or p_vaddr */
	int is_rel;		/* ET_REL: start fields came from relocations */
	unsigned int machine;
	int nrelocs;		/* relocations applied */
	const char *name;	/* ".sframe" */
};

int sframe_read_file(const char *path, uint8_t **buf, size_t *size);
int sframe_elf_find(struct sframe_blob *b, int relocate, const char **why);

#endif
