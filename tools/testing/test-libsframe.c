// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame v1 against the reference decoder: at every PC of every function
 * of each ELF file given, our rule must equal the row libsframe 2.40
 * (binutils-dev) finds: same row, CFA base and offset, FP and RA slots.
 *
 * PCMASK functions (PLTs) are left out: v1 has no block size, libsframe
 * 2.40 finds rows only in the first PLT entry, and we follow the v1
 * specification's mask rule instead ((off & start) == start).
 *
 *   test-libsframe ELF...
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sframe/sframe.h>
#include "harness.h"
#include "../lib/sframe-elf.h"
#include "../bench/libsframe-glue.h"

/* libsframe gives a CFA-relative slot offset, or none (value unchanged). */
static int slot_matches(const struct sframe_loc *l, int present, int32_t off)
{
	if (!present)
		return l->kind == SFRAME_LOC_SAME;
	return l->kind == SFRAME_LOC_CFA && l->offset == off;
}

static void check_file(const char *path)
{
	struct elf_file f = { 0 };
	struct sframe_blob b;
	struct sframe_section sec;
	const char *why;
	void *ls = NULL;
	uint32_t i;
	unsigned long pcs = 0;

	t_begin("libsframe 2.40 agrees at every PC: %s", path);
	if (elf_file_open(&f, path, &why) ||
	    sframe_elf_find(&f, &b, 0, &why) ||
	    sframe_open(&sec, b.data, b.size, b.addr, 0)) {
		T_CHECK(0, "cannot open");
		goto out;
	}
	ls = ls_open(b.data, sec.size);
	T_CHECK(ls, "libsframe cannot decode");
	if (!ls)
		goto out;
	for (i = 0; i < sec.num_fdes; i++) {
		struct sframe_fde f;
		uint64_t o;

		if (sframe_get_fde(&sec, i, &f) || sframe_fde_pcmask(&f))
			continue;
		for (o = 0; o < f.size; o++) {
			uint64_t pc = f.start + o;
			struct sframe_rule r;
			struct ls_row row;
			int ours = sframe_find(&sec, pc, &r);
			int theirs = ls_find(ls, (int32_t)(pc - sec.addr), &row);

			pcs++;
			T_CHECK(!ours == !theirs, "pc 0x%" PRIx64 ": %s vs %d", pc,
				sframe_errname(ours), theirs);
			if (ours || theirs)
				continue;
			T_CHECK(r.fre_start == row.fre_start &&
				!!(r.flags & SFRAME_RULE_CFA_BASE_SP) == row.base_sp &&
				r.cfa.offset == row.cfa,
				"pc 0x%" PRIx64 ": CFA %s%+d row 0x%x vs %s%+d row 0x%x",
				pc, r.flags & SFRAME_RULE_CFA_BASE_SP ? "sp" : "fp",
				r.cfa.offset, r.fre_start, row.base_sp ? "sp" : "fp",
				row.cfa, row.fre_start);
			T_CHECK(slot_matches(&r.fp, row.fp_ok, row.fp),
				"pc 0x%" PRIx64 ": FP", pc);
			if (!(r.flags & SFRAME_RULE_RA_FIXED))
				T_CHECK(slot_matches(&r.ra, row.ra_ok, row.ra),
					"pc 0x%" PRIx64 ": RA", pc);
		}
	}
	fprintf(stderr, "  %s: %lu PCs compared\n", path, pcs);
out:
	if (ls)
		ls_close(ls);
	elf_file_close(&f);
	t_end();
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		check_file(argv[i]);
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
