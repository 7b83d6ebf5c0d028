// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-gen --merge: the SFrame sections `ld -r` concatenated, as one.
 *
 * GNU ld 2.40 merges the .sframe input sections of a relocatable link but
 * writes .rela.sframe at the offsets the relocations had before the
 * merge, so FDEs get other functions' start addresses.  The kernel links
 * vmlinux.o with scripts/sframe-concat.lds instead, which only
 * concatenates the objects' sections into .sframe_cat.  When vmlinux is
 * linked from vmlinux.o (IBT, LTO), this writes a copy of vmlinux.o whose
 * .sframe holds them as one section, in their order, relocated as gas
 * relocates an object's section: the final link then merges and sorts it
 * as it does any object's.  .sframe_cat is renamed .discard.sframe_cat.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sframe/format.h>
#include "../lib/sframe-elf.h"
#include "merge.h"
#include "object.h"

/* Can @q be merged into a section that starts like @p? */
static const char *part_differs(const struct sframe_section *p,
				const struct sframe_section *q)
{
	if (q->version != p->version || q->abi != p->abi ||
	    q->fixed_fp != p->fixed_fp || q->fixed_ra != p->fixed_ra ||
	    (q->flags & ~SFRAME_F_FDE_SORTED) !=
	    (p->flags & ~SFRAME_F_FDE_SORTED))
		return "its SFrame sections differ in version, ABI or flags";
	if (q->fde_base != SFRAME_HDR_SIZE)
		return "an SFrame section has an auxiliary header or a gap";
	return NULL;
}

/*
 * Lay @parts out as one section at address 0: header, every FDE, every
 * FRE sub-section.  FDE starts are PC-relative to their field, which
 * SFRAME_OPEN_RELOCATED reads whatever the version.
 */
static const char *merge_parts(const struct elf_file *f,
			       const struct sframe_section *parts, size_t n,
			       uint8_t **bufp, size_t *lenp, uint32_t *nfdes)
{
	const struct sframe_section *p0 = &parts[0];
	uint64_t fdes = 0, fres = 0, fre_len = 0, len, at, fre_at;
	const char *why;
	uint8_t *buf;
	size_t i;
	uint32_t k;

	for (i = 0; i < n; i++) {
		why = part_differs(p0, &parts[i]);
		if (why)
			return why;
		fdes += parts[i].num_fdes;
		fres += parts[i].num_fres;
		fre_len += parts[i].fre_end - parts[i].fre_base;
	}
	len = SFRAME_HDR_SIZE + fdes * p0->fde_size + fre_len;
	if (len > 0xffffffffULL)
		return "the merged section would exceed 4 GiB";
	buf = calloc(1, len);
	if (!buf)
		return "out of memory";
	memcpy(buf, p0->data, SFRAME_HDR_SIZE);
	buf[SFRAME_HDR_FLAGS] &= ~SFRAME_F_FDE_SORTED;
	elf_put(f, buf + SFRAME_HDR_NUM_FDES, 4, fdes);
	elf_put(f, buf + SFRAME_HDR_NUM_FRES, 4, fres);
	elf_put(f, buf + SFRAME_HDR_FRE_LEN, 4, fre_len);
	elf_put(f, buf + SFRAME_HDR_FDEOFF, 4, 0);
	elf_put(f, buf + SFRAME_HDR_FREOFF, 4, fdes * p0->fde_size);
	at = SFRAME_HDR_SIZE;
	fre_at = 0;
	for (i = 0; i < n; i++) {
		const struct sframe_section *p = &parts[i];
		uint64_t fre_size = p->fre_end - p->fre_base;

		for (k = 0; k < p->num_fdes; k++, at += p->fde_size) {
			uint64_t entry = p->fde_base + (uint64_t)k * p->fde_size;
			struct sframe_field start, fre;
			struct sframe_fde fde;

			/* the fields where the core's field map has them */
			if (sframe_get_fde(p, k, &fde) ||
			    sframe_fde_field(p, &fde, SFRAME_FIELD_FDE_START, &start) ||
			    sframe_fde_field(p, &fde, SFRAME_FIELD_FDE_FRE_OFF, &fre) ||
			    start.off < entry || fre.off < entry ||
			    start.off + start.len > entry + p->fde_size ||
			    fre.off + fre.len > entry + p->fde_size) {
				free(buf);
				return "internal error: an opened FDE is unreadable";
			}
			memcpy(buf + at, p->data + entry, p->fde_size);
			elf_put(f, buf + at + (start.off - entry), start.len,
				fde.start - (at + start.off - entry));
			elf_put(f, buf + at + (fre.off - entry), fre.len,
				elf_get(f, p->data + fre.off, fre.len) + fre_at);
		}
		memcpy(buf + SFRAME_HDR_SIZE + fdes * p0->fde_size + fre_at,
		       p->data + p->fre_base, fre_size);
		fre_at += fre_size;
	}
	*bufp = buf;
	*lenp = len;
	*nfdes = fdes;
	return NULL;
}

/**
 * sframe_merge() - write a copy of an object with its SFrame sections merged
 * @path: the relocatable object (vmlinux.o)
 * @out: the copy to write
 * @quiet: no summary line on success
 *
 * Return: 0, or 1 after one line on stdout.
 */
int sframe_merge(const char *path, const char *out, int quiet)
{
	struct sframe_object_add a = { .name = ".sframe" };
	struct sframe_section *parts = NULL, merged;
	const char *why = NULL;
	struct elf_file f;
	uint8_t *buf = NULL;
	size_t nparts, len;
	uint32_t nfdes;
	uint64_t off;
	int idx, e, rc = 1;

	if (elf_file_open(&f, path, &why)) {
		printf("sframe-gen: %s: %s\n", path, why);
		return 1;
	}
	if (f.type != ELF_ET_REL) {
		why = "--merge needs a relocatable object";
		goto out;
	}
	elf_layout_rel(&f);
	idx = elf_sec_find(&f, ".sframe_cat");
	if (idx < 0 || !elf_sec_data(&f, idx) || !f.secs[idx].size) {
		why = "no .sframe_cat (link it with scripts/sframe-concat.lds)";
		goto out;
	}
	if (elf_apply_rela(&f, idx, &why))
		goto out;
	e = sframe_open_parts(elf_sec_data(&f, idx), f.secs[idx].size,
			      f.secs[idx].vaddr, SFRAME_OPEN_RELOCATED, &parts,
			      &nparts, &off);
	if (e) {
		printf("sframe-gen: %s: .sframe_cat: SFrame section at offset %#"
		       PRIx64 ": %s\n", path, off, sframe_strerror(e));
		goto out_quiet;
	}
	why = merge_parts(&f, parts, nparts, &buf, &len, &nfdes);
	if (why)
		goto out;
	e = sframe_open(&merged, buf, len, 0, SFRAME_OPEN_RELOCATED);
	if (!e)
		e = sframe_validate(&merged, NULL, NULL);
	if (e) {
		printf("sframe-gen: %s: internal error: the merged section is invalid: %s\n",
		       path, sframe_strerror(e));
		goto out_quiet;
	}
	a.buf = buf;
	a.len = len;
	a.sec = &merged;
	a.discard = idx;
	if (sframe_object_write(&f, &a, out, &why))
		goto out;
	rc = 0;
	if (!quiet)
		printf("%s: %zu SFrame sections merged to %s: %" PRIu32
		       " functions, %zu bytes\n", path, nparts, out, nfdes, len);
out:
	if (rc)
		printf("sframe-gen: %s: %s\n", path, why);
out_quiet:
	free(buf);
	free(parts);
	elf_file_close(&f);
	return rc;
}
