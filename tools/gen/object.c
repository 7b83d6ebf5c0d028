// SPDX-License-Identifier: GPL-2.0-only
/*
 * A relocatable object with an SFrame section added (see object.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sframe/format.h>
#include "object.h"

#define SHT_RELA_		4
#define SHT_GNU_SFRAME_		0x6ffffff4
#define SHF_INFO_LINK_		0x40
#define STT_SECTION_		3
#define DISCARD_PREFIX		".discard"

/* Each allocated section's section symbol (vmlinux.o has 10^5 symbols). */
static uint64_t *section_symbols(const struct elf_file *f)
{
	uint64_t *secsym = calloc(f->shnum, sizeof(*secsym));
	uint64_t i, nsyms = elf_nsyms(f, f->symtab);

	for (i = 1; secsym && i < nsyms; i++) {
		struct elf_sym s;

		if (!elf_sym_get(f, f->symtab, i, &s) && s.type == STT_SECTION_ &&
		    s.shndx < f->shnum && !secsym[s.shndx])
			secsym[s.shndx] = i;
	}
	return secsym;
}

/* The allocated section holding @addr, or f->shnum. */
static uint64_t section_at(const struct elf_file *f, uint64_t addr)
{
	uint64_t k;

	for (k = 1; k < f->shnum; k++) {
		const struct elf_sec *x = &f->secs[k];

		if ((x->flags & ELF_SHF_ALLOC) && addr >= x->vaddr &&
		    addr - x->vaddr < x->size)
			break;
	}
	return k;
}

/**
 * sframe_object_write() - write a copy of an object with an SFrame section
 * @f: the relocatable object, laid out (elf_layout_rel())
 * @a: the section to add, and a section to discard
 * @out: the file to write
 * @why: set to a one-line reason on failure
 *
 * The copy gets @a->name and .rela<name>, which relocates each function
 * start field against its function's section symbol: what gas writes, so
 * that the linker merges the section like gas's (ld 2.40 reads v1 only,
 * and only under the name .sframe).
 *
 * Return: 0, or -1 with @why set.
 */
