// SPDX-License-Identifier: GPL-2.0-only
/*
 * Minimal, bounds-checked ELF reader for the sframe tools.
 *
 * Every offset taken from the file is checked against the file size before
 * use: a forged ELF file gets an error message, never an out-of-bounds read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sframe/sframe.h>
#include "elf.h"

#define EM_386		3
#define EM_S390		22
#define EM_X86_64	62
#define EM_AARCH64	183
#define ET_REL		1
#define SHT_RELA	4
#define SHT_SYMTAB	2

struct elf {
	const uint8_t *p;
	size_t n;
	int is64, be;
};

static uint64_t get(const struct elf *e, const uint8_t *q, int len)
{
	uint64_t v = 0;
	int i;

	if (e->be)
		for (i = 0; i < len; i++)
			v = (v << 8) | q[i];
	else
		for (i = len - 1; i >= 0; i--)
			v = (v << 8) | q[i];
	return v;
}

static void put(const struct elf *e, uint8_t *q, int len, uint64_t v)
{
	int i;

	for (i = 0; i < len; i++) {
		int shift = e->be ? 8 * (len - 1 - i) : 8 * i;

		q[i] = (uint8_t)(v >> shift);
	}
}

static int in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->n && len <= e->n - off;
}

/* Field of a structure at @base: 32-bit and 64-bit offsets and sizes. */
static uint64_t fld(const struct elf *e, uint64_t base, int off32, int len32,
		    int off64, int len64)
{
	return e->is64 ? get(e, e->p + base + off64, len64) :
			 get(e, e->p + base + off32, len32);
}

struct shdr {
	uint64_t name, type, addr, offset, size, link, info, entsize;
};

static int read_shdr(const struct elf *e, uint64_t shoff, uint64_t shentsize,
		     uint64_t i, struct shdr *s)
{
	uint64_t base = shoff + i * shentsize;

	if (!in_file(e, base, e->is64 ? 64 : 40))
		return -1;
	s->name = fld(e, base, 0, 4, 0, 4);
	s->type = fld(e, base, 4, 4, 4, 4);
	s->addr = fld(e, base, 12, 4, 16, 8);
	s->offset = fld(e, base, 16, 4, 24, 8);
	s->size = fld(e, base, 20, 4, 32, 8);
	s->link = fld(e, base, 24, 4, 40, 4);
	s->info = fld(e, base, 28, 4, 44, 4);
	s->entsize = fld(e, base, 36, 4, 56, 8);
	return 0;
}

/* Relocation type -> (size, pc-relative); 0 size: unsupported. */
static int reloc_kind(unsigned int machine, uint64_t type, int *pcrel)
{
	*pcrel = 0;
	switch (machine) {
	case EM_X86_64:
		switch (type) {
		case 1:				/* R_X86_64_64 */
			return 8;
		case 2:				/* R_X86_64_PC32 */
			*pcrel = 1;
			return 4;
		case 10:
		case 11:				/* R_X86_64_32(S) */
			return 4;
		case 24:				/* R_X86_64_PC64 */
			*pcrel = 1;
			return 8;
		}
		break;
	case EM_AARCH64:
		switch (type) {
		case 257:				/* R_AARCH64_ABS64 */
			return 8;
		case 258:				/* R_AARCH64_ABS32 */
			return 4;
		case 260:				/* R_AARCH64_PREL64 */
			*pcrel = 1;
			return 8;
		case 261:				/* R_AARCH64_PREL32 */
			*pcrel = 1;
			return 4;
		}
		break;
	case EM_S390:
		switch (type) {
		case 4:				/* R_390_32 */
			return 4;
		case 5:				/* R_390_PC32 */
			*pcrel = 1;
			return 4;
		case 22:				/* R_390_64 */
			return 8;
		case 23:				/* R_390_PC64 */
			*pcrel = 1;
			return 8;
		}
		break;
	}
	return 0;
}

/*
 * Apply the RELA section @rs to the section @target as readelf does for
 * debug dumps: S + A, minus the place for PC-relative types.
 */
