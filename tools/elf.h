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

struct sframe_section;
int sframe_open_parts(const uint8_t *data, uint64_t size, uint64_t addr,
		      unsigned int opts, struct sframe_section **parts,
		      size_t *nparts, uint64_t *off);

/*
 * A parsed ELF file: section headers and symbols, every offset checked.
 * For relocatable objects (.o, .ko) elf_layout_rel() gives every SHF_ALLOC
 * section its own address, as the module loader does, and
 * elf_apply_rela() resolves relocations against that layout.
 */
#define ELF_EM_X86_64		62
#define ELF_EM_AARCH64		183
#define ELF_ET_REL		1
#define ELF_ET_EXEC		2
#define ELF_ET_DYN		3
#define ELF_SHF_WRITE		0x1
#define ELF_SHF_ALLOC		0x2
#define ELF_SHF_EXECINSTR	0x4
#define ELF_SHT_NOBITS		8
#define ELF_STT_NOTYPE		0
#define ELF_STT_FUNC		2
#define ELF_STB_LOCAL		0

struct elf_sec {
	const char *name;	/* "" if out of bounds */
	uint64_t type, flags, addr, offset, size, link, info, entsize, align;
	uint64_t vaddr;		/* sh_addr, or the synthetic ET_REL address */
};

struct elf_sym {
	const char *name;
	uint64_t value;		/* address (vaddr of the section + value) */
	uint64_t size;
	unsigned int type, bind;
	uint64_t shndx;		/* 0 if undefined or special */
};

struct elf_file {
	uint8_t *buf;		/* whole file; relocations are applied here */
	size_t size;
	int is64, be;
	unsigned int type, machine;
	uint64_t shnum;
	struct elf_sec *secs;	/* shnum entries */
	uint64_t symtab;	/* section index of .symtab (or .dynsym), 0: none */
};

int elf_file_open(struct elf_file *f, uint8_t *buf, size_t size,
		  const char **why);
void elf_file_close(struct elf_file *f);
int elf_sec_find(const struct elf_file *f, const char *name);
const uint8_t *elf_sec_data(const struct elf_file *f, uint64_t idx);
void elf_layout_rel(struct elf_file *f);
int elf_apply_rela(struct elf_file *f, uint64_t target, int *nrelocs,
		   const char **why);
uint64_t elf_nsyms(const struct elf_file *f);
int elf_sym_get(const struct elf_file *f, uint64_t i, struct elf_sym *s);
uint64_t elf_get(const struct elf_file *f, const uint8_t *p, int len);
void elf_put(const struct elf_file *f, uint8_t *p, int len, uint64_t v);

#endif