int sframe_object_write(const struct elf_file *f,
			const struct sframe_object_add *a, const char *out,
			const char **why)
{
	const struct sframe_section *sec = a->sec;
	unsigned int pc32, pc64;
	uint64_t shoff, shnum, shstrndx, strtab_off, strtab_len, sf_off, rela_off;
	uint64_t i, n = sec->num_fdes, total, name_sf, name_rela, name_disc = 0;
	uint64_t *secsym = NULL, oldlen;
	size_t namelen = strlen(a->name);
	const uint8_t *oldstr;
	uint8_t *o = NULL, *sh;
	FILE *fp;

	if (f->type != ELF_ET_REL || !f->is64 || !f->laid_out) {
		*why = "needs a 64-bit relocatable object";
		return -1;
	}
	if (elf_sec_find(f, ".sframe") >= 0 || elf_sec_find(f, a->name) >= 0) {
		*why = "the object has an SFrame section already";
		return -1;
	}
	if (!f->symtab) {
		*why = "the object has no symbol table";
		return -1;
	}
	if (a->discard >= (int)f->shnum) {
		*why = "internal error: no such section to discard";
		return -1;
	}
	if (f->machine == ELF_EM_X86_64) {
		pc64 = 24;		/* R_X86_64_PC64 */
		pc32 = 2;		/* R_X86_64_PC32 */
	} else {
		pc64 = 260;		/* R_AARCH64_PREL64 */
		pc32 = 261;		/* R_AARCH64_PREL32 */
	}
	shnum = elf_get(f, f->map + 0x3c, 2);
	shstrndx = elf_get(f, f->map + 0x3e, 2);
	if (shnum != f->shnum || !shnum || shstrndx >= shnum ||
	    elf_get(f, f->map + 0x3a, 2) != 64) {
		*why = "unusual section header table";
		return -1;
	}
	oldstr = elf_sec_data(f, shstrndx);
	if (!oldstr) {
		*why = "no section name table";
		return -1;
	}
	/*
	 * New layout: the file, the section, its relocations, the names (the
	 * old ones, ".rela" NAME, and DISCARD_PREFIX with the discarded
	 * section's name), the section headers.
	 */
	oldlen = f->secs[shstrndx].size;
	name_rela = oldlen;
	name_sf = oldlen + 5;			/* NAME in ".relaNAME" */
	strtab_len = oldlen + 5 + namelen + 1;
	if (a->discard > 0) {
		name_disc = strtab_len;
		strtab_len += strlen(DISCARD_PREFIX) +
			      strlen(f->secs[a->discard].name) + 1;
	}
	sf_off = (f->size + 7) & ~7ULL;
	rela_off = (sf_off + a->len + 7) & ~7ULL;
	strtab_off = rela_off + 24 * n;
	shoff = (strtab_off + strtab_len + 7) & ~7ULL;
	total = shoff + 64 * (shnum + 2);
	o = calloc(1, total);
	secsym = section_symbols(f);
	if (!o || !secsym) {
		*why = "out of memory";
		goto fail;
	}
	memcpy(o, f->map, f->size);
	memcpy(o + sf_off, a->buf, a->len);
	memcpy(o + strtab_off, oldstr, oldlen);
	memcpy(o + strtab_off + name_rela, ".rela", 5);
	memcpy(o + strtab_off + name_sf, a->name, namelen + 1);
	if (a->discard > 0)
		sprintf((char *)o + strtab_off + name_disc, "%s%s",
			DISCARD_PREFIX, f->secs[a->discard].name);
	for (i = 0; i < n; i++) {
		struct sframe_field start;
		struct sframe_fde fde;
		uint64_t k;

		/* the start field as the core's field map places it */
		if (sframe_get_fde(sec, i, &fde) ||
		    sframe_fde_field(sec, &fde, SFRAME_FIELD_FDE_START, &start) ||
		    (start.len != 4 && start.len != 8))
			goto bad;
		k = section_at(f, fde.start);
		if (k == f->shnum)
			goto bad;
		if (!secsym[k]) {
			*why = "a function's section has no section symbol";
			goto fail;
		}
		/*
		 * PC-relative to the field, in every version, as gas
		 * relocates it: the linker turns v1's into offsets from the
		 * section when it merges the objects' sections.
		 */
		elf_put(f, o + rela_off + 24 * i, 8, start.off);
		elf_put(f, o + rela_off + 24 * i + 8, 8,
			secsym[k] << 32 | (start.len == 8 ? pc64 : pc32));
		elf_put(f, o + rela_off + 24 * i + 16, 8,
			fde.start - f->secs[k].vaddr);
		elf_put(f, o + sf_off + start.off, start.len, 0);
	}
	/* headers: the old ones, the names moved, and the two new ones */
	memcpy(o + shoff, f->map + elf_get(f, f->map + 0x28, 8), 64 * shnum);
	sh = o + shoff + 64 * shstrndx;
	elf_put(f, sh + 24, 8, strtab_off);
	elf_put(f, sh + 32, 8, strtab_len);
	if (a->discard > 0)
		elf_put(f, o + shoff + 64 * a->discard, 4, name_disc);
	sh = o + shoff + 64 * shnum;		/* the SFrame section */
	elf_put(f, sh, 4, name_sf);
	/* the type of the sections merged (PROGBITS before binutils 2.45) */
	elf_put(f, sh + 4, 4, a->discard > 0 ? f->secs[a->discard].type :
						SHT_GNU_SFRAME_);
	elf_put(f, sh + 8, 8, ELF_SHF_ALLOC);
	elf_put(f, sh + 24, 8, sf_off);
	elf_put(f, sh + 32, 8, a->len);
	elf_put(f, sh + 48, 8, 8);
	sh += 64;				/* its relocations */
	elf_put(f, sh, 4, name_rela);
	elf_put(f, sh + 4, 4, SHT_RELA_);
	elf_put(f, sh + 8, 8, SHF_INFO_LINK_);
	elf_put(f, sh + 24, 8, rela_off);
	elf_put(f, sh + 32, 8, 24 * n);
	elf_put(f, sh + 40, 4, f->symtab);
	elf_put(f, sh + 44, 4, shnum);
	elf_put(f, sh + 48, 8, 8);
	elf_put(f, sh + 56, 8, 24);
	elf_put(f, o + 0x28, 8, shoff);
	elf_put(f, o + 0x3c, 2, shnum + 2);
	fp = fopen(out, "wb");
	if (!fp) {
		*why = "cannot write the output";
		goto fail;
	}
	if (fwrite(o, 1, total, fp) != total) {
		fclose(fp);
		*why = "cannot write the output";
		goto fail;
	}
	if (fclose(fp)) {
		*why = "cannot write the output";
		goto fail;
	}
	free(secsym);
	free(o);
	return 0;
bad:
	*why = "internal error: a function is in no section";
fail:
	free(secsym);
	free(o);
	return -1;
}