static int apply_rela(struct sframe_blob *b, const struct elf *e,
		      uint64_t shoff, uint64_t shentsize, uint64_t shnum,
		      const struct shdr *rs, const struct shdr *target,
		      const char **why)
{
	uint64_t entsize = e->is64 ? 24 : 12, i, nrel;
	struct shdr sym;

	if (rs->link >= shnum || read_shdr(e, shoff, shentsize, rs->link, &sym) ||
	    !in_file(e, sym.offset, sym.size) || !in_file(e, rs->offset, rs->size)) {
		*why = "relocation or symbol table outside the file";
		return -1;
	}
	nrel = rs->size / entsize;
	for (i = 0; i < nrel; i++) {
		uint64_t r = rs->offset + i * entsize;
		uint64_t off = fld(e, r, 0, 4, 0, 8);
		uint64_t info = fld(e, r, 4, 4, 8, 8);
		int64_t addend = (int64_t)fld(e, r, 8, 4, 16, 8);
		uint64_t symi = e->is64 ? info >> 32 : info >> 8;
		uint64_t type = e->is64 ? (info & 0xffffffff) : (info & 0xff);
		uint64_t symsz = e->is64 ? 24 : 16, symoff, value;
		int pcrel, len = reloc_kind(b->machine, type, &pcrel);

		if (!e->is64)
			addend = (int32_t)addend;
		if (!len) {
			*why = "unsupported relocation type in .rela.sframe";
			return -1;
		}
		symoff = sym.offset + symi * symsz;
		if (symi * symsz >= sym.size || !in_file(e, symoff, symsz) ||
		    off > target->size || (uint64_t)len > target->size - off) {
			*why = "relocation outside its section or symbol table";
			return -1;
		}
		value = fld(e, symoff, 4, 4, 8, 8) + addend;
		if (pcrel)
			value -= off + target->addr;
		put(e, (uint8_t *)b->data + off, len, value);
		b->nrelocs++;
	}
	return 0;
}

/**
 * sframe_read_file() - read a whole file into a malloc'ed buffer
 * @path: file name
 * @buf: result buffer (free() it)
 * @size: result size
 *
 * Return: 0, or -errno.
 */
