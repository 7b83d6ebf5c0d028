// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame data in ELF files, for the sframe tools (see sframe-elf.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include "sframe-elf.h"

/**
 * sframe_elf_find() - locate the SFrame data of an ELF file
 * @f: the file (elf_file_open())
 * @b: result
 * @relocate: apply .rela.sframe in relocatable objects
 * @why: set to a one-line reason on failure
 *
 * Prefers the .sframe section; without a section table (or without such a
 * section) falls back to the PT_GNU_SFRAME segment, whose size may include
 * padding (the SFrame header gives the real size).  Relocations go to a
 * copy of the section (elf_apply_rela()): @b->data points to it.
 *
 * Return: 0, or -1 with @why set.
 */
int sframe_elf_find(struct elf_file *f, struct sframe_blob *b, int relocate,
		    const char **why)
{
	int idx = elf_sec_find(f, ".sframe");
	struct elf_seg s;
	uint64_t i;

	if (idx >= 0) {
		if (!elf_sec_data(f, idx)) {
			*why = ".sframe section outside the file";
			return -1;
		}
		if (relocate && f->type == ELF_ET_REL &&
		    elf_apply_rela(f, idx, why))
			return -1;
		b->data = elf_sec_data(f, idx);
		b->size = f->secs[idx].size;
		b->addr = f->secs[idx].vaddr;
		return 0;
	}
	for (i = 0; i < f->phnum && !elf_seg_get(f, i, &s); i++) {
		if (s.type != PT_GNU_SFRAME)
			continue;
		b->data = elf_bytes(f, s.offset, s.filesz);
		b->size = s.filesz;
		b->addr = s.vaddr;
		if (!b->data) {
			*why = "PT_GNU_SFRAME segment outside the file";
			return -1;
		}
		return 0;
	}
	*why = "no .sframe section or PT_GNU_SFRAME segment";
	return -1;
}

/**
 * sframe_open_parts() - open every SFrame section of a sequence
 * @data: first byte of the sequence (a relocatable object's .sframe)
 * @size: its size
 * @addr: its address
 * @opts: %SFRAME_OPEN_* options
 * @parts: result: malloc'ed array of the opened sections (free() it)
 * @nparts: result: number of sections; on failure, index of the bad one
 * @off: result on failure: offset of the bad section
 *
 * The sections follow each other as sframe_open_part() describes (one per
 * object file `ld -r` linked; a single one is a sequence of one).
 *
 * Return: 0, or the negative SFRAME_E_* code of the section at @off (@parts
 * is then NULL).
 */
int sframe_open_parts(const uint8_t *data, uint64_t size, uint64_t addr,
		      unsigned int opts, struct sframe_section **parts,
		      size_t *nparts, uint64_t *off)
{
	struct sframe_section *v = NULL, *q;
	size_t n = 0, cap = 0;
	uint64_t next;
	int err;

	*off = 0;
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			q = realloc(v, cap * sizeof(*v));
			if (!q) {
				fprintf(stderr, "out of memory\n");
				exit(2);
			}
			v = q;
		}
		err = sframe_open_part(&v[n], data, size, addr, *off, opts,
				       &next);
		if (err)
			break;
		n++;
		*off = next;
	} while (*off < size);
	*nparts = n;
	if (err) {
		free(v);
		v = NULL;
	}
	*parts = v;
	return err;
}
