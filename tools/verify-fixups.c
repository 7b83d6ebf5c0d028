// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify: the fixup writers.  The ranges where SFrame is covered
 * but wrong and no annotation covers them become SFRAME_ANNOT_UNRELIABLE
 * entries: in the reserved tail of vmlinux's .sframe_annot
 * (--write-fixups; --count-fixups sizes it), or FDE-relative in a file
 * for a module's .sframe_fixup (--module-fixups).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "verify.h"

static int find_sym(const struct input *in, const char *name, uint64_t *v)
{
	uint64_t i, n = elf_nsyms(&in->f, in->f.symtab);
	struct elf_sym s;

	for (i = 1; i < n; i++)
		if (!elf_sym_get(&in->f, in->f.symtab, i, &s) && s.shndx &&
		    !strcmp(s.name, name)) {
			*v = s.value;
			return 0;
		}
	return -1;
}

struct slot {
	uint64_t target;
	uint8_t e[SFRAME_ANNOT_SIZE];
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	int ex = !x->e[6], ey = !y->e[6];	/* empty slots last */

	if (ex != ey)
		return ex - ey;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return memcmp(x->e + 4, y->e + 4, SFRAME_ANNOT_SIZE - 4);
}

/* The fixup area: [fixups, stop) of .sframe_annot; 0 if present. */
static int fixup_area(struct input *in, uint64_t *start, uint64_t *fix,
		      uint64_t *stop)
{
	const struct elf_sec *s;

	if (in->annot_sec < 0 || find_sym(in, "__sframe_annot_fixups", fix) ||
	    find_sym(in, "__stop_sframe_annot", stop))
		return -1;
	s = &in->f.secs[in->annot_sec];
	if (find_sym(in, "__start_sframe_annot", start))
		*start = s->vaddr;
	if (*start < s->vaddr || *fix < *start || *stop < *fix ||
	    *stop - s->vaddr > s->size || (*fix - *start) % SFRAME_ANNOT_SIZE ||
	    (*stop - *fix) % SFRAME_ANNOT_SIZE || (*start - s->vaddr) % 4)
		die(in->path, "malformed .sframe_annot: %s",
		    "bad __start/__sframe_annot_fixups/__stop symbols");
	return 0;
}

static int slot_free(const uint8_t *e)
{
	int i;

	for (i = 0; i < SFRAME_ANNOT_SIZE; i++)
		if (e[i])
			return 0;
	return 1;
}

/**
 * do_fixups() - count the entries needed; write and sort them if asked
 * @in: the input, after every check
 * @write: --write-fixups: write them into the file's fixup area
 *
 * Return: 0, or 1 if the fixup area has too few free slots.
 */
int do_fixups(struct input *in, int write)
{
	uint64_t start, fix, stop, a, i, n, k = 0;
	const struct elf_sec *s;
	struct slot *slots;
	uint8_t *d;
	FILE *fp;

	iv_merge(&in->fix);
	for (i = 0; i < in->fix.n; i++)
		in->st.nfix += (in->fix.v[i].hi - in->fix.v[i].lo + 0xfffe) /
			       0xffff;
	if (fixup_area(in, &start, &fix, &stop)) {
		if (write)
			die(in->path, "--write-fixups: no fixup area (%s)",
			    ".sframe_annot, __sframe_annot_fixups, __stop_sframe_annot");
		return 0;
	}
	in->st.has_fixarea = 1;
	s = &in->f.secs[in->annot_sec];
	in->st.fix_total = (stop - fix) / SFRAME_ANNOT_SIZE;
	for (a = fix; a < stop; a += SFRAME_ANNOT_SIZE)
		in->st.fix_free += slot_free(elf_sec_data(&in->f, in->annot_sec) +
					     (a - s->vaddr));
	if (!write)
		return 0;
	if (in->f.type != ELF_ET_EXEC && in->f.type != ELF_ET_DYN)
		die(in->path, "--write-fixups works on a linked vmlinux only");
	if (in->st.nfix > in->st.fix_free) {
		fprintf(stderr, "%s: %s: --write-fixups: %" PRIu64
			" UNRELIABLE entries needed, %" PRIu64
			" free slots of %" PRIu64
			" (the build sizes the area with --count-fixups: did the text change between links?)\n",
			prog, in->path, in->st.nfix, in->st.fix_free,
			in->st.fix_total);
		return 1;
	}
	d = elf_sec_writable(&in->f, in->annot_sec);
	if (!d)
		die(in->path, "out of memory");
	/* Fill free slots in [fix, stop) in address order. */
	a = fix;
	for (i = 0; i < in->fix.n; i++) {
		uint64_t lo = in->fix.v[i].lo, hi = in->fix.v[i].hi;

		while (lo < hi) {
			uint64_t len = hi - lo > 0xffff ? 0xffff : hi - lo;
			uint8_t *e;

			while (!slot_free(d + (a - s->vaddr)))
				a += SFRAME_ANNOT_SIZE;
			e = d + (a - s->vaddr);
			elf_put(&in->f, e, 4, (uint32_t)(lo - a));
			elf_put(&in->f, e + 4, 2, len);
			e[6] = SFRAME_ANNOT_UNRELIABLE;
			in->st.fix_written++;
			in->st.fix_free--;
			lo += len;
		}
	}
	/* Sort the whole table by address; empty slots go last. */
	n = (stop - start) / SFRAME_ANNOT_SIZE;
	slots = xcalloc(n, sizeof(*slots));
	for (i = 0; i < n; i++) {
		uint8_t *e = d + (start - s->vaddr) + i * SFRAME_ANNOT_SIZE;

		memcpy(slots[i].e, e, SFRAME_ANNOT_SIZE);
		slots[i].target = start + i * SFRAME_ANNOT_SIZE +
				  (int64_t)(int32_t)elf_get(&in->f, e, 4);
	}
	qsort(slots, n, sizeof(*slots), cmp_slot);
	for (i = 0; i < n; i++) {
		uint8_t *e = d + (start - s->vaddr) + i * SFRAME_ANNOT_SIZE;

		memcpy(e, slots[i].e, SFRAME_ANNOT_SIZE);
		if (e[6])
			elf_put(&in->f, e, 4, (uint32_t)(slots[i].target -
				(start + i * SFRAME_ANNOT_SIZE)));
		else
			k++;
	}
	free(slots);
	fp = fopen(in->path, "r+b");
	if (!fp || fseek(fp, (long)(s->offset + (start - s->vaddr)), SEEK_SET) ||
	    fwrite(d + (start - s->vaddr), 1, stop - start, fp) != stop - start ||
	    fclose(fp)) {
		fprintf(stderr, "%s: %s: --write-fixups: %s\n", prog, in->path,
			strerror(errno));
		exit(2);
	}
	(void)k;
	return 0;
}

