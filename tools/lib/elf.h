/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ELF reader of the project's user-space programs: sframe-dump,
 * sframe-verify, the host tests and benchmark, and the user-space sampler.
 * Plain C and libc, ELF files of either class and byte order.
 *
 * The file is mapped read-only; opening it reads the ELF header and the
 * section header table only, and sections, segments, symbols and
 * relocations are read when asked for.  Every offset taken from the file is
 * checked against the file size before use.  Relocations and other changes
 * go to a private, writable copy of the one section they change.
 *
 * For relocatable objects (.o, .ko) elf_layout_rel() gives every SHF_ALLOC
 * section its own address, as the module loader does, and elf_apply_rela()
 * resolves relocations against that layout; without it they are resolved
 * as readelf resolves them for its debug dumps (S + A, section addresses 0).
 */
#ifndef _SFRAME_TOOLS_ELF_H
#define _SFRAME_TOOLS_ELF_H

#include <stddef.h>
#include <stdint.h>

#define ELF_EM_X86_64		62
#define ELF_EM_AARCH64		183
#define ELF_ET_REL		1
#define ELF_ET_EXEC		2
#define ELF_ET_DYN		3
#define ELF_PT_LOAD		1
#define ELF_SHT_SYMTAB		2
#define ELF_SHT_NOBITS		8
#define ELF_SHT_DYNSYM		11
#define ELF_SHF_ALLOC		0x2
#define ELF_SHF_EXECINSTR	0x4
#define ELF_STT_NOTYPE		0
#define ELF_STT_FUNC		2
#define ELF_STT_GNU_IFUNC	10

struct elf_sec {
	const char *name;	/* "" if out of bounds */
	uint64_t type, flags, addr, offset, size, link, info, align;
	uint64_t vaddr;		/* sh_addr, or the synthetic ET_REL address */
	const uint8_t *data;	/* in the file; NULL: NOBITS or outside */
	uint8_t *copy;		/* writable copy (elf_sec_writable()), or NULL */
};

struct elf_seg {
	uint64_t type, flags, offset, vaddr, filesz;
};

struct elf_sym {
	const char *name;	/* "" if out of bounds */
	uint64_t value;		/* address (vaddr of the section + value) */
	uint64_t size;
	unsigned int type;
	uint64_t shndx;		/* 0 if undefined or special */
};

struct elf_rela {
	uint64_t offset;
	uint64_t sym;		/* symbol index */
	uint64_t type;
	int64_t addend;
};

struct elf_file {
	const uint8_t *map;	/* the whole file, read-only */
	size_t size;
	int mapped;		/* @map is mmap()ed, else malloc()ed */
	int is64, be;
	int swap;		/* byte order is not the host's (structs) */
	unsigned int type, machine;
	uint64_t phoff, phnum, phentsize;
	uint64_t shnum;		/* usable section headers (see sec_why) */
	struct elf_sec *secs;	/* shnum entries */
	const char *sec_why;	/* NULL, or why sections are unusable */
	uint64_t symtab;	/* section index of .symtab (or .dynsym), 0: none */
	int laid_out;		/* elf_layout_rel() gave ET_REL addresses */
};

int sframe_read_file(const char *path, uint8_t **buf, size_t *size);

int elf_file_open(struct elf_file *f, const char *path, const char **why);
void elf_file_close(struct elf_file *f);
const uint8_t *elf_bytes(const struct elf_file *f, uint64_t off, uint64_t len);
int elf_seg_get(const struct elf_file *f, uint64_t i, struct elf_seg *s);
int elf_sec_find(const struct elf_file *f, const char *name);
const uint8_t *elf_sec_data(const struct elf_file *f, uint64_t idx);
uint8_t *elf_sec_writable(struct elf_file *f, uint64_t idx);
void elf_layout_rel(struct elf_file *f);
uint64_t elf_nsyms(const struct elf_file *f, uint64_t tab);
int elf_sym_get(const struct elf_file *f, uint64_t tab, uint64_t i,
		struct elf_sym *s);
uint64_t elf_nrelas(const struct elf_file *f, uint64_t sec);
int elf_rela_get(const struct elf_file *f, uint64_t sec, uint64_t i,
		 struct elf_rela *r);
int elf_apply_rela(struct elf_file *f, uint64_t target, const char **why);
uint64_t elf_get(const struct elf_file *f, const uint8_t *p, int len);
void elf_put(const struct elf_file *f, uint8_t *p, int len, uint64_t v);

#endif
