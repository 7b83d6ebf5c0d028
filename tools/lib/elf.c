// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ELF reader of the project's user-space programs (see elf.h).
 *
 * Every offset taken from the file is checked against the file size before
 * use: a forged ELF file gets an error message, never an out-of-bounds read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf.h"

#define EM_S390		22
#define SHT_RELA	4

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
 * elf_get() - read an unsigned field in the file's byte order
 * @f: the file
 * @p: first byte (the caller checked the bounds)
 * @len: 1, 2, 4 or 8
 *
 * Return: the value.
 */
uint64_t elf_get(const struct elf_file *f, const uint8_t *p, int len)
{
	uint64_t v = 0;
	int i;

	if (f->be)
		for (i = 0; i < len; i++)
			v = (v << 8) | p[i];
	else
		for (i = len - 1; i >= 0; i--)
			v = (v << 8) | p[i];
	return v;
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
	int i;

	for (i = 0; i < len; i++) {
		int shift = f->be ? 8 * (len - 1 - i) : 8 * i;

		p[i] = (uint8_t)(v >> shift);
	}
}

static int in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

/**
 * elf_bytes() - bytes of the file
 * @f: the file
 * @off: offset of the first byte
 * @len: number of bytes
 *
 * Return: the first byte, or NULL if [@off, @off + @len) is not in the file.
 */
const uint8_t *elf_bytes(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return in_file(f, off, len) ? f->map + off : NULL;
}

/*
 * Field of a structure at file offset @base (checked by the caller): its
 * 32-bit and 64-bit offsets and sizes.
 */
static uint64_t fld(const struct elf_file *f, uint64_t base, int off32,
		    int len32, int off64, int len64)
{
	return f->is64 ? elf_get(f, f->map + base + off64, len64) :
			 elf_get(f, f->map + base + off32, len32);
}

/* Map @path read-only; a file that cannot be mapped (a pipe) is read. */
static int map_file(struct elf_file *f, const char *path, const char **why)
{
	struct stat st;
	uint8_t *buf;
	void *p;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size == (size_t)st.st_size) {
		p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			f->map = p;
			f->size = st.st_size;
			f->mapped = 1;
			return 0;
		}
	}
	close(fd);
	err = sframe_read_file(path, &buf, &f->size);
	if (err) {
		*why = strerror(-err);
		return -1;
	}
	f->map = buf;
	return 0;
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
	if (!s->data || off >= s->size)
		return "";
	p = (const char *)s->data + off;
	return memchr(p, 0, s->size - off) ? p : "";
}

/*
 * The section header table, if it is in the file; a section outside the
 * file gets no data and sets @f->sec_why.
 */
static int read_sections(struct elf_file *f, uint64_t shoff,
			 uint64_t shentsize, uint64_t shstrndx)
{
	uint64_t i;

	if (!shoff || !f->shnum) {
		f->sec_why = "no section header table";
		f->shnum = 0;
		return 0;
	}
	if (shentsize < (uint64_t)(f->is64 ? 64 : 40) || shstrndx >= f->shnum) {
		f->sec_why = "section header table outside the file";
		f->shnum = 0;
		return 0;
	}
	if (!in_file(f, shoff, f->shnum * shentsize)) {
		/* a truncated table: the headers in the file are usable */
		f->sec_why = "section header table outside the file";
		f->shnum = shoff < f->size ? (f->size - shoff) / shentsize : 0;
		if (shstrndx >= f->shnum) {
			f->shnum = 0;
			return 0;
		}
	}
	f->secs = calloc(f->shnum, sizeof(*f->secs));
	if (!f->secs)
		return -1;
	for (i = 0; i < f->shnum; i++) {
		struct elf_sec *s = &f->secs[i];
		uint64_t base = shoff + i * shentsize;

		s->type = fld(f, base, 4, 4, 4, 4);
		s->flags = fld(f, base, 8, 4, 8, 8);
		s->addr = fld(f, base, 12, 4, 16, 8);
		s->vaddr = s->addr;
		s->offset = fld(f, base, 16, 4, 24, 8);
		s->size = fld(f, base, 20, 4, 32, 8);
		s->link = fld(f, base, 24, 4, 40, 4);
		s->info = fld(f, base, 28, 4, 44, 4);
		s->align = fld(f, base, 32, 4, 48, 8);
		if (s->type != ELF_SHT_NOBITS)
			s->data = elf_bytes(f, s->offset, s->size);
		if (!s->data && s->type != ELF_SHT_NOBITS && s->type != 0 &&
		    !f->sec_why)
			f->sec_why = "section outside the file";
	}
	for (i = 0; i < f->shnum; i++) {
		f->secs[i].name = elf_str(f, shstrndx, fld(f, shoff +
				i * shentsize, 0, 4, 0, 4));
		if (f->secs[i].type == ELF_SHT_SYMTAB)
			f->symtab = i;
	}
	if (!f->symtab)
		for (i = 0; i < f->shnum; i++)
			if (f->secs[i].type == ELF_SHT_DYNSYM)
				f->symtab = i;
	return 0;
}