int sframe_read_file(const char *path, uint8_t **buf, size_t *size)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *p = NULL, *q;

	if (!f)
		return -errno;
	for (;;) {
		q = realloc(p, cap);
		if (!q) {
			free(p);
			fclose(f);
			return -ENOMEM;
		}
		p = q;
		got = fread(p + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		cap *= 2;
	}
	if (ferror(f)) {
		free(p);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*buf = p;
	*size = n;
	return 0;
}

/**
 * sframe_elf_find() - locate the SFrame data of an ELF file
 * @b: blob whose @file and @file_size are set; the rest is filled in
 * @relocate: apply .rela.sframe in relocatable objects
 * @why: set to a one-line reason on failure
 *
 * Prefers the .sframe section; without a section table (or without such a
 * section) falls back to the PT_GNU_SFRAME segment, whose size may include
 * padding (the SFrame header gives the real size).
 *
 * Return: 0, or -1 with @why set.
 */
int sframe_elf_find(struct sframe_blob *b, int relocate, const char **why)
{
	struct elf e = { .p = b->file, .n = b->file_size };
	uint64_t shoff, shnum, shentsize, shstrndx, phoff, phnum, phentsize, i;
	struct shdr strtab, s, sframe;
	uint64_t sframe_idx = 0;
	int found = 0;

	if (b->file_size < 16 || memcmp(b->file, "\177ELF", 4)) {
		*why = "not an ELF file";
		return -1;
	}
	if ((b->file[4] != 1 && b->file[4] != 2) ||
	    (b->file[5] != 1 && b->file[5] != 2)) {
		*why = "unknown ELF class or data encoding";
		return -1;
	}
	e.is64 = b->file[4] == 2;
	e.be = b->file[5] == 2;
	if (!in_file(&e, 0, e.is64 ? 64 : 52)) {
		*why = "truncated ELF header";
		return -1;
	}
	b->is_rel = fld(&e, 0, 16, 2, 16, 2) == ET_REL;
	b->machine = fld(&e, 0, 18, 2, 18, 2);
	phoff = fld(&e, 0, 28, 4, 32, 8);
	shoff = fld(&e, 0, 32, 4, 40, 8);
	phentsize = fld(&e, 0, 42, 2, 54, 2);
	phnum = fld(&e, 0, 44, 2, 56, 2);
	shentsize = fld(&e, 0, 46, 2, 58, 2);
	shnum = fld(&e, 0, 48, 2, 60, 2);
	shstrndx = fld(&e, 0, 50, 2, 62, 2);
	b->name = ".sframe";

	if (shoff && shnum && shentsize >= (uint64_t)(e.is64 ? 64 : 40) &&
	    shstrndx < shnum &&
	    !read_shdr(&e, shoff, shentsize, shstrndx, &strtab) &&
	    in_file(&e, strtab.offset, strtab.size)) {
		for (i = 0; i < shnum && !found; i++) {
			if (read_shdr(&e, shoff, shentsize, i, &s))
				break;
			if (s.name < strtab.size &&
			    !strncmp((const char *)e.p + strtab.offset + s.name,
				     ".sframe", strtab.size - s.name) &&
			    strtab.size - s.name > 7 &&
			    e.p[strtab.offset + s.name + 7] == 0) {
				sframe = s;
				sframe_idx = i;
				found = 1;
			}
		}
		if (found) {
			if (!in_file(&e, sframe.offset, sframe.size)) {
				*why = ".sframe section outside the file";
				return -1;
			}
			b->data = e.p + sframe.offset;
			b->size = sframe.size;
			b->addr = sframe.addr;
			if (b->is_rel && relocate) {
				for (i = 0; i < shnum; i++) {
					if (read_shdr(&e, shoff, shentsize, i, &s))
						break;
					if (s.type != SHT_RELA || s.info != sframe_idx)
						continue;
					if (apply_rela(b, &e, shoff, shentsize,
						       shnum, &s, &sframe, why))
						return -1;
				}
			}
			return 0;
		}
	}

	for (i = 0; i < phnum; i++) {
		uint64_t base = phoff + i * phentsize;

		if (phentsize < (uint64_t)(e.is64 ? 56 : 32) ||
		    !in_file(&e, base, phentsize))
			break;
		if (fld(&e, base, 0, 4, 0, 4) != PT_GNU_SFRAME)
			continue;
		b->data = e.p + fld(&e, base, 4, 4, 8, 8);
		b->size = fld(&e, base, 16, 4, 32, 8);
		b->addr = fld(&e, base, 8, 4, 16, 8);
		if (!in_file(&e, b->data - e.p, b->size)) {
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

/* The struct elf view of an elf_file, for the helpers above. */
static struct elf elf_view(const struct elf_file *f)
{
	struct elf e = { .p = f->buf, .n = f->size, .is64 = f->is64,
			 .be = f->be };

	return e;
}

/**
 * elf_get() - read an unsigned field in the file's byte order
 * @f: the file
 * @p: first byte (the caller checked the bounds)
 * @len: 1, 2, 4 or 8
 *
 * Return: the value.
 */
uint64_t elf_get(const struct elf_file *f, const uint8_t *p, int len)
{
	struct elf e = elf_view(f);

	return get(&e, p, len);
}

/**
 * elf_put() - write an unsigned field in the file's byte order
 * @f: the file
 * @p: first byte (the caller checked the bounds)
 * @len: 1, 2, 4 or 8
 * @v: the value, truncated to @len bytes
 */
void elf_put(const struct elf_file *f, uint8_t *p, int len, uint64_t v)
{
	struct elf e = elf_view(f);

	put(&e, p, len, v);
}

/* NUL-terminated string at @off of string table section @strndx, or "". */
static const char *elf_str(const struct elf_file *f, uint64_t strndx,
			   uint64_t off)
{
	const struct elf_sec *s;
	const char *p;

	if (!strndx || strndx >= f->shnum)
		return "";
	s = &f->secs[strndx];
	if (s->type == ELF_SHT_NOBITS || off >= s->size)
		return "";
	p = (const char *)f->buf + s->offset + off;
	return memchr(p, 0, s->size - off) ? p : "";
}

/**
 * elf_file_open() - parse the ELF and section headers of a file
 * @f: result
 * @buf: the whole file (malloc'ed; owned by the caller, modified by
 *       elf_apply_rela())
 * @size: its size
 * @why: set to a one-line reason on failure
 *
 * Every section that occupies file space must lie inside the file.
 *
 * Return: 0, or -1 with @why set.
 */
int elf_file_open(struct elf_file *f, uint8_t *buf, size_t size,
		  const char **why)
{
	struct elf e = { .p = buf, .n = size };
	uint64_t shoff, shentsize, shstrndx, i;

	memset(f, 0, sizeof(*f));
	f->buf = buf;
	f->size = size;
	if (size < 16 || memcmp(buf, "\177ELF", 4)) {
		*why = "not an ELF file";
		return -1;
	}
	if ((buf[4] != 1 && buf[4] != 2) || (buf[5] != 1 && buf[5] != 2)) {
		*why = "unknown ELF class or data encoding";
		return -1;
	}
	f->is64 = buf[4] == 2;
	f->be = buf[5] == 2;
	e.is64 = f->is64;
	e.be = f->be;
	if (!in_file(&e, 0, e.is64 ? 64 : 52)) {
		*why = "truncated ELF header";
		return -1;
	}
	f->type = fld(&e, 0, 16, 2, 16, 2);
	f->machine = fld(&e, 0, 18, 2, 18, 2);
	shoff = fld(&e, 0, 32, 4, 40, 8);
	shentsize = fld(&e, 0, 46, 2, 58, 2);
	f->shnum = fld(&e, 0, 48, 2, 60, 2);
	shstrndx = fld(&e, 0, 50, 2, 62, 2);
	if (!shoff || !f->shnum) {
		*why = "no section header table";
		return -1;
	}
	if (shentsize < (uint64_t)(e.is64 ? 64 : 40) || shstrndx >= f->shnum ||
	    !in_file(&e, shoff, f->shnum * shentsize)) {
		*why = "section header table outside the file";
		return -1;
	}
	f->secs = calloc(f->shnum, sizeof(*f->secs));
	if (!f->secs) {
		*why = "out of memory";
		return -1;
	}
	for (i = 0; i < f->shnum; i++) {
		struct elf_sec *s = &f->secs[i];
		uint64_t base = shoff + i * shentsize;
		struct shdr h;

		read_shdr(&e, shoff, shentsize, i, &h);
		s->type = h.type;
		s->flags = fld(&e, base, 8, 4, 8, 8);
		s->addr = h.addr;
		s->vaddr = h.addr;
		s->offset = h.offset;
		s->size = h.size;
		s->link = h.link;
		s->info = h.info;
		s->entsize = h.entsize;
		s->align = fld(&e, base, 32, 4, 48, 8);
		if (s->type != ELF_SHT_NOBITS && s->type != 0 &&
		    !in_file(&e, s->offset, s->size)) {
			*why = "section outside the file";
			elf_file_close(f);
			return -1;
		}
	}
	for (i = 0; i < f->shnum; i++) {
		f->secs[i].name = elf_str(f, shstrndx, fld(&e, shoff +
				i * shentsize, 0, 4, 0, 4));
		if (f->secs[i].type == SHT_SYMTAB)
			f->symtab = i;
	}
	if (!f->symtab)
		for (i = 0; i < f->shnum; i++)
			if (f->secs[i].type == 11)	/* SHT_DYNSYM */
				f->symtab = i;
	return 0;
}

/**
 * elf_file_close() - free what elf_file_open() allocated
 * @f: the file (its buffer stays the caller's)
 */
void elf_file_close(struct elf_file *f)
{
	free(f->secs);
	f->secs = NULL;
	f->shnum = 0;
}

/**
 * elf_sec_find() - index of the first section called @name
 * @f: the file
 * @name: section name
 *
 * Return: the index, or -1.
 */
int elf_sec_find(const struct elf_file *f, const char *name)
{
	uint64_t i;

	for (i = 1; i < f->shnum; i++)
		if (!strcmp(f->secs[i].name, name))
			return (int)i;
	return -1;
}

/**
 * elf_sec_data() - bytes of a section in the file
 * @f: the file
 * @idx: section index
 *
 * Return: the first byte (sh_size bytes are in the file), or NULL for
 * NOBITS sections and bad indices.
 */
const uint8_t *elf_sec_data(const struct elf_file *f, uint64_t idx)
{
	if (idx >= f->shnum || f->secs[idx].type == ELF_SHT_NOBITS)
		return NULL;
	return f->buf + f->secs[idx].offset;
}

/**
 * elf_layout_rel() - give each allocated section of an ET_REL its address
 * @f: the file
 *
 * Like the module loader: the SHF_ALLOC sections are placed one after the
 * other in header order (at their alignment, from 0x10000), with a gap of
 * 64 bytes so that the end of one section is never the start of the next.
 * Non-allocated sections get address 0.  Does nothing for other types.
 */
void elf_layout_rel(struct elf_file *f)
{
	uint64_t i, cur = 0x10000;

	if (f->type != ELF_ET_REL)
		return;
	for (i = 1; i < f->shnum; i++) {
		struct elf_sec *s = &f->secs[i];
		uint64_t a = s->align > 16 && s->align <= 4096 ? s->align : 16;

		s->vaddr = 0;
		if (!(s->flags & ELF_SHF_ALLOC))
			continue;
		cur = (cur + a - 1) & ~(a - 1);
		s->vaddr = cur;
		cur += (s->size < (1ULL << 40) ? s->size : 0) + 64;
	}
}

/**
 * elf_nsyms() - number of entries of the symbol table
 * @f: the file
 *
 * Return: the count (0 without a symbol table).
 */
uint64_t elf_nsyms(const struct elf_file *f)
{
	const struct elf_sec *s;

	if (!f->symtab)
		return 0;
	s = &f->secs[f->symtab];
	return s->type == ELF_SHT_NOBITS ? 0 : s->size / (f->is64 ? 24 : 16);
}

/**
 * elf_sym_get() - decode one symbol
 * @f: the file
 * @i: index below elf_nsyms()
 * @s: result; @s->value is an address in the layout of the file's
 *     sections (for ET_REL: the section's synthetic address + st_value)
 *
 * Return: 0, or -1 for a bad index.
 */
int elf_sym_get(const struct elf_file *f, uint64_t i, struct elf_sym *s)
{
	struct elf e = elf_view(f);
	uint64_t base, info;

	if (i >= elf_nsyms(f))
		return -1;
	base = f->secs[f->symtab].offset + i * (f->is64 ? 24 : 16);
	s->name = elf_str(f, f->secs[f->symtab].link, fld(&e, base, 0, 4, 0, 4));
	s->value = fld(&e, base, 4, 4, 8, 8);
	s->size = fld(&e, base, 8, 4, 16, 8);
	info = get(&e, f->buf + base + (f->is64 ? 4 : 12), 1);
	s->type = info & 0xf;
	s->bind = info >> 4;
	s->shndx = get(&e, f->buf + base + (f->is64 ? 6 : 14), 2);
	if (s->shndx >= f->shnum)
		s->shndx = 0;		/* SHN_ABS, SHN_COMMON, SHN_XINDEX */
	else if (f->type == ELF_ET_REL && s->shndx)
		s->value += f->secs[s->shndx].vaddr;
	return 0;
}

/**
 * elf_apply_rela() - apply the RELA sections that target one section
 * @f: the file (after elf_layout_rel() for ET_REL)
 * @target: index of the section to relocate
 * @nrelocs: incremented per applied relocation
 * @why: set to a one-line reason on failure
 *
 * Resolves S + A (minus P for PC-relative types) with S and P taken from
 * the section addresses, and writes the result into the file buffer.
 *
 * Return: 0, or -1 with @why set.
 */
int elf_apply_rela(struct elf_file *f, uint64_t target, int *nrelocs,
		   const char **why)
{
	struct elf e = elf_view(f);
	uint64_t entsize = f->is64 ? 24 : 12, i, j, nrel;
	const struct elf_sec *t;

	if (target >= f->shnum || f->secs[target].type == ELF_SHT_NOBITS) {
		*why = "relocated section has no contents";
		return -1;
	}
	t = &f->secs[target];
	for (j = 1; j < f->shnum; j++) {
		const struct elf_sec *rs = &f->secs[j];

		if (rs->type != SHT_RELA || rs->info != target)
			continue;
		if (rs->link != f->symtab || !f->symtab) {
			*why = "relocation section without the symbol table";
			return -1;
		}
		nrel = rs->size / entsize;
		for (i = 0; i < nrel; i++) {
			uint64_t r = rs->offset + i * entsize;
			uint64_t off = fld(&e, r, 0, 4, 0, 8);
			uint64_t info = fld(&e, r, 4, 4, 8, 8);
			int64_t addend = (int64_t)fld(&e, r, 8, 4, 16, 8);
			uint64_t symi = f->is64 ? info >> 32 : info >> 8;
			uint64_t type = f->is64 ? (info & 0xffffffff) :
						  (info & 0xff);
			int pcrel, len = reloc_kind(f->machine, type, &pcrel);
			struct elf_sym sym;
			uint64_t value;

			if (!f->is64)
				addend = (int32_t)addend;
			if (!len) {
				*why = "unsupported relocation type";
				return -1;
			}
			if (elf_sym_get(f, symi, &sym) || off > t->size ||
			    (uint64_t)len > t->size - off) {
				*why = "relocation outside its section or symbol table";
				return -1;
			}
			value = sym.value + addend;
			if (pcrel)
				value -= t->vaddr + off;
			put(&e, f->buf + t->offset + off, len, value);
			(*nrelocs)++;
		}
	}
	return 0;
}
