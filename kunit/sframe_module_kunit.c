// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit, built as a module: the SFrame core on this module's own .sframe,
 * registered by the module loader after relocation.  The noinline chain
 * below gives functions whose FDEs and rows are known.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <sframe/kernel.h>
#include "sframe_kunit.h"

static noinline int sframe_mod_leaf(int x)
{
	return x * 3 + 1;
}

/* A frame with a local array, so the function has a real stack frame. */
static noinline int sframe_mod_middle(int x)
{
	int buf[16];
	int i;

	for (i = 0; i < 16; i++)
		buf[i] = sframe_mod_leaf(x + i);
	barrier_data(buf);
	return buf[3] + buf[15];
}

static noinline int sframe_mod_top(int x)
{
	return sframe_mod_middle(x) + sframe_mod_leaf(x);
}

static void sframe_module_registered(struct kunit *test)
{
	const struct sframe_section *sec = sframe_module_section(THIS_MODULE);
	int err;

	KUNIT_ASSERT_NOT_NULL_MSG(test, sec, "module .sframe not registered");
	err = sframe_validate(sec, NULL, NULL);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "%s", sframe_errname(err));
	KUNIT_EXPECT_GT(test, sec->num_fdes, 3U);
	kunit_info(test, "module: SFrame v%u, %u FDEs, %u FREs, %s\n",
		   sec->version, sec->num_fdes, sec->num_fres,
		   sec->flags & SFRAME_F_FDE_SORTED ? "sorted" : "unsorted (indexed)");
}

static void sframe_module_fdes_match_kallsyms(struct kunit *test)
{
	const struct sframe_section *sec = sframe_module_section(THIS_MODULE);
	unsigned long bad = 0;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, sec);
	for (i = 0; i < sec->num_fdes; i++) {
		unsigned long sym, size;
		struct sframe_fde fde;

		KUNIT_ASSERT_EQ(test, sframe_get_fde(sec, i, &fde), 0);
		if (!within_module(fde.start, THIS_MODULE) ||
		    !sframe_kunit_symbol(fde.start, &sym, &size) ||
		    !sframe_kunit_fde_at_symbol(fde.start, sym) ||
		    fde.start + fde.size > sym + size) {
			if (bad++ < 10)
				kunit_err(test, "FDE %u at %pS (%u bytes) does not match a function\n",
					  i, (void *)(unsigned long)fde.start,
					  fde.size);
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

static void sframe_module_lookups(struct kunit *test)
{
	unsigned long fns[] = {
		(unsigned long)sframe_mod_leaf,
		(unsigned long)sframe_mod_middle,
		(unsigned long)sframe_mod_top,
	};
	unsigned long sym, size, pc, entry;
	struct sframe_rule r;
	int i, err;

	KUNIT_EXPECT_EQ(test, sframe_mod_top(1), 66);
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol(fns[i], &sym, &size));
		KUNIT_ASSERT_EQ(test, sym, fns[i]);
		/* Where the function's FDE starts (arm64: maybe after NOPs). */
		err = sframe_kernel_find(fns[i] + size - 1, &r);
		KUNIT_ASSERT_EQ_MSG(test, err, 0, "%pS: %s", (void *)fns[i],
				    sframe_errname(err));
		KUNIT_ASSERT_TRUE(test, sframe_kunit_fde_at_symbol(r.func_start, sym));
		entry = r.func_start;
		for (pc = entry; pc < r.func_start + r.func_size; pc++) {
			err = sframe_kernel_find(pc, &r);
			KUNIT_ASSERT_EQ_MSG(test, err, 0, "%pS: %s", (void *)pc,
					    sframe_errname(err));
			KUNIT_EXPECT_EQ(test, r.func_start, entry);
		}
		/* At entry the CFA is the SP at the call (+8 for x86's RA). */
		err = sframe_kernel_find(entry, &r);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_EXPECT_TRUE(test, r.flags & SFRAME_RULE_CFA_BASE_SP);
		KUNIT_EXPECT_EQ(test, r.cfa.offset,
				IS_ENABLED(CONFIG_X86_64) ? 8 : 0);
		KUNIT_EXPECT_EQ(test, r.ra.kind,
				IS_ENABLED(CONFIG_X86_64) ? SFRAME_LOC_CFA :
							    SFRAME_LOC_SAME);
	}
	/* Addresses outside any registered section. */
	KUNIT_EXPECT_EQ(test, sframe_kernel_find(0, &r), -SFRAME_E_NO_FDE);
}

static struct kunit_case sframe_module_cases[] = {
	KUNIT_CASE(sframe_module_registered),
	KUNIT_CASE(sframe_module_fdes_match_kallsyms),
	KUNIT_CASE(sframe_module_lookups),
	{}
};

static struct kunit_suite sframe_module_suite = {
	.name = "sframe_module",
	.test_cases = sframe_module_cases,
};

kunit_test_suite(sframe_module_suite);

MODULE_DESCRIPTION("KUnit tests of the SFrame core on a module's .sframe");
MODULE_LICENSE("GPL");