/**
 * elf_file_open() - map an ELF file and read its headers
 * @f: result
 * @path: file name
 * @why: set to a one-line reason on failure
 *
 * Reads the ELF header and the section header table.  A file without a
 * usable section header table, or with sections outside the file, opens
 * with @f->sec_why saying so: such sections have no data, and a reader
 * that needs them all reports @f->sec_why.
 *
 * Return: 0, or -1 with @why set (nothing to close).
 */
int elf_file_open(struct elf_file *f, const char *path, const char **why)
{
	uint64_t shoff, shentsize, shstrndx;

	memset(f, 0, sizeof(*f));
	if (map_file(f, path, why))
		return -1;
	*why = NULL;
	if (f->size < 16 || memcmp(f->map, "\177ELF", 4))
		*why = "not an ELF file";
	else if ((f->map[4] != 1 && f->map[4] != 2) ||
		 (f->map[5] != 1 && f->map[5] != 2))
		*why = "unknown ELF class or data encoding";
	else if (!in_file(f, 0, f->map[4] == 2 ? 64 : 52))
		*why = "truncated ELF header";
	if (*why) {
		elf_file_close(f);
		return -1;
	}
	f->is64 = f->map[4] == 2;
	f->be = f->map[5] == 2;
	f->swap = f->be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	f->type = fld(f, 0, 16, 2, 16, 2);
	f->machine = fld(f, 0, 18, 2, 18, 2);
	f->phoff = fld(f, 0, 28, 4, 32, 8);
	shoff = fld(f, 0, 32, 4, 40, 8);
	f->phentsize = fld(f, 0, 42, 2, 54, 2);
	f->phnum = fld(f, 0, 44, 2, 56, 2);
	shentsize = fld(f, 0, 46, 2, 58, 2);
	f->shnum = fld(f, 0, 48, 2, 60, 2);
	shstrndx = fld(f, 0, 50, 2, 62, 2);
	if (read_sections(f, shoff, shentsize, shstrndx)) {
		*why = "out of memory";
		elf_file_close(f);
		return -1;
	}
	return 0;
}

/**
 * elf_file_close() - unmap the file and free what the reader allocated
 * @f: the file (pointers into it are invalid afterwards)
 */
void elf_file_close(struct elf_file *f)
{
	uint64_t i;

	for (i = 0; i < f->shnum && f->secs; i++)
		free(f->secs[i].copy);
	free(f->secs);
	if (f->mapped)
		munmap((void *)f->map, f->size);
	else
		free((void *)f->map);
	memset(f, 0, sizeof(*f));
}

/**
 * elf_seg_get() - decode one program header
 * @f: the file
 * @i: index below @f->phnum
 * @s: result
 *
 * Return: 0, or -1 if the program header is not in the file.
 */
