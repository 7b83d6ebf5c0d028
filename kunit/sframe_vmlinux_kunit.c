// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the SFrame core on the running kernel's own .sframe section.
 *
 *  - the section validates;
 *  - FDEs start at function starts known to kallsyms (on arm64 with ftrace
 *    traceable functions' FDEs start 8 bytes in, after the patchable NOPs)
 *    and fit their symbol;
 *  - text addresses sampled across the kernel resolve to the FDE of the
 *    function kallsyms names for them;
 *  - the text symbols without an FDE (assembly) are counted and listed;
 *  - the user caches are sized by vmlinux's rows, not by the CPU count.
 *
 * Two toolchain artifacts are reported, bounded and listed, not failed:
 * the FDE of a __weak function overridden at link time stays in .sframe
 * while its symbol is dropped (its code sits unnamed inside the previous
 * symbol), and an asm label inside a C function (e.g. int3_selftest_ip)
 * splits one FDE into two kallsyms symbols.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <asm/sections.h>
#include <sframe/compat.h>
#include <sframe/kernel.h>
#include <sframe/user.h>
#include "sframe_kunit.h"

#define SFRAME_KUNIT_LIST_MAX	400

static void sframe_vmlinux_validates(struct kunit *test)
{
	const struct sframe_section *sec = sframe_kunit_vmlinux_section(test);
	int err;

	err = sframe_validate(sec, NULL, NULL);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "%s", sframe_errname(err));
	KUNIT_EXPECT_GT(test, sec->num_fdes, 1000U);
	kunit_info(test, "vmlinux: SFrame v%u, %u FDEs, %u FREs, %u bytes\n",
		   sec->version, sec->num_fdes, sec->num_fres, sec->size);
}

static void sframe_vmlinux_fdes_match_kallsyms(struct kunit *test)
{
	const struct sframe_section *sec = sframe_kunit_vmlinux_section(test);
	unsigned long unnamed = 0, split = 0, exact = 0, padded = 0;
	u32 i;

	for (i = 0; i < sec->num_fdes; i++) {
		unsigned long sym, size, end;
		struct sframe_fde fde;

		KUNIT_ASSERT_EQ(test, sframe_get_fde(sec, i, &fde), 0);
		if (!sframe_kunit_symbol(fde.start, &sym, &size) ||
		    !sframe_kunit_fde_at_symbol(fde.start, sym)) {
			if (unnamed++ < 10)
				kunit_info(test, "FDE %u at %pS (%u bytes): no symbol of its own\n",
					   i, (void *)(unsigned long)fde.start,
					   fde.size);
			continue;
		}
		end = fde.start + fde.size;
		if (end > sym + size) {
			if (split++ < 10)
				kunit_info(test, "FDE %u: %pS: %u bytes, symbol %lu (label inside?)\n",
					   i, (void *)(unsigned long)fde.start,
					   fde.size, size);
		} else if (end == sym + size) {
			exact++;
		} else {
			padded++;	/* alignment padding after the function */
		}
	}
	kunit_info(test, "%u FDEs: %lu end at the next symbol, %lu before it (padding), %lu without own symbol, %lu span several symbols\n",
		   sec->num_fdes, exact, padded, unnamed, split);
	KUNIT_EXPECT_GT(test, exact + padded, sec->num_fdes * 98UL / 100);
	KUNIT_EXPECT_LT(test, unnamed, sec->num_fdes / 50UL);
	KUNIT_EXPECT_LT(test, split, sec->num_fdes / 200UL + 1);
}

static void sframe_vmlinux_lookups(struct kunit *test)
{
	unsigned long pc, checked = 0, covered = 0, unnamed = 0, split = 0;
	unsigned long wrong = 0;
	struct sframe_rule r;

	sframe_kunit_vmlinux_section(test);
	/* An odd stride visits every alignment. */
	for (pc = (unsigned long)_stext; pc < (unsigned long)_etext; pc += 61) {
		unsigned long sym, size, fsym, fsize;
		int err;

		/*
		 * kallsyms sizes run to the next symbol: a huge one is an
		 * alignment gap (x86 has 2 MiB of padding in .text), not code.
		 */
		if (!sframe_kunit_symbol(pc, &sym, &size) || size > SZ_256K)
			continue;
		checked++;
		err = sframe_kernel_find(pc, &r);
		if (err == -SFRAME_E_NO_FDE)
			continue;
		covered++;
		if (!err && sframe_kunit_fde_at_symbol(r.func_start, sym))
			continue;
		/* Categorise through the symbol of the FDE's own start. */
		if (!err && (!sframe_kunit_symbol(r.func_start, &fsym, &fsize) ||
			     !sframe_kunit_fde_at_symbol(r.func_start, fsym))) {
			unnamed++;
		} else if (!err && sym > r.func_start) {
			split++;
		} else if (wrong++ < 10) {
			kunit_err(test, "%pS: %s, FDE of 0x%llx\n", (void *)pc,
				  sframe_errname(err), r.func_start);
		}
	}
	kunit_info(test, "%lu sampled text addresses: %lu covered by an FDE; of those %lu in unnamed code, %lu past a label, %lu wrong\n",
		   checked, covered, unnamed, split, wrong);
	KUNIT_EXPECT_GT(test, covered, checked * 3 / 4);
	KUNIT_EXPECT_EQ(test, wrong, 0);
}