_Static_assert(sizeof(struct sframe_annot_fixup) == SFRAME_ANNOT_SIZE,
	       "struct sframe_annot_fixup is one annotation slot");

/* One --module-fixups entry before encoding. */
struct modfix {
	u32 fde, off, len;
};

static int cmp_modfix(const void *a, const void *b)
{
	const struct modfix *x = a, *y = b;

	if (x->fde != y->fde)
		return x->fde < y->fde ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/**
 * do_module_fixups() - write --module-fixups FILE
 * @in: the input, after do_fixups()
 * @path: FILE
 *
 * The fixup ranges (merged by do_fixups()) as struct sframe_annot_fixup
 * entries in @path, relative to the FDE whose function contains them (the
 * FDE the core finds for their first byte, in the first part that has
 * one), split at FDE ends and every 65535 bytes, sorted by (FDE index,
 * offset).  FDE indexes count across the parts of .sframe: part 0's FDEs
 * first, then part 1's, as the module loader counts them.  @path is always
 * written, empty without fixups.
 */
void do_module_fixups(struct input *in, const char *path)
{
	uint8_t e[SFRAME_ANNOT_SIZE];
	struct sframe_fde fde;
	struct modfix *v = NULL;
	size_t n = 0, cap = 0, i;
	FILE *fp;

	for (i = 0; i < in->fix.n; i++) {
		uint64_t lo = in->fix.v[i].lo, hi = in->fix.v[i].hi;

		while (lo < hi) {
			const struct part *p = part_at(in, lo, &fde);
			uint64_t end;

			if (!p || lo < fde.start || lo - fde.start >= fde.size) {
				struct region fake;
				char where[512];

				sym_range(region_or_fake(in, lo, &fake), lo,
					  hi, where, sizeof(where));
				die(in->path, "--module-fixups: %s is in no FDE",
				    where);
			}
			end = fde.start + fde.size;
			if (end > hi)
				end = hi;
			if (end - lo > 0xffff)
				end = lo + 0xffff;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				v = xrealloc(v, cap, sizeof(*v));
			}
			v[n].fde = p->first + fde.index;
			v[n].off = lo - fde.start;
			v[n].len = end - lo;
			n++;
			lo = end;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_modfix);
	fp = fopen(path, "wb");
	for (i = 0; fp && i < n; i++) {
		memset(e, 0, sizeof(e));
		elf_put(&in->f, e + offsetof(struct sframe_annot_fixup, fde), 4,
			v[i].fde);
		elf_put(&in->f, e + offsetof(struct sframe_annot_fixup, off), 4,
			v[i].off);
		elf_put(&in->f, e + offsetof(struct sframe_annot_fixup, len), 2,
			v[i].len);
		e[offsetof(struct sframe_annot_fixup, type)] =
			SFRAME_ANNOT_UNRELIABLE;
		if (fwrite(e, 1, sizeof(e), fp) != sizeof(e))
			break;
	}
	if (!fp || i < n || fclose(fp)) {
		fprintf(stderr, "%s: %s: --module-fixups: %s\n", prog, path,
			strerror(errno));
		exit(2);
	}
	free(v);
	in->st.nfix = n;
	in->st.fix_written = n;
}