int elf_seg_get(const struct elf_file *f, uint64_t i, struct elf_seg *s)
{
	uint64_t base = f->phoff + i * f->phentsize;

	if (i >= f->phnum || f->phentsize < (uint64_t)(f->is64 ? 56 : 32) ||
	    !in_file(f, base, f->phentsize))
		return -1;
	s->type = fld(f, base, 0, 4, 0, 4);
	s->offset = fld(f, base, 4, 4, 8, 8);
	s->vaddr = fld(f, base, 8, 4, 16, 8);
	s->filesz = fld(f, base, 16, 4, 32, 8);
	s->flags = fld(f, base, 24, 4, 4, 4);
	return 0;
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
 * elf_sec_data() - bytes of a section
 * @f: the file
 * @idx: section index
 *
 * Return: the first byte (sh_size bytes follow): the writable copy if there
 * is one, else the file's; NULL for NOBITS sections, sections outside the
 * file and bad indices.
 */
const uint8_t *elf_sec_data(const struct elf_file *f, uint64_t idx)
{
	if (idx >= f->shnum)
		return NULL;
	return f->secs[idx].copy ? f->secs[idx].copy : f->secs[idx].data;
}

/**
 * elf_sec_writable() - a private, writable copy of a section's bytes
 * @f: the file
 * @idx: section index
 *
 * The first call copies the section; elf_sec_data() returns the copy from
 * then on, and elf_file_close() frees it.  The file is not changed.
 *
 * Return: the first byte of the copy, or NULL if the section has no data
 * (see elf_sec_data()) or memory ran out.
 */
uint8_t *elf_sec_writable(struct elf_file *f, uint64_t idx)
{
	struct elf_sec *s;

	if (idx >= f->shnum || !f->secs[idx].data)
		return NULL;
	s = &f->secs[idx];
	if (!s->copy) {
		s->copy = malloc(s->size ? s->size : 1);
		if (s->copy)
			memcpy(s->copy, s->data, s->size);
	}
	return s->copy;
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
	f->laid_out = 1;
}

/**
 * elf_nsyms() - number of entries of a symbol table
 * @f: the file
 * @tab: section index of the table (@f->symtab: the file's own)
 *
 * Return: the count (0 if @tab is not a symbol table with contents).
 */
uint64_t elf_nsyms(const struct elf_file *f, uint64_t tab)
{
	const struct elf_sec *s;

	if (!tab || tab >= f->shnum)
		return 0;
	s = &f->secs[tab];
	if (!s->data || (s->type != ELF_SHT_SYMTAB && s->type != ELF_SHT_DYNSYM))
		return 0;
	return s->size / (f->is64 ? 24 : 16);
}

/**
 * elf_sym_get() - decode one symbol
 * @f: the file
 * @tab: section index of the symbol table
 * @i: index below elf_nsyms()
 * @s: result; @s->value is an address in the layout of the file's
 *     sections (for ET_REL after elf_layout_rel(): the section's synthetic
 *     address + st_value)
 *
 * Return: 0, or -1 for a bad index.
 */
int elf_sym_get(const struct elf_file *f, uint64_t tab, uint64_t i,
		struct elf_sym *s)
{
	const uint8_t *p;

	if (i >= elf_nsyms(f, tab))
		return -1;
	p = f->secs[tab].data + i * (f->is64 ? 24 : 16);
	s->name = elf_str(f, f->secs[tab].link, elf_get(f, p, 4));
	s->value = elf_get(f, p + (f->is64 ? 8 : 4), f->is64 ? 8 : 4);
	s->size = elf_get(f, p + (f->is64 ? 16 : 8), f->is64 ? 8 : 4);
	s->type = p[f->is64 ? 4 : 12] & 0xf;
	s->shndx = elf_get(f, p + (f->is64 ? 6 : 14), 2);
	if (s->shndx >= f->shnum)
		s->shndx = 0;		/* SHN_ABS, SHN_COMMON, SHN_XINDEX */
	else if (f->laid_out && s->shndx)
		s->value += f->secs[s->shndx].vaddr;
	return 0;
}

/**
 * elf_nrelas() - number of entries of a RELA section
 * @f: the file
 * @sec: section index
 *
 * Return: the count (0 if @sec is not a RELA section with contents).
 */
uint64_t elf_nrelas(const struct elf_file *f, uint64_t sec)
{
	if (sec >= f->shnum || f->secs[sec].type != SHT_RELA ||
	    !f->secs[sec].data)
		return 0;
	return f->secs[sec].size / (f->is64 ? 24 : 12);
}

/**
 * elf_rela_get() - decode one relocation of a RELA section
 * @f: the file
 * @sec: section index
 * @i: index below elf_nrelas()
 * @r: result
 *
 * Return: 0, or -1 for a bad index.
 */
int elf_rela_get(const struct elf_file *f, uint64_t sec, uint64_t i,
		 struct elf_rela *r)
{
	const uint8_t *p;
	uint64_t info;

	if (i >= elf_nrelas(f, sec))
		return -1;
	p = f->secs[sec].data + i * (f->is64 ? 24 : 12);
	r->offset = elf_get(f, p, f->is64 ? 8 : 4);
	info = elf_get(f, p + (f->is64 ? 8 : 4), f->is64 ? 8 : 4);
	r->sym = f->is64 ? info >> 32 : info >> 8;
	r->type = f->is64 ? (info & 0xffffffff) : (info & 0xff);
	r->addend = f->is64 ? (int64_t)elf_get(f, p + 16, 8) :
			      (int32_t)elf_get(f, p + 8, 4);
	return 0;
}

/*
 * The relocation types resolved, per machine: S + A (absolute) and
 * S + A - P (PC-relative), 64 and 32 bits wide; 0: none.
 */
static const struct reloc_types {
	unsigned int machine;
	uint32_t abs64, abs32, abs32s, pc64, pc32;
} reloc_types[] = {
	/* R_X86_64_64, _32, _32S, _PC64, _PC32 */
	{ ELF_EM_X86_64, 1, 10, 11, 24, 2 },
	/* R_AARCH64_ABS64, _ABS32, -, _PREL64, _PREL32 */
	{ ELF_EM_AARCH64, 257, 258, 0, 260, 261 },
	/* R_390_64, _32, -, _PC64, _PC32 */
	{ EM_S390, 22, 4, 0, 23, 5 },
};

/* Size of relocation @type (0: unsupported), and whether PC-relative. */
static int reloc_kind(unsigned int machine, uint64_t type, int *pcrel)
{
	const struct reloc_types *t;

	*pcrel = 0;
	if (!type)		/* R_*_NONE; 0 in reloc_types[] is no type */
		return 0;
	for (t = reloc_types;
	     t < reloc_types + sizeof(reloc_types) / sizeof(*t); t++) {
		if (t->machine != machine)
			continue;
		*pcrel = type == t->pc64 || type == t->pc32;
		if (type == t->abs64 || type == t->pc64)
			return 8;
		if (type == t->abs32 || type == t->abs32s || type == t->pc32)
			return 4;
	}
	return 0;
}

/**
 * elf_apply_rela() - apply the RELA sections that target one section
 * @f: the file
 * @target: index of the section to relocate
 * @why: set to a one-line reason on failure
 *
 * Resolves S + A (minus P for PC-relative types) with S and P taken from
 * the section addresses: the elf_layout_rel() layout, else sh_addr for P
 * and st_value for S (as readelf does for debug dumps).  The result goes
 * into the section's writable copy (elf_sec_writable()).
 *
 * Return: 0, or -1 with @why set.
 */
int elf_apply_rela(struct elf_file *f, uint64_t target, const char **why)
{
	const struct elf_sec *t;
	uint64_t i, j;
	uint8_t *d;

	if (target >= f->shnum || !elf_sec_data(f, target)) {
		*why = "relocated section has no contents";
		return -1;
	}
	t = &f->secs[target];
	for (j = 1; j < f->shnum; j++) {
		const struct elf_sec *rs = &f->secs[j];
		uint64_t nrel = elf_nrelas(f, j);

		if (rs->type != SHT_RELA || rs->info != target)
			continue;
		if (!rs->data) {
			*why = "relocation section outside the file";
			return -1;
		}
		if (!elf_nsyms(f, rs->link)) {
			*why = "relocation section without the symbol table";
			return -1;
		}
		d = elf_sec_writable(f, target);
		if (!d) {
			*why = "out of memory";
			return -1;
		}
		for (i = 0; i < nrel; i++) {
			struct elf_rela r;
			struct elf_sym sym;
			int pcrel, len;
			uint64_t value;

			elf_rela_get(f, j, i, &r);
			len = reloc_kind(f->machine, r.type, &pcrel);
			if (!len) {
				*why = "unsupported relocation type";
				return -1;
			}
			if (elf_sym_get(f, rs->link, r.sym, &sym) ||
			    r.offset > t->size ||
			    (uint64_t)len > t->size - r.offset) {
				*why = "relocation outside its section or symbol table";
				return -1;
			}
			value = sym.value + r.addend;
			if (pcrel)
				value -= t->vaddr + r.offset;
			elf_put(f, d + r.offset, len, value);
		}
	}
	return 0;
}
