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

/* An entry of the annotation table, while the table is sorted. */
struct slot {
	uint64_t target;		/* annot_start() */
	struct sframe_annot a;
};

static int cmp_slot(const void *l, const void *r)
{
	const struct slot *x = l, *y = r;
	struct sframe_annot a = x->a, b = y->a;
	int ex = !a.type, ey = !b.type;	/* empty slots last */

	if (ex != ey)
		return ex - ey;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	a.pc = 0;			/* relative to the slot: as @target */
	b.pc = 0;
	return memcmp(&a, &b, sizeof(a));
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

/* A free slot of the table: every member zero. */
static int slot_free(const uint8_t *e)
{
	static const struct sframe_annot zero;

	return !memcmp(e, &zero, sizeof(zero));
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
	uint64_t start, fix, stop, a, i, n;
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
			struct sframe_annot e = {
				.len = hi - lo > 0xffff ? 0xffff : hi - lo,
				.type = SFRAME_ANNOT_UNRELIABLE,
			};

			while (!slot_free(d + (a - s->vaddr)))
				a += SFRAME_ANNOT_SIZE;
			annot_set_start(&e, a, lo);
			annot_put(in, d + (a - s->vaddr), &e);
			in->st.fix_written++;
			in->st.fix_free--;
			lo += e.len;
		}
	}
	/* Sort the whole table by address; empty slots go last. */
	n = (stop - start) / SFRAME_ANNOT_SIZE;
	slots = xcalloc(n, sizeof(*slots));
	for (i = 0; i < n; i++) {
		a = start + i * SFRAME_ANNOT_SIZE;
		annot_get(in, d + (a - s->vaddr), &slots[i].a);
		slots[i].target = annot_start(a, &slots[i].a);
	}
	qsort(slots, n, sizeof(*slots), cmp_slot);
	for (i = 0; i < n; i++) {
		a = start + i * SFRAME_ANNOT_SIZE;
		if (slots[i].a.type)
			annot_set_start(&slots[i].a, a, slots[i].target);
		annot_put(in, d + (a - s->vaddr), &slots[i].a);
	}
	free(slots);
	fp = fopen(in->path, "r+b");
	if (!fp || fseek(fp, (long)(s->offset + (start - s->vaddr)), SEEK_SET) ||
	    fwrite(d + (start - s->vaddr), 1, stop - start, fp) != stop - start ||
	    fclose(fp))
		die(in->path, "--write-fixups: %s", strerror(errno));
	return 0;
}

_Static_assert(sizeof(struct sframe_annot_fixup) == SFRAME_ANNOT_SIZE,
	       "struct sframe_annot_fixup is one annotation slot");

static int cmp_fixup(const void *a, const void *b)
{
	const struct sframe_annot_fixup *x = a, *y = b;

	if (x->fde != y->fde)
		return x->fde < y->fde ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* @x in the target's byte order. */
static struct sframe_annot_fixup fixup_target(const struct input *in,
					      struct sframe_annot_fixup x)
{
	if (in->f.swap) {
		x.fde = __builtin_bswap32(x.fde);
		x.off = __builtin_bswap32(x.off);
		x.len = __builtin_bswap16(x.len);
	}
	return x;
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
	struct sframe_annot_fixup *v = NULL, e;
	struct sframe_fde fde;
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
			memset(&v[n], 0, sizeof(v[n]));
			v[n].fde = p->first + fde.index;
			v[n].off = lo - fde.start;
			v[n].len = end - lo;
			v[n].type = SFRAME_ANNOT_UNRELIABLE;
			n++;
			lo = end;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_fixup);
	fp = fopen(path, "wb");
	for (i = 0; fp && i < n; i++) {
		e = fixup_target(in, v[i]);
		if (fwrite(&e, sizeof(e), 1, fp) != 1)
			break;
	}
	if (!fp || i < n || fclose(fp))
		die(path, "--module-fixups: %s", strerror(errno));
	free(v);
	in->st.nfix = n;
	in->st.fix_written = n;
}