struct sframe_uncovered {
	struct kunit *test;
	unsigned long symbols, uncovered;
};

static int sframe_check_symbol(SFRAME_KALLSYMS_CB_ARGS)
{
	struct sframe_uncovered *u = data;
	unsigned long sym, size;
	struct sframe_rule r;

	if (!__is_kernel_text(addr) || !sframe_kunit_symbol(addr, &sym, &size) ||
	    sym != addr)
		return 0;
	/* x86 call padding (objtool --prefix): nops, never a function */
	if (str_has_prefix(name, "__pfx_"))
		return 0;
	u->symbols++;
	/* Either the symbol itself or, after ftrace's NOPs, addr + 8. */
	if (sframe_kernel_find(addr, &r) != -SFRAME_E_NO_FDE ||
	    (size > 8 && sframe_kernel_find(addr + 8, &r) != -SFRAME_E_NO_FDE))
		return 0;
	if (u->uncovered++ < SFRAME_KUNIT_LIST_MAX)
		kunit_info(u->test, "no FDE: %s (%lu bytes)\n", name, size);
	return 0;
}

static void sframe_vmlinux_uncovered_functions(struct kunit *test)
{
	struct sframe_uncovered u = { .test = test };

	sframe_kunit_vmlinux_section(test);
	kallsyms_on_each_symbol(sframe_check_symbol, &u);
	kunit_info(test, "%lu of %lu text symbols have no FDE (assembly, trampolines, dropped FDEs)%s\n",
		   u.uncovered, u.symbols,
		   u.uncovered > SFRAME_KUNIT_LIST_MAX ? "; list truncated" : "");
	KUNIT_EXPECT_GT(test, u.symbols, 0UL);
	KUNIT_EXPECT_LT(test, u.uncovered, u.symbols / 4);
}

#ifdef CONFIG_SFRAME_USER_UNWIND
/*
 * The user caches follow the kernel's size, not the CPU count: all CPUs
 * together take one unit per 1024 rows of vmlinux, a CPU at least the
 * smallest caches, and as large ones as that allows up to the largest,
 * with hash bits that index inside them.  For this kernel, for the
 * defconfigs' row counts and others, on 1 to 4096 CPUs.
 */
static void sframe_vmlinux_user_cache_size(struct kunit *test)
{
	static const u32 nrows_of[] = {
		0, 1023, 3 * 1024, 5000, 82012, 161763, 464048, 526125,
		4 << 20,
	};
	static const unsigned int cpus_of[] = {
		1, 2, 3, 6, 8, 12, 96, 255, 256, 4096,
	};
	const struct sframe_rows *rows;
	unsigned int i, j, units;

	KUNIT_ASSERT_TRUE(test, sframe_vmlinux_rows_wait());
	rows = sframe_vmlinux_rows();
	units = sframe_user_cache_units_for(rows->nrows, num_possible_cpus());
	kunit_info(test, "%u rows, %u CPUs: %zu bytes per CPU (%u units)\n",
		   rows->nrows, num_possible_cpus(), sframe_user_cache_bytes(),
		   units);
	/* what the caches of this kernel take, or will take */
	KUNIT_EXPECT_EQ(test, sframe_user_cache_bytes(),
			units * sframe_user_cache_unit_bytes());
	for (i = 0; i < ARRAY_SIZE(nrows_of); i++) {
		for (j = 0; j < ARRAY_SIZE(cpus_of); j++) {
			u32 all = nrows_of[i] / 1024;
			unsigned int cpus = cpus_of[j];

			units = sframe_user_cache_units_for(nrows_of[i], cpus);
			KUNIT_EXPECT_TRUE(test, is_power_of_2(units));
			KUNIT_EXPECT_GE(test, units, SFRAME_USER_CACHE_UNITS_MIN);
			KUNIT_EXPECT_LE(test, units, SFRAME_USER_CACHE_UNITS_MAX);
			/* in all, one unit per 1024 rows, or the smallest */
			if (units > SFRAME_USER_CACHE_UNITS_MIN)
				KUNIT_EXPECT_LE(test, units * cpus, all);
			/* the largest that fits */
			if (units < SFRAME_USER_CACHE_UNITS_MAX)
				KUNIT_EXPECT_GT(test, 2 * units * cpus, all);
			/* the hashes index four answers and a row a unit */
			KUNIT_EXPECT_EQ(test,
					2U << sframe_user_cache_set_bits(units),
					4 * units);
			KUNIT_EXPECT_EQ(test,
					1U << sframe_user_cache_row_bits(units),
					units);
		}
	}
}
#endif

static struct kunit_case sframe_vmlinux_cases[] = {
	KUNIT_CASE(sframe_vmlinux_validates),
	KUNIT_CASE(sframe_vmlinux_fdes_match_kallsyms),
	KUNIT_CASE(sframe_vmlinux_lookups),
	KUNIT_CASE(sframe_vmlinux_uncovered_functions),
#ifdef CONFIG_SFRAME_USER_UNWIND
	KUNIT_CASE(sframe_vmlinux_user_cache_size),
#endif
	{}
};

static struct kunit_suite sframe_vmlinux_suite = {
	.name = "sframe_vmlinux",
	.test_cases = sframe_vmlinux_cases,
};

kunit_test_suite(sframe_vmlinux_suite);

MODULE_DESCRIPTION("KUnit tests of the SFrame core on vmlinux's .sframe");
MODULE_LICENSE("GPL");
