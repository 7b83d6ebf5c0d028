// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the SFrame core on the running kernel's own .sframe section.
 *
 *  - the section validates;
 *  - every FDE starts at a function start known to kallsyms (on arm64
 *    with ftrace, 8 bytes after it: the two patchable NOPs are not
 *    covered) and its size fits the symbol;
 *  - text addresses sampled across the kernel resolve to the function
 *    kallsyms names for them;
 *  - the text symbols without an FDE (assembly) are counted and listed.
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <asm/sections.h>
#include <sframe/kernel.h>

#define SFRAME_KUNIT_LIST_MAX	400

/* Bytes between a function symbol and its FDE start (arm64 ftrace NOPs). */
static unsigned long fde_skew(void)
{
	return IS_ENABLED(CONFIG_ARM64) &&
	       IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS) ? 8 : 0;
}

static void sframe_vmlinux_validates(struct kunit *test)
{
	const struct sframe_section *sec = sframe_vmlinux_section();
	int err;

	KUNIT_ASSERT_NOT_NULL_MSG(test, sec, "vmlinux has no usable .sframe");
	err = sframe_validate(sec, NULL, NULL);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "%s", sframe_errname(err));
	KUNIT_EXPECT_GT(test, sec->num_fdes, 1000U);
	kunit_info(test, "vmlinux: SFrame v%u, %u FDEs, %u FREs, %u bytes\n",
		   sec->version, sec->num_fdes, sec->num_fres, sec->size);
}

static void sframe_vmlinux_fdes_match_kallsyms(struct kunit *test)
{
	const struct sframe_section *sec = sframe_vmlinux_section();
	unsigned long not_start = 0, too_big = 0, padded = 0, exact = 0;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, sec);
	for (i = 0; i < sec->num_fdes; i++) {
		unsigned long size, off;
		struct sframe_fde fde;

		KUNIT_ASSERT_EQ(test, sframe_get_fde(sec, i, &fde), 0);
		if (!kallsyms_lookup_size_offset(fde.start, &size, &off) ||
		    (off != 0 && off != fde_skew())) {
			if (not_start++ < 10)
				kunit_err(test, "FDE %u at %pS is not a function start\n",
					  i, (void *)(unsigned long)fde.start);
			continue;
		}
		if (fde.size + off > size) {
			if (too_big++ < 10)
				kunit_err(test, "FDE %u: %pS: %u bytes, symbol %lu\n",
					  i, (void *)(unsigned long)fde.start,
					  fde.size, size);
		} else if (fde.size + off == size) {
			exact++;
		} else {
			padded++;	/* alignment padding after the function */
		}
	}
	kunit_info(test, "%u FDEs: %lu end at the next symbol, %lu before it (padding), %lu not at a symbol start, %lu too long\n",
		   sec->num_fdes, exact, padded, not_start, too_big);
	KUNIT_EXPECT_EQ(test, not_start, 0);
	KUNIT_EXPECT_EQ(test, too_big, 0);
}

static void sframe_vmlinux_lookups(struct kunit *test)
{
	const struct sframe_section *sec = sframe_vmlinux_section();
	unsigned long pc, checked = 0, covered = 0, wrong = 0;
	struct sframe_rule r;

	KUNIT_ASSERT_NOT_NULL(test, sec);
	/* An odd stride visits every alignment. */
	for (pc = (unsigned long)_stext; pc < (unsigned long)_etext; pc += 61) {
		unsigned long size, off;
		int err;

		if (!kallsyms_lookup_size_offset(pc, &size, &off))
			continue;
		checked++;
		err = sframe_kernel_find(pc, &r);
		if (err == -SFRAME_E_NO_FDE)
			continue;
		covered++;
		if (err || r.func_start != pc - off + (off >= fde_skew() ?
							fde_skew() : 0)) {
			if (wrong++ < 10)
				kunit_err(test, "%pS: %s, function 0x%llx\n",
					  (void *)pc, sframe_errname(err),
					  r.func_start);
		}
	}
	kunit_info(test, "%lu sampled text addresses: %lu covered by an FDE of their function, %lu wrong\n",
		   checked, covered, wrong);
	KUNIT_EXPECT_GT(test, covered, checked / 2);
	KUNIT_EXPECT_EQ(test, wrong, 0);
}

struct sframe_uncovered {
	struct kunit *test;
	unsigned long symbols, uncovered;
};

static int sframe_check_symbol(void *data, const char *name,
			       struct module *mod, unsigned long addr)
{
	struct sframe_uncovered *u = data;
	unsigned long size, off;
	struct sframe_rule r;
	int err;

	if (!__is_kernel_text(addr) ||
	    !kallsyms_lookup_size_offset(addr, &size, &off) || off ||
	    size <= fde_skew())
		return 0;
	u->symbols++;
	err = sframe_kernel_find(addr + fde_skew(), &r);
	if (err != -SFRAME_E_NO_FDE)
		return 0;
	if (u->uncovered++ < SFRAME_KUNIT_LIST_MAX)
		kunit_info(u->test, "no FDE: %s (%lu bytes)\n", name, size);
	return 0;
}

static void sframe_vmlinux_uncovered_functions(struct kunit *test)
{
	struct sframe_uncovered u = { .test = test };

	KUNIT_ASSERT_NOT_NULL(test, sframe_vmlinux_section());
	kallsyms_on_each_symbol(sframe_check_symbol, &u);
	kunit_info(test, "%lu of %lu text symbols have no FDE (assembly, trampolines, dropped FDEs)%s\n",
		   u.uncovered, u.symbols,
		   u.uncovered > SFRAME_KUNIT_LIST_MAX ? "; list truncated" : "");
	KUNIT_EXPECT_GT(test, u.symbols, 0UL);
	KUNIT_EXPECT_LT(test, u.uncovered, u.symbols / 4);
}

static struct kunit_case sframe_vmlinux_cases[] = {
	KUNIT_CASE(sframe_vmlinux_validates),
	KUNIT_CASE(sframe_vmlinux_fdes_match_kallsyms),
	KUNIT_CASE(sframe_vmlinux_lookups),
	KUNIT_CASE(sframe_vmlinux_uncovered_functions),
	{}
};

static struct kunit_suite sframe_vmlinux_suite = {
	.name = "sframe_vmlinux",
	.test_cases = sframe_vmlinux_cases,
};

kunit_test_suite(sframe_vmlinux_suite);

MODULE_DESCRIPTION("KUnit tests of the SFrame core on vmlinux's .sframe");
MODULE_LICENSE("GPL");
