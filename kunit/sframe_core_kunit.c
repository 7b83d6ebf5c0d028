// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the SFrame core inside the kernel on real sections compiled in as
 * data (every version, ABI and byte order; see sframe_fixtures.h).  At
 * every PC of every function, the rule must be the one the independent
 * reference rows give, exactly as the host tests check it.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include "sframe_kunit.h"
#include "sframe_fixtures.h"

static bool loc_matches(const struct sframe_loc *got,
			const struct sframe_kunit_loc *want)
{
	if (got->kind != want->kind)
		return false;
	if (got->kind == SFRAME_LOC_SAME || got->kind == SFRAME_LOC_UNDEFINED)
		return true;
	return got->deref == want->deref && got->offset == want->offset &&
	       (got->kind != SFRAME_LOC_REG || got->reg == want->reg);
}

static bool rule_matches(const struct sframe_rule *r,
			 const struct sframe_kunit_row *row)
{
	if (!!(r->flags & SFRAME_RULE_OUTERMOST) != row->outermost)
		return false;
	if (row->outermost)
		return true;
	return loc_matches(&r->cfa, &row->cfa) &&
	       loc_matches(&r->ra, &row->ra) &&
	       loc_matches(&r->fp, &row->fp) &&
	       !!(r->flags & SFRAME_RULE_RA_MANGLED) ==
	       !!(row->flags & SFRAME_KUNIT_MANGLED) &&
	       !!(r->flags & SFRAME_RULE_RA_PADDING) ==
	       !!(row->flags & SFRAME_KUNIT_PADDING);
}

/* Index of the row that applies at offset @off of function @f. */
static int expected_row(const struct sframe_section *sec,
			const struct sframe_kunit_fde *f,
			const struct sframe_kunit_row *rows, u32 off)
{
	int k, found = -1;

	if (f->pc_type && sec->version >= SFRAME_VERSION_2 && f->rep)
		off %= f->rep;
	for (k = 0; k < f->nrows; k++) {
		bool applies = f->pc_type && sec->version == SFRAME_VERSION_1 ?
			       (off & rows[k].start) == rows[k].start :
			       rows[k].start <= off;
		if (applies)
			found = k;
	}
	return found;
}

static void sframe_core_fixture_test(struct kunit *test)
{
	const struct sframe_kunit_fixture *fx = test->param_value;
	const struct sframe_kunit_row *rows = fx->rows;
	struct sframe_section sec;
	unsigned long pcs = 0, bad = 0;
	u32 i;
	int err;

	err = sframe_open(&sec, fx->data, fx->size, fx->addr, 0);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "open: %s", sframe_errname(err));
	err = sframe_validate(&sec, NULL, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "validate: %s", sframe_errname(err));
	KUNIT_ASSERT_EQ(test, sec.num_fdes, fx->nfdes);

	for (i = 0; i < fx->nfdes; rows += fx->fdes[i].nrows, i++) {
		const struct sframe_kunit_fde *f = &fx->fdes[i];
		struct sframe_fde fde;
		u32 off;

		err = sframe_get_fde(&sec, i, &fde);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_EXPECT_EQ(test, fde.start, f->pc);
		KUNIT_EXPECT_EQ(test, fde.size, f->size);
		KUNIT_EXPECT_EQ(test, fde.num_fres, f->nrows);

		for (off = 0; off < f->size; off++) {
			int k = expected_row(&sec, f, rows, off);
			struct sframe_rule r;
			struct sframe_fre fre;
			bool ok;

			pcs++;
			if (!f->nrows) {
				err = sframe_find(&sec, f->pc + off, &r);
				ok = f->signal ? err == -SFRAME_E_SIGNAL :
				     !err && (r.flags & SFRAME_RULE_OUTERMOST);
			} else {
				err = sframe_find_fre(&sec, &fde, f->pc + off, &fre);
				if (k < 0) {
					ok = err == -SFRAME_E_NO_FRE;
				} else {
					ok = !err &&
					     !sframe_fre_rule(&sec, &fde, &fre, &r) &&
					     rule_matches(&r, &rows[k]);
				}
			}
			/* Linked sections: the global lookup agrees. */
			if (ok && f->nrows && k >= 0 &&
			    (sec.flags & SFRAME_F_FDE_SORTED)) {
				err = sframe_find(&sec, f->pc + off, &r);
				ok = !err && r.fde_index == i &&
				     rule_matches(&r, &rows[k]);
			}
			if (!ok && bad++ < 5)
				kunit_err(test, "%s: pc 0x%llx (fde %u): wrong rule (%s)\n",
					  fx->name, f->pc + off, i,
					  sframe_errname(err));
		}
	}
	kunit_info(test, "%s: v%u, %u FDEs, %lu PCs checked\n", fx->name,
		   sec.version, sec.num_fdes, pcs);
	KUNIT_EXPECT_EQ(test, bad, 0);
}

static void fixture_desc(const struct sframe_kunit_fixture *fx, char *desc)
{
	strscpy(desc, fx->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sframe_fixtures, sframe_kunit_fixtures, fixture_desc);

/* Hostile input inside the kernel: every truncation of one section. */
static void sframe_core_truncation_test(struct kunit *test)
{
	const struct sframe_kunit_fixture *fx = &sframe_kunit_fixtures[0];
	struct sframe_section sec;
	struct sframe_rule r;
	size_t len;
	u32 i;

	for (len = 0; len < fx->size; len++) {
		int err = sframe_open(&sec, fx->data, len, fx->addr, 0);

		if (!err)
			err = sframe_validate(&sec, NULL, NULL);
		if (!err && len < sec.size)
			KUNIT_FAIL(test, "length %zu accepted", len);
		if (err == -SFRAME_E_TRUNCATED || err == -SFRAME_E_MAGIC ||
		    sframe_open(&sec, fx->data, len, fx->addr, 0))
			continue;
		for (i = 0; i < fx->nfdes; i++)
			sframe_find(&sec, fx->fdes[i].pc, &r);
	}
}

static struct kunit_case sframe_core_cases[] = {
	KUNIT_CASE_PARAM(sframe_core_fixture_test, sframe_fixtures_gen_params),
	KUNIT_CASE(sframe_core_truncation_test),
	{}
};

static struct kunit_suite sframe_core_suite = {
	.name = "sframe_core",
	.test_cases = sframe_core_cases,
};

kunit_test_suite(sframe_core_suite);

MODULE_DESCRIPTION("KUnit tests of the SFrame core on fixture sections");
MODULE_LICENSE("GPL");
